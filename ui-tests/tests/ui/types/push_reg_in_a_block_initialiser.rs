// BSPlib-style: a registration made in a block initialiser and used by a `put` before the sync that
// makes it effective. (ported as is: there is no `push_reg`; `ctx.register` includes the sync.)

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let r = {
        let n = 2 * ctx.nprocs();
        ctx.push_reg(vec![0u32; n])
    };
    ctx.put(1 - ctx.pid(), &[7u32], &r, 0);
    ctx.sync();
}
