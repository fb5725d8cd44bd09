// The handle of a scoped registration cannot leave its closure by the return value: the memory
// is deregistered and given back when the closure returns.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut v = [0.0f64; 4];
    let r = ctx.with_reg(&mut v, |_, r| r);
    let _ = r.len();
}
