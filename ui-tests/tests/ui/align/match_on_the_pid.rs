// A `match` on the pid whose arms sync a different number of times.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    match ctx.pid() {
        0 => {
            ctx.sync();
            ctx.sync();
        }
        _ => ctx.sync(),
    }
}
