//! A dense matrix–vector product `y = A·x` on an `M × N` grid of processes, with team
//! collectives: process `P(s, t)` holds the block of `A` in block row `s` and block column `t`;
//! the processes of processor row 0 hold `x`. Three supersteps, each one sync for all teams:
//!
//! 1. each processor column broadcasts its block of `x` from `P(0, t)` (h = `(M−1)·n/N`);
//! 2. each processor row sums its partial products (an allreduce, h = `(N−1)·n/M`);
//! 3. every process checks `y` against the exact result (an allreduce of one word).
//!
//! `BSP_TRACE_SUMMARY=1` shows each superstep's h; with `BSP_MACHINE=machine.json` (from
//! `bspbench --json`), the prediction beside the measured time.
//!
//! ```text
//! BSP_NPROCS=4 BSP_TRACE_SUMMARY=1 cargo run --release --example grid_matvec -- [N]
//! ```

use bsp::{ops, Ctx, Grid, Launch};

/// The most square `M × N` grid of `p` processes (`M ≤ N`).
fn grid_shape(p: usize) -> (usize, usize) {
    let m = (1..=p).filter(|m| p % m == 0 && m * m <= p).max().unwrap_or(1);
    (m, p / m)
}

/// Where block `k` of `n` indices split into `parts` near-equal blocks lies.
fn block(n: usize, parts: usize, k: usize) -> std::ops::Range<usize> {
    k * n / parts..(k + 1) * n / parts
}

fn a(i: usize, j: usize) -> f64 {
    ((i + 2 * j) % 7) as f64
}

fn x(j: usize) -> f64 {
    (1 + j % 5) as f64
}

fn main() {
    bsp::exit_on_error(Launch::new().run(product));
}

/// The SPMD function: the three supersteps of the module docs.
fn product(ctx: &mut Ctx) {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1200);
    let (m, nn) = grid_shape(ctx.nprocs());
    let grid = Grid::new(ctx, m, nn);
    let (rows, cols) = (block(n, m, grid.s()), block(n, nn, grid.t()));

    // Superstep 1: P(0, t) holds x's block t and sends it down its processor column.
    let mine: Vec<f64> = if grid.s() == 0 { cols.clone().map(x).collect() } else { Vec::new() };
    let x_block = grid.col().broadcast(ctx, 0, &mine);

    // Superstep 2: the partial products of this block, summed along the processor row.
    let partial: Vec<f64> =
        rows.clone().map(|i| cols.clone().zip(&x_block).map(|(j, xj)| a(i, j) * xj).sum()).collect();
    let y = grid.row().allreduce(ctx, &partial, ops::sum);

    // Superstep 3: the processes of processor column 0 check their rows (the sums are of small
    // integers, so exact in any order) and every process learns the counts.
    let (mut wrong, mut checked) = (0, 0);
    if grid.t() == 0 {
        checked = rows.len();
        wrong = rows.zip(&y).filter(|&(i, yi)| (0..n).map(|j| a(i, j) * x(j)).sum::<f64>() != *yi).count();
    }
    let counts = ctx.allreduce(&[wrong, checked], ops::sum);
    let (bad, all) = (counts[0], counts[1]);
    if ctx.pid() == 0 {
        println!("y = A·x, n = {n}, on a {m}×{nn} grid: {all} rows, {bad} wrong");
    }
}
