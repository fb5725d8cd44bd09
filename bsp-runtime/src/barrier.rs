//! The barrier every sync is built on: a combining, poisonable, spin-then-park barrier.
//!
//! # Protocol
//! Each arrival ORs its `flags` into `acc` and increments `count`. The last arrival of an epoch
//! takes the accumulated flags, resets `acc` and `count` for the next epoch, stores the result in
//! `result`, and then advances `epoch`. Everyone else waits for `epoch` to move and then reads
//! `result`. So one barrier round also answers "did anyone communicate / end / fail", which is
//! what lets an empty superstep cost exactly one barrier.
//!
//! `result` cannot be overwritten before a waiter reads it: the next epoch completes only when
//! every process (that waiter included) has arrived again.
//!
//! # Memory ordering
//! - `count.fetch_add(AcqRel)`: the arrivals form one release sequence on `count`, so the last
//!   arrival acquires everything every process wrote before arriving (their outboxes).
//! - `epoch.store(Release)` by the last arrival pairs with `epoch.load(Acquire)` by the waiters:
//!   they see `result`, the reset counters, and (transitively) every process's pre-barrier writes.
//! - Sleeping: a waiter stores `sleeping[pid] = true` (SeqCst) and then re-reads `epoch`
//!   (SeqCst); the waker stores `epoch` (SeqCst) and then reads `sleeping` (SeqCst). In the single
//!   total order of SeqCst operations one of the two sees the other, so a waiter never sleeps
//!   through its wake-up. `Parker` keeps an unpark that comes before the park.
//! - `poisoned` is SeqCst for the same reason, paired with the same re-check.
//!
//! Waiting spins briefly with [`Backoff`], then yields, then parks: with more processes than
//! cores the waiters give their core to the processes that still compute.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use crossbeam_utils::sync::{Parker, Unparker};
use crossbeam_utils::{Backoff, CachePadded};

/// The barrier was poisoned: another process failed.
#[derive(Debug)]
pub(crate) struct Poisoned;

pub(crate) struct Barrier {
    n: usize,
    count: CachePadded<AtomicUsize>,
    acc: CachePadded<AtomicU64>,
    epoch: CachePadded<AtomicUsize>,
    result: CachePadded<AtomicU64>,
    poisoned: CachePadded<AtomicBool>,
    sleeping: Box<[CachePadded<AtomicBool>]>,
    unparkers: Box<[Unparker]>,
}

impl Barrier {
    /// A barrier for `n` processes and the parkers they wait with (index = pid).
    pub(crate) fn new(n: usize) -> (Self, Vec<Parker>) {
        let parkers: Vec<Parker> = (0..n).map(|_| Parker::new()).collect();
        let unparkers = parkers.iter().map(|p| p.unparker().clone()).collect();
        let barrier = Barrier {
            n,
            count: CachePadded::new(AtomicUsize::new(0)),
            acc: CachePadded::new(AtomicU64::new(0)),
            epoch: CachePadded::new(AtomicUsize::new(0)),
            result: CachePadded::new(AtomicU64::new(0)),
            poisoned: CachePadded::new(AtomicBool::new(false)),
            sleeping: (0..n).map(|_| CachePadded::new(AtomicBool::new(false))).collect(),
            unparkers,
        };
        (barrier, parkers)
    }

    /// Whether a process failed.
    pub(crate) fn is_poisoned(&self) -> bool {
        // Relaxed: a hint for the checks in the communication calls; the barrier's own wait
        // re-reads it with SeqCst before sleeping.
        self.poisoned.load(Ordering::Relaxed)
    }

    /// Marks the barrier failed and wakes every waiter.
    pub(crate) fn poison(&self) {
        // SeqCst: pairs with the waiter's SeqCst re-check after it announces it is sleeping.
        self.poisoned.store(true, Ordering::SeqCst);
        for u in self.unparkers.iter() {
            u.unpark();
        }
    }

    /// Arrives with `flags`; returns the OR of every process's flags for this epoch.
    pub(crate) fn wait(&self, pid: usize, parker: &Parker, flags: u64) -> Result<u64, Poisoned> {
        // Acquire: pairs with the Release store of the previous epoch's last arrival, so the
        // epoch we read is the one we are arriving at.
        let epoch = self.epoch.load(Ordering::Acquire);
        if flags != 0 {
            // Relaxed: published to the last arrival through the `count` release sequence.
            self.acc.fetch_or(flags, Ordering::Relaxed);
        }
        // AcqRel: releases this process's writes (acc, outbox) and, for the last arrival,
        // acquires everyone's.
        if self.count.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            let all = self.acc.swap(0, Ordering::Relaxed);
            self.count.store(0, Ordering::Relaxed);
            self.result.store(all, Ordering::Relaxed);
            // SeqCst (a release store): publishes `result` and the resets; see the module docs
            // for why the sleepers' handshake needs SeqCst.
            self.epoch.store(epoch.wrapping_add(1), Ordering::SeqCst);
            for (i, s) in self.sleeping.iter().enumerate() {
                // SeqCst: pairs with the sleeper's SeqCst store of `true` (module docs).
                if s.load(Ordering::SeqCst) {
                    self.unparkers[i].unpark();
                }
            }
            return Ok(all);
        }
        let backoff = Backoff::new();
        loop {
            // Acquire: pairs with the last arrival's store of `epoch`.
            if self.epoch.load(Ordering::Acquire) != epoch {
                return Ok(self.result.load(Ordering::Relaxed));
            }
            if self.poisoned.load(Ordering::Relaxed) {
                return Err(Poisoned);
            }
            if !backoff.is_completed() {
                backoff.snooze();
                continue;
            }
            // SeqCst: the sleeper side of the handshake described in the module docs.
            self.sleeping[pid].store(true, Ordering::SeqCst);
            if self.epoch.load(Ordering::SeqCst) == epoch && !self.poisoned.load(Ordering::SeqCst) {
                parker.park();
            }
            self.sleeping[pid].store(false, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn combines_flags_and_separates_epochs() {
        let n = 4;
        let (b, parkers) = Barrier::new(n);
        let b = Arc::new(b);
        std::thread::scope(|s| {
            for (pid, parker) in parkers.into_iter().enumerate() {
                let b = &b;
                s.spawn(move || {
                    for round in 0..200u64 {
                        let got = b.wait(pid, &parker, 1 << ((round as usize + pid) % 64)).unwrap();
                        let mut want = 0;
                        for q in 0..n {
                            want |= 1 << ((round as usize + q) % 64);
                        }
                        assert_eq!(got, want);
                    }
                });
            }
        });
    }

    #[test]
    fn poison_wakes_waiters() {
        let (b, mut parkers) = Barrier::new(3);
        let b = Arc::new(b);
        let p1 = parkers.pop().unwrap();
        let p0 = parkers.pop().unwrap();
        let b = &b;
        std::thread::scope(|s| {
            let h0 = s.spawn(move || b.wait(0, &p0, 0).is_err());
            let h1 = s.spawn(move || b.wait(1, &p1, 0).is_err());
            std::thread::sleep(std::time::Duration::from_millis(50));
            b.poison();
            assert!(h0.join().unwrap());
            assert!(h1.join().unwrap());
        });
    }
}
