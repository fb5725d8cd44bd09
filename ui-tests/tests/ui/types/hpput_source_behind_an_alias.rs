// The macro cannot follow an `hpput` source through a reference: the runtime's types borrow
// `data` until the sync, so modifying it is a borrow error.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([0u32; 2]);
    let mut data = [1u32, 2];
    bsp::superstep!(ctx, {
        let src = &data;
        ctx.hpput(1 - ctx.pid(), src, &x, 0);
        data[0] = 10;
    });
}
