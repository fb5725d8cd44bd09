//! The `BSP_*` variables are checked at every launch, even one whose process count the code
//! gives (`bsp::run(2, f)`, `#[bsp::program(procs = 2)]`), where `BSP_NPROCS` is not read.
//!
//! The environment is the process's, shared by the tests of a binary: each case runs this test
//! binary again, alone, with the variable set (`BSP_ENV_CASE` tells the child what to do).

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

const CHILD: &str = "BSP_ENV_CASE";

/// In the child: launches with an explicit count and prints the error. In the parent: runs the
/// child with `name=value` and returns what it printed.
fn launch_with(name: &str, value: &str) -> String {
    let out = Command::new(std::env::current_exe().expect("test binary"))
        .args(["explicit_count_still_checks_the_environment", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env_remove("BSP_NPROCS")
        .env(name, value)
        .output()
        .expect("run the test binary");
    assert!(out.status.success(), "{name}={value}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn explicit_count_still_checks_the_environment() {
    if std::env::var_os(CHILD).is_some() {
        let ran = AtomicUsize::new(0);
        let result = bsp::run(2, |_| ran.fetch_add(1, Ordering::Relaxed));
        let ran = ran.load(Ordering::Relaxed);
        match result {
            Ok(_) => println!("result: ran on {ran} processes"),
            Err(e) => println!("result: {:?} error: {e} (ran on {ran} processes)", e.kind()),
        }
        return;
    }
    let out = launch_with("BSP_STATS", "bogus");
    assert!(
        out.contains("result: Launch error: BSP_STATS=\"bogus\" is not one of `counts`, `timed`, `1`, `off`, `0` (ran on 0 processes)"),
        "{out}"
    );
    let out = launch_with("BSP_PIN", "yes");
    assert!(out.contains("result: Launch error: BSP_PIN=\"yes\" is not one of `1`, `0` (ran on 0 processes)"), "{out}");
    // BSP_NPROCS is not read when the code gives the count: a bad one does not matter.
    let out = launch_with("BSP_NPROCS", "0");
    assert!(out.contains("result: ran on 2 processes"), "{out}");
    let out = launch_with("BSP_STATS", "timed");
    assert!(out.contains("result: ran on 2 processes"), "{out}");
}
