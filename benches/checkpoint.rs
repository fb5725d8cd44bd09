//! How fast `ctx.checkpoint` writes, against `dd … conv=fsync` of the same number of bytes to
//! the same disk, in the same rounds.
//!
//! ```text
//! cargo bench --bench checkpoint                       # p = 2, 64 MiB per process, 5 rounds
//! cargo bench --bench checkpoint -- --mib 16 --procs 4 --runs 7 --dir /tmp
//! ```
//! Each round times one checkpoint of every process's registration (fresh data each time, so
//! the disk sees new pages), then `dd if=/dev/zero bs=1M count=<p × mib> conv=fsync` into the
//! same directory. Both write their bytes to the page cache and wait until they reach the disk.
//! It prints both rates in MiB/s (medians over the rounds, with the per-round range) and the
//! median of the per-round ratios. A checkpoint writes one file per process and a manifest,
//! and flushes each file and the directory; `dd` writes one file.

mod common;
use common::median;

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

struct Opts {
    mib: usize,
    procs: usize,
    runs: usize,
    dir: PathBuf,
}

fn opts() -> Opts {
    let mut o = Opts { mib: 64, procs: 2, runs: 5, dir: std::env::temp_dir() };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{a} takes a value"));
        match a.as_str() {
            "--mib" => o.mib = value().parse().expect("--mib N"),
            "--procs" => o.procs = value().parse().expect("--procs P"),
            "--runs" => o.runs = value().parse().expect("--runs R"),
            "--dir" => o.dir = PathBuf::from(value()),
            "--bench" => {}
            other => panic!("unknown argument {other} (expected --mib, --procs, --runs, --dir)"),
        }
    }
    o
}

fn main() {
    let o = opts();
    let root = o.dir.join(format!("bsp-checkpoint-bench-{}", std::process::id()));
    let ckpt = root.join("ckpt");
    std::fs::create_dir_all(&ckpt).expect("the directory can be made");
    // Read once, when the first run starts: set before any run, with no other thread alive.
    std::env::set_var("BSP_CHECKPOINT", &ckpt);
    std::env::remove_var("BSP_RESTART");
    let words = o.mib << 17; // u64 words per process
    let total_mib = o.mib * o.procs;
    let (mut ck, mut dd, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..o.runs {
        // Each round starts from an empty directory, as `dd` writes a new file: replacing the
        // last round's files would add the cost of freeing them.
        let _ = std::fs::remove_dir_all(&ckpt);
        std::fs::create_dir_all(&ckpt).expect("the directory can be made");
        let seconds = bsp::run(o.procs, |ctx| {
            let mut x = ctx.register(vec![0u64; words]);
            let seed = (round * o.procs + ctx.pid()) as u64;
            for (i, w) in x.local_mut(ctx).iter_mut().enumerate() {
                *w = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ seed;
            }
            ctx.sync();
            let t = Instant::now();
            ctx.checkpoint(round as u64);
            ctx.sync();
            t.elapsed().as_secs_f64()
        })
        .expect("the checkpoint run");
        let ck_s = seconds.into_iter().fold(0.0, f64::max);
        let file = root.join("dd.out");
        let t = Instant::now();
        let status = Command::new("dd")
            .args([
                "if=/dev/zero",
                &format!("of={}", file.display()),
                "bs=1M",
                &format!("count={total_mib}"),
                "conv=fsync",
            ])
            .stderr(std::process::Stdio::null())
            .status()
            .expect("dd runs");
        assert!(status.success(), "dd failed");
        let dd_s = t.elapsed().as_secs_f64();
        let _ = std::fs::remove_file(&file);
        let (c, d) = (total_mib as f64 / ck_s, total_mib as f64 / dd_s);
        println!("round {round}: checkpoint {c:.0} MiB/s, dd {d:.0} MiB/s, ratio {:.2}", c / d);
        ck.push(c);
        dd.push(d);
        ratio.push(c / d);
    }
    let range = |v: &[f64]| {
        let (lo, hi) = v.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        format!("[{lo:.0}–{hi:.0}]")
    };
    let (ck_r, dd_r) = (range(&ck), range(&dd));
    let (lo, hi) = ratio.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    println!(
        "p = {}, {} MiB per process: checkpoint {:.0} MiB/s {ck_r}, dd conv=fsync {:.0} MiB/s {dd_r}, ratio {:.2} [{lo:.2}–{hi:.2}] (medians of {} rounds)",
        o.procs,
        o.mib,
        median(ck),
        median(dd),
        median(ratio),
        o.runs
    );
    let _ = std::fs::remove_dir_all(&root);
}
