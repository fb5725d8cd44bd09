// BSPlib-style: a registration made by a late initialisation (`let r; r = ctx.push_reg(..)`) and
// used by a `put` before the sync that makes it effective. (ported as is: there is no `push_reg`;
// `ctx.register` includes the sync.)

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let r;
    r = ctx.push_reg([0u32; 2]);
    ctx.put(1 - ctx.pid(), &[7u32], &r, 0);
    ctx.sync();
}
