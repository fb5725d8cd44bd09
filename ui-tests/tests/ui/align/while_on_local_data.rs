// A `while` on local data (computed from the pid) with a superstep in its body.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([0usize]);
    let mut left = ctx.pid() * 3;
    while left > 0 {
        bsp::superstep!(ctx, {
            ctx.put(0, &[left], &x, 0);
        });
        left -= 1;
    }
}
