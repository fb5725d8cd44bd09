// BSPlib-style: a registration used through an alias (`let a = &r;`) in the superstep that
// registers it. (ported as is: there is no `push_reg`; `ctx.register` includes the sync.)

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let r = ctx.push_reg([0u32; 2]);
    let a = &r;
    ctx.put(1 - ctx.pid(), &[7u32], a, 0);
    ctx.sync();
}
