// An `hpmove` payload variable pointed at local data (`pl = &local[..]`) before the sync: from
// there on it borrows `local`, not the message, and stays usable after the sync.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    ctx.set_tag::<u32>();
    ctx.sync();
    ctx.send(1 - ctx.pid(), &0u32, &[1u64][..]);
    ctx.sync();
    let local = [5u64, 6];
    let (_, mut pl) = ctx.hpmove::<u32, u64>().unwrap();
    assert_eq!(pl, [1]);
    pl = &local[..];
    ctx.sync();
    assert_eq!(pl, [5, 6]);
}
