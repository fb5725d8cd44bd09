//! BSMP: bulk-synchronous message passing (docs/semantics.md §4, decisions D8–D11).
//!
//! A message is a tag of the size in force (set collectively by `set_tagsize`) and a payload of
//! any length. Sends are copied into the outbox at the call; at the sync every receiver pulls
//! the messages addressed to it, in ascending source pid and then send order (deterministic,
//! D10), into one receive buffer whose tags and payloads start at 16-byte boundaries, or at the
//! alignment of the types a typed `send` was given if that is larger (up to 64 bytes), so that
//! `hpmove` can hand out `&T` in place (D11). A type that needs more than 64-byte alignment is
//! always refused by `hpmove` (never only when the buffer happens to land well); `move_message`
//! copies, so it takes any type. Unread messages are discarded at the next sync.
//!
//! Tag sizes follow the (A, B, C) model of §4.1: A is the tag size of the messages in the
//! receive queue, B the size `send` uses now, C the last request; `set_tagsize` returns B (D8);
//! a sync does (A, B, C) → (B, C, C).

use std::cell::Cell;

use crate::outbox::{MsgRec, flags};
use crate::{Ctx, Value};

/// Tag-size state of one process: (A, B, C) of docs/semantics.md §4.1.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct TagState {
    pub in_queue: usize,
    pub in_force: usize,
    pub requested: usize,
}

/// Least alignment of tags and payloads in the receive buffer.
const ALIGN: usize = 16;

/// The unit of the receive buffer: its alignment bounds the alignment a message can get.
#[derive(Clone, Copy, bytemuck::Zeroable, bytemuck::Pod)]
#[repr(C, align(64))]
struct Chunk([u8; 64]);

/// The largest alignment the receive buffer can give: `hpmove` refuses types that need more.
pub(crate) const MAX_ALIGN: usize = std::mem::align_of::<Chunk>();

/// One received message's place in the buffer.
#[derive(Clone, Copy, Debug)]
struct RecvRec {
    tag_at: usize,
    tag_len: usize,
    payload_at: usize,
    payload_len: usize,
    /// The alignment the tag and payload were placed at (from `ALIGN` to `MAX_ALIGN`).
    align: usize,
}

/// The receive queue: written only by `sync` (which has `&mut Ctx`), read through `&Ctx`.
#[derive(Default)]
pub(crate) struct Recv {
    buf: Vec<Chunk>,
    msgs: Vec<RecvRec>,
    next: Cell<usize>,
    bytes_left: Cell<usize>,
}

fn round_up(n: usize, align: usize) -> usize {
    n.div_ceil(align) * align
}

impl Recv {
    /// Empties the queue (keeping capacity).
    pub(crate) fn clear(&mut self) {
        self.msgs.clear();
        self.next.set(0);
        self.bytes_left.set(0);
    }

    /// Appends one message; `tag` and `payload` are copied to offsets aligned to `align`
    /// (at least [`ALIGN`], at most [`MAX_ALIGN`]).
    pub(crate) fn push(&mut self, tag: &[u8], payload: &[u8], align: usize) {
        let align = align.clamp(ALIGN, MAX_ALIGN);
        let used = self.msgs.last().map_or(0, |m| m.payload_at + m.payload_len);
        let tag_at = round_up(used, align);
        let payload_at = round_up(tag_at + tag.len(), align);
        let need = payload_at + payload.len();
        if need > self.buf.len() * MAX_ALIGN {
            self.buf.resize(need.div_ceil(MAX_ALIGN).max(self.buf.len() * 2), Chunk([0; 64]));
        }
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut self.buf);
        bytes[tag_at..tag_at + tag.len()].copy_from_slice(tag);
        bytes[payload_at..payload_at + payload.len()].copy_from_slice(payload);
        self.msgs.push(RecvRec { tag_at, tag_len: tag.len(), payload_at, payload_len: payload.len(), align });
        self.bytes_left.set(self.bytes_left.get() + payload.len());
    }

    /// The unread messages, for a checkpoint: (tag, payload, alignment) each, in order.
    pub(crate) fn unread(&self) -> impl Iterator<Item = (&[u8], &[u8], usize)> + '_ {
        let b = self.bytes();
        self.msgs[self.next.get()..]
            .iter()
            .map(move |m| (&b[m.tag_at..m.tag_at + m.tag_len], &b[m.payload_at..m.payload_at + m.payload_len], m.align))
    }

    /// Whether `[addr, addr + len)` overlaps the receive buffer.
    #[allow(dead_code, reason = "kept for an engine that copies hpput sources at the call")]
    pub(crate) fn overlaps(&self, addr: usize, len: usize) -> bool {
        let start = self.buf.as_ptr() as usize;
        len > 0 && addr < start + self.buf.len() * MAX_ALIGN && start < addr + len
    }

    fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.buf)
    }

    /// The alignment the first unread message was placed at.
    fn peek_align(&self) -> Option<usize> {
        self.msgs.get(self.next.get()).map(|m| m.align)
    }

    /// The first unread message: (tag, payload).
    fn peek(&self) -> Option<(&[u8], &[u8])> {
        let m = self.msgs.get(self.next.get())?;
        let b = self.bytes();
        Some((&b[m.tag_at..m.tag_at + m.tag_len], &b[m.payload_at..m.payload_at + m.payload_len]))
    }

    fn pop(&self) -> Option<(&[u8], &[u8])> {
        let r = self.peek()?;
        self.next.set(self.next.get() + 1);
        self.bytes_left.set(self.bytes_left.get() - r.1.len());
        Some(r)
    }
}

impl Ctx {
    /// Requests the tag size (in bytes) for the messages of the *next* superstep
    /// (`bsp_set_tagsize`); collective. Returns the tag size in force now (D8).
    ///
    /// All processes must end the superstep with the same request. Several calls in one
    /// superstep: the last one counts. The initial tag size is 0.
    ///
    /// # Panics
    /// At the next sync, on every process, if the processes requested different sizes.
    #[track_caller]
    pub fn set_tagsize(&self, nbytes: usize) -> usize {
        self.check_live("set_tagsize");
        let mut st = self.state.borrow_mut();
        st.tag.requested = nbytes;
        st.flags |= flags::WORK | flags::COLLECTIVE;
        st.tag.in_force
    }

    /// [`set_tagsize`](Ctx::set_tagsize) with the size of `Tg`, for typed tags.
    #[track_caller]
    pub fn set_tag<Tg: Value>(&self) -> usize {
        self.set_tagsize(std::mem::size_of::<Tg>())
    }

    /// Sends a message with tag `tag` and payload `payload` to process `pid` (`bsp_send`).
    ///
    /// Tag and payload are copied at the call. The message can be read by `pid` in the next
    /// superstep only. The size of `Tg` must be the tag size in force (use `()` with size 0).
    /// The payload is a slice: `&[x]` sends one value, `&xs` an array or a `Vec`.
    ///
    /// ```
    /// let got = bsp_runtime::run(3, |ctx| {
    ///     ctx.set_tag::<u32>();
    ///     ctx.sync();
    ///     for q in 0..ctx.nprocs() {
    ///         ctx.send(q, &(ctx.pid() as u32), &[1.5f64, 2.5]);
    ///     }
    ///     ctx.sync();
    ///     let mut from = Vec::new();
    ///     while let Some((tag, payload)) = ctx.move_message::<u32, f64>() {
    ///         assert_eq!(payload, [1.5, 2.5]);
    ///         from.push(tag);
    ///     }
    ///     from.sort();
    ///     from
    /// })
    /// .unwrap();
    /// assert_eq!(got[2], [0, 1, 2]);
    /// ```
    ///
    /// # Panics
    /// If `pid >= nprocs()` or the tag's size is not the tag size in force.
    #[track_caller]
    #[inline]
    pub fn send<Tg: Value, T: Value>(&self, pid: usize, tag: &Tg, payload: &[T]) {
        let align = std::mem::align_of::<Tg>().max(std::mem::align_of::<T>());
        // A small tag, and a one-element payload of a small type, are copied here, so that the
        // caller's variables are never address-taken by the out-of-line call and may stay in
        // registers (as for `put`, `drma::put_copy`); a larger one is passed by reference.
        use crate::drma::{is_register_sized, put_copy};
        if !is_register_sized::<Tg>() {
            return self.send_impl("send", pid, bytemuck::bytes_of(tag), bytemuck::cast_slice(payload), align);
        }
        put_copy(tag, |tag| match payload {
            [one] if is_register_sized::<T>() => put_copy(one, |one| {
                self.send_impl("send", pid, bytemuck::cast_slice(tag), bytemuck::cast_slice(one), align)
            }),
            _ => self.send_impl("send", pid, bytemuck::cast_slice(tag), bytemuck::cast_slice(payload), align),
        })
    }

    /// [`send`](Ctx::send) at the byte level: `tag.len()` must be the tag size in force.
    #[track_caller]
    pub fn send_bytes(&self, pid: usize, tag: &[u8], payload: &[u8]) {
        self.send_impl("send_bytes", pid, tag, payload, ALIGN);
    }

    #[track_caller]
    #[inline(never)]
    fn send_impl(&self, op: &str, pid: usize, tag: &[u8], payload: &[u8], align: usize) {
        self.check_live(op);
        self.check_pid(op, pid);
        let in_force = self.state.borrow().tag.in_force;
        if tag.len() != in_force {
            self.fail_misuse(format!(
                "{op} to process {pid}: the tag has {} bytes but the tag size in force is {in_force} (set it with `set_tagsize` one superstep earlier)",
                tag.len()
            ));
        }
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        let q = unsafe { self.outbox() }.dest(pid);
        q.msgs.push(MsgRec { align, at: q.msg_data.len(), tag_len: tag.len(), payload_len: payload.len() });
        q.msg_data.extend_from_slice(tag);
        q.msg_data.extend_from_slice(payload);
        let mut st = self.state.borrow_mut();
        st.flags |= flags::WORK | flags::MSG;
        st.pending.sends += 1;
    }

    /// The number of unread messages and the sum of their payload sizes in bytes
    /// (`bsp_qsize`; tags are not counted).
    pub fn qsize(&self) -> (usize, usize) {
        (self.recv.msgs.len() - self.recv.next.get(), self.recv.bytes_left.get())
    }

    /// The payload size in bytes and the tag of the first unread message, without removing it
    /// (`bsp_get_tag`); `None` if the queue is empty.
    ///
    /// # Panics
    /// If the size of `Tg` is not the tag size of the messages in the queue.
    #[track_caller]
    pub fn get_tag<Tg: Value>(&self) -> Option<(usize, Tg)> {
        let (tag, payload) = self.recv.peek()?;
        Some((payload.len(), self.typed_tag::<Tg>("get_tag", tag)))
    }

    /// [`get_tag`](Ctx::get_tag) at the byte level: copies the tag into `tag` (whose length must
    /// be the tag size of the queued messages) and returns the payload size; `None` (and `tag`
    /// untouched) if the queue is empty (D9).
    #[track_caller]
    pub fn get_tag_bytes(&self, tag: &mut [u8]) -> Option<usize> {
        let (t, payload) = self.recv.peek()?;
        self.check_tag_len("get_tag_bytes", tag.len());
        tag.copy_from_slice(t);
        Some(payload.len())
    }

    /// Removes the first unread message and returns its tag and payload (`bsp_move`);
    /// `None` if the queue is empty (D9).
    ///
    /// # Panics
    /// If the size of `Tg` is not the queue's tag size, or the payload is not a whole number
    /// of `T`.
    #[track_caller]
    pub fn move_message<Tg: Value, T: Value>(&self) -> Option<(Tg, Vec<T>)> {
        let (tag, payload) = self.recv.peek()?;
        let tag = self.typed_tag::<Tg>("move_message", tag);
        self.check_payload_len::<T>("move_message", payload.len());
        // Copies, so it works for any alignment of `T`.
        let mut elems = vec![T::zeroed(); payload.len() / std::mem::size_of::<T>()];
        bytemuck::cast_slice_mut::<T, u8>(&mut elems).copy_from_slice(payload);
        let payload = elems;
        self.recv.pop();
        Some((tag, payload))
    }

    /// Removes the first unread message, copies as much of its payload as fits into `payload`,
    /// and returns the message's full payload length in elements (`bsp_move`). `None` if empty.
    #[track_caller]
    pub fn move_into<T: Value>(&self, payload: &mut [T]) -> Option<usize> {
        let (_, p) = self.recv.peek()?;
        self.check_payload_len::<T>("move_into", p.len());
        let size = std::mem::size_of::<T>();
        let len = p.len() / size;
        let n = len.min(payload.len());
        bytemuck::cast_slice_mut::<T, u8>(&mut payload[..n]).copy_from_slice(&p[..n * size]);
        self.recv.pop();
        Some(len)
    }

    /// [`move_into`](Ctx::move_into) at the byte level: copies `min(len, payload.len())` bytes
    /// and returns the payload length in bytes.
    pub fn move_bytes(&self, payload: &mut [u8]) -> Option<usize> {
        let (_, p) = self.recv.pop()?;
        let n = p.len().min(payload.len());
        payload[..n].copy_from_slice(&p[..n]);
        Some(p.len())
    }

    /// Removes the first unread message and returns references to its tag and payload in the
    /// receive buffer, without copying (`bsp_hpmove`). They are valid until the next sync
    /// (which needs `&mut Ctx`). `None` if empty.
    ///
    /// A message is placed at the alignment of the types its `send` was given, at least 16
    /// and at most 64 bytes (`send_bytes`: 16), so `hpmove` works for every `Tg` and `T` whose
    /// alignment is at most that (D11): always for the types it was sent with. It refuses,
    /// every time, a type that needs more than 64-byte alignment, and one that needs more than
    /// the message was sent with.
    ///
    /// ```
    /// let total = bsp_runtime::run(2, |ctx| {
    ///     ctx.send(1 - ctx.pid(), &(), &[1u64, 2, 3]);
    ///     ctx.sync();
    ///     let (_, xs) = ctx.hpmove::<(), u64>().unwrap();
    ///     xs.iter().sum::<u64>()
    /// })
    /// .unwrap();
    /// assert_eq!(total, vec![6, 6]);
    /// ```
    ///
    /// # Panics
    /// As [`move_message`](Ctx::move_message), and if `Tg` or `T` needs more alignment than
    /// the message has (see above).
    #[track_caller]
    pub fn hpmove<Tg: Value, T: Value>(&self) -> Option<(&Tg, &[T])> {
        let (tag, payload) = self.recv.peek()?;
        let sent = self.recv.peek_align().expect("a message was peeked");
        self.check_tag_len("hpmove", std::mem::size_of::<Tg>());
        self.check_payload_len::<T>("hpmove", payload.len());
        self.check_align::<Tg>("hpmove", "tag", sent);
        self.check_align::<T>("hpmove", "payload", sent);
        let tag: &Tg = bytemuck::from_bytes(tag);
        let payload: &[T] = bytemuck::cast_slice(payload);
        self.recv.pop();
        Some((tag, payload))
    }

    /// Checks that a message placed at `sent`-byte alignment can be read in place as `U`.
    #[track_caller]
    fn check_align<U: Value>(&self, op: &str, what: &str, sent: usize) {
        let need = std::mem::align_of::<U>();
        let ty = std::any::type_name::<U>();
        if need > MAX_ALIGN {
            self.fail_misuse(format!(
                "{op}: the {what} type `{ty}` needs {need}-byte alignment, more than the receive buffer gives any message ({MAX_ALIGN} bytes); receive it with `move_message` (or the tag with `get_tag`), which copy"
            ));
        }
        if need > sent {
            self.fail_misuse(format!(
                "{op}: the {what} type `{ty}` needs {need}-byte alignment, but this message was placed at {sent}-byte alignment, as its `send` asked (`send_bytes`, or `send` with types of smaller alignment); send it with `{ty}`, or receive it with `move_message` (or the tag with `get_tag`), which copy"
            ));
        }
    }

    /// [`hpmove`](Ctx::hpmove) at the byte level: (tag, payload) as bytes.
    pub fn hpmove_bytes(&self) -> Option<(&[u8], &[u8])> {
        self.recv.pop()
    }

    #[track_caller]
    fn check_tag_len(&self, op: &str, len: usize) {
        let in_queue = self.state.borrow().tag.in_queue;
        if len != in_queue {
            self.fail_misuse(format!(
                "{op}: the tag type has {len} bytes but the messages in the queue have {in_queue}-byte tags"
            ));
        }
    }

    #[track_caller]
    fn typed_tag<Tg: Value>(&self, op: &str, tag: &[u8]) -> Tg {
        self.check_tag_len(op, std::mem::size_of::<Tg>());
        bytemuck::pod_read_unaligned(tag)
    }

    #[track_caller]
    fn check_payload_len<T: Value>(&self, op: &str, len: usize) {
        let size = std::mem::size_of::<T>();
        if size == 0 {
            self.fail_misuse(format!("{op}: the payload type `{}` has size 0", std::any::type_name::<T>()));
        }
        if len % size != 0 {
            self.fail_misuse(format!(
                "{op}: a payload of {len} bytes is not a whole number of `{}` ({size} bytes)",
                std::any::type_name::<T>()
            ));
        }
    }
}
