//! The book versions of the classic BSP programs (`examples/book_*.rs`) at p = 1 and p = 2 on
//! the threads engine, beside a plain sequential Rust version of the same algorithm
//! (`benches/book/*.rs`) timed in the same run.
//!
//! ```text
//! bash scripts/book                         # builds the examples (release), then this
//! cargo bench --bench book -- --runs 9      # more rounds (default 5)
//! cargo bench --bench book -- fft sort      # some of the programs
//! ```
//!
//! This benchmark builds nothing: it runs the release binaries `target/release/examples/book_*`
//! (`cargo build --release --examples`, which `scripts/book` does first) with `BSP_NPROCS` = 1
//! and 2 and the size of its row below, and reads the time process 0 prints on stderr
//! (`book_<name>: n=<n> p=<p> time <seconds> s`: the algorithm only, not the input or the
//! check). The sequential version's `seconds(n)` times the same work on the same input. Each
//! round runs every program's three versions one after the other, so that a disturbance of the
//! machine hits all three; every figure is the median over the rounds. Output is a Markdown
//! table; p=1/seq is the BSP overhead of a one-process run, p=2/p=1 the speedup's inverse.
//!
//! A program is one row of `PROGRAMS` and one `mod` line in `mod book`.
//!
//! The inner product's size keeps its vector (32 MB) about the size of the last-level cache of
//! the 2-core machine this was written on (32 MiB), where the second core helps: at n = 2·10^7
//! (160 MB) it is bound by memory bandwidth, which the two cores share, and p = 2 takes about as
//! long as p = 1; much below, its millisecond is at the mercy of every other process.

mod common;
use common::median;

use std::path::PathBuf;
use std::process::Command;

/// The sequential versions, one file each in `benches/book/`.
mod book {
    pub mod bspmv;
    pub mod fft;
    pub mod inprod;
    pub mod lu;
    pub mod sort;
}

/// A book program: its name in the table, its example, its benchmark size, its sequential
/// version.
struct Program {
    name: &'static str,
    example: &'static str,
    n: usize,
    sequential: fn(usize) -> f64,
}

const PROGRAMS: &[Program] = &[
    Program { name: "inprod", example: "book_inprod", n: 4_000_000, sequential: book::inprod::seconds },
    Program { name: "fft", example: "book_fft", n: 1 << 20, sequential: book::fft::seconds },
    Program { name: "sort", example: "book_sort", n: 4_000_000, sequential: book::sort::seconds },
    Program { name: "lu", example: "book_lu", n: 1000, sequential: book::lu::seconds },
    Program { name: "bspmv", example: "book_bspmv", n: 100_000, sequential: book::bspmv::seconds },
];

/// `target/release/examples/<name>`, beside this benchmark's `target/release/deps/`.
fn binary(name: &str) -> PathBuf {
    let mut dir = std::env::current_exe().expect("the benchmark's path");
    dir.pop();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir.join("examples").join(name)
}

/// Runs `example` on `p` processes with size `n`; the time process 0 reports.
fn run(example: &str, p: usize, n: usize) -> f64 {
    let path = binary(example);
    let out = Command::new(&path)
        .arg(n.to_string())
        .env("BSP_NPROCS", p.to_string())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {} ({e}): build it first with `bash scripts/book`", path.display()));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{example} on {p} processes failed: {}\n{stderr}", out.status);
    let want = format!("{example}: n={n} p={p} time ");
    stderr
        .lines()
        .find_map(|line| line.strip_prefix(&want)?.strip_suffix(" s")?.parse().ok())
        .unwrap_or_else(|| panic!("{example} on {p} processes printed no `{want}<seconds> s` line:\n{stderr}"))
}

fn main() {
    let mut runs = 5;
    let mut only: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => runs = args.next().and_then(|v| v.parse().ok()).expect("--runs takes a number"),
            "--bench" => {} // what `cargo bench` passes
            name => only.push(name.to_string()),
        }
    }
    let programs: Vec<&Program> =
        PROGRAMS.iter().filter(|p| only.is_empty() || only.iter().any(|o| o == p.name)).collect();
    // times[program] = (sequential, p = 1, p = 2), one entry per round.
    let mut times = vec![(Vec::new(), Vec::new(), Vec::new()); programs.len()];
    for _ in 0..runs {
        for (program, t) in programs.iter().zip(&mut times) {
            t.0.push((program.sequential)(program.n));
            t.1.push(run(program.example, 1, program.n));
            t.2.push(run(program.example, 2, program.n));
        }
    }
    println!("| program | n | sequential (s) | p = 1 (s) | p = 2 (s) | p=1/seq | p=2/p=1 |");
    println!("|---|---|---|---|---|---|---|");
    for (program, (seq, p1, p2)) in programs.iter().zip(times) {
        let (seq, p1, p2) = (median(seq), median(p1), median(p2));
        println!(
            "| {} | {} | {seq:.4} | {p1:.4} | {p2:.4} | {:.2} | {:.2} |",
            program.name,
            program.n,
            p1 / seq,
            p2 / p1
        );
    }
    println!("\n(medians of {runs} rounds; threads engine; release build)");
}
