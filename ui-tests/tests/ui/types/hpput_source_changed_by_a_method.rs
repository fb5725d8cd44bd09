// The macro does not know which methods change their receiver: `data.clear()` takes `&mut data`
// while the `hpput` borrows `data` until the sync, so the borrow checker rejects it.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([0u32; 3]);
    let mut data = vec![1u32, 2, 3];
    bsp::superstep!(ctx, {
        ctx.hpput(1 - ctx.pid(), &data, &x, 0);
        data.clear();
    });
}
