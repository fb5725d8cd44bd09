// A `while` over a value fetched from the neighbour, where every process's neighbour holds the
// same counter: every process leaves after the same round. The macro cannot know what the data
// holds, so it accepts the loop and inserts a run-time check (debug builds) that every process
// iterates alike.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let src = (ctx.pid() + 1) % ctx.nprocs();
    let mut counter = ctx.register([0u32]);
    let want = 3;
    let mut left = 0u32;
    let mut rounds = 0;
    while left != want {
        counter.local_mut(ctx)[0] += 1;
        bsp::superstep!(ctx, {
            ctx.get(src, &counter, 0, &mut left);
        });
        rounds += 1;
    }
    assert_eq!(rounds, 3);
}
