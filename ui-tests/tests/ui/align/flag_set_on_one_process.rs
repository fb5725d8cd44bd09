// A flag assigned on one process only, then deciding a sync.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut leader = false;
    if ctx.pid() == 0 {
        leader = true;
    }
    if leader {
        ctx.sync();
    }
}
