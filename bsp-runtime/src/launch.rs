//! SPMD launch: how many processes, running one, catching its failure.
//!
//! No global state: every run has its own engine state, so runs may follow each other and a
//! process may start a nested run (D13). The engine (`engine/`) provides the places where
//! processes run (an `Endpoint` each) and joins them; at each, this file builds the process's
//! [`Ctx`] and runs [`process`]: the SPMD function, then the collective end of the run.
//!
//! Failure (D14): the first panic or `abort` is recorded with its pid in the run's `Fate`, which
//! wakes the processes waiting in a sync, and processes that are computing stop at their next
//! communication call. The launcher joins every process and returns the first failure.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::ctx::Stop;
use crate::engine::Want;
use crate::{Ctx, Error};

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
/// a launch error if `nprocs == 0` or, on threads, `nprocs >`
/// [`MAX_LOCAL_PROCS`](crate::MAX_LOCAL_PROCS) (checked before anything is allocated):
///
/// ```
/// let err = bsp_runtime::run(usize::MAX, |ctx| ctx.pid()).unwrap_err();
/// assert_eq!(err.kind(), bsp_runtime::ErrorKind::Launch);
/// assert!(err.message().starts_with("18446744073709551615 processes: cannot run more than 8192"));
/// ```
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
                crate::error::print_error(&e);
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
    threads: Option<usize>,
    groups: Option<usize>,
}

impl Launch {
    /// A launch with no explicit number of processes.
    pub fn new() -> Self {
        Self::default()
    }

    /// Start exactly `p` processes: explicit code wins over `BSP_NPROCS` (D28). This is what
    /// `run(p, f)` and `#[bsp::program(procs = p)]` use.
    ///
    /// Under `mpirun`, `p` must not exceed the number of ranks (the launch fails on every rank,
    /// with a message that says so); a smaller `p` runs on ranks `0..p`, and the others take no
    /// part.
    ///
    /// ```
    /// use bsp_runtime::Launch;
    /// // SAFETY: nothing else runs yet in this program (no other thread reads the environment).
    /// unsafe { std::env::set_var("BSP_NPROCS", "5") };
    /// assert_eq!(Launch::new().procs(2).run(|ctx| ctx.nprocs()).unwrap(), [2, 2]);
    /// assert_eq!(Launch::new().default_procs(2).nprocs().unwrap(), 5);
    /// ```
    pub fn procs(mut self, p: usize) -> Self {
        self.procs = Some(p);
        self
    }

    /// Start `p` processes unless `BSP_NPROCS` says otherwise (and, under `mpirun`, unless there
    /// are ranks: then their number wins). For a program that has a sensible default but lets the
    /// person running it choose.
    pub fn default_procs(mut self, p: usize) -> Self {
        self.default_procs = Some(p);
        self
    }

    /// Without `mpirun`: run the processes as `groups` groups of threads of this OS process,
    /// each group's processes sharing memory as on threads and the groups joined by the
    /// in-process transport, which moves what crosses groups as MPI ranks would (serialised,
    /// gets by request and reply). The results are those of any engine; it exists to test the
    /// driver of the hybrid engine and its wire format without MPI. The number of processes
    /// must be a multiple of `groups`. Under `mpirun` it changes nothing.
    #[doc(hidden)]
    pub fn in_process_groups(mut self, groups: usize) -> Self {
        self.groups = Some(groups);
        self
    }

    /// Under `mpirun` (with the `mpi` feature), run `t` processes per rank, as threads (the
    /// hybrid engine): `mpirun -n R` then runs p = R·t processes, rank `r` holding pids
    /// `r·t .. r·t + t`. Explicit code wins over the `BSP_THREADS` environment variable, which
    /// asks for the same. Without `mpirun` it changes nothing.
    ///
    /// ```
    /// use bsp_runtime::Launch;
    /// // Started directly (not by mpirun): the threads engine, 2 processes.
    /// let out = Launch::new().procs(2).threads_per_rank(2).run(|ctx| ctx.nprocs()).unwrap();
    /// assert_eq!(out, [2, 2]);
    /// ```
    pub fn threads_per_rank(mut self, t: usize) -> Self {
        self.threads = Some(t);
        self
    }

    /// The threads per rank asked for by the call or by `BSP_THREADS`, at most
    /// [`MAX_LOCAL_PROCS`](crate::MAX_LOCAL_PROCS).
    fn requested_threads(&self) -> Result<Option<usize>, Error> {
        match self.threads {
            Some(t) if t > crate::MAX_LOCAL_PROCS => {
                Err(crate::env::too_many_threads(&format!("threads_per_rank({t})")))
            }
            Some(t) => Ok(Some(t)),
            None => crate::env::threads(),
        }
    }

    /// The number of processes asked for by the call or by `BSP_NPROCS` (not a default), and
    /// where it came from (for the messages).
    fn requested_procs(&self) -> Result<Option<(usize, String)>, Error> {
        match self.procs {
            Some(p) => Ok(Some((p, format!("{p} processes")))),
            None => Ok(crate::env::nprocs()?.map(|p| (p, format!("{}=\"{p}\"", crate::NPROCS_VAR)))),
        }
    }

    /// The number of processes this launch starts.
    ///
    /// On threads: [`procs`](Launch::procs), else `BSP_NPROCS`, else
    /// [`default_procs`](Launch::default_procs), else the number of cores. Under `mpirun` (with
    /// the `mpi` feature): `procs` or `BSP_NPROCS` if given, else the number of ranks.
    ///
    /// ```
    /// # // SAFETY: nothing else runs yet in this program.
    /// # unsafe { std::env::remove_var("BSP_NPROCS") };
    /// use bsp_runtime::Launch;
    /// assert_eq!(Launch::new().procs(3).nprocs().unwrap(), 3);
    /// assert!(Launch::new().procs(0).nprocs().is_err());
    /// ```
    ///
    /// # Errors
    /// If `BSP_NPROCS` is set but is not a positive integer, if the number is 0, on threads if
    /// it is above [`MAX_LOCAL_PROCS`](crate::MAX_LOCAL_PROCS) (so are threads per rank, on any
    /// engine), under `mpirun` if more processes are asked for than there are ranks, and if a
    /// program built without the `mpi` feature was started by `mpirun` on several ranks.
    pub fn nprocs(&self) -> Result<usize, Error> {
        crate::engine::nprocs(self.want()?)
    }

    /// What this launch asks the engine for, every count checked before anything is allocated
    /// for it. Under `mpirun`, an error is printed by rank 0 only (see [`once_per_job`]).
    ///
    /// # Errors
    /// As [`nprocs`](Launch::nprocs), for a bad `BSP_NPROCS`.
    fn want(&self) -> Result<Want, Error> {
        self.checked_want().map_err(once_per_job)
    }

    fn checked_want(&self) -> Result<Want, Error> {
        crate::env::check()?;
        #[cfg(not(feature = "mpi"))]
        if let Some(ranks) = crate::env::mpirun().and_then(|m| m.ranks).filter(|&r| r > 1) {
            return Err(crate::env::not_built_for_mpi(ranks));
        }
        let requested = self.requested_procs()?;
        let threads = self.requested_threads()?;
        if let Some((0, _)) = requested {
            // The same words on every engine (the hybrid one would otherwise look for ranks and
            // threads whose product is 0).
            return Err(Error::launch("cannot run an SPMD program on 0 processes".to_string()));
        }
        // Under mpirun the engine checks a count against the ranks (it allocates per rank); on
        // threads every process is a thread of this OS process.
        if let Some((p, from)) = &requested
            && *p > crate::MAX_LOCAL_PROCS
            && !under_mpi()
        {
            return Err(crate::env::too_many(from));
        }
        let default = match self.default_procs {
            Some(p) if p > crate::MAX_LOCAL_PROCS && !under_mpi() => {
                return Err(crate::env::too_many(&format!("default_procs({p})")));
            }
            d => d,
        };
        Ok(Want { requested: requested.map(|(p, _)| p), default, threads, groups: self.groups })
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
        let want = match self.want() {
            Ok(want) => want,
            // As the MPI engine reports the errors every rank finds: rank 0 prints it before any
            // rank exits (a rank's non-zero exit makes mpirun stop the others, which could cut
            // rank 0 off before it printed), the others exit with status 1, and rank 0 returns
            // it quieted.
            #[cfg(feature = "mpi")]
            Err(e) if under_mpi() => {
                use crate::engine::mpi::{report_once, with_world};
                return with_world((::mpi::Threading::Single, 1), |world| Err(report_once(&world, e)));
            }
            Err(e) => return Err(e),
        };
        crate::env::warn_once();
        crate::engine::launch(want, |endpoint| process(Ctx::new(endpoint), &f))
    }
}

impl Launch {
    /// BSPlib's `bsp_init`: `setup` runs once, before any process starts, and returns the number
    /// of processes and a value that every process receives; then `f` runs on that many
    /// processes, with the value. `setup` runs on the thread that calls this, and under
    /// `mpirun` on rank 0, the only rank with the standard input: it may ask "how many
    /// processors?", read a file, or choose P from the size of the input.
    ///
    /// The value is returned by value, so it is meant for parameters (sizes, seeds, a file's
    /// name): large data (a matrix read from a file) is better read in the run, on process 0,
    /// and handed out with [`broadcast`](Ctx::broadcast) or the facade's `prologue_vec`.
    ///
    /// The set-up's count is the count: [`procs`](Launch::procs),
    /// [`default_procs`](Launch::default_procs) and `BSP_NPROCS` are not read (the set-up may read
    /// them itself, as its default). Under `mpirun -n R` a count P ≤ R runs on ranks `0..P`, and the
    /// others end quietly; P > R is a launch error that says so, printed once; with threads per
    /// rank (the hybrid engine) P must be R times their number. On threads P is at most
    /// [`MAX_LOCAL_PROCS`](crate::MAX_LOCAL_PROCS).
    ///
    /// ```
    /// use bsp_runtime::Launch;
    /// // Lower P until P·P ≤ N, as a sample sort must: here the input would give N.
    /// let got = Launch::new()
    ///     .run_set_up(
    ///         || {
    ///             let n: u64 = 10;
    ///             let p = (1..=4).rev().find(|p| p * p <= n).unwrap();
    ///             (p as usize, n)
    ///         },
    ///         |ctx, &n| (ctx.nprocs(), n),
    ///     )
    ///     .unwrap();
    /// assert_eq!(got, [(3, 10); 3]);
    /// ```
    ///
    /// # Errors
    /// As [`run`](Launch::run); a launch error if the set-up's count is 0 or too large, and the
    /// run's failure, on process 0, if the set-up panics.
    pub fn run_set_up<S, R, G, F>(self, setup: G, f: F) -> Result<Vec<R>, Error>
    where
        S: crate::Value,
        R: Send,
        G: FnOnce() -> (usize, S),
        F: Fn(&mut Ctx, &S) -> R + Sync,
    {
        // The checks of every launch (the environment, the threads per rank), with a count that
        // stands in for the set-up's, so that BSP_NPROCS is not read.
        let want = match (Launch { procs: Some(1), default_procs: None, ..self }).want() {
            Ok(want) => Want { requested: None, default: None, ..want },
            #[cfg(feature = "mpi")]
            Err(e) if under_mpi() => {
                use crate::engine::mpi::{report_once, with_world};
                return with_world((::mpi::Threading::Single, 1), |world| Err(report_once(&world, e)));
            }
            Err(e) => return Err(e),
        };
        crate::env::warn_once();
        let on_threads = !under_mpi();
        let setup = move || {
            let (p, value) = catch_unwind(AssertUnwindSafe(setup)).map_err(|payload| {
                let error = Error::panic(0, failure_message(&*payload, 0));
                drop_payload(payload);
                error
            })?;
            if p == 0 {
                return Err(Error::launch(
                    "the set-up asked for 0 processes: cannot run an SPMD program on 0 processes".to_string(),
                ));
            }
            if on_threads && p > crate::MAX_LOCAL_PROCS {
                return Err(crate::env::too_many(&format!("the set-up asked for {p} processes")));
            }
            Ok((p, bytemuck::bytes_of(&value).to_vec()))
        };
        crate::engine::launch_set_up(want, setup, |endpoint, bytes| {
            // On the heap: a process's stack is smaller than the main thread's, and the value
            // may be large (an array of parameters).
            let mut value = bytemuck::allocation::zeroed_box::<S>();
            bytemuck::bytes_of_mut(&mut *value).copy_from_slice(bytes);
            process(Ctx::new(endpoint), &|ctx: &mut Ctx| f(ctx, &value))
        })
    }
}

/// Whether a launch now runs on MPI ranks (the `mpi` feature, started by `mpirun`, not nested
/// in another run).
fn under_mpi() -> bool {
    #[cfg(feature = "mpi")]
    return crate::engine::mpi::wanted();
    #[cfg(not(feature = "mpi"))]
    false
}

/// A launch error found before the engine starts is found identically by every rank under
/// `mpirun` (they share the environment and the code): every rank returns it, the ones other
/// than 0 quieted, so that [`exit_on_error`] prints it once per job. (On the MPI engine,
/// [`Launch::run`] reports it as the engine reports its own launch errors.)
fn once_per_job(error: Error) -> Error {
    match crate::env::mpirun() {
        Some(m) if !m.is_first() => error.quieted(),
        _ => error,
    }
}

/// Runs one process on any engine: the SPMD function, then the collective end. Returns its
/// result, or `None` after recording its failure (or finding the run failed).
pub(crate) fn process<R>(mut ctx: Ctx, f: &impl Fn(&mut Ctx) -> R) -> Option<R> {
    // Processes in one address space hand their trace to the last one to finish, whatever
    // happened; others meet at the end of a successful run and process 0 collects the parts.
    let shared = ctx.one_address_space();
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let r = f(&mut ctx);
        ctx.finish();
        if !shared {
            crate::observe::trace::finish(&mut ctx, Some(&|c: &mut Ctx| c.meet()));
        }
        r
    }));
    if shared {
        crate::observe::trace::finish(&mut ctx, None);
    }
    match outcome {
        Ok(r) => Some(r),
        Err(payload) => {
            let pid = ctx.pid();
            let error = if payload.is::<Stop>() {
                // Already recorded by whoever stopped the run; this makes sure everyone wakes.
                Error::panic(pid, "stopped".to_string())
            } else {
                Error::panic(pid, failure_message(&*payload, pid))
            };
            drop_payload(payload);
            ctx.fate.fail(error);
            None
        }
    }
}

/// Drops a panic payload; a payload whose own `Drop` panics is leaked instead of unwinding
/// out of the launcher (it is user data: nothing else can be done with it).
pub(crate) fn drop_payload(payload: Box<dyn Any + Send>) {
    if let Err(again) = catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        std::mem::forget(again);
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
