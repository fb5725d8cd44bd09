// While registered in place, the caller's memory is reached only through the handle (and the
// context): using the original variable inside the scope is a borrow error.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut v = [0u8; 4];
    ctx.with_reg(&mut v, |ctx, r| {
        ctx.put(0, &1u8, &r, 0);
        v[0] = 2;
    });
}
