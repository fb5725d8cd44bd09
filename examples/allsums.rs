//! bsp_get(3), example 5: running sums `x_0 + … + x_pid` in ⌈log2 p⌉ supersteps.
//!
//! On 4 processes it prints (in any order) `y=1 sums=1`, `y=2 sums=3`, `y=3 sums=6`,
//! `y=4 sums=10`. Run with `BSP_NPROCS=4 cargo run --example allsums`.

use bsp::Ctx;

/// The running sum of `x` over processes `0..=pid`.
fn allsums(ctx: &mut Ctx, x: i32) -> i32 {
    let mut right = ctx.register([x]);

    let mut i = 1;
    while i < ctx.nprocs() {
        let mut left = 0;
        bsp::superstep!(ctx, {
            if ctx.pid() >= i {
                ctx.get(ctx.pid() - i, &right, 0, &mut left);
            }
        });
        if ctx.pid() >= i {
            *right.value_mut(ctx) += left;
        }
        i *= 2;
    }
    ctx.unregister(right)[0]
}

#[bsp::program]
fn main(ctx: &mut Ctx) {
    let y = ctx.pid() as i32 + 1;
    println!("y={y} sums={}", allsums(ctx, y));
}
