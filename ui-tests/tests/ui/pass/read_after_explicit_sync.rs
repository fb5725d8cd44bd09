// `ctx.superstep(|s| ..)` ends with a sync like `superstep!`: the destination is read after it,
// and `put` into a registration after the sync that makes it effective.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32]);
    let mut left = 0;
    ctx.superstep(|s| s.get(1 - s.pid(), &x, 0, &mut left));
    let y = ctx.register([0i32]);
    ctx.put(1 - ctx.pid(), &left, &y, 0);
    ctx.sync();
    assert_eq!(*y.value(ctx), ctx.pid() as i32);
}
