// A `get` destination read before its sync inside a helper marked `#[bsp::superstep_fn]`: the
// helper's body is checked as a program's.

#[bsp::superstep_fn]
fn from_the_right(ctx: &mut bsp::Ctx, x: &bsp::Reg<u64>) -> u64 {
    let mut right = 0;
    bsp::superstep!(ctx, {
        ctx.get((ctx.pid() + 1) % ctx.nprocs(), x, 0, &mut right);
        println!("{right}");
    });
    right
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([0u64]);
    from_the_right(ctx, &x);
}
