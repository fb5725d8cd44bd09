//! `sync`: the end of a superstep, and the end of the SPMD function.
//!
//! The order of a sync's phases is written here once, for every engine; the engine
//! (`engine/mod.rs`, the contract) only moves bytes and waits.
//!
//! # Phases
//! 1. Every process finishes its outbox and arrives with flags at the engine's `combine`, which
//!    returns their OR. If nobody queued anything, that was the whole sync (one barrier, or one
//!    all-reduce).
//! 2. The engine's `exchange` makes everyone's outbox visible. Everyone checks the collective
//!    bookkeeping (push counts and types, popped registrations, requested tag sizes) from the
//!    same data, so everyone reaches the same verdict and a mismatch fails the run identically on
//!    every process, naming the superstep.
//! 3. Gets (if any process has one): `gets.rs` says where each get lands (its destination, or
//!    the stage when that is registered memory), the engine's `read` finds the sources in the
//!    owners' registered memory — before any put of the superstep lands (D1) — and `gets.rs`
//!    copies every get's bytes to where they land; `end_reads` waits until nobody reads any
//!    more.
//! 4. Each process writes its staged get results (`gets.rs`: destinations in its own registered
//!    memory, in issue order), then applies the puts addressed to it (ascending source pid, then issue
//!    order; the last write wins, D2), so a put wins over a get (D1).
//! 5. If any process has an `hpput`, `end_puts` keeps its source borrowed until every receiver
//!    has copied from it.
//! 6. Each process delivers extension records, builds its receive queues (ascending source pid,
//!    then send order), applies pushes, then pops, and rotates the tag size.
//!
//! # Who touches registered memory, when
//! Process X's registered memory is written only by X (its own code between syncs, puts and
//! staged get results inside its sync). Others only read it, in phase 3 of a sync that X is in
//! too, and X writes nothing registered until `end_reads`. `hpput` sources that lie in
//! registered memory are copied at the call (`drma/mod.rs`), so phase 4 reads only unregistered,
//! immutably borrowed memory of other processes; and X writes its other runtime-owned memory
//! (receive buffers, extension objects), where such a source may also lie, only in phase 6,
//! after `end_puts`.

mod apply;
mod gets;
mod verdict;

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use crate::Ctx;
use crate::ctx::Wait;
use crate::engine::{AnyEngine, Engine, Poisoned, Status};
use crate::outbox::{Arrival, Pending, flags};

impl Ctx {
    /// Ends the superstep (`bsp_sync`): waits for every process, then completes all
    /// communication queued in the superstep.
    ///
    /// After `sync` returns, puts and gets have landed, messages sent to this process in the
    /// superstep are in its queue (older unread ones are gone), registrations pushed in the
    /// superstep are effective and popped ones are gone, and the requested tag size is in force.
    /// An empty superstep costs one barrier.
    ///
    /// # Panics
    /// On every process, if the processes disagree on registrations or tag size, or if one
    /// process returned from the SPMD function while others sync; and silently (so that the
    /// launcher reports the first failure) if another process failed.
    #[track_caller]
    pub fn sync(&mut self) {
        self.sync_as(Wait::Sync);
    }

    /// A sync that is part of a registration, a collective or a GP array operation (`kind`), so
    /// that the watchdog says so.
    #[track_caller]
    pub(crate) fn sync_for(&mut self, kind: Wait) {
        self.sync_as(kind);
    }

    /// The sync, which the watchdog reports as `kind`. An empty superstep (nobody queued
    /// anything, nobody ended) takes the short way: its barrier, the statistics' count of it,
    /// and the bookkeeping of the next superstep; the rest is in `sync_data`.
    #[track_caller]
    #[inline(always)]
    fn sync_as(&mut self, kind: Wait) {
        self.check_live("sync");
        self.watch.waiting(kind, Some(std::panic::Location::caller()));
        self.stats_begin(); // the computation ends
        let mine = {
            let (step, st) = (self.step, self.state.get_mut());
            let (requested, flags) = (st.tag.requested, st.flags);
            // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
            let out = unsafe { self.outbox() };
            // (`arrival` is `Sync` already: `Outbox::clear` set it, and only the end of the SPMD
            // function sets `End`.)
            debug_assert_eq!(out.meta.arrival, Arrival::Sync);
            out.meta.step = step;
            out.meta.tag_request = requested;
            flags
        };
        let all = self.combine(flags::SYNC | mine);
        // (`mine` is part of `all`, so here this process queued nothing either.)
        if all == flags::SYNC {
            // The receive queues of the next superstep are empty.
            self.recv.clear();
            self.sys_recv.clear();
            self.stats_end(flags::SYNC);
        } else {
            self.sync_data(all, mine);
        }
        self.next_superstep();
        if cfg!(debug_assertions) {
            self.check_promises(); // `same.rs`: the promises of the superstep that just ended
        }
    }

    /// The part of a sync after its first barrier when some process queued something or ended
    /// (`all`, this process's flags `mine`).
    #[inline(never)]
    fn sync_data(&mut self, all: u64, mine: u64) {
        self.stats_outgoing(mine); // what this process queued
        if all & flags::END != 0 {
            let status = Status { arrival: Arrival::Sync, step: self.step, pending: Pending::default() };
            let statuses = self.with_engine(|_, e| e.statuses(status));
            self.fail_end(all, &statuses);
        }
        if all & (flags::WORK | flags::GET) != 0 {
            self.exchange(all);
        } else {
            // Nobody sent anything: the receive queues of the next superstep are empty.
            self.recv.clear();
            self.sys_recv.clear();
        }
        self.stats_end(all);
    }

    /// The engine's `combine`: the OR of every process's flags (stops this process silently if
    /// the run failed meanwhile).
    #[inline]
    fn combine(&mut self, flags: u64) -> u64 {
        self.stats.before_wait(); // the combine is the sync's wait
        let parity = self.parity();
        let all = self.engine.as_mut().map(|e| e.arrive(parity, flags));
        self.stats.after_wait();
        match all {
            Some(Ok(all)) => all,
            Some(Err(Poisoned)) => self.stop(),
            None => unreachable!("the engine is taken out only inside a sync"),
        }
    }

    /// Waits until every process has come here too, on any engine (the end of a run, for the
    /// trace; a failed run just returns).
    pub(crate) fn meet(&mut self) {
        if let Some(engine) = self.engine.as_mut() {
            let _ = engine.combine(0);
        }
    }

    /// Runs `f` with the engine taken out of the context (so that both can be borrowed), and
    /// puts it back even if `f` unwinds. Stops this process silently if the run failed.
    fn with_engine<R>(&mut self, f: impl FnOnce(&mut Ctx, &mut dyn Engine) -> Result<R, Poisoned>) -> R {
        let mut engine: AnyEngine = self.engine.take().expect("the engine is taken out only inside a sync");
        let outcome = catch_unwind(AssertUnwindSafe(|| f(self, engine.get())));
        self.engine = Some(engine);
        match outcome {
            Ok(Ok(r)) => r,
            Ok(Err(Poisoned)) => self.stop(),
            Err(payload) => resume_unwind(payload),
        }
    }

    /// The data phases of a sync in which some process queued something (module docs).
    fn exchange(&mut self, all: u64) {
        // A panic in a data phase (a collective mismatch, an extension object serving a request
        // or applying a record, e.g. a GP checksize error) must not unwind yet: other processes
        // may still be reading this process's memory (registered memory until `end_reads`,
        // hpput sources until `end_puts`), and unwinding would free it. So it is caught, the
        // sync's remaining phase ends are kept, and it resumes only when nobody reads this
        // process's memory any more.
        let mut failure = None;
        self.with_engine(|ctx, engine| {
            // 2. Everyone's bookkeeping and queues; the collective checks.
            held(&mut failure, || {
                engine.exchange()?;
                if all & flags::COLLECTIVE != 0 {
                    ctx.check_collectives(engine.peers());
                }
                Ok(())
            })?;
            // 3. Gets and extension requests read their sources before any put lands (D1).
            if all & flags::GET != 0 {
                held(&mut failure, || {
                    ctx.plan_gets();
                    let st = ctx.state.get_mut();
                    engine.read(&st.table, &mut st.read);
                    ctx.land_gets();
                    Ok(())
                })?;
                ctx.stats.before_wait();
                engine.end_reads()?;
                ctx.stats.after_wait();
            }
            // 4. Get results that land in registered memory, then puts (the put wins, D1).
            held(&mut failure, || {
                if all & flags::GET != 0 {
                    ctx.deliver_replies();
                    ctx.write_staged_gets();
                }
                Ok(())
            })?;
            // Called even after a panic here: an engine may move puts for other processes too
            // (the hybrid's leader), which wait for it.
            engine.land_puts(&ctx.state.get_mut().table)?;
            held(&mut failure, || {
                // The put phase also counts the gets this process served (statistics).
                let count_gets = all & flags::GET != 0 && ctx.stats.counting();
                if all & flags::PUT != 0 || count_gets {
                    ctx.apply_puts(engine.peers(), count_gets);
                }
                Ok(())
            })?;
            if all & flags::HPPUT != 0 {
                // Receivers read hpput sources in place until here, so nothing this process's
                // sync writes besides registered memory (hpput sources there were copied at the
                // call) may change before it: its receive buffer (which `hpmove` references point
                // into) and its extension objects are written only after this.
                ctx.stats.before_wait();
                engine.end_puts()?;
                ctx.stats.after_wait();
            }
            // 5. Extension records, messages, registration changes.
            held(&mut failure, || {
                // Each phase runs only if some process queued something for it.
                let peers = engine.peers();
                if all & flags::EXT != 0 {
                    ctx.apply_records(peers);
                }
                if all & flags::MSG != 0 {
                    ctx.receive_messages(peers);
                } else {
                    ctx.recv.clear();
                    ctx.sys_recv.clear();
                }
                if all & flags::COLLECTIVE != 0 {
                    ctx.apply_registrations(peers);
                }
                Ok(())
            })?;
            // 6. After bulk buffered puts, wait (where the engine can, cheaply) until nobody
            // reads this superstep's outboxes any more, so that the next superstep refills the
            // same ones while they are still in the cache.
            // The last use of the parity in this sync: nothing reads an outbox after this phase,
            // and `next_superstep` moves on from the flipped value.
            if all & flags::BULK != 0 && engine.end_outbox_reads()? {
                ctx.keep_outbox();
            }
            Ok(())
        });
        if let Some(payload) = failure {
            self.broken.set(true);
            resume_unwind(payload);
        }
    }

    /// Bookkeeping shared by every sync: the next superstep starts with a clean outbox and the
    /// rotated tag size.
    #[inline(always)]
    pub(crate) fn next_superstep(&mut self) {
        let st = self.state.get_mut();
        if !st.requests.is_empty() {
            clear_requests(&mut st.requests);
        }
        st.flags = 0;
        st.pending = Pending::default();
        st.tag.in_queue = st.tag.in_force;
        st.tag.in_force = st.tag.requested;
        self.step += 1;
        self.watch.computing(self.step);
        self.advance_parity();
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        unsafe { self.outbox() }.clear();
    }

    /// Called when the SPMD function returns: the last, collective, step.
    pub(crate) fn finish(&mut self) {
        self.check_live("the end of the SPMD function");
        let (step, mut pending) = (self.step, self.state.get_mut().pending);
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        let out = unsafe { self.outbox() };
        pending.puts += out.put_calls();
        out.meta.arrival = Arrival::End;
        out.meta.step = step;
        out.meta.pending = pending;
        let mine = flags::END | if pending.total() > 0 { flags::PENDING } else { 0 };
        self.watch.waiting(Wait::End, None);
        let all = self.combine(mine);
        if all & (flags::SYNC | flags::PENDING) != 0 {
            let status = Status { arrival: Arrival::End, step, pending };
            let statuses = self.with_engine(|_, e| e.statuses(status));
            self.fail_end(all, &statuses);
        }
        self.watch.finished();
    }

    /// Reports what is wrong at the end of the SPMD function (or at a sync some process ended
    /// instead of): some processes returned while others synced (D16), or communication was
    /// left queued (D15). Engine-neutral.
    pub(crate) fn fail_end(&self, all: u64, statuses: &[Status]) -> ! {
        if all & flags::SYNC != 0 && all & flags::END != 0 {
            let mut ended = Vec::new();
            let mut synced = Vec::new();
            let mut step = self.step;
            for (q, st) in statuses.iter().enumerate() {
                match st.arrival {
                    Arrival::End => ended.push(q.to_string()),
                    Arrival::Sync => {
                        synced.push(q.to_string());
                        step = st.step;
                    }
                }
            }
            let plural = |v: &Vec<String>| if v.len() == 1 { "process" } else { "processes" };
            let calls = crate::calls::calls();
            self.fail_collective(format!(
                "{} {} {} while {} {} called {} (superstep {step}): every process must make the same number of syncs",
                plural(&ended),
                ended.join(", "),
                calls.ended,
                plural(&synced),
                synced.join(", "),
                calls.sync
            ))
        }
        let culprits: Vec<String> = statuses
            .iter()
            .enumerate()
            .filter(|(_, st)| st.pending.total() > 0)
            .map(|(q, st)| format!("process {q} has {} queued", st.pending))
            .collect();
        let calls = crate::calls::calls();
        self.fail_collective(format!(
            "communication queued after the last sync would never happen: {} {} in superstep {}; {}",
            culprits.join("; "),
            calls.at_end,
            self.step,
            calls.end_advice
        ))
    }
}

/// Drops the callbacks of a superstep's requests to extension objects (out of the empty sync's
/// way).
#[inline(never)]
fn clear_requests(requests: &mut Vec<crate::ext::ExtRequest>) {
    requests.clear();
}

/// Runs one data phase of a sync unless an earlier one panicked; a panic is held in `failure`
/// (see `Ctx::exchange`).
fn held(
    failure: &mut Option<Box<dyn std::any::Any + Send>>,
    f: impl FnOnce() -> Result<(), Poisoned>,
) -> Result<(), Poisoned> {
    if failure.is_some() {
        return Ok(());
    }
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            *failure = Some(payload);
            Ok(())
        }
    }
}
