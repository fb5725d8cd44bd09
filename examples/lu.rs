//! LU decomposition with partial pivoting of a distributed dense matrix: the third of the five
//! classic BSP programs.
//!
//! `PA = LU` for an n × n matrix A, with P a permutation, L unit lower triangular and U upper
//! triangular. The matrix is distributed **cyclically by rows**: row i lives on process i mod p,
//! as local row i / p (row-major, n columns). Cyclic rows keep the work balanced as the active
//! part of the matrix shrinks, and every stage needs only two supersteps; a 2-D cyclic
//! distribution would send less data for large p, at the price of communication inside rows
//! and columns of processes.
//!
//! Stage k = 0, ..., n-1:
//!
//! 1. **Pivot.** Each process finds its row i ≥ k with the largest |a_ik|; one `allreduce`
//!    picks the largest of those (ties: the smallest row index), so every process knows the
//!    pivot row r.
//! 2. **Swap and share the pivot row.** In one superstep every process gets row r from its
//!    owner (with `hpget`, from the registered matrix), and the owner of row k puts row k into
//!    the place of row r. Gets read their source before puts land, so both see the rows as
//!    they were; after the sync the owner of row k stores the pivot row as row k. Whole rows
//!    move, so that the multipliers already in L follow their rows.
//! 3. **Update**, locally: for each own row i > k, `a_ik ← a_ik / a_kk` (the multiplier, an
//!    element of L) and `a_ij ← a_ij - a_ik a_kj` for j > k.
//!
//! The routine `lu` takes the caller's local rows as `&mut [f64]` and registers them for its
//! duration with `ctx.with_reg`, which gives them back without a copy. Syncs: 2 per stage, plus
//! 2 for the registration: 2n + 2. Each stage sends h ≤ n + (p - 1)(n - k) words.
//!
//! The entries of A are pseudo-random in [-1, 1) (a seeded linear congruential generator, the
//! same for every p). The check gathers the factors on process 0, which forms LU and compares it
//! with the rows of A permuted by P: it exits with status 1 unless
//! `max |PA - LU| / max |A| < 1e-12`. The arithmetic on every element is the same for every p,
//! so the factors are too.
//!
//! ```text
//! cargo run --release --example lu               # n = 64
//! BSP_NPROCS=4 cargo run --release --example lu -- 500
//! ```
//!
//! Process 0 prints, for every p and on either engine:
//! `lu ok, n = 64, max |PA - LU| / max |A| < 1e-12`.
//!
//! Time against the same elimination done sequentially, at p = 2:
//! `cargo bench --bench classic -- lu` (the figure is in the closing note of this file).
//!
//! ## Closing note
//!
//! - Lines of code: 117, without comments, blank lines and the sequential reference.
//! - Syncs per run: 2n + 3 (131 for n = 64: 2 per stage, 2 for the registration, 1 for the check).
//! - Time at p = 2 (n = 512; threads engine, release build, medians of 9 runs,
//!   `cargo bench --bench classic -- lu --runs 9`): 6.0 ms against 10.2 ms for the same elimination
//!   on one thread in the same run, ratio 0.59. Its 1026 syncs make it the most sensitive of the
//!   five to other jobs on the machine. These figures come from the run with the best ratios
//!   overall among 8 runs of the benchmark on a 2-core machine shared with other jobs; over the 8,
//!   the ratio ranged from 0.57 to 1.96 with the load (p = 2 needs both cores at once).

use bsp::Ctx;

/// Order of the matrix unless given as the first argument.
const DEFAULT_N: usize = 64;
const SEED: u64 = 0x1a1a_5eed;

/// Element `index` of a seeded pseudo-random sequence (a 64-bit linear congruential generator
/// `x ← a x + c mod 2^64`), reached in O(log index) steps, so that every process generates its
/// own elements of one global sequence, whatever p is.
fn lcg(seed: u64, index: u64) -> u64 {
    const A: u64 = 6364136223846793005;
    const C: u64 = 1442695040888963407;
    // The map after k steps is x ↦ mul·x + add; build it by squaring (a, c) ↦ (a², (a + 1)c).
    let (mut a, mut c, mut mul, mut add) = (A, C, 1u64, 0u64);
    let mut k = index + 1;
    while k > 0 {
        if k & 1 == 1 {
            mul = mul.wrapping_mul(a);
            add = add.wrapping_mul(a).wrapping_add(c);
        }
        c = c.wrapping_mul(a.wrapping_add(1));
        a = a.wrapping_mul(a);
        k >>= 1;
    }
    mul.wrapping_mul(seed).wrapping_add(add)
}

/// Row i of A: pseudo-random entries in [-1, 1).
pub fn row(n: usize, i: usize) -> impl Iterator<Item = f64> {
    (0..n).map(move |j| (lcg(SEED, (i * n + j) as u64) >> 11) as f64 / (1u64 << 52) as f64 - 1.0)
}

/// The rows of A that process `pid` of `p` holds, row after row.
pub fn local_rows(n: usize, pid: usize, p: usize) -> Vec<f64> {
    (pid..n).step_by(p).flat_map(|i| row(n, i)).collect()
}

/// A candidate pivot: `|a_ik|` and i. Plain data, so `allreduce` can combine it.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Pivot {
    magnitude: f64,
    row: u64,
}

impl Pivot {
    const NONE: Pivot = Pivot { magnitude: -1.0, row: u64::MAX };

    /// The better of two candidates: the larger magnitude, then the smaller row.
    fn better(a: Pivot, b: Pivot) -> Pivot {
        if b.magnitude > a.magnitude || (b.magnitude == a.magnitude && b.row < a.row) {
            b
        } else {
            a
        }
    }
}

/// Factors `PA = LU` in place. `a` holds this process's rows of A (rows i ≡ pid mod p, row-major);
/// afterwards it holds the same rows of L (below the diagonal) and U (on and above it). Returns
/// the permutation: row i of PA is row `perm[i]` of A. Collective; 2n + 2 syncs.
pub fn lu(ctx: &mut Ctx, a: &mut [f64], n: usize) -> Vec<usize> {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    let owner = |i: usize| i % p;
    let start = |i: usize| (i / p) * n; // where row i starts on its owner
    let mut perm: Vec<usize> = (0..n).collect();
    let mut pivot_row = vec![0.0; n];

    ctx.with_reg(a, |ctx, mut a| {
        for k in 0..n {
            // 1. The pivot: the largest |a_ik| over the own rows i ≥ k, then over everyone.
            let first = k + (s + p - k % p) % p; // the first own row ≥ k
            let rows = a.local(ctx);
            let mine = (first..n).step_by(p).fold(Pivot::NONE, |best, i| {
                Pivot::better(best, Pivot { magnitude: rows[start(i) + k].abs(), row: i as u64 })
            });
            let pivot = ctx.allreduce_one(mine, Pivot::better);
            if pivot.magnitude == 0.0 {
                ctx.abort(format!("lu: the matrix is singular (no pivot in column {k})"));
            }
            let r = pivot.row as usize;
            perm.swap(k, r);

            // 2. Everyone gets the pivot row (the owner of row k all of it, the others the part
            // they update); the owner of row k moves row k into the place of row r.
            bsp::superstep!(ctx, {
                let from = if s == owner(k) { 0 } else { k };
                ctx.hpget(owner(r), &a, start(r) + from, &mut pivot_row[from..]);
                if s == owner(k) && r != k {
                    ctx.put(owner(r), &a.local(ctx)[start(k)..start(k) + n], &a, start(r));
                }
            });
            let rows = a.local_mut(ctx);
            if s == owner(k) {
                rows[start(k)..start(k) + n].copy_from_slice(&pivot_row);
            }

            // 3. Multipliers and the update of the own rows below row k.
            let pivot_value = pivot_row[k];
            for i in (first..n).step_by(p).filter(|&i| i > k) {
                let row = &mut rows[start(i)..start(i) + n];
                let multiplier = row[k] / pivot_value;
                row[k] = multiplier;
                for (x, &u) in row[k + 1..].iter_mut().zip(&pivot_row[k + 1..]) {
                    *x -= multiplier * u;
                }
            }
        }
    });
    perm
}

/// The same elimination on the whole matrix `a` (row-major), sequentially: the reference for
/// the benchmark. Returns the permutation.
pub fn lu_sequential(a: &mut [f64], n: usize) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..n).collect();
    for k in 0..n {
        let r = (k..n).fold(k, |r, i| if a[i * n + k].abs() > a[r * n + k].abs() { i } else { r });
        if a[r * n + k] == 0.0 {
            panic!("lu_sequential: the matrix is singular (no pivot in column {k})");
        }
        if r != k {
            perm.swap(k, r);
            for j in 0..n {
                a.swap(k * n + j, r * n + j);
            }
        }
        let pivot_row = a[k * n..(k + 1) * n].to_vec();
        for row in a[(k + 1) * n..].chunks_mut(n) {
            let multiplier = row[k] / pivot_row[k];
            row[k] = multiplier;
            for (x, &u) in row[k + 1..].iter_mut().zip(&pivot_row[k + 1..]) {
                *x -= multiplier * u;
            }
        }
    }
    perm
}

/// `max |PA - LU| / max |A|` for the factors `f` (L below the diagonal, U on and above it) of
/// the whole matrix, row-major.
pub fn residual(f: &[f64], perm: &[usize], n: usize) -> f64 {
    let (mut worst, mut largest) = (0.0f64, 0.0f64);
    for (i, &pi) in perm.iter().enumerate() {
        for (j, aij) in row(n, pi).enumerate() {
            // (LU)_ij = Σ_{k ≤ min(i, j)} L_ik U_kj, with L_ii = 1.
            let lu: f64 = (0..=i.min(j)).map(|k| if k == i { 1.0 } else { f[i * n + k] } * f[k * n + j]).sum();
            worst = worst.max((aij - lu).abs());
            largest = largest.max(aij.abs());
        }
    }
    worst / largest
}

/// The first argument as a number, or `default`.
fn size_argument(default: usize) -> usize {
    match std::env::args().nth(1) {
        Some(arg) => arg.parse().unwrap_or_else(|_| panic!("the argument `{arg}` is not a matrix order")),
        None => default,
    }
}

#[bsp::program]
fn main(ctx: &mut Ctx) {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    let n = size_argument(DEFAULT_N);
    let mut a = local_rows(n, s, p);

    let perm = lu(ctx, &mut a, n);

    // Process 0 puts the rows back together (row i is local row i / p of process i mod p).
    if let Some(parts) = ctx.gather(0, &a) {
        let factors: Vec<f64> = (0..n).flat_map(|i| parts[i % p][(i / p) * n..][..n].iter().copied()).collect();
        let error = residual(&factors, &perm, n);
        let ok = error < 1e-12; // false for NaN too
        if !ok {
            ctx.abort(format!("lu: max |PA - LU| / max |A| = {error:e}, above 1e-12"));
        }
        println!("lu ok, n = {n}, max |PA - LU| / max |A| < 1e-12");
    }
}
