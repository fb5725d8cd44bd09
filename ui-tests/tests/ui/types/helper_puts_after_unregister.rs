// A helper that puts into a registration, called after the registration was given back.

fn send_one(ctx: &bsp::Ctx, r: &bsp::Reg<u32>) {
    ctx.put(1 - ctx.pid(), &[1u32], r, 0);
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let r = ctx.register([0u32; 2]);
    send_one(ctx, &r);
    let _data = ctx.unregister(r);
    send_one(ctx, &r);
    ctx.sync();
}
