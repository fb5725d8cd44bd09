//! The threads runner of the suite: every run of a test on the threads engine goes through the
//! one hang guard here ([`within`]), and a check or failure case of the tables
//! (`check.rs`) is run at each of its process counts by [`run_check`] and [`run_case`] (the
//! `#[test]`s that `checks!` and `cases!` generate call them). The MPI binary (`mpi.rs`) has
//! its own launcher, with a time limit per job.

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use bsp_runtime::{Ctx, Error};

use crate::check::{Case, Check, Failure, Probe};

/// How long any one run may take before the test calls it a hang: 20 s, times
/// `SUITE_SLOWDOWN` where a tool slows every instruction down (`scripts/tsan` sets it: an
/// 8 MiB transfer checked byte by byte by ThreadSanitizer on a busy machine takes longer).
pub fn limit() -> Duration {
    let slowdown = std::env::var("SUITE_SLOWDOWN").ok().and_then(|v| v.parse::<u32>().ok()).unwrap_or(1);
    Duration::from_secs(20) * slowdown.max(1)
}

/// Runs `f` on a thread of its own and returns its result; fails the test if `f` takes longer
/// than [`limit`] (the thread is then left behind, so a hang never blocks the suite), and
/// re-raises `f`'s panic if it panicked.
pub fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    within_for(limit(), what, f)
}

/// [`within`], with a limit of its own (long stress runs).
pub fn within_for<T: Send + 'static>(limit: Duration, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    try_within(limit, what, f).unwrap_or_else(|hang| panic!("{hang}"))
}

/// The hang guard: runs `f` on a thread of its own and returns its result, or `Err` saying that
/// it hangs if it takes longer than `limit` (the thread is then left behind, so a hang never
/// blocks the suite); re-raises `f`'s panic if it panicked. Under Miri, whose clock runs far
/// slower than these limits assume, `f` runs unguarded.
pub fn try_within<T: Send + 'static>(
    limit: Duration,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    if cfg!(miri) {
        return Ok(f());
    }
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::Builder::new()
        .name(what.to_string())
        .spawn(move || {
            // The receiver is gone only if the test already failed on a timeout.
            let _ = tx.send(f());
        })
        .expect("failed to start the test thread");
    match rx.recv_timeout(limit) {
        Ok(v) => {
            handle.join().expect("the test thread finished");
            Ok(v)
        }
        Err(RecvTimeoutError::Timeout) => Err(format!("{what}: still running after {limit:?}: the runtime hangs")),
        Err(RecvTimeoutError::Disconnected) => match handle.join() {
            Err(payload) => std::panic::resume_unwind(payload),
            Ok(()) => unreachable!("the thread ended without sending its result"),
        },
    }
}

/// Runs `f` on `p` processes (guarded by [`within`]) and returns the results; fails the test
/// with the run's error if the run fails.
#[track_caller]
pub fn run_ok<R, F>(p: usize, f: F) -> Vec<R>
where
    R: Send + 'static,
    F: Fn(&mut Ctx) -> R + Sync + Send + 'static,
{
    let what = format!("run on {p} processes");
    match within(&what, move || bsp_runtime::run(p, f)) {
        Ok(v) => v,
        Err(e) => panic!("{what} failed: {e}"),
    }
}

/// Runs `f` on `p` processes (guarded by [`within`]) and returns the error the run must end
/// with; fails the test if the run succeeds.
#[track_caller]
pub fn run_err<R, F>(p: usize, f: F) -> Error
where
    R: Send + 'static,
    F: Fn(&mut Ctx) -> R + Sync + Send + 'static,
{
    let what = format!("run on {p} processes");
    match within(&what, move || bsp_runtime::run(p, f)) {
        Ok(_) => panic!("{what} succeeded, but it should have failed"),
        Err(e) => e,
    }
}

/// Asserts that the error's `Display` contains every one of `parts`: the tables' own
/// [`Failure::mentions`], for the tests that run on threads only.
#[track_caller]
pub fn assert_mentions(err: &Error, parts: &[&str]) {
    if let Err(why) = Failure::parse(0, &err.to_string()).mentions(parts) {
        panic!("{why}");
    }
}

/// The layouts of the in-process groups (groups, threads each) that every check runs on (those
/// its process counts allow, as on MPI), as the hybrid engine runs `mpirun -n R` with
/// `BSP_THREADS=T`, without MPI.
pub const LAYOUTS: &[(usize, usize)] = &[(2, 1), (2, 2), (3, 2)];

/// Runs `f` on `p` processes in `groups` in-process groups (guarded by [`within`]).
fn run_in_groups<R, F>(p: usize, groups: usize, f: F) -> Result<Vec<R>, Error>
where
    R: Send + 'static,
    F: Fn(&mut Ctx) -> R + Sync + Send + 'static,
{
    let what = format!("run on {p} processes in {groups} in-process groups");
    within(&what, move || bsp_runtime::Launch::new().procs(p).in_process_groups(groups).run(f))
}

/// [`run_check`] on each layout of [`LAYOUTS`] whose process count the check allows.
pub fn run_check_in_groups(check: &'static Check) {
    for &(groups, t) in LAYOUTS.iter().filter(|&&(r, t)| check.procs.on_mpi(r * t)) {
        let p = groups * t;
        let outcomes = run_in_groups(p, groups, check.run)
            .unwrap_or_else(|e| panic!("{} on {groups} groups of {t}: the run failed: {e}", check.name));
        let failed: Vec<String> = outcomes
            .iter()
            .enumerate()
            .filter_map(|(pid, o)| o.as_ref().err().map(|why| format!("  process {pid}: {why}")))
            .collect();
        assert!(failed.is_empty(), "{} on {groups} groups of {t}:\n{}", check.name, failed.join("\n"));
    }
}

/// Runs a check of the suite (`suite/check.rs`) at each of its process counts on threads and
/// fails with every process's complaint if any process's outcome is `Err`.
pub fn run_check(check: &'static Check) {
    let name = check.name;
    for &p in check.procs.threads {
        let outcomes = run_ok(p, check.run);
        let failed: Vec<String> = outcomes
            .iter()
            .enumerate()
            .filter_map(|(pid, o)| o.as_ref().err().map(|why| format!("  process {pid}: {why}")))
            .collect();
        assert!(failed.is_empty(), "{name} on {p} processes:\n{}", failed.join("\n"));
    }
}

/// How long a failing run may take on threads (a failure must stop every process promptly).
pub const PROMPTLY: Duration = Duration::from_secs(5);

/// Runs a failure case of the suite at each of its process counts on threads: the run must
/// fail promptly, the case's judge must accept the error, and no process may reach a probe.
pub fn run_case(case: &'static Case) {
    for &p in case.ps {
        let probe = Arc::new(Probe::default());
        let seen = probe.clone();
        let start = Instant::now();
        let err = run_err(p, move |ctx| (case.run)(ctx, &seen));
        let elapsed = start.elapsed();
        let failure = Failure::parse(p, &err.to_string());
        // The parsed form agrees with the error's own accessors (MPI has only the text).
        assert_eq!((failure.pid, failure.abort, failure.message.as_str()), (err.pid(), err.is_abort(), err.message()));
        if let Err(why) = (case.judge)(&failure) {
            panic!("{} on {p} processes: {why}", case.name);
        }
        assert_eq!(probe.hits(), 0, "{} on {p} processes: a process got past the failing point: {err}", case.name);
        assert!(elapsed < PROMPTLY, "{} on {p} processes: the failure took {elapsed:?}", case.name);
    }
}

/// [`run_case`] on in-process groups: at each of the case's process counts of at least 2, as
/// two groups when it is even and one process per group otherwise (so the failure crosses
/// groups).
pub fn run_case_in_groups(case: &'static Case) {
    for &p in case.ps.iter().filter(|&&p| p >= 2) {
        let groups = if p % 2 == 0 { 2 } else { p };
        let probe = Arc::new(Probe::default());
        let seen = probe.clone();
        let start = Instant::now();
        let err = match run_in_groups(p, groups, move |ctx| (case.run)(ctx, &seen)) {
            Ok(_) => panic!("{} on {p} processes in {groups} groups succeeded, but it should have failed", case.name),
            Err(e) => e,
        };
        let elapsed = start.elapsed();
        let failure = Failure::parse(p, &err.to_string());
        if let Err(why) = (case.judge)(&failure) {
            panic!("{} on {p} processes in {groups} groups: {why}", case.name);
        }
        assert_eq!(
            probe.hits(),
            0,
            "{} on {p} processes in {groups} groups: a process got past the failing point: {err}",
            case.name
        );
        assert!(elapsed < PROMPTLY, "{} on {p} processes in {groups} groups: the failure took {elapsed:?}", case.name);
    }
}
