// `put_batch` inside a `superstep!` block: the batch borrows the context mutably.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([0u32; 4]);
    bsp::superstep!(ctx, {
        let mut batch = ctx.put_batch(&x);
        batch.put(0, &1, 0);
    });
}
