//! Runs every example with p = 1, 2, 3, 4 and 8 (through `BSP_NPROCS`) and checks its output
//! against the result computed here, sequentially.
//!
//! Processes print concurrently, so lines are compared as multisets.

use std::path::PathBuf;
use std::process::Command;

const PROCS: [usize; 5] = [1, 2, 3, 4, 8];

/// `target/<profile>/examples/<name>`, which `cargo test` builds before running this test.
fn example(name: &str) -> PathBuf {
    let mut dir = std::env::current_exe().expect("test binary path");
    dir.pop(); // the test binary
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir.join("examples").join(name)
}

/// Runs `name` on `p` processes; returns its stdout lines, sorted. Fails on a non-zero exit.
fn run(name: &str, p: usize) -> Vec<String> {
    let out = Command::new(example(name))
        .env("BSP_NPROCS", p.to_string())
        .output()
        .unwrap_or_else(|e| panic!("cannot run example `{name}` ({}): {e}", example(name).display()));
    assert!(
        out.status.success(),
        "example `{name}` on {p} processes failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines: Vec<String> =
        String::from_utf8(out.stdout).expect("utf-8 output").lines().map(String::from).collect();
    lines.sort();
    lines
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

#[test]
fn allsums() {
    for p in PROCS {
        let want = (1..=p).map(|y| format!("y={y} sums={}", y * (y + 1) / 2)).collect();
        assert_eq!(run("allsums", p), sorted(want), "p = {p}");
    }
}

#[test]
fn allsums_on_four_processes_prints_the_man_page_output() {
    assert_eq!(run("allsums", 4), ["y=1 sums=1", "y=2 sums=3", "y=3 sums=6", "y=4 sums=10"]);
}

/// Block `pid` of an array of length `4p` given by `f(global index)`.
fn blocks(p: usize, f: impl Fn(usize, usize) -> usize) -> Vec<String> {
    let n = 4 * p;
    (0..p).map(|pid| format!("pid {pid}: {:?}", (0..4).map(|i| f(pid * 4 + i, n)).collect::<Vec<_>>())).collect()
}

#[test]
fn put_array_inverts_the_permutation() {
    for p in PROCS {
        let want = blocks(p, |j, n| (j + n - 1) % n);
        assert_eq!(run("put_array", p), sorted(want), "p = {p}");
    }
}

#[test]
fn get_array_composes_the_permutation() {
    for p in PROCS {
        let want = blocks(p, |i, n| (i + 2) % n);
        assert_eq!(run("get_array", p), sorted(want), "p = {p}");
    }
}

#[test]
fn bsp_sum() {
    for p in PROCS {
        let total: usize = (1..=p).map(|q| q * q).sum();
        let want = (0..p).map(|pid| format!("pid {pid}: sum = {total}")).collect();
        assert_eq!(run("bsp_sum", p), sorted(want), "p = {p}");
    }
}

#[test]
fn cyclic_shift() {
    for p in PROCS {
        let want = (0..p)
            .map(|pid| {
                let left = 10 * ((pid + p - 1) % p);
                format!("pid {pid}: get = {left}, hpget = {left}")
            })
            .collect();
        assert_eq!(run("cyclic_shift", p), sorted(want), "p = {p}");
    }
}

#[test]
fn max() {
    for p in PROCS {
        assert_eq!(run("max", p), [format!("The maximum is {}", 5 * (p - 1))], "p = {p}");
    }
}

#[test]
fn push_reg() {
    for p in PROCS {
        let want = (0..p)
            .map(|pid| match (pid, p) {
                (0, _) => "pid 0: x=1 y=2".to_string(),
                (1, _) => "pid 1: x=2 y=4".to_string(),
                _ => format!("pid {pid}: x=3 y=4"),
            })
            .collect();
        assert_eq!(run("push_reg", p), sorted(want), "p = {p}");
    }
}

#[test]
fn bsmp_buckets() {
    let draws = |pid: usize| (0..20usize).map(move |k| (pid * 37 + k * 13 + k * k) % 100);
    for p in PROCS {
        let want = (0..p)
            .map(|pid| {
                let mut values = Vec::new();
                let mut senders = std::collections::BTreeSet::new();
                for src in 0..p {
                    for v in draws(src).filter(|v| v * p / 100 == pid) {
                        values.push(v);
                        senders.insert(src);
                    }
                }
                match (values.iter().min(), values.iter().max()) {
                    (Some(lo), Some(hi)) => {
                        format!("pid {pid}: {} values in [{lo}, {hi}] from {} processes", values.len(), senders.len())
                    }
                    _ => format!("pid {pid}: 0 values"),
                }
            })
            .collect();
        assert_eq!(run("bsmp_buckets", p), sorted(want), "p = {p}");
    }
}

#[test]
fn inner_product() {
    for p in PROCS {
        let want = (0..p).map(|pid| format!("pid {pid}: inner product = 999000 (sequential 999000)")).collect();
        assert_eq!(run("inner_product", p), sorted(want), "p = {p}");
    }
}

/// Runs `name` on `p` processes and returns its whole stdout (unsorted).
fn run_raw(name: &str, p: usize) -> String {
    run(name, p).join("\n")
}

#[test]
fn gp_graph_bfs_matches_the_sequential_bfs() {
    for p in PROCS {
        let out = run_raw("gp_graph", p);
        assert!(out.contains("levels match the sequential bfs"), "p = {p}:\n{out}");
        assert!(out.contains("2793 vertices reached"), "p = {p}:\n{out}");
    }
}

#[test]
fn gp_irregular_matches_the_sequential_computation() {
    for p in PROCS {
        let out = run_raw("gp_irregular", p);
        assert!(out.contains("match the sequential computation"), "p = {p}:\n{out}");
    }
}

// The five classic BSP programs. Each checks its own result and exits with status 1 if it is
// wrong (`run` fails the test then); process 0 prints one line that must not depend on p.

/// The classic programs run at these process counts (the FFT needs powers of two).
const CLASSIC_PROCS: [usize; 3] = [1, 2, 4];

/// Runs `name` with `args` on `p` processes; returns its stdout and its exit status.
fn run_with_args(name: &str, p: usize, args: &[&str]) -> (String, std::process::ExitStatus, String) {
    let out = Command::new(example(name))
        .args(args)
        .env("BSP_NPROCS", p.to_string())
        .output()
        .unwrap_or_else(|e| panic!("cannot run example `{name}` ({}): {e}", example(name).display()));
    (
        String::from_utf8(out.stdout).expect("utf-8 output"),
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `name` with `args` at every p of `CLASSIC_PROCS`; checks that each run succeeds and
/// prints the same single line, and returns that line.
fn classic(name: &str, args: &[&str]) -> String {
    let mut first: Option<String> = None;
    for p in CLASSIC_PROCS {
        let (out, status, err) = run_with_args(name, p, args);
        assert!(status.success(), "example `{name}` {args:?} on {p} processes failed: {status}\n{err}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 1, "`{name}` {args:?} on {p} processes: one line expected from process 0:\n{out}");
        match &first {
            None => first = Some(lines[0].to_string()),
            Some(line) => assert_eq!(lines[0], line, "`{name}` {args:?}: the output differs between p = 1 and p = {p}"),
        }
    }
    first.expect("at least one process count")
}

#[test]
fn inprod_matches_the_closed_form() {
    for (args, n) in [(vec![], 100_000u128), (vec!["1001"], 1001)] {
        let closed_form = n * (n + 1) * (n + 2) / 6;
        let want = format!("inprod ok, n = {n}, x·y = {closed_form} (closed form), relative error < 1e-12");
        assert_eq!(classic("inprod", &args), want);
    }
}

#[test]
fn fft_inverts_and_keeps_the_energy() {
    assert_eq!(classic("fft", &[]), "fft ok, n = 4096, inverse error < 1e-12, parseval error < 1e-12");
    assert_eq!(classic("fft", &["16"]), "fft ok, n = 16, inverse error < 1e-12, parseval error < 1e-12");
}

#[test]
fn fft_refuses_a_process_count_that_is_not_a_power_of_two() {
    let (out, status, err) = run_with_args("fft", 3, &[]);
    assert!(!status.success() && out.is_empty(), "fft on 3 processes should fail:\n{out}");
    assert!(err.contains("must be powers of two with p² ≤ n"), "{err}");
}

#[test]
fn lu_factors_the_permuted_matrix() {
    assert_eq!(classic("lu", &[]), "lu ok, n = 64, max |PA - LU| / max |A| < 1e-12");
    // An order that no p > 1 divides, and a matrix smaller than the process count.
    assert_eq!(classic("lu", &["37"]), "lu ok, n = 37, max |PA - LU| / max |A| < 1e-12");
    assert_eq!(classic("lu", &["3"]), "lu ok, n = 3, max |PA - LU| / max |A| < 1e-12");
}

#[test]
fn sample_sort_sorts_and_keeps_every_key() {
    for (args, n) in [(vec![], 100_000), (vec!["1003"], 1003), (vec!["2"], 2), (vec!["0"], 0)] {
        let line = classic("sample_sort", &args);
        let want = format!("sort ok, n = {n}, sorted, count and checksum ");
        assert!(line.starts_with(&want) && line.ends_with(" match the input"), "{line}");
    }
}

#[test]
fn matvec_matches_the_sequential_products() {
    for (args, n) in [(vec![], 10_000), (vec!["101"], 101)] {
        let want = format!(
            "matvec ok, n = {n}, {} nonzeros, 10 products, max error against the sequential products < 1e-12",
            8 * n
        );
        assert_eq!(classic("matvec", &args), want);
    }
}

/// Element (i, j) of `book_lu`'s matrix, as the example makes it.
fn book_lu_element(n: usize, i: usize, j: usize) -> f64 {
    let mut x = (i * n + j) as u64 ^ 0x9e37_79b9_7f4a_7c15;
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    (x >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

/// The pivots of LU with partial pivoting (the first largest |a_ik|), sequentially.
fn lu_pivots(n: usize) -> Vec<usize> {
    let mut a: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| book_lu_element(n, i, j)).collect()).collect();
    let mut pivots = Vec::new();
    for k in 0..n {
        let r = (k..n).fold(k, |r, i| if a[i][k].abs() > a[r][k].abs() { i } else { r });
        pivots.push(r);
        a.swap(k, r);
        let (top, below) = a.split_at_mut(k + 1);
        let pivot_row = &top[k];
        for row in below {
            let l = row[k] / pivot_row[k];
            for (x, u) in row[k + 1..].iter_mut().zip(&pivot_row[k + 1..]) {
                *x -= l * u;
            }
            row[k] = l;
        }
    }
    pivots
}

#[test]
fn book_lu_factors_the_permuted_matrix_with_the_sequential_pivots() {
    // The default order; one that no p > 1 divides; orders below the number of processor
    // columns (some processes hold no column).
    for (args, n) in [(vec![], 40), (vec!["37"], 37), (vec!["3"], 3), (vec!["1"], 1)] {
        let pivots = lu_pivots(n);
        let checksum =
            pivots.iter().enumerate().fold(0u64, |h, (k, &r)| h.wrapping_mul(31).wrapping_add((k ^ r) as u64));
        let want = format!(
            "book_lu ok, n = {n}, first pivots {:?}, pivot checksum {checksum}, max |PA - LU| / max |A| < 1e-10",
            &pivots[..n.min(8)]
        );
        book("book_lu", &args, &PROCS, n, &want);
    }
}

/// The nonzeros of row i of `book_bspmv`'s matrix, as the example makes them.
fn bspmv_row(n: usize, i: usize) -> Vec<(usize, f64)> {
    let hash = |mut x: u64| {
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    };
    let mut row = vec![(i, 8.0)];
    for k in 1..=6u64 {
        let h = hash(((i as u64) << 8) + k);
        row.push(((h >> 8) as usize % n, [-3.0, -2.0, -1.0, 1.0, 2.0, 3.0][(h & 0xff) as usize % 6]));
    }
    row
}

#[test]
fn book_bspmv_matches_the_sequential_product() {
    for (args, n) in [(vec![], 1000), (vec!["101"], 101), (vec!["2"], 2)] {
        let u: Vec<f64> = (0..n).map(|i| bspmv_row(n, i).iter().map(|&(j, a)| a * (1 + j % 5) as f64).sum()).collect();
        let sum: f64 = u.iter().sum();
        let checksum: f64 = u.iter().enumerate().map(|(i, x)| x * (1 + i % 7) as f64).sum();
        let want =
            format!("book_bspmv ok, n = {n}, {} nonzeros, 20 products, sum of u = {sum}, checksum {checksum}", 7 * n);
        book("book_bspmv", &args, &PROCS, n, &want);
    }
}

/// Runs `name` on `p` processes with `input` on its standard input; returns stdout, status, stderr.
fn run_with_input(name: &str, p: usize, input: &str) -> (String, std::process::ExitStatus, String) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(example(name))
        .env("BSP_NPROCS", p.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run example `{name}` ({}): {e}", example(name).display()));
    child.stdin.take().expect("piped stdin").write_all(input.as_bytes()).expect("write stdin");
    let out = child.wait_with_output().expect("wait for the example");
    (
        String::from_utf8(out.stdout).expect("utf-8 output"),
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The lines `examples/prologue.rs` prints on `p` processes for the vector length `n`, sorted.
fn prologue_lines(p: usize, n: u64) -> Vec<String> {
    let mut want: Vec<String> = (0..p).map(|pid| format!("pid {pid}: n = {n}")).collect();
    want.push(format!("x·y = {} for n = {n} (matches the closed form)", n * (n + 1) * (n + 2) / 6));
    sorted(want)
}

#[test]
fn prologue_hands_the_input_read_on_process_0_to_every_process() {
    for p in PROCS {
        // No input (standard input closed): the default length.
        assert_eq!(run("prologue", p), prologue_lines(p, 1000), "p = {p}");
        let (out, status, err) = run_with_input("prologue", p, "5000\n");
        assert!(status.success(), "p = {p}: {status}\n{err}");
        assert_eq!(sorted(out.lines().map(String::from).collect()), prologue_lines(p, 5000), "p = {p}");
    }
}

#[test]
fn prologue_rejects_bad_input_naming_it() {
    for input in ["x\n", "0", "12 13"] {
        let (out, status, err) = run_with_input("prologue", 3, input);
        assert_eq!(status.code(), Some(1), "{input:?}: {out}\n{err}");
        assert!(out.is_empty(), "{input:?}: nothing runs past the prologue: {out}");
        let found = format!("{:?}", input.trim());
        assert!(
            err.contains(&format!(
                "process 0 failed: standard input: expected the vector length n, a positive integer; found {found}"
            )),
            "{input:?}: {err}"
        );
    }
}

/// The samples of the example's own docs are a real run.
#[test]
fn prologue_prints_the_sample_of_its_docs() {
    let (out, status, err) = run_with_input("prologue", 2, "5000\n");
    assert!(status.success(), "{err}");
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/prologue.rs")).unwrap();
    let sample: Vec<String> = doc
        .split("//! ```text\n")
        .nth(2)
        .expect("the second text block of examples/prologue.rs is the sample output")
        .lines()
        .take_while(|l| *l != "//! ```")
        .map(|l| l.trim_start_matches("//! ").to_string())
        .collect();
    assert_eq!(sorted(out.lines().map(String::from).collect()), sorted(sample));
}

/// A bad value of a `BSP_*` variable stops the program before it starts, naming the variable.
#[test]
fn bad_environment_variables_are_named() {
    let cases = [
        ("BSP_STATS", "bogus", "BSP_STATS=\"bogus\" is not one of `counts`, `timed`, `1`, `off`, `0`"),
        (
            "BSP_NPROCS",
            "0",
            "BSP_NPROCS=\"0\": cannot run an SPMD program on 0 processes (expected a positive integer)",
        ),
        ("BSP_NPROCS", "many", "BSP_NPROCS=\"many\" is not a number of processes (expected a positive integer)"),
        ("BSP_TRACE_SUMMARY", "yes", "BSP_TRACE_SUMMARY=\"yes\" is not one of `1`, `0`"),
        ("BSP_PIN", "off", "BSP_PIN=\"off\" is not one of `1`, `0`"),
    ];
    for (name, value, want) in cases {
        let mut cmd = Command::new(example("inner_product"));
        cmd.env("BSP_NPROCS", "2").env(name, value);
        let out = cmd.output().expect("run inner_product");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}={value}: {err}");
        assert!(out.stdout.is_empty(), "{name}={value}: the program ran");
        assert!(err.contains(want), "{name}={value}: {err}");
    }
}

// The book versions of the classic programs (`examples/book_*.rs`). Each checks its own result
// and exits with status 1 if it is wrong; process 0 prints one line on stdout that must not
// depend on p, and its time on stderr.

/// Runs the book example `name` with `args` at each p of `procs`; checks that each run succeeds,
/// prints `want` alone on stdout, and reports its time on stderr as
/// `<name>: n=<n> p=<p> time <seconds> s`.
fn book(name: &str, args: &[&str], procs: &[usize], n: usize, want: &str) {
    for &p in procs {
        let (out, status, err) = run_with_args(name, p, args);
        assert!(status.success(), "example `{name}` {args:?} on {p} processes failed: {status}\n{err}");
        assert_eq!(out, format!("{want}\n"), "`{name}` {args:?} on {p} processes");
        let prefix = format!("{name}: n={n} p={p} time ");
        let time = err.lines().find_map(|l| l.strip_prefix(&prefix)?.strip_suffix(" s")?.parse::<f64>().ok());
        assert!(time.is_some_and(|t| t >= 0.0), "`{name}` on {p} processes: no `{prefix}<seconds> s` line:\n{err}");
    }
}

#[test]
fn book_inprod_gives_the_exact_sum() {
    book("book_inprod", &[], &PROCS, 100_000, "book_inprod ok, n = 100000, x·x = 9350000 (exact)");
    // n not a multiple of 16 nor of p; fewer elements than processes.
    book("book_inprod", &["1001"], &PROCS, 1001, "book_inprod ok, n = 1001, x·x = 93037 (exact)");
    book("book_inprod", &["5"], &PROCS, 5, "book_inprod ok, n = 5, x·x = 55 (exact)");
}

#[test]
fn book_fft_inverts_and_matches_direct_sums() {
    let line = |n: usize| {
        format!("book_fft ok, n = {n}, inverse error < 1e-12, parseval error < 1e-12, X_k matches its direct sum")
    };
    const POWERS: [usize; 4] = [1, 2, 4, 8];
    book("book_fft", &[], &POWERS, 4096, &line(4096));
    // p² > n: several redistributions (three at p = 8, n = 16).
    book("book_fft", &["16"], &POWERS, 16, &line(16));
    book("book_fft", &["32"], &POWERS, 32, &line(32));
}

#[test]
fn book_fft_refuses_a_process_count_that_is_not_a_power_of_two() {
    for (p, args) in [(3, vec![]), (8, vec!["8"]), (2, vec!["100"])] {
        let (out, status, err) = run_with_args("book_fft", p, &args);
        assert_eq!(status.code(), Some(1), "book_fft {args:?} on {p} processes should fail:\n{out}");
        assert!(out.is_empty(), "{out}");
        let n = args.first().copied().unwrap_or("4096");
        let want = format!("book_fft: n = {n} and p = {p} must be powers of two with 2p ≤ n");
        assert!(err.contains(&want), "{err}");
    }
}

#[test]
fn book_sort_sorts_and_keeps_every_key() {
    for (args, n) in [(vec![], 100_000), (vec!["1003"], 1003), (vec!["2"], 2), (vec!["0"], 0)] {
        let (out, ..) = run_with_args("book_sort", 1, &args);
        let line = out.trim_end();
        let want = format!("book_sort ok, n = {n}, sorted, a permutation of the input (checksums 0x");
        assert!(line.starts_with(&want), "{line}");
        book("book_sort", &args, &PROCS, n, line);
    }
}

/// The book's sort and LU take P and n from the standard input, as BSPedupack's programs do
/// (`#[bsp::program(set_up = ..)]`): the input's P wins over `BSP_NPROCS` (2 here), and the sort
/// lowers it until P·P ≤ n, saying so. Bad input stops the run with the set-up's message.
#[test]
fn book_programs_read_the_number_of_processes_from_the_input() {
    for (asked, n, runs) in [(3, 1000, 3), (4, 1000, 4), (4, 10, 3), (1, 5, 1), (5, 4, 2)] {
        let (out, status, err) = run_with_input("book_sort", 2, &format!("{asked} {n}\n"));
        assert!(status.success(), "book_sort with input `{asked} {n}` failed: {status}\n{err}");
        let want = format!("book_sort ok, n = {n}, sorted, a permutation of the input (checksums 0x");
        assert!(out.starts_with(&want), "input `{asked} {n}`: {out}");
        assert!(err.contains(&format!("book_sort: n={n} p={runs} time ")), "input `{asked} {n}`: {err}");
        let lowered = format!("book_sort: sorting {n} keys needs p·p ≤ n: using {runs} processes, not {asked}");
        assert_eq!(err.contains(&lowered), runs < asked, "input `{asked} {n}`: {err}");
    }
    let (by_argument, ..) = run_with_args("book_lu", 1, &["37"]);
    for asked in [3, 4] {
        let (out, status, err) = run_with_input("book_lu", 2, &format!("{asked}\n37\n"));
        assert!(status.success(), "book_lu with input `{asked} 37` failed: {status}\n{err}");
        assert_eq!(out, by_argument, "book_lu on {asked} processes from the input");
        assert!(err.contains(&format!("book_lu: n=37 p={asked} time ")), "{err}");
    }
    let (_, status, err) = run_with_input("book_sort", 2, "many 10\n");
    assert_eq!(status.code(), Some(1), "{err}");
    let want =
        "error: process 0 failed: book_sort: expected a number of processes, an integer of at least 1; found `many`";
    assert!(err.lines().any(|l| l == want), "{err}");
}

#[test]
fn checkpoint_runs_its_rounds_and_matches_the_sequential_computation() {
    for p in PROCS {
        let lines = run("checkpoint", p);
        assert_eq!(lines.len(), p, "p = {p}: {lines:?}");
        for (q, line) in lines.iter().enumerate() {
            assert!(
                line.starts_with(&format!("pid {q}: checksum "))
                    && line.ends_with(" (matches the sequential iterations)"),
                "p = {p}: {line}"
            );
        }
    }
}

/// bspbench will not save a fit that did not settle (one round cannot: nothing to compare it
/// with), says why, and saves it with `--force`.
#[test]
fn bspbench_refuses_to_save_a_fit_that_did_not_settle() {
    let dir = std::env::temp_dir().join(format!("bsp-bspbench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("machine.json");
    let path_arg = path.to_str().unwrap();
    let quick =
        ["-p", "2", "--maxh", "4", "--maxn", "8", "--niters", "2", "--rounds", "1", "--quiet", "--json", path_arg];
    let (out, status, err) = run_with_args("bspbench", 2, &quick);
    assert_eq!(status.code(), Some(1), "{out}{err}");
    assert_eq!(out, "");
    // Why: a poor line (R² below 0.9, likely with these few iterations), else no settling.
    let why = err
        .lines()
        .find_map(|l| l.strip_prefix(&format!("error: not writing {path_arg}: ")))
        .and_then(|l| l.strip_suffix("; measure again on an idle machine (or with a larger --niters or --maxh), or write it anyway with --force"))
        .unwrap_or_else(|| panic!("no refusal in: {err}"));
    assert!(
        why == "the fit did not settle in 1 rounds (g moved by more than 5% from round to round)"
            || (why.starts_with("the fit of T(h) = g·h + l is poor (R^2 = ")
                && why.ends_with(", below 0.9): the times are not a line in h, and g and l say more about other work on the machine than about the machine")),
        "{why}"
    );
    assert_eq!(err.lines().next(), Some(format!("warning: {why}").as_str()));
    assert!(!path.exists());
    let forced: Vec<&str> = quick.iter().copied().chain(["--force"]).collect();
    let (out, status, _) = run_with_args("bspbench", 2, &forced);
    assert!(status.success(), "{out}");
    assert!(out.starts_with(&format!("wrote {path_arg}: p= 2, ")), "{out}");
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(saved.contains("\"rounds\":1,\"stable\":false"), "{saved}");
    std::fs::remove_dir_all(&dir).unwrap();
}
