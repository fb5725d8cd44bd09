// A `superstep!` inside another one: the inner superstep would have to end with a sync while
// the outer one is still in progress.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32]);
    let mut left = 0;
    let mut right = 0;
    bsp::superstep!(ctx, {
        ctx.get(1 - ctx.pid(), &x, 0, &mut left);
        bsp::superstep!(ctx, {
            ctx.get(ctx.pid(), &x, 0, &mut right);
        });
    });
    println!("{left} {right}");
}
