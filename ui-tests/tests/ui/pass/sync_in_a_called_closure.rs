// `ctx.sync()` inside a closure that is called: the call ends the superstep, so the put queued
// before it has landed after it.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let r = ctx.register([0u32; 2]);
    ctx.put(1 - ctx.pid(), &[7u32], &r, 1);
    let mut end_superstep = || ctx.sync();
    end_superstep();
    assert_eq!(r.local(ctx), [0, 7]);
}
