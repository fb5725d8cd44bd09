//! Hung runs report where each process is (`BSP_WATCHDOG`, SIGINT, SIGTERM) and exit non-zero.
//!
//! Each case runs `hung_program` (ignored, so that a plain `cargo test` does not start it) in a
//! child process of this test binary with `HANG_SHAPE=<shape>`, and checks what it printed and
//! how it ended. The shapes are the ways a BSP program hangs: a process that never reaches the
//! sync, a user lock held across a sync, a collective that one process does not reach, a run
//! stopped by the user; and the trace and summary a hung run writes as far as they go.

use std::process::{Command, Output, Stdio};
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};

use bsp_runtime::Ctx;

/// The line of each call the reports must name (checked against this file by `line_of`).
const SYNC_LINE: &str = "ctx.sync(); // the sync that waits";
const LOCKED_SYNC_LINE: &str = "ctx.sync(); // the sync that waits, holding the lock";
const COLLECTIVE_LINE: &str = "ctx.allreduce_one(1u32, |a, b| a + b); // the collective that waits";

/// Spins until the watchdog ends the program (a loop with no runtime call).
fn spin_forever() -> ! {
    loop {
        std::hint::spin_loop();
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn never_syncs(ctx: &mut Ctx) {
    if ctx.pid() == 1 {
        spin_forever();
    }
    ctx.sync(); // the sync that waits
}

fn hangs_after_three_supersteps(ctx: &mut Ctx) {
    for _ in 0..3 {
        ctx.sync();
    }
    never_syncs(ctx);
}

fn user_lock_across_a_sync(ctx: &mut Ctx) {
    static LOCK: Mutex<()> = Mutex::new(());
    static BOTH: Barrier = Barrier::new(2);
    if ctx.pid() == 0 {
        let _held = LOCK.lock().unwrap();
        BOTH.wait();
        ctx.sync(); // the sync that waits, holding the lock
    } else {
        BOTH.wait();
        let _blocked = LOCK.lock().unwrap();
        ctx.sync();
    }
}

fn a_collective_one_process_does_not_reach(ctx: &mut Ctx) {
    if ctx.pid() == 1 {
        spin_forever();
    }
    ctx.allreduce_one(1u32, |a, b| a + b); // the collective that waits
}

/// The program of every case, chosen by `HANG_SHAPE`.
#[test]
#[ignore = "a child process of the cases below"]
fn hung_program() {
    let shape = std::env::var("HANG_SHAPE").expect("HANG_SHAPE names the shape");
    let body: fn(&mut Ctx) = match shape.as_str() {
        "never_syncs" | "signal" => never_syncs,
        "user_lock" => user_lock_across_a_sync,
        "collective" => a_collective_one_process_does_not_reach,
        "after_three" => hangs_after_three_supersteps,
        other => panic!("unknown shape {other}"),
    };
    let _ = bsp_runtime::run(2, body);
    unreachable!("the run ends the program");
}

/// Runs `hung_program` with `shape` and `vars`; after `signal_after` (if given) sends it
/// `signal`. Returns its output, and how long it ran.
fn run_hung(shape: &str, vars: &[(&str, &str)], signal: Option<(&str, Duration)>) -> (Output, Duration) {
    let mut cmd = Command::new(std::env::current_exe().expect("the test binary"));
    cmd.args(["--exact", "hung_program", "--ignored", "--nocapture", "--test-threads=1"]);
    cmd.env("HANG_SHAPE", shape).env("BSP_PIN", "0").env("RUST_BACKTRACE", "0").env_remove("BSP_WATCHDOG");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let start = Instant::now();
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the test binary starts");
    if let Some((name, after)) = signal {
        std::thread::sleep(after);
        let sent = Command::new("kill").args([&format!("-{name}"), &child.id().to_string()]).status();
        assert!(sent.is_ok_and(|s| s.success()), "kill -{name} failed");
    }
    // A guard, not a measurement: a report that never comes fails here instead of hanging.
    let guard = Duration::from_secs(60);
    loop {
        if child.try_wait().expect("waiting for the child").is_some() {
            break;
        }
        if start.elapsed() > guard {
            let _ = child.kill();
            panic!("`{shape}` still runs after {guard:?}: the hang was not reported");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("the child's output");
    (out, start.elapsed())
}

/// `file:line:` of the line of this file that contains `code`.
fn line_of(code: &str) -> String {
    let src = include_str!("hangs.rs");
    let n = src.lines().position(|l| l.trim_start().starts_with(code)).expect("the line is in this file");
    format!("{}:{}:", file!(), n + 1)
}

/// The report's line about `process`, whole.
fn line_about(stderr: &str, process: usize) -> &str {
    let head = format!("  process {process}: ");
    stderr
        .lines()
        .find(|l| l.starts_with(&head))
        .unwrap_or_else(|| panic!("no line about process {process}:\n{stderr}"))
}

#[test]
fn a_process_that_never_syncs_is_named_by_the_watchdog() {
    let (out, took) = run_hung("never_syncs", &[("BSP_WATCHDOG", "1")], None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error: no process has finished a sync for 1.0 s (BSP_WATCHDOG=1); where each process is:"),
        "{stderr}"
    );
    let waiting = line_about(&stderr, 0);
    assert!(waiting.starts_with(&format!("  process 0: waiting in `sync` at {}", line_of(SYNC_LINE))), "{stderr}");
    assert!(waiting.contains("(superstep 0, for ") && waiting.ends_with(" s), for process 1"), "{stderr}");
    assert!(line_about(&stderr, 1).starts_with("  process 1: computing in superstep 0 for "), "{stderr}");
    eprintln!("reported after {took:?} (watchdog 1 s)");
}

#[test]
fn a_user_lock_held_across_a_sync_is_named_by_the_watchdog() {
    let (out, took) = run_hung("user_lock", &[("BSP_WATCHDOG", "1")], None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let waiting = line_about(&stderr, 0);
    assert!(
        waiting.starts_with(&format!("  process 0: waiting in `sync` at {}", line_of(LOCKED_SYNC_LINE))),
        "{stderr}"
    );
    assert!(waiting.ends_with(", for process 1"), "{stderr}");
    assert!(line_about(&stderr, 1).starts_with("  process 1: computing in superstep 0 for "), "{stderr}");
    eprintln!("reported after {took:?} (watchdog 1 s)");
}

#[test]
fn a_collective_one_process_does_not_reach_is_named_by_the_watchdog() {
    let (out, took) = run_hung("collective", &[("BSP_WATCHDOG", "0.5")], None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let waiting = line_about(&stderr, 0);
    assert!(
        waiting.starts_with(&format!("  process 0: waiting in a collective at {}", line_of(COLLECTIVE_LINE))),
        "{stderr}"
    );
    assert!(waiting.ends_with(", for process 1"), "{stderr}");
    eprintln!("reported after {took:?} (watchdog 0.5 s)");
}

#[test]
fn a_hung_run_writes_its_trace_and_summary_as_far_as_they_go() {
    let dir = std::env::temp_dir().join(format!("bsp-hang-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("hung.json");
    let path = trace.to_str().unwrap();
    let (out, _) =
        run_hung("after_three", &[("BSP_WATCHDOG", "0.5"), ("BSP_TRACE", path), ("BSP_TRACE_SUMMARY", "1")], None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(line_about(&stderr, 1).starts_with("  process 1: computing in superstep 3 for "), "{stderr}");
    assert!(stderr.contains(&format!("  (the trace of the supersteps so far is in {path})")), "{stderr}");
    let json = std::fs::read_to_string(&trace).expect("the trace was written");
    assert!(json.starts_with("{\"displayTimeUnit\":\"ns\",\"traceEvents\":["), "{json}");
    for q in 0..2 {
        assert!(json.contains(&format!("\"args\":{{\"name\":\"bsp process {q}\"}}")), "process {q}: {json}");
    }
    assert_eq!(json.matches("\"name\":\"superstep ").count() / 2, 3, "three supersteps of each process: {json}");
    assert!(dir.join("hung.svg").is_file(), "the timeline beside the trace");
    assert!(stderr.contains("bsp: 3 supersteps on 2 processes"), "the summary table: {stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigint_and_sigterm_print_where_each_process_is() {
    for (signal, status) in [("INT", 130), ("TERM", 143)] {
        let (out, took) = run_hung("signal", &[], Some((signal, Duration::from_millis(700))));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{stderr}");
        assert!(stderr.contains(&format!("bsp: SIG{signal} received; where each process was:")), "{stderr}");
        assert!(line_about(&stderr, 0).starts_with("  process 0: waiting in `sync` at "), "{stderr}");
        // Without the watchdog the monitor was not watching: no durations.
        assert_eq!(line_about(&stderr, 1), "  process 1: computing in superstep 0", "{stderr}");
        eprintln!("SIG{signal}: ended {:?} after the signal", took.saturating_sub(Duration::from_millis(700)));
    }
}

#[test]
fn a_run_that_finishes_is_not_reported() {
    let out = Command::new(std::env::current_exe().expect("the test binary"))
        .args(["--exact", "finishing_program", "--ignored", "--nocapture", "--test-threads=1"])
        .env("BSP_WATCHDOG", "0.2")
        .output()
        .expect("the test binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("where each process"), "{stderr}");
}

/// Supersteps that each take longer than nothing but far less than the watchdog, for longer in
/// all than the watchdog: progress keeps it quiet.
#[test]
#[ignore = "a child process of a_run_that_finishes_is_not_reported"]
fn finishing_program() {
    bsp_runtime::run(2, |ctx| {
        for _ in 0..10 {
            std::thread::sleep(Duration::from_millis(50));
            ctx.sync();
        }
    })
    .unwrap();
}
