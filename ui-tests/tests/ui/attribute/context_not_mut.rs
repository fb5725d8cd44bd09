// The context parameter is `&mut bsp::Ctx`.

#[bsp::program(procs = 2)]
fn main(ctx: &bsp::Ctx) {
    println!("{}", ctx.pid());
}
