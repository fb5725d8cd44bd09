// A `for` loop whose bound is the pid, syncing in every iteration.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    for _ in 0..ctx.pid() {
        ctx.sync();
    }
}
