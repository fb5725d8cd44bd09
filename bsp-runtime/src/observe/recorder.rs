//! The recorder of a process's statistics: what each sync counts and times, kept in the
//! running totals that [`Ctx::stats`] reads (its figures are the public types of `stats.rs`),
//! and the spans it hands to the trace (`trace/`) when `BSP_TRACE` asks for one.

use std::cell::Cell;
use std::time::{Duration, Instant};

use crate::Ctx;
use crate::observe::stats::{Stats, StatsMode, StepStats, Totals, Traffic};
use crate::observe::trace::Phase;
use crate::outbox::flags;

/// The per-process recorder, a field of `Ctx`. The clock state is in `Cell`s because barriers
/// are entered through `&Ctx`.
///
/// Counting adds each figure once, to the running totals, in the pass that reads a queue
/// anyway. The last superstep's traffic is what the totals grew by since `base` was taken, at
/// the start of its sync, and is worked out only when [`Ctx::stats`] is read. Taking `base`
/// copies only the kinds of traffic that moved in the superstep before: the others are equal
/// in both already.
#[derive(Debug)]
pub(crate) struct Recorder {
    /// Counting is on.
    on: bool,
    /// Timing is on (implies `on`).
    timed: bool,
    /// The kinds of traffic (outbox flags, [`KINDS`]) the totals have grown by since `base`
    /// was taken: the next sync takes those again.
    grew: u64,
    /// The totals when the last superstep's sync started (only traffic, h and messages are
    /// read from it).
    base: Totals,
    /// The bytes this process sent and received in the superstep being counted (its h is the
    /// larger).
    step_sent: usize,
    step_received: usize,
    /// The last superstep's index and times (the times stay zero while timing is off).
    step: usize,
    /// Timing was turned off: the next sync zeroes the times.
    stale_times: bool,
    compute: Duration,
    wait: Cell<Duration>,
    data: Cell<Duration>,
    /// The running totals.
    total: Totals,
    /// The last time taken: the end of the span being measured starts there.
    last: Cell<Instant>,
    /// `last` was taken by `begin` and no barrier started since: the first barrier of a sync
    /// reuses it.
    fresh: Cell<bool>,
    /// Inside a sync (or the final barrier): spans before a barrier are data, not compute.
    in_sync: Cell<bool>,
    /// When the current superstep started (the end of the previous sync).
    step_start: Instant,
    /// Events for `BSP_TRACE` / `BSP_TRACE_SUMMARY`, when asked for.
    pub(crate) trace: Option<Box<crate::observe::trace::Buffer>>,
    /// The engine's message count at the end of the last sync counted.
    engine_messages: u64,
}

impl Recorder {
    /// A recorder starting now, in the mode `BSP_STATS` asks for ([`StatsMode::from_env`]);
    /// tracing is on (and then the mode `Timed`) when `BSP_TRACE` or `BSP_TRACE_SUMMARY` is set.
    pub(crate) fn new(pid: usize, nprocs: usize) -> Self {
        let trace = crate::observe::trace::Buffer::wanted(pid, nprocs).map(Box::new);
        let now = Instant::now(); // after the trace's origin
        let mode = if trace.is_some() { StatsMode::Timed } else { StatsMode::from_env() };
        Recorder {
            on: mode != StatsMode::Off,
            timed: mode == StatsMode::Timed,
            grew: 0,
            base: Totals::default(),
            step_sent: 0,
            step_received: 0,
            step: 0,
            stale_times: false,
            compute: Duration::ZERO,
            wait: Cell::new(Duration::ZERO),
            data: Cell::new(Duration::ZERO),
            total: Totals::default(),
            last: Cell::new(now),
            fresh: Cell::new(false),
            in_sync: Cell::new(false),
            step_start: now,
            trace,
            engine_messages: 0,
        }
    }

    /// The figures as [`Ctx::stats`] gives them.
    fn stats(&self) -> Stats {
        let (t, b) = (&self.total, &self.base);
        let sent = t.sent.minus(&b.sent);
        let received = t.received.minus(&b.received);
        let last = StepStats {
            step: self.step,
            compute: self.compute,
            wait: self.wait.get(),
            data: self.data.get(),
            sent,
            received,
            local: t.local.minus(&b.local),
            h_bytes: t.h_bytes - b.h_bytes,
            engine_messages: t.engine_messages - b.engine_messages,
        };
        Stats { last, total: self.total }
    }

    /// Ends the current span: returns its length and starts the next one now.
    #[inline]
    fn lap(&self) -> (Duration, Instant) {
        let now = Instant::now();
        let d = now.saturating_duration_since(self.last.get());
        self.last.set(now);
        (d, now)
    }

    /// Before a barrier (or the reduction that starts an MPI sync): the span so far was data,
    /// or compute for the barrier at the end of the SPMD function.
    #[inline(always)]
    pub(crate) fn before_wait(&self) {
        if self.timed {
            self.before_wait_timed();
        }
    }

    #[inline(never)]
    fn before_wait_timed(&self) {
        if self.fresh.replace(false) {
            return;
        }
        let (d, now) = self.lap();
        if self.in_sync.replace(true) {
            self.data.set(self.data.get() + d);
            if let Some(t) = &self.trace {
                t.mark(Phase::Data, now);
            }
        } else if let Some(t) = &self.trace {
            // The end of the SPMD function: the last superstep's computation ends here.
            t.end_compute(now);
        }
    }

    /// After a barrier: the span was waiting.
    #[inline(always)]
    pub(crate) fn after_wait(&self) {
        if self.timed {
            self.after_wait_timed();
        }
    }

    #[inline(never)]
    fn after_wait_timed(&self) {
        let (d, now) = self.lap();
        self.wait.set(self.wait.get() + d);
        if let Some(t) = &self.trace {
            t.mark(Phase::Wait, now);
        }
    }
}

impl Ctx {
    /// The statistics of this process: the last superstep's figures and the totals so far
    /// (see the [`stats`](crate::stats) module for what is counted and how).
    ///
    /// ```
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let x = ctx.register([0u32; 4]);
    ///     ctx.put(1 - ctx.pid(), &[1u32, 2, 3, 4], &x, 0);
    ///     ctx.sync();
    ///     let s = ctx.stats();
    ///     assert_eq!(s.last.step, 1);
    ///     assert_eq!(s.total.supersteps, 2);
    ///     (s.last.sent.put_bytes, s.last.received.put_bytes, s.last.h_words())
    /// })
    /// .unwrap();
    /// assert_eq!(out, vec![(16, 16, 2), (16, 16, 2)]);
    /// ```
    pub fn stats(&self) -> Stats {
        self.stats.stats()
    }

    /// Sets what the statistics of this process collect, from the next sync on: times and
    /// counts, counts only (the default, unless the environment sets `BSP_STATS`, see
    /// [`StatsMode::from_env`]), or nothing. [`stats`](Ctx::stats) keeps the figures of the
    /// last superstep measured. A trace (`BSP_TRACE`) keeps the mode `Timed`.
    ///
    /// ```
    /// use bsp_runtime::stats::StatsMode;
    /// bsp_runtime::run(2, |ctx| {
    ///     ctx.set_stats(StatsMode::Counts);
    ///     let x = ctx.register([0u8; 2]);
    ///     ctx.put(1 - ctx.pid(), &[1u8], &x, 0);
    ///     ctx.sync();
    ///     assert_eq!(ctx.stats().last.sent.put_bytes, 1);
    ///     assert!(ctx.stats().last.compute.is_zero());
    /// })
    /// .unwrap();
    /// ```
    pub fn set_stats(&mut self, mode: StatsMode) {
        let r = &mut self.stats;
        let mode = if r.trace.is_some() { StatsMode::Timed } else { mode };
        let timed = mode == StatsMode::Timed;
        if timed && !r.timed {
            r.last.set(Instant::now());
            r.step_start = r.last.get();
        }
        r.stale_times |= r.timed && !timed;
        r.on = mode != StatsMode::Off;
        r.timed = timed;
    }

    /// At the start of `sync` (before its first barrier): ends the computation.
    #[inline(always)]
    pub(crate) fn stats_begin(&mut self) {
        if !self.stats.on {
            return;
        }
        let r = &mut self.stats;
        // The last superstep's traffic starts from here (an empty sync leaves it as it was).
        if r.grew != 0 {
            r.rebase();
        }
        r.step = self.step;
        if r.timed {
            r.begin_timed();
        } else if r.stale_times {
            r.drop_times();
        }
    }

    /// After the barrier that starts `sync`: counts what this process queued (off the path to
    /// the barrier, which the other processes wait on).
    /// `mine`: the flags this process arrived with.
    #[inline]
    pub(crate) fn stats_outgoing(&mut self, mine: u64) {
        if self.stats.on && mine & flags::WORK != 0 {
            self.count_outgoing(mine);
        }
    }

    /// What this process queued, from its outbox: puts, messages and records it sends, and the
    /// gets it asked for (which it receives). Only the kinds it queued are read.
    fn count_outgoing(&mut self, mine: u64) {
        let (me, hpput) = (self.pid, mine & flags::HPPUT != 0);
        // Only a shared reference: this runs after the barrier that starts the sync, where the
        // other processes may already read this outbox, and a `&mut` (`Ctx::outbox`) would be a
        // write that races their reads.
        // SAFETY: inside the sync, after `combine` and before the outbox is cleared, where nothing
        // writes it (`Ctx::outbox_shared`); the outbox lives in the engine's storage, not in
        // `self`, so writing `self.stats` below does not touch it.
        let out: *const crate::outbox::Outbox = unsafe { self.outbox_shared() };
        // SAFETY: as above.
        let out = unsafe { &*out };
        let r = &mut self.stats;
        r.grew |= GREW | (mine & KINDS);
        let (tot, mut sent, mut asked) = (&mut r.total, 0, 0);
        out.for_each_queue(|d, q| {
            let t = if d == me { &mut tot.local } else { &mut tot.sent };
            // This queue's bytes, of every kind.
            let mut bytes = 0;
            if mine & flags::PUT != 0 {
                let b = put_bytes(q, hpput);
                t.puts += q.put_calls;
                t.put_bytes += b;
                bytes += b;
            }
            if mine & flags::MSG != 0 {
                t.messages += q.msgs.len();
                t.message_bytes += q.msg_data.len();
                bytes += q.msg_data.len();
                if !q.sys_msgs.is_empty() {
                    let (count, b) =
                        collective_traffic(q.sys_msgs.iter().map(|m| &q.sys_data[m.at..m.at + m.payload_len]));
                    t.collectives += count;
                    t.collective_bytes += b;
                    bytes += b;
                }
            }
            if mine & flags::EXT != 0 {
                t.records += q.ext.len();
                t.record_bytes += q.ext_data.len();
                bytes += q.ext_data.len();
            }
            if mine & flags::GET != 0 {
                // What this process asked `d` for arrives here.
                let t = if d == me { &mut tot.local } else { &mut tot.received };
                t.gets += q.gets;
                t.get_bytes += q.get_bytes;
                asked += if d == me { 0 } else { q.get_bytes };
            }
            sent += if d == me { 0 } else { bytes };
        });
        (r.step_sent, r.step_received) = (r.step_sent + sent, r.step_received + asked);
    }

    /// At the end of `sync`, with what the others queued for this process counted: closes the
    /// superstep's figures (with the messages the engine sent, where it sends any).
    #[inline]
    pub(crate) fn stats_end(&mut self, all: u64) {
        if !self.stats.on {
            return;
        }
        if let Some(sent) = self.engine.as_ref().and_then(|e| e.messages()) {
            self.stats.note_engine_messages(sent);
        }
        let moved = all & (flags::WORK | flags::GET) != 0;
        if all & flags::MSG != 0 {
            self.count_collectives_received();
        }
        let r = &mut self.stats;
        r.total.supersteps += 1;
        // Nobody queued anything in an empty superstep: no traffic, no h.
        if moved {
            r.total.h_bytes += r.step_sent.max(r.step_received);
            (r.step_sent, r.step_received) = (0, 0);
        }
        if r.timed {
            r.end_timed(moved);
        }
    }
}

impl Ctx {
    /// Adds the data of the collectives' messages that arrived from the other processes (those
    /// this process sent itself are counted as local when sent).
    fn count_collectives_received(&mut self) {
        let me = self.pid;
        let (count, bytes) = collective_traffic(self.sys_messages().filter(|&(src, _)| src != me).map(|(_, msg)| msg));
        if count > 0 {
            let r = &mut self.stats;
            r.grew |= GREW | flags::MSG;
            r.total.received.collectives += count;
            r.total.received.collective_bytes += bytes;
            r.step_received += bytes;
        }
    }
}

/// The outbox flags that name a kind of traffic (see [`Traffic::add_kinds`]).
const KINDS: u64 = flags::PUT | flags::GET | flags::MSG | flags::EXT;

/// In `Recorder::grew`: some figure grew (the h or the engine's messages at least).
const GREW: u64 = flags::SYNC;

/// The messages carrying data among `msgs` (messages of the runtime's channel), and the bytes of
/// their data: a collective's traffic as the cost model counts it, its elements only (each header
/// is bookkeeping, as a put's offset is).
fn collective_traffic<'a>(msgs: impl Iterator<Item = &'a [u8]>) -> (usize, usize) {
    msgs.map(crate::ext::collective::payload_len).filter(|&n| n > 0).fold((0, 0), |(c, b), n| (c + 1, b + n))
}

impl Recorder {
    /// Timing was turned off: no times for this superstep.
    #[cold]
    #[inline(never)]
    fn drop_times(&mut self) {
        self.compute = Duration::ZERO;
        self.wait.set(Duration::ZERO);
        self.data.set(Duration::ZERO);
        self.stale_times = false;
    }

    /// The times at the start of a sync (`BSP_STATS=timed`, or a trace): the computation ends.
    #[inline(never)]
    fn begin_timed(&mut self) {
        let (compute, now) = self.lap();
        self.compute = compute;
        self.fresh.set(true);
        self.in_sync.set(true);
        self.wait.set(Duration::ZERO);
        self.data.set(Duration::ZERO);
        if let Some(t) = &self.trace {
            t.end_compute(now);
        }
    }

    /// The times at the end of a sync: an empty sync ends when its barrier returns; otherwise
    /// the data phase ends now.
    #[inline(never)]
    fn end_timed(&mut self, moved: bool) {
        let end = if moved {
            let (d, now) = self.lap();
            self.data.set(self.data.get() + d);
            if let Some(t) = &self.trace {
                t.mark(Phase::Data, now);
            }
            now
        } else {
            self.last.get()
        };
        self.fresh.set(false);
        self.in_sync.set(false);
        let tot = &mut self.total;
        tot.compute += self.compute;
        tot.wait += self.wait.get();
        tot.data += self.data.get();
        if self.trace.is_some() {
            let last = self.stats().last;
            if let Some(t) = &mut self.trace {
                t.end_step(&last, self.step_start, end);
            }
        }
        self.step_start = end;
    }
}

impl Recorder {
    /// Whether the figures are being collected (counts at least).
    #[inline]
    pub(crate) fn counting(&self) -> bool {
        self.on
    }

    /// Takes the engine's message count at the end of a sync (`total`, since the run began):
    /// what it grew by is the sync's.
    #[inline]
    pub(crate) fn note_engine_messages(&mut self, total: u64) {
        let sent = total - std::mem::replace(&mut self.engine_messages, total);
        if sent > 0 {
            self.grew |= GREW;
            self.total.engine_messages += sent;
        }
    }

    /// Adds what arrived from the other processes (counted by the sync's put, record and
    /// message phases as they read the queues), and the gets this process served.
    #[inline]
    pub(crate) fn note_incoming(&mut self, kinds: u64, received: &Traffic, served: usize, served_bytes: usize) {
        self.grew |= GREW | kinds;
        let t = &mut self.total;
        t.received.add_kinds(received, kinds);
        t.sent.gets += served;
        t.sent.get_bytes += served_bytes;
        self.step_received += received.bytes();
        self.step_sent += served_bytes;
    }

    /// Takes `base` again for what grew in the superstep before (see the type's docs).
    #[inline(never)]
    fn rebase(&mut self) {
        let (t, b, kinds) = (&self.total, &mut self.base, self.grew);
        for (bt, tt) in [(&mut b.sent, &t.sent), (&mut b.received, &t.received), (&mut b.local, &t.local)] {
            bt.copy_kinds(tt, kinds);
        }
        b.h_bytes = t.h_bytes;
        b.engine_messages = t.engine_messages;
        self.grew = 0;
    }
}

/// The bytes of a queue's puts: the buffered ones are exactly its data and those carried in
/// their records (`DestQueue::inline_bytes`, counted without reading the records); hpputs
/// (`hpput` set when some process has one) are read from the records.
#[inline]
fn put_bytes(q: &crate::outbox::DestQueue, hpput: bool) -> usize {
    if hpput { q.puts.iter().map(|p| p.len()).sum() } else { q.put_data.len() + q.inline_bytes as usize }
}
