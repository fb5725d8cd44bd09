// `return` inside `superstep!`: the block is a closure's body, so it would only end the
// superstep early.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    bsp::superstep!(ctx, {
        if ctx.pid() == 0 {
            return;
        }
    });
}
