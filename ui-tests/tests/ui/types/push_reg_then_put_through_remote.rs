// BSPlib-style: a registration named by `r.remote()` in a `put` of the superstep that registers it.
// (ported as is: there is no `push_reg`; `ctx.register` includes the sync.)

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let r = ctx.push_reg([0u32; 2]);
    ctx.put(1 - ctx.pid(), &[7u32], r.remote(), 0);
    ctx.sync();
}
