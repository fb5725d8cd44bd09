// A `get` from a registration into its own local part, with both taken by `split_mut`.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut x = ctx.register([ctx.pid() as i32 + 1, 0]);
    bsp::superstep!(ctx, {
        let (name, local) = x.split_mut(ctx);
        ctx.get(1 - ctx.pid(), name, 0, &mut local[1..]);
    });
    assert_eq!(x.local(ctx)[1], 2 - ctx.pid() as i32);
}
