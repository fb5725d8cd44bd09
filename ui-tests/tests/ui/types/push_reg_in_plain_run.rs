// Plain `bsp::run`, no macro, BSPlib-style: a registration pushed and used before a sync. There
// is no `push_reg`; `ctx.register` includes the sync.

fn main() {
    bsp::run(2, |ctx| {
        let r = ctx.push_reg([0u32]);
        ctx.put(1 - ctx.pid(), &1u32, &r, 0);
        ctx.sync();
    })
    .unwrap();
}
