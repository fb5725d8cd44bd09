//! A distributed inner product: `x · y` for vectors of length n = 1000 distributed cyclically
//! (element i on process i mod p), with `x_i = i` and `y_i = 2`. Each process computes its
//! partial sum and puts it into everyone's registered array (an all-gather), then sums.
//!
//! Every process prints `pid 0: inner product = 999000 (sequential 999000)` and aborts the run
//! if the two differ.

use bsp::Ctx;

const N: usize = 1000;

#[bsp::program]
fn main(ctx: &mut Ctx) {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    let x: Vec<f64> = (s..N).step_by(p).map(|i| i as f64).collect();
    let y: Vec<f64> = (s..N).step_by(p).map(|_| 2.0).collect();
    let local: f64 = x.iter().zip(&y).map(|(a, b)| a * b).sum();

    let partial = ctx.register(vec![0.0f64; p]);
    for q in 0..p {
        ctx.put(q, &local, &partial, s);
    }
    ctx.sync();
    let alpha: f64 = partial.local(ctx).iter().sum();
    ctx.unregister(partial);

    let sequential: f64 = (0..N).map(|i| i as f64 * 2.0).sum();
    if alpha != sequential {
        ctx.abort(format!("inner product {alpha} differs from the sequential {sequential}"));
    }
    println!("pid {s}: inner product = {alpha} (sequential {sequential})");
}
