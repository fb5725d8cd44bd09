// A loop bound fetched from the neighbour (a different process on each): the bounds differ.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let counts = ctx.register([ctx.pid() + 1]);
    let mut n = 0;
    bsp::superstep!(ctx, {
        ctx.get((ctx.pid() + 1) % ctx.nprocs(), &counts, 0, &mut n);
    });
    for _ in 0..n {
        bsp::superstep!(ctx, {});
    }
}
