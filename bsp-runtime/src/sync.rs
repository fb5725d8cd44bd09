//! `sync`: the end of a superstep, and the end of the SPMD function.
//!
//! # Phases (SEMANTICS.md §1)
//! 1. Every process publishes its outbox and arrives at the barrier with flags; the barrier
//!    returns their OR. If nobody queued anything, that was the whole sync (one barrier).
//! 2. Everyone checks the collective bookkeeping (push counts and types, popped registrations,
//!    requested tag sizes) from the same published data, so everyone reaches the same verdict
//!    and a mismatch fails the run identically on every process, naming the superstep.
//! 3. Gets (if any process has one): each requester reads the sources in the owners' registered
//!    memory — before any put of the superstep lands (D1) — and writes its destinations. Then a
//!    barrier, so that no owner applies puts while someone still reads.
//! 4. Each process applies the puts addressed to it (ascending source pid, then issue order;
//!    the last write wins, D2), after its get results (the put wins, D1).
//! 5. If any process has an `hpput`, a barrier keeps its source borrowed until every receiver
//!    has copied from it.
//! 6. Each process delivers extension records, builds its receive queue (ascending source pid,
//!    then send order), applies pops, then pushes, and rotates the tag size.
//!
//! # Who touches registered memory, when
//! Process X's registered memory is written only by X (its own code between syncs, puts and
//! staged get results inside its sync). Others only read it, in phase 3 of a sync that X is in
//! too, and X writes nothing registered until the barrier that ends phase 3. `hpput` sources
//! that lie in registered memory are copied at the call (`drma.rs`), so phase 4 reads only
//! unregistered, immutably borrowed memory of other processes; and X writes its other
//! runtime-owned memory (receive buffer, extension objects), where such a source may also lie,
//! only in phase 6, after the barrier of phase 5.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use crate::engine::threads::Group;
use crate::exchange::{flags, Arrival, DestQueue, Meta, Pending, PutSrc};
use crate::reg::RegState;
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
        self.stats_begin(); // stats: the computation ends; count what this process queued
        #[cfg(feature = "mpi")]
        if self.mpi.is_some() {
            self.sync_mpi();
            return;
        }
        let parity = self.parity();
        let mine = {
            let st = self.state.get_mut();
            let (requested, flags) = (st.tag.requested, st.flags);
            let out = self.outbox();
            out.meta.arrival = Arrival::Sync;
            out.meta.step = self.step;
            out.meta.tag_request = requested;
            flags
        };
        let all = self.barrier(flags::SYNC | mine);
        if all & flags::END != 0 {
            let statuses = self.statuses(parity);
            self.fail_end(all, &statuses);
        }
        if all & (flags::WORK | flags::GET) != 0 {
            self.exchange(all, parity);
        } else {
            // Nobody sent anything: the receive queue of the next superstep is empty.
            self.recv.clear();
        }
        self.stats_end(all, &self.shared_peers(parity)); // stats: count what came in, close the figures
        self.next_superstep();
    }

    fn barrier(&self, flags: u64) -> u64 {
        self.stats.before_wait(); // stats: time in barriers is waiting
        let all = match self.group.barrier(self.pid, &self.parker, flags) {
            Ok(all) => all,
            Err(_) => self.stop(),
        };
        self.stats.after_wait(); // stats:
        all
    }

    /// Process `q`'s bookkeeping for this superstep (threads engine).
    fn peer_meta(&self, q: usize, parity: usize) -> &Meta {
        // SAFETY: called only inside the sync of a superstep of `parity`, after its first
        // barrier (`engine/threads.rs`).
        unsafe { &self.group.outbox(q, parity).meta }
    }

    /// The other processes' outboxes for this superstep, as the threads engine sees them.
    fn shared_peers(&self, parity: usize) -> SharedPeers<'static> {
        // SAFETY: (lifetime only) `self.group` is an `Arc` that `self` keeps alive for the whole
        // sync; the view is used only inside it and never stored.
        let group: &'static Group = unsafe { &*std::ptr::from_ref::<Group>(&self.group) };
        SharedPeers { group, parity, me: self.pid }
    }

    fn exchange(&mut self, all: u64, parity: usize) {
        let peers = self.shared_peers(parity);
        if all & flags::COLLECTIVE != 0 {
            self.check_collectives(&peers);
        }
        // A panic in a data phase (an extension object serving a request or applying a record, e.g. a GP checksize
        // error) must not unwind yet: other processes may still be reading this process's
        // memory (registered memory until the get-phase barrier, hpput sources until the
        // closing barrier), and unwinding would free it. So it is caught, the sync's remaining
        // barriers are kept, and it resumes only when nobody reads this process's memory.
        let mut failure = None;
        if all & flags::GET != 0 {
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| self.read_gets())) {
                failure = Some(p);
            }
            self.barrier(0);
        }
        if failure.is_none() {
            let phase = catch_unwind(AssertUnwindSafe(|| {
                self.deliver_replies();
                self.write_staged_gets();
                self.apply_puts(&peers);
            }));
            if let Err(p) = phase {
                failure = Some(p);
            }
        }
        if all & flags::HPPUT != 0 {
            // Receivers read hpput sources in place until here, so nothing this process's sync
            // writes besides registered memory (hpput sources there were copied at the call)
            // may change before it: its receive buffer (which `hpmove` references point into)
            // and its extension objects are written only after this barrier.
            self.barrier(0);
        }
        if failure.is_none() {
            let phase = catch_unwind(AssertUnwindSafe(|| {
                self.apply_records(&peers);
                self.receive_messages(&peers);
                self.apply_registrations(&peers);
            }));
            if let Err(p) = phase {
                failure = Some(p);
            }
        }
        if let Some(payload) = failure {
            self.broken.set(true);
            resume_unwind(payload);
        }
    }

    /// Everything a process does with what the others sent, in order: puts, extension records,
    /// messages, registration changes. Engine-neutral.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code, reason = "used by the MPI engine"))]
    pub(crate) fn apply_incoming(&mut self, peers: &dyn Peers) {
        self.apply_puts(peers);
        self.apply_records(peers);
        self.receive_messages(peers);
        self.apply_registrations(peers);
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
                "registration mismatch at the sync ending superstep {step}: the processes called `push_reg` different numbers of times (per process: {counts:?})"
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

    fn read_gets(&mut self) {
        self.serve_requests_shared();
        let st = self.state.get_mut();
        st.get_stage.clear();
        for g in &st.gets {
            if g.staged {
                // SAFETY: the source is registered memory of a process that is inside this sync
                // and writes no registered memory before the barrier after this phase; it stays
                // allocated (held by its table) at least until then. `g.bytes` is within its
                // extent (checked at the call).
                let src = unsafe { std::slice::from_raw_parts(g.src_addr as *const u8, g.bytes) };
                st.get_stage.extend_from_slice(src);
            } else {
                // SAFETY: source as above. The destination is memory this process borrowed
                // mutably until the end of this sync (`Superstep::get`), outside every
                // registration, so nobody else reads or writes it; source and destination
                // cannot overlap (one is registered, the other is not).
                unsafe { std::ptr::copy_nonoverlapping(g.src_addr as *const u8, g.dst_addr as *mut u8, g.bytes) };
            }
        }
    }

    fn write_staged_gets(&mut self) {
        let st = self.state.get_mut();
        let mut at = 0;
        for g in st.gets.iter().filter(|g| g.staged) {
            // SAFETY: the destination is this process's registered memory, borrowed mutably
            // until the end of this sync; after the get-phase barrier no other process reads it
            // in this sync. The stage holds exactly these bytes, in this order.
            unsafe { std::ptr::copy_nonoverlapping(st.get_stage[at..].as_ptr(), g.dst_addr as *mut u8, g.bytes) };
            at += g.bytes;
        }
    }

    fn apply_puts(&mut self, peers: &dyn Peers) {
        for src in 0..self.nprocs {
            let q = peers.queue(src);
            if q.puts.is_empty() {
                continue;
            }
            let st = self.state.borrow();
            // Consecutive puts mostly go to the same registration: look its address up once.
            let mut cached: (u32, usize) = (u32::MAX, 0);
            for put in &q.puts {
                if put.slot != cached.0 {
                    let entry = st.table.entries[put.slot as usize]
                        .as_ref()
                        .expect("put into a slot that was checked at the call");
                    cached = (put.slot, entry.local_addr);
                }
                let dst = cached.1 + put.byte_offset;
                let len = put.len();
                let from = match put.src() {
                    PutSrc::Buffered(at) => q.put_data[at..at + len].as_ptr(),
                    PutSrc::Direct(addr) => addr as *const u8,
                };
                // SAFETY: `dst..dst+len` is inside this process's registration (checked against
                // its extent at the call); only this process writes it now (module docs). The
                // source is the sender's outbox (read-only during this sync) or memory the
                // sender borrowed immutably until it leaves this sync, which it cannot do before
                // the closing barrier; it lies outside every registration, so it does not
                // overlap `dst`.
                unsafe { copy_bytes(from, dst as *mut u8, len) };
            }
        }
    }

    /// Delivers extension records (`ext.rs`) to their objects, ascending source pid, then issue
    /// order.
    fn apply_records(&mut self, peers: &dyn Peers) {
        for src in 0..self.nprocs {
            let q = peers.queue(src);
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
    }

    fn receive_messages(&mut self, peers: &dyn Peers) {
        self.recv.clear();
        for src in 0..self.nprocs {
            let q = peers.queue(src);
            for m in &q.msgs {
                let tag = &q.msg_data[m.at..m.at + m.tag_len];
                let payload = &q.msg_data[m.at + m.tag_len..m.at + m.tag_len + m.payload_len];
                self.recv.push(tag, payload, m.align);
            }
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
            e.remote = (0..p)
                .map(|q| {
                    let theirs = &peers.meta(q).pushes[i];
                    (theirs.addr, theirs.bytes)
                })
                .collect();
            if e.ext.is_some() {
                e.handlers = (0..p).map(|q| peers.meta(q).pushes[i].handler).collect();
            }
        }
    }

    /// Bookkeeping shared by every sync: the next superstep starts with a clean outbox and the
    /// rotated tag size.
    pub(crate) fn next_superstep(&mut self) {
        let st = self.state.get_mut();
        st.gets.clear();
        st.requests.clear();
        st.req_parts.clear();
        st.req_data.clear();
        st.flags = 0;
        st.pending = Pending::default();
        st.tag.in_queue = st.tag.in_force;
        st.tag.in_force = st.tag.requested;
        self.step += 1;
        self.outbox().clear();
    }

    /// Called when the SPMD function returns: the last, collective, step.
    pub(crate) fn finish(&mut self) {
        self.check_live("the end of the SPMD function");
        let parity = self.parity();
        let pending = self.state.get_mut().pending;
        let out = self.outbox();
        out.meta.arrival = Arrival::End;
        out.meta.step = self.step;
        out.meta.pending = pending;
        let mine = flags::END | if pending.total() > 0 { flags::PENDING } else { 0 };
        let all = self.barrier(mine);
        if all & (flags::SYNC | flags::PENDING) != 0 {
            let statuses = self.statuses(parity);
            self.fail_end(all, &statuses);
        }
    }

    /// Every process's arrival, superstep and pending counts (threads engine; error paths only).
    fn statuses(&self, parity: usize) -> Vec<Status> {
        (0..self.nprocs)
            .map(|q| {
                let m = self.peer_meta(q, parity);
                Status { arrival: m.arrival, step: m.step, pending: m.pending }
            })
            .collect()
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

/// How one process arrived at a sync or at the end (for the messages of `fail_end`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Status {
    pub arrival: Arrival,
    pub step: usize,
    pub pending: Pending,
}

/// What a sync reads from the other processes: their bookkeeping, and what they queued for
/// this process. The threads engine reads their outboxes in place; an engine without shared
/// memory receives copies.
pub(crate) trait Peers {
    /// Process `q`'s collective bookkeeping for this superstep.
    fn meta(&self, q: usize) -> &Meta;
    /// What process `src` queued for this process in this superstep.
    fn queue(&self, src: usize) -> &DestQueue;
}

/// The threads engine's view: the outboxes of the superstep's parity, read in place.
pub(crate) struct SharedPeers<'a> {
    group: &'a Group,
    parity: usize,
    me: usize,
}

impl Peers for SharedPeers<'_> {
    fn meta(&self, q: usize) -> &Meta {
        // SAFETY: only used inside the sync of a superstep of `parity`, after its first barrier
        // (`engine/threads.rs`).
        unsafe { &self.group.outbox(q, self.parity).meta }
    }

    fn queue(&self, src: usize) -> &DestQueue {
        // SAFETY: as in `meta`.
        unsafe { &self.group.outbox(src, self.parity).to[self.me] }
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
