// An unknown knob of `#[bsp::program]`; the message lists the valid ones.

#[bsp::program(threads = 4)]
fn main(ctx: &mut bsp::Ctx) {
    println!("{}", ctx.pid());
}
