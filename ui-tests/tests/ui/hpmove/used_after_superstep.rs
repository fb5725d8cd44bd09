// An `hpmove` payload used after a `superstep!` block, whose end is a sync.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    ctx.set_tag::<u32>();
    ctx.sync();
    ctx.send(1 - ctx.pid(), &0u32, &[1u64, 2, 3][..]);
    ctx.sync();
    if let Some((_, payload)) = ctx.hpmove::<u32, u64>() {
        bsp::superstep!(ctx, {
            ctx.send(1 - ctx.pid(), &1u32, &[4u64][..]);
        });
        let first = payload[0];
    } else {
        ctx.sync();
    }
}
