// A collective (a sync point) called by some processes only.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut total = 0;
    if ctx.pid() < 1 {
        total = ctx.allreduce_one(ctx.pid() as u64, bsp::ops::sum);
    } else {
        println!("idle");
    }
    println!("{total}");
}
