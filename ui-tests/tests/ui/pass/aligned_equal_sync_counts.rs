// Branches on the pid that make the same number of sync points (a superstep on one, a plain
// sync on the other; a collective on both): aligned.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([0i32]);
    if ctx.pid() == 0 {
        bsp::superstep!(ctx, {
            ctx.put(1, &[7], &x, 0);
        });
    } else {
        ctx.sync();
    }
    let total = match ctx.pid() {
        0 => ctx.allreduce_one(x.local(ctx)[0], bsp::ops::sum),
        _ => ctx.allreduce_one(x.local(ctx)[0] * 2, bsp::ops::sum),
    };
    assert_eq!(total, 14);
}
