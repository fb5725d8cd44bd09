// A batch of puts holds the context until it is dropped: it cannot be used after a sync.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let r = ctx.register([0u32; 4]);
    let other = 1 - ctx.pid();
    let mut batch = ctx.put_batch(&r);
    batch.put(other, &1u32, 0);
    ctx.sync();
    batch.put(other, &2u32, 1);
    ctx.sync();
}
