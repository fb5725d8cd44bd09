// BSPlib-style: a registration replaced at the end of each iteration (`r = ctx.push_reg(..)`,
// BSPlib's `bsp_push_reg` without its `bsp_sync`) and used at the start of the next one: there is
// no `push_reg`, and `ctx.register` includes the sync.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut r = ctx.register([0u32; 2]);
    for round in 0..3u32 {
        ctx.put(1 - ctx.pid(), &[round], &r, 0);
        ctx.unregister(r);
        r = ctx.push_reg([0u32; 2]);
    }
}
