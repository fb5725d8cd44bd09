//! The barrier every sync is built on: combining, poisonable, spin-then-park.
//!
//! Every process arrives with `flags` and leaves with the OR of the flags all processes arrived
//! with in that epoch (one call of [`Barrier::wait`] per process is one epoch). So one barrier
//! round also answers "did anyone communicate / end / fail", which is what lets an empty
//! superstep cost exactly one barrier. Flags are at most [`FLAG_BITS`] bits wide.
//!
//! # Two algorithms
//! - **Dissemination** (when there are no more processes than cores). In round `k` of
//!   `ceil(log2 n)` rounds, process `i` writes its running OR to a slot of process
//!   `i + 2^k (mod n)` and waits for its own slot, written by `i - 2^k`. After the last round every
//!   process has heard, directly or through others, from all `n`. There is no shared counter and
//!   no read-modify-write that two processes contend on: each slot has one writer and one reader,
//!   and the epoch tag and the flags travel in the same word. For `n = 2` a barrier is one store
//!   and one load per process, in parallel: one cache-line transfer each way.
//! - **Central** (more processes than cores). A counter; the last arrival ORs the flags
//!   everyone left in their own slot and publishes the result and the new epoch in one word.
//!   Waiters spin only briefly: with more processes than cores, a waiter that spins takes the
//!   core from a process that still has to arrive. The last arrival wakes only those that sleep.
//!
//! Slots of the dissemination barrier are double-buffered by epoch parity: the writer of a slot
//! can be at most one epoch ahead of its reader (to be two epochs ahead it would have to finish
//! the next epoch, which needs the reader to arrive at it, i.e. to have finished this one). So
//! the value for epoch `e + 2` is never written before the reader took the one for `e`.
//!
//! # Sleeping without lost wake-ups
//! - Dissemination: a waiter that gives up spinning sets the `SLEEP` bit in its slot with a
//!   compare-exchange that succeeds only if the slot still holds the old epoch; the writer
//!   publishes with a swap and unparks the reader iff the value it replaced has `SLEEP`. Both are
//!   read-modify-writes of one atomic, so they are totally ordered (its modification order):
//!   either the swap comes first (the compare-exchange fails and the waiter sees the new epoch)
//!   or the compare-exchange does (the swap sees `SLEEP` and unparks). A `Parker` keeps an
//!   unpark that comes before the park.
//! - Central: a waiter stores `sleeping[pid] = true` and then re-reads the epoch word; the last
//!   arrival stores the epoch word and then reads `sleeping`. Each puts a `SeqCst` fence between
//!   its store and its load, so in the fences' single total order one of the two sees the other
//!   (the store-buffering pattern). Fences, rather than `SeqCst` accesses, because loom checks
//!   them (it models `SeqCst` accesses as `AcqRel` only); on x86 either costs one full barrier.
//! - Poison: [`Barrier::poison`] stores `poisoned` and then unparks *every* process,
//!   unconditionally. A waiter checks `poisoned` before each park; if the poison comes after the
//!   check, its unpark comes after it too, and the park returns.
//! - A park may also return early (an unpark left over from an earlier epoch or from the
//!   poison of a waiter that did not sleep): every wait re-checks its condition in a loop.
//!
//! # How long to spin
//! A waiter polls back to back for about a microsecond (a partner that arrives at the same
//! time answers within a few hundred ns), then polls with `spin_loop` hints for a few hundred
//! µs, then yields a few times, then parks. A wake-up from parking costs the woken process tens
//! of µs (on a virtual machine, waking an idle virtual CPU), and it is on the path of the whole
//! run: a program whose supersteps are unbalanced by some 100 µs (an FFT's, a sparse product's)
//! lost several percent to it when the spin lasted ~10 µs.
//!
//! Spinning only helps if the awaited process runs on another core. Two processes of a run can
//! share one core, though: Linux starts a new thread on its creator's core and, on virtual
//! machines especially, may leave both there for tens of ms; during that time every sync costs
//! a whole spin (~10 µs instead of ~0.1). A `yield_now` that takes long shows it: it ran another
//! thread on this core. The process then remembers that its core is shared, and its next waits
//! skip the paced polls and yield right after the short busy phase, so a pair sharing a core
//! hands it back and forth (~2.5 µs per sync) until the scheduler separates them. A wait that
//! succeeds while polling (not at its first poll: that only says the other had arrived before),
//! a yield that returns at once (no other thread wanted the core), or a wake-up from parking,
//! clears the hint. The policy only decides how long to spin:
//! correctness never depends on it.
//!
//! # Memory ordering
//! What a sync needs from the barrier: everything any process wrote before arriving happens
//! before everything any process does after leaving (it then reads the others' outboxes).
//! - Dissemination: the writer's `swap(Release)` pairs with the reader's `load(Acquire)` of the
//!   same slot. A process's swap in round `k` comes after its acquire loads of rounds `< k`, so
//!   the edges chain: after the last round a process has acquired (transitively) the release of
//!   every process's arrival.
//! - Central: each arrival's `arrived.fetch_add(AcqRel)` continues the release sequence on
//!   `arrived`, so the last arrival acquires every earlier arrival's writes (their flag slots
//!   and outboxes). Its `Release` store of `word` pairs with the waiters' `Acquire` loads of
//!   it, publishing the reset counter and everyone's writes.
//! - `Relaxed` everywhere else: each process's own epoch counter (only it touches it), the flag
//!   slots of the central barrier (published by the `arrived` release sequence), `poisoned`
//!   (ordered by the unpark/park handshake, see above), the `SLEEP` compare-exchange (only its
//!   place in the slot's modification order matters; the data is acquired by the next load).

use std::time::Duration;

use crossbeam_utils::CachePadded;

use crate::engine::Poisoned;
use crate::primitive::{
    AtomicBool, AtomicU64, AtomicUsize, Instant, Ordering, Parker, Unparker, fence, spin_loop, yield_now,
};

/// How many low bits of a word carry flags; the bits above carry the epoch tag and `SLEEP`.
pub(crate) const FLAG_BITS: u32 = 56;
const FLAG_MASK: u64 = (1 << FLAG_BITS) - 1;
/// Set by a dissemination waiter in its slot just before it parks.
const SLEEP: u64 = 1 << 63;
/// The epoch tag: `epoch mod 128`, above the flags. Readers only compare it for equality with
/// the tag they expect, and a slot holds either the expected tag or the one of two epochs before
/// (central: one epoch before), so any tag width of two bits or more would do.
const TAG_SHIFT: u32 = FLAG_BITS;
const TAG_MASK: u64 = 0x7f << TAG_SHIFT;

fn tag(epoch: u64) -> u64 {
    (epoch << TAG_SHIFT) & TAG_MASK
}

/// How long a waiter polls before yielding its core, and yields before parking.
#[derive(Clone, Copy, Debug)]
struct Patience {
    /// Polls of the awaited word back to back: the reply to a barrier between processes that
    /// arrive together comes within a few hundred ns, and a `spin_loop` hint between polls
    /// would only delay noticing it (`pause` takes ~100 ns on some virtual machines).
    busy: u32,
    /// Further polls, each followed by a `spin_loop` hint (gentler on a sibling hyperthread).
    paced: u32,
    /// `yield_now` calls (each followed by a poll) before parking.
    yields: u32,
}

impl Patience {
    /// Polls before the waiter starts yielding.
    fn spins(&self) -> u32 {
        self.busy + self.paced
    }

    /// Between two polls of the spinning phase.
    fn spin(&self, polls: u32) {
        if polls > self.busy {
            spin_loop();
        }
    }
}

/// For processes that own a core: a sync of supersteps unbalanced by up to a few hundred µs
/// completes within the spin, so no process pays for a wake-up (tens of µs). The paced polls
/// last ~0.25 ms where a `pause` takes ~30 ns (an AMD EPYC), longer where it is
/// slower.
#[cfg(not(all(test, loom)))]
const PATIENT: Patience = Patience { busy: 1 << 10, paced: 1 << 13, yields: 8 };
/// For more processes than cores: the core is better given to a process that still computes.
#[cfg(not(all(test, loom)))]
const OVERSUBSCRIBED: Patience = Patience { busy: 16, paced: 16, yields: 2 };
/// Under loom, which explores every interleaving of every poll: one poll of each kind and one
/// yield, then the park.
#[cfg(all(test, loom))]
const PATIENT: Patience = Patience { busy: 1, paced: 1, yields: 1 };
#[cfg(all(test, loom))]
const OVERSUBSCRIBED: Patience = PATIENT;
/// A `yield_now` that takes longer than this ran another thread on this core (an idle yield is
/// a system call of well under a µs).
const YIELD_RAN_ANOTHER: Duration = Duration::from_micros(3);

/// The algorithm of a barrier (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Strategy {
    Dissemination,
    Central,
}

pub(crate) struct Barrier {
    n: usize,
    poisoned: CachePadded<AtomicBool>,
    unparkers: Box<[Unparker]>,
    /// Per process, touched only by that process.
    procs: Box<[CachePadded<Local>]>,
    patience: Patience,
    algo: Algo,
}

/// What a process remembers between its waits.
#[derive(Default)]
struct Local {
    /// The number of epochs it completed.
    epoch: AtomicU64,
    /// It recently shared its core with another thread (module docs, "How long to spin").
    shared_core: AtomicBool,
}

enum Algo {
    /// `slots[(pid * rounds + round) * 2 + parity]`: written by `pid - 2^round`, read by `pid`.
    Dissemination {
        rounds: usize,
        slots: Box<[CachePadded<AtomicU64>]>,
    },
    Central(Box<Central>),
}

struct Central {
    arrived: CachePadded<AtomicUsize>,
    /// `tag(epochs completed) | flags of the last completed epoch`.
    word: CachePadded<AtomicU64>,
    /// Each process's flags for the current epoch.
    flags: Box<[CachePadded<AtomicU64>]>,
    sleeping: Box<[CachePadded<AtomicBool>]>,
}

impl Barrier {
    /// A barrier for `n` processes and the parkers they wait with (index = pid), on a machine
    /// that runs `busy` such threads in all (`n` on the threads engine; every group's on the
    /// machine for the driver). The algorithm is chosen by comparing `busy` with the
    /// number of cores (module docs).
    pub(crate) fn sharing(n: usize, busy: usize) -> (Self, Vec<Parker>) {
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        let strategy = if busy <= cores { Strategy::Dissemination } else { Strategy::Central };
        Self::with_strategy(n, strategy)
    }

    /// A barrier with a given algorithm (the patience follows it).
    pub(crate) fn with_strategy(n: usize, strategy: Strategy) -> (Self, Vec<Parker>) {
        assert!(n >= 1, "a barrier needs at least one process");
        let parkers: Vec<Parker> = (0..n).map(|_| Parker::new()).collect();
        let unparkers = parkers.iter().map(|p| p.unparker().clone()).collect();
        let padded = |v: u64| CachePadded::new(AtomicU64::new(v));
        let (algo, patience) = match strategy {
            Strategy::Dissemination => {
                let rounds = (usize::BITS - (n - 1).leading_zeros()) as usize; // ceil(log2 n)
                // Slot of parity `q` first awaits epoch `q`; it starts with the tag of `q - 2`.
                let slots = (0..n * rounds * 2).map(|i| padded(tag((i as u64 % 2).wrapping_sub(2)))).collect();
                (Algo::Dissemination { rounds, slots }, PATIENT)
            }
            Strategy::Central => {
                let central = Central {
                    arrived: CachePadded::new(AtomicUsize::new(0)),
                    word: padded(tag(0)),
                    flags: (0..n).map(|_| padded(0)).collect(),
                    sleeping: (0..n).map(|_| CachePadded::new(AtomicBool::new(false))).collect(),
                };
                (Algo::Central(Box::new(central)), OVERSUBSCRIBED)
            }
        };
        let barrier = Barrier {
            n,
            poisoned: CachePadded::new(AtomicBool::new(false)),
            unparkers,
            procs: (0..n).map(|_| CachePadded::new(Local::default())).collect(),
            patience,
            algo,
        };
        (barrier, parkers)
    }

    /// Which algorithm this barrier runs.
    #[cfg_attr(not(test), allow(dead_code, reason = "for tests and diagnostics"))]
    pub(crate) fn strategy(&self) -> Strategy {
        match self.algo {
            Algo::Dissemination { .. } => Strategy::Dissemination,
            Algo::Central(_) => Strategy::Central,
        }
    }

    /// Whether a process failed.
    #[inline]
    pub(crate) fn is_poisoned(&self) -> bool {
        // Relaxed: a hint for the checks in the communication calls; waiters are woken by the
        // unpark that follows the store (module docs).
        self.poisoned.load(Ordering::Relaxed)
    }

    /// Marks the barrier failed and wakes every waiter; their `wait` returns `Err(Poisoned)`,
    /// and so does every later `wait`.
    pub(crate) fn poison(&self) {
        // Relaxed: the unparks below order it before the woken waiters' re-check (module docs).
        self.poisoned.store(true, Ordering::Relaxed);
        for u in self.unparkers.iter() {
            u.unpark();
        }
    }

    /// Process `pid` arrives with `flags` (at most [`FLAG_BITS`] bits); returns the OR of every
    /// process's flags for this epoch once all `n` have arrived.
    ///
    /// # Errors
    /// If the barrier is or becomes poisoned before this epoch completes.
    pub(crate) fn wait(&self, pid: usize, parker: &Parker, flags: u64) -> Result<u64, Poisoned> {
        debug_assert!(flags & !FLAG_MASK == 0, "barrier flags must fit in {FLAG_BITS} bits");
        if self.is_poisoned() {
            return Err(Poisoned);
        }
        let me = &self.procs[pid];
        // Relaxed: only this process reads or writes its epoch counter.
        let epoch = me.epoch.load(Ordering::Relaxed);
        let all = match &self.algo {
            Algo::Dissemination { rounds, slots } => self.disseminate(pid, me, parker, flags, epoch, *rounds, slots)?,
            Algo::Central(c) => self.central(c, pid, me, parker, flags, epoch)?,
        };
        me.epoch.store(epoch.wrapping_add(1), Ordering::Relaxed);
        Ok(all)
    }

    #[allow(clippy::too_many_arguments, reason = "the state of one wait, kept in registers")]
    #[inline(always)]
    fn disseminate(
        &self,
        pid: usize,
        me: &Local,
        parker: &Parker,
        flags: u64,
        epoch: u64,
        rounds: usize,
        slots: &[CachePadded<AtomicU64>],
    ) -> Result<u64, Poisoned> {
        if rounds == 0 {
            return Ok(flags);
        }
        // Round 0 here, where a pair of processes (one round) does all its work; the rounds of
        // more processes go on in `disseminate_on`.
        let acc = self.round(pid, me, parker, flags, epoch, rounds, slots, 0)?;
        if rounds == 1 { Ok(acc) } else { self.disseminate_on(pid, me, parker, acc, epoch, rounds, slots) }
    }

    /// Rounds `1..rounds` of [`disseminate`](Barrier::disseminate), with `acc` the OR so far.
    #[allow(clippy::too_many_arguments, reason = "the state of one wait, kept in registers")]
    #[inline(never)]
    fn disseminate_on(
        &self,
        pid: usize,
        me: &Local,
        parker: &Parker,
        mut acc: u64,
        epoch: u64,
        rounds: usize,
        slots: &[CachePadded<AtomicU64>],
    ) -> Result<u64, Poisoned> {
        for round in 1..rounds {
            acc = self.round(pid, me, parker, acc, epoch, rounds, slots, round)?;
        }
        Ok(acc)
    }

    /// Round `round` of a dissemination barrier's epoch `epoch`: process `pid` passes on the
    /// OR `acc` of the flags it has heard of and returns it with those it hears of now.
    #[allow(clippy::too_many_arguments, reason = "the state of one wait, kept in registers")]
    #[inline(always)]
    fn round(
        &self,
        pid: usize,
        me: &Local,
        parker: &Parker,
        acc: u64,
        epoch: u64,
        rounds: usize,
        slots: &[CachePadded<AtomicU64>],
        round: usize,
    ) -> Result<u64, Poisoned> {
        let parity = (epoch & 1) as usize;
        let want = tag(epoch);
        // `pid + 2^round` is below `2n`: one subtraction takes it modulo `n` (no division on the
        // way to the swap that the partner waits for).
        let to = pid + (1 << round);
        let to = if to >= self.n { to - self.n } else { to };
        // Release: publishes everything this process wrote and acquired so far (module docs);
        // the value replaced tells whether the reader sleeps.
        let old = slots[(to * rounds + round) * 2 + parity].swap(want | acc, Ordering::Release);
        if old & SLEEP != 0 {
            self.wake(to);
        }
        let mine = &slots[(pid * rounds + round) * 2 + parity];
        Ok(acc | self.await_slot(me, parker, mine, want)? & FLAG_MASK)
    }

    /// Wakes process `to`, which announced that it sleeps.
    #[inline(never)]
    fn wake(&self, to: usize) {
        self.unparkers[to].unpark();
    }

    /// Waits until `slot` holds tag `want`; returns its value.
    fn await_slot(&self, me: &Local, parker: &Parker, slot: &AtomicU64, want: u64) -> Result<u64, Poisoned> {
        let poll = || {
            // Acquire: pairs with the writer's Release swap.
            let v = slot.load(Ordering::Acquire);
            (v & TAG_MASK == want).then_some(v)
        };
        let sleep = || {
            // Relaxed: only the place in the slot's modification order matters (module docs).
            let v = slot.load(Ordering::Relaxed);
            if v & TAG_MASK == want {
                return;
            }
            let announced =
                v & SLEEP != 0 || slot.compare_exchange(v, v | SLEEP, Ordering::Relaxed, Ordering::Relaxed).is_ok();
            if announced && !self.is_poisoned() {
                parker.park();
            }
        };
        self.wait_for(me, poll, sleep)
    }

    /// Waits until `poll` returns a value: spins, yields, then sleeps with `sleep` (which
    /// announces the sleeper, re-checks, and parks), as the module docs describe.
    #[inline(always)]
    fn wait_for<T>(&self, me: &Local, poll: impl Fn() -> Option<T>, sleep: impl Fn()) -> Result<T, Poisoned> {
        // Relaxed (both): a hint only this process reads and writes.
        let shared = me.shared_core.load(Ordering::Relaxed);
        let spins = if shared { self.patience.busy } else { self.patience.spins() };
        for polls in 1..=spins {
            if let Some(v) = poll() {
                // Waited, and the other process arrived meanwhile: it runs on another core.
                // (Success at the first poll says nothing: it had arrived before.)
                if shared && polls > 1 {
                    me.shared_core.store(false, Ordering::Relaxed);
                }
                return Ok(v);
            }
            self.patience.spin(polls);
        }
        self.wait_long(me, poll, sleep)
    }

    /// The rest of [`wait_for`](Barrier::wait_for) once the spin is over: yields, then sleeps
    /// (out of the spinning code's way, which then keeps its state in registers).
    #[cold]
    #[inline(never)]
    fn wait_long<T>(&self, me: &Local, poll: impl Fn() -> Option<T>, sleep: impl Fn()) -> Result<T, Poisoned> {
        for _ in 0..self.patience.yields {
            if self.is_poisoned() {
                return Err(Poisoned);
            }
            let start = Instant::now();
            yield_now();
            // A yield that ran another thread shows the core shared; one that returned at once
            // shows it is not (any more), so the next wait spins in full again.
            // Relaxed: a hint only this process reads and writes.
            me.shared_core.store(start.elapsed() > YIELD_RAN_ANOTHER, Ordering::Relaxed);
            if let Some(v) = poll() {
                return Ok(v);
            }
        }
        loop {
            if self.is_poisoned() {
                return Err(Poisoned);
            }
            sleep();
            if let Some(v) = poll() {
                // Woken: most likely on a core of its own now.
                me.shared_core.store(false, Ordering::Relaxed);
                return Ok(v);
            }
        }
    }

    fn central(
        &self,
        c: &Central,
        pid: usize,
        me: &Local,
        parker: &Parker,
        flags: u64,
        epoch: u64,
    ) -> Result<u64, Poisoned> {
        // Relaxed: published to the last arrival by the `arrived` release sequence.
        c.flags[pid].store(flags, Ordering::Relaxed);
        // AcqRel: releases this process's writes; the last arrival acquires everyone's.
        if c.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            // Relaxed: the flag slots were acquired through `arrived`.
            let all = c.flags.iter().fold(0, |acc, f| acc | f.load(Ordering::Relaxed));
            // Relaxed: published by the store of `word` below, which every next arrival
            // acquires before it increments `arrived` again.
            c.arrived.store(0, Ordering::Relaxed);
            // Release: publishes the result and the reset, pairs with the waiters' Acquire
            // loads.
            c.word.store(tag(epoch.wrapping_add(1)) | all, Ordering::Release);
            // SeqCst: the waker side of the sleeping handshake (module docs), paired with the
            // fence of every waiter's `sleep`.
            fence(Ordering::SeqCst);
            for (i, s) in c.sleeping.iter().enumerate() {
                // Relaxed: ordered by the fence above.
                if s.load(Ordering::Relaxed) {
                    self.unparkers[i].unpark();
                }
            }
            return Ok(all);
        }
        let want = tag(epoch.wrapping_add(1));
        let poll = || {
            // Acquire: pairs with the last arrival's store of `word`.
            let v = c.word.load(Ordering::Acquire);
            (v & TAG_MASK == want).then_some(v & FLAG_MASK)
        };
        let sleep = || {
            // Relaxed (both): ordered by the fence between them, the sleeper side of the
            // handshake (module docs), paired with the last arrival's fence. The load only
            // decides whether to park; the next poll acquires the word.
            c.sleeping[pid].store(true, Ordering::Relaxed);
            fence(Ordering::SeqCst);
            if c.word.load(Ordering::Relaxed) & TAG_MASK != want && !self.is_poisoned() {
                parker.park();
            }
            // Relaxed: a stale `true` costs the waker one spare unpark, never a lost one.
            c.sleeping[pid].store(false, Ordering::Relaxed);
        };
        self.wait_for(me, poll, sleep)
    }
}

// Not under loom, whose primitives run only inside its models (`loom_models.rs`).
#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Runs `rounds` epochs on `n` threads; in epoch `r` process `q` arrives with
    /// `pattern(r, q)`; every process checks the OR.
    fn check_combining(n: usize, strategy: Strategy, rounds: u64, pattern: impl Fn(u64, usize) -> u64 + Sync) {
        let (b, parkers) = Barrier::with_strategy(n, strategy);
        assert_eq!(b.strategy(), strategy);
        let (b, pattern) = (&b, &pattern);
        std::thread::scope(|s| {
            for (pid, parker) in parkers.into_iter().enumerate() {
                s.spawn(move || {
                    for r in 0..rounds {
                        let got = b.wait(pid, &parker, pattern(r, pid)).unwrap();
                        let want = (0..n).fold(0, |acc, q| acc | pattern(r, q));
                        assert_eq!(got, want, "n = {n}, {strategy:?}, epoch {r}, pid {pid}");
                    }
                });
            }
        });
    }

    /// The flags process `q` arrives with in epoch `r`.
    type Pattern = fn(u64, usize) -> u64;

    /// One bit per process and epoch, so a flag from the wrong epoch or a missing process shows.
    fn one_bit(r: u64, q: usize) -> u64 {
        1 << ((r as usize * 7 + q) % FLAG_BITS as usize)
    }

    /// Mostly zero: the empty-sync case, with an occasional single flag.
    fn sparse(r: u64, q: usize) -> u64 {
        if (r as usize + q) % 5 == 0 { 1 << (r % 3) } else { 0 }
    }

    #[test]
    fn combines_flags_across_epochs() {
        use Strategy::{Central, Dissemination};
        // (processes, algorithm, epochs, flags). More processes than cores means spinning
        // waiters slow the others down (that is why `new` picks `Central` then): fewer epochs
        // keep the test quick. The last rows have far more threads than cores: waiters park and
        // are woken every epoch.
        let cases: [(&[usize], Strategy, u64, Pattern); 9] = [
            (&[1, 2], Dissemination, 1000, one_bit),
            (&[1, 2], Dissemination, 1000, sparse),
            (&[3, 4, 5, 7, 8], Dissemination, 150, one_bit),
            (&[3, 4, 5, 7, 8], Dissemination, 150, sparse),
            (&[1, 2, 3, 8], Central, 500, one_bit),
            (&[1, 2, 3, 8], Central, 500, sparse),
            (&[32], Central, 200, one_bit),
            (&[32], Dissemination, 100, one_bit),
            (&[13], Dissemination, 100, sparse),
        ];
        for (ns, strategy, epochs, pattern) in cases {
            for &n in ns {
                check_combining(n, strategy, epochs, pattern);
            }
        }
    }

    #[test]
    fn new_picks_by_cores() {
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        assert_eq!(Barrier::sharing(cores, cores).0.strategy(), Strategy::Dissemination);
        assert_eq!(Barrier::sharing(cores + 1, cores + 1).0.strategy(), Strategy::Central);
    }

    #[test]
    fn slow_arrivals_are_waited_for_through_parking() {
        // Each epoch one process arrives late (after the others have parked); the late one
        // changes every epoch, so every slot and sleeping flag is exercised.
        for strategy in [Strategy::Dissemination, Strategy::Central] {
            let n = 3;
            let (b, parkers) = Barrier::with_strategy(n, strategy);
            let b = &b;
            std::thread::scope(|s| {
                for (pid, parker) in parkers.into_iter().enumerate() {
                    s.spawn(move || {
                        for r in 0..6u64 {
                            if r as usize % n == pid {
                                std::thread::sleep(Duration::from_millis(20));
                            }
                            assert_eq!(b.wait(pid, &parker, 1 << pid).unwrap(), 0b111);
                        }
                    });
                }
            });
        }
    }

    #[test]
    fn poison_wakes_parked_waiters() {
        for strategy in [Strategy::Dissemination, Strategy::Central] {
            for n in [2, 3, 5] {
                let (b, parkers) = Barrier::with_strategy(n, strategy);
                let b = &b;
                std::thread::scope(|s| {
                    // Everyone but the last process waits; it never comes.
                    let waiters: Vec<_> = parkers
                        .into_iter()
                        .enumerate()
                        .take(n - 1)
                        .map(|(pid, parker)| s.spawn(move || b.wait(pid, &parker, 1).is_err()))
                        .collect();
                    std::thread::sleep(Duration::from_millis(50)); // long enough to park
                    assert!(!b.is_poisoned());
                    b.poison();
                    for w in waiters {
                        assert!(w.join().unwrap(), "{strategy:?}, n = {n}: a waiter was not released by poison");
                    }
                });
                assert!(b.is_poisoned());
            }
        }
    }

    #[test]
    fn poison_after_some_epochs_and_later_waits_fail() {
        for strategy in [Strategy::Dissemination, Strategy::Central] {
            let (b, parkers) = Barrier::with_strategy(4, strategy);
            let b = &b;
            std::thread::scope(|s| {
                for (pid, parker) in parkers.into_iter().enumerate() {
                    s.spawn(move || {
                        for r in 0..50u64 {
                            if pid == 2 && r == 40 {
                                b.poison();
                                return;
                            }
                            match b.wait(pid, &parker, 0) {
                                Ok(_) => assert!(r < 40, "{strategy:?}: epoch {r} completed without process 2"),
                                Err(Poisoned) => return,
                            }
                        }
                    });
                }
            });
            let parker = Parker::new();
            assert!(b.wait(0, &parker, 0).is_err(), "a wait after poison must fail at once");
        }
    }
}
