//! bsp_get(3), example 1, `get_array`: the concurrent assignment `forall i: xs[i] := xs[xs[i]]`.
//!
//! `xs` (length n = 4p) is distributed in blocks of n/p and starts as `xs[i] = (i + 1) mod n`;
//! afterwards `xs[i] = (i + 2) mod n`. Every get reads its source before any is written: the
//! gets land in registered memory that others read in the same superstep. Each process prints
//! its block: `pid 1: [6, 7, 8, 9]` (p = 2).

use bsp::Ctx;

/// `forall i: xs[i] := xs[xs[i]]` over the block-distributed array `xs`.
fn get_array(ctx: &mut Ctx, xs: Vec<usize>, n: usize) -> Vec<usize> {
    let n_over_p = n / ctx.nprocs();
    if n % ctx.nprocs() != 0 {
        ctx.abort(format!("get_array: {n} is not divisible by {}", ctx.nprocs()));
    }
    let mut reg = ctx.register(xs);

    // The gets write into `reg` itself: `split_mut` gives its name and its local elements at once.
    let targets = reg.local(ctx).to_vec();
    bsp::superstep!(ctx, {
        let (name, local) = reg.split_mut(ctx);
        for (slot, &t) in local.iter_mut().zip(&targets) {
            ctx.get(t / n_over_p, name, t % n_over_p, slot);
        }
    });
    ctx.unregister(reg)
}

#[bsp::program]
fn main(ctx: &mut Ctx) {
    let n = 4 * ctx.nprocs();
    let block = n / ctx.nprocs();
    let xs: Vec<usize> = (0..block).map(|i| (ctx.pid() * block + i + 1) % n).collect();
    let xs = get_array(ctx, xs, n);
    println!("pid {}: {xs:?}", ctx.pid());
}
