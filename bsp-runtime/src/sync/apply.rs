//! Where the sync lands the data other processes sent this one (phases 4 to 6 of `sync/mod.rs`):
//! the puts addressed to it (after the staged get results of `gets.rs`, so a put wins over a
//! get, D1; ascending source pid, then issue order, D2), extension records, the receive queues
//! of the next superstep, and the registration changes.

use crate::Ctx;
use crate::engine::Peers;
use crate::observe::stats::Traffic;
use crate::outbox::{LANDED, flags};
use crate::reg::RegState;

impl Ctx {
    /// Applies the puts of every process to this one, in ascending source pid and then issue
    /// order; with `count_gets`, also counts the gets this process served (statistics).
    pub(super) fn apply_puts(&mut self, peers: &dyn Peers, count_gets: bool) {
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
            // The operators of the combining puts, read only when a record combines (their
            // vector lies in another cache line of the queue than the records').
            let mut combined = 0;
            for put in &q.puts {
                let len = put.len();
                if counted {
                    got.put_bytes += len;
                }
                let from = match put.source() {
                    Ok(at) => q.put_data[at..at + len].as_ptr(),
                    Err(Some(LANDED)) => continue,
                    Err(Some(addr)) => addr as *const u8,
                    Err(None) => put.carried(),
                };
                if put.slot != cached.0 {
                    let entry = st.table.entries[put.slot as usize]
                        .as_ref()
                        .expect("put into a slot that was checked at the call");
                    cached = (put.slot, entry.local_addr);
                }
                let dst = cached.1 + put.byte_offset;
                if put.combines() {
                    let tag = *q.combines.get(combined).expect("one operator per combining put");
                    combined += 1;
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

    /// Delivers extension records (`ext/mod.rs`) to their objects, ascending source pid, then issue
    /// order.
    pub(super) fn apply_records(&mut self, peers: &dyn Peers) {
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

    pub(super) fn receive_messages(&mut self, peers: &dyn Peers) {
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

    /// Pushes take effect, then pops: a registration pushed and popped in the same superstep
    /// (which only the C interface can do, `foreign/regs.rs`) is gone after the sync. Slots are
    /// taken at the push call, so the order changes no slot number.
    pub(super) fn apply_registrations(&mut self, peers: &dyn Peers) {
        let (p, me) = (self.nprocs, self.pid);
        let st = self.state.get_mut();
        for (i, info) in peers.meta(me).pushes.iter().enumerate() {
            let slot = st.table.find_serial(info.serial).expect("a pushed registration is in the table");
            let e = st.table.entries[slot as usize].as_mut().expect("just found");
            e.state = RegState::Active;
            let row = peers.registration_row(p, i);
            e.same_extent = row.same_extent;
            e.remote = row.remote;
            if e.ext.is_some() {
                e.handlers = row.handlers;
            }
        }
        for &serial in &peers.meta(me).pops {
            if let Some(slot) = st.table.find_serial(serial) {
                st.table.release(slot);
            }
        }
    }
}

/// `copy_nonoverlapping` with the sizes of single-word puts done inline: for them a call to
/// `memcpy` costs more than the copy.
///
/// # Safety
/// As `std::ptr::copy_nonoverlapping::<u8>(src, dst, len)`.
#[inline(always)]
pub(super) unsafe fn copy_bytes(src: *const u8, dst: *mut u8, len: usize) {
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
