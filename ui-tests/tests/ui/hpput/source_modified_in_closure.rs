// An `hpput` source modified by a closure in the superstep that sends it.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([0u32; 3]);
    let mut data = [1u32, 2, 3];
    bsp::superstep!(ctx, {
        ctx.hpput(1 - ctx.pid(), &data, &x, 0);
        let mut bump = || data[0] += 1;
        bump();
    });
}
