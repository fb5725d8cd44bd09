// An `hpmove` payload kept across the sync of a loop's body.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    ctx.set_tag::<u32>();
    ctx.sync();
    ctx.send(1 - ctx.pid(), &0u32, &[1u64, 2, 3][..]);
    ctx.sync();
    let (_, payload) = ctx.hpmove::<u32, u64>().unwrap();
    for round in 0..2 {
        ctx.send(1 - ctx.pid(), &round, payload);
        ctx.sync();
    }
}
