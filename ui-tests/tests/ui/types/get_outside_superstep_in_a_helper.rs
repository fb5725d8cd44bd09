// In a function without `#[bsp::program]`, no macro sees a `get` outside a superstep: the
// runtime's `Ctx` has no `get` (only the `Superstep` given to a `superstep!` block has one).

fn fetch_left(ctx: &mut bsp::Ctx, x: &bsp::Reg<i32>) -> i32 {
    let mut left = 0;
    ctx.get(1 - ctx.pid(), x, 0, &mut left);
    ctx.sync();
    left
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32]);
    fetch_left(ctx, &x);
}
