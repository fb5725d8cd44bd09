// BSPlib-style: a registration used by `put` in the superstep that registers it: it only takes
// effect at the next sync. (ported as is: there is no `push_reg`; `ctx.register` includes the
// sync.)

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.push_reg([0i32]);
    ctx.put(1 - ctx.pid(), &5, &x, 0);
    ctx.sync();
}
