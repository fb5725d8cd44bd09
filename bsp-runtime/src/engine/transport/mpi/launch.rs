//! MPI's set-up for a run, whatever its layout: whether the program was started by `mpirun`,
//! the number of ranks, MPI's initialisation and finalisation (once per program), the set-up
//! value shared from rank 0, and the report of a failure (printed once for an error every
//! rank found, `MPI_Abort` for one rank's own). The driver's MPI layouts (`driver.rs`) start
//! their groups with it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use crate::Error;
use crate::engine::{Fate, SetUp};

/// Whether this OS process was started by `mpirun` (read before MPI is initialised, which
/// sets some of these variables itself).
pub(crate) fn started_by_mpirun() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"].iter().any(|v| std::env::var_os(v).is_some())
}

/// An MPI run is in progress in this OS process (a nested run then uses threads).
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// MPI was initialised (and finalised) by an earlier run: it cannot be started again.
static USED: AtomicBool = AtomicBool::new(false);

/// Whether rank 0 is running a set-up (`Launch::run_set_up`) now: MPI is initialised for the
/// run to come, and `Launch::nprocs` in the set-up must still answer as before the run.
static SETTING_UP: AtomicBool = AtomicBool::new(false);

/// See [`SETTING_UP`].
pub(crate) fn setting_up() -> bool {
    // Relaxed: read and written by the thread that launches, which runs the set-up.
    SETTING_UP.load(Ordering::Relaxed)
}

/// Whether a launch now should use MPI.
pub(crate) fn wanted() -> bool {
    // Relaxed: read and written by the thread that launches (MPI runs on process 0's thread).
    started_by_mpirun() && !ACTIVE.load(Ordering::Relaxed)
}

/// The number of ranks `mpirun` started, from the environment it gives every rank (before MPI
/// is initialised).
pub(crate) fn ranks_from_env() -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.trim().parse::<usize>().ok())
}

/// Runs `setup` on rank 0 and hands its result to every rank: one broadcast of a header (ok,
/// the number of processes, the length), one of the bytes (the value, or the error's message).
pub(crate) fn share_set_up(world: &SimpleCommunicator, setup: impl FnOnce() -> SetUp) -> SetUp {
    let root = world.process_at_rank(0);
    let mut head = [0u64; 3];
    let mut bytes = Vec::new();
    let mut failed = None;
    if world.rank() == 0 {
        // Relaxed: this thread alone reads it (`setting_up`), while the set-up runs.
        SETTING_UP.store(true, Ordering::Relaxed);
        let decided = setup();
        SETTING_UP.store(false, Ordering::Relaxed);
        match decided {
            Ok((p, value)) => (head, bytes) = ([1, p as u64, value.len() as u64], value),
            Err(e) => {
                bytes = e.to_string().into_bytes();
                head = [0, 0, bytes.len() as u64];
                failed = Some(e);
            }
        }
    }
    root.broadcast_into(&mut head[..]);
    bytes.resize(head[2] as usize, 0);
    root.broadcast_into(&mut bytes[..]);
    match failed {
        Some(e) => Err(e),
        None if head[0] == 0 => Err(Error::launch(String::from_utf8_lossy(&bytes).into_owned())),
        None => Ok((head[1] as usize, bytes)),
    }
}

/// Initialises MPI at `threading` for ranks of `threads` threads each (once per program), runs
/// `run` with the world communicator on this thread, and finalises MPI. As with BSPlib's
/// `bsp_begin`/`bsp_end`, the code after the run continues on rank 0 only: every other rank
/// exits here (status 0, or 1 if the run failed).
pub(crate) fn with_world<R>(
    (threading, threads): (mpi::Threading, usize),
    run: impl FnOnce(SimpleCommunicator) -> Result<R, Error>,
) -> Result<R, Error> {
    let world = World::open(threading, threads)?;
    let result = run(world.comm());
    world.close(result.is_err());
    result
}

/// MPI, initialised for a run and finalised by [`close`](World::close): [`with_world`] in two
/// halves, for a launch whose caller goes on between them (`foreign/launch.rs`).
pub(crate) struct World {
    universe: mpi::environment::Universe,
    rank: usize,
}

impl World {
    /// Initialises MPI at `threading` (once per program), for ranks of `threads` threads each.
    pub(crate) fn open(threading: mpi::Threading, threads: usize) -> Result<World, Error> {
        // Relaxed: only the launching thread reads or writes these (see `wanted`).
        if USED.swap(true, Ordering::Relaxed) {
            return Err(Error::launch(
                "MPI can be started only once per program, and an earlier SPMD run already used it".to_string(),
            ));
        }
        yield_when_crowded(threads);
        let Some((universe, _)) = mpi::initialize_with_threading(threading) else {
            return Err(Error::launch("MPI was already initialised by someone else".to_string()));
        };
        ACTIVE.store(true, Ordering::Relaxed);
        let rank = universe.world().rank() as usize;
        Ok(World { universe, rank })
    }

    /// The world communicator.
    pub(crate) fn comm(&self) -> SimpleCommunicator {
        self.universe.world()
    }

    /// Finalises MPI (after every communicator of the run is gone); every rank but 0 exits here,
    /// with status 1 if the run `failed`.
    pub(crate) fn close(self, failed: bool) {
        ACTIVE.store(false, Ordering::Relaxed);
        let rank = self.rank;
        drop(self.universe);
        if rank != 0 {
            std::process::exit(i32::from(failed));
        }
    }
}

/// Open MPI's variable that makes a rank waiting for messages yield its core between polls.
const YIELD_WHEN_IDLE: &str = "OMPI_MCA_mpi_yield_when_idle";

/// Asks Open MPI to yield when idle if the job's threads on this machine (its ranks here, as
/// `mpirun` tells each rank, times `threads`) outnumber the cores, unless the user set the
/// variable. Open MPI's ranks poll without yielding by default, and where threads outnumber
/// cores a waiting rank then keeps its core for the scheduler's whole time slice (some ms)
/// while the rank it waits for cannot run: an empty sync of `mpirun -n 4`, or of 2 ranks of 2
/// threads, on 2 busy cores took 1.3–2.8 ms instead of 7–10 µs (PERFORMANCE.md, "The three
/// engines"). Where every thread has a core, polling is the faster wait, and is left alone.
fn yield_when_crowded(threads: usize) {
    if std::env::var_os(YIELD_WHEN_IDLE).is_some() {
        return;
    }
    if super::local_ranks().0.saturating_mul(threads) > machine_cores() {
        // SAFETY: MPI reads the environment at `MPI_Init`, which comes after this; the
        // runtime's own threads (the watchdog) and every Rust reader read it through the
        // standard library, whose lock this write takes too. Only a program that reads it
        // through C on another thread while it starts an MPI run could race with it (README
        // says that the launch sets this variable).
        unsafe { std::env::set_var(YIELD_WHEN_IDLE, "1") };
    }
}

/// The cores of this machine: the CPUs Linux has online, not only those this rank may use
/// (`mpirun` binds each rank to one core when it starts at most two, and the job is no more
/// crowded for that); elsewhere, or if that list cannot be read, the cores this thread may use.
fn machine_cores() -> usize {
    let online = std::fs::read_to_string("/sys/devices/system/cpu/online").ok().and_then(|list| {
        // A list of ranges: "0-1", "0-3,8-11", "0".
        list.trim().split(',').try_fold(0usize, |n, range| {
            let (lo, hi) = range.split_once('-').unwrap_or((range, range));
            let (lo, hi) = (lo.parse::<usize>().ok()?, hi.parse::<usize>().ok()?);
            Some(n + hi.checked_sub(lo)? + 1)
        })
    });
    online.filter(|&n| n > 0).unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |c| c.get()))
}

/// What a rank of a run needs after its process ends, to report a failure.
pub(crate) struct RunEnd {
    /// For reporting a collective failure (the run's own communicator may be gone by then).
    fence: SimpleCommunicator,
    fate: Arc<Fate>,
    rank: usize,
}

impl RunEnd {
    /// What reporting the failure of a run whose ranks share `fence` and whose processes on
    /// this rank share `fate` needs.
    pub(crate) fn new(fence: SimpleCommunicator, fate: Arc<Fate>, rank: usize) -> Self {
        RunEnd { fence, fate, rank }
    }

    /// The run's failure, after this rank's process failed: an error every rank found alike is
    /// printed once (by rank 0) and returned quieted; a failure of this rank alone is printed,
    /// and MPI stops every rank (`MPI_Abort`), since the others may wait for it forever.
    pub(crate) fn failed(self, world: &SimpleCommunicator) -> Error {
        let error = self.fate.take_failure().unwrap_or_else(|| Error::panic(self.rank, "stopped".to_string()));
        if error.is_collective() {
            return report_once(&self.fence, error);
        }
        abort_alone(world, Some(error))
    }
}

/// Prints this rank's failure, if any, and ends every rank (`MPI_Abort`): only this rank failed,
/// so the others may wait in a collective forever.
pub(crate) fn abort_alone(world: &SimpleCommunicator, error: Option<Error>) -> ! {
    if let Some(error) = error {
        crate::error::print_error(&error);
    }
    world.abort(1)
}

/// An error that every rank of `comm` found identically: rank 0 prints it now, and no rank
/// returns before it has. (A rank that exits with a non-zero status makes mpirun kill the
/// others, rank 0 included: if rank 0 printed only after returning, as `exit_on_error` does, the
/// message would often be lost.) Every rank returns it quieted, so it is printed once.
pub(crate) fn report_once(comm: &SimpleCommunicator, error: Error) -> Error {
    if comm.rank() == 0 {
        crate::error::print_error(&error);
    }
    comm.barrier();
    error.quieted()
}
