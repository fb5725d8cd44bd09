// The `Remote` name of an in-place registration returned from its `with_reg` closure: the name
// borrows the handle, which cannot leave the closure.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut v = [0u8; 2];
    let name = ctx.with_reg(&mut v, |_, r| r.remote());
    ctx.put(0, &1u8, name, 0);
    ctx.sync();
}
