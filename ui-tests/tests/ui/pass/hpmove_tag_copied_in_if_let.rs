// A tag copied out by the pattern of `if let Some((&t, _)) = ctx.hpmove()` is a value of its
// own: it is still usable after the sync that invalidates the message.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    ctx.set_tag::<u32>();
    ctx.sync();
    ctx.send(1 - ctx.pid(), &7u32, &[1u64][..]);
    ctx.sync();
    if let Some((&t, _)) = ctx.hpmove::<u32, u64>() {
        ctx.sync();
        assert_eq!(t, 7);
    } else {
        ctx.abort("every process sent a message");
    }
}
