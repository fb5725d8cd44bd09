// An `hpmove` variable given a new message after each sync (`m = ctx.hpmove()`): each use
// reads the message of the current superstep.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    ctx.set_tag::<u32>();
    ctx.sync();
    let other = 1 - ctx.pid();
    ctx.send(other, &0u32, &[0u64][..]);
    ctx.sync();
    let mut m = ctx.hpmove::<u32, u64>();
    let mut tags = Vec::new();
    for round in 1..4u32 {
        let (&tag, payload) = m.unwrap();
        assert_eq!(payload, [u64::from(tag)]);
        tags.push(tag);
        ctx.send(other, &round, &[u64::from(round)][..]);
        ctx.sync();
        m = ctx.hpmove();
    }
    assert_eq!(m.map(|(&tag, _)| tag), Some(3));
    assert_eq!(tags, [0, 1, 2]);
}
