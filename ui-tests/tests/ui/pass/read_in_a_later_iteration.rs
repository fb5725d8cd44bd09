// A `get` destination read at the start of a later iteration, after the sync that ended the
// previous iteration's superstep.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32 + 1]);
    let mut left = 0;
    let mut total = 0;
    for _ in 0..3 {
        bsp::superstep!(ctx, {
            total += left;
            ctx.get(1 - ctx.pid(), &x, 0, &mut left);
        });
    }
    total += left;
    assert_eq!(total, 3 * (2 - ctx.pid() as i32));
}
