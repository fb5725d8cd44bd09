// `mem::swap` of two registrations: both are in force (each `register` included its sync), so a
// put into either is fine, and each name follows its registration.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut a = ctx.register([0u32; 2]);
    let mut b = ctx.register([1u32; 2]);
    std::mem::swap(&mut a, &mut b);
    ctx.put(1 - ctx.pid(), &[7u32], &b, 0);
    ctx.sync();
    assert_eq!(b.local(ctx), [7, 0]);
    assert_eq!(a.local(ctx), [1, 1]);
}
