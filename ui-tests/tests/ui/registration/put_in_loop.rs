// A registration used by `put` in a loop whose first iteration is still the superstep that
// registers it.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.push_reg([0usize]);
    for round in 0..3 {
        ctx.put(1 - ctx.pid(), &round, &x, 0);
        ctx.sync();
    }
}
