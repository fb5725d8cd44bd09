// `ctx.locals` borrows each handle as written: the same registration lent mutably and shared in
// one call is rejected by the borrow checker.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut x = ctx.register(vec![0u32; 4]);
    let (a, b) = ctx.locals((&mut x, &x));
    a[0] = b[1];
}
