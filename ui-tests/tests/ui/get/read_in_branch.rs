// A `get` destination read in one branch of an `if` in the superstep that fetches it.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32]);
    let mut left = 0;
    bsp::superstep!(ctx, {
        ctx.get(1 - ctx.pid(), &x, 0, &mut left);
        if ctx.pid() == 0 {
            let copy = left;
        }
    });
}
