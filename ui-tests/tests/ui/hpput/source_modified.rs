// An `hpput` source modified in the superstep that sends it: the unbuffered put reads it only
// at the sync.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([0u32; 4]);
    let mut data = [1u32, 2, 3, 4];
    bsp::superstep!(ctx, {
        ctx.hpput(1 - ctx.pid(), &data, &x, 0);
        data[0] = 10;
    });
}
