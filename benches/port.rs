//! Port-style loops at p = 1, each against the same loop without `bsp`: what code written the
//! natural way (a value passed as `&sum`, a fan-out through a get batch, views of registered
//! memory) pays for the API's shape when no data has to move.
//!
//! ```text
//! cargo bench --bench port                          # every loop, 9 runs
//! cargo bench --bench port -- --runs 21 fanin       # some loops: fanin, fanin-all, fanin-ctx, fanout, rank1, scatter
//! cargo bench --bench port -- --count --n 20000     # one call of each, for callgrind (scripts/port-count)
//! ```
//!
//! - `fanin`: the row loop of a sparse matrix–vector product (`--n` rows, 8 nonzeros each in
//!   pseudo-random columns, compressed rows with `u32` columns): each row's partial sum goes to
//!   its owner, written in place where that is this process (`put_batch_with_local`) and by
//!   `batch.put_combine(q, &sum, l, add)` otherwise, then the sync. At p = 1 every row is own,
//!   so the put never runs; the plain loop is the same, with a `Vec` of outgoing sums in place of
//!   the batch and no sync.
//! - `fanin-all`: the same row loop with every sum through `put_combine` (to this process at
//!   p = 1), then the sync, against the plain loop adding each sum into place: what a combining
//!   put costs a loop that sends every row.
//! - `fanin-ctx`: `fanin-all` without a batch: every row's sum through
//!   `ctx.put_combine(q, &sum, &y, l, add)`, as a port of `bsp_put` calls writes it.
//! - `fanout`: the components a product needs, gathered from their owner through one
//!   `get_batch(..).get_each(..)` in a superstep (about 5 of every 8 components of `--n`, in
//!   order, so runs of consecutive ones), against the gather loop `buf[t] = x[j]` over the same
//!   list with the same owner test.
//! - `scatter`: a redistribution through `put_batch_with_local` (an FFT's or a transpose's): each
//!   local element, scaled, put to its place in the block distribution of the same
//!   registration (`batch.put(q, &v, l)`, consecutive places to one process), then the sync;
//!   against writing each value to its place in a second array. At p = 1 every put is to this
//!   process, in order.
//! - `rank1`: the rank-1 update `A -= l·uᵀ` of LU (`--n` / 64 rows of 256) on memory registered
//!   by `with_regs`, one row view per row through `local_mut` and `local`, against the same loop
//!   on the plain arrays.
//!
//! Each run times `--reps` calls of the `bsp` loop and of the plain loop, alternating; the
//! figure is ns per call (per row for the row loops), the median over the runs with the range,
//! and the ratio is the median of the runs' ratios, with its range. Every result is checked
//! against the plain loop's (exactly: the sums are of small integers).
//!
//! `--count` calls each loop `--reps` times (default 3) without timing, for an instruction
//! count, and prints each loop's units per call: the loops are the functions `port::<loop>_bsp`
//! and `port::<loop>_plain`, which `callgrind_annotate --inclusive=yes` lists one by one
//! (`scripts/port-count` does this).

mod common;
use common::median;

use std::hint::black_box;
use std::time::Instant;

use bsp::{Combiner, Ctx, Reg};

#[derive(Clone, Debug)]
struct Opts {
    runs: usize,
    reps: Option<usize>,
    n: usize,
    count: bool,
    only: Vec<String>,
}

const LOOPS: [&str; 6] = ["fanin", "fanin-all", "fanin-ctx", "fanout", "rank1", "scatter"];

fn parse() -> Opts {
    let mut o = Opts { runs: 9, reps: None, n: 100_000, count: false, only: Vec::new() };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |what: &str| args.next().unwrap_or_else(|| panic!("{a} needs {what}"));
        match a.as_str() {
            "--runs" => o.runs = value("a number").parse().expect("a number of runs"),
            "--reps" => o.reps = Some(value("a number").parse().expect("a number of calls")),
            "--n" => o.n = value("a number").parse().expect("a number of rows"),
            "--count" => o.count = true,
            "--bench" => {}
            name if LOOPS.contains(&name) => o.only.push(name.to_string()),
            other => panic!("unknown argument {other:?} (known: --runs, --reps, --n, --count, {})", LOOPS.join(", ")),
        }
    }
    if o.only.is_empty() {
        o.only = LOOPS.iter().map(|s| s.to_string()).collect();
    }
    o
}

/// A pseudo-random 64-bit hash of `x`.
fn hash(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A sparse matrix in compressed rows, with each row's owner and place there.
struct Csr {
    starts: Vec<usize>,
    columns: Vec<u32>,
    values: Vec<f64>,
    /// (owner, local index) of each row's sum.
    owners: Vec<(u32, u32)>,
}

const PER_ROW: usize = 8;

fn matrix(n: usize) -> Csr {
    let mut m = Csr { starts: vec![0], columns: Vec::new(), values: Vec::new(), owners: Vec::new() };
    for i in 0..n {
        m.columns.push(i as u32);
        m.values.push(8.0);
        for k in 1..PER_ROW {
            let h = hash((i * PER_ROW + k) as u64);
            m.columns.push((h % n as u64) as u32);
            m.values.push(((h >> 40) % 5) as f64 - 2.0);
        }
        m.starts.push(m.values.len());
        m.owners.push((0, i as u32));
    }
    m
}

fn vector(n: usize) -> Vec<f64> {
    (0..n).map(|j| (1 + j % 5) as f64).collect()
}

/// The partial sum of row `i`: the same expression in every loop.
#[inline(always)]
fn row_sum(m: &Csr, x: &[f64], i: usize) -> f64 {
    let (a, b) = (m.starts[i], m.starts[i + 1]);
    let mut sum = 0.0;
    for (&v, &c) in m.values[a..b].iter().zip(&m.columns[a..b]) {
        sum += v * x[c as usize];
    }
    sum
}

#[inline(never)]
fn fanin_bsp(ctx: &mut Ctx, m: &Csr, x: &[f64], y: &mut Reg<f64>, add: Combiner<f64>) {
    let me = ctx.pid();
    let (mut batch, own) = ctx.put_batch_with_local(y);
    for (i, &(q, l)) in m.owners.iter().enumerate() {
        let sum = row_sum(m, x, i);
        if q as usize == me {
            own[l as usize] = sum;
        } else {
            batch.put_combine(q as usize, &sum, l as usize, add);
        }
    }
    drop(batch);
    ctx.sync();
}

#[inline(never)]
fn fanin_plain(me: usize, m: &Csr, x: &[f64], y: &mut [f64], out: &mut Vec<(u32, u32, f64)>) {
    out.clear();
    for (i, &(q, l)) in m.owners.iter().enumerate() {
        let sum = row_sum(m, x, i);
        if q as usize == me {
            y[l as usize] = sum;
        } else {
            out.push((q, l, sum));
        }
    }
}

#[inline(never)]
fn fanin_all_bsp(ctx: &mut Ctx, m: &Csr, x: &[f64], y: &mut Reg<f64>, add: Combiner<f64>) {
    y.local_mut(ctx).fill(0.0);
    let mut batch = ctx.put_batch(&*y);
    for (i, &(q, l)) in m.owners.iter().enumerate() {
        let sum = row_sum(m, x, i);
        batch.put_combine(q as usize, &sum, l as usize, add);
    }
    drop(batch);
    ctx.sync();
}

#[inline(never)]
fn fanin_all_plain(m: &Csr, x: &[f64], y: &mut [f64]) {
    y.fill(0.0);
    for (i, &(_, l)) in m.owners.iter().enumerate() {
        let sum = row_sum(m, x, i);
        y[l as usize] += sum;
    }
}

#[inline(never)]
fn fanin_ctx_bsp(ctx: &mut Ctx, m: &Csr, x: &[f64], y: &mut Reg<f64>, add: Combiner<f64>) {
    y.local_mut(ctx).fill(0.0);
    for (i, &(q, l)) in m.owners.iter().enumerate() {
        let sum = row_sum(m, x, i);
        ctx.put_combine(q as usize, &sum, &*y, l as usize, add);
    }
    ctx.sync();
}

/// `fanin_all_plain` under its own name, so that the two loops' counts stay apart.
#[inline(never)]
fn fanin_ctx_plain(m: &Csr, x: &[f64], y: &mut [f64]) {
    y.fill(0.0);
    for (i, &(_, l)) in m.owners.iter().enumerate() {
        let sum = row_sum(m, x, i);
        y[l as usize] += sum;
    }
}

/// The fan-out list: about 5 of every 8 components, in order, as (owner, index there).
fn needed(n: usize) -> Vec<(u32, u32)> {
    (0..n).filter(|&j| hash(j as u64 ^ 0x5eed) % 8 < 5).map(|j| (0, j as u32)).collect()
}

#[inline(never)]
fn fanout_bsp(ctx: &mut Ctx, x: &Reg<f64>, need: &[(u32, u32)], buf: &mut [f64]) {
    ctx.superstep(|s| {
        s.get_batch(x, &mut *buf).get_each(need.iter().enumerate().map(|(t, &(q, j))| (q as usize, j as usize, t)));
    });
}

#[inline(never)]
fn fanout_plain(me: usize, x: &[f64], need: &[(u32, u32)], buf: &mut [f64], out: &mut Vec<(u32, u32, u32)>) {
    out.clear();
    for (t, &(q, j)) in need.iter().enumerate() {
        if q as usize == me {
            buf[t] = x[j as usize];
        } else {
            out.push((q, j, t as u32));
        }
    }
}

#[inline(never)]
fn scatter_bsp(ctx: &mut Ctx, y: &mut Reg<f64>) {
    let (me, p) = (ctx.pid(), ctx.nprocs());
    let (mut batch, local) = ctx.put_batch_with_local(y);
    let n = local.len();
    for (t, &v) in local.iter().enumerate() {
        let j = me * n + t; // global index; block owner and place after the redistribution
        let scaled = v * 0.5 + 1.0;
        batch.put((j * p / (n * p)).min(p - 1), &scaled, j % n);
    }
    drop(batch);
    ctx.sync();
}

#[inline(never)]
fn scatter_plain(me: usize, p: usize, x: &[f64], y: &mut [f64]) {
    let n = x.len();
    for (t, &v) in x.iter().enumerate() {
        let j = me * n + t;
        let scaled = v * 0.5 + 1.0;
        let q = (j * p / (n * p)).min(p - 1);
        if q == me {
            y[j % n] = scaled;
        }
    }
}

const RANK1_COLS: usize = 256;

#[inline(never)]
fn rank1_bsp(ctx: &Ctx, a: &mut bsp::Registered<'_, f64>, l: &bsp::Registered<'_, f64>, u: &bsp::Registered<'_, f64>) {
    let rows = l.len();
    for i in 0..rows {
        let li = l.local(ctx)[i];
        let u = u.local(ctx);
        let row = &mut a.local_mut(ctx)[i * RANK1_COLS..(i + 1) * RANK1_COLS];
        for (aij, &uj) in row.iter_mut().zip(u) {
            *aij -= li * uj;
        }
    }
}

#[inline(never)]
fn rank1_plain(a: &mut [f64], l: &[f64], u: &[f64]) {
    let rows = l.len();
    for i in 0..rows {
        let li = l[i];
        let row = &mut a[i * RANK1_COLS..(i + 1) * RANK1_COLS];
        for (aij, &uj) in row.iter_mut().zip(u) {
            *aij -= li * uj;
        }
    }
}

/// One loop's figures: ns per unit of the `bsp` loop and of the plain one, run by run.
#[derive(Default)]
struct Series {
    bsp: Vec<f64>,
    plain: Vec<f64>,
}

impl Series {
    fn print(&self, name: &str, unit: &str) {
        let range = |v: &[f64]| {
            let (lo, hi) = v.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
            (lo, hi)
        };
        let ratios: Vec<f64> = self.bsp.iter().zip(&self.plain).map(|(b, p)| b / p).collect();
        let ((bl, bh), (pl, ph), (rl, rh)) = (range(&self.bsp), range(&self.plain), range(&ratios));
        println!(
            "| {name} | {:.2} [{bl:.2}–{bh:.2}] | {:.2} [{pl:.2}–{ph:.2}] | {unit} | {:.3} [{rl:.3}–{rh:.3}] |",
            median(self.bsp.clone()),
            median(self.plain.clone()),
            median(ratios)
        );
    }
}

/// Times `reps` calls of `f`, in ns per call divided by `units`.
fn time(reps: usize, units: usize, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    t.elapsed().as_secs_f64() * 1e9 / (reps * units) as f64
}

fn main() {
    let o = parse();
    let opts = o.clone();
    let out = bsp::run(1, move |ctx: &mut Ctx| {
        let o = &opts;
        let me = ctx.pid();
        let n = o.n;
        let runs = if o.count { 1 } else { o.runs };
        let reps = |timed: usize| o.reps.unwrap_or(if o.count { 3 } else { timed });
        let mut lines = Vec::new();
        let m = matrix(n);
        let x = vector(n);
        let add = ctx.combiner(|a: f64, b: f64| a + b);
        for name in &o.only {
            let mut s = Series::default();
            let mut units = n;
            let unit = match name.as_str() {
                "fanin" | "fanin-all" | "fanin-ctx" => {
                    let mut y = ctx.register(vec![0.0f64; n]);
                    let mut plain = vec![0.0f64; n];
                    let mut outgoing = Vec::new();
                    let all = name == "fanin-all";
                    let r = reps(20);
                    for _ in 0..runs {
                        if name == "fanin-ctx" {
                            s.bsp.push(time(r, n, || fanin_ctx_bsp(ctx, &m, &x, &mut y, add)));
                            s.plain.push(time(r, n, || fanin_ctx_plain(&m, black_box(&x), &mut plain)));
                        } else if all {
                            s.bsp.push(time(r, n, || fanin_all_bsp(ctx, &m, &x, &mut y, add)));
                            s.plain.push(time(r, n, || fanin_all_plain(&m, black_box(&x), &mut plain)));
                        } else {
                            s.bsp.push(time(r, n, || fanin_bsp(ctx, &m, &x, &mut y, add)));
                            s.plain.push(time(r, n, || fanin_plain(me, &m, black_box(&x), &mut plain, &mut outgoing)));
                        }
                        assert_eq!(y.local(ctx), &plain[..], "{name}: the bsp loop's sums");
                    }
                    "row"
                }
                "fanout" => {
                    let xr = ctx.register(x.clone());
                    let need = needed(n);
                    units = need.len();
                    let (mut got, mut plain) = (vec![0.0f64; need.len()], vec![0.0f64; need.len()]);
                    let mut outgoing = Vec::new();
                    let r = reps(50);
                    for _ in 0..runs {
                        s.bsp.push(time(r, need.len(), || fanout_bsp(ctx, &xr, &need, &mut got)));
                        s.plain.push(time(r, need.len(), || {
                            fanout_plain(me, black_box(&x), &need, &mut plain, &mut outgoing)
                        }));
                        assert_eq!(got, plain, "fanout: the components gathered");
                    }
                    "component"
                }
                "scatter" => {
                    let mut y = ctx.register(x.clone());
                    let (mut src, mut plain) = (x.clone(), vec![0.0f64; n]);
                    let r = reps(20);
                    for _ in 0..runs {
                        // Each call maps y to y/2 + 1: the plain loop does the same to `src`.
                        s.bsp.push(time(r, n, || scatter_bsp(ctx, &mut y)));
                        s.plain.push(time(r, n, || {
                            scatter_plain(me, 1, black_box(&src), &mut plain);
                            std::mem::swap(&mut src, &mut plain);
                        }));
                        assert_eq!(y.local(ctx), &src[..], "scatter: the redistributed values");
                    }
                    "element"
                }
                "rank1" => {
                    let rows = (n / 64).max(1);
                    units = rows;
                    let l: Vec<f64> = (0..rows).map(|i| (i % 3) as f64).collect();
                    let u: Vec<f64> = (0..RANK1_COLS).map(|j| (j % 4) as f64).collect();
                    let (mut a_bsp, mut a_plain) = (vec![0.0f64; rows * RANK1_COLS], vec![0.0f64; rows * RANK1_COLS]);
                    let (mut l_reg, mut u_reg) = (l.clone(), u.clone());
                    let r = reps(20);
                    ctx.with_regs((&mut a_bsp, &mut l_reg, &mut u_reg), |ctx, (mut ra, rl, ru)| {
                        for _ in 0..runs {
                            s.bsp.push(time(r, rows, || rank1_bsp(ctx, &mut ra, &rl, &ru)));
                            s.plain.push(time(r, rows, || rank1_plain(&mut a_plain, black_box(&l), &u)));
                        }
                    });
                    assert_eq!(a_bsp, a_plain, "rank1: the updated matrix");
                    "row"
                }
                other => unreachable!("loop {other}"),
            };
            lines.push((name.clone(), unit, units, s));
        }
        lines
    })
    .expect("the benchmark run")
    .into_iter()
    .next()
    .expect("process 0's figures");
    if o.count {
        // What `scripts/port-count` divides each loop's instruction count by.
        for (name, unit, units, _) in &out {
            println!("units {name} {units} {unit}");
        }
        return;
    }
    println!("| loop (p = 1) | bsp (ns) | plain (ns) | per | ratio |");
    println!("|---|---|---|---|---|");
    for (name, unit, _, s) in out {
        s.print(&name, unit);
    }
}
