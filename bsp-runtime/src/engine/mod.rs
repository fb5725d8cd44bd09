//! The engine interface: how processes start, meet and move bytes.
//!
//! The BSPlib semantics live above this line, written once: registration tables, queues and
//! issue order (`ctx`, `reg`, `drma`, `bsmp`), the order of a sync's phases and the checks at a
//! sync and at the end of the run (`sync.rs`), and starting and joining a process (`launch.rs`).
//! Those files name no engine. An engine supplies the rest, through the [`Engine`] trait:
//!
//! | the engine owns | threads ([`threads`]) | MPI (`mpi`, cargo feature `mpi`) |
//! |---|---|---|
//! | launch and finish | one thread per process, joined by the caller | one rank per process; surplus ranks idle |
//! | the outboxes ([`Outbox`]) | in the run's shared `Group`, two per process (by superstep parity) | two per rank, in the rank's engine |
//! | combining flags ([`Engine::combine`], at a sync `AnyEngine::arrive`) | the combining barrier (`barrier.rs`) | the flags and the size of what follows, two words to every rank: one `MPI_Sendrecv` on two ranks, an `MPI_Alltoall` on more |
//! | moving outboxes ([`Engine::exchange`]) | nothing moves: peers read each other's outboxes in place | serialised, one exchange of blocks (point to point up to 8 ranks, `MPI_Alltoallv` beyond) |
//! | serving reads ([`Engine::read`]) | the requester copies get sources and calls the owners' extension objects itself | request/reply: owners answer in a second exchange of blocks |
//! | reusing an outbox after bulk puts ([`Engine::end_outbox_reads`]) | one more barrier | nothing to wait for |
//! | ends of phases ([`Engine::end_reads`], [`Engine::end_puts`]) | a barrier each | nothing (the exchange already synchronised) |
//! | failure ([`Fate`]) | the barrier is poisoned, so every waiter wakes | a rank that fails alone calls `MPI_Abort` |
//!
//! # The contract
//! A sync is driven by `Ctx::sync` (`sync.rs`); the engine sees these calls, in this order, on
//! every process, with the same `all` flags everywhere (so every process makes the same calls):
//!
//! 1. [`combine`](Engine::combine)`(flags)` returns the OR of every process's flags, after every
//!    process has finished writing its outbox for the superstep (at a sync and at the end of the
//!    SPMD function it is called as `AnyEngine::arrive`, which lets an engine start the exchange
//!    in the same step). If `all` says nobody queued anything, the sync ends here (an empty
//!    superstep costs one `combine`). If some process
//!    ended its SPMD function instead of syncing, [`statuses`](Engine::statuses) follows (a
//!    collective) and the run fails.
//! 2. [`exchange`](Engine::exchange) makes a [`Peers`] view ([`peers`](Engine::peers)): every
//!    process's collective bookkeeping, and what each queued for this process, valid until the
//!    sync ends.
//! 3. If any process has gets: [`read`](Engine::read) completes this process's gets and
//!    extension requests. Every read of a process's registered memory must happen before that
//!    process writes any of it in this sync: get results that land in the requester's own
//!    registered memory are *staged* (`GetRec::staged`) and written by `sync.rs` only after
//!    [`end_reads`](Engine::end_reads) returns on this process, and `end_reads` may return only
//!    when no process reads this process's memory any more.
//! 4. `sync.rs` writes staged get results, calls [`land_puts`](Engine::land_puts) (an engine
//!    that moves some puts' bytes itself completes them here, landing them in registered
//!    memory only where no other put of the superstep writes), then applies the puts of the
//!    view (reading `PutSrc::Direct` sources: in-place sources on threads, the engine's own
//!    buffers otherwise), then, if any process has an
//!    `hpput`, calls [`end_puts`](Engine::end_puts), which may return only when no process reads
//!    this process's hpput sources any more. Then extension records, messages and registration
//!    changes are applied from the same view.
//! 5. If any process had a bulk buffered put (`flags::BULK`),
//!    [`end_outbox_reads`](Engine::end_outbox_reads) says (after waiting, if it must) whether
//!    nobody reads this superstep's outboxes any more; if so, the next superstep writes the same
//!    outboxes again instead of the other pair.
//!
//! `end_reads` and `end_puts` are called even when a phase of this process panicked (the panic
//! is held until they return, so that memory others still read is not freed by the unwinding).
//! An engine reports a failure of the whole run by returning [`Poisoned`]: the process then
//! stops silently, and the launcher reports the first failure recorded in the [`Fate`].
//!
//! Addresses: `PushInfo::addr`/`handler`, `GetRec::src_addr` and `PutSrc::Direct` are addresses
//! in the sender's memory. Only an engine with one address space (threads) may read through
//! them; any other engine uses the slot, offset and pid beside them.
//!
//! # A third engine
//! A *hybrid* engine (MPI between machines, threads inside each) would be one more
//! implementation: `launch` starts one thread per local process on every rank; `combine` is the
//! threads barrier inside the rank followed, on one thread per rank, by the `MPI_Allreduce` of the
//! rank's combined flags, then a second local barrier to hand the result back; `exchange` lets
//! local peers read each other's outboxes in place (as threads do) and has one thread per rank
//! serialise the parts addressed to other ranks into one `MPI_Alltoallv`, then presents both
//! through one `Peers` view; `read` copies local get sources directly and asks remote owners by
//! request/reply; `end_reads`/`end_puts` are local barriers, since remote readers work on copies.
//! Nothing in `sync.rs` or `launch.rs` would change.

#[cfg(feature = "mpi")]
pub(crate) mod mpi;
#[cfg(feature = "mpi")]
pub(crate) mod mpi_direct;
pub(crate) mod placement;
pub(crate) mod threads;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

pub(crate) use crate::barrier::Poisoned;
use crate::exchange::Outbox;
use crate::sync::{Peers, Status};
use crate::{Ctx, Error, Launch};

/// What an engine does for one process (module docs: the contract).
pub(crate) trait Engine {
    /// Arrives with this process's `flags` and returns the OR of every process's flags.
    fn combine(&mut self, flags: u64) -> Result<u64, Poisoned>;

    /// Every process's arrival, superstep and pending counts (error paths only; collective).
    fn statuses(&mut self, ctx: &Ctx, mine: Status) -> Result<Vec<Status>, Poisoned>;

    /// Makes every process's outbox of this superstep visible to the others.
    fn exchange(&mut self, ctx: &Ctx) -> Result<(), Poisoned>;

    /// The view made by the last `exchange`: everyone's bookkeeping, and what each queued for
    /// this process.
    fn peers(&self) -> &dyn Peers;

    /// Completes this process's gets and extension requests (step 3 of the contract).
    fn read(&mut self, ctx: &mut Ctx);

    /// Returns once no process reads this process's registered memory in this sync any more.
    fn end_reads(&mut self) -> Result<(), Poisoned>;

    /// Completes the puts whose bytes the engine moves by itself (after get results are written,
    /// before `sync.rs` applies the others): a put it lands in registered memory becomes an
    /// empty record in the view, one it lands elsewhere points there (`PutSrc::Direct`).
    fn land_puts(&mut self, ctx: &mut Ctx) -> Result<(), Poisoned>;

    /// Returns once no process reads this process's hpput sources in this sync any more.
    fn end_puts(&mut self) -> Result<(), Poisoned>;

    /// After the last phase of a sync with bulk buffered puts: returns `true` once no process
    /// reads this process's outbox of the sync any more (the next superstep may then write the
    /// same outbox again), or `false` at once where waiting would cost more than it saves.
    fn end_outbox_reads(&mut self) -> Result<bool, Poisoned>;
}

/// The engines this build has. A closed set, so that calls dispatch statically.
pub(crate) enum AnyEngine {
    Threads(threads::Threads),
    #[cfg(feature = "mpi")]
    Mpi(Box<mpi::Mpi>),
}

impl AnyEngine {
    #[inline]
    pub(crate) fn get(&mut self) -> &mut dyn Engine {
        match self {
            AnyEngine::Threads(t) => t,
            #[cfg(feature = "mpi")]
            AnyEngine::Mpi(m) => &mut **m,
        }
    }

    /// Whether every process of the run is in this OS process (threads), so that they can hand
    /// each other data at the end without a collective.
    pub(crate) fn one_address_space(&self) -> bool {
        match self {
            AnyEngine::Threads(_) => true,
            #[cfg(feature = "mpi")]
            AnyEngine::Mpi(_) => false,
        }
    }

    /// [`Engine::combine`], without the indirect call.
    #[inline]
    pub(crate) fn combine(&mut self, flags: u64) -> Result<u64, Poisoned> {
        match self {
            AnyEngine::Threads(t) => t.combine(flags),
            #[cfg(feature = "mpi")]
            AnyEngine::Mpi(m) => m.combine(flags),
        }
    }

    /// The start of a sync or of the end of the SPMD function (the only engine call of an empty
    /// sync): [`Engine::combine`], where the engine may also start the exchange with what this
    /// process queued (`state`, and its outbox of `parity`): the MPI engine announces the size
    /// of what it will send in the same collective.
    #[inline]
    #[cfg_attr(not(feature = "mpi"), allow(unused_variables, reason = "only the MPI engine looks"))]
    pub(crate) fn arrive(
        &mut self,
        state: &std::cell::RefCell<crate::ctx::State>,
        parity: usize,
        flags: u64,
    ) -> Result<u64, Poisoned> {
        match self {
            AnyEngine::Threads(t) => t.combine(flags),
            #[cfg(feature = "mpi")]
            AnyEngine::Mpi(m) => m.arrive(state, parity, flags),
        }
    }
}

/// Starts the processes of a launch on the engine that fits how the program was started.
pub(crate) fn launch<R, F>(launch: &Launch, f: F) -> Result<Vec<R>, Error>
where
    R: Send,
    F: Fn(&mut Ctx) -> R + Sync,
{
    #[cfg(feature = "mpi")]
    if mpi::wanted() {
        return mpi::launch(launch, f);
    }
    threads::launch(launch, f)
}

/// The number of processes a launch starts (`Launch::nprocs`), as the engine that would run it
/// sees it.
pub(crate) fn nprocs(launch: &Launch) -> Result<usize, Error> {
    #[cfg(feature = "mpi")]
    if mpi::wanted() {
        return mpi::nprocs(launch);
    }
    threads::nprocs(launch)
}

/// How a run fails: shared by its processes (one record per run on threads, per rank on MPI).
///
/// The first failure is kept; `failed` tells every process's communication calls to stop, and
/// `wake` lets the engine wake processes that wait (the threads barrier's poison).
pub(crate) struct Fate {
    run_id: u64,
    failed: AtomicBool,
    first: Mutex<Option<Error>>,
    wake: Box<dyn Fn() + Send + Sync>,
}

/// Numbers runs, so that a registration cannot be used in a run it does not belong to.
static NEXT_RUN: AtomicU64 = AtomicU64::new(1);

impl Fate {
    pub(crate) fn new(wake: Box<dyn Fn() + Send + Sync>) -> Self {
        // Relaxed: only uniqueness matters.
        let run_id = NEXT_RUN.fetch_add(1, Ordering::Relaxed);
        Fate { run_id, failed: AtomicBool::new(false), first: Mutex::new(None), wake }
    }

    #[inline]
    pub(crate) fn run_id(&self) -> u64 {
        self.run_id
    }

    /// Whether some process failed.
    #[inline]
    pub(crate) fn is_failed(&self) -> bool {
        // Relaxed: a hint for the checks at each communication call. The failure record itself
        // is read under the mutex, and waiters are woken by `wake`, whose own synchronisation
        // (the barrier's unpark) orders this store before their re-check.
        self.failed.load(Ordering::Relaxed)
    }

    /// Records `error` if it is the first failure, and wakes every waiting process.
    pub(crate) fn fail(&self, error: Error) {
        {
            let mut first = self.first.lock().unwrap_or_else(|e| e.into_inner());
            if first.is_none() {
                *first = Some(error);
            }
        }
        // Relaxed: see `is_failed`.
        self.failed.store(true, Ordering::Relaxed);
        (self.wake)();
    }

    pub(crate) fn take_failure(&self) -> Option<Error> {
        self.first.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// The two outboxes of one process, by superstep parity, as the engine placed them.
///
/// A process writes outbox `step % 2` during superstep `step` and during its sync before
/// `combine`; the engine guarantees that nobody reads it then (module docs of each engine).
#[derive(Clone, Copy)]
pub(crate) struct Outboxes(pub [std::ptr::NonNull<Outbox>; 2]);
