// `ctx.sync()` inside a `superstep!` block: the superstep ends at the end of its block, with
// the one sync that completes its `get`s.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32]);
    let mut left = 0;
    let mut right = 0;
    bsp::superstep!(ctx, {
        ctx.get(1 - ctx.pid(), &x, 0, &mut left);
        ctx.sync();
        ctx.get(ctx.pid(), &x, 0, &mut right);
    });
    println!("{left} {right}");
}
