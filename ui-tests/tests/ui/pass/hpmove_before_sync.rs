// An `hpmove` payload used before the sync, and a copy of it kept after.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    ctx.set_tag::<u32>();
    ctx.sync();
    ctx.send(1 - ctx.pid(), &0u32, &[1u64, 2, 3][..]);
    ctx.sync();
    let (_, payload) = ctx.hpmove::<u32, u64>().unwrap();
    let copy = payload.to_vec();
    println!("{payload:?}");
    ctx.sync();
    assert_eq!(copy, [1, 2, 3]);
}
