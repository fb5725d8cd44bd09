// BSPlib-style: an effective registration swapped (`mem::swap`) with one just pushed, then used
// before a sync. There is no `push_reg`; `ctx.register` includes the sync, so both sides of a
// swap are always in force.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut a = ctx.register([0u32; 2]);
    let mut b = ctx.push_reg([0u32; 2]);
    std::mem::swap(&mut a, &mut b);
    ctx.put(1 - ctx.pid(), &[7u32], &a, 0);
    ctx.sync();
}
