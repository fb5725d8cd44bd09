//! LU decomposition with partial pivoting on a 2-D grid of processes, as in Bisseling's book
//! (*Parallel Scientific Computation*, 2nd ed., chapter 2): the book version beside the
//! tutorial `lu.rs`, which distributes rows only.
//!
//! `PA = LU` for an n × n matrix A. The p processes form an M × N grid (`M·N = p`, as square as
//! p allows, `M ≤ N`), process `P(s, t)` with `pid = s + t·M`, and the matrix is distributed
//! cyclically in both dimensions: element (i, j) lives on `P(i mod M, j mod N)`, at local row
//! `i / M` and local column `j / N` of a row-major local matrix. Stage k = 0, …, n−1 has two
//! supersteps, each one sync for all the teams at once:
//!
//! 1. **Pivot search and column k**, in the processor column `k mod N` that holds column k:
//!    each of its processes finds its row i ≥ k with the largest |a_ik| and offers it in a
//!    registered variable; every process fetches the M offers with gets (`max_loc` order: the
//!    largest |a_ik|, then the smallest i), and so finds the pivot row r, a_rk and a_kk. In the
//!    same sync (`superstep_then`: the gets complete in the collective's sync) processor column
//!    `k mod N` broadcasts its part of column k below the diagonal along every processor row, so
//!    that every process computes the multipliers `a_ik / a_rk` of its own rows (after the swap,
//!    row r holds a_kk). The other processor columns search nothing.
//! 2. **Row swap and pivot row**: the processes holding rows k and r swap their parts of them
//!    with two puts (whole rows, so that the multipliers already in L follow their rows); in the
//!    same superstep, the holder of row r broadcasts its part of it (columns j ≥ k: the new row
//!    k) down its processor column.
//!
//! Then processor column `k mod N` stores the multipliers in column k, and every process updates
//! its part of the submatrix, `a_ij ← a_ij − a_ik·a_kj` for i, j > k: a rank-1 update, written
//! as a loop over four local rows at a time (slices zipped with the pivot row, which the
//! compiler vectorises, each element of the pivot row loaded once for four rows), with no
//! per-element view call or index check, and compiled for AVX2 beside plain x86-64 (the one
//! `unsafe` call: a CPU check picks which runs).
//!
//! Syncs: 2 per stage, plus 4 for registering and unregistering the matrix and the offers:
//! fewer than the book's algorithm, whose pivot search, pivot-index broadcast, row swap and the
//! two broadcasts of column k and row k are supersteps of their own; fetching the pivot offers
//! in the sync that sends column k, and computing the multipliers where they are used, saves
//! three. Per stage, a process fetches M offers, sends at most about n/M words to each process
//! of its processor row, n/N to each of its processor column, and n/N in the swap, against
//! `(n−k)/M × (n−k)/N` elements of work.
//!
//! A is pseudo-random in [−1, 1) (a hash of the position, the same for every p), so it needs
//! pivoting. Every element sees the same operations in the same order for every p, so the
//! factors and pivots are bit-identical for every p. Process 0 gathers the factors and compares
//! rows of LU with the rows of PA (all rows for small n, 64 of them for large n); the run fails
//! unless `max |PA − LU| / max |A| < 1e-10`. It prints the first pivots and a checksum of the
//! permutation on stdout (the same for every p), and the time of the factorisation on stderr:
//!
//! ```text
//! cargo run --release --example book_lu             # n = 40
//! BSP_NPROCS=4 cargo run --release --example book_lu -- 1000
//! echo 3 200 | cargo run --release --example book_lu         # P = 3, n = 200
//! echo 3 200 | mpirun -n 4 target/release/examples/book_lu   # P = 3; rank 3 idle
//! ```
//!
//! As BSPedupack's LU does, P can come from the input: without an argument, process 0 reads P
//! and n from the standard input before the processes start (`#[bsp::program(set_up = ..)]`,
//! BSPlib's `bsp_init`).

use bsp::ops::{self, Loc};
use bsp::{Ctx, Grid};

#[path = "shared/input.rs"]
mod input;

/// Order of the matrix unless given as the first argument.
const DEFAULT_N: usize = 40;

/// Element (i, j) of A: a pseudo-random number in [−1, 1), from a hash of its position.
pub fn element(n: usize, i: usize, j: usize) -> f64 {
    let mut x = (i * n + j) as u64 ^ 0x9e37_79b9_7f4a_7c15;
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    (x >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

/// The most square `M × N` grid of `p` processes, `M ≤ N`.
fn grid_shape(p: usize) -> (usize, usize) {
    let m = (1..=p).filter(|m| p % m == 0 && m * m <= p).max().unwrap_or(1);
    (m, p / m)
}

/// How many of the indices `0..n` are `≡ s mod m`: the local length of a cyclic distribution.
fn local_len(n: usize, m: usize, s: usize) -> usize {
    (n + m - 1 - s) / m
}

/// The local index of the first own index `≥ k` (of those `≡ s mod m`).
fn first_from(k: usize, m: usize, s: usize) -> usize {
    (k + m - 1).saturating_sub(s) / m
}

/// What the pivot search in a processor column finds: the candidate (|a_ik| and i, combined by
/// `max_loc`), its value a_ik, and a_kk from the process holding row k.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Search {
    candidate: Loc<f64>,
    value: f64,
    diagonal: f64,
    holds_diagonal: u64,
}

impl Search {
    /// No candidate (a process outside processor column k, or without rows i ≥ k).
    fn none() -> Search {
        Search { candidate: Loc::new(-1.0, u64::MAX), value: 0.0, diagonal: 0.0, holds_diagonal: 0 }
    }

    /// Row i's entry x in column k.
    fn of(i: usize, x: f64, k: usize) -> Search {
        let holds_diagonal = u64::from(i == k);
        Search { candidate: Loc::new(x.abs(), i as u64), value: x, diagonal: x, holds_diagonal }
    }

    /// The better candidate (the larger |a_ik|, then the smaller i) and the diagonal held.
    fn combine(a: Search, b: Search) -> Search {
        let candidate = ops::max_loc(a.candidate, b.candidate);
        let value = if candidate == b.candidate { b.value } else { a.value };
        let (diagonal, holds_diagonal) =
            if b.holds_diagonal == 1 { (b.diagonal, 1) } else { (a.diagonal, a.holds_diagonal) };
        Search { candidate, value, diagonal, holds_diagonal }
    }
}

/// Factors `PA = LU` in place. `a` holds this process's part of A (`local_len(n, M, s)` rows of
/// `local_len(n, N, t)` columns, row-major); afterwards it holds the same part of L (below the
/// diagonal) and U. Returns the pivots: at stage k, rows k and `pivots[k]` were swapped. Every
/// process returns them all. Collective; 2n + 4 syncs.
pub fn lu(ctx: &mut Ctx, grid: &Grid, a: Vec<f64>, n: usize) -> (Vec<f64>, Vec<usize>) {
    let (m, nn, s, t) = (grid.rows(), grid.cols(), grid.s(), grid.t());
    let (rows, cols) = (local_len(n, m, s), local_len(n, nn, t));
    let width = cols.max(1); // for `chunks_exact`: a process may hold no column when n < N
    let mut a = ctx.register(a);
    // This process's pivot candidate, which every process fetches while its column searches.
    let mut candidate = ctx.register([Search::none()]);
    let mut offers = vec![Search::none(); m];
    let mut pivots = Vec::with_capacity(n);
    let (mut part, mut multipliers) = (Vec::with_capacity(cols.max(rows) + 3), Vec::with_capacity(rows));
    for k in 0..n {
        let (ks, kt, kc) = (k % m, k % nn, k / nn); // P(ks, kt) holds a_kk, in its local column kc
        let (row0, col0) = (first_from(k, m, s), first_from(k, nn, t)); // the own i ≥ k, j ≥ k
        let below = first_from(k + 1, m, s); // the own rows i > k

        // 1. The pivot search and column k, one sync: processor column kt offers its candidates
        // (each process its best row i ≥ k), every process fetches the M of them with gets, and
        // in the same sync processor column kt sends its part of column k below the diagonal
        // (as it is before the swap) along every processor row. The other columns search nothing.
        part.clear();
        if t == kt {
            let mut mine = Search::none();
            for (l, row) in a.local(ctx).chunks_exact(width).enumerate().skip(row0) {
                mine = Search::combine(mine, Search::of(l * m + s, row[kc], k));
            }
            candidate.local_mut(ctx)[0] = mine;
            part.extend(a.local(ctx).chunks_exact(width).skip(below).map(|row| row[kc]));
        }
        let ((), column) = ctx.superstep_then(
            |st| {
                for (q, slot) in offers.iter_mut().enumerate() {
                    st.get(grid.pid(q, kt), &candidate, 0, slot);
                }
            },
            |ctx| grid.row().broadcast(ctx, kt, &part),
        );
        // Every process combines the offers in the same order, so all find the same pivot.
        let found = offers.iter().copied().fold(Search::none(), Search::combine);
        let (r, pivot, diagonal) = (found.candidate.index() as usize, found.value, found.diagonal);
        if pivot == 0.0 {
            ctx.abort(format!("book_lu: the matrix is singular (no pivot in column {k})"));
        }
        pivots.push(r);
        // The multipliers of the own rows i > k, after the swap (row r then holds the old a_kk).
        let swapped = |q: usize, x: f64| if (below + q) * m + s == r { diagonal } else { x };
        multipliers.clear();
        multipliers.extend(column.iter().enumerate().map(|(q, &x)| swapped(q, x) / pivot));

        // 3. Rows k and r change places (whole local rows, so L's multipliers follow); the holder
        // of row r sends its part of it, columns j ≥ k, down its processor column.
        let (rs, lk, lr) = (r % m, k / m, r / m);
        let local = a.local_mut(ctx);
        if s == ks && s == rs {
            for j in 0..cols {
                local.swap(lk * cols + j, lr * cols + j);
            }
        }
        let pivot_at = if s == ks { lk } else { lr }; // where row r is until the sync
        part.clear();
        if s == rs {
            part.extend_from_slice(&local[pivot_at * cols + col0..(pivot_at + 1) * cols]);
        }
        if s == ks && s != rs {
            ctx.put(grid.pid(rs, t), &a.local(ctx)[lk * cols..(lk + 1) * cols], &a, lr * cols);
        }
        if s == rs && s != ks {
            ctx.put(grid.pid(ks, t), &a.local(ctx)[lr * cols..(lr + 1) * cols], &a, lk * cols);
        }
        let pivot_row = grid.col().broadcast(ctx, rs, &part);

        // Processor column kt stores the multipliers in column k; every process updates its own
        // rows i > k and columns j > k (a rank-1 update).
        let (from, local) = (first_from(k + 1, nn, t), a.local_mut(ctx)); // from: the own j > k
        let own_below = &mut local[below * cols..];
        if t == kt {
            for (row, &l) in own_below.chunks_exact_mut(width).zip(&multipliers) {
                row[kc] = l;
            }
        }
        rank1_update(own_below, width, from, &multipliers, &pivot_row[from - col0..]);
    }
    ctx.unregister(candidate);
    (ctx.unregister(a), pivots)
}

/// The rank-1 update `x_ij ← x_ij − l_i·u_j` of the rows of `rows` (each `width` long, row i
/// with multiplier `ls[i]`), in their columns `from..`, where `u` holds u_from, u_from+1, ….
///
/// The release profile compiles for plain x86-64, whose vector instructions (SSE2) hold two
/// doubles; where the CPU has AVX2 (four doubles), the same loop compiled for it runs instead
/// (checked per call, a cached flag). Without FMA both do the same arithmetic, so the results
/// are bit-identical on every CPU.
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

/// The loop of [`rank1_update`], four rows at a time: each u_j is loaded once for all four, so
/// the loop does fewer loads per element, and slices zipped together carry no index check, so
/// the compiler vectorises it. Every element sees the same operation as in a loop over single
/// rows. Inlined into its callers, so that each compiles it for its own instructions.
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
    // The last rows (fewer than four), one at a time.
    for (row, &l) in fours.into_remainder().chunks_exact_mut(width).zip(four_ls.remainder()) {
        for (x, &y) in row[from..].iter_mut().zip(u) {
            *x -= l * y;
        }
    }
}

/// `max |PA − LU| / max |A|` over the rows `check` of the factors `f` (L below the diagonal, U
/// on and above it, row-major, whole) with the row swaps `pivots`.
fn residual(f: &[f64], pivots: &[usize], n: usize, check: impl Iterator<Item = usize>) -> f64 {
    let mut perm: Vec<usize> = (0..n).collect(); // row i of PA is row perm[i] of A
    for (k, &r) in pivots.iter().enumerate() {
        perm.swap(k, r);
    }
    let (mut worst, mut largest) = (0.0f64, 0.0f64);
    for i in check {
        let mut lu = f[i * n..(i + 1) * n].to_vec(); // U's part of row i of LU, as (LU)_ij = U_ij + Σ_{k<i} L_ik U_kj
        lu[..i].fill(0.0);
        for k in 0..i {
            let l = f[i * n + k];
            for (x, &u) in lu[k..].iter_mut().zip(&f[k * n + k..(k + 1) * n]) {
                *x += l * u;
            }
        }
        for (j, x) in lu.iter().enumerate() {
            let aij = element(n, perm[i], j);
            worst = worst.max((aij - x).abs());
            largest = largest.max(aij.abs());
        }
    }
    worst / largest
}

/// The set-up, on process 0 before the processes start (BSPlib's `bsp_init`): the number of
/// processes and the order n.
///
/// `book_lu N` takes n from its argument, and P from `BSP_NPROCS` (else one per core, or under
/// `mpirun` one per rank). Without an argument, the standard input may give both, P first, as
/// BSPedupack's LU asks for them; a terminal is asked, and an empty or closed input keeps the
/// defaults. Under `mpirun -n R` a P below R leaves the other ranks idle.
fn set_up() -> (usize, u64) {
    const ME: &str = "book_lu";
    let (p, n) = match std::env::args().nth(1) {
        Some(arg) => (input::default_procs(ME), input::number(ME, Some(&arg), DEFAULT_N, "a matrix order", 0)),
        None => {
            let words = input::words(&["How many processes?", "What order n?"]);
            let p = input::number(ME, words.first(), input::default_procs(ME), "a number of processes", 1);
            (p, input::number(ME, words.get(1), DEFAULT_N, "a matrix order", 0))
        }
    };
    (p, n as u64)
}

/// The SPMD function: make the local part of A, factor it (timed), check on process 0.
#[bsp::program(set_up = set_up)]
fn main(ctx: &mut Ctx, &n: &u64) {
    let n = n as usize;
    let p = ctx.nprocs();
    let (m, nn) = grid_shape(p);
    let grid = Grid::new(ctx, m, nn);
    let (s, t) = (grid.s(), grid.t());
    let a: Vec<f64> = (s..n).step_by(m).flat_map(|i| (t..n).step_by(nn).map(move |j| element(n, i, j))).collect();

    ctx.sync();
    let start = ctx.time();
    let (f, pivots) = lu(ctx, &grid, a, n);
    if ctx.pid() == 0 {
        eprintln!("book_lu: n={n} p={p} time {:.6} s", ctx.time() - start);
    }

    // Process 0 puts the factors together: element (i, j) is at local (i / M, j / N) of P(i mod M, j mod N).
    if let Some(parts) = ctx.gather(0, &f) {
        let mut whole = vec![0.0; n * n];
        for (q, part) in parts.iter().enumerate() {
            let (qs, qt) = (q % m, q / m);
            let cols = local_len(n, nn, qt);
            for (l, row) in part.chunks_exact(cols.max(1)).enumerate() {
                for (c, &x) in row.iter().enumerate() {
                    whole[(l * m + qs) * n + c * nn + qt] = x;
                }
            }
        }
        let step = if n <= 200 { 1 } else { n / 64 };
        let error = residual(&whole, &pivots, n, (0..n).step_by(step).chain([n - 1]));
        let ok = error < 1e-10; // false for NaN too
        if !ok {
            ctx.abort(format!("book_lu: max |PA - LU| / max |A| = {error:e}, not below 1e-10"));
        }
        let checksum =
            pivots.iter().enumerate().fold(0u64, |h, (k, &r)| h.wrapping_mul(31).wrapping_add((k ^ r) as u64));
        let shown = pivots.len().min(8);
        println!(
            "book_lu ok, n = {n}, first pivots {:?}, pivot checksum {checksum}, max |PA - LU| / max |A| < 1e-10",
            &pivots[..shown]
        );
    }
}
