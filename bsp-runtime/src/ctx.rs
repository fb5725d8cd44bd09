//! `Ctx`: one process's view of an SPMD run, and the hub every layer of the runtime hangs on.
//!
//! # What lives here, and what does not
//! [`Ctx`] is one type with many `impl` blocks: each primitive is written beside its concern
//! and extends `Ctx` there, so this file holds only the context itself.
//!
//! | `impl Ctx` in | what it adds |
//! |---|---|
//! | `ctx.rs` (here) | `pid`, `nprocs`, `time`, `step`, `abort`; the outbox of the current superstep; the failure paths every primitive uses |
//! | `reg/` | `register`, `unregister` (and their `_each` forms), `with_reg`, `with_regs`, `locals`, and each process's registration table |
//! | `drma/` | `put`, `put_batch`, `combiner`, `put_combine`; `get`, `hpget`, `hpput` and `dest` are on [`Superstep`](crate::Superstep) |
//! | `bsmp.rs` | `send`, `set_tagsize`, `qsize`, `get_tag`, `move_message`, `hpmove` |
//! | `superstep.rs` | `superstep`: the scope in which borrows last until the sync |
//! | `sync/` | `sync`: the phases of the end of a superstep, the collective verdict, where data lands |
//! | `ext/` | the extension hook; the collectives and GP arrays on top of it |
//! | `same.rs`, `observe/` | `same`; `stats`, `set_stats` |
//!
//! # The state of a process
//! - its **outbox** (`outbox/`), two of them kept by the engine and written alternately, one per
//!   superstep parity: everything the process queued for the others in this superstep. Every
//!   primitive appends to it through [`Ctx::outbox`], whose contract (one reference at a time,
//!   never during the reading phases of a sync) is what makes the raw access sound;
//! - its per-superstep [`State`] in a `RefCell` (primitives take `&self`): the registration
//!   table, the callbacks of extension requests, what the engine's read phase left for the put
//!   phase, the tag size, the combining operators, the flags it will arrive with at the sync;
//! - the receive queues of the messages of the previous superstep (user BSMP and the runtime's
//!   own channel), its statistics recorder, and `broken`, set when a superstep closure unwound;
//! - its side of the **engine** ([`AnyEngine`]), taken out of the context while `sync` drives it.
//!
//! `Ctx` is not `Send`: each process's context stays on the thread the engine started it on.
//!
//! # Failures
//! A misuse panics in the process that made it with a message naming the process, the call and
//! the values ([`Ctx::fail_misuse`]); a mismatch every process detects at a sync from the same
//! data is recorded once for the run ([`Ctx::fail_collective`]); a process that finds the run
//! already failed stops silently ([`Ctx::stop`], unwinding with [`Stop`]). The launcher
//! (`launch.rs`) turns the first failure into the run's [`Error`], and the engine's [`Fate`]
//! wakes every process that waits, so nothing hangs.

use std::cell::{Cell, RefCell};
use std::fmt::Display;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Instant;

use crate::Error;
use crate::bsmp::{Recv, TagState};
use crate::engine::{AnyEngine, Endpoint, Fate, Outboxes, ReadResults};
use crate::outbox::{Outbox, Pending};
use crate::reg::Table;

/// What a process waits in, for the watchdog (`observe/watch.rs`): what a sync is part of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Wait {
    Sync = 1,
    Registration = 2,
    Collective = 3,
    GpArray = 4,
    End = 5,
    Checkpoint = 7,
}

impl Wait {
    pub(crate) const ALL: [Wait; 6] =
        [Wait::Sync, Wait::Registration, Wait::Collective, Wait::GpArray, Wait::End, Wait::Checkpoint];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Wait::Sync => crate::calls::calls().sync,
            Wait::Registration => "a registration's sync",
            Wait::Collective => "a collective",
            Wait::GpArray => "a GP array's sync",
            Wait::End => crate::calls::calls().end,
            Wait::Checkpoint => "a checkpoint",
        }
    }
}

/// The payload of a silent unwind: this process stops because the run already failed (the
/// failure is recorded elsewhere), so nothing more is printed.
pub(crate) struct Stop;

/// What a process accumulates during one superstep, besides its outbox.
pub(crate) struct State {
    pub table: Table,
    /// The callbacks of requests to extension objects (`ext/mod.rs`); the requests' parts travel in
    /// the outbox.
    pub requests: Vec<crate::ext::ExtRequest>,
    /// What the engine's read phase left for the put phase: staged get results, extension
    /// replies.
    pub read: ReadResults,
    pub tag: TagState,
    /// Operators of combining puts, by number (`drma/combine.rs`).
    pub combiners: Vec<crate::drma::combine::Op>,
    /// `outbox::flags` bits this process will arrive with.
    pub flags: u64,
    pub pending: Pending,
}

/// One process of an SPMD run: its pid, the number of processes, and every BSPlib primitive.
///
/// A `Ctx` is handed to the SPMD function by [`run`](crate::run) / [`Launch`](crate::Launch)
/// (or `#[bsp::program]`). Operations that copy at the call (`put`, `send`, registration, BSMP
/// reception) take `&self`; [`sync`](Ctx::sync) takes `&mut self`, which is how the compiler
/// knows that no borrow of registered memory or of the message queue survives a sync.
/// Operations that borrow until the sync (`get`, `hpget`, `hpput`) live on
/// [`Superstep`](crate::Superstep), obtained from [`superstep`](Ctx::superstep).
///
/// ```
/// let out = bsp_runtime::run(4, |ctx| {
///     let (pid, p) = (ctx.pid(), ctx.nprocs());
///     let x = ctx.register([pid as i32]);
///     let mut left = -1;
///     ctx.superstep(|s| s.get((pid + p - 1) % p, &x, 0, &mut left));
///     left
/// })
/// .unwrap();
/// assert_eq!(out, vec![3, 0, 1, 2]);
/// ```
pub struct Ctx {
    /// How the run fails, shared with the other processes (of this OS process).
    pub(crate) fate: Arc<Fate>,
    /// This process's side of the engine; taken out while a sync drives it (`sync/`).
    pub(crate) engine: Option<AnyEngine>,
    /// Where the engine keeps this process's two outboxes.
    outboxes: Outboxes,
    pub(crate) pid: usize,
    pub(crate) nprocs: usize,
    pub(crate) step: usize,
    /// Which of the two outboxes the current superstep writes. It alternates at every sync,
    /// except after one that ended with every reader done (`Engine::end_outbox_reads`).
    parity: usize,
    start: Instant,
    pub(crate) state: RefCell<State>,
    pub(crate) recv: Recv,
    /// The runtime's own message queue (`outbox/channel.rs`).
    pub(crate) sys_recv: crate::outbox::channel::SysRecv,
    /// Set when a `superstep` closure unwound: the process may not communicate any more.
    pub(crate) broken: Cell<bool>,
    /// Figures of this process's supersteps (`observe/stats.rs`), and its trace.
    pub(crate) stats: crate::observe::recorder::Recorder,
    /// What this process is doing, for the watchdog (`observe/watch.rs`).
    pub(crate) watch: Arc<crate::observe::watch::Slot>,
    /// Whether the first checkpoint call restores (`checkpoint.rs`).
    pub(crate) checkpoints: crate::checkpoint::Checkpoints,
    _not_send: PhantomData<*const ()>,
}

impl std::fmt::Debug for Ctx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx").field("pid", &self.pid).field("nprocs", &self.nprocs).field("step", &self.step).finish()
    }
}

impl Ctx {
    /// The process at `endpoint`, whose engine keeps its outboxes (valid, and written only by
    /// this process outside its syncs, for as long as the engine lives).
    pub(crate) fn new(endpoint: Endpoint) -> Self {
        let Endpoint { engine, pid, nprocs, outboxes, fate } = endpoint;
        let watch = fate.watch.join(pid, nprocs);
        let stats = crate::observe::recorder::Recorder::new(pid, nprocs);
        if let Some(trace) = &stats.trace {
            fate.watch.add_trace(trace.live());
        }
        Ctx {
            fate,
            engine: Some(engine),
            outboxes,
            pid,
            nprocs,
            step: 0,
            parity: 0,
            start: Instant::now(),
            state: RefCell::new(State {
                table: Table::default(),
                requests: Vec::new(),
                read: ReadResults::default(),
                tag: TagState::default(),
                combiners: Vec::new(),
                flags: 0,
                pending: Pending::default(),
            }),
            recv: Recv::default(),
            sys_recv: Default::default(),
            broken: Cell::new(false),
            stats,
            watch,
            checkpoints: Default::default(),
            _not_send: PhantomData,
        }
    }

    /// Whether every process of the run lives in this OS process (the engine's property).
    pub(crate) fn one_address_space(&self) -> bool {
        self.engine.as_ref().is_some_and(AnyEngine::one_address_space)
    }

    /// This process's id, in `0..nprocs()`.
    pub fn pid(&self) -> usize {
        self.pid
    }

    /// The number of processes in this run.
    pub fn nprocs(&self) -> usize {
        self.nprocs
    }

    /// Seconds since this process started, from a monotonic clock (`bsp_time`).
    ///
    /// Each process has its own clock; nothing makes the clocks of different processes agree.
    ///
    /// Like every runtime call, it stops this process (silently: the run's error is the other
    /// process's) when another process of the run failed, so that a process that computes and
    /// reads the clock does not keep the run waiting.
    pub fn time(&self) -> f64 {
        if self.fate.is_failed() && !std::thread::panicking() {
            self.stop();
        }
        self.start.elapsed().as_secs_f64()
    }

    /// The number of syncs this process has completed: the index of the current superstep.
    pub fn step(&self) -> usize {
        self.step
    }

    /// Stops every process of the run with `msg` (`bsp_abort`).
    ///
    /// Processes waiting in a sync wake up and stop; processes computing stop at their next
    /// communication call. The launcher returns an [`Error`] with this message and pid, for
    /// which [`Error::is_abort`] is true.
    ///
    /// ```
    /// let err = bsp_runtime::run(3, |ctx| {
    ///     if ctx.pid() == 2 {
    ///         ctx.abort(format!("bad input {}", 42));
    ///     }
    ///     ctx.sync();
    /// })
    /// .unwrap_err();
    /// assert_eq!(err.to_string(), "process 2 aborted: bad input 42");
    /// ```
    pub fn abort(&self, msg: impl Display) -> ! {
        self.fate.fail(Error::abort(self.pid, msg.to_string()));
        std::panic::resume_unwind(Box::new(Stop))
    }

    #[inline]
    pub(crate) fn run_id(&self) -> u64 {
        self.fate.run_id()
    }

    /// Which of the two outboxes the current superstep writes (the same on every process: each
    /// sync changes it the same way everywhere).
    #[inline]
    pub(crate) fn parity(&self) -> usize {
        self.parity
    }

    /// Moves to the next superstep's outbox (at the end of a sync).
    #[inline]
    pub(crate) fn advance_parity(&mut self) {
        self.parity ^= 1;
    }

    /// Makes the next superstep write this superstep's outbox again, once every reader is done
    /// with it (the end of a sync, before `advance_parity`, which this undoes).
    #[inline]
    pub(crate) fn keep_outbox(&mut self) {
        self.parity ^= 1;
    }

    /// This process's outbox for the current superstep.
    ///
    /// # Safety
    /// The caller must not hold another reference returned by `outbox` while it uses this one
    /// (each primitive takes it, appends, and drops it before returning or calling anything
    /// that could take it again), and must call it outside the reading phases of a sync (a
    /// primitive, or the sync code before `combine` and after the data phases).
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub(crate) unsafe fn outbox(&self) -> &mut Outbox {
        // SAFETY: this process is the only writer of the outbox of the current parity, and nobody
        // reads it outside the sync that ends the superstep (the engine's contract; the sync
        // switches parity only after every reader is done); the caller holds no other reference
        // to it (this function's contract).
        unsafe { &mut *self.outbox_ptr() }
    }

    /// This process's outbox for the current superstep, to read during its sync.
    ///
    /// # Safety
    /// The caller must call it inside a sync, after `combine` and before the outbox is cleared
    /// for the next superstep, where nothing writes the outbox.
    #[inline]
    pub(crate) unsafe fn outbox_shared(&self) -> &Outbox {
        // SAFETY: nothing writes the outbox in that window (the caller's contract), so shared
        // references to it may coexist.
        unsafe { &*self.outbox_ptr() }
    }

    /// Where this process's outbox for the current superstep is (for [`outbox`](Ctx::outbox)
    /// and the batch of `drma/batch.rs`, under the same contract).
    #[inline]
    pub(crate) fn outbox_ptr(&self) -> *mut Outbox {
        // (The parity is 0 or 1: the mask spares the bounds check on every primitive's path.)
        self.outboxes.0[self.parity() & 1].as_ptr()
    }

    /// Panics (in this process) with a misuse message; the launcher stops the others.
    #[track_caller]
    pub(crate) fn fail_misuse(&self, msg: String) -> ! {
        panic!("process {}: {msg}", self.pid)
    }

    /// Stops this process silently because the run already failed elsewhere.
    pub(crate) fn stop(&self) -> ! {
        std::panic::resume_unwind(Box::new(Stop))
    }

    /// Records a failure every process detects identically (a collective mismatch found at a
    /// sync) and stops this process.
    pub(crate) fn fail_collective(&self, msg: String) -> ! {
        self.fate.fail(Error::collective(self.pid, msg));
        self.stop()
    }

    /// Checks at the start of every primitive: the run has not failed, and this process may
    /// still communicate.
    #[track_caller]
    #[inline]
    pub(crate) fn check_live(&self, op: &str) {
        if self.fate.is_failed() || self.broken.get() {
            self.not_live(op);
        }
    }

    /// Whether [`check_live`](Ctx::check_live) would pass (for a quick path that must not
    /// panic, and leaves the failure to the checked path).
    #[inline]
    pub(crate) fn is_live(&self) -> bool {
        !self.fate.is_failed() && !self.broken.get()
    }

    /// The failure of [`check_live`](Ctx::check_live), out of the primitives' fast path.
    #[cold]
    #[inline(never)]
    #[track_caller]
    fn not_live(&self, op: &str) -> ! {
        if self.fate.is_failed() {
            self.stop();
        }
        self.fail_misuse(format!(
            "{op}: a `superstep` of this process panicked earlier; it cannot communicate any more"
        ))
    }

    /// Checks a destination/source pid.
    #[track_caller]
    #[inline]
    pub(crate) fn check_pid(&self, op: &str, pid: usize) {
        if pid >= self.nprocs {
            self.bad_pid(op, pid);
        }
    }

    #[cold]
    #[inline(never)]
    #[track_caller]
    fn bad_pid(&self, op: &str, pid: usize) -> ! {
        self.fail_misuse(format!("{op}: pid {pid} is out of range (nprocs = {})", self.nprocs))
    }
}
