// A `while` whose condition is the result of a collective (the same on every process), with
// local work that differs per process inside: aligned.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut left = ctx.pid() as u64 * 3;
    let mut busy = ctx.allreduce_one(left, bsp::ops::max);
    let mut rounds = 0;
    while busy > 0 {
        left = left.saturating_sub(1);
        busy = ctx.allreduce_one(left, bsp::ops::max);
        rounds += 1;
    }
    assert_eq!(rounds, 3);
}
