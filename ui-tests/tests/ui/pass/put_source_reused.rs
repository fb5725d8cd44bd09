// A buffered `put` copies its source at the call: changing it right after the put is fine.
// (An `hpput` source may be read, just not changed.)

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([0u32; 2]);
    let mut data = [1u32, 2];
    ctx.put(1 - ctx.pid(), &data, &x, 0);
    data[0] = 10;
    data[1] = 20;
    ctx.sync();
    assert_eq!(x.local(ctx), [1, 2]);
    bsp::superstep!(ctx, {
        ctx.hpput(1 - ctx.pid(), &data, &x, 0);
        println!("sent {data:?}");
    });
    assert_eq!(x.local(ctx), [10, 20]);
}
