// `with_reg` inside a `superstep!` block: registering and unregistering include syncs.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut data = [0u32; 2];
    bsp::superstep!(ctx, {
        ctx.with_reg(&mut data, |ctx, r| {
            ctx.put(0, &[1], &r, 0);
        });
    });
}
