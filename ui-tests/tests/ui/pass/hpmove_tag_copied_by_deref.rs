// A tag copied out of an `hpmove` result with `let tag = *tag;` is a value of its own: it is
// still usable after the sync that invalidates the message.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    ctx.set_tag::<u32>();
    ctx.sync();
    ctx.send(1 - ctx.pid(), &7u32, &[1u64][..]);
    ctx.sync();
    let (tag, _) = ctx.hpmove::<u32, u64>().unwrap();
    let tag = *tag;
    ctx.sync();
    assert_eq!(tag, 7);
}
