// `x.local_mut(ctx)` kept in a variable, then a `get` from `x.remote()` into it: the remote
// name cannot be borrowed while the local part is.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut x = ctx.register([ctx.pid() as i32, 0]);
    bsp::superstep!(ctx, {
        let mine = &mut x.local_mut(ctx)[1..];
        ctx.get(1 - ctx.pid(), x.remote(), 0, mine);
    });
}
