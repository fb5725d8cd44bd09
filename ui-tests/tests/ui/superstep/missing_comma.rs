// `superstep!` takes the context, a comma, and the block.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    bsp::superstep!(ctx {
        ctx.pid();
    });
}
