// Loops over `0..ctx.nprocs()` (the same range everywhere) with a superstep per iteration,
// skipping nothing or skipping one iteration on every process alike: aligned.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([0usize; 2]);
    let (me, p) = (ctx.pid(), ctx.nprocs());
    for q in 0..p {
        bsp::superstep!(ctx, {
            if q != me {
                ctx.put(q, &[me + 1], &x, me);
            }
        });
    }
    for step in 0..ctx.nprocs() {
        if step == p {
            continue;
        }
        ctx.sync();
    }
    assert_eq!(x.local(ctx)[1 - me], 2 - me);
}
