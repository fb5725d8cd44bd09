// The `Remote` name of an in-place registration cannot outlive its handle: a helper that takes
// the handle of a `with_reg` closure by value and returns its name is rejected (the name borrows
// the handle, which the helper drops; so no name leaves the closure either).

fn name_of<'r>(r: bsp::Registered<'r, u8>) -> bsp::Remote<'r, u8> {
    r.remote()
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut v = [0u8; 2];
    ctx.with_reg(&mut v, |ctx, r| {
        let name = name_of(r);
        ctx.put(0, &1u8, name, 0);
    });
}
