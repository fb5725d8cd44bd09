// A closure that syncs, called on one process only: each call is a sync point where it is made.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let barrier = |c: &mut bsp::Ctx| c.sync();
    if ctx.pid() == 0 {
        barrier(ctx);
    }
}
