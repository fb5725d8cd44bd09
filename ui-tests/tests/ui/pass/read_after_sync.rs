// A `get` destination read after the superstep that fetches it (in `println!`, `format!` and
// `assert!` too), and a registration used after the `register` that made it effective.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32]);
    let mut left = 0;
    bsp::superstep!(ctx, {
        ctx.get(1 - ctx.pid(), &x, 0, &mut left);
    });
    println!("left = {left}");
    let line = format!("{} got {}", ctx.pid(), left);
    assert!(left == 1 - ctx.pid() as i32, "{line}");
    ctx.unregister(x);
}
