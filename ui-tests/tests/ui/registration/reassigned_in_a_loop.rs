// A registration replaced at the end of each iteration (`r = ctx.push_reg(..)`) and used at
// the start of the next one, before a sync has made the new one effective.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut r = ctx.register([0u32; 2]);
    for round in 0..3u32 {
        ctx.put(1 - ctx.pid(), &[round], &r, 0);
        ctx.sync();
        ctx.pop_reg(&r);
        r = ctx.push_reg([0u32; 2]);
    }
    ctx.sync();
}
