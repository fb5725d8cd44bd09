// An `hpput` source modified in a branch of the superstep that sends it.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([0u32]);
    let mut count = 1u32;
    bsp::superstep!(ctx, {
        ctx.hpput(1 - ctx.pid(), &count, &x, 0);
        if ctx.pid() == 0 {
            count += 1;
        }
    });
}
