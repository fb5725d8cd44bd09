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
    let mut reg = ctx.push_reg(xs);
    ctx.sync();

    // The gets write into `reg` itself, so name the source by `remote()`, which borrows nothing.
    let name = reg.remote();
    let targets = reg.local(ctx).to_vec();
    bsp::superstep!(ctx, {
        for (slot, &t) in reg.local_mut(ctx).iter_mut().zip(&targets) {
            ctx.get(t / n_over_p, name, t % n_over_p, slot);
        }
    });
    ctx.pop_reg(&reg);
    ctx.sync();
    reg.into_vec(ctx)
}

#[bsp::program]
fn main(ctx: &mut Ctx) {
    let n = 4 * ctx.nprocs();
    let block = n / ctx.nprocs();
    let xs: Vec<usize> = (0..block).map(|i| (ctx.pid() * block + i + 1) % n).collect();
    let xs = get_array(ctx, xs, n);
    println!("pid {}: {xs:?}", ctx.pid());
}
