// A helper marked `#[bsp::superstep_fn]`, called by every process: its promise at the start is
// the same everywhere, and its body's superstep is lowered and checked as a program's.

#[bsp::superstep_fn]
fn from_the_right(ctx: &mut bsp::Ctx, x: &bsp::Reg<u64>) -> u64 {
    let mut right = 0;
    bsp::superstep!(ctx, {
        ctx.get((ctx.pid() + 1) % ctx.nprocs(), x, 0, &mut right);
    });
    right
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([10 * ctx.pid() as u64]);
    let right = from_the_right(ctx, &x);
    assert_eq!(right, 10 * ((ctx.pid() as u64 + 1) % 2));
}
