// `break` inside `superstep!` cannot leave a loop around the block.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    for round in 0..10 {
        bsp::superstep!(ctx, {
            if round == 3 {
                break;
            }
        });
    }
}
