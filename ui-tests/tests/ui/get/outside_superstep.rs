// `get` outside a superstep: it only exists inside `superstep!`, which keeps its destination
// borrowed until the sync.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32]);
    let mut left = 0;
    ctx.get(1 - ctx.pid(), &x, 0, &mut left);
    ctx.sync();
}
