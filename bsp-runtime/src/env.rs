//! The environment variables the runtime reads, checked when a run starts.
//!
//! | variable | values |
//! |---|---|
//! | `BSP_NPROCS` | a positive integer: the number of processes (explicit code wins, D28) |
//! | `BSP_STATS` | `counts` (the default), `timed` or `1`, `off` or `0` |
//! | `BSP_TRACE` | a file to write the trace to, not a directory (empty: no trace) |
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
//! being read as the default: a misspelt `BSP_STATS=timd` would otherwise go unnoticed. So is a
//! count that cannot be served ([`MAX_LOCAL_PROCS`]), before anything is allocated for it.
//!
//! What is not an error but is probably a mistake is a warning, printed once per OS process (under
//! `mpirun`, by rank 0 only) on standard error when a run starts:
//! - a variable whose name starts with `BSP_` and is within two letters of one of the names above
//!   (`BSP_NPROC`, `bsp_nprocs`): it is not read, and the warning names the nearest one. Other
//!   `BSP_` names are left alone: programs and scripts have their own;
//! - `BSP_THREADS` in a program not started by `mpirun`, where it changes nothing.
//!
//! A program built without the cargo feature `mpi` but started by `mpirun` on more than one rank
//! (Open MPI's `OMPI_COMM_WORLD_SIZE`, or `PMI_SIZE`, in the environment) would run whole on
//! every rank, each its own single job; that is a launch error naming the feature.

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

/// The most BSP processes one OS process runs: the threads engine's number of processes, and
/// the hybrid engine's threads per rank (`BSP_NPROCS`, `BSP_THREADS`, [`Launch`](crate::Launch)
/// or [`run`](crate::run) asking for more is a launch error, before anything is allocated).
///
/// Each of these processes is an OS thread, and on Linux a thread takes four of the memory maps
/// a process may have (its stack and guard page, its signal stack and guard page): with the
/// default `vm.max_map_count` of 65,530, a program cannot start much more than 16,000 threads, and
/// a thread that fails to start its signal stack aborts the whole OS process. Half of that leaves
/// the other half of the maps to the program's own memory; and the largest machines have a few
/// hundred cores per OS process, so a count beyond this is a mistake rather than a request. A
/// program that needs more processes runs them as MPI ranks (the `mpi` feature), where the limit
/// is per rank. (Below the limit, a thread the system refuses is a launch error that names it.)
pub const MAX_LOCAL_PROCS: usize = 1 << 13;

/// The names of the variables the runtime reads (the module docs).
const KNOWN: [&str; 11] = [
    NPROCS_VAR,
    "BSP_STATS",
    "BSP_TRACE",
    "BSP_TRACE_SUMMARY",
    "BSP_MACHINE",
    "BSP_PIN",
    THREADS_VAR,
    "BSP_MPI_EXCHANGE",
    crate::observe::watch::WATCHDOG_VAR,
    crate::checkpoint::CHECKPOINT_VAR,
    crate::checkpoint::RESTART_VAR,
];

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
        Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => Err(too_many(&format!("{NPROCS}={v:?}"))),
        Err(_) => {
            Err(Error::launch(format!("{NPROCS}={v:?} is not a number of processes (expected a positive integer)")))
        }
    }
}

/// The launch error for a count of processes in one OS process above [`MAX_LOCAL_PROCS`]: `what`
/// says where the count came from (`BSP_NPROCS="…"`, `procs(…)`).
pub(crate) fn too_many(what: &str) -> Error {
    Error::launch(format!(
        "{what}: cannot run more than {MAX_LOCAL_PROCS} processes in one OS process (one thread each); more processes run as MPI ranks (the `mpi` feature, started by mpirun)"
    ))
}

/// The launch error for more threads per rank than [`MAX_LOCAL_PROCS`].
pub(crate) fn too_many_threads(what: &str) -> Error {
    Error::launch(format!(
        "{what}: cannot run more than {MAX_LOCAL_PROCS} threads per rank (one process each); start more ranks instead"
    ))
}

/// `BSP_THREADS`: `None` if it is not set, else the number it gives (0 is refused by the engine
/// that would use it, with the other launch errors of that engine).
pub(crate) fn threads() -> Result<Option<usize>, Error> {
    threads_in(&process_env)
}

fn threads_in(env: Env<'_>) -> Result<Option<usize>, Error> {
    let Some(v) = var(env, THREADS)? else { return Ok(None) };
    match v.trim().parse::<usize>() {
        Ok(t) if t > MAX_LOCAL_PROCS => Err(too_many_threads(&format!("{THREADS}={v:?}"))),
        Ok(t) => Ok(Some(t)),
        Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => {
            Err(too_many_threads(&format!("{THREADS}={v:?}")))
        }
        Err(_) => Err(Error::launch(format!(
            "{THREADS}={v:?} is not a number of threads per rank (expected a positive integer)"
        ))),
    }
}

/// How an MPI launcher started this OS process, as the environment it gives every rank says
/// (Open MPI's `OMPI_COMM_WORLD_*`, or the PMI variables of MPICH's and Slurm's launchers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mpirun {
    /// The number of ranks, where the environment gives it.
    pub ranks: Option<usize>,
    /// This OS process's rank, where the environment gives it.
    pub rank: Option<usize>,
}

impl Mpirun {
    /// Whether this OS process is rank 0 (or cannot tell: then it acts as rank 0).
    pub(crate) fn is_first(&self) -> bool {
        self.rank.unwrap_or(0) == 0
    }
}

/// `Some` when an MPI launcher started this OS process.
pub(crate) fn mpirun() -> Option<Mpirun> {
    mpirun_in(&process_env)
}

fn mpirun_in(env: Env<'_>) -> Option<Mpirun> {
    let number = |names: &[&str]| names.iter().find_map(|n| env(n)?.into_string().ok()?.trim().parse::<usize>().ok());
    let started = ["OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"].iter().any(|n| env(n).is_some());
    started.then(|| Mpirun {
        ranks: number(&["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"]),
        rank: number(&["OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"]),
    })
}

/// The launch error of a program built without the `mpi` feature that `mpirun` started on
/// `ranks` ranks: each rank would run the whole program as a job of its own.
#[cfg_attr(feature = "mpi", allow(dead_code, reason = "a build with the `mpi` feature runs on MPI under mpirun"))]
pub(crate) fn not_built_for_mpi(ranks: usize) -> Error {
    Error::launch(format!(
        "started by mpirun on {ranks} ranks, but this program was built without the cargo feature `mpi`: every rank would run the whole program alone; build it with `--features mpi` (or `bsp = {{ package = \"bsplib\", features = [\"mpi\"] }}`), or run it without mpirun"
    ))
}

/// Prints the warnings of the module docs on standard error, the first time a run starts in this
/// OS process (under `mpirun`, on rank 0 only: the others have the same environment).
pub(crate) fn warn_once() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let mpirun = mpirun();
        if mpirun.is_some_and(|m| !m.is_first()) {
            return;
        }
        let names: Vec<String> = std::env::vars_os().filter_map(|(name, _)| name.into_string().ok()).collect();
        for warning in warnings(&names, &process_env, mpirun.is_some()) {
            use std::io::Write as _;
            let _ = std::io::stderr().lock().write_all(format!("warning: {warning}\n").as_bytes());
        }
    });
}

/// The warnings for an environment holding the variables `names` (sorted by name, for a
/// deterministic order), read through `env`.
fn warnings(names: &[String], env: Env<'_>, under_mpirun: bool) -> Vec<String> {
    let mut names: Vec<&String> = names.iter().collect();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        if KNOWN.contains(&name.as_str()) || !name.to_ascii_uppercase().starts_with("BSP_") {
            continue;
        }
        if let Some(near) = nearest(name) {
            out.push(format!("{name} is not a variable bsp reads (it changes nothing): did you mean {near}?"));
        }
    }
    if !under_mpirun && let Ok(Some(t)) = var(env, THREADS) {
        out.push(format!(
            "{THREADS}={t:?} changes nothing in a program not started by mpirun (it sets the threads per MPI rank of the hybrid engine); {NPROCS} sets the number of processes"
        ));
    }
    out
}

/// The known name nearest to `name` (letters compared without case), if within two edits.
fn nearest(name: &str) -> Option<&'static str> {
    let upper = name.to_ascii_uppercase();
    KNOWN.iter().map(|k| (edits(&upper, k), *k)).filter(|&(d, _)| d <= 2).min().map(|(_, k)| k)
}

/// The Levenshtein distance between `a` and `b` (insertions, deletions and substitutions of
/// one byte).
fn edits(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &y) in b.iter().enumerate() {
            let substituted = diagonal + usize::from(x != y);
            diagonal = row[j + 1];
            row[j + 1] = substituted.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
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
    // BSP_TRACE is any path but a directory (the run would end with nowhere to write the trace
    // and its timeline); BSP_MACHINE is read (and its errors named) when the summary needs it.
    if let Some(trace) = var(env, "BSP_TRACE")?
        && !trace.is_empty()
        && std::path::Path::new(&trace).is_dir()
    {
        return Err(Error::launch(format!(
            "BSP_TRACE={trace:?} is a directory: name a file to write the trace to (its timeline goes beside it, as .svg)"
        )));
    }
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
    #[cfg_attr(miri, ignore = "`BSP_TRACE` asks the file system, which Miri isolates")]
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
    #[cfg_attr(miri, ignore = "asks the file system, which Miri isolates")]
    fn a_trace_into_a_directory_is_refused_before_the_run() {
        let dir = std::env::temp_dir();
        let dir = dir.to_str().expect("a Unicode temporary directory");
        let dir: &'static str = Box::leak(dir.to_string().into_boxed_str());
        let e = check_in(&only("BSP_TRACE", dir)).unwrap_err();
        assert_eq!(
            e.message(),
            format!(
                "BSP_TRACE={dir:?} is a directory: name a file to write the trace to (its timeline goes beside it, as .svg)"
            )
        );
        let e = check_in(&only("BSP_TRACE", "/")).unwrap_err();
        assert!(e.message().starts_with("BSP_TRACE=\"/\" is a directory"), "{e}");
        assert!(check_in(&only("BSP_TRACE", "")).is_ok());
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

    #[test]
    fn counts_that_cannot_be_served_name_the_limit() {
        let e = nprocs_in(&only(NPROCS, "18446744073709551616")).unwrap_err();
        assert_eq!(
            e.message(),
            "BSP_NPROCS=\"18446744073709551616\": cannot run more than 8192 processes in one OS process (one thread each); more processes run as MPI ranks (the `mpi` feature, started by mpirun)"
        );
        // Representable counts are the launch's to judge (under mpirun they may be ranks).
        assert_eq!(nprocs_in(&only(NPROCS, "1000000000000")).unwrap(), Some(1_000_000_000_000));
        assert_eq!(threads_in(&only(THREADS, "8192")).unwrap(), Some(MAX_LOCAL_PROCS));
        for big in ["8193", "99999999999", "18446744073709551616"] {
            let e = threads_in(&only(THREADS, big)).unwrap_err();
            assert_eq!(
                e.message(),
                format!(
                    "BSP_THREADS=\"{big}\": cannot run more than 8192 threads per rank (one process each); start more ranks instead"
                )
            );
            assert_eq!(e.kind(), crate::ErrorKind::Launch);
        }
    }

    #[test]
    fn mpirun_is_read_from_its_variables() {
        let open_mpi = |n: &str| match n {
            "OMPI_COMM_WORLD_SIZE" => Some(OsString::from("4")),
            "OMPI_COMM_WORLD_RANK" => Some(OsString::from("3")),
            _ => None,
        };
        assert_eq!(mpirun_in(&open_mpi), Some(Mpirun { ranks: Some(4), rank: Some(3) }));
        assert!(!mpirun_in(&open_mpi).unwrap().is_first());
        let pmi = |n: &str| match n {
            "PMI_SIZE" => Some(OsString::from("2")),
            "PMI_RANK" => Some(OsString::from("0")),
            _ => None,
        };
        assert_eq!(mpirun_in(&pmi), Some(Mpirun { ranks: Some(2), rank: Some(0) }));
        assert!(mpirun_in(&pmi).unwrap().is_first());
        assert_eq!(mpirun_in(&|_| None), None);
        assert_eq!(
            not_built_for_mpi(2).message(),
            "started by mpirun on 2 ranks, but this program was built without the cargo feature `mpi`: every rank would run the whole program alone; build it with `--features mpi` (or `bsp = { package = \"bsplib\", features = [\"mpi\"] }`), or run it without mpirun"
        );
    }

    #[test]
    fn misspelt_names_warn_with_the_nearest_known_one() {
        let names: Vec<String> = ["BSP_NPROC", "bsp_stats", "BSP_TRACE_SUMARY", "BSP_TRACES", "BSP_PINS"]
            .iter()
            .map(|n| n.to_string())
            .collect();
        assert_eq!(
            warnings(&names, &|_| None, false),
            [
                "BSP_NPROC is not a variable bsp reads (it changes nothing): did you mean BSP_NPROCS?",
                "BSP_PINS is not a variable bsp reads (it changes nothing): did you mean BSP_PIN?",
                "BSP_TRACES is not a variable bsp reads (it changes nothing): did you mean BSP_TRACE?",
                "BSP_TRACE_SUMARY is not a variable bsp reads (it changes nothing): did you mean BSP_TRACE_SUMMARY?",
                "bsp_stats is not a variable bsp reads (it changes nothing): did you mean BSP_STATS?",
            ]
        );
        // Known names, names far from any, and names without the prefix say nothing.
        let quiet: Vec<String> = ["BSP_NPROCS", "BSP_MODEL_CASES", "BSP_MPI_RANKS", "NPROCS", "MY_BSP_NPROC"]
            .iter()
            .map(|n| n.to_string())
            .collect();
        assert!(warnings(&quiet, &|_| None, false).is_empty());
    }

    #[test]
    fn bsp_threads_warns_outside_mpirun_only() {
        let names = [THREADS.to_string()];
        assert_eq!(
            warnings(&names, &only(THREADS, "2"), false),
            [
                "BSP_THREADS=\"2\" changes nothing in a program not started by mpirun (it sets the threads per MPI rank of the hybrid engine); BSP_NPROCS sets the number of processes"
            ]
        );
        assert!(warnings(&names, &only(THREADS, "2"), true).is_empty());
    }

    #[test]
    fn edits_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edits("BSP_NPROC", "BSP_NPROCS"), 1);
        assert_eq!(edits("BSP_PNROCS", "BSP_NPROCS"), 2);
        assert_eq!(edits("", "ABC"), 3);
        assert_eq!(edits("KITTEN", "SITTING"), 3);
        assert_eq!(nearest("BSP_THRADS"), Some(THREADS));
        assert_eq!(nearest("BSP_WATCHDGO"), Some("BSP_WATCHDOG"));
        assert_eq!(nearest("BSP_RESTRAT"), Some("BSP_RESTART"));
        assert_eq!(nearest("BSP_SCHEDULER"), None);
    }
}
