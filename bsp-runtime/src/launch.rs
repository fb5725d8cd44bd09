//! SPMD launch: starting p processes (threads), catching their failures, joining them.
//!
//! No global state: every run has its own group, so runs may follow each other and a process
//! may start a nested run (D13). Process 0 runs on the calling thread (as BSPlib's `bsp_begin`
//! continues the caller's thread of control on process 0); the others on scoped threads, so the
//! SPMD function may borrow from the caller.
//!
//! Failure (D14): the first panic or `abort` is recorded with its pid, the group is poisoned so
//! that processes waiting in a sync wake up, and processes that are computing stop at their next
//! communication call. The launcher joins every process and returns the first failure.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crossbeam_utils::sync::Parker;

use crate::ctx::Stop;
use crate::engine::threads::Group;
use crate::{Ctx, Error};

/// The environment variable that sets the number of processes.
pub const NPROCS_VAR: &str = "BSP_NPROCS";

/// Runs `f` on `nprocs` processes and returns each one's result, indexed by pid.
///
/// `nprocs` is taken as given (more processes than cores is fine: waiting processes yield).
/// See [`Launch`] for taking it from `BSP_NPROCS` or the number of cores instead.
///
/// ```
/// let pids = bsp_runtime::run(4, |ctx| ctx.pid() * 10).unwrap();
/// assert_eq!(pids, vec![0, 10, 20, 30]);
/// ```
///
/// # Errors
/// The first failure of any process (a panic, an `abort`, misuse detected by the runtime), or
/// a launch error if `nprocs == 0`.
pub fn run<R, F>(nprocs: usize, f: F) -> Result<Vec<R>, Error>
where
    R: Send,
    F: Fn(&mut Ctx) -> R + Sync,
{
    Launch::new().procs(nprocs).run(f)
}

/// Prints a failed run's error to stderr and exits with status 1; returns the results otherwise.
/// What `#[bsp::program]` on `main` does with the outcome.
pub fn exit_on_error<R>(result: Result<R, Error>) -> R {
    match result {
        Ok(r) => r,
        Err(e) => {
            if !e.is_quiet() {
                eprintln!("error: {e}");
            }
            std::process::exit(1)
        }
    }
}

/// How many processes to start, and starting them.
///
/// The number of processes comes from [`procs`](Launch::procs) if given; otherwise from the
/// `BSP_NPROCS` environment variable; otherwise from [`default_procs`](Launch::default_procs);
/// otherwise it is the number of cores.
///
/// ```
/// use bsp_runtime::Launch;
/// let n = Launch::new().procs(3).run(|ctx| ctx.nprocs()).unwrap();
/// assert_eq!(n, vec![3, 3, 3]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Launch {
    procs: Option<usize>,
    default_procs: Option<usize>,
}

impl Launch {
    /// A launch with no explicit number of processes.
    pub fn new() -> Self {
        Self::default()
    }

    /// Start exactly `p` processes (this wins over `BSP_NPROCS`).
    pub fn procs(mut self, p: usize) -> Self {
        self.procs = Some(p);
        self
    }

    /// Start `p` processes unless `BSP_NPROCS` says otherwise (what `#[bsp::program(procs = p)]`
    /// uses).
    pub fn default_procs(mut self, p: usize) -> Self {
        self.default_procs = Some(p);
        self
    }

    /// The number of processes asked for by the call or by `BSP_NPROCS` (not a default).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code, reason = "the MPI engine asks this"))]
    pub(crate) fn requested_procs(&self) -> Result<Option<usize>, Error> {
        if let Some(p) = self.procs {
            return Ok(Some(p));
        }
        match std::env::var(NPROCS_VAR) {
            Ok(v) => v.trim().parse::<usize>().map(Some).map_err(|_| {
                Error::launch(format!("{NPROCS_VAR}={v:?} is not a number of processes (expected a positive integer)"))
            }),
            Err(_) => Ok(None),
        }
    }

    /// The number of processes this launch starts.
    ///
    /// # Errors
    /// If `BSP_NPROCS` is set but is not a positive integer, or the number is 0.
    pub fn nprocs(&self) -> Result<usize, Error> {
        let p = match self.procs {
            Some(p) => p,
            None => match std::env::var(NPROCS_VAR) {
                Ok(v) => v.trim().parse::<usize>().map_err(|_| {
                    Error::launch(format!(
                        "{NPROCS_VAR}={v:?} is not a number of processes (expected a positive integer)"
                    ))
                })?,
                Err(_) => match self.default_procs {
                    Some(p) => p,
                    None => std::thread::available_parallelism().map_or(1, |n| n.get()),
                },
            },
        };
        if p == 0 {
            return Err(Error::launch("cannot run an SPMD program on 0 processes".to_string()));
        }
        Ok(p)
    }

    /// Runs `f` on every process and returns the results, indexed by pid.
    ///
    /// # Errors
    /// As [`run`].
    pub fn run<R, F>(self, f: F) -> Result<Vec<R>, Error>
    where
        R: Send,
        F: Fn(&mut Ctx) -> R + Sync,
    {
        #[cfg(feature = "mpi")]
        if crate::engine::mpi::wanted() {
            return crate::engine::mpi::run(&self, f);
        }
        let p = self.nprocs()?;
        let (group, parkers) = Group::new(p);
        let group = Arc::new(group);
        let mut results: Vec<Option<R>> = std::thread::scope(|scope| {
            let mut parkers = parkers.into_iter();
            let first = parkers.next().expect("p >= 1");
            let mut handles = Vec::with_capacity(p - 1);
            for (i, parker) in parkers.enumerate() {
                let (g, f) = (group.clone(), &f);
                let spawned = std::thread::Builder::new()
                    .name(format!("bsp process {}", i + 1))
                    .spawn_scoped(scope, move || process(g, parker, i + 1, f));
                match spawned {
                    Ok(h) => handles.push(h),
                    Err(e) => {
                        // Wakes the processes already started, which would wait for it forever.
                        group.fail(Error::launch(format!("cannot start process {} of {p}: {e}", i + 1)));
                        break;
                    }
                }
            }
            let mut results = vec![if group.is_failed() { None } else { process(group.clone(), first, 0, &f) }];
            results.extend(handles.into_iter().map(|h| h.join().unwrap_or(None)));
            results
        });
        if let Some(e) = group.take_failure() {
            return Err(e);
        }
        Ok(results.iter_mut().map(|r| r.take().expect("every process finished without failure")).collect())
    }
}

/// Runs one process: the SPMD function, then the collective end.
fn process<R>(group: Arc<Group>, parker: Parker, pid: usize, f: &(impl Fn(&mut Ctx) -> R + Sync)) -> Option<R> {
    let placed = crate::engine::placement::pin(pid, group.nprocs());
    let mut ctx = Ctx::new(group.clone(), parker, pid);
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let r = f(&mut ctx);
        ctx.finish();
        r
    }));
    crate::engine::placement::release(placed);
    crate::trace::finish(&mut ctx, None); // stats: hand over this process's trace (the last one writes it)
    match outcome {
        Ok(r) => Some(r),
        Err(payload) => {
            if !payload.is::<Stop>() {
                group.fail(Error::panic(pid, failure_message(&*payload, pid)));
            } else {
                // Already recorded by whoever stopped the run; make sure everyone wakes.
                group.fail(Error::panic(pid, "stopped".to_string()));
            }
            None
        }
    }
}

/// The message of a panic of process `pid`, without the `process {pid}: ` prefix that misuse
/// messages carry for the panic hook's sake.
pub(crate) fn failure_message(payload: &(dyn std::any::Any + Send), pid: usize) -> String {
    let msg = panic_message(payload);
    msg.strip_prefix(&format!("process {pid}: ")).map_or_else(|| msg.clone(), str::to_string)
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a process panicked with a non-string payload".to_string()
    }
}
