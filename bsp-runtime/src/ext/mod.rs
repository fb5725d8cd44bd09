//! Extensions: further kinds of one-sided communication built on the phases of the sync.
//!
//! Global pointer arrays (`gp`) move variable-sized elements, which `put`/`get` on a flat
//! registration cannot express. Rather than a second synchronisation scheme, they plug into the
//! sync through two internal primitives, with the same ordering guarantees as DRMA:
//!
//! - **records** ([`Ctx::queue_ext`]): bytes queued for an object registered on process `pid`,
//!   copied at the call, delivered to the object's [`ExtTarget::apply`] on `pid` during the put
//!   phase of the sync (ascending source pid, then issue order), after that process's own gets;
//! - **requests** ([`Ctx::request_ext`]): bytes sent to objects on some processes, each answered
//!   by the object's [`ExtTarget::serve`] during the get phase of the sync — before any record
//!   or put of the superstep is applied, like the source of a DRMA get — with the replies handed
//!   to one callback of the requester, in request order. The threads engine calls `serve` from
//!   the requester's thread (every process is inside the sync, nobody writes the objects); the
//!   MPI engine ships requests and replies.
//!
//! Objects are registered collectively like memory ([`Ctx::push_ext`]), so every process learns
//! where the others' objects are, and deregistered like memory.

pub mod collective;
pub mod gp;

use std::any::Any;
use std::sync::Arc;

use crate::Ctx;
use crate::outbox::{ExtRec, ReqPart, flags};

/// An object that other processes can address at the sync.
pub(crate) trait ExtTarget: Any + Send + Sync {
    /// Applies a record that process `src` queued for this object. Called on the owner only,
    /// inside its sync, during the put phase (no other process reads the object then).
    ///
    /// It may panic to report misuse found only here (e.g. a GP put into an unassigned
    /// element): the sync catches the panic, keeps its remaining barriers, and resumes it once
    /// no other process reads this process's memory (`sync/`).
    fn apply(&self, owner: &Ctx, src: usize, bytes: &[u8]);

    /// Answers a request that process `src` made of this object, by appending the reply to
    /// `reply`. Called in the get phase of the sync, possibly from another process's thread
    /// (threads engine): it may only read the object, which nobody writes then.
    fn serve(&self, src: usize, request: &[u8], reply: &mut Vec<u8>);

    /// This process's part of the object as bytes, for a checkpoint (`None`: the object has no
    /// contents to save). Called by the owner between syncs, where nobody else reads it.
    fn save(&self) -> Option<Vec<u8>> {
        None
    }

    /// Puts back what [`save`](ExtTarget::save) returned, or says why it cannot. Called by the
    /// owner between syncs, where nobody else reads the object.
    fn restore(&self, _bytes: &[u8]) -> Result<(), String> {
        Err("this object cannot be restored from a checkpoint".to_string())
    }
}

/// The callback of a request, with its lifetime erased (see [`Ctx::request_ext`]).
pub(crate) type OnReply = OnReplyIn<'static>;

/// The callback of a request, borrowing for `'s`.
pub(crate) type OnReplyIn<'s> = Box<dyn FnOnce(&mut dyn Iterator<Item = &[u8]>) + 's>;

/// A request queued for the get phase: its parts (a range of the outbox's `req_parts`) and
/// callback.
pub(crate) struct ExtRequest {
    pub parts: std::ops::Range<usize>,
    pub on_reply: OnReply,
}

/// A registered extension object (collective handle, like `Reg`).
#[derive(Debug)]
pub(crate) struct ExtReg {
    pub slot: u32,
    pub serial: u64,
    pub run_id: u64,
    pub pid: usize,
}

impl Ctx {
    /// Registers `obj` collectively; effective at the next sync (the caller syncs, as
    /// [`Ctx::register`] does).
    ///
    /// `signature` must be equal on every process exactly when their objects are compatible
    /// (same type and shape): the sync that makes the registration effective compares it like
    /// the element size of a memory registration, so a mismatch fails every process there,
    /// before anyone reads an incompatible object. It travels as the element size with the top
    /// bit set, which no real element size has, so an extension object is never matched with a
    /// memory registration either (not even one of a zero-sized type).
    #[track_caller]
    pub(crate) fn push_ext<X: ExtTarget>(&self, obj: Arc<X>, signature: u64) -> ExtReg {
        self.check_live("push");
        let (slot, serial) = self.state.borrow_mut().table.alloc();
        let addr = Arc::as_ptr(&obj) as usize;
        let keep: Arc<dyn Any + Send + Sync> = obj.clone();
        // Truncation on 32-bit targets only weakens the hash, not the tag bit.
        let tagged = (1usize << (usize::BITS - 1)) | (signature as usize >> 1);
        self.push_entry(slot, serial, addr, 0, tagged, std::any::type_name::<X>(), keep, Some(obj));
        ExtReg { slot, serial, run_id: self.run_id(), pid: self.pid }
    }

    /// Deregisters an extension object; collective, effective at the next sync.
    #[track_caller]
    pub(crate) fn pop_ext(&self, r: &ExtReg) {
        self.check_live("destroy");
        self.check_handle("destroy", r.run_id, r.pid, r.serial);
        self.pop_entry("destroy", r.slot, r.serial);
    }

    /// The address of process `pid`'s object (meaningful to the threads engine only), after validating the handle.
    #[track_caller]
    pub(crate) fn ext_addr(&self, op: &str, pid: usize, r: &ExtReg) -> usize {
        self.lookup(op, pid, r.run_id, r.pid, r.slot, r.serial).0
    }

    /// Queues `bytes` for process `pid`'s object: applied there at the sync.
    #[track_caller]
    pub(crate) fn queue_ext(&self, op: &str, pid: usize, r: &ExtReg, bytes: &[u8]) {
        self.ext_addr(op, pid, r);
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        let q = unsafe { self.outbox() }.dest(pid);
        q.ext.push(ExtRec { slot: r.slot, at: q.ext_data.len(), len: bytes.len() });
        q.ext_data.extend_from_slice(bytes);
        let mut st = self.state.borrow_mut();
        st.flags |= flags::WORK | flags::EXT;
        st.pending.puts += 1;
    }

    /// Sends `parts` (pairs of a process and the request bytes for its object) to the objects
    /// of `r` at the next sync; each is answered by [`ExtTarget::serve`] in the get phase, and
    /// `on_reply` receives the replies, in the order of `parts`.
    ///
    /// # Safety
    /// `on_reply` may borrow data for the superstep's lifetime `'s` only: the caller must
    /// guarantee that what it borrows stays valid and untouched until the end of the sync that
    /// ends the superstep (as `Superstep` borrows do), and it must not have drop glue that uses
    /// those borrows (it may be dropped without running if the process fails).
    #[track_caller]
    pub(crate) unsafe fn request_ext<'s, 'b>(
        &self,
        op: &str,
        r: &ExtReg,
        parts: impl IntoIterator<Item = (usize, &'b [u8])>,
        on_reply: OnReplyIn<'s>,
    ) {
        // SAFETY: the only outbox reference of this call, dropped before anything else takes
        // it (`Ctx::outbox`); `ext_addr` does not take it.
        let out = unsafe { self.outbox() };
        let first = out.req_parts.len();
        for (pid, bytes) in parts {
            self.ext_addr(op, pid, r);
            let at = out.req_data.len();
            out.req_data.extend_from_slice(bytes);
            out.req_parts.push(ReqPart { pid, slot: r.slot, at, len: bytes.len() });
        }
        let parts = first..out.req_parts.len();
        let mut st = self.state.borrow_mut();
        // SAFETY: lifetime erasure only; the caller guarantees the borrows outlive the point
        // where the callback runs (the get phase of the next sync) and that dropping it touches
        // none of them.
        let on_reply: OnReply = unsafe { std::mem::transmute::<OnReplyIn<'s>, OnReply>(on_reply) };
        st.requests.push(ExtRequest { parts, on_reply });
        st.flags |= flags::GET | flags::WORK;
        st.pending.gets += 1;
    }

    /// Hands the replies that the engine's read phase collected (`ReadResults`) to the
    /// requests' callbacks, in request order (after the get-phase barrier, before puts: a
    /// callback writes its destination, which may be memory that other processes read in the
    /// get phase, such as registered memory or GP elements).
    pub(crate) fn deliver_replies(&mut self) {
        let st = self.state.get_mut();
        if st.requests.is_empty() {
            return;
        }
        let requests = std::mem::take(&mut st.requests);
        let (reply, ranges) = (&st.read.reply, &st.read.ranges);
        for request in requests {
            (request.on_reply)(&mut ranges[request.parts.clone()].iter().map(|r| &reply[r.clone()]));
        }
    }
}
