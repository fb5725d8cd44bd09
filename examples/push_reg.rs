//! bsp_push_reg(3), example 2: registrations are matched by the order of `register` calls, not
//! by address. Process 0 puts its `y` into the `x` of process 1.
//!
//! Prints `pid 0: x=1 y=2`, `pid 1: x=2 y=4`, and `x=3 y=4` for the other processes.

use bsp::Ctx;

#[bsp::program]
fn main(ctx: &mut Ctx) {
    let (x0, y) = if ctx.pid() == 0 { (1, 2) } else { (3, 4) };
    let x = ctx.register([x0]);
    if ctx.pid() == 0 && ctx.nprocs() > 1 {
        ctx.put(1, &y, &x, 0);
    }
    ctx.sync();
    println!("pid {}: x={} y={y}", ctx.pid(), x.value(ctx));
}
