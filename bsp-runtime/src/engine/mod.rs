//! The engine interface: how processes start, meet and move bytes.
//!
//! The BSPlib semantics live above this line, written once: registration tables, queues and
//! issue order (`ctx.rs`, `reg/`, `drma/`, `bsmp.rs`), the order of a sync's phases and the
//! checks at a sync and at the end of the run (`sync/`), and building and running a process
//! (`launch.rs`). Those name no particular engine: they hold an [`AnyEngine`] and call the
//! [`Engine`] trait. An engine supplies the rest and imports none of them: it sees a process
//! only as an [`Endpoint`] (pid, number of processes, outboxes, failure record), the [`Outbox`]
//! it owns (`outbox/`), the registration [`Table`] it reads (`reg/`) and, to serve requests in
//! place, the extension objects that table holds (`ext/`).
//!
//! There are two engines, and the driver runs every layout of the second:
//!
//! | layout | engine | groups × processes | transport |
//! |---|---|---|---|
//! | threads (the default) | [`group`] | one group of p threads | none |
//! | MPI (`mpirun`, cargo feature `mpi`) | [`driver`] | one group of one process per rank | `transport/mpi/` |
//! | hybrid (`BSP_THREADS=T` under `mpirun`) | [`driver`] | one group of T threads per rank | `transport/mpi/` |
//! | in-process groups (`Launch::in_process_groups`, for tests) | [`driver`] | R groups of T threads in this OS process | [`transport::in_process`] |
//!
//! | the engine owns | threads ([`group`]) | the driver ([`driver`]: groups joined by a [`transport`]) |
//! |---|---|---|
//! | places to run ([`Endpoint`]; `launch.rs` builds the `Ctx` and runs the program there) | one thread per process, joined by the caller | a thread per process, T per group (the group's first on the thread that started the rank under MPI) |
//! | the outboxes ([`Outbox`], with the superstep's gets and extension requests) | in the run's shared `Group`, two per process (by superstep parity) | in the group's `Group` |
//! | combining flags ([`Engine::combine`], at a sync [`Engine::arrive`]) | the combining barrier (`group/barrier.rs`) | the group's barrier, the leaders' `Transport::arrive` (MPI: flags and blocks' sizes in one step, one `MPI_Sendrecv` with a small block inline on two ranks, an `MPI_Alltoall` beyond) or `Transport::all_or` where the sparse exchange may follow, the group's barrier again |
//! | moving outboxes ([`Engine::exchange`]) | nothing moves: peers read each other's outboxes in place | in place inside the group; the leader exchanges the blocks for other groups in the arrival (dense, or sparse: `BSP_MPI_EXCHANGE`) |
//! | serving reads ([`Engine::read`]; `sync/gets.rs` writes every get's result) | a get's bytes are read in the owner's memory; the requester calls the owners' extension objects itself | in place inside the group; request/reply between groups, large gets point to point straight into place where the transport can (MPI) |
//! | large puts ([`Engine::land_puts`]) | read in place | point to point where the transport can (MPI), the leader sending and receiving for the whole group |
//! | reusing an outbox after bulk puts ([`Engine::end_outbox_reads`]) | one more barrier | the group's barrier |
//! | ends of phases ([`Engine::end_reads`], [`Engine::end_puts`]) | a barrier each | the group's barrier each (a group of one has nobody to wait for: it costs nothing) |
//! | failure ([`Fate`]) | the barrier is poisoned, so every waiter wakes | the group's barrier is poisoned, then under MPI a rank that fails alone calls `MPI_Abort` (in-process: one record for every group, which poisons every barrier) |
//!
//! # The contract
//! A sync is driven by `Ctx::sync` (`sync/`); the engine sees these calls, in this order, on
//! every process, with the same `all` flags everywhere (so every process makes the same calls):
//!
//! 1. [`arrive`](Engine::arrive)`(parity, flags)` returns the OR of every process's flags, after
//!    every process has finished writing its outbox of `parity` for the superstep, and lets an
//!    engine start the exchange in the same step (the MPI transport announces the sizes of its
//!    blocks). If `all` says nobody queued
//!    anything, the sync ends here (an empty superstep costs one `combine`). If some process
//!    ended its SPMD function instead of syncing, [`statuses`](Engine::statuses) follows (a
//!    collective) and the run fails.
//! 2. [`exchange`](Engine::exchange) makes a [`Peers`] view ([`peers`](Engine::peers)): every
//!    process's collective bookkeeping, and what each queued for this process, valid until the
//!    sync ends.
//! 3. If any process has gets: `sync/` says where each of this process's gets lands (its
//!    destination, or its place in the stage when the destination is registered memory,
//!    `GetRec::staged`); [`read`](Engine::read) says where each get's bytes are (in the owner's
//!    memory, in this address space, or in the engine's buffers), or writes them into place
//!    itself, and answers extension requests; `sync/` then copies every get's bytes to where
//!    they land. Every read of a process's registered memory must happen before that process
//!    writes any of it in this sync: `end_reads` may return only when no process reads this
//!    process's memory any more, and staged results are written only after it.
//! 4. `sync/` writes staged get results, calls [`land_puts`](Engine::land_puts) (an engine
//!    that moves some puts' bytes itself completes them here, landing them in registered
//!    memory only where no other put of the superstep writes), then applies the puts of the
//!    view (reading `PutSrc::Direct` sources: in-place sources on threads, the engine's own
//!    buffers otherwise), then, if any process has an `hpput`, calls
//!    [`end_puts`](Engine::end_puts), which may return only when no process reads this
//!    process's hpput sources any more. Then extension records, messages and registration
//!    changes are applied from the same view.
//! 5. If any process had a bulk buffered put (`flags::BULK`),
//!    [`end_outbox_reads`](Engine::end_outbox_reads) says (after waiting, if it must) whether
//!    nobody reads this superstep's outboxes any more; if so, the next superstep writes the same
//!    outboxes again instead of the other pair.
//!
//! `end_reads`, `land_puts` and `end_puts` are called even when a phase of this process
//! panicked (the panic is held until they return, so that memory others still read is not freed
//! by the unwinding, and an engine that moves bytes for others keeps doing so).
//! An engine reports a failure of the whole run by returning [`Poisoned`]: the process then
//! stops silently, and the launcher reports the first failure recorded in the [`Fate`].
//!
//! Addresses: `PushInfo::addr`/`handler`, `GetRec::src_addr` and `PutSrc::Direct` are addresses
//! in the sender's memory. Only an engine whose processes share the sender's address space may
//! read through them; any other engine uses the slot, offset and pid beside them.
//!
//! # The driver, the group and the transport
//! The driver ([`driver`]) runs a set of *groups* of T processes each, the threads of one
//! address space, which work inside their group as on the threads engine (a [`group::Group`]);
//! one process of each group, its *leader*, moves what crosses groups through a
//! [`transport::Transport`] (the outboxes serialised in [`transport::wire`]). A layout is a
//! function of `driver.rs` that starts the groups of a run with their transport: under `mpirun`,
//! one group per MPI rank and [`transport::mpi`]'s `MpiTransport` (MPI's set-up, for every
//! layout, is `transport/mpi/launch.rs`); without, `launch_in_process`, every group in this OS
//! process joined by [`transport::in_process`] (for tests, Miri and ThreadSanitizer). A new
//! transport is one file in `transport/` (it imports nothing of the driver: it implements
//! [`transport::Transport`]) plus one arm: its layout in `driver.rs`, chosen in [`launch`].
//!
//! # Adding an engine
//! An engine that is not a set of groups is a module here and one arm of [`AnyEngine`], the
//! one place that lists the engines, with its branch in [`launch`] and [`nprocs`]. It provides:
//! - a way to start processes: a function that, given the [`Want`]ed number of processes and the
//!   runtime's `body`, calls `body` once per process with that process's [`Endpoint`] (its
//!   [`AnyEngine`] arm, pid, number of processes, outboxes and [`Fate`]) and collects the results;
//! - the [`Engine`] trait on the per-process part.

pub(crate) mod driver;
pub(crate) mod group;
pub(crate) mod transport;

/// MPI's set-up, for the launchers.
#[cfg(feature = "mpi")]
pub(crate) use transport::mpi::launch as mpi;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::Error;
pub(crate) use crate::outbox::LANDED;
use crate::outbox::{Arrival, DestQueue, Meta, Outbox, Pending};
use crate::reg::Table;

/// What an engine does for one process (module docs: the contract).
pub(crate) trait Engine {
    /// The start of a sync or of the end of the SPMD function (the only engine call of an empty
    /// sync): arrives with this process's `flags`, its outbox of `parity` complete, and returns
    /// the OR of every process's flags. An engine may start the exchange here too.
    fn arrive(&mut self, parity: usize, flags: u64) -> Result<u64, Poisoned>;

    /// Arrives with this process's `flags` and returns the OR of every process's flags.
    fn combine(&mut self, flags: u64) -> Result<u64, Poisoned>;

    /// Every process's arrival, superstep and pending counts, after an `arrive` (error paths
    /// only; collective).
    fn statuses(&mut self, mine: Status) -> Result<Vec<Status>, Poisoned>;

    /// Makes every process's outbox of this superstep (the parity of the last `arrive`)
    /// visible to the others.
    fn exchange(&mut self) -> Result<(), Poisoned>;

    /// The view made by the last `exchange`: everyone's bookkeeping, and what each queued for
    /// this process.
    fn peers(&self) -> &dyn Peers;

    /// Fetches this process's gets and answers its extension requests (step 3 of the
    /// contract). For the `i`-th get record (issue order), `got.gets[i].to` is where `sync/`
    /// lands its bytes; the engine sets `got.gets[i].from` to the address of those bytes,
    /// readable and unchanged until this process's `end_reads` returns, or writes them to
    /// `to` itself (a transfer straight into place) and sets `from` to [`LANDED`]. It leaves
    /// the replies to extension requests (one range per request part, in part order) in `got`.
    fn read(&mut self, table: &Table, got: &mut ReadResults);

    /// Returns once no process reads this process's registered memory in this sync any more.
    fn end_reads(&mut self) -> Result<(), Poisoned> {
        self.end_phase()
    }

    /// Completes the puts whose bytes the engine moves by itself (after get results are written,
    /// before `sync/` applies the others; by default there are none): a put it lands in
    /// registered memory (found in `table`) becomes an empty record in the view, one it lands
    /// elsewhere points there (`PutSrc::Direct`).
    fn land_puts(&mut self, table: &Table) -> Result<(), Poisoned> {
        let _ = table;
        Ok(())
    }

    /// Returns once no process reads this process's hpput sources in this sync any more.
    fn end_puts(&mut self) -> Result<(), Poisoned> {
        self.end_phase()
    }

    /// After the last phase of a sync with bulk buffered puts: returns `true` once no process
    /// reads this process's outbox of the sync any more (the next superstep may then write the
    /// same outbox again), or `false` at once where waiting would cost more than it saves.
    fn end_outbox_reads(&mut self) -> Result<bool, Poisoned> {
        self.end_phase().map(|()| true)
    }

    /// What ends a phase in the defaults of `end_reads`, `end_puts` and `end_outbox_reads`:
    /// returns once every process that reads this one's memory, hpput sources or outbox in
    /// place has left the phase.
    fn end_phase(&mut self) -> Result<(), Poisoned>;
}

/// What the read phase works with: where each get's bytes land and where the engine found
/// them, the bytes of the gets that land in registered memory, and the replies to extension
/// requests. Kept by the process between syncs (its buffers are reused). `sync/gets.rs` fills
/// the landing places and writes every get's result; the engine only says where the bytes are.
#[derive(Debug, Default)]
pub(crate) struct ReadResults {
    /// One per get record of this process, in issue order.
    pub gets: Vec<GetBytes>,
    /// The bytes of the staged gets (`GetRec::staged`), in issue order (grown, never shrunk;
    /// the engine never touches it: `gets[i].to` may point into it).
    pub stage: Vec<u8>,
    /// The replies to extension requests: `reply[ranges[i]]` answers request part `i`.
    pub reply: Vec<u8>,
    pub ranges: Vec<std::ops::Range<usize>>,
}

/// Where one get's bytes go and where the engine found them (`Engine::read`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct GetBytes {
    /// Its destination, or its place in the stage (set by `sync/` before `read`).
    pub to: usize,
    /// Where its bytes are until `end_reads` (set by the engine), or [`LANDED`].
    pub from: usize,
}

/// The engines this build has: the one place that lists them. A closed set, so that the calls
/// of every sync dispatch statically.
pub(crate) enum AnyEngine {
    /// One group, no transport.
    Threads(group::Threads),
    /// Groups joined by a transport: MPI ranks (of one process each, or T), in-process groups.
    Driver(Box<driver::Driver>),
}

impl AnyEngine {
    #[inline]
    pub(crate) fn get(&mut self) -> &mut dyn Engine {
        match self {
            AnyEngine::Threads(t) => t,
            AnyEngine::Driver(d) => &mut **d,
        }
    }

    /// Whether every process of the run is in this OS process (threads), so that they can hand
    /// each other data at the end without a collective.
    pub(crate) fn one_address_space(&self) -> bool {
        match self {
            AnyEngine::Threads(_) => true,
            AnyEngine::Driver(d) => d.one_address_space(),
        }
    }

    /// [`Engine::combine`], without the indirect call.
    #[inline]
    pub(crate) fn combine(&mut self, flags: u64) -> Result<u64, Poisoned> {
        match self {
            AnyEngine::Threads(t) => t.combine(flags),
            AnyEngine::Driver(d) => d.combine(flags),
        }
    }

    /// The messages this process's engine has sent to other OS processes in syncs so far, for
    /// the statistics; `None` for an engine that never sends any (its processes share memory),
    /// so that a sync need not keep the count.
    #[inline]
    pub(crate) fn messages(&self) -> Option<u64> {
        match self {
            AnyEngine::Threads(_) => None,
            AnyEngine::Driver(d) => Some(d.messages()),
        }
    }

    /// [`Engine::arrive`], without the indirect call.
    #[inline]
    pub(crate) fn arrive(&mut self, parity: usize, flags: u64) -> Result<u64, Poisoned> {
        match self {
            AnyEngine::Threads(t) => t.arrive(parity, flags),
            AnyEngine::Driver(d) => d.arrive(parity, flags),
        }
    }
}

/// How many processes a launch asks for, as `launch.rs` read it from the call and the
/// environment: an explicit number, else a default; an engine supplies its own default after
/// these (threads: the cores; MPI: the ranks, which also win over `default`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Want {
    pub requested: Option<usize>,
    pub default: Option<usize>,
    /// Threads per rank under `mpirun` (the hybrid layout), when asked for.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code, reason = "only the MPI layouts read it"))]
    pub threads: Option<usize>,
    /// Without `mpirun`: run the processes as this many groups of threads joined by the
    /// in-process transport (the driver without MPI, for testing).
    pub groups: Option<usize>,
}

/// One place where a process runs, made by the engine for the runtime (`launch.rs`), which
/// builds the process's `Ctx` from it and runs the program there.
pub(crate) struct Endpoint {
    pub engine: AnyEngine,
    pub pid: usize,
    pub nprocs: usize,
    /// Where the engine keeps this process's two outboxes.
    pub outboxes: Outboxes,
    /// How the run fails, shared with the other processes of this OS process.
    pub fate: Arc<Fate>,
}

/// Starts the processes of a launch on the engine that fits how the program was started, and
/// runs `body` at each one's [`Endpoint`]. `body` returns `None` for a process that failed (its
/// failure is in the [`Fate`]); the result is every process's value, or the first failure.
pub(crate) fn launch<R, B>(want: Want, body: B) -> Result<Vec<R>, Error>
where
    R: Send,
    B: Fn(Endpoint) -> Option<R> + Sync,
{
    #[cfg(feature = "mpi")]
    if mpi::wanted() {
        return driver::launch(want, body);
    }
    if let Some(groups) = want.groups {
        return driver::launch_in_process(want, groups, body);
    }
    group::launch(want, body)
}

/// What the set-up of [`launch_set_up`] decided: the number of processes, and the bytes of the
/// value every process receives.
pub(crate) type SetUp = Result<(usize, Vec<u8>), Error>;

/// [`launch`] with the number of processes decided at run time by `setup`, which runs once,
/// before any process starts: on threads on the calling thread; under `mpirun` on rank 0 (the
/// rank with the standard input) once MPI is up, its result broadcast to the other ranks, which
/// then run as they would for `want.requested` = that number (ranks beyond it take no part).
/// `body` gets each endpoint with the set-up's bytes. An error of the set-up ends the launch on
/// every rank (rank 0 prints it).
pub(crate) fn launch_set_up<R, S, B>(want: Want, setup: S, body: B) -> Result<Vec<R>, Error>
where
    R: Send,
    S: FnOnce() -> SetUp,
    B: Fn(Endpoint, &[u8]) -> Option<R> + Sync,
{
    #[cfg(feature = "mpi")]
    if mpi::wanted() {
        return driver::launch_set_up(want, setup, body);
    }
    let (p, bytes) = setup()?;
    group::launch(Want { requested: Some(p), ..want }, |endpoint| body(endpoint, &bytes))
}

/// The number of processes a launch that wants `want` starts, as the engine that would run it
/// sees it.
pub(crate) fn nprocs(want: Want) -> Result<usize, Error> {
    // A set-up on rank 0 asks before its run starts, as any code before a run does.
    #[cfg(feature = "mpi")]
    if mpi::wanted() || mpi::setting_up() {
        return driver::nprocs(want);
    }
    group::nprocs(want)
}

/// An engine call found the run failed (another process panicked or aborted): the process
/// stops silently, and the launcher reports the failure recorded in the [`Fate`].
#[derive(Debug)]
pub(crate) struct Poisoned;

/// How a run fails: shared by its processes (one record per run on threads, per rank on MPI).
///
/// The first failure is kept; `failed` tells every process's communication calls to stop, and
/// `wake` lets the engine wake processes that wait (the threads barrier's poison).
pub(crate) struct Fate {
    run_id: u64,
    /// Where this OS process's processes are, for the watchdog and the signal report.
    pub(crate) watch: Arc<crate::observe::watch::RunWatch>,
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
        let watch = crate::observe::watch::RunWatch::new();
        Fate { run_id, watch, failed: AtomicBool::new(false), first: Mutex::new(None), wake }
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

    #[cfg(feature = "mpi")]
    /// Whether the recorded failure is one that only this OS process knows of (not a collective
    /// mismatch, which every process finds at the same sync).
    pub(crate) fn failed_alone(&self) -> bool {
        self.first.lock().unwrap_or_else(|e| e.into_inner()).as_ref().is_some_and(|e| !e.is_collective())
    }

    /// The first failure, left recorded (for callers that must all learn it).
    pub(crate) fn first_failure(&self) -> Option<Error> {
        self.first.lock().unwrap_or_else(|e| e.into_inner()).clone()
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

/// How one process arrived at a sync or at the end (for the messages of `fail_end`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Status {
    pub arrival: Arrival,
    pub step: usize,
    pub pending: Pending,
}

impl Status {
    /// The status that a process's bookkeeping `m` records.
    pub(crate) fn of(m: &Meta) -> Status {
        Status { arrival: m.arrival, step: m.step, pending: m.pending }
    }
}

/// What a sync reads from the other processes: their bookkeeping, and what they queued for
/// this process. An engine whose processes share memory reads their outboxes in place; one
/// without receives copies.
pub(crate) trait Peers {
    /// The processes that may have queued something for this process in this superstep, in
    /// ascending pid order (the order in which their puts and messages are applied): every
    /// process, or only those that did, where the engine knows (threads, beyond a few dozen).
    fn senders(&self) -> &[u32];
    /// Process `q`'s collective bookkeeping for this superstep.
    fn meta(&self, q: usize) -> &Meta;
    /// What process `src` queued for this process in this superstep, if anything.
    fn queue(&self, src: usize) -> Option<&DestQueue>;
    /// The row of the `i`-th registration pushed in this superstep, for a run of `p`
    /// processes. The rows of all processes are equal, so an engine whose processes share memory
    /// builds one per registration for all of them (O(p) memory per registration, not O(p²)).
    fn registration_row(&self, p: usize, i: usize) -> RegRow {
        RegRow::build(self, p, i)
    }
}

/// Every process's part of one registration, in pid order, as each process's table holds it.
#[derive(Clone)]
pub(crate) struct RegRow {
    /// (address, extent in bytes) of each process's memory.
    pub remote: Arc<[(usize, usize)]>,
    /// Each process's `handler` address (extension registrations; zeros otherwise).
    pub handlers: Arc<[usize]>,
    /// The extent, if every process registered the same one (found once per row, not by each
    /// process that shares it: at p = 10 000 that is 10^4 reads instead of 10^8).
    pub same_extent: Option<usize>,
}

impl RegRow {
    /// The row of the `i`-th registration pushed in this superstep, from every process's
    /// bookkeeping.
    pub(crate) fn build<P: Peers + ?Sized>(peers: &P, p: usize, i: usize) -> RegRow {
        let ext = (0..p).any(|q| peers.meta(q).pushes[i].handler != 0);
        let remote: Arc<[(usize, usize)]> = (0..p)
            .map(|q| {
                let theirs = &peers.meta(q).pushes[i];
                (theirs.addr, theirs.bytes)
            })
            .collect();
        let first = remote.first().map(|&(_, extent)| extent);
        let same_extent = first.filter(|&extent| remote.iter().all(|&(_, theirs)| theirs == extent));
        RegRow {
            remote,
            handlers: if ext { (0..p).map(|q| peers.meta(q).pushes[i].handler).collect() } else { [].into() },
            same_extent,
        }
    }
}
