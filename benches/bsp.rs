//! Benchmarks of `bsp`, each beside a baseline measured in the same run (STYLE.md §15).
//!
//! ```text
//! cargo bench --bench bsp                      # everything
//! cargo bench --bench bsp -- sync large        # some groups: sync, large, puts, bsmp, teams
//! cargo bench --bench bsp -- --runs 9 --quick  # more runs; shorter runs
//! ```
//! Every figure is the median over `--runs` runs (default 5); within a run the operation is
//! repeated and the mean taken. Baselines and `bsp` alternate run by run, so a disturbance of
//! the machine hits both. Output is a Markdown table (PERFORMANCE.md shows one).
//!
//! - `sync`: an empty superstep at p = 1, 2, 4, 8, 32, against `std::sync::Barrier` at the same
//!   p and, for p ≤ cores, a plain centralized spin barrier (counter + generation; for p = 2 this
//!   is "one round of a two-thread spin barrier").
//! - `large`: 8 MiB put, hpput, get and hpget at p = 2, every process transferring to the other
//!   at once, against `copy_from_slice` of 8 MiB done by two threads at once, each from a buffer
//!   the other thread filled, followed by a spin barrier (per-thread bandwidth; the same load on
//!   the memory system, the same movement of data between the cores' caches, and like a
//!   superstep each round lasts as long as the slower copy). The ratio is the median of per-run
//!   ratios, each against the baseline timed just before.
//! - `puts`: many single-word puts in one superstep (p = 2), time per put after subtracting the
//!   empty superstep of the same run, against storing the same words with the same index
//!   pattern into a local array.
//! - `bsmp`: send + move of small messages (4-byte tag, 16-byte payload) at p = 2, time per
//!   message after subtracting the empty superstep, against `std::sync::mpsc` channels between
//!   two threads carrying the same messages.
//! - `teams`: a broadcast of 1 and of 1000 words on a processor row of a 2×2 grid (p = 4, the two
//!   rows broadcasting in the same sync), against a broadcast of as many words on a run of 2
//!   processes, a broadcast on all 4, and an empty sync at p = 4. On a machine with fewer than 4
//!   cores the p = 4 figures include the cost of sharing the cores, so two figures at p = 2
//!   follow: a row broadcast on a 1×2 grid (a team of both processes) against the broadcast on
//!   2 processes, and on a 2×1 grid (two teams of one, which send nothing) against an empty sync.
//!
//! This is a plain `harness = false` binary rather than a Criterion benchmark: every figure here
//! is a ratio to a baseline timed inside the same multi-threaded run, which Criterion's
//! single-closure model does not express, and it keeps `cargo bench --no-run` cheap in CI.

mod common;
use common::median;

use std::hint::{black_box, spin_loop};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Barrier};
use std::time::Instant;

use bsp::Ctx;

const MIB: usize = 1 << 20;
const LARGE: usize = 8 * MIB;

#[derive(Clone, Copy, Debug)]
struct Opts {
    runs: usize,
    /// Divides the repetition counts (for smoke tests).
    scale: usize,
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// One row of the output table.
fn row(what: &str, p: usize, bsp: f64, unit: &str, base_name: &str, base: f64) {
    let ratio = bsp / base;
    println!("| {what} | {p} | {bsp:.3} {unit} | {base_name} | {base:.3} {unit} | {ratio:.2} |");
}

fn header(title: &str, ratio_meaning: &str) {
    println!("\n### {title}\n");
    println!("| benchmark | p | bsp | baseline | baseline figure | ratio ({ratio_meaning}) |");
    println!("|---|---|---|---|---|---|");
}

// ---------------------------------------------------------------------------------------------
// Barriers

/// The textbook centralized spin barrier: a counter and a generation, spinning forever.
#[repr(align(128))]
struct Padded<T>(T);

struct SpinBarrier {
    n: usize,
    count: Padded<AtomicUsize>,
    generation: Padded<AtomicUsize>,
}

impl SpinBarrier {
    fn new(n: usize) -> Self {
        SpinBarrier { n, count: Padded(AtomicUsize::new(0)), generation: Padded(AtomicUsize::new(0)) }
    }

    fn wait(&self) {
        // Acquire: the generation we wait to change.
        let g = self.generation.0.load(Ordering::Acquire);
        // AcqRel: the last arrival acquires everyone's writes.
        if self.count.0.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.count.0.store(0, Ordering::Relaxed);
            // Release: pairs with the waiters' Acquire loads.
            self.generation.0.store(g.wrapping_add(1), Ordering::Release);
        } else {
            while self.generation.0.load(Ordering::Acquire) == g {
                spin_loop();
            }
        }
    }
}

/// Seconds per `wait` on `p` threads, each waiting `iters` times (timed on thread 0).
fn time_threads(p: usize, iters: usize, wait: impl Fn() + Sync) -> f64 {
    let start = Barrier::new(p);
    let (start, wait) = (&start, &wait);
    std::thread::scope(|s| {
        let others: Vec<_> = (1..p)
            .map(|_| {
                s.spawn(move || {
                    start.wait();
                    for _ in 0..iters + iters / 10 {
                        wait();
                    }
                })
            })
            .collect();
        start.wait();
        for _ in 0..iters / 10 {
            wait();
        }
        let t0 = Instant::now();
        for _ in 0..iters {
            wait();
        }
        let t = t0.elapsed().as_secs_f64() / iters as f64;
        for h in others {
            h.join().unwrap();
        }
        t
    })
}

/// Seconds per empty sync on `p` processes (timed on process 0, after a warm-up).
fn time_empty_sync(p: usize, iters: usize) -> f64 {
    let r = bsp::run(p, |ctx| {
        for _ in 0..iters / 10 + 2 {
            ctx.sync();
        }
        let t0 = ctx.time();
        for _ in 0..iters {
            ctx.sync();
        }
        (ctx.time() - t0) / iters as f64
    });
    r.expect("empty syncs")[0]
}

fn bench_sync(o: Opts) {
    header("Empty sync (µs per superstep, lower is better)", "bsp / baseline");
    for p in [1, 2, 4, 8, 32] {
        let iters = match p {
            1 => 1_000_000,
            2 => 200_000,
            4 => 20_000,
            8 => 5_000,
            _ => 1_000,
        } / o.scale;
        let iters = iters.max(10);
        let spin_too = p <= cores();
        let (mut bsp, mut std_b, mut spin) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..o.runs {
            bsp.push(time_empty_sync(p, iters) * 1e6);
            let b = Barrier::new(p);
            std_b.push(
                time_threads(p, iters, || {
                    b.wait();
                }) * 1e6,
            );
            if spin_too {
                let b = SpinBarrier::new(p);
                spin.push(time_threads(p, iters, || b.wait()) * 1e6);
            }
        }
        let bsp = median(bsp);
        if spin_too {
            row("empty sync", p, bsp, "µs", "spin barrier (counter + generation)", median(spin));
        }
        row("empty sync", p, bsp, "µs", "std::sync::Barrier", median(std_b));
    }
}

// ---------------------------------------------------------------------------------------------
// Large transfers

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Large {
    Put,
    HpPut,
    Get,
    HpGet,
}

/// Seconds per superstep in which every process moves `LARGE` bytes to or from the next one.
fn time_large(kind: Large, iters: usize) -> f64 {
    let n = LARGE / 8;
    let r = bsp::run(2, |ctx| {
        let other = 1 - ctx.pid();
        let reg = ctx.register(vec![ctx.pid() as u64 + 1; n]); // not zero: calloc'd zero pages would read as one page
        let src = vec![7u64; n];
        let mut dst = vec![0u64; n];
        let mut once = |ctx: &mut Ctx| match kind {
            Large::Put => {
                ctx.put(other, &src[..], &reg, 0);
                ctx.sync();
            }
            Large::HpPut => ctx.superstep(|s| s.hpput(other, &src[..], &reg, 0)),
            Large::Get => ctx.superstep(|s| s.get(other, &reg, 0, &mut dst[..])),
            Large::HpGet => ctx.superstep(|s| s.hpget(other, &reg, 0, &mut dst[..])),
        };
        for _ in 0..3 {
            once(ctx);
        }
        let t0 = ctx.time();
        for _ in 0..iters {
            once(ctx);
        }
        let t = (ctx.time() - t0) / iters as f64;
        black_box(&dst);
        t
    });
    let t = r.expect("large transfers");
    t.iter().sum::<f64>() / t.len() as f64
}

/// Seconds per round in which each of two threads copies `LARGE` bytes with `copy_from_slice`
/// from a buffer the *other* thread filled (as a process reads data another process wrote),
/// and then they meet at a spin barrier: a superstep's work, done by hand.
fn time_memcpy(iters: usize) -> f64 {
    let start = Barrier::new(2);
    let round = SpinBarrier::new(2);
    let bufs: [std::sync::OnceLock<Vec<u8>>; 2] = Default::default();
    let (start, round, bufs) = (&start, &round, &bufs);
    let t: Vec<f64> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..2)
            .map(|me| {
                s.spawn(move || {
                    bufs[me].set(vec![me as u8 + 1; LARGE]).expect("set once");
                    let mut dst = vec![0u8; LARGE];
                    start.wait();
                    let src = bufs[1 - me].get().expect("set before the barrier");
                    dst.copy_from_slice(src); // warm up like the bsp side
                    start.wait();
                    let t0 = Instant::now();
                    for _ in 0..iters {
                        dst.copy_from_slice(black_box(src));
                        black_box(&mut dst);
                        round.wait();
                    }
                    t0.elapsed().as_secs_f64() / iters as f64
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    t.iter().sum::<f64>() / t.len() as f64
}

fn bench_large(o: Opts) {
    header(
        "8 MiB transfers at p = 2, both processes at once (GB/s per process, higher is better)",
        "median of per-run bsp / memcpy",
    );
    let iters = (40 / o.scale).max(2);
    let gbs = |secs: f64| LARGE as f64 / secs / 1e9;
    let kinds = [(Large::Put, "put (buffered)"), (Large::HpPut, "hpput"), (Large::Get, "get"), (Large::HpGet, "hpget")];
    let mut bsp: Vec<Vec<f64>> = vec![Vec::new(); kinds.len()];
    let mut base: Vec<Vec<f64>> = vec![Vec::new(); kinds.len()];
    let mut ratio: Vec<Vec<f64>> = vec![Vec::new(); kinds.len()];
    for _ in 0..o.runs {
        // The baseline right before each transfer: this machine's memory bandwidth drifts.
        for (i, (k, _)) in kinds.iter().enumerate() {
            let b = gbs(time_memcpy(iters));
            let x = gbs(time_large(*k, iters));
            base[i].push(b);
            bsp[i].push(x);
            ratio[i].push(x / b);
        }
    }
    for (i, (_, name)) in kinds.iter().enumerate() {
        let (x, b, r) = (median(bsp[i].clone()), median(base[i].clone()), median(ratio[i].clone()));
        println!("| {name} | 2 | {x:.2} GB/s | memcpy from the other thread's buffer, 2 threads at once | {b:.2} GB/s | {r:.2} |");
    }
}

// ---------------------------------------------------------------------------------------------
// Many small puts

const SMALL_PUTS: usize = 10_000;

/// (seconds per superstep with `SMALL_PUTS` single-word puts per process, seconds per empty
/// superstep), measured in the same run on process 0.
fn time_small_puts(iters: usize) -> (f64, f64) {
    let r = bsp::run(2, |ctx| {
        let (pid, other) = (ctx.pid(), 1 - ctx.pid());
        let reg = ctx.register(vec![0.0f64; 2 * SMALL_PUTS]);
        let src: Vec<f64> = (0..SMALL_PUTS).map(|i| i as f64).collect();
        let step = |ctx: &mut Ctx| {
            for (i, x) in src.iter().enumerate() {
                ctx.put(other, x, &reg, pid + 2 * i);
            }
            ctx.sync();
        };
        for _ in 0..3 {
            step(ctx);
        }
        let t0 = ctx.time();
        for _ in 0..iters {
            step(ctx);
        }
        let full = (ctx.time() - t0) / iters as f64;
        let t0 = ctx.time();
        for _ in 0..iters * 10 {
            ctx.sync();
        }
        let empty = (ctx.time() - t0) / (iters * 10) as f64;
        (full, empty)
    });
    r.expect("small puts")[0]
}

/// Seconds per word to store `SMALL_PUTS` words with the same index pattern, locally.
fn time_local_stores(iters: usize) -> f64 {
    let src: Vec<f64> = (0..SMALL_PUTS).map(|i| i as f64).collect();
    let mut dst = vec![0.0f64; 2 * SMALL_PUTS];
    let t0 = Instant::now();
    for _ in 0..iters {
        for (i, x) in black_box(&src).iter().enumerate() {
            dst[1 + 2 * i] = *x;
        }
        black_box(&mut dst);
    }
    t0.elapsed().as_secs_f64() / (iters * SMALL_PUTS) as f64
}

fn bench_puts(o: Opts) {
    header(
        &format!("{SMALL_PUTS} single-word (f64) puts per process in one superstep, p = 2 (ns per put)"),
        "bsp / baseline",
    );
    let iters = (200 / o.scale).max(2);
    let (mut per_put, mut stores) = (Vec::new(), Vec::new());
    for _ in 0..o.runs {
        let (full, empty) = time_small_puts(iters);
        per_put.push((full - empty) / SMALL_PUTS as f64 * 1e9);
        stores.push(time_local_stores(iters) * 1e9);
    }
    row("put, one f64", 2, median(per_put), "ns", "local stores, same pattern", median(stores));
}

// ---------------------------------------------------------------------------------------------
// BSMP

const MESSAGES: usize = 1_000;
type Payload = [u64; 2];

/// (seconds per superstep in which each process sends `MESSAGES` messages to the other and
/// moves the ones it got, seconds per empty superstep), on process 0.
fn time_bsmp(iters: usize) -> (f64, f64) {
    let r = bsp::run(2, |ctx| {
        let other = 1 - ctx.pid();
        ctx.set_tag::<u32>();
        ctx.sync();
        let mut payload: Payload = [0; 2];
        let mut sum = 0u64;
        let mut step = |ctx: &mut Ctx| {
            for i in 0..MESSAGES {
                ctx.send(other, &(i as u32), &[i as u64, 1][..]);
            }
            ctx.sync();
            while ctx.move_into(&mut payload).is_some() {
                sum = sum.wrapping_add(payload[0]);
            }
        };
        for _ in 0..3 {
            step(ctx);
        }
        let t0 = ctx.time();
        for _ in 0..iters {
            step(ctx);
        }
        let full = (ctx.time() - t0) / iters as f64;
        black_box(sum);
        let t0 = ctx.time();
        for _ in 0..iters * 10 {
            ctx.sync();
        }
        let empty = (ctx.time() - t0) / (iters * 10) as f64;
        (full, empty)
    });
    r.expect("bsmp")[0]
}

/// Seconds per message through `std::sync::mpsc`: two threads each send `MESSAGES` (tag,
/// payload) pairs to the other, then receive theirs; repeated `iters` times.
fn time_mpsc(iters: usize) -> f64 {
    let (tx0, rx0) = mpsc::channel::<(u32, Payload)>();
    let (tx1, rx1) = mpsc::channel::<(u32, Payload)>();
    let start = Barrier::new(2);
    let start = &start;
    let run = move |tx: mpsc::Sender<(u32, Payload)>, rx: mpsc::Receiver<(u32, Payload)>| {
        let mut sum = 0u64;
        start.wait();
        let t0 = Instant::now();
        for _ in 0..iters {
            for i in 0..MESSAGES {
                tx.send((i as u32, [i as u64, 1])).unwrap();
            }
            for _ in 0..MESSAGES {
                sum = sum.wrapping_add(rx.recv().unwrap().1[0]);
            }
        }
        black_box(sum);
        t0.elapsed().as_secs_f64() / (iters * MESSAGES) as f64
    };
    std::thread::scope(|s| {
        let h = s.spawn(move || run(tx1, rx0));
        let t = run(tx0, rx1);
        h.join().unwrap();
        t
    })
}

fn bench_bsmp(o: Opts) {
    header(
        &format!(
            "BSMP: {MESSAGES} messages (4-byte tag, 16-byte payload) per process per superstep, p = 2 (ns per message)"
        ),
        "bsp / baseline",
    );
    let iters = (200 / o.scale).max(2);
    let (mut per_msg, mut chan) = (Vec::new(), Vec::new());
    for _ in 0..o.runs {
        let (full, empty) = time_bsmp(iters);
        per_msg.push((full - empty) / MESSAGES as f64 * 1e9);
        chan.push(time_mpsc(iters) * 1e9);
    }
    row("send + move_into", 2, median(per_msg), "ns", "std::sync::mpsc send + recv", median(chan));
}

// ---------------------------------------------------------------------------------------------
// Team collectives

/// Seconds per broadcast of `words` words on `p` processes, timed on process 0 after a warm-up:
/// on a processor row of a `2 × p/2` grid if `row`, else on every process.
/// µs per broadcast of `words` words on every process, or (`grid = Some((m, n))`) on the
/// processor rows of an `m × n` grid, every row broadcasting in the same sync.
fn time_broadcast(p: usize, grid: Option<(usize, usize)>, words: usize, iters: usize) -> f64 {
    let r = bsp::run(p, |ctx| {
        let grid = grid.map(|(m, n)| bsp::Grid::new(ctx, m, n));
        let data = vec![ctx.pid() as u64; words];
        let once = |ctx: &mut Ctx| match &grid {
            Some(g) => black_box(g.row().broadcast(ctx, 0, &data)),
            None => black_box(ctx.broadcast(0, &data)),
        };
        for _ in 0..iters / 10 + 2 {
            once(ctx);
        }
        let t0 = ctx.time();
        for _ in 0..iters {
            once(ctx);
        }
        (ctx.time() - t0) / iters as f64
    });
    r.expect("broadcasts")[0]
}

fn bench_teams(o: Opts) {
    header("Team collectives: a broadcast on a processor row of a grid (µs per broadcast)", "bsp / baseline");
    let iters = (20_000 / o.scale).max(10);
    for words in [1, 1000] {
        let mut t: [Vec<f64>; 7] = Default::default();
        for _ in 0..o.runs {
            t[0].push(time_broadcast(4, Some((2, 2)), words, iters) * 1e6);
            t[1].push(time_broadcast(2, None, words, iters) * 1e6);
            t[2].push(time_broadcast(4, None, words, iters) * 1e6);
            t[3].push(time_empty_sync(4, iters) * 1e6);
            t[4].push(time_broadcast(2, Some((1, 2)), words, iters) * 1e6);
            t[5].push(time_broadcast(2, Some((2, 1)), words, iters) * 1e6);
            t[6].push(time_empty_sync(2, iters) * 1e6);
        }
        let [team, two, all, empty4, row2, row1, empty2] = t.map(median);
        let what = format!("row broadcast of {words} words, 2×2 grid");
        let on_two = format!("broadcast of {words} words on 2 processes (p = 2)");
        row(&what, 4, team, "µs", &on_two, two);
        row(&what, 4, team, "µs", &format!("broadcast of {words} words on all 4 processes"), all);
        row(&what, 4, team, "µs", "empty sync, p = 4", empty4);
        row(&format!("row broadcast of {words} words, 1×2 grid (a team of 2)"), 2, row2, "µs", &on_two, two);
        row(
            &format!("row broadcast of {words} words, 2×1 grid (teams of one)"),
            2,
            row1,
            "µs",
            "empty sync, p = 2",
            empty2,
        );
    }
}

// ---------------------------------------------------------------------------------------------

fn main() {
    let mut opts = Opts { runs: 5, scale: 1 };
    let mut groups = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--bench" => {} // added by `cargo bench`
            "--runs" => opts.runs = args.next().and_then(|v| v.parse().ok()).filter(|&r| r > 0).expect("--runs N"),
            "--quick" => opts.scale = 20,
            "sync" | "large" | "puts" | "bsmp" | "teams" => groups.push(a),
            other if other.starts_with('-') => {} // other harness flags: ignored
            other => {
                eprintln!("unknown benchmark group `{other}` (expected sync, large, puts, bsmp, teams)");
                std::process::exit(2);
            }
        }
    }
    if groups.is_empty() {
        groups = ["sync", "large", "puts", "bsmp", "teams"].map(String::from).to_vec();
    }
    println!(
        "bsp benchmarks: {} cores, medians of {} runs{}",
        cores(),
        opts.runs,
        if opts.scale > 1 { " (quick)" } else { "" }
    );
    for g in &groups {
        match g.as_str() {
            "sync" => bench_sync(opts),
            "large" => bench_large(opts),
            "puts" => bench_puts(opts),
            "bsmp" => bench_bsmp(opts),
            "teams" => bench_teams(opts),
            _ => unreachable!(),
        }
    }
}
