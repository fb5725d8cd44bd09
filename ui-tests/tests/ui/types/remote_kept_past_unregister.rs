// A `Remote` name taken before `unregister` and used after it: the name borrows the handle, so
// the handle cannot be given back while the name is alive.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let r = ctx.register([0u32; 2]);
    let name = r.remote();
    let _data = ctx.unregister(r);
    ctx.put(1 - ctx.pid(), &[7u32], name, 0);
    ctx.sync();
}
