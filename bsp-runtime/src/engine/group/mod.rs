//! The threads engine: processes are threads of one OS process.
//!
//! # Who touches what, when
//! Each process owns two outboxes, used alternately: superstep `s` writes the one of its parity
//! (given to [`Engine::arrive`], the same on every process). During superstep `s` only the owner writes
//! that outbox. During sync `s`, after the first barrier, any process may read any outbox of
//! that parity, until it leaves sync `s`. The owner clears it again only at the start of the
//! next superstep that has the same parity: normally `s + 2`, i.e. after the first barrier of
//! sync `s + 1`, which every reader reaches only after it left sync `s`. A sync with bulk
//! buffered puts (`flags::BULK`) ends instead with a barrier after its last reading phase
//! ([`Engine::end_outbox_reads`]) and keeps the parity, so that superstep `s + 1` refills the
//! outbox still in the cache. So reads and writes of an outbox never overlap, with no lock. Registered memory follows the rule in `sync/`: gets read the owners'
//! registered memory between the first barrier and the get-phase barrier ([`Engine::end_reads`]),
//! before which no process writes its own; hpput sources are read until the closing barrier
//! ([`Engine::end_puts`]).

pub(crate) mod barrier;
pub(crate) mod placement;

use std::cell::UnsafeCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::primitive::Parker;
use crossbeam_utils::CachePadded;

use super::{AnyEngine, Endpoint, Engine, Fate, Outboxes, Peers, Poisoned, ReadResults, RegRow, Status, Want};
use crate::Error;
use crate::ext::ExtTarget;
use crate::outbox::{DestQueue, Meta, Outbox, ReqPart, Senders};
use crate::reg::Table;
use barrier::Barrier;

/// Outboxes of one process, by superstep parity.
struct Slot {
    out: [UnsafeCell<Outbox>; 2],
}

/// The shared state of the processes of one SPMD run that are threads of this OS process: all of
/// them on the threads engine, those of one group of the driver otherwise. A group of `local`
/// processes whose outboxes address `global` processes.
pub(crate) struct Group {
    barrier: Barrier,
    slots: Box<[CachePadded<Slot>]>,
    /// The rows of the registrations taking effect in the sync in progress, by serial: the
    /// first process to apply one builds it, the others share it, the last one removes it.
    rows: Mutex<HashMap<u64, (RegRow, usize)>>,
    /// Beyond [`VISIT_ALL_UP_TO`] processes: who queued something for whom in a superstep.
    senders: Option<Arc<Senders>>,
}

/// Up to this many processes, a sync visits every process's outbox for what it queued for this
/// one (a few reads, cheaper than noting senders). Beyond, senders note themselves at their
/// destinations during the superstep ([`Senders`]) and a sync visits only them, so that its
/// work follows the communication, not p².
const VISIT_ALL_UP_TO: usize = 64;

// SAFETY: the only non-Sync parts are the outboxes in `UnsafeCell`s; their accesses follow the
// parity protocol of the module docs (one writer at a time, never concurrent with readers), with
// the barrier providing the happens-before edges.
unsafe impl Sync for Group {}

impl Group {
    /// A group of `local` processes (local indices `0..local`) in a run of `global`, on a
    /// machine that runs `busy` processes in all (other ranks' threads too: the barrier's
    /// strategy follows it); senders note themselves at their destinations (`Senders`) only when
    /// the group is the whole run and larger than [`VISIT_ALL_UP_TO`].
    pub(crate) fn new(local: usize, global: usize, busy: usize) -> (Self, Vec<Parker>) {
        let (barrier, parkers) = Barrier::sharing(local, busy);
        let senders = (local == global && local > VISIT_ALL_UP_TO).then(|| Arc::new(Senders::new(local)));
        let outbox = |pid: usize, parity: usize| match &senders {
            Some(s) => Outbox::noting(global, s.clone(), pid, parity),
            None => Outbox::new(global),
        };
        let slots = (0..local)
            .map(|pid| {
                CachePadded::new(Slot { out: [UnsafeCell::new(outbox(pid, 0)), UnsafeCell::new(outbox(pid, 1))] })
            })
            .collect();
        (Group { barrier, slots, rows: Mutex::default(), senders }, parkers)
    }

    /// The group's combining barrier.
    pub(crate) fn barrier(&self) -> &Barrier {
        &self.barrier
    }

    /// The group of a threads run of `p` processes (the whole run), the parkers of its
    /// processes, and the run's failure record, which poisons the group.
    pub(crate) fn whole_run(p: usize) -> (Arc<Group>, Vec<Parker>, Arc<Fate>) {
        let (group, parkers) = Group::new(p, p, p);
        let group = Arc::new(group);
        let poison = group.clone();
        (group, parkers, Arc::new(Fate::new(Box::new(move || poison.poison()))))
    }

    /// Wakes every process of the group that waits (a failure).
    pub(crate) fn poison(&self) {
        self.barrier.poison();
    }

    /// The row of a registration (by `serial`) that `sharers` processes of the group take in
    /// one sync: the first to ask builds it with `build`, the others share it, the last one
    /// removes it from the group.
    pub(crate) fn shared_row(&self, serial: u64, sharers: usize, build: impl FnOnce() -> RegRow) -> RegRow {
        if sharers == 1 {
            return build();
        }
        // Building a row cannot panic halfway through a change of the map, so a poisoned lock
        // (a process failed elsewhere while holding it) still guards a consistent map.
        let mut rows = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        match rows.get_mut(&serial) {
            Some((row, taken)) => {
                let row = row.clone();
                *taken += 1;
                if *taken == sharers {
                    rows.remove(&serial);
                }
                row
            }
            None => {
                let row = build();
                rows.insert(serial, (row.clone(), 1));
                row
            }
        }
    }

    /// The outboxes of local process `pid`, for its endpoint.
    pub(crate) fn outboxes(&self, pid: usize) -> Outboxes {
        let out = &self.slots[pid].out;
        let ptr = |cell: &UnsafeCell<Outbox>| std::ptr::NonNull::new(cell.get()).expect("an UnsafeCell is never null");
        Outboxes([ptr(&out[0]), ptr(&out[1])])
    }

    /// The outbox of `pid` for the superstep of `parity`, to read during that superstep's sync.
    ///
    /// # Safety
    /// The caller must be inside the sync of a superstep of that parity, after its first barrier.
    pub(crate) unsafe fn outbox(&self, pid: usize, parity: usize) -> &Outbox {
        // SAFETY: the owner finished writing before the first barrier and does not write again
        // until every process has left this sync (module docs).
        unsafe { &*self.slots[pid].out[parity].get() }
    }
}

/// One process's side of the threads engine.
pub(crate) struct Threads {
    group: Arc<Group>,
    parker: Parker,
    pid: usize,
    /// The parity of the superstep whose sync is in progress (set by `arrive`).
    parity: usize,
    /// The processes that may have queued something for this one in this superstep, ascending:
    /// every process, or (with `Group::senders`) those noted, taken by `exchange`.
    senders: Vec<u32>,
}

impl Engine for Threads {
    #[inline]
    fn arrive(&mut self, parity: usize, flags: u64) -> Result<u64, Poisoned> {
        self.parity = parity;
        self.combine(flags)
    }

    #[inline]
    fn combine(&mut self, flags: u64) -> Result<u64, Poisoned> {
        self.group.barrier.wait(self.pid, &self.parker, flags)
    }

    fn statuses(&mut self, _mine: Status) -> Result<Vec<Status>, Poisoned> {
        Ok((0..self.group.slots.len()).map(|q| Status::of(self.meta(q))).collect())
    }

    fn exchange(&mut self) -> Result<(), Poisoned> {
        // Nothing moves: after the first barrier every outbox of this parity is complete, and so
        // is the list of this process's senders.
        if let Some(senders) = &self.group.senders {
            senders.take(self.pid, self.parity, &mut self.senders);
        }
        Ok(())
    }

    fn peers(&self) -> &dyn Peers {
        self
    }

    fn read(&mut self, table: &Table, got: &mut ReadResults) {
        // SAFETY: inside the sync of a superstep of `parity`, after its first barrier.
        let mine = unsafe { self.group.outbox(self.pid, self.parity) };
        got.reply.clear();
        got.ranges.clear();
        // One reply range per part, in part order (parts of all requests are contiguous).
        for part in &mine.req_parts {
            // SAFETY: every owner is a thread of this run inside this sync, before its
            // `end_reads`; `table` is this process's, whose requests were checked at the call.
            unsafe { serve_in_place(table, self.pid, part, &mine.req_data, &mut got.reply) };
            got.ranges.push(got.ranges.last().map_or(0, |r| r.end)..got.reply.len());
        }
        // Every get's bytes are in its owner's registered memory, in this address space, which
        // its owner (inside this sync) writes only after its `end_reads`, the barrier that
        // this process's `end_reads` is too.
        for (g, b) in mine.gets.iter().zip(&mut got.gets) {
            b.from = g.src_addr;
        }
    }

    fn end_phase(&mut self) -> Result<(), Poisoned> {
        // A barrier: every process has left the phase (receivers copy every put themselves, in
        // `sync/`: no `land_puts`).
        self.combine(0).map(drop)
    }
}

/// Answers request part `part` of process `me` (bytes in `data`) by calling the owner's
/// extension object directly, in this address space, appending the reply to `reply`. The
/// replies are only collected; `sync/` hands them to the callbacks after the get-phase barrier,
/// because a callback writes its destination, which may be memory that other processes read in
/// this phase (registered memory, GP elements).
///
/// # Safety
/// The owner, process `part.pid`, must be a process of this address space inside the same sync,
/// before its `end_reads` (so that its registration, and the extension object its table entry
/// holds, stay where they are and nobody writes the object), and `table` must be the table of
/// process `me` with the registration of `part.slot` in effect (so that its `handlers` row holds
/// the address of that object, published when the registration took effect).
pub(crate) unsafe fn serve_in_place(table: &Table, me: usize, part: &ReqPart, data: &[u8], reply: &mut Vec<u8>) {
    let entry = table.entries[part.slot as usize].as_ref().expect("a request checked at the call");
    let handler = entry.handlers[part.pid];
    // SAFETY: `handler` is the address of the `Arc<dyn ExtTarget>` that process `part.pid` keeps
    // boxed in its table entry for this registration, in this address space; it stays there,
    // unchanged, until the registration is gone, which is after this get phase (the caller's
    // contract).
    let target = unsafe { &*(handler as *const Arc<dyn ExtTarget>) };
    target.serve(me, &data[part.at..part.at + part.len], reply);
}

impl Peers for Threads {
    fn senders(&self) -> &[u32] {
        &self.senders
    }

    fn meta(&self, q: usize) -> &Meta {
        // SAFETY: the view is used only inside the sync of a superstep of `parity`, after its
        // first barrier (`exchange` is called after `combine`).
        unsafe { &self.group.outbox(q, self.parity).meta }
    }

    fn queue(&self, src: usize) -> Option<&DestQueue> {
        // SAFETY: as in `meta`.
        unsafe { self.group.outbox(src, self.parity).queue(self.pid) }
    }

    fn registration_row(&self, p: usize, i: usize) -> RegRow {
        let serial = self.meta(self.pid).pushes[i].serial;
        self.group.shared_row(serial, p, || RegRow::build(self, p, i))
    }
}

/// The number of processes of a launch on threads: by default one per core.
pub(crate) fn nprocs(want: Want) -> Result<usize, Error> {
    let p =
        want.requested.or(want.default).unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if p == 0 {
        return Err(Error::launch("cannot run an SPMD program on 0 processes".to_string()));
    }
    Ok(p)
}

/// The endpoint of process `pid` of a threads run whose processes are the whole of `group`.
pub(crate) fn endpoint(group: &Arc<Group>, pid: usize, parker: Parker, fate: &Arc<Fate>) -> Endpoint {
    let p = group.slots.len();
    // Without noted senders, a sync visits every process.
    let senders = if group.senders.is_some() { Vec::new() } else { (0..p as u32).collect() };
    let engine = Threads { group: group.clone(), parker, pid, parity: 0, senders };
    let outboxes = group.outboxes(pid);
    Endpoint { engine: AnyEngine::Threads(engine), pid, nprocs: p, outboxes, fate: fate.clone() }
}

/// Runs `body` at the endpoints of `want` processes, one thread each; process 0 on the calling
/// thread.
pub(crate) fn launch<R, B>(want: Want, body: B) -> Result<Vec<R>, Error>
where
    R: Send,
    B: Fn(Endpoint) -> Option<R> + Sync,
{
    let p = nprocs(want)?;
    let (group, parkers, fate) = Group::whole_run(p);
    let start = |pid: usize, parker: Parker| {
        let placed = placement::pin(pid, p);
        let result = body(endpoint(&group, pid, parker, &fate));
        placement::release(placed);
        result
    };
    let cannot_start = |pid: usize, e: std::io::Error| Error::launch(format!("cannot start process {pid} of {p}: {e}"));
    run_all(parkers, &fate, start, cannot_start)
}

/// Runs `start(pid, args[pid])` for every process of a run of `args.len()` processes in this
/// OS process, one thread each (process 0 on the calling thread), and returns their results in
/// pid order, or the run's first failure from `fate`. A thread that cannot start fails the run
/// (`cannot_start` says how), which wakes the processes already started.
pub(crate) fn run_all<R: Send, A: Send>(
    args: Vec<A>,
    fate: &Fate,
    start: impl Fn(usize, A) -> Option<R> + Sync,
    cannot_start: impl Fn(usize, std::io::Error) -> Error,
) -> Result<Vec<R>, Error> {
    let mut args = args.into_iter();
    let first = args.next().expect("p >= 1");
    let first = || if fate.is_failed() { None } else { start(0, first) };
    let results = run_threads(0, fate, first, args.collect(), &start, cannot_start);
    match fate.take_failure() {
        Some(e) => Err(e),
        None => all_results(results, 0),
    }
}

/// Runs `first` on the calling thread and `start(i, others[i - 1])` for `i` from 1 on threads
/// of their own (named after process `base + i`), and joins them once `first` returned: every
/// result, in order (`None` for a process that failed). A thread that cannot start fails the
/// run through `fate` (`cannot_start` says how), which wakes the processes already started.
pub(crate) fn run_threads<R: Send, A: Send>(
    base: usize,
    fate: &Fate,
    first: impl FnOnce() -> Option<R>,
    others: Vec<A>,
    start: &(impl Fn(usize, A) -> Option<R> + Sync),
    cannot_start: impl Fn(usize, std::io::Error) -> Error,
) -> Vec<Option<R>> {
    std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(others.len());
        for (i, arg) in others.into_iter().enumerate() {
            let spawned = std::thread::Builder::new()
                .name(format!("bsp process {}", base + i + 1))
                .spawn_scoped(scope, move || start(i + 1, arg));
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    // Wakes the processes already started, which would wait for it forever.
                    fate.fail(cannot_start(i + 1, e));
                    break;
                }
            }
        }
        let mut results = vec![first()];
        // A process thread cannot panic (`process` catches everything, and a failure to catch
        // is recorded as the run's failure); a join error still must not lose the others.
        results.extend(handles.into_iter().map(|h| h.join().unwrap_or(None)));
        results
    })
}

/// Every process's result, the first being process `base`'s, in a run without a recorded
/// failure (where every process returned its result).
pub(crate) fn all_results<R>(results: Vec<Option<R>>, base: usize) -> Result<Vec<R>, Error> {
    let no_result = |pid: usize| Error::launch(format!("process {pid} ended without a result or an error"));
    results.into_iter().enumerate().map(|(i, r)| r.ok_or_else(|| no_result(base + i))).collect()
}
