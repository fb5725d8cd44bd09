//! bsp_put(3)'s `put_array`: the concurrent assignment `forall i: xs[xs[i]] := i`.
//!
//! `xs` (length n = 4p) is distributed in blocks of n/p; it starts as the rotation
//! `xs[i] = (i + 1) mod n`, so afterwards `xs` is its inverse, `xs[j] = (j - 1) mod n`.
//! Each process prints its block: `pid 1: [3, 4, 5, 6]`.

use bsp::Ctx;

/// `forall i: xs[xs[i]] := i` over the block-distributed array `xs`.
fn put_array(ctx: &mut Ctx, xs: Vec<usize>, n: usize) -> Vec<usize> {
    let n_over_p = n / ctx.nprocs();
    if n % ctx.nprocs() != 0 {
        ctx.abort(format!("put_array: {n} is not divisible by {}", ctx.nprocs()));
    }
    let reg = ctx.register(xs);

    for i in 0..n_over_p {
        let target = reg.local(ctx)[i];
        let global = ctx.pid() * n_over_p + i;
        ctx.put(target / n_over_p, &global, &reg, target % n_over_p);
    }
    ctx.unregister(reg) // the puts land at the sync of `unregister`
}

#[bsp::program]
fn main(ctx: &mut Ctx) {
    let n = 4 * ctx.nprocs();
    let block = n / ctx.nprocs();
    let xs: Vec<usize> = (0..block).map(|i| (ctx.pid() * block + i + 1) % n).collect();
    let xs = put_array(ctx, xs, n);
    println!("pid {}: {xs:?}", ctx.pid());
}
