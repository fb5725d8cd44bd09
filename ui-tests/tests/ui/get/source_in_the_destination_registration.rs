// A `get` from `reg` into this process's part of `reg` names its source by `&reg`, which the
// call cannot borrow while `reg.local_mut(..)` borrows it mutably.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut reg = ctx.register([ctx.pid() as i32]);
    bsp::superstep!(ctx, {
        ctx.get(1 - ctx.pid(), &reg, 0, reg.local_mut(ctx));
    });
}
