// The set-up's value is shared: the parameter cannot borrow it mutably.

#[bsp::program(set_up = || (2, 7u64))]
fn main(ctx: &mut bsp::Ctx, n: &mut u64) {
    println!("{} {n}", ctx.pid());
}
