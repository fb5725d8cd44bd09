// An `hpmove` result stored, inside a superstep, into a variable declared before it: the
// variable would hold the message after the sync that ends the superstep.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    ctx.set_tag::<u32>();
    ctx.sync();
    ctx.send(1 - ctx.pid(), &0u32, &[1u64, 2, 3][..]);
    ctx.sync();
    let mut received = None;
    bsp::superstep!(ctx, {
        received = ctx.hpmove::<u32, u64>();
    });
    println!("received {received:?}");
}
