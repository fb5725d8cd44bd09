// A loop until a time limit: each process's clock decides how many syncs it makes.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    while ctx.time() < 0.01 {
        ctx.sync();
    }
}
