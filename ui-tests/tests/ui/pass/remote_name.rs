// A `get` from a registration into this process's own part of it, naming the source by
// `remote()`, which borrows nothing (inline, or taken before the superstep).

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut reg = ctx.register([ctx.pid() as i32, 10 + ctx.pid() as i32]);
    bsp::superstep!(ctx, {
        ctx.get(1 - ctx.pid(), reg.remote(), 0, &mut reg.local_mut(ctx)[..1]);
    });
    let name = reg.remote();
    bsp::superstep!(ctx, {
        ctx.hpget(1 - ctx.pid(), name, 1, &mut reg.local_mut(ctx)[1..]);
    });
    assert_eq!(reg.local(ctx), [1 - ctx.pid() as i32, 11 - ctx.pid() as i32]);
}
