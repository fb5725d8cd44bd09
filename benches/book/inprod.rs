//! The book's inner product on one process, sequentially: the same input (`x_i = (i mod 16) + 1`)
//! and the same local kernel as `examples/book_inprod.rs`, on the whole vector.

use std::hint::black_box;
use std::time::Instant;

/// `Σ x_i y_i` with eight accumulators, so that the loop vectorises (the example's kernel).
fn inprod(x: &[f64], y: &[f64]) -> f64 {
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

/// Seconds for `x · x` with n elements (the vector is made before the clock starts).
pub fn seconds(n: usize) -> f64 {
    let x: Vec<f64> = (0..n).map(|i| (i % 16 + 1) as f64).collect();
    let start = Instant::now();
    let alpha = inprod(black_box(&x), black_box(&x));
    let time = start.elapsed().as_secs_f64();
    let exact = (n / 16) as u64 * 1496 + (1..=(n % 16) as u64).map(|k| k * k).sum::<u64>();
    assert_eq!(alpha, exact as f64, "sequential inner product");
    time
}
