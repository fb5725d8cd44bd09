// An `hpmove` payload as the value of its `superstep!` block: it would be used after the sync
// that ends the superstep, when the message is gone.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    ctx.set_tag::<u32>();
    ctx.sync();
    ctx.send(1 - ctx.pid(), &0u32, &[1u64, 2, 3][..]);
    ctx.sync();
    let received = bsp::superstep!(ctx, {
        let (_, payload) = ctx.hpmove::<u32, u64>().unwrap();
        payload
    });
    println!("received {received:?}");
}
