//! The sequential baseline of `examples/book_lu.rs`: the same LU decomposition with partial
//! pivoting (pivot search in column k, swap of whole rows k and r, multipliers, rank-1 update)
//! on the whole matrix, on one thread, in plain Rust: row-major, slices, no index checks in the
//! inner loop.

use std::time::Instant;

/// Element (i, j) of A, as the example makes it: a pseudo-random number in [−1, 1).
pub fn element(n: usize, i: usize, j: usize) -> f64 {
    let mut x = (i * n + j) as u64 ^ 0x9e37_79b9_7f4a_7c15;
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    (x >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

/// Factors `PA = LU` in place (`a` row-major, n × n; L below the diagonal, U on and above it);
/// returns the pivots: at stage k, rows k and `pivots[k]` were swapped.
///
/// # Panics
/// If the matrix is singular.
pub fn factor(a: &mut [f64], n: usize) -> Vec<usize> {
    let mut pivots = Vec::with_capacity(n);
    for k in 0..n {
        let column = a[k * n..].chunks_exact(n).map(|row| row[k].abs());
        // The first largest, as the example's `max_loc` picks it.
        let (offset, largest) = column.enumerate().fold((0, -1.0), |b, (i, x)| if x > b.1 { (i, x) } else { b });
        assert!(largest > 0.0, "the matrix is singular (no pivot in column {k})");
        let r = k + offset;
        pivots.push(r);
        if r != k {
            let (top, bottom) = a.split_at_mut(r * n);
            top[k * n..(k + 1) * n].swap_with_slice(&mut bottom[..n]);
        }
        let (top, below) = a.split_at_mut((k + 1) * n);
        let pivot_row = &top[k * n + k..];
        let (pivot, u) = (pivot_row[0], &pivot_row[1..]);
        for row in below.chunks_exact_mut(n) {
            let l = row[k] / pivot;
            row[k] = l;
            for (x, &y) in row[k + 1..].iter_mut().zip(u) {
                *x -= l * y;
            }
        }
    }
    pivots
}

/// Seconds that [`factor`] takes on the example's matrix of order `n` (its generation not
/// counted).
pub fn seconds(n: usize) -> f64 {
    let mut a: Vec<f64> = (0..n * n).map(|e| element(n, e / n, e % n)).collect();
    let start = Instant::now();
    let pivots = factor(&mut a, n);
    let time = start.elapsed().as_secs_f64();
    std::hint::black_box((&a, &pivots));
    time
}
