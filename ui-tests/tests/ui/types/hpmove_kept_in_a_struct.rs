// The macro cannot follow an `hpmove` payload into a struct; the payload borrows the context,
// so the sync, which needs the context mutably, is a borrow error while the struct is used.

struct Received<'a> {
    payload: &'a [u64],
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    ctx.set_tag::<u32>();
    ctx.sync();
    ctx.send(1 - ctx.pid(), &0u32, &[1u64, 2, 3][..]);
    ctx.sync();
    let (_, payload) = ctx.hpmove::<u32, u64>().unwrap();
    let kept = Received { payload };
    ctx.sync();
    println!("{:?}", kept.payload);
}
