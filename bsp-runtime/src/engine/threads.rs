//! The threads engine: processes are threads of one OS process.
//!
//! # Who touches what, when
//! Each process owns two outboxes, used alternately by superstep parity. During superstep `s`
//! only the owner writes outbox `s % 2`. During sync `s`, after the first barrier, any process
//! may read any outbox `s % 2`, until it leaves sync `s`. The owner clears outbox `s % 2` again
//! only at the start of superstep `s + 2`, i.e. after the first barrier of sync `s + 1`, which
//! every reader reaches only after it left sync `s`. So reads and writes of an outbox never
//! overlap, with no lock. Registered memory follows the rule in `sync.rs`.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crossbeam_utils::sync::Parker;
use crossbeam_utils::CachePadded;

use crate::barrier::{Barrier, Poisoned};
use crate::exchange::Outbox;
use crate::Error;

/// Outboxes of one process, by superstep parity.
struct Slot {
    out: [UnsafeCell<Outbox>; 2],
}

/// The shared state of one SPMD run.
pub(crate) struct Group {
    nprocs: usize,
    run_id: u64,
    barrier: Barrier,
    slots: Box<[CachePadded<Slot>]>,
    failure: Mutex<Option<Error>>,
}

// SAFETY: the only non-Sync parts are the outboxes in `UnsafeCell`s; their accesses follow the
// parity protocol of the module docs (one writer at a time, never concurrent with readers), with
// the barrier providing the happens-before edges.
unsafe impl Sync for Group {}

/// Numbers runs, so that a registration cannot be used in a run it does not belong to.
static NEXT_RUN: AtomicU64 = AtomicU64::new(1);

impl Group {
    pub(crate) fn new(nprocs: usize) -> (Self, Vec<Parker>) {
        let (barrier, parkers) = Barrier::new(nprocs);
        let slots = (0..nprocs)
            .map(|_| {
                CachePadded::new(Slot {
                    out: [UnsafeCell::new(Outbox::new(nprocs)), UnsafeCell::new(Outbox::new(nprocs))],
                })
            })
            .collect();
        let group = Group {
            nprocs,
            // Relaxed: only uniqueness matters.
            run_id: NEXT_RUN.fetch_add(1, Ordering::Relaxed),
            barrier,
            slots,
            failure: Mutex::new(None),
        };
        (group, parkers)
    }

    /// The group of one MPI rank: `nprocs` processes in all, but only this one's outbox here
    /// (the others live in other OS processes).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code, reason = "only the MPI engine uses it"))]
    pub(crate) fn new_rank(nprocs: usize) -> (Self, Parker) {
        let (barrier, mut parkers) = Barrier::new(1);
        let slot = CachePadded::new(Slot {
            out: [UnsafeCell::new(Outbox::new(nprocs)), UnsafeCell::new(Outbox::new(nprocs))],
        });
        let group = Group {
            nprocs,
            // Relaxed: only uniqueness matters.
            run_id: NEXT_RUN.fetch_add(1, Ordering::Relaxed),
            barrier,
            slots: vec![slot].into_boxed_slice(),
            failure: Mutex::new(None),
        };
        (group, parkers.pop().expect("one parker"))
    }

    /// Index of `pid`'s slot: a rank's group holds only its own.
    fn slot(&self, pid: usize) -> usize {
        if self.slots.len() == 1 {
            0
        } else {
            pid
        }
    }

    pub(crate) fn nprocs(&self) -> usize {
        self.nprocs
    }

    #[inline]
    pub(crate) fn run_id(&self) -> u64 {
        self.run_id
    }

    /// The combining barrier (see `barrier.rs`).
    pub(crate) fn barrier(&self, pid: usize, parker: &Parker, flags: u64) -> Result<u64, Poisoned> {
        self.barrier.wait(pid, parker, flags)
    }

    #[inline]
    pub(crate) fn is_failed(&self) -> bool {
        self.barrier.is_poisoned()
    }

    /// Records `error` if it is the first failure, and wakes every waiting process.
    pub(crate) fn fail(&self, error: Error) {
        {
            let mut first = self.failure.lock().unwrap_or_else(|e| e.into_inner());
            if first.is_none() {
                *first = Some(error);
            }
        }
        self.barrier.poison();
    }

    pub(crate) fn take_failure(&self) -> Option<Error> {
        self.failure.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// The outbox `pid` writes in a superstep of `parity`.
    ///
    /// # Safety
    /// Only process `pid` may call this, during a superstep of that parity (or in its sync
    /// before the first barrier), and it must not hold two of these references at once.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub(crate) unsafe fn own_outbox(&self, pid: usize, parity: usize) -> &mut Outbox {
        // SAFETY: the caller is the only writer of this outbox now, and no reader reads it
        // (module docs).
        unsafe { &mut *self.slots[self.slot(pid)].out[parity].get() }
    }

    /// The outbox of `pid` for the superstep of `parity`, to read during that superstep's sync.
    ///
    /// # Safety
    /// The caller must be inside the sync of a superstep of that parity, after its first barrier.
    pub(crate) unsafe fn outbox(&self, pid: usize, parity: usize) -> &Outbox {
        // SAFETY: the owner finished writing before the first barrier and does not write again
        // until every process has left this sync (module docs).
        unsafe { &*self.slots[self.slot(pid)].out[parity].get() }
    }
}
