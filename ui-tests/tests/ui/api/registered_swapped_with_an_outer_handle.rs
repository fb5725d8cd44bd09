// Two scopes' handles have different brands: swapping the inner one out into the outer scope is
// rejected (the inner registration ends first).

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let (mut a, mut b) = ([0u8; 4], [0u8; 4]);
    ctx.with_reg(&mut a, |ctx, mut outer| {
        ctx.with_reg(&mut b, |_, mut inner| {
            std::mem::swap(&mut outer, &mut inner);
        });
        let _ = outer.len();
    });
}
