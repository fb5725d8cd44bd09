//! bsp_get(3), examples 3 and 4, `cyclic_shift`: every process gets the value of its left
//! neighbour, with a buffered `get` and with an unbuffered `hpget`.
//!
//! Process q starts with `x = 10 q`; it prints `pid 1: get = 0, hpget = 0` (any p ≥ 2).

use bsp::Ctx;

/// The value of `x` on the left neighbour, with a buffered get (example 3).
fn cyclic_shift(ctx: &mut Ctx, x: i32) -> i32 {
    let mut x = ctx.register([x]);
    let left = (ctx.pid() + ctx.nprocs() - 1) % ctx.nprocs();
    // As in the man page, the result lands in `x` itself: the get reads every source before
    // any destination is written.
    bsp::superstep!(ctx, {
        let (name, local) = x.split_mut(ctx);
        ctx.get(left, name, 0, &mut local[0]);
    });
    ctx.unregister(x)[0]
}

/// The same with an unbuffered get into a separate variable (example 4).
fn cyclic_shift_hp(ctx: &mut Ctx, x: i32) -> i32 {
    let x = ctx.register([x]);
    let left = (ctx.pid() + ctx.nprocs() - 1) % ctx.nprocs();
    let mut result = 0;
    bsp::superstep!(ctx, {
        ctx.hpget(left, &x, 0, &mut result);
    });
    ctx.unregister(x);
    result
}

#[bsp::program]
fn main(ctx: &mut Ctx) {
    let x = 10 * ctx.pid() as i32;
    let a = cyclic_shift(ctx, x);
    let b = cyclic_shift_hp(ctx, x);
    println!("pid {}: get = {a}, hpget = {b}", ctx.pid());
}
