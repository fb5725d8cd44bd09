// A local view of a scoped registration borrows the context, like a `Reg`'s: it cannot be kept
// across a sync, when other processes write into the memory.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut v = [0u8; 4];
    ctx.with_reg(&mut v, |ctx, r| {
        let view = r.local(ctx);
        ctx.sync();
        let _ = view[0];
    });
}
