//! Inner product as Bisseling's *Parallel Scientific Computation* (2nd ed., ch. 1) computes it:
//! the book version beside the tutorial `inprod`.
//!
//! x has length n and is distributed cyclically: element i lives on process i mod p, at local
//! index i / p (the book's `nloc(p, s, n)` elements on process s). The book's algorithm has two
//! supersteps and one sync:
//!
//! - superstep 0: each process computes its partial sum `α_s = Σ x_i·x_i` over its elements,
//!   and puts it into every process (here one `allgather`, which is those p puts and their sync);
//! - superstep 1: each process adds the p partial sums, in pid order, so that all hold the same
//!   bits.
//!
//! The input is `x_i = (i mod 16) + 1`, so every partial sum is an integer below 2^53 and the
//! floating-point result is exact whatever p: the program checks it against the exact sum and
//! exits with status 1 if they differ. The local sum uses eight independent accumulators, so
//! that it vectorises (a single running sum cannot be reordered by the compiler).
//!
//! ```text
//! cargo run --release --example book_inprod              # n = 100000
//! BSP_NPROCS=4 cargo run --release --example book_inprod -- 10000000
//! ```
//!
//! Process 0 prints `book_inprod ok, n = 100000, x·x = 9350000 (exact)` on stdout, the same for
//! every p, and the time of the inner product on stderr (`book_inprod: n=… p=… time … s`).
//! Syncs: 2 (one to start the clock together, one for the inner product; none for the check).
//! Time against a sequential version of the same algorithm: `bash scripts/book`.

use bsp::Ctx;

/// Length of the vector unless given as the first argument.
const DEFAULT_N: usize = 100_000;

/// Element i of x.
fn element(i: usize) -> f64 {
    (i % 16 + 1) as f64
}

/// `Σ_{i<n} x_i²`, in integers: 1² + … + 16² = 1496 per full cycle of 16.
fn exact(n: usize) -> u64 {
    (n / 16) as u64 * 1496 + (1..=(n % 16) as u64).map(|k| k * k).sum::<u64>()
}

/// `Σ x_i y_i` over local slices, with eight accumulators so that the loop vectorises.
pub fn local_inprod(x: &[f64], y: &[f64]) -> f64 {
    let (xs, ys) = (x.chunks_exact(8), y.chunks_exact(8));
    let tail: f64 = xs.remainder().iter().zip(ys.remainder()).map(|(a, b)| a * b).sum();
    let mut acc = [0.0; 8];
    for (a, b) in xs.zip(ys) {
        for k in 0..8 {
            acc[k] += a[k] * b[k];
        }
    }
    acc.iter().sum::<f64>() + tail
}

/// The book's `bspip`: the inner product of the cyclically distributed x and y. One sync.
pub fn bspip(ctx: &mut Ctx, x: &[f64], y: &[f64]) -> f64 {
    let partial = local_inprod(x, y); // superstep 0
    let partials = ctx.allgather(&[partial]);
    partials.iter().map(|a| a[0]).sum() // superstep 1
}

/// The first argument as a number, or `default`.
fn size_argument(default: usize) -> usize {
    match std::env::args().nth(1) {
        Some(arg) => arg.parse().unwrap_or_else(|_| panic!("the argument `{arg}` is not a length")),
        None => default,
    }
}

#[bsp::program]
fn main(ctx: &mut Ctx) {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    let n = size_argument(DEFAULT_N);
    let x: Vec<f64> = (s..n).step_by(p).map(element).collect();

    ctx.sync();
    let start = ctx.time();
    let alpha = bspip(ctx, &x, &x);
    let time = ctx.time() - start;

    let want = exact(n);
    if alpha != want as f64 {
        ctx.abort(format!("book_inprod: x·x = {alpha}, but the exact sum is {want}"));
    }
    if s == 0 {
        println!("book_inprod ok, n = {n}, x·x = {want} (exact)");
        eprintln!("book_inprod: n={n} p={p} time {time:.6} s");
    }
}
