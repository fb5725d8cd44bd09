//! Launch without a closure: `bsp_begin` returns to its caller as process 0 and `bsp_end` ends
//! the run later, as BSPlib's C interface needs.
//!
//! [`begin`] sets up the engine as `Launch::run` does (`engine/`), runs every process but the
//! caller's through `launch::process` (the SPMD function, then the collective end), and hands
//! the caller's process back as a [`Session`], whose [`end`](Session::end) does for it what
//! `launch::process` does after the SPMD function, then joins the others.
//!
//! | engine | the caller is | the others |
//! |---|---|---|
//! | threads | process 0 | threads started here, running `spmd` |
//! | MPI (`mpirun`) | the rank's first process, the one that calls MPI (MPI initialised at `begin`, finalised at `end`) | the other ranks, each its own caller; with `BSP_THREADS`, the rank's other processes too: threads started here, running `spmd` |
//!
//! The engines' own launch functions are split for this at the same seams: the threads
//! engine's `endpoint`, MPI's `World` and `RunEnd`, the driver's `set_up` and `Starter`.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::engine::Want;
use crate::engine::group::{self as threads, Group, placement};
use crate::{Ctx, Error, Launch};

/// The SPMD function of the processes [`begin`] starts on threads of its own.
pub type Spmd = Arc<dyn Fn(&mut Ctx) + Send + Sync>;

/// The process of the thread that called [`begin`], until [`end`](Session::end).
pub struct Session {
    ctx: Ctx,
    /// The threads of the other processes (threads engine).
    others: Vec<JoinHandle<()>>,
    placed: Option<placement::Placed>,
    /// MPI, open until the end of the run, and what reporting a failure needs (under `mpirun`).
    #[cfg(feature = "mpi")]
    mpi: Option<(crate::engine::mpi::World, crate::engine::mpi::RunEnd)>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("ctx", &self.ctx).field("others", &self.others.len()).finish()
    }
}

/// This rank, when the program was started by `mpirun` and the library runs on MPI.
pub fn mpi_rank() -> Option<usize> {
    #[cfg(feature = "mpi")]
    if crate::engine::mpi::wanted() {
        return ["OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"]
            .iter()
            .find_map(|v| std::env::var(v).ok()?.trim().parse::<usize>().ok());
    }
    None
}

/// Whether the library runs on MPI: the program was started by `mpirun` and built with MPI.
pub fn on_mpi() -> bool {
    #[cfg(feature = "mpi")]
    return crate::engine::mpi::started_by_mpirun();
    #[cfg(not(feature = "mpi"))]
    false
}

/// How many processes `bsp_begin(bsp_nprocs())` would start (`bsp_nprocs` before `bsp_begin`):
/// `BSP_NPROCS`, else the number of cores; under `mpirun`, the number of ranks.
///
/// # Errors
/// If `BSP_NPROCS` is set but not a positive integer.
pub fn procs_available() -> Result<usize, Error> {
    Launch::new().nprocs()
}

/// Starts a run of `p` processes: the caller is process 0 and gets its [`Session`]; the others
/// run `spmd` on threads of their own.
///
/// # Errors
/// If `p` is not positive, if a thread cannot be started, or as [`Launch::nprocs`].
pub fn begin(p: i64, spmd: Spmd) -> Result<Session, Error> {
    crate::env::warn_once();
    #[cfg(feature = "mpi")]
    if crate::engine::mpi::wanted() {
        return begin_mpi(p, spmd);
    }
    let p = match usize::try_from(p) {
        Ok(p) if p > 0 => p,
        _ => return Err(Error::launch(format!("bsp_begin: cannot run an SPMD program on {p} processes"))),
    };
    crate::env::check()?;
    let want = Want { requested: Some(p), default: None, threads: crate::env::threads()?, groups: None };
    let p = threads::nprocs(want)?;
    let (group, parkers, fate) = Group::whole_run(p);
    let mut parkers = parkers.into_iter();
    let first = parkers.next().expect("p >= 1");
    let mut others = Vec::with_capacity(p - 1);
    for (i, parker) in parkers.enumerate() {
        let pid = i + 1;
        let (group, fate_q, spmd) = (group.clone(), fate.clone(), spmd.clone());
        let spawned = std::thread::Builder::new().name(format!("bsp process {pid}")).spawn(move || {
            let placed = placement::pin(pid, p);
            crate::launch::process(Ctx::new(threads::endpoint(&group, pid, parker, &fate_q)), &|ctx: &mut Ctx| {
                spmd(ctx)
            });
            placement::release(placed);
        });
        match spawned {
            Ok(h) => others.push(h),
            Err(e) => {
                // Wakes the processes already started, which would wait for it forever.
                fate.fail(Error::launch(format!("cannot start process {pid} of {p}: {e}")));
                break;
            }
        }
    }
    let ctx = Ctx::new(threads::endpoint(&group, 0, first, &fate));
    if fate.is_failed() {
        let session = Session {
            ctx,
            others,
            placed: None,
            #[cfg(feature = "mpi")]
            mpi: None,
        };
        return Err(session.end().expect_err("the run failed"));
    }
    let placed = Some(placement::pin(0, p));
    Ok(Session {
        ctx,
        others,
        placed,
        #[cfg(feature = "mpi")]
        mpi: None,
    })
}

/// [`begin`] on the driver's MPI layouts: the caller is the rank's first process (the one that
/// calls MPI); the rank's others (`BSP_THREADS`) run `spmd` on threads of their own.
#[cfg(feature = "mpi")]
fn begin_driver(world: crate::engine::mpi::World, want: Want, spmd: Spmd) -> Result<Session, Error> {
    use crate::engine::driver::set_up;
    use crate::engine::mpi::RunEnd;
    use mpi::traits::Communicator;
    let comm = world.comm();
    let (starter, first, parkers, leader, fence) = match set_up(&comm, want) {
        Ok(Some(parts)) => parts,
        Ok(None) => {
            // A rank beyond process 0's count ends here, with status 0.
            drop(comm);
            world.close(false);
            unreachable!("rank 0 always takes part")
        }
        Err(e) => {
            drop(comm);
            world.close(true);
            return Err(e);
        }
    };
    let mut others = Vec::new();
    for (i, parker) in parkers.into_iter().enumerate() {
        let local = i + 1;
        let (starter_q, spmd) = (starter.clone(), spmd.clone());
        let spawned =
            std::thread::Builder::new().name(format!("bsp process {}", starter.pid(local))).spawn(move || {
                let (endpoint, placed) = starter_q.endpoint(local, parker, None);
                crate::launch::process(Ctx::new(endpoint), &|ctx: &mut Ctx| spmd(ctx));
                placement::release(placed);
            });
        match spawned {
            Ok(h) => others.push(h),
            Err(e) => {
                starter.fate.fail(starter.cannot_start(local, &e));
                break;
            }
        }
    }
    let (endpoint, placed) = starter.endpoint(0, first, Some(leader));
    let end = RunEnd::new(fence, starter.fate.clone(), comm.rank() as usize);
    Ok(Session { ctx: Ctx::new(endpoint), others, placed: Some(placed), mpi: Some((world, end)) })
}

/// [`begin`] under `mpirun`: this rank's process, whose number is its rank. Process 0's `p`
/// counts (BSPlib programs read it on process 0 only); a rank beyond it ends here, with status
/// 0, and so does every rank but 0 at the end of the run.
#[cfg(feature = "mpi")]
fn begin_mpi(p: i64, spmd: Spmd) -> Result<Session, Error> {
    use crate::engine::mpi::{World, report_once};
    use mpi::traits::{Communicator, Root};
    let threads = crate::env::threads()?.filter(|&t| t != 1);
    // The hybrid engine's first thread of each rank alone calls MPI.
    let level = if threads.is_some() { mpi::Threading::Funneled } else { mpi::Threading::Single };
    let world = World::open(level, threads.unwrap_or(1))?;
    let comm = world.comm();
    let mut asked = p;
    comm.process_at_rank(0).broadcast_into(&mut asked);
    if asked <= 0 {
        let e =
            report_once(&comm, Error::launch(format!("bsp_begin: cannot run an SPMD program on {asked} processes")));
        world.close(true);
        return Err(e);
    }
    let want = Want { requested: Some(asked as usize), default: None, threads, groups: None };
    drop(comm);
    begin_driver(world, want, spmd)
}

impl Session {
    /// The caller's process.
    pub fn ctx(&mut self) -> &mut Ctx {
        &mut self.ctx
    }

    /// `bsp_end` on process 0: the collective end of its SPMD part (as when a Rust SPMD
    /// function returns), then waits for the other processes.
    ///
    /// # Errors
    /// The run's first failure.
    pub fn end(mut self) -> Result<(), Error> {
        #[cfg(feature = "mpi")]
        if let Some((world, end)) = self.mpi.take() {
            // As `launch::process` on an engine of several address spaces: the collective end,
            // then the ranks meet for the trace.
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                self.ctx.finish();
                crate::observe::trace::finish(&mut self.ctx, Some(&|c: &mut Ctx| c.meet()));
            }));
            if let Err(payload) = outcome {
                record(&self.ctx, payload);
            }
            // The rank's other processes (hybrid engine); after a failure, one of them may wait
            // for the program's exit (the C library's failed calls do), so nobody is joined.
            if self.ctx.fate.is_failed() {
                self.others.clear();
            }
            self.join_others();
            let result = if self.ctx.fate.is_failed() {
                Err(end.failed(&world.comm()))
            } else {
                drop(end);
                Ok(())
            };
            drop(self.ctx); // the run's communicators, before MPI is finalised
            world.close(result.is_err());
            return result;
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| self.ctx.finish()));
        crate::observe::trace::finish(&mut self.ctx, None);
        if let Err(payload) = outcome {
            record(&self.ctx, payload);
        }
        self.join_others();
        match self.ctx.fate.take_failure() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Session {
    /// Waits for the processes this session started on threads of its own (each records its
    /// own failures, as `launch::process` does), then releases the caller's core.
    fn join_others(&mut self) {
        for h in self.others.drain(..) {
            let _ = h.join();
        }
        if let Some(placed) = self.placed.take() {
            placement::release(placed);
        }
    }
}

/// Records the failure of `ctx`'s process that unwound with `payload` (a misuse, `bsp_abort`, or
/// a stop because the run already failed), and returns the run's first failure, which stays
/// recorded (every failing process learns the same one; the caller makes sure it is reported
/// once).
pub fn failure(ctx: &Ctx, payload: Box<dyn Any + Send>) -> Error {
    record(ctx, payload);
    // None only when this process stopped because the run had failed and another process has
    // taken that failure to report it (`RunEnd::failed`): then there is nothing more to say.
    ctx.fate.first_failure().unwrap_or_else(|| Error::panic(ctx.pid(), "stopped".to_string()).quieted())
}

impl Session {
    /// What becomes of the run's first failure, `error`, found by this session's process while
    /// it runs (not at its end): on MPI, an error every rank found alike is printed once, by
    /// rank 0, and every rank but 0 exits here (status 1) once it is printed; a failure of this
    /// rank alone is printed and stops every rank (`MPI_Abort`). On threads it is returned as
    /// it is, for the caller to print.
    pub fn failed(&mut self, error: Error) -> Error {
        #[cfg(feature = "mpi")]
        if let Some((world, end)) = self.mpi.take() {
            let _ = error;
            let error = end.failed(&world.comm());
            world.close(true);
            return error;
        }
        error
    }
}

/// Records a process's failure as `launch::process` does.
/// A process that stopped because the run already failed (`Stop`) records nothing: the run's
/// failure is the other process's, which may already have been taken to be reported.
fn record(ctx: &Ctx, payload: Box<dyn Any + Send>) {
    let pid = ctx.pid();
    if payload.is::<crate::ctx::Stop>() {
        crate::launch::drop_payload(payload);
        return;
    }
    let error = Error::panic(pid, crate::launch::failure_message(&*payload, pid));
    crate::launch::drop_payload(payload);
    ctx.fate.fail(error);
}

/// Whether `error` was already printed (on MPI, by rank 0 for every rank).
pub fn is_quiet(error: &Error) -> bool {
    error.is_quiet()
}
