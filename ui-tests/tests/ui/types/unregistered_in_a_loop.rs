// A registration given back inside a loop and used again in the next iteration.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let r = ctx.register([0u32; 2]);
    for round in 0..3u32 {
        ctx.put(1 - ctx.pid(), &[round], &r, 0);
        ctx.unregister(r);
    }
}
