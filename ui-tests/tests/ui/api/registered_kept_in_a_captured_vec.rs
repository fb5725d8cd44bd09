// The handle of a scoped registration cannot be stored in a variable from outside the closure.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut v = [0.0f64; 4];
    let mut kept = Vec::new();
    ctx.with_reg(&mut v, |_, r| kept.push(r));
    let _ = kept.len();
}
