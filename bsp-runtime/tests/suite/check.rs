//! What the engine-neutral suite is made of: checks, failure cases, and the tables that list
//! them for both engines.
//!
//! - A **check** is an SPMD function `fn(&mut Ctx) -> Outcome` that makes all of its syncs first,
//!   then compares what *this* process saw with what it must see for its pid. It never returns
//!   early before its last sync, so a failed comparison never leaves the processes out of step
//!   (on MPI the ranks run every check one after the other inside one SPMD run). Values that
//!   depend on the run's history (superstep numbers, registration ids) are compared relative to
//!   the check's start.
//! - A **failure case** is an SPMD function that must make the run fail, and a `judge` of the
//!   [`Failure`] it ends with (kind, pid, message). On threads the failure is the `Error` that
//!   `run` returns; on MPI it is read from the `error: ...` line that a failing rank prints on
//!   its stderr, one job per case and process count.
//!
//! [`checks!`] and [`cases!`] turn a list into the table that `mpi.rs` runs and, in a
//! libtest binary (`cfg(test)`), into one `#[test]` per entry that runs it on threads at each of
//! its process counts (`runner.rs`). A `harness = false` binary is not compiled with
//! `--test`, so there the tables are all that exists.

use std::sync::atomic::{AtomicUsize, Ordering};

use bsp_runtime::Ctx;

/// What a check found on this process: `Err` says what differs.
pub type Outcome = Result<(), String>;

/// The process counts the threads engine runs most checks and cases at (fewer under Miri, which
/// runs them slowly: `scripts/miri`).
pub const PS: &[usize] = if cfg!(miri) { &[1, 3] } else { &[1, 2, 3, 4, 8] };

/// [`PS`] and counts beyond the few dozen up to which a threads sync visits every process (above
/// them, receivers visit only the senders that noted themselves): for the checks of the order in
/// which puts and messages from many sources apply. Under Miri, which interprets every thread,
/// a run of 67 or 130 threads does not finish in hours: there the counts stop at the few that
/// still let a sync visit every process.
pub const PS_MANY: &[usize] = if cfg!(miri) { &[1, 3, 5] } else { &[1, 2, 3, 4, 8, 67, 130] };

/// On which numbers of processes an entry runs.
#[derive(Clone, Copy, Debug)]
pub struct Procs {
    /// The process counts on threads.
    pub threads: &'static [usize],
    /// The fewest ranks MPI runs the entry on.
    #[allow(dead_code, reason = "read by the MPI binary (`mpi.rs`) only")]
    pub min: usize,
}

impl Procs {
    /// Every count: [`PS`] on threads, every rank count on MPI.
    pub const ALL: Procs = Procs { threads: PS, min: 1 };

    /// On threads, at these counts instead of [`PS`] (the MPI counts are unchanged).
    pub const fn on(self, threads: &'static [usize]) -> Procs {
        Procs { threads, ..self }
    }

    /// At least `n` processes, on both engines (threads: the counts of [`PS`] from `n` up, unless
    /// [`on`](Procs::on) says otherwise).
    pub const fn at_least(n: usize) -> Procs {
        let threads: &'static [usize] = match n {
            0 | 1 => PS,
            2 => &[2, 3, 4, 8],
            3 => &[3, 4, 8],
            4 => &[4, 8],
            _ => &[8],
        };
        Procs { threads, min: n }
    }

    /// Whether MPI with `n` ranks runs the entry (and so do `n` processes in in-process groups).
    pub fn on_mpi(&self, n: usize) -> bool {
        self.min <= n
    }
}

/// One check of the suite.
#[derive(Debug)]
pub struct Check {
    pub name: &'static str,
    pub run: fn(&mut Ctx) -> Outcome,
    pub procs: Procs,
}

/// Lists the checks of a module: `checks! { name, other => Procs::at_least(2), #[mpi] third }`
/// defines `pub const CHECKS: &[Check]` and, under `cfg(test)`, a module `on_threads` with one
/// `#[test]` per check (`runner::run_check`); `#[mpi]` marks a check of MPI ranks themselves,
/// which gets no threads test.
macro_rules! checks {
    ($($(#[$only:ident])? $name:ident $(=> $procs:expr)?),* $(,)?) => {
        /// The checks of this module, in the order MPI runs them.
        pub const CHECKS: &[$crate::check::Check] = &[$(
            $crate::check::Check {
                name: stringify!($name),
                run: $name,
                procs: $crate::check::procs_or_all(&[$($procs)?]),
            }
        ),*];

        /// Each check on the threads engine, at each of its process counts.
        #[cfg(test)]
        mod on_threads {
            $($crate::check::entry_test!(run_check, $($only)? $name);)*
        }

        /// Each check on groups of threads joined by the in-process transport (the hybrid
        /// engine's driver without MPI), at each layout of `runner::LAYOUTS` it allows.
        #[cfg(test)]
        mod in_groups {
            $($crate::check::entry_test!(run_check_in_groups, $($only)? $name);)*
        }
    };
}
pub(crate) use checks;

/// The `#[test]` of one check (for [`checks!`]), run by `runner::$runner`: none for an
/// MPI-only check.
macro_rules! entry_test {
    ($runner:ident, mpi $name:ident) => {};
    ($runner:ident, $name:ident) => {
        #[test]
        fn $name() {
            let check = super::CHECKS.iter().find(|c| c.name == stringify!($name)).expect("listed");
            $crate::runner::$runner(check);
        }
    };
}
pub(crate) use entry_test;

/// The entry's `Procs`, or [`Procs::ALL`] if it gave none (for the macros).
pub const fn procs_or_all(given: &[Procs]) -> Procs {
    match given {
        [p] => *p,
        _ => Procs::ALL,
    }
}

// ---------------------------------------------------------------------------------------------
// Failure cases
// ---------------------------------------------------------------------------------------------

/// Marks points that no process may reach in a failure case (past a sync that must fail). On
/// threads the harness counts the hits; on MPI each hit prints a line that fails the job.
#[derive(Debug, Default)]
pub struct Probe {
    hits: AtomicUsize,
    print: bool,
}

impl Probe {
    /// A probe that prints a line for the MPI launcher at every hit.
    #[allow(dead_code, reason = "read by the MPI binary (`mpi.rs`) only")]
    pub fn printing() -> Probe {
        Probe { hits: AtomicUsize::new(0), print: true }
    }

    /// This process reached the point `what`.
    pub fn reached(&self, what: &str) {
        // Relaxed: read only after the run has joined every process.
        self.hits.fetch_add(1, Ordering::Relaxed);
        if self.print {
            // One `write` for the whole line (see `mpi::line`): ranks share `mpirun`'s stdout.
            let text = format!("{}{what}\n", Probe::LINE);
            let mut out = std::io::stdout().lock();
            let _ = std::io::Write::write_all(&mut out, text.as_bytes());
            let _ = std::io::Write::flush(&mut out);
        }
    }

    /// How many times a process reached a probed point.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::Relaxed)
    }

    /// The start of the line a hit prints on MPI.
    pub const LINE: &'static str = "probe reached: ";
}

/// How a failed run ended, as either engine reports it.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The number of processes of the run.
    pub p: usize,
    /// The process named by the error (`None`: a launch error).
    pub pid: Option<usize>,
    /// Whether a process called `abort`.
    pub abort: bool,
    /// The message without the `process N failed: ` prefix.
    pub message: String,
    /// The whole error as displayed.
    pub text: String,
}

impl Failure {
    /// Reads an error's display text: `process N failed: m`, `process N aborted: m`, or `m`.
    pub fn parse(p: usize, text: &str) -> Failure {
        let text = text.trim_end().to_string();
        let parsed = text.strip_prefix("process ").and_then(|rest| {
            let (pid, rest) = rest.split_once(' ')?;
            let pid = pid.parse::<usize>().ok()?;
            if let Some(m) = rest.strip_prefix("failed: ") {
                Some((pid, false, m.to_string()))
            } else {
                rest.strip_prefix("aborted: ").map(|m| (pid, true, m.to_string()))
            }
        });
        match parsed {
            Some((pid, abort, message)) => Failure { p, pid: Some(pid), abort, message, text },
            None => Failure { p, pid: None, abort: false, message: text.clone(), text },
        }
    }

    /// `Ok` if the error's text contains every one of `parts`.
    pub fn mentions(&self, parts: &[&str]) -> Outcome {
        match parts.iter().find(|part| !self.text.contains(**part)) {
            None => Ok(()),
            Some(part) => Err(format!("the error should mention {part:?}, but it is:\n  {}", self.text)),
        }
    }

    /// A failure (a panic or misuse, not an abort) on process `pid`.
    pub fn failed_on(&self, pid: usize) -> Outcome {
        if self.pid == Some(pid) && !self.abort {
            Ok(())
        } else {
            Err(format!("expected a failure (not an abort) of process {pid}, but the error is:\n  {}", self.text))
        }
    }

    /// An abort on process `pid`.
    pub fn aborted_on(&self, pid: usize) -> Outcome {
        if self.pid == Some(pid) && self.abort {
            Ok(())
        } else {
            Err(format!("expected an abort of process {pid}, but the error is:\n  {}", self.text))
        }
    }

    /// A failure, not an abort, on some process.
    pub fn not_an_abort(&self) -> Outcome {
        match (self.pid, self.abort) {
            (Some(_), false) => Ok(()),
            _ => Err(format!("expected a failure of a process (not an abort), but the error is:\n  {}", self.text)),
        }
    }

    /// The message (without prefix) is exactly `want`.
    pub fn message_is(&self, want: &str) -> Outcome {
        expect("the error's message", self.message.as_str(), want)
    }
}

/// One failure case: `run` on `ps` processes must fail, and `judge` must accept the failure.
#[derive(Debug)]
pub struct Case {
    pub name: &'static str,
    /// The process counts (both engines: one MPI job per count).
    pub ps: &'static [usize],
    pub run: fn(&mut Ctx, &Probe),
    pub judge: fn(&Failure) -> Outcome,
    /// Several processes may fail at once (on MPI each may print its own error line).
    #[allow(dead_code, reason = "read by the MPI binary (`mpi.rs`) only")]
    pub several: bool,
}

/// Lists failure cases: `cases! { name: [2, 4] => judge, ... }` where `name` is a
/// `fn(&mut Ctx, &Probe)` and `judge` a `fn(&Failure) -> Outcome`; `#[several] name: ...` marks
/// a case where several processes fail at once (on MPI each of them reports). Defines `pub const CASES: &[Case]` and, under
/// `cfg(test)`, a module `fails_on_threads` with one `#[test]` per case (`runner::run_case`).
macro_rules! cases {
    ($($(#[$several:ident])? $name:ident : $ps:expr => $judge:expr),* $(,)?) => {
        /// The failure cases of this module.
        pub const CASES: &[$crate::check::Case] = &[$(
            $crate::check::Case {
                name: stringify!($name),
                ps: &$ps,
                run: $name,
                judge: $judge,
                several: $crate::check::is_several!($($several)?),
            }
        ),*];

        /// Each case on the threads engine, at each of its process counts.
        #[cfg(test)]
        mod fails_on_threads {
            $($crate::check::case_test!(run_case, $name);)*
        }

        /// Each case on in-process groups (`runner::run_case_in_groups`).
        #[cfg(test)]
        mod fails_in_groups {
            $($crate::check::case_test!(run_case_in_groups, $name);)*
        }
    };
}
pub(crate) use cases;

/// The `#[test]` of one failure case (for [`cases!`]), run by `runner::$runner`.
macro_rules! case_test {
    ($runner:ident, $name:ident) => {
        #[test]
        fn $name() {
            let case = super::CASES.iter().find(|c| c.name == stringify!($name)).expect("listed");
            $crate::runner::$runner(case);
        }
    };
}
pub(crate) use case_test;

/// Whether a case is marked `#[several]` (for [`cases!`]; another attribute does not compile).
macro_rules! is_several {
    (several) => {
        true
    };
    () => {
        false
    };
}
pub(crate) use is_several;

// ---------------------------------------------------------------------------------------------
// Helpers for checks
// ---------------------------------------------------------------------------------------------

/// `Ok` if `got == want`, else a message naming `what` and both values.
pub fn expect<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Outcome {
    if got == want { Ok(()) } else { Err(format!("{what}: got {got:?}, expected {want:?}")) }
}

/// `Ok` if `ok`, else `what`.
pub fn ensure(ok: bool, what: impl FnOnce() -> String) -> Outcome {
    if ok { Ok(()) } else { Err(what()) }
}

/// The left and right neighbours of `pid` on a ring of `p` processes.
pub fn ring(pid: usize, p: usize) -> (usize, usize) {
    ((pid + p - 1) % p, (pid + 1) % p)
}

/// Brings a process back to the state a run starts in, as far as the checks can tell: tag size
/// 0 in force and requested, and an empty queue (the first sync discards unread messages and
/// makes 0 the size in force; the second makes it the size of the queue, D8, D10). MPI runs it
/// between two checks of its one long run.
pub fn reset(ctx: &mut Ctx) {
    ctx.set_tagsize(0);
    ctx.sync();
    ctx.sync();
}

/// Every process's `v`, indexed by pid (one superstep of messages; needs tag size 0 in force,
/// as every check starts with).
pub fn all_gather(ctx: &mut Ctx, v: u64) -> Vec<u64> {
    for q in 0..ctx.nprocs() {
        ctx.send(q, &(), &[v][..]);
    }
    ctx.sync();
    let mut all = Vec::with_capacity(ctx.nprocs());
    while let Some(((), m)) = ctx.move_message::<(), u64>() {
        all.extend(m);
    }
    all
}

/// Collects complaints without returning early (a check must make all of its syncs first).
#[derive(Debug, Default)]
pub struct Complaints(Vec<String>);

impl Complaints {
    /// Notes a complaint unless `got == want`.
    pub fn expect<T: PartialEq + std::fmt::Debug>(&mut self, what: impl std::fmt::Display, got: T, want: T) {
        if got != want {
            self.0.push(format!("{what}: got {got:?}, expected {want:?}"));
        }
    }

    /// Notes `what` unless `ok`.
    pub fn ensure(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.0.push(what());
        }
    }

    /// `Ok` if nothing was noted, else the first complaints.
    pub fn outcome(self) -> Outcome {
        if self.0.is_empty() {
            return Ok(());
        }
        let n = self.0.len();
        let shown: Vec<String> = self.0.into_iter().take(5).collect();
        Err(format!("{n} complaint(s), the first: {}", shown.join("; ")))
    }
}
