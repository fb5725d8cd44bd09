// A put into a registration after the `unregister` that ended it (BSPlib: after the pop's sync).

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let r = ctx.register([0u32; 2]);
    let _data = ctx.unregister(r);
    ctx.put(1 - ctx.pid(), &[7u32], &r, 0);
    ctx.sync();
}
