// A new `left` that shadows a pending `get` destination is a different variable: using it in
// the superstep is fine.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32]);
    let mut left = 0;
    bsp::superstep!(ctx, {
        ctx.get(1 - ctx.pid(), &x, 0, &mut left);
        let left = ctx.pid();
        println!("{left}");
    });
    assert_eq!(left, 1 - ctx.pid() as i32);
}
