// `ctx.sync()` inside a closure that is called: the call ends the superstep, so the
// registration is effective at the put after it.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let r = ctx.push_reg([0u32; 2]);
    let mut end_superstep = || ctx.sync();
    end_superstep();
    ctx.put(1 - ctx.pid(), &[7u32], &r, 1);
    ctx.sync();
    assert_eq!(r.local(ctx), [0, 7]);
}
