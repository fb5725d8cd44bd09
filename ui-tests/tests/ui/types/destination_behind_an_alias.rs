// The macro cannot follow a `get` destination through a reference: `dst` borrows `left`, and
// the runtime's types keep that borrow until the sync, so reading `left` is a borrow error.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32]);
    let mut left = 0;
    bsp::superstep!(ctx, {
        let dst = &mut left;
        ctx.get(1 - ctx.pid(), &x, 0, dst);
        let _copy = left;
    });
}
