// BSPlib-style: a registration used by `put` in a loop whose first iteration is still the superstep
// that registers it. (ported as is: there is no `push_reg`; `ctx.register` includes the sync.)

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.push_reg([0usize]);
    for round in 0..3 {
        ctx.put(1 - ctx.pid(), &round, &x, 0);
        ctx.sync();
    }
}
