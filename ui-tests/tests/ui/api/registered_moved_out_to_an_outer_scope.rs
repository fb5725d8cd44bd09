// Two scopes' handles have different brands: moving the inner one out into the outer scope
// (here as the value of the inner `with_reg`) is rejected (the inner registration ends first).

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let (mut a, mut b) = ([0u8; 4], [0u8; 4]);
    ctx.with_reg(&mut a, |ctx, outer| {
        let inner = ctx.with_reg(&mut b, |_, inner| inner);
        let _ = (outer.len(), inner.len());
    });
}
