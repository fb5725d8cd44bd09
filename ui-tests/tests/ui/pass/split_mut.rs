// A `get` from a registration into this process's own part of it: `split_mut` gives the
// registration's name and its local part at once (inside the superstep, or with the name also
// used by a put of the same superstep).

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut reg = ctx.register([ctx.pid() as i32, 10 + ctx.pid() as i32]);
    bsp::superstep!(ctx, {
        let (name, local) = reg.split_mut(ctx);
        ctx.get(1 - ctx.pid(), name, 0, &mut local[..1]);
    });
    bsp::superstep!(ctx, {
        let (name, local) = reg.split_mut(ctx);
        ctx.hpget(1 - ctx.pid(), name, 1, &mut local[1..]);
        ctx.put(ctx.pid(), &[0], name, 0);
    });
    assert_eq!(reg.local(ctx), [0, 11 - ctx.pid() as i32]);
}
