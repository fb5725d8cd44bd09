// Process 0 leaves the program before a superstep that the others make.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    if ctx.pid() == 0 {
        return;
    }
    bsp::superstep!(ctx, {
        println!("only the others get here");
    });
}
