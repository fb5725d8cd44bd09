//! The environment variables the runtime reads, checked when a run starts.
//!
//! | variable | values |
//! |---|---|
//! | `BSP_NPROCS` | a positive integer: the number of processes (explicit code wins, D28) |
//! | `BSP_STATS` | `counts` (the default), `timed` or `1`, `off` or `0` |
//! | `BSP_TRACE` | a file to write the trace to (empty: no trace) |
//! | `BSP_TRACE_SUMMARY` | `1` prints the table of supersteps, `0` (or empty) does not |
//! | `BSP_MACHINE` | a file written by `bspbench --json`, read for the summary's predictions |
//! | `BSP_PIN` | `1` (the default) pins each thread of the threads engine to a core, `0` does not |
//! | `BSP_THREADS` | under `mpirun`: a positive integer, the processes (threads) per rank of the hybrid engine (explicit code wins) |
//! | `BSP_MPI_EXCHANGE` | under `mpirun`: `auto` (the default), `dense` or `sparse`, how a sync moves blocks between ranks |
//! | `BSP_CHECKPOINT` | a directory that `ctx.checkpoint` saves the run in |
//! | `BSP_RESTART` | a directory of checkpoints that the run goes on from |
//! | `BSP_WATCHDOG` | a positive number of seconds: when no process has finished a sync for that long, print where each process is and exit (off when unset) |
//!
//! A value outside these is a launch error that names the variable and its value, rather than
//! being read as the default: a misspelt `BSP_STATS=timd` would otherwise go unnoticed.

use std::ffi::OsString;

use crate::error::Error;

// The names the checks below use.
use NPROCS_VAR as NPROCS;
use THREADS_VAR as THREADS;

/// The environment variable that sets the number of processes.
pub const NPROCS_VAR: &str = "BSP_NPROCS";

/// The environment variable that asks for the hybrid engine under `mpirun`: this many processes
/// (threads) per rank (`Launch::threads_per_rank`).
pub const THREADS_VAR: &str = "BSP_THREADS";

/// Where the variables come from: the process's environment, or a test's.
type Env<'a> = &'a dyn Fn(&str) -> Option<OsString>;

fn process_env(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}

/// The value of `name`, or `None` if it is not set. A value that is not Unicode is an error.
fn var(env: Env<'_>, name: &str) -> Result<Option<String>, Error> {
    match env(name).map(OsString::into_string) {
        None => Ok(None),
        Some(Ok(v)) => Ok(Some(v)),
        Some(Err(v)) => Err(Error::launch(format!("{name}={v:?} is not valid Unicode"))),
    }
}

/// `BSP_NPROCS`: `None` if it is not set, else the positive number it gives.
pub(crate) fn nprocs() -> Result<Option<usize>, Error> {
    nprocs_in(&process_env)
}

fn nprocs_in(env: Env<'_>) -> Result<Option<usize>, Error> {
    let Some(v) = var(env, NPROCS)? else { return Ok(None) };
    match v.trim().parse::<usize>() {
        Ok(0) => Err(Error::launch(format!(
            "{NPROCS}=\"0\": cannot run an SPMD program on 0 processes (expected a positive integer)"
        ))),
        Ok(p) => Ok(Some(p)),
        Err(_) => {
            Err(Error::launch(format!("{NPROCS}={v:?} is not a number of processes (expected a positive integer)")))
        }
    }
}

/// `BSP_THREADS`: `None` if it is not set, else the number it gives (0 is refused by the engine
/// that would use it, with the other launch errors of that engine).
pub(crate) fn threads() -> Result<Option<usize>, Error> {
    threads_in(&process_env)
}

fn threads_in(env: Env<'_>) -> Result<Option<usize>, Error> {
    let Some(v) = var(env, THREADS)? else { return Ok(None) };
    v.trim().parse::<usize>().map(Some).map_err(|_| {
        Error::launch(format!("{THREADS}={v:?} is not a number of threads per rank (expected a positive integer)"))
    })
}

/// Checks the variables other than `BSP_NPROCS` (see the module docs).
pub(crate) fn check() -> Result<(), Error> {
    check_in(&process_env)
}

fn check_in(env: Env<'_>) -> Result<(), Error> {
    let one_of = |name: &str, allowed: &[&str]| -> Result<(), Error> {
        match var(env, name)? {
            Some(v) if !allowed.contains(&v.as_str()) => Err(Error::launch(format!(
                "{name}={v:?} is not one of {}",
                allowed.iter().filter(|a| !a.is_empty()).map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ")
            ))),
            _ => Ok(()),
        }
    };
    one_of("BSP_STATS", &["counts", "timed", "1", "off", "0", ""])?;
    one_of("BSP_TRACE_SUMMARY", &["1", "0", ""])?;
    one_of("BSP_PIN", &["1", "0", ""])?;
    one_of("BSP_MPI_EXCHANGE", &["auto", "dense", "sparse", ""])?;
    // BSP_TRACE is any path; BSP_MACHINE is read (and its errors named) when the summary needs it.
    var(env, "BSP_TRACE")?;
    var(env, "BSP_MACHINE")?;
    let watchdog = var(env, crate::observe::watch::WATCHDOG_VAR)?;
    crate::observe::watch::parse_watchdog(watchdog.as_deref()).map_err(Error::launch)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An environment holding only `name=value`.
    fn only(name: &'static str, value: &'static str) -> impl Fn(&str) -> Option<OsString> {
        move |n| (n == name).then(|| OsString::from(value))
    }

    #[test]
    fn bad_values_name_the_variable() {
        let cases = [
            ("BSP_STATS", "bogus", "BSP_STATS=\"bogus\" is not one of `counts`, `timed`, `1`, `off`, `0`"),
            ("BSP_TRACE_SUMMARY", "yes", "BSP_TRACE_SUMMARY=\"yes\" is not one of `1`, `0`"),
            ("BSP_PIN", "no", "BSP_PIN=\"no\" is not one of `1`, `0`"),
            ("BSP_MPI_EXCHANGE", "sparce", "BSP_MPI_EXCHANGE=\"sparce\" is not one of `auto`, `dense`, `sparse`"),
        ];
        for (name, value, want) in cases {
            let e = check_in(&only(name, value)).expect_err(name);
            assert_eq!(e.message(), want);
            assert_eq!(e.kind(), crate::ErrorKind::Launch);
        }
    }

    #[test]
    fn good_values_and_no_values_pass() {
        for (name, value) in [
            ("BSP_STATS", "timed"),
            ("BSP_STATS", "0"),
            ("BSP_STATS", "counts"),
            ("BSP_PIN", "0"),
            ("BSP_TRACE_SUMMARY", "1"),
            ("BSP_TRACE", "t.json"),
            ("BSP_MPI_EXCHANGE", "sparse"),
        ] {
            assert!(check_in(&only(name, value)).is_ok(), "{name}={value}");
        }
        assert!(check_in(&|_| None).is_ok());
        // Read as written, as the code that uses them reads them: ` timed` is not `timed`.
        assert!(check_in(&only("BSP_STATS", " timed")).is_err());
    }

    #[test]
    fn nprocs_names_the_variable() {
        assert_eq!(nprocs_in(&only(NPROCS, " 4 ")).unwrap(), Some(4));
        assert_eq!(nprocs_in(&|_| None).unwrap(), None);
        let e = nprocs_in(&only(NPROCS, "0")).unwrap_err();
        assert_eq!(
            e.message(),
            "BSP_NPROCS=\"0\": cannot run an SPMD program on 0 processes (expected a positive integer)"
        );
        let e = nprocs_in(&only(NPROCS, "four")).unwrap_err();
        assert_eq!(e.message(), "BSP_NPROCS=\"four\" is not a number of processes (expected a positive integer)");
    }

    #[test]
    fn threads_names_the_variable() {
        assert_eq!(threads_in(&only(THREADS, "2")).unwrap(), Some(2));
        assert_eq!(threads_in(&|_| None).unwrap(), None);
        let e = threads_in(&only(THREADS, "two")).unwrap_err();
        assert_eq!(
            e.message(),
            "BSP_THREADS=\"two\" is not a number of threads per rank (expected a positive integer)"
        );
    }
}
