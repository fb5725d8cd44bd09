//! The five classic BSP programs of `examples/` (`inprod`, `fft`, `lu`, `sample_sort`,
//! `matvec`), each at p = 2 on the threads engine, beside a plain sequential Rust version of
//! the same algorithm measured in the same run.
//!
//! ```text
//! cargo bench --bench classic                     # all five
//! cargo bench --bench classic -- lu fft           # some of them
//! cargo bench --bench classic -- --runs 9 --quick # more runs; small sizes (a smoke test)
//! ```
//!
//! The programs are the examples' own functions (their files are included here as modules).
//! Every figure is the median over `--runs` runs (default 7); the sequential version and the
//! BSP program alternate run by run, so that a disturbance of the machine hits both.
//!
//! - **BSP**: `bsp::run(2, ..)`; each process generates its part of the input, syncs, and
//!   runs the distributed algorithm up to a final sync. The figure is process 0's wall-clock
//!   time between those two syncs: communication and the syncs included, input generation
//!   and thread start-up not.
//! - **sequential**: the same algorithm on the whole input, on one thread, with no
//!   communication and no redistribution: a plain loop for `inprod`; the same radix-2 stages
//!   for `fft`; the same elimination for `lu`; the standard library's `sort_unstable` of all
//!   keys for `sample_sort` (sample sort on one process is a local sort); the product in
//!   compressed sparse row form for `matvec`.
//!
//! The ratio is BSP / sequential: below 1, the two processes win. Output is a Markdown table.

mod common;
use common::median;

use std::hint::black_box;
use std::time::Instant;

use bsp::Ctx;

#[allow(dead_code)]
#[path = "../examples/fft.rs"]
mod fft;
#[allow(dead_code)]
#[path = "../examples/inprod.rs"]
mod inprod;
#[allow(dead_code)]
#[path = "../examples/lu.rs"]
mod lu;
#[allow(dead_code)]
#[path = "../examples/matvec.rs"]
mod matvec;
#[allow(dead_code)]
#[path = "../examples/sample_sort.rs"]
mod sample_sort;

const P: usize = 2;

/// Seconds that `f` takes.
fn seconds(f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64()
}

/// Runs `setup` and then `work` on `P` processes; returns process 0's seconds from the sync
/// after `setup` to the sync after `work`.
fn bsp_seconds<S>(setup: impl Fn(&mut Ctx) -> S + Sync, work: impl Fn(&mut Ctx, S) + Sync) -> f64 {
    let times = bsp::run(P, |ctx| {
        let state = setup(ctx);
        ctx.sync();
        let start = Instant::now();
        work(ctx, state);
        ctx.sync();
        start.elapsed().as_secs_f64()
    })
    .expect("a run of the benchmark");
    times[0]
}

/// One row: medians of `runs` alternating runs of `sequential` and `bsp`.
fn measure(name: &str, size: &str, runs: usize, mut sequential: impl FnMut() -> f64, mut bsp: impl FnMut() -> f64) {
    let (mut seq, mut par) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        seq.push(sequential());
        par.push(bsp());
    }
    let (seq, par) = (median(seq), median(par));
    println!("| {name} | {size} | {:.3} ms | {:.3} ms | {:.2} |", par * 1e3, seq * 1e3, par / seq);
}

fn bench_inprod(n: usize, runs: usize) {
    let (x, y) = inprod::local_vectors(n, 0, 1);
    measure(
        "inprod",
        &format!("n = {n}"),
        runs,
        || seconds(|| _ = black_box(inprod::inprod_sequential(&x, &y))),
        || {
            bsp_seconds(
                |ctx| inprod::local_vectors(n, ctx.pid(), ctx.nprocs()),
                |ctx, (x, y)| _ = black_box(inprod::inprod(ctx, &x, &y)),
            )
        },
    );
}

fn bench_fft(n: usize, runs: usize) {
    let w = fft::twiddles(n);
    let x: Vec<fft::Complex> = (0..n).map(fft::input).collect();
    measure(
        "fft (forward)",
        &format!("n = {n}"),
        runs,
        || {
            let mut x = x.clone();
            seconds(|| fft::fft_sequential(black_box(&mut x), &w))
        },
        || {
            bsp_seconds(
                |ctx| (ctx.pid()..n).step_by(ctx.nprocs()).map(fft::input).collect::<Vec<_>>(),
                |ctx, mut x| _ = black_box(fft::fft(ctx, &mut x, &w)),
            )
        },
    );
}

fn bench_lu(n: usize, runs: usize) {
    let a: Vec<f64> = (0..n).flat_map(|i| lu::row(n, i)).collect();
    measure(
        "lu",
        &format!("n = {n}"),
        runs,
        || {
            let mut a = a.clone();
            seconds(|| _ = black_box(lu::lu_sequential(&mut a, n)))
        },
        || {
            bsp_seconds(
                |ctx| lu::local_rows(n, ctx.pid(), ctx.nprocs()),
                |ctx, mut a| _ = black_box(lu::lu(ctx, &mut a, n)),
            )
        },
    );
}

fn bench_sort(n: usize, runs: usize) {
    let keys = sample_sort::local_keys(n, 0, 1);
    measure(
        "sample_sort",
        &format!("n = {n}"),
        runs,
        || {
            let mut keys = keys.clone();
            seconds(|| black_box(&mut keys).sort_unstable())
        },
        || {
            bsp_seconds(
                |ctx| sample_sort::local_keys(n, ctx.pid(), ctx.nprocs()),
                |ctx, keys| _ = black_box(sample_sort::sample_sort(ctx, keys)),
            )
        },
    );
}

fn bench_matvec(n: usize, runs: usize) {
    let a = matvec::whole_matrix(n);
    let v = vec![1.0; n];
    measure(
        "matvec (one product)",
        &format!("n = {n}, {} nonzeros", a.values.len()),
        runs,
        || seconds(|| _ = black_box(a.multiply(&v))),
        || {
            bsp_seconds(
                |ctx| {
                    let (s, p) = (ctx.pid(), ctx.nprocs());
                    (matvec::LocalMatrix::new(n, s, p), matvec::start_vector(n, s, p))
                },
                |ctx, (a, mut v)| _ = black_box(matvec::matvec(ctx, &a, &mut v)),
            )
        },
    );
}

fn main() {
    let mut runs = 7;
    let mut quick = false;
    let mut chosen: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--runs" => runs = args.next().and_then(|v| v.parse().ok()).filter(|&r| r > 0).expect("--runs N"),
            "--quick" => quick = true,
            other if other.starts_with('-') => {} // `--bench` (added by `cargo bench`), other harness flags
            name => chosen.push(name.to_string()),
        }
    }
    let wanted = |name: &str| chosen.is_empty() || chosen.iter().any(|c| name.contains(c.as_str()));
    let size = |full: usize, small: usize| if quick { small } else { full };

    println!("\n### The classic programs at p = {P} against sequential Rust\n");
    println!("| program | size | bsp, p = {P} | sequential | ratio (bsp / sequential) |");
    println!("|---|---|---|---|---|");
    if wanted("inprod") {
        bench_inprod(size(4_000_000, 100_000), runs);
    }
    if wanted("fft") {
        bench_fft(size(1 << 20, 1 << 12), runs);
    }
    if wanted("lu") {
        bench_lu(size(512, 64), runs);
    }
    if wanted("sample_sort") {
        bench_sort(size(1 << 22, 1 << 14), runs);
    }
    if wanted("matvec") {
        bench_matvec(size(400_000, 10_000), runs);
    }
}
