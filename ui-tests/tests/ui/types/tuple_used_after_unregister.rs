// Registrations made together as a tuple and given back together: an element of the tuple
// cannot be used afterwards.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let pair = ctx.register(([0u32; 2], [0.0f64]));
    let _data = ctx.unregister(pair);
    ctx.put(1 - ctx.pid(), &1.5, &pair.1, 0);
    ctx.sync();
}
