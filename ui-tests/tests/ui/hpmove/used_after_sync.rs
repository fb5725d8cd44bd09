// An `hpmove` payload used after the sync that ends its superstep: it borrows the receive
// queue, which the sync replaces.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    ctx.set_tag::<u32>();
    ctx.sync();
    ctx.send(1 - ctx.pid(), &0u32, &[1u64, 2, 3][..]);
    ctx.sync();
    let (_, payload) = ctx.hpmove::<u32, u64>().unwrap();
    ctx.sync();
    println!("received {payload:?}");
}
