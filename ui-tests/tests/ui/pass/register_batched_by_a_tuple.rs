// Several registrations made with one sync (BSPlib: several `bsp_push_reg`, one `bsp_sync`) and
// given back with one sync, as a tuple; and the same for a `Vec` of them.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let other = 1 - ctx.pid();
    let before = ctx.step();
    let (a, b, c) = ctx.register((vec![0u32; 2], [0.0f64], &[0u8; 3][..]));
    assert_eq!(ctx.step(), before + 1, "one sync for three registrations");
    ctx.put(other, &[1, 2], &a, 0);
    ctx.put(other, &0.5, &b, 0);
    ctx.put(other, &9, &c, 2);
    let (a, b, c) = ctx.unregister((a, b, c));
    assert_eq!((a, b, c), (vec![1, 2], vec![0.5], vec![0, 0, 9]));
    let rows = ctx.register_each((0..4).map(|i| vec![i as u16; 2]));
    ctx.put(other, &7, &rows[3], 0);
    let rows = ctx.unregister_each(rows);
    assert_eq!(rows[3], [7, 3]);
}
