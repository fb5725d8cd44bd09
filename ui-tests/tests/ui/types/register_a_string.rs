// Registered variables hold plain old data: a `String` cannot be registered.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let names = ctx.register(vec![String::from("pid")]);
}
