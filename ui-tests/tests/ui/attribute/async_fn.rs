// A `#[bsp::program]` function cannot be `async`.

#[bsp::program(procs = 2)]
async fn main(ctx: &mut bsp::Ctx) {
    println!("{}", ctx.pid());
}
