// `superstep!` in a function without `#[bsp::program]` checks its own block: a `get`
// destination read in the superstep that fetches it.

fn left_neighbour(ctx: &mut bsp::Ctx, x: &bsp::Reg<i32>) -> i32 {
    let mut left = 0;
    bsp::superstep!(ctx, {
        ctx.get((ctx.pid() + ctx.nprocs() - 1) % ctx.nprocs(), x, 0, &mut left);
        println!("{left}");
    });
    left
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32]);
    left_neighbour(ctx, &x);
}
