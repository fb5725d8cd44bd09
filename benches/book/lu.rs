//! The sequential baseline of `examples/book_lu.rs`: the same LU decomposition with partial
//! pivoting (pivot search in column k, swap of whole rows k and r, multipliers, rank-1 update)
//! on the whole matrix, on one thread, in plain Rust: row-major, slices, no index checks in the
//! inner loop, whose rank-1 update takes four rows at a time and runs compiled for AVX2 where
//! the CPU has it, as the example's does.

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
    let (mut pivots, mut multipliers) = (Vec::with_capacity(n), Vec::with_capacity(n));
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
        multipliers.clear();
        multipliers.extend(below.chunks_exact_mut(n).map(|row| {
            row[k] /= pivot;
            row[k]
        }));
        rank1_update(below, n, k + 1, &multipliers, u);
    }
    pivots
}

/// `x_ij ← x_ij − l_i·u_j` on the rows of `rows` (each `width` long, multipliers `ls`), in the
/// columns `from..`: four rows at a time, compiled for AVX2 where the CPU has it, as the
/// example's `rank1_update` does it.
fn rank1_update(rows: &mut [f64], width: usize, from: usize, ls: &[f64], u: &[f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: this CPU has AVX2 (checked just above), all that `update_avx2` requires.
        return unsafe { update_avx2(rows, width, from, ls, u) };
    }
    update(rows, width, from, ls, u)
}

/// [`update`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn update_avx2(rows: &mut [f64], width: usize, from: usize, ls: &[f64], u: &[f64]) {
    update(rows, width, from, ls, u)
}

/// The loop of [`rank1_update`], inlined into each caller.
#[inline(always)]
fn update(rows: &mut [f64], width: usize, from: usize, ls: &[f64], u: &[f64]) {
    let mut fours = rows.chunks_exact_mut(4 * width);
    let mut four_ls = ls.chunks_exact(4);
    for (four, l) in (&mut fours).zip(&mut four_ls) {
        let (r0, rest) = four.split_at_mut(width);
        let (r1, rest) = rest.split_at_mut(width);
        let (r2, r3) = rest.split_at_mut(width);
        let (r01, r23) = (r0[from..].iter_mut().zip(&mut r1[from..]), r2[from..].iter_mut().zip(&mut r3[from..]));
        for (((x0, x1), (x2, x3)), &y) in r01.zip(r23).zip(u) {
            *x0 -= l[0] * y;
            *x1 -= l[1] * y;
            *x2 -= l[2] * y;
            *x3 -= l[3] * y;
        }
    }
    for (row, &l) in fours.into_remainder().chunks_exact_mut(width).zip(four_ls.remainder()) {
        for (x, &y) in row[from..].iter_mut().zip(u) {
            *x -= l * y;
        }
    }
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
