// BSPlib-style: a registration pushed by a user macro that mentions the context, then used
// before a sync. There is no `push_reg`; `ctx.register` includes the sync.

macro_rules! fresh {
    ($ctx:ident) => {
        $ctx.push_reg([0u32; 2])
    };
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let r = fresh!(ctx);
    ctx.put(1 - ctx.pid(), &[7u32], &r, 0);
    ctx.sync();
}
