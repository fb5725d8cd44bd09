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

/// In the child: two launches with an explicit count, then what `#[bsp::program]` does with the
/// outcome. In the parent: runs the child with `vars` set and returns its exit status and
/// standard error.
fn started_with(vars: &[(&str, &str)]) -> (i32, String) {
    let mut child = Command::new(std::env::current_exe().expect("test binary"));
    child
        .args(["started_wrong_says_so", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "2")
        .env_remove("BSP_NPROCS")
        .env_remove("BSP_THREADS");
    for (name, value) in vars {
        child.env(name, value);
    }
    let out = child.output().expect("run the test binary");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Mistakes in how a program is started: each said once, on standard error.
#[test]
fn started_wrong_says_so() {
    if std::env::var_os(CHILD).is_some_and(|c| c == "2") {
        let first = bsp::run(2, |ctx| ctx.pid());
        if first.is_ok() {
            bsp::run(2, |ctx| ctx.pid()).expect("a second run");
        }
        bsp::exit_on_error(first);
        return;
    }
    // A misspelt variable, and BSP_THREADS without mpirun: warned once per OS process, not at
    // each launch; the run goes on.
    let (status, err) = started_with(&[("BSP_NPROC", "4"), ("BSP_THREADS", "2")]);
    assert_eq!(status, 0, "{err}");
    assert_eq!(
        err,
        "warning: BSP_NPROC is not a variable bsp reads (it changes nothing): did you mean BSP_NPROCS?\n\
         warning: BSP_THREADS=\"2\" changes nothing in a program not started by mpirun (it sets the threads per MPI rank of the hybrid engine); BSP_NPROCS sets the number of processes\n"
    );
    // The rest pretends to be a rank that mpirun started (Open MPI's or MPICH's variables),
    // which a build with the `mpi` feature would take at its word and start MPI.
    #[cfg(not(feature = "mpi"))]
    {
        // Only rank 0 warns.
        let rank1 = [("OMPI_COMM_WORLD_SIZE", "1"), ("OMPI_COMM_WORLD_RANK", "1"), ("BSP_NPROC", "4")];
        assert_eq!(started_with(&rank1), (0, String::new()));
        // Built without the `mpi` feature but started by mpirun on two ranks: each rank would
        // run the whole program; rank 0 says so, rank 1 fails quietly.
        let ranks = |rank: &'static str| [("OMPI_COMM_WORLD_SIZE", "2"), ("OMPI_COMM_WORLD_RANK", rank)];
        assert_eq!(
            started_with(&ranks("0")),
            (
                1,
                "error: started by mpirun on 2 ranks, but this program was built without the cargo feature `mpi`: every rank would run the whole program alone; build it with `--features mpi` (or `bsp = { package = \"bsplib\", features = [\"mpi\"] }`), or run it without mpirun\n"
                    .to_string()
            )
        );
        assert_eq!(started_with(&ranks("1")), (1, String::new()));
        // With MPICH's variables too; and on one rank the program runs, as without mpirun.
        assert_eq!(started_with(&[("PMI_SIZE", "3"), ("PMI_RANK", "2")]), (1, String::new()));
        assert_eq!(started_with(&[("PMI_SIZE", "1"), ("PMI_RANK", "0")]), (0, String::new()));
        // An environment error is printed by rank 0 only.
        let bad =
            |rank: &'static str| [("OMPI_COMM_WORLD_SIZE", "1"), ("OMPI_COMM_WORLD_RANK", rank), ("BSP_PIN", "yes")];
        assert_eq!(started_with(&bad("0")), (1, "error: BSP_PIN=\"yes\" is not one of `1`, `0`\n".to_string()));
        assert_eq!(started_with(&bad("1")), (1, String::new()));
    }
}
