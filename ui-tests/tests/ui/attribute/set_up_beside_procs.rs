// `procs` and `set_up` both choose the number of processes.

fn set_up() -> (usize, u32) {
    (2, 7)
}

#[bsp::program(procs = 4, set_up = set_up)]
fn main(ctx: &mut bsp::Ctx, value: &u32) {
    println!("{} {value}", ctx.pid());
}
