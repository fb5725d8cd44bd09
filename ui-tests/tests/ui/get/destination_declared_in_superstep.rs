// A `get` destination declared inside the superstep: it is gone before the sync that writes it.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32]);
    bsp::superstep!(ctx, {
        let mut left = 0;
        ctx.get(1 - ctx.pid(), &x, 0, &mut left);
    });
}
