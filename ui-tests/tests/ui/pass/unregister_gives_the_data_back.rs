// `unregister` pops, syncs and gives the data back: a put queued before it lands at its sync.
// The handle is gone afterwards; the data is a plain `Vec`.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut r = ctx.register(vec![0u64; 3]);
    r.local_mut(ctx)[0] = 5;
    ctx.put(1 - ctx.pid(), &[8u64], &r, 2);
    let mut data = ctx.unregister(r);
    data.push(1);
    assert_eq!(data, [5, 0, 8, 1]);
}
