//! The peer-comparison micro-benchmark, `bsp` side: exactly the measurements of
//! `benches/peers/bsplib_bench.c` (the BSPlib program that `scripts/peers` links with
//! MulticoreBSP for C, LPF and BSPonMPI), on our API. Keep the two in step: same constants,
//! same loops, same figures, same output.
//!
//! ```text
//! cargo bench --bench peers                                   # threads, p = 2
//! cargo bench --bench peers -- -p 4 --quick                   # other p; a smoke test
//! mpirun -n 2 target/release/deps/peers-…                     # built with --features mpi
//! ```
//! `scripts/peers` builds it twice (threads, and `--features mpi` to run under `mpirun`),
//! runs it interleaved with the peers and the plain references and prints the comparison.
//! With `--sync-only` it measures `sync_us` alone: `scripts/mpi-launches` runs it launch after
//! launch beside `MPI_Barrier`.
//!
//! Process 0 times and prints one figure per line, `name value`:
//!
//! - `sync_us`: an empty superstep, the median over 21 blocks (after one more to warm up) of
//!   1000 consecutive syncs.
//! - `g_ns`, `l_us`: bspbench's method: for h = 0..256, 100 supersteps of h one-`f64` puts
//!   spread cyclically over the other processes (to (s+1+i mod (p−1)) mod p, at index
//!   s + ⌊i/(p−1)⌋·p); T(h) fitted by least squares to g·h + l over h = p..256 (in seconds,
//!   not flops; `examples/bspbench.rs` is the full bspbench).
//! - `t1_us`, `t16_us`, `t256_us`: T(h) itself at h = 1, 16, 256 (µs per superstep; not with
//!   `--quick`).
//! - `puts_us`: a superstep of 1000 one-word (`u64`) puts to (s+1) mod p, word i to index i:
//!   the median over 21 blocks (after one to warm up) of 50 supersteps.
//! - `puts_batch_us`: the same supersteps through one `ctx.put_batch(&dst)` each (`bsp` only:
//!   the C program has no counterpart, so the peers' `puts_us` is its comparison).
//! - `put_gbs`, `hpput_gbs`, `get_gbs`, `hpget_gbs`: 8 MiB per process to (for the gets, from)
//!   pid (s+1) mod p, every process at once, one transfer per superstep: 8 MiB / the median
//!   time of 40 supersteps (after 3 to warm up), in GB/s per process.
//!
//! Every transfer is checked (a wrong word fails the run). `--quick` shrinks the repetition
//! counts: a smoke test, whose figures mean nothing.

use std::hint::black_box;
use std::process::ExitCode;

use bsp::{Ctx, Reg};

mod common;
use common::median;

const LARGE_BYTES: usize = 8 << 20;
const LARGE_WORDS: usize = LARGE_BYTES / 8;
/// Untimed rounds before every timed series of large transfers.
const WARM: usize = 3;

/// Repetition counts (the C program's globals; the numbers above are `FULL`'s).
#[derive(Clone, Copy, Debug)]
struct Counts {
    syncs: usize,
    sync_blocks: usize,
    maxh: usize,
    niters: usize,
    puts: usize,
    put_steps: usize,
    put_blocks: usize,
    large_steps: usize,
}

const FULL: Counts = Counts {
    syncs: 1000,
    sync_blocks: 21,
    maxh: 256,
    niters: 100,
    puts: 1000,
    put_steps: 50,
    put_blocks: 21,
    large_steps: 40,
};

const QUICK: Counts =
    Counts { syncs: 50, sync_blocks: 3, maxh: 16, niters: 5, puts: 100, put_steps: 3, put_blocks: 3, large_steps: 3 };

fn report(ctx: &Ctx, name: &str, value: f64) {
    if ctx.pid() == 0 {
        println!("{name} {value:.6e}");
    }
}

fn bench_sync(ctx: &mut Ctx, c: Counts) {
    let mut t = Vec::with_capacity(c.sync_blocks);
    for b in 0..=c.sync_blocks {
        // block 0 warms up
        let t0 = ctx.time();
        for _ in 0..c.syncs {
            ctx.sync();
        }
        if b > 0 {
            t.push((ctx.time() - t0) / c.syncs as f64);
        }
    }
    report(ctx, "sync_us", 1e6 * median(t));
}

fn bench_gl(ctx: &mut Ctx, c: Counts) {
    let (p, s) = (ctx.nprocs(), ctx.pid());
    let src: Vec<f64> = (0..c.maxh).map(|i| i as f64).collect();
    let dest = ctx.register(vec![0.0f64; p * c.maxh]);
    let mut t = vec![0.0; c.maxh + 1];
    for (h, th) in t.iter_mut().enumerate() {
        ctx.sync();
        let t0 = ctx.time();
        for _ in 0..c.niters {
            for (i, x) in src[..h].iter().enumerate() {
                let (pid, index) = ((s + 1 + i % (p - 1)) % p, s + (i / (p - 1)) * p);
                ctx.put(pid, x, &dest, index);
            }
            ctx.sync();
        }
        *th = (ctx.time() - t0) / c.niters as f64;
    }
    // What the last h = c.maxh supersteps left here: word i of process q, if it came here.
    let here = dest.local(ctx);
    for q in (0..p).filter(|&q| q != s) {
        for i in (0..c.maxh).filter(|i| (q + 1 + i % (p - 1)) % p == s) {
            assert_eq!(here[q + (i / (p - 1)) * p], i as f64, "process {s}: word {i} of process {q} did not arrive");
        }
    }
    // Least squares T(h) = g·h + l over h = p..c.maxh.
    let (mut n, mut sh, mut st, mut shh, mut sht) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for (h, &th) in t.iter().enumerate().skip(p) {
        let h = h as f64;
        n += 1.0;
        sh += h;
        st += th;
        shh += h * h;
        sht += h * th;
    }
    let g = (n * sht - sh * st) / (n * shh - sh * sh);
    let l = (st - g * sh) / n;
    report(ctx, "g_ns", 1e9 * g);
    report(ctx, "l_us", 1e6 * l);
    if c.maxh >= 256 {
        report(ctx, "t1_us", 1e6 * t[1]);
        report(ctx, "t16_us", 1e6 * t[16]);
        report(ctx, "t256_us", 1e6 * t[256]);
    }
    ctx.unregister(dest);
}

/// Times supersteps of `c.puts` one-word puts to the next process, word i to index i, each
/// issued by `issue(ctx, dst, next, first)` (words `first`, `first + 1`, ...), and reports the
/// median as `name`.
fn time_puts(ctx: &mut Ctx, c: Counts, name: &str, mut issue: impl FnMut(&mut Ctx, &Reg<u64>, usize, u64)) {
    let (p, s) = (ctx.nprocs(), ctx.pid());
    let next = (s + 1) % p;
    let dst = ctx.register(vec![0u64; c.puts]);
    let mut t = Vec::with_capacity(c.put_blocks);
    let mut step = 0u64;
    for b in 0..=c.put_blocks {
        // block 0 warms up
        let t0 = ctx.time();
        for _ in 0..c.put_steps {
            issue(ctx, &dst, next, step * c.puts as u64);
            ctx.sync();
            step += 1;
        }
        if b > 0 {
            t.push((ctx.time() - t0) / c.put_steps as f64);
        }
    }
    let last = (step - 1) * c.puts as u64 + (c.puts - 1) as u64;
    assert_eq!(dst.local(ctx)[c.puts - 1], last, "process {s}: the last put word ({name})");
    report(ctx, name, 1e6 * median(t));
    ctx.unregister(dst);
}

fn bench_puts(ctx: &mut Ctx, c: Counts) {
    time_puts(ctx, c, "puts_us", |ctx, dst, next, first| {
        for i in 0..c.puts {
            ctx.put(next, &(first + i as u64), dst, i);
        }
    });
}

// BEGIN put_batch: `scripts/peers --base REV` removes this block (and the line that calls it)
// where REV has no `put_batch`.
fn bench_puts_batch(ctx: &mut Ctx, c: Counts) {
    time_puts(ctx, c, "puts_batch_us", |ctx, dst, next, first| {
        let mut batch = ctx.put_batch(dst);
        for i in 0..c.puts {
            batch.put(next, &(first + i as u64), i);
        }
    });
}
// END put_batch

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Put,
    HpPut,
    Get,
    HpGet,
}

fn bench_large(ctx: &mut Ctx, c: Counts) {
    let (p, s) = (ctx.nprocs(), ctx.pid());
    let (next, prev) = ((s + 1) % p, (s + p - 1) % p);
    // Not zero: pages of zeros may all map one page until written.
    let src = vec![s as u64 + 1; LARGE_WORDS];
    let mut area = ctx.register(vec![s as u64 + 1; LARGE_WORDS]);
    let mut dst = vec![0u64; LARGE_WORDS];
    let kinds =
        [(Kind::Put, "put_gbs"), (Kind::HpPut, "hpput_gbs"), (Kind::Get, "get_gbs"), (Kind::HpGet, "hpget_gbs")];
    for (kind, name) in kinds {
        // The puts write prev + 1 here; then next's area holds s + 1, which the gets read.
        let puts = matches!(kind, Kind::Put | Kind::HpPut);
        let expect = if puts { prev as u64 + 1 } else { s as u64 + 1 };
        if puts {
            area.local_mut(ctx).fill(0);
        } else {
            dst.fill(0);
        }
        ctx.sync();
        let mut t = Vec::with_capacity(c.large_steps);
        let mut before = ctx.time();
        for it in 0..WARM + c.large_steps {
            match kind {
                Kind::Put => {
                    ctx.put(next, &src[..], &area, 0);
                    ctx.sync();
                }
                Kind::HpPut => ctx.superstep(|st| st.hpput(next, &src[..], &area, 0)),
                Kind::Get => ctx.superstep(|st| st.get(next, &area, 0, &mut dst[..])),
                Kind::HpGet => ctx.superstep(|st| st.hpget(next, &area, 0, &mut dst[..])),
            }
            let now = ctx.time();
            if it >= WARM {
                t.push(now - before);
            }
            before = now;
        }
        let target: &[u64] = if puts { area.local(ctx) } else { &dst };
        assert!(
            target[0] == expect && target[LARGE_WORDS - 1] == expect,
            "process {s}: {name} moved words {}..{}, expected {expect}",
            target[0],
            target[LARGE_WORDS - 1]
        );
        report(ctx, name, LARGE_BYTES as f64 / median(t) / 1e9);
    }
    black_box(&dst);
    ctx.unregister(area);
}

fn main() -> ExitCode {
    let mut counts = FULL;
    let mut procs = None;
    let mut sync_only = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "-p" => match args.next().and_then(|v| v.parse::<usize>().ok()).filter(|&p| p >= 2) {
                Some(p) => procs = Some(p),
                None => {
                    eprintln!("error: -p needs a number of processes, at least 2");
                    return ExitCode::from(2);
                }
            },
            "--quick" => counts = QUICK,
            "--sync-only" => sync_only = true,
            "--bench" => {} // added by `cargo bench`
            other => {
                eprintln!(
                    "error: unexpected argument `{other}` (usage: peers [-p P (at least 2)] [--quick] [--sync-only])"
                );
                return ExitCode::from(2);
            }
        }
    }
    // Threads: P, default 2. Under `mpirun` (built with `--features mpi`): P, default the ranks.
    let launch = match procs {
        Some(p) => bsp::Launch::new().procs(p),
        None => bsp::Launch::new().default_procs(2),
    };
    bsp::exit_on_error(launch.run(|ctx| {
        assert!(ctx.nprocs() >= 2, "the peer benchmark needs at least 2 processes, has {}", ctx.nprocs());
        bench_sync(ctx, counts);
        if sync_only {
            return;
        }
        bench_gl(ctx, counts);
        bench_puts(ctx, counts);
        bench_puts_batch(ctx, counts); // put_batch
        bench_large(ctx, counts);
    }));
    ExitCode::SUCCESS
}
