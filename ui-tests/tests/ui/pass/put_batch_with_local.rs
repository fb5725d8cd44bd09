// A redistribution within one registration: `put_batch_with_local` gives a batch of puts into
// `x` and this process's part of `x` at once, so the loop reads its elements and puts them
// elsewhere into `x` (the puts copy at the call and land at the sync); it also writes the local
// part, which the puts of the next sync then overwrite. Here: a cyclic shift by one element.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    let mut x = ctx.register(vec![10 * s as u32, 10 * s as u32 + 1]);
    let (mut batch, local) = ctx.put_batch_with_local(&mut x);
    for (t, v) in local.iter().enumerate() {
        let j = (2 * s + t + 1) % (2 * p);
        batch.put(j / 2, v, j % 2);
    }
    local[0] = 99;
    ctx.sync();
    let want = if s == 0 { [11, 0] } else { [1, 10] };
    assert_eq!(x.local(ctx), want);
    // In a helper generic over the handle, on an in-place registration.
    let mut y = [s as u8; 3];
    ctx.with_reg(&mut y, |ctx, mut r| {
        let (mut batch, local) = ctx.put_batch_with_local(&mut r);
        batch.put(1 - s, &local[..1], 2);
        ctx.sync();
    });
    assert_eq!(y, [s as u8, s as u8, 1 - s as u8]);
}
