//! The runtime's own message channel, beside the user's BSMP queue.
//!
//! Collectives (`ext/collective/`) move their data as messages, so that they need no registration
//! (which would cost a sync to take effect) and know the sizes the others sent without a round of
//! their own. Their messages must not appear in the user's BSMP queue, nor depend on its tag
//! size, so they travel in a second queue: sent with [`Ctx::sys_send`], moved by the sync like
//! BSMP messages (ascending source pid, then send order), and readable in the next superstep with
//! [`Ctx::sys_messages`]. Unread ones are discarded at the following sync, as in BSMP.

use crate::Ctx;
use crate::outbox::{MsgRec, flags};

/// One received message: its source and its place in [`SysRecv::data`].
#[derive(Clone, Copy, Debug)]
struct SysMsg {
    src: usize,
    at: usize,
    len: usize,
}

/// The runtime's receive queue: written only by the sync (which has `&mut Ctx`).
#[derive(Debug, Default)]
pub(crate) struct SysRecv {
    data: Vec<u8>,
    msgs: Vec<SysMsg>,
}

impl SysRecv {
    /// Empties the queue, keeping its capacity.
    pub(crate) fn clear(&mut self) {
        self.data.clear();
        self.msgs.clear();
    }

    /// Appends a message from `src`.
    pub(crate) fn push(&mut self, src: usize, bytes: &[u8]) {
        self.msgs.push(SysMsg { src, at: self.data.len(), len: bytes.len() });
        self.data.extend_from_slice(bytes);
    }
}

impl Ctx {
    /// Queues one message for process `pid` on the runtime's channel, made of `parts` one after
    /// the other (so a header and a payload need no copy into one buffer first); it arrives at
    /// the next sync.
    #[track_caller]
    pub(crate) fn sys_send(&self, op: &str, pid: usize, parts: &[&[u8]]) {
        self.check_live(op);
        self.check_pid(op, pid);
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        let q = unsafe { self.outbox() }.dest(pid);
        let at = q.sys_data.len();
        for part in parts {
            q.sys_data.extend_from_slice(part);
        }
        q.sys_msgs.push(MsgRec { align: 1, at, tag_len: 0, payload_len: q.sys_data.len() - at });
        let mut st = self.state.borrow_mut();
        st.flags |= flags::WORK | flags::MSG;
        st.pending.sends += 1;
    }

    /// The messages that arrived on the runtime's channel at the last sync, as (source pid,
    /// bytes), in ascending source pid and then send order.
    pub(crate) fn sys_messages(&self) -> impl Iterator<Item = (usize, &[u8])> + '_ {
        let r = &self.sys_recv;
        r.msgs.iter().map(move |m| (m.src, &r.data[m.at..m.at + m.len]))
    }
}
