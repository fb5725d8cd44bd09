//! `gp_irregular`: a 2-D global pointer array with an irregular distribution
//! (`GP_Set_irreg_distr`), read by halo patches and written by rectangular puts.
//!
//! A `ROWS × COLS` grid of cells; cell `[i, j]` holds a variable number of particle masses (an
//! element of 0 to 3 `f64`s; cells without particles stay unassigned, as in GA). The
//! processes form an `a × b` grid (`a · b = p`) with deliberately uneven blocks, given by
//! their start indices (`mapc`).
//!
//! 1. Each process assigns the cells it owns.
//! 2. It reads its block plus a one-cell halo, a patch that spans its neighbours' blocks
//!    (`get_size` + `get`), and computes each owned cell's neighbourhood mass: the total mass of
//!    the 3 × 3 cells around it.
//! 3. It writes the results, transposed, into a second array of shape `COLS × ROWS` with the
//!    transposed distribution: its block maps to one rectangular patch there, owned by another
//!    process in general (`put` with `checksize`).
//! 4. Every process checks the cells it owns in the transposed array against a sequential
//!    computation, and process 0 also reads the whole transposed array (`get`); the processes
//!    add up their counts (one more superstep), so that process 0 can print the totals on any
//!    engine (on MPI, each rank's `main` has only its own report). The program exits with
//!    status 1 on a mismatch.
//!
//! ```text
//! cargo run --release --example gp_irregular     # p from BSP_NPROCS, else 4
//! ```

use std::process::ExitCode;

use bsp::gp::{subscripts, GpArray, GpBuf};
use bsp::{Ctx, Launch};

const ROWS: usize = 12;
const COLS: usize = 16;

/// The particles in cell `[i, j]`: 0 to 3 masses.
fn particles(i: usize, j: usize) -> Vec<f64> {
    let count = (i * 7 + j * 3) % 4;
    (0..count).map(|k| 0.5 + ((i * COLS + j) * 4 + k) as f64 / 64.0).collect()
}

/// The total mass of the 3 × 3 cells around `[i, j]` (clipped at the border), summed in a fixed
/// order so that every computation gives the same bits.
fn neighbourhood(i: usize, j: usize, mass: impl Fn(usize, usize) -> f64) -> f64 {
    let mut total = 0.0;
    for r in i.saturating_sub(1)..=(i + 1).min(ROWS - 1) {
        for c in j.saturating_sub(1)..=(j + 1).min(COLS - 1) {
            total += mass(r, c);
        }
    }
    total
}

/// The sequential answer for cell `[i, j]`.
fn expected(i: usize, j: usize) -> f64 {
    neighbourhood(i, j, |r, c| particles(r, c).iter().sum())
}

/// The processor grid `[a, b]`, `a · b = p`, as square as possible.
fn grid(p: usize) -> [usize; 2] {
    let a = (1..=p).filter(|a| p % a == 0 && a * a <= p).max().unwrap_or(1);
    [a, p / a]
}

/// Uneven starts for `k` blocks on an axis of extent `n`: block `i` is about `i + 1` units wide.
fn starts(n: usize, k: usize) -> Vec<usize> {
    let units = k * (k + 1) / 2;
    let mut out: Vec<usize> = Vec::with_capacity(k);
    for i in 0..k {
        let s = n * (i * (i + 1) / 2) / units;
        out.push(match out.last() {
            Some(&prev) if s <= prev => prev + 1,
            _ => s,
        });
    }
    out
}

/// What each process reports: its mismatching cells, totals over every process (mismatching
/// cells, values read by halo gets), and (process 0) its view of the distribution.
struct Report {
    pid: usize,
    nprocs: usize,
    bad: Vec<(usize, usize)>,
    all_bad: u64,
    halo_values: u64,
    blocks: Vec<String>,
}

/// The sums over every process of each process's `mine` (one superstep).
fn sum_over_processes<const K: usize>(ctx: &mut Ctx, mine: [u64; K]) -> [u64; K] {
    for q in 0..ctx.nprocs() {
        ctx.send(q, &(), &mine[..]);
    }
    ctx.sync();
    let mut total = [0; K];
    while let Some(((), theirs)) = ctx.move_message::<(), u64>() {
        for (t, x) in total.iter_mut().zip(theirs) {
            *t += x;
        }
    }
    total
}

fn program(ctx: &mut Ctx) -> Report {
    let me = ctx.pid();
    let [a, b] = grid(ctx.nprocs());
    let (row_starts, col_starts) = (starts(ROWS, a), starts(COLS, b));
    let mapc = [row_starts.clone(), col_starts.clone()].concat();
    let mut cells = GpArray::<f64>::builder(&[ROWS, COLS]).irregular(&mapc, &[a, b]).name("cells").build(ctx);
    let mapc_t = [col_starts, row_starts].concat();
    let mut transposed =
        GpArray::<f64>::builder(&[COLS, ROWS]).irregular(&mapc_t, &[b, a]).name("transposed").build(ctx);

    // 1. Local: particles into the owned cells; one slot per owned cell of the transposed array.
    let (lo, hi) = cells.distribution(me).expect("an irregular distribution gives every process a block");
    for sub in subscripts(&lo, &hi) {
        let p = particles(sub[0], sub[1]);
        if !p.is_empty() {
            cells.assign_local(ctx, &sub, p);
        }
    }
    let (tlo, thi) = transposed.distribution(me).expect("every process has a block");
    for sub in subscripts(&tlo, &thi) {
        transposed.assign_local(ctx, &sub, [0.0]);
    }
    ctx.sync();

    // 2. The block plus a one-cell halo, across the neighbours' blocks.
    let hlo = [lo[0].saturating_sub(1), lo[1].saturating_sub(1)];
    let hhi = [(hi[0] + 1).min(ROWS - 1), (hi[1] + 1).min(COLS - 1)];
    let mut halo = GpBuf::new();
    let mut halo_values = 0;
    ctx.superstep(|s| {
        cells.get_size(s, &hlo, &hhi, &mut halo_values);
        cells.get(s, &hlo, &hhi, &mut halo);
    });
    let width = halo.shape()[1];
    let mass = |r: usize, c: usize| halo.element((r - hlo[0]) * width + (c - hlo[1])).iter().sum();

    // 3. Results for my block, transposed: my rows are its columns. The patch
    //    [lo1, lo0]..=[hi1, hi0] of the transposed array, in its row-major order.
    let results: Vec<[f64; 1]> =
        subscripts(&[lo[1], lo[0]], &[hi[1], hi[0]]).map(|t| [neighbourhood(t[1], t[0], mass)]).collect();
    transposed.put(ctx, &[lo[1], lo[0]], &[hi[1], hi[0]], &results, true);
    ctx.sync();

    // 4. Check what I own, and process 0 checks everything through a get.
    let mut bad: Vec<(usize, usize)> = subscripts(&tlo, &thi)
        .filter(|t| transposed.access(ctx, t) != Some(&[expected(t[1], t[0])][..]))
        .map(|t| (t[1], t[0]))
        .collect();
    let mut all = GpBuf::new();
    ctx.superstep(|s| {
        if s.pid() == 0 {
            transposed.get(s, &[0, 0], &[COLS - 1, ROWS - 1], &mut all);
        }
    });
    let mut blocks = Vec::new();
    if me == 0 {
        for (t, value) in subscripts(&[0, 0], &[COLS - 1, ROWS - 1]).zip(all.elements()) {
            if value != [expected(t[1], t[0])] {
                bad.push((t[1], t[0]));
            }
        }
        for q in 0..ctx.nprocs() {
            let (lo, hi) = cells.distribution(q).expect("every process has a block");
            let (tlo, thi) = transposed.distribution(q).expect("every process has a block");
            blocks.push(format!("process {q}: cells {lo:?}..={hi:?}, transposed {tlo:?}..={thi:?}"));
        }
    }
    let [all_bad, halo_values] = sum_over_processes(ctx, [bad.len() as u64, halo_values as u64]);
    cells.destroy(ctx);
    transposed.destroy(ctx);
    Report { pid: me, nprocs: ctx.nprocs(), bad, all_bad, halo_values, blocks }
}

fn main() -> ExitCode {
    let reports = bsp::exit_on_error(Launch::new().default_procs(4).run(program));
    for r in reports.iter().filter(|r| !r.bad.is_empty()) {
        eprintln!("error: process {}: cells {:?} differ from the sequential computation", r.pid, r.bad);
    }
    // Process 0 prints the totals (on MPI, the other ranks have only their own report).
    let Some(report) = reports.iter().find(|r| r.pid == 0) else {
        return if reports.iter().all(|r| r.all_bad == 0) { ExitCode::SUCCESS } else { ExitCode::FAILURE };
    };
    let [a, b] = grid(report.nprocs);
    println!("{ROWS} x {COLS} cells on a {a} x {b} process grid, irregular blocks:");
    for line in &report.blocks {
        println!("  {line}");
    }
    println!("halo gets read {} particle masses", report.halo_values);
    if report.all_bad == 0 {
        println!("neighbourhood masses, transposed by put, match the sequential computation");
        ExitCode::SUCCESS
    } else {
        eprintln!("error: {} cells differ from the sequential computation", report.all_bad);
        ExitCode::FAILURE
    }
}
