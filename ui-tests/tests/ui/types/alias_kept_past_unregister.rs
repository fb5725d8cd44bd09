// An alias (`let a = &r;`) of a registration used after `unregister`: `unregister` takes the
// handle by value, which it cannot while the alias borrows it.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let r = ctx.register([0u32; 2]);
    let a = &r;
    ctx.unregister(r);
    ctx.put(1 - ctx.pid(), &[7u32], a, 0);
    ctx.sync();
}
