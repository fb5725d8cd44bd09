// A `get` from `x.remote()` into `x.local_mut(ctx)`: one call borrows `x` to name it and to
// write its local part.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut x = ctx.register([ctx.pid() as i32, 0]);
    bsp::superstep!(ctx, {
        ctx.get(1 - ctx.pid(), x.remote(), 0, &mut x.local_mut(ctx)[1..]);
    });
}
