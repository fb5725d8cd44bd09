// The macro cannot see into a helper function that does the `get`; the helper's signature
// ties the destination to the superstep, so reading it is a borrow error.

use bsp::{Reg, Superstep};

fn fetch_left<'s>(s: &'s Superstep<'s, '_>, x: &Reg<i32>, dst: &'s mut i32) {
    s.get((s.pid() + s.nprocs() - 1) % s.nprocs(), x, 0, dst);
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32]);
    let mut left = 0;
    bsp::superstep!(ctx, {
        fetch_left(ctx, &x, &mut left);
        let _copy = left;
    });
}
