// A sync under a condition on a variable computed from the pid.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let right = (ctx.pid() + 1) % ctx.nprocs();
    if right == 0 {
        ctx.sync();
    }
}
