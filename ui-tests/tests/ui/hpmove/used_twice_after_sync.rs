// An `hpmove` result kept past the sync and used there several times (its tag and its payload):
// one mistake, reported once, at the first use.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    ctx.set_tag::<u32>();
    ctx.sync();
    ctx.send(1 - ctx.pid(), &0u32, &[1u64, 2, 3][..]);
    ctx.sync();
    let (tag, payload) = ctx.hpmove::<u32, u64>().unwrap();
    ctx.sync();
    println!("received {payload:?}");
    let first = payload[0];
    println!("tag {}, first {first}", *tag);
}
