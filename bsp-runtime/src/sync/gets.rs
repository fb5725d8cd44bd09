//! Where every get's result is written, on every engine (phases 3 and 4 of `sync/mod.rs`).
//!
//! Before the engine's read phase, [`plan_gets`](Ctx::plan_gets) says where each of this
//! process's gets lands: its destination, or, when the destination lies in this process's
//! registered memory (`GetRec::staged`, which other processes may still read in this phase), its
//! place in the stage. The engine's `read` then says where each get's bytes are (the owner's
//! memory in this address space, or the engine's receive buffer), or, for a transfer that goes
//! straight into place (the MPI engine's large gets), writes them there itself.
//! [`land_gets`](Ctx::land_gets) copies the bytes to where they land, before `end_reads`, while
//! the sources are still readable; after `end_reads`, when nobody reads this process's
//! registered memory any more, [`write_staged_gets`](Ctx::write_staged_gets) writes the staged
//! results into it, in issue order, before any put lands (so a put wins over a get, D1).

use super::apply::copy_bytes;
use crate::Ctx;
use crate::engine::{GetBytes, LANDED};

impl Ctx {
    /// Where each get of this superstep lands (`ReadResults::gets`, in issue order): its
    /// destination, or its place in the stage for a staged get. Before the engine's `read`.
    pub(super) fn plan_gets(&mut self) {
        // SAFETY: inside the sync, after `combine`: nothing writes this process's outbox (it is
        // read, by the engine and on threads by the other processes); dropped before returning.
        let gets = unsafe { &self.outbox_shared().gets };
        let read = &mut self.state.borrow_mut().read;
        let staged: usize = gets.iter().filter(|g| g.staged).map(|g| g.bytes).sum();
        // Grown, never shrunk: every byte of it is written before it is read.
        if read.stage.len() < staged {
            read.stage.resize(staged, 0);
        }
        let stage = read.stage.as_mut_ptr() as usize;
        let mut at = 0;
        read.gets.clear();
        read.gets.extend(gets.iter().map(|g| {
            let to = if g.staged {
                at += g.bytes;
                stage + at - g.bytes
            } else {
                g.dst_addr
            };
            GetBytes { to, from: LANDED }
        }));
    }

    /// Copies each get's bytes from where the engine's `read` found them to where they land
    /// (the gets it landed itself are done). After `read`, before `end_reads`.
    pub(super) fn land_gets(&mut self) {
        // SAFETY: as in `plan_gets`.
        let gets = unsafe { &self.outbox_shared().gets };
        let read = &self.state.borrow().read;
        debug_assert_eq!(gets.len(), read.gets.len(), "one landing per get record");
        for (g, b) in gets.iter().zip(&read.gets) {
            if b.from == LANDED {
                continue;
            }
            // SAFETY: `from` holds the get's `g.bytes` bytes, readable and unchanged until this
            // process's `end_reads` (the engine's contract for `read`), which has not come yet.
            // `to` is the destination, memory this process borrowed mutably until the end of
            // this sync (`Superstep::get`) and outside every registration, so nobody else reads
            // or writes it and it overlaps no source (sources are registered memory or the
            // engine's buffers); or the get's place in the stage, which this process alone
            // writes, sized by `plan_gets` and not reallocated since.
            unsafe { copy_bytes(b.from as *const u8, b.to as *mut u8, g.bytes) };
        }
    }

    /// Writes the get results that were staged because they land in this process's registered
    /// memory (after `end_reads`: nobody reads it any more in this sync), in issue order.
    pub(super) fn write_staged_gets(&mut self) {
        // SAFETY: as in `plan_gets`.
        let gets = unsafe { &self.outbox_shared().gets };
        let stage = &self.state.borrow().read.stage;
        let mut at = 0;
        for g in gets.iter().filter(|g| g.staged) {
            // SAFETY: the destination is this process's registered memory, borrowed mutably
            // until the end of this sync; after the get-phase barrier no other process reads it
            // in this sync. The stage holds exactly these bytes, in this order.
            unsafe { copy_bytes(stage[at..].as_ptr(), g.dst_addr as *mut u8, g.bytes) };
            at += g.bytes;
        }
    }
}
