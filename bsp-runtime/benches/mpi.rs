//! The MPI engine beside raw MPI, measured in the same run on 2 ranks (STYLE.md §15).
//!
//! ```text
//! cargo bench -p bsp-runtime --features mpi --bench mpi              # 5 runs of mpirun -n 2
//! BSP_MPI_BENCH_RUNS=9 cargo bench -p bsp-runtime --features mpi --bench mpi
//! ```
//! Started by cargo, it starts itself with `mpirun -n 2` once per run (MPI can be started only
//! once per OS process) and prints a Markdown table: for every figure the median over runs of
//! the per-run medians, the spread over runs, and the ratio bsp / MPI of the times (the median
//! of the per-run ratios). Inside a
//! run, one SPMD run on the MPI engine alternates every `bsp` measurement with its baseline on
//! `MPI_COMM_WORLD`, so a disturbance of the machine hits both:
//!
//! - **empty sync** (blocks of 1000 consecutive `sync`s) against `MPI_Barrier`, the
//!   `MPI_Alltoall` of two words per rank that the engine's empty sync is made of, and the
//!   `MPI_Allreduce` of one word that it was made of before;
//! - **8 MiB put, hpput, get, hpget** from rank 0 to rank 1 (a get by rank 1 from rank 0), one
//!   superstep each, against a plain `MPI_Send`/`MPI_Recv` of 8 MiB (each framed by barriers,
//!   which cost microseconds against milliseconds); `copy_from_slice` of 8 MiB for scale;
//! - **h-relation**: supersteps of h = 1000 one-word puts from each rank to the other (blocks of
//!   50 consecutive supersteps), with `ctx.put` and through `ctx.put_batch`, against the
//!   hand-written MPI equivalent: pack the 1000 words, one `MPI_Alltoallv` with counts known in
//!   advance, unpack them into the destination array.
//!
//! Open MPI settings for one machine are added when unset, as in `tests/suite/mpi.rs`.

use std::hint::black_box;
use std::io::Read;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use bsp_runtime::{Ctx, Launch};
use mpi::Count;
use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// Words in 8 MiB.
const LARGE: usize = (8 << 20) / 8;
/// One-word puts per process per superstep in the h-relation.
const H: usize = 1000;
/// Consecutive empty syncs (barriers) per timed block.
const SYNCS: usize = 1000;
/// Consecutive h-relation supersteps per timed block.
const HSTEPS: usize = 50;
/// Timed blocks (or 8 MiB transfers) per figure and run.
const BLOCKS: usize = 25;
/// A run that takes longer than this hangs.
const LIMIT: Duration = Duration::from_secs(300);
/// Marks rank 0's line of figures on stdout.
const TAG: &str = "bsp-mpi-bench ";

/// The figures of one run (medians over its blocks), in seconds per operation, by name.
const NAMES: [&str; 15] = [
    "sync",
    "barrier",
    "allreduce",
    "put",
    "hpput",
    "get",
    "hpget",
    "sendrecv",
    "memcpy",
    "hrel",
    "hrel_calls",
    "alltoallv",
    "hrel_batch",
    "hrel_batch_calls",
    "alltoall",
];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

fn seconds(start: Instant, ops: usize) -> f64 {
    start.elapsed().as_secs_f64() / ops as f64
}

/// Times `op` framed by barriers on `world` (for operations that take milliseconds).
fn framed(world: &SimpleCommunicator, op: impl FnOnce()) -> f64 {
    world.barrier();
    let start = Instant::now();
    op();
    world.barrier();
    seconds(start, 1)
}

/// One rank's part of a run; rank 0 returns the figures.
fn measure(ctx: &mut Ctx) -> Option<Vec<f64>> {
    let world = SimpleCommunicator::world();
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    assert!(p >= 2, "the MPI benchmark needs at least 2 ranks (mpirun -n 2)");
    let (left, right) = ((pid + p - 1) % p, (pid + 1) % p);
    let mut t: Vec<Vec<f64>> = vec![Vec::new(); NAMES.len()];
    let [
        sync,
        barrier,
        allreduce,
        put,
        hpput,
        get,
        hpget,
        sendrecv,
        memcpy,
        hrel,
        hrel_calls,
        alltoallv,
        hrel_batch,
        hrel_batch_calls,
        alltoall,
    ] = std::array::from_fn(|i| i);

    // Empty syncs against MPI_Barrier, a one-word MPI_Allreduce and a two-word MPI_Alltoall.
    let mut or = 0u64;
    for block in 0..=BLOCKS {
        world.barrier();
        let start = Instant::now();
        for _ in 0..SYNCS {
            ctx.sync();
        }
        let s = seconds(start, SYNCS);
        world.barrier();
        let start = Instant::now();
        for _ in 0..SYNCS {
            world.barrier();
        }
        let b = seconds(start, SYNCS);
        world.barrier();
        let start = Instant::now();
        for _ in 0..SYNCS {
            world.all_reduce_into(&1u64, &mut or, SystemOperation::bitwise_or());
        }
        let a = seconds(start, SYNCS);
        world.barrier();
        let (pairs, mut pairs_in) = (vec![1u64; 2 * p], vec![0u64; 2 * p]);
        let start = Instant::now();
        for _ in 0..SYNCS {
            world.all_to_all_into(&pairs[..], &mut pairs_in[..]);
        }
        let aa = seconds(start, SYNCS);
        if block > 0 {
            // block 0 warms up
            t[sync].push(s);
            t[barrier].push(b);
            t[allreduce].push(a);
            t[alltoall].push(aa);
        }
    }

    // 8 MiB from rank 0 to rank 1, against MPI_Send/MPI_Recv and a local copy.
    // Rank 0's x holds the data that gets read; rank 1's receives the puts.
    let src: Vec<u64> = (0..LARGE as u64).collect();
    let mut x = ctx.register(if pid == 0 { src.clone() } else { vec![0u64; LARGE] });
    let mut dst = vec![0u64; LARGE];
    let mut bad = 0;
    for rep in 0..=BLOCKS {
        let mut one = |i: usize, secs: f64| {
            if rep > 0 {
                t[i].push(secs);
            }
        };
        if pid == 1 {
            x.local_mut(ctx).fill(0);
        }
        one(
            put,
            framed(&world, || {
                if pid == 0 {
                    ctx.put(1, &src[..], &x, 0);
                }
                ctx.sync();
            }),
        );
        bad += usize::from(pid == 1 && x.local(ctx)[LARGE - 1] != LARGE as u64 - 1);
        one(
            hpput,
            framed(&world, || {
                ctx.superstep(|s| {
                    if pid == 0 {
                        s.hpput(1, &src[..], &x, 0)
                    }
                })
            }),
        );
        dst.fill(0);
        one(
            get,
            framed(&world, || {
                ctx.superstep(|s| {
                    if pid == 1 {
                        s.get(0, &x, 0, &mut dst[..])
                    }
                })
            }),
        );
        bad += usize::from(pid == 1 && dst[LARGE - 1] != LARGE as u64 - 1);
        one(
            hpget,
            framed(&world, || {
                ctx.superstep(|s| {
                    if pid == 1 {
                        s.hpget(0, &x, 0, &mut dst[..])
                    }
                })
            }),
        );
        dst.fill(0);
        one(
            sendrecv,
            framed(&world, || {
                if pid == 0 {
                    world.process_at_rank(1).send(&src[..]);
                } else if pid == 1 {
                    world.process_at_rank(0).receive_into(&mut dst[..]);
                }
            }),
        );
        bad += usize::from(pid == 1 && dst[LARGE - 1] != LARGE as u64 - 1);
        let start = Instant::now();
        black_box(&mut dst[..]).copy_from_slice(black_box(&src[..]));
        one(memcpy, seconds(start, 1));
    }
    assert_eq!(bad, 0, "8 MiB transfers that did not arrive (put, get or send)");
    ctx.unregister(x);

    // h-relations of one-word puts, against pack + MPI_Alltoallv + unpack.
    let y = ctx.register(vec![0u64; H]);
    let mut raw = vec![0u64; H];
    let (mut send, mut recv) = (vec![0u64; H], vec![0u64; H]);
    let counts = |q: usize| -> Vec<Count> { (0..p).map(|r| if r == q { H as Count } else { 0 }).collect() };
    let displs: Vec<Count> = vec![0; p];
    let (send_counts, recv_counts) = (counts(right), counts(left));
    for block in 0..=BLOCKS {
        world.barrier();
        let start = Instant::now();
        let mut calls = Duration::ZERO;
        for step in 0..HSTEPS {
            let issue = Instant::now();
            for i in 0..H {
                ctx.put(right, &((step * H + i) as u64), &y, i);
            }
            calls += issue.elapsed();
            ctx.sync();
        }
        let h = seconds(start, HSTEPS);
        // The same through a batch (`put_batch`: the checks made once per superstep).
        world.barrier();
        let start = Instant::now();
        let mut batch_calls = Duration::ZERO;
        for step in 0..HSTEPS {
            let issue = Instant::now();
            let mut puts = ctx.put_batch(&y);
            for i in 0..H {
                puts.put(right, &((step * H + i) as u64), i);
            }
            batch_calls += issue.elapsed();
            ctx.sync();
        }
        let hb = seconds(start, HSTEPS);
        world.barrier();
        let start = Instant::now();
        for step in 0..HSTEPS {
            for (i, w) in send.iter_mut().enumerate() {
                *w = (step * H + i) as u64;
            }
            let s = Partition::new(&send[..], &send_counts[..], &displs[..]);
            let mut r = PartitionMut::new(&mut recv[..], &recv_counts[..], &displs[..]);
            world.all_to_all_varcount_into(&s, &mut r);
            raw.copy_from_slice(&recv);
        }
        let a = seconds(start, HSTEPS);
        if block > 0 {
            t[hrel].push(h);
            t[hrel_calls].push(calls.as_secs_f64() / HSTEPS as f64);
            t[alltoallv].push(a);
            t[hrel_batch].push(hb);
            t[hrel_batch_calls].push(batch_calls.as_secs_f64() / HSTEPS as f64);
        }
    }
    let last = ((HSTEPS - 1) * H) as u64;
    assert_eq!((y.local(ctx)[H - 1], raw[H - 1]), (last + H as u64 - 1, last + H as u64 - 1));
    (pid == 0).then(|| t.into_iter().map(median).collect())
}

/// The part of every rank (started by `mpirun`): rank 0 prints its figures on one line.
fn rank_main() -> ExitCode {
    let figures = bsp_runtime::exit_on_error(Launch::new().run(measure));
    for f in figures.into_iter().flatten() {
        let fields: Vec<String> = NAMES.iter().zip(&f).map(|(n, v)| format!("{n}={v:e}")).collect();
        println!("{TAG}{}", fields.join(" "));
    }
    ExitCode::SUCCESS
}

fn under_mpirun() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"].iter().any(|v| std::env::var_os(v).is_some())
}

fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// One run: `mpirun -n 2` of this executable; returns rank 0's figures.
fn one_run() -> Result<Vec<f64>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
    let mut cmd = Command::new("mpirun");
    cmd.args(["-n", "2"]).arg(exe).env_remove(bsp_runtime::NPROCS_VAR);
    let mut defaults = vec![
        ("OMPI_MCA_rmaps_base_oversubscribe", "1"),
        ("OMPI_MCA_btl", "self,vader"),
        ("OMPI_MCA_oob_tcp_if_include", "lo"),
        ("OMPI_MCA_osc", "^ucx"),
    ];
    if is_root() {
        defaults.extend([("OMPI_ALLOW_RUN_AS_ROOT", "1"), ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")]);
    }
    for (name, value) in defaults {
        if std::env::var_os(name).is_none() {
            cmd.env(name, value);
        }
    }
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::inherit());
    let mut child =
        cmd.spawn().map_err(|e| format!("cannot start `mpirun`: {e} (install Open MPI: scripts/setup-mpi)"))?;
    let mut pipe = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        // A read error leaves the figures missing, which is reported below.
        let _ = pipe.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if start.elapsed() > LIMIT {
            // Killing mpirun makes it stop its ranks.
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("mpirun -n 2 still running after {LIMIT:?}: killed"));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = reader.join().unwrap_or_default();
    if !status.success() {
        return Err(format!("mpirun -n 2 failed: {status}"));
    }
    let line = out.lines().find_map(|l| l.strip_prefix(TAG)).ok_or("rank 0 printed no figures")?;
    let figures: Vec<f64> =
        line.split_whitespace().filter_map(|kv| kv.split_once('=')).filter_map(|(_, v)| v.parse().ok()).collect();
    if figures.len() == NAMES.len() { Ok(figures) } else { Err(format!("cannot read the figures in {line:?}")) }
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".to_string())
}

fn main() -> ExitCode {
    if under_mpirun() {
        return rank_main();
    }
    let runs: usize = std::env::var("BSP_MPI_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(5).max(1);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load_before = load();
    let mut all: Vec<Vec<f64>> = Vec::new();
    for run in 1..=runs {
        match one_run() {
            Ok(f) => all.push(f),
            Err(e) => {
                eprintln!("error: run {run}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    // Per figure: the median over runs, and the smallest and largest run.
    let stat = |i: usize| {
        let v: Vec<f64> = all.iter().map(|f| f[i]).collect();
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(0.0, f64::max);
        (median(v), lo, hi)
    };
    let idx = |name: &str| NAMES.iter().position(|n| *n == name).expect("a figure name");
    let us = |(m, lo, hi): (f64, f64, f64)| format!("{:.2} µs ({:.2}–{:.2})", m * 1e6, lo * 1e6, hi * 1e6);
    let gbs = |(m, lo, hi): (f64, f64, f64)| {
        let bytes = (LARGE * 8) as f64;
        format!("{:.2} GB/s ({:.2}–{:.2}); {:.2} ms", bytes / m / 1e9, bytes / hi / 1e9, bytes / lo / 1e9, m * 1e3)
    };
    // The median of the per-run ratios: a change of load between runs cancels out.
    let ratio = |a: &str, b: &str| median(all.iter().map(|f| f[idx(a)] / f[idx(b)]).collect());
    println!("MPI engine vs raw MPI on 2 ranks (mpirun -n 2, shared memory), {runs} runs of mpirun; {cores} cores");
    println!("load average (1, 5, 15 min): {load_before} before, {} after", load());
    println!("every figure: median over runs of the per-run medians (range over runs in brackets);");
    println!("ratio = time with bsp / time with the MPI baseline, median of the per-run ratios (higher = slower)\n");
    println!("| operation | bsp | MPI baseline | baseline | ratio |");
    println!("|---|---|---|---|---|");
    let rows: [(&str, &str, &str, &str, bool); 10] = [
        ("empty sync", "sync", "`MPI_Barrier`", "barrier", false),
        ("empty sync", "sync", "`MPI_Allreduce` of one word", "allreduce", false),
        ("empty sync", "sync", "`MPI_Alltoall` of two words per rank", "alltoall", false),
        ("8 MiB put, rank 0 → 1", "put", "`MPI_Send`/`MPI_Recv` of 8 MiB", "sendrecv", true),
        ("8 MiB hpput, rank 0 → 1", "hpput", "`MPI_Send`/`MPI_Recv` of 8 MiB", "sendrecv", true),
        ("8 MiB get, rank 1 ← 0", "get", "`MPI_Send`/`MPI_Recv` of 8 MiB", "sendrecv", true),
        ("8 MiB hpget, rank 1 ← 0", "hpget", "`MPI_Send`/`MPI_Recv` of 8 MiB", "sendrecv", true),
        ("8 MiB `copy_from_slice` (scale)", "memcpy", "`MPI_Send`/`MPI_Recv` of 8 MiB", "sendrecv", true),
        ("h-relation: 1000 one-word puts each way", "hrel", "pack + `MPI_Alltoallv` + unpack", "alltoallv", false),
        ("the same through `put_batch`", "hrel_batch", "pack + `MPI_Alltoallv` + unpack", "alltoallv", false),
    ];
    for (what, mine, base_name, base, bandwidth) in rows {
        let show = if bandwidth { gbs } else { us };
        println!(
            "| {what} | {} | {base_name} | {} | {:.2} |",
            show(stat(idx(mine))),
            show(stat(idx(base))),
            ratio(mine, base)
        );
    }
    let per_put = |name: &str| stat(idx(name)).0 / H as f64 * 1e9;
    println!(
        "\nh-relation per put: {:.1} ns with bsp ({:.1} ns of it in the `put` calls, the rest in the sync), {:.1} ns through `put_batch` ({:.1} ns in the calls), {:.1} ns with MPI",
        per_put("hrel"),
        per_put("hrel_calls"),
        per_put("hrel_batch"),
        per_put("hrel_batch_calls"),
        per_put("alltoallv")
    );
    ExitCode::SUCCESS
}
