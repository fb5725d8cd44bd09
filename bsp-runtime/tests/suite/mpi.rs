//! The suite on the MPI engine, with MPI ranks as BSP processes: every check and failure case of
//! the tables (`main.rs` lists them; the same ones run on threads there), on the dense and the
//! sparse exchange and on the hybrid engine, plus the launch rules that only MPI has
//! (`mpi/launch.rs`).
//!
//! ```text
//! cargo test -p bsp-runtime --features mpi --test mpi      # needs Open MPI: scripts/setup-mpi
//! ```
//!
//! libtest's harness does not fit MPI: under `mpirun` every rank would run the whole harness, and
//! MPI can be started only once per OS process, so one process cannot do one SPMD run per test.
//! So this file is a plain program (`harness = false`) with three roles:
//!
//! - **launcher** (started by cargo, not by `mpirun`): starts this same executable with
//!   `mpirun -n N` for N in 1, 2 and 4, then once per failure case and process count, each with
//!   a time limit; reads what the ranks report, prints every failure and a closing line
//!   `N passed, M failed`, and exits non-zero if anything failed (`mpi/launcher.rs`);
//! - **ranks** (started by `mpirun`): ONE `Launch::run` over every rank runs all the checks in
//!   sequence (those whose process counts allow N ranks; the others are reported as skipped),
//!   with `reset` between two of them. A check makes all of its syncs first, then compares what
//!   this process saw with what it must see for its pid, so a failed comparison never leaves the
//!   processes out of step; a panic of a check outside a superstep is caught and reported as its
//!   failure. Every rank prints one line per check. A failure that the runtime detects stops the
//!   job instead; the launcher then names the checks that did not report;
//! - **failure cases** (`mpirun -n N <this> --case NAME`): a run that must fail, one job each
//!   since a failure ends the job; the launcher checks the exit status, the time, that no rank
//!   reached a probe, and hands the `error: ...` line of stderr to the case's judge.
//!
//! Environment: `BSP_MPI_RANKS` (default `1 2 4`), `BSP_MPI_TIMEOUT` (seconds per job, default
//! 120), `BSP_MPI_JOBS` (failure-case jobs at once, default 2), `BSP_MODEL_CASES` and `BSP_MODEL_SEED` (`suite/property.rs`). Open MPI settings for one
//! machine are added when unset (see `launcher::defaults`).

use std::io::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;

use bsp_runtime::{Launch, exit_on_error};

use check::{Case, Check, Probe, reset};

mod check;

mod bsmp;
mod collectives;
mod combine;
mod dest;
mod drma;
mod failures;
mod gp;
mod model;
mod property;
mod registration;
mod robustness;
mod same;
mod scoped;
mod spmd;
mod stats;
mod stress;
mod teams;

/// What only MPI has: its launcher, and its launch rules.
mod mpi {
    pub mod launch;
    pub mod launcher;
}

use crate::mpi::{launch, launcher};

/// Every check, in the order the ranks run them.
pub const CHECKS: &[&[Check]] = &[
    spmd::CHECKS,
    drma::CHECKS,
    combine::CHECKS,
    collectives::CHECKS,
    teams::CHECKS,
    registration::CHECKS,
    scoped::CHECKS,
    dest::CHECKS,
    bsmp::CHECKS,
    gp::CHECKS,
    property::CHECKS,
    stats::CHECKS,
    stress::CHECKS,
    robustness::CHECKS,
    same::CHECKS,
];

/// Every failure case of the suite.
pub const CASES: &[&[Case]] = &[
    failures::CASES,
    combine::CASES,
    collectives::CASES,
    teams::CASES,
    gp::CASES,
    dest::CASES,
    scoped::CASES,
    robustness::CASES,
    same::CASES,
];

/// Every check, flattened.
pub fn checks() -> impl Iterator<Item = &'static Check> {
    CHECKS.iter().flat_map(|c| c.iter())
}

/// Every failure case, flattened.
pub fn cases() -> impl Iterator<Item = &'static Case> {
    CASES.iter().flat_map(|c| c.iter())
}

/// What a rank prints on stdout, one line per check, for the launcher to read.
pub mod report {
    /// `check <name> rank <r>: ok`, `...: skipped` or `...: FAILED: <first line>`.
    pub const CHECK: &str = "check ";
    /// `done rank <r>`: this rank made the run's last sync, after every check.
    pub const DONE: &str = "done rank ";
    /// The status of a check that does not run on this number of ranks.
    pub const SKIPPED: &str = "skipped";
}

fn main() -> ExitCode {
    if !launcher::under_mpirun() {
        return launcher::main();
    }
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--case") {
        return run_case(args.get(at + 1).map_or("", String::as_str));
    }
    run_checks()
}

/// A rank's part: every check, in one SPMD run over all ranks.
fn run_checks() -> ExitCode {
    let result = Launch::new().run(|ctx| {
        let (pid, p) = (ctx.pid(), ctx.nprocs());
        for check in checks() {
            let status = if check.procs.on_mpi(p) {
                let outcome = catch_unwind(AssertUnwindSafe(|| (check.run)(ctx)))
                    .unwrap_or_else(|payload| Err(format!("panicked: {}", panic_message(&*payload))));
                reset(ctx);
                match outcome {
                    Ok(()) => "ok".to_string(),
                    Err(why) => {
                        // The whole message on stderr (it may span lines), its first line here.
                        eprintln!("[rank {pid}] {}: {why}", check.name);
                        format!("FAILED: {}", why.lines().next().unwrap_or(""))
                    }
                }
            } else {
                report::SKIPPED.to_string()
            };
            // A failed write only loses a report line, which the launcher counts as a failure.
            line(&format!("{}{} rank {pid}: {status}\n", report::CHECK, check.name));
        }
        // Every rank reached the end of the checks with the others (only process 0 goes on after
        // the run, so this is said inside it).
        ctx.sync();
        line(&format!("{}{pid}\n", report::DONE));
    });
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `println!` as one `write` ([`line`]): for lines that ranks print at the same time.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::line(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// Writes `text` (whole lines) to stdout in one `write`: `println!` writes a line's text and its
/// newline in two, and `mpirun`, which merges the ranks' output, may put another rank's line
/// between them.
pub fn line(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// The text of a panic payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a non-string payload".to_string()
    }
}

/// A rank's part of failure case `name`: a case of the suite, or a launch case of `mpi/launch.rs`.
fn run_case(name: &str) -> ExitCode {
    if let Some(case) = cases().find(|c| c.name == name) {
        let probe = Probe::printing();
        // A failure ends the program as a `#[bsp::program]` does: `error: ...` and status 1.
        exit_on_error(Launch::new().run(|ctx| (case.run)(ctx, &probe)));
        println!("the run succeeded");
        return ExitCode::SUCCESS;
    }
    launch::run_case(name)
}
