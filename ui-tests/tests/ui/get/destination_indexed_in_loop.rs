// A loop of `get`s into `sums[q]`: the second `get` writes `sums` while the first one still
// borrows it (each element needs a destination of its own).

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32]);
    let mut sums = vec![0; ctx.nprocs()];
    bsp::superstep!(ctx, {
        for q in 0..ctx.nprocs() {
            ctx.get(q, &x, 0, &mut sums[q]);
        }
    });
}
