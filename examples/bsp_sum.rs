//! bsp_get(3), example 2, `bsp_sum`: every process learns the sum of all processes' arrays,
//! fetching each process's partial sum with an unbuffered `hpget`.
//!
//! Process q holds `q + 1` copies of `q + 1`, so the total is `Σ (q + 1)²`. Each process prints
//! `pid 2: sum = 14` (p = 3).

use bsp::Ctx;

/// The sum over all processes of the elements of `xs`; collective.
fn bsp_sum(ctx: &mut Ctx, xs: &[i64]) -> i64 {
    let result = ctx.register([xs.iter().sum::<i64>()]);

    let mut local_sums = vec![0i64; ctx.nprocs()];
    bsp::superstep!(ctx, {
        for (q, slot) in local_sums.iter_mut().enumerate() {
            ctx.hpget(q, &result, 0, slot);
        }
    });
    ctx.unregister(result);
    local_sums.iter().sum()
}

#[bsp::program]
fn main(ctx: &mut Ctx) {
    let me = ctx.pid() as i64 + 1;
    let xs = vec![me; me as usize];
    let sum = bsp_sum(ctx, &xs);
    println!("pid {}: sum = {sum}", ctx.pid());
}
