// `mem::swap` of two registrations: after it, `b` is the registration made effective by the
// first sync, so a put into it is fine before the next sync.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut a = ctx.register([0u32; 2]);
    let mut b = ctx.push_reg([0u32; 2]);
    std::mem::swap(&mut a, &mut b);
    ctx.put(1 - ctx.pid(), &[7u32], &b, 0);
    ctx.sync();
    assert_eq!(b.local(ctx), [7, 0]);
    assert_eq!(a.local(ctx), [0, 0]);
}
