// `set_up` needs a value: the function that returns the number of processes and the value.

#[bsp::program(set_up)]
fn main(ctx: &mut bsp::Ctx, n: &u64) {
    println!("{} {n}", ctx.pid());
}
