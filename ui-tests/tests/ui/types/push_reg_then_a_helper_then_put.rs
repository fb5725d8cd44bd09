// BSPlib-style: a registration pushed, then the context handed to a helper (which may or may not
// sync), then a put. There is no `push_reg`; `ctx.register` includes the sync, whatever the
// helper does.

fn log_step(ctx: &bsp::Ctx) {
    println!("{} at superstep {}", ctx.pid(), ctx.step());
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let r = ctx.push_reg([0u32]);
    log_step(ctx);
    ctx.put(1 - ctx.pid(), &1u32, &r, 0);
    ctx.sync();
}
