//! Helpers shared by the integration tests: never hang, and say what failed.

// Each test file uses its own subset of these helpers.
#![allow(dead_code)]

use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use bsp_runtime::{Ctx, Error};

/// The process counts most tests run at.
pub const PS: [usize; 5] = [1, 2, 3, 4, 8];

/// How long any one run may take before the test calls it a hang.
pub const LIMIT: Duration = Duration::from_secs(20);

/// Runs `f` on a thread of its own and returns its result; fails the test if `f` takes longer
/// than [`LIMIT`] (the thread is then left behind, so a hang never blocks the suite), and
/// re-raises `f`'s panic if it panicked.
pub fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::Builder::new()
        .name(what.to_string())
        .spawn(move || {
            // The receiver is gone only if the test already failed on a timeout.
            let _ = tx.send(f());
        })
        .expect("failed to start the test thread");
    match rx.recv_timeout(LIMIT) {
        Ok(v) => {
            handle.join().expect("the test thread finished");
            v
        }
        Err(RecvTimeoutError::Timeout) => panic!("{what}: still running after {LIMIT:?}: the runtime hangs"),
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

/// Asserts that the error's `Display` contains every one of `parts`.
#[track_caller]
pub fn assert_mentions(err: &Error, parts: &[&str]) {
    let text = err.to_string();
    for part in parts {
        assert!(text.contains(part), "the error should mention {part:?}, but it is:\n  {text}");
    }
}

/// The left and right neighbours of `pid` on a ring of `p` processes.
pub fn ring(pid: usize, p: usize) -> (usize, usize) {
    ((pid + p - 1) % p, (pid + 1) % p)
}
