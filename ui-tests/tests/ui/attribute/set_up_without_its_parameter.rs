// With `set_up`, the function takes the set-up's value after the context.

fn set_up() -> (usize, u32) {
    (2, 7)
}

#[bsp::program(set_up = set_up)]
fn main(ctx: &mut bsp::Ctx) {
    println!("{}", ctx.pid());
}
