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
//! 3. Gets (if any process has one): the engine's `read` reads the sources in the owners'
//!    registered memory — before any put of the superstep lands (D1) — and writes the
//!    destinations outside registered memory; `end_reads` waits until nobody reads any more.
//! 4. Each process writes its staged get results (destinations in its own registered memory, in
//!    issue order), then applies the puts addressed to it (ascending source pid, then issue
//!    order; the last write wins, D2), so a put wins over a get (D1).
//! 5. If any process has an `hpput`, `end_puts` keeps its source borrowed until every receiver
//!    has copied from it.
//! 6. Each process delivers extension records, builds its receive queues (ascending source pid,
//!    then send order), applies pops, then pushes, and rotates the tag size.
//!
//! # Who touches registered memory, when
//! Process X's registered memory is written only by X (its own code between syncs, puts and
//! staged get results inside its sync). Others only read it, in phase 3 of a sync that X is in
//! too, and X writes nothing registered until `end_reads`. `hpput` sources that lie in
//! registered memory are copied at the call (`drma.rs`), so phase 4 reads only unregistered,
//! immutably borrowed memory of other processes; and X writes its other runtime-owned memory
//! (receive buffers, extension objects), where such a source may also lie, only in phase 6,
//! after `end_puts`.

pub(crate) mod channel;
pub(crate) mod outbox;

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use crate::engine::{AnyEngine, Engine, Peers, Poisoned, Status};
use crate::observe::stats::Traffic;
use crate::reg::RegState;
use crate::sync::outbox::{flags, Arrival, Pending, PutSrc, LANDED};
use crate::Ctx;

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
    pub fn sync(&mut self) {
        self.check_live("sync");
        self.stats_begin(); // the computation ends; count what this process queued
        let mine = {
            let (step, st) = (self.step, self.state.get_mut());
            let (requested, flags) = (st.tag.requested, st.flags);
            // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
            let out = unsafe { self.outbox() };
            out.meta.arrival = Arrival::Sync;
            out.meta.step = step;
            out.meta.tag_request = requested;
            flags
        };
        let all = self.combine(flags::SYNC | mine);
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
        if self.stats.counting() {
            let sent = self.engine.as_ref().map_or(0, AnyEngine::messages);
            self.stats.note_engine_messages(sent);
        }
        self.stats_end(all);
        self.next_superstep();
        if cfg!(debug_assertions) {
            self.check_promises(); // `same.rs`: the promises of the superstep that just ended
        }
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
                    let st = ctx.state.get_mut();
                    engine.read(&st.table, &mut st.read);
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
                engine.land_puts(&ctx.state.get_mut().table)?;
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

    /// Compares the collective bookkeeping of every process; every process reaches the same
    /// verdict from the same data. Engine-neutral; allocates only to report a mismatch.
    pub(crate) fn check_collectives(&self, peers: &dyn Peers) {
        let p = self.nprocs;
        let step = self.step;
        let first = peers.meta(0);
        let pushes_differ = (1..p).any(|q| peers.meta(q).pushes.len() != first.pushes.len());
        if pushes_differ {
            let counts: Vec<usize> = (0..p).map(|q| peers.meta(q).pushes.len()).collect();
            self.fail_collective(format!(
                "registration mismatch at the sync ending superstep {step}: the processes made different numbers of registrations (`register`, `with_reg`, gp arrays; per process: {counts:?})"
            ));
        }
        for (i, mine) in first.pushes.iter().enumerate() {
            for q in 1..p {
                let other = &peers.meta(q).pushes[i];
                if other.elem_size != mine.elem_size || other.type_name != mine.type_name {
                    self.fail_collective(format!(
                        "registration mismatch at the sync ending superstep {step}: registration #{} holds `{}` ({} bytes) on process 0 but `{}` ({} bytes) on process {q}",
                        mine.serial, mine.type_name, mine.elem_size, other.type_name, other.elem_size
                    ));
                }
            }
        }
        if (1..p).any(|q| peers.meta(q).pops != first.pops) {
            let pops: Vec<String> = (0..p)
                .map(|q| {
                    let ids: Vec<String> = peers.meta(q).pops.iter().map(|s| format!("#{s}")).collect();
                    format!("process {q} popped [{}]", ids.join(", "))
                })
                .collect();
            self.fail_collective(format!(
                "deregistration mismatch at the sync ending superstep {step}: every process must pop the same registrations in the same order, but {}",
                pops.join(", ")
            ));
        }
        if (1..p).any(|q| peers.meta(q).tag_request != first.tag_request) {
            let tags: Vec<usize> = (0..p).map(|q| peers.meta(q).tag_request).collect();
            self.fail_collective(format!(
                "tag size mismatch at the sync ending superstep {step}: the processes requested different tag sizes (per process: {tags:?})"
            ));
        }
    }

    /// Writes the get results that were staged because they land in this process's registered
    /// memory (after `end_reads`: nobody reads it any more in this sync), in issue order.
    fn write_staged_gets(&mut self) {
        // SAFETY: this process's outbox is only read during the sync (by the engine and, on
        // threads, by the other processes); the reference is dropped before this returns.
        let gets = unsafe { &self.outbox_shared().gets };
        let stage = &self.state.borrow().read.stage;
        let mut at = 0;
        for g in gets.iter().filter(|g| g.staged) {
            // SAFETY: the destination is this process's registered memory, borrowed mutably
            // until the end of this sync; after the get-phase barrier no other process reads it
            // in this sync. The stage holds exactly these bytes, in this order.
            unsafe { std::ptr::copy_nonoverlapping(stage[at..].as_ptr(), g.dst_addr as *mut u8, g.bytes) };
            at += g.bytes;
        }
    }

    /// Applies the puts of every process to this one, in ascending source pid and then issue
    /// order; with `count_gets`, also counts the gets this process served (statistics).
    fn apply_puts(&mut self, peers: &dyn Peers, count_gets: bool) {
        // The statistics of what arrives are counted here, in the pass that reads the queues
        // anyway (a second pass would read the other processes' memory again).
        let (counting, me) = (self.stats.counting(), self.pid);
        let mut got = Traffic::default();
        let (mut served, mut served_bytes) = (0, 0);
        for src in peers.senders().iter().map(|&s| s as usize) {
            let Some(q) = peers.queue(src) else {
                continue;
            };
            let counted = counting && src != me;
            if counted {
                got.puts += q.put_calls;
            }
            if counted && count_gets {
                // Gets `src` made of this process: data this process sends.
                served += q.gets;
                served_bytes += q.get_bytes;
            }
            if q.puts.is_empty() {
                continue;
            }
            let st = self.state.borrow();
            // Consecutive puts mostly go to the same registration: look its address up once.
            let mut cached: (u32, usize) = (u32::MAX, 0);
            let mut combines = q.combines.iter();
            for put in &q.puts {
                let len = put.len();
                if counted {
                    got.put_bytes += len;
                }
                let from = match put.src() {
                    PutSrc::Direct(LANDED) => continue,
                    PutSrc::Buffered(at) => q.put_data[at..at + len].as_ptr(),
                    PutSrc::Direct(addr) => addr as *const u8,
                };
                if put.slot != cached.0 {
                    let entry = st.table.entries[put.slot as usize]
                        .as_ref()
                        .expect("put into a slot that was checked at the call");
                    cached = (put.slot, entry.local_addr);
                }
                let dst = cached.1 + put.byte_offset;
                if put.combines() {
                    let tag = *combines.next().expect("one operator per combining put");
                    // SAFETY: the put's bytes: in the sender's outbox (`Buffered`), or moved by the
                    // engine (`land_puts`) into memory it keeps until the end of this sync.
                    let from = unsafe { std::slice::from_raw_parts(from, len) };
                    // SAFETY: as for a plain put below: `dst..dst+len` is inside this process's
                    // registration, written only by this process now, and the source does not
                    // overlap it.
                    unsafe { self.apply_combining_put(src, tag, dst, from) };
                    continue;
                }
                // SAFETY: `dst..dst+len` is inside this process's registration (checked against
                // its extent at the call); only this process writes it now (module docs). The
                // source is the sender's outbox (read-only during this sync), memory the
                // sender borrowed immutably until it leaves this sync, which it cannot do before
                // `end_puts`, or memory the engine keeps unchanged until the end of this sync
                // (MPI: its receive or bounce buffer); it lies outside every registration, so it
                // does not overlap `dst`.
                unsafe { copy_bytes(from, dst as *mut u8, len) };
            }
        }
        if counting {
            let kinds = if count_gets { flags::PUT | flags::GET } else { flags::PUT };
            self.stats.note_incoming(kinds, &got, served, served_bytes);
        }
    }

    /// Delivers extension records (`ext.rs`) to their objects, ascending source pid, then issue
    /// order.
    fn apply_records(&mut self, peers: &dyn Peers) {
        let mut got = Traffic::default();
        for src in peers.senders().iter().map(|&s| s as usize) {
            let Some(q) = peers.queue(src) else {
                continue;
            };
            if src != self.pid {
                got.records += q.ext.len();
                got.record_bytes += q.ext.iter().map(|r| r.len).sum::<usize>();
            }
            for rec in &q.ext {
                let target = {
                    let st = self.state.borrow();
                    let entry =
                        st.table.entries[rec.slot as usize].as_ref().expect("record for a slot checked at the call");
                    entry.ext.as_deref().cloned().expect("records go to extension registrations")
                };
                target.apply(self, src, &q.ext_data[rec.at..rec.at + rec.len]);
            }
        }
        if self.stats.counting() && got.records > 0 {
            self.stats.note_incoming(flags::EXT, &got, 0, 0);
        }
    }

    fn receive_messages(&mut self, peers: &dyn Peers) {
        self.recv.clear();
        self.sys_recv.clear();
        let mut got = Traffic::default();
        for src in peers.senders().iter().map(|&s| s as usize) {
            let Some(q) = peers.queue(src) else {
                continue;
            };
            if src != self.pid {
                got.messages += q.msgs.len();
                got.message_bytes += q.msgs.iter().map(|m| m.tag_len + m.payload_len).sum::<usize>();
            }
            for m in &q.sys_msgs {
                self.sys_recv.push(src, &q.sys_data[m.at..m.at + m.payload_len]);
            }
            for m in &q.msgs {
                let tag = &q.msg_data[m.at..m.at + m.tag_len];
                let payload = &q.msg_data[m.at + m.tag_len..m.at + m.tag_len + m.payload_len];
                self.recv.push(tag, payload, m.align);
            }
        }
        if self.stats.counting() && got.messages > 0 {
            self.stats.note_incoming(flags::MSG, &got, 0, 0);
        }
    }

    fn apply_registrations(&mut self, peers: &dyn Peers) {
        let (p, me) = (self.nprocs, self.pid);
        let st = self.state.get_mut();
        for &serial in &peers.meta(me).pops {
            if let Some(slot) = st.table.find_serial(serial) {
                st.table.release(slot);
            }
        }
        for (i, info) in peers.meta(me).pushes.iter().enumerate() {
            let slot = st.table.find_serial(info.serial).expect("a pushed registration is in the table");
            let e = st.table.entries[slot as usize].as_mut().expect("just found");
            e.state = RegState::Active;
            let row = peers.registration_row(p, i);
            e.remote = row.remote;
            if e.ext.is_some() {
                e.handlers = row.handlers;
            }
        }
    }

    /// Bookkeeping shared by every sync: the next superstep starts with a clean outbox and the
    /// rotated tag size.
    pub(crate) fn next_superstep(&mut self) {
        let st = self.state.get_mut();
        st.requests.clear();
        st.flags = 0;
        st.pending = Pending::default();
        st.tag.in_queue = st.tag.in_force;
        st.tag.in_force = st.tag.requested;
        self.step += 1;
        self.advance_parity();
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        unsafe { self.outbox() }.clear();
    }

    /// Called when the SPMD function returns: the last, collective, step.
    pub(crate) fn finish(&mut self) {
        self.check_live("the end of the SPMD function");
        let (step, pending) = (self.step, self.state.get_mut().pending);
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        let out = unsafe { self.outbox() };
        out.meta.arrival = Arrival::End;
        out.meta.step = step;
        out.meta.pending = pending;
        let mine = flags::END | if pending.total() > 0 { flags::PENDING } else { 0 };
        let all = self.combine(mine);
        if all & (flags::SYNC | flags::PENDING) != 0 {
            let status = Status { arrival: Arrival::End, step, pending };
            let statuses = self.with_engine(|_, e| e.statuses(status));
            self.fail_end(all, &statuses);
        }
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
            self.fail_collective(format!(
                "{} {} returned from the SPMD function while {} {} called `sync` (superstep {step}): every process must make the same number of syncs",
                plural(&ended),
                ended.join(", "),
                plural(&synced),
                synced.join(", ")
            ))
        }
        let culprits: Vec<String> = statuses
            .iter()
            .enumerate()
            .filter(|(_, st)| st.pending.total() > 0)
            .map(|(q, st)| format!("process {q} has {} queued", st.pending))
            .collect();
        self.fail_collective(format!(
            "communication queued after the last sync would never happen: {} when the SPMD function returned in superstep {}; end the function with `sync()`",
            culprits.join("; "),
            self.step
        ))
    }
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

/// `copy_nonoverlapping` with the sizes of single-word puts done inline: for them a call to
/// `memcpy` costs more than the copy.
///
/// # Safety
/// As `std::ptr::copy_nonoverlapping::<u8>(src, dst, len)`.
#[inline(always)]
unsafe fn copy_bytes(src: *const u8, dst: *mut u8, len: usize) {
    // SAFETY: (every arm) the caller guarantees `len` readable bytes at `src` and `len` writable
    // bytes at `dst`, not overlapping; an unaligned access of exactly `len` bytes stays in them.
    unsafe {
        match len {
            8 => dst.cast::<u64>().write_unaligned(src.cast::<u64>().read_unaligned()),
            4 => dst.cast::<u32>().write_unaligned(src.cast::<u32>().read_unaligned()),
            16 => dst.cast::<u128>().write_unaligned(src.cast::<u128>().read_unaligned()),
            _ => std::ptr::copy_nonoverlapping(src, dst, len),
        }
    }
}
