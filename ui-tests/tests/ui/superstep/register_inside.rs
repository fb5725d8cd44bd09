// `ctx.register(..)` inside a `superstep!` block: registering includes a sync, and only the end
// of the block ends the superstep.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    bsp::superstep!(ctx, {
        let r = ctx.register([0u32]);
        ctx.put(1 - ctx.pid(), &1u32, &r, 0);
    });
}
