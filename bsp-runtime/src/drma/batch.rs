//! `put_batch`: many buffered puts into one registration, with the checks that do not depend on
//! the put (the process may communicate, the handle is this process's and effective) done once.
//!
//! A batch holds the context mutably, so nothing can change the registration, the superstep or
//! the outbox while it lives; each of its puts checks only its pid and its extent, then appends
//! to the outbox exactly as [`Ctx::put`] does (same records, same order, same sync).
//!
//! [`Ctx::put_batch_with_local`] gives a batch into a registration together with this process's
//! part of that same registration, for a redistribution that reads its local elements and puts
//! them elsewhere into the same registration (the FFT's). It is sound because the two touch
//! disjoint memory until the sync: a buffered put copies its source into the outbox at the call
//! (the engine's memory, not the registration's), and what the batch queued lands in the
//! registration only at the sync, which needs `&mut Ctx` that the batch and the view both borrow.
//! So the borrow rules forbid exactly what would race: the view or the batch kept across the
//! sync (where the puts land, and the registration may be deregistered); nothing else.

use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::Arc;

use crate::ctx::State;
use crate::outbox::{BULK_BYTES, DestQueue, Outbox, Tail, flags};
use crate::{AsRemote, Combiner, Ctx, Elems, RegHandle, Value};

/// Buffered puts into one registration, from [`Ctx::put_batch`].
///
/// Each [`put`](PutBatch::put) is [`Ctx::put`] without the checks the batch made once: it costs
/// a few nanoseconds, against a few tens for `Ctx::put`, which is what a loop of many small puts
/// (a scatter, a histogram, a transpose) spends its time on.
pub struct PutBatch<'c, T: Value> {
    out: &'c mut Outbox,
    st: &'c mut State,
    /// Every process's (address, extent in bytes) of the registration.
    row: Arc<[(usize, usize)]>,
    slot: u32,
    serial: u64,
    /// This process (for messages).
    me: usize,
    /// The last put's destination and queue, while the queue's last record is a buffered put
    /// (plain or combining) into this registration: a put that continues it extends it without
    /// looking the queue up or reading the record (a loop of puts to consecutive elements).
    tail: Option<BatchTail>,
    _t: PhantomData<fn(&T)>,
}

/// The last record of one destination's queue, as the batch left it, in elements: a put of
/// element `next` on `pid`, of the record's kind, continues it while `next < end`, and needs no
/// more buffer while `next < limit`.
struct BatchTail {
    pid: usize,
    /// The element a put continuing the record writes.
    next: usize,
    /// The first element it may not write: the extent of the registration on `pid`, or the end
    /// of the longest record, whichever comes first.
    end: usize,
    /// The first element it may not write without the queue's buffer growing: `end`, or where
    /// the spare capacity of the buffer ends, whichever comes first.
    limit: usize,
    /// [`PLAIN`] for a plain put, the operator's tag for a combining one.
    op: u64,
    queue: QueuePtr,
}

/// The kind of a [`BatchTail`] of plain puts: no operator's tag (an element size of at most
/// 64 KiB in its high half) is this.
const PLAIN: u64 = u64::MAX;

impl BatchTail {
    /// The tail of `q`, `pid`'s queue, whose last record is `tail` (if a put may continue it)
    /// of kind `op`, for puts of `T` into registration `slot` of `extent` elements on `pid`:
    /// `None` unless that record is into `slot` and ends at a whole element.
    #[inline]
    fn new<T>(pid: usize, op: u64, tail: Option<Tail>, slot: u32, extent: usize, q: &mut DestQueue) -> Option<Self> {
        let size = std::mem::size_of::<T>();
        let t = tail.filter(|t| t.slot == slot && size > 0 && t.end % size == 0)?;
        let next = t.end / size;
        let end = extent.min(next + t.room / size);
        let limit = Self::limit_in::<T>(end, next, q);
        Some(BatchTail { pid, next, end, limit, op, queue: QueuePtr(NonNull::from(q)) })
    }

    /// Sets `limit` from the spare capacity of `q`'s buffer (this tail's queue), after the
    /// tail was made or the buffer grew.
    #[inline]
    fn set_limit<T>(&mut self, q: &DestQueue) {
        self.limit = Self::limit_in::<T>(self.end, self.next, q);
    }

    /// `end`, or the element after `next` where the spare capacity of `q`'s buffer ends.
    #[inline]
    fn limit_in<T>(end: usize, next: usize, q: &DestQueue) -> usize {
        let spare = q.put_data.capacity() - q.put_data.len();
        end.min(next + spare / std::mem::size_of::<T>())
    }
}

/// A destination's queue in the batch's outbox, from the `Outbox::dest` call that found it; valid
/// until the next `Outbox::dest` call, which may move the queues (every path of the batch that
/// makes one takes a new tail or none).
struct QueuePtr(NonNull<DestQueue>);

// SAFETY: a `QueuePtr` stands for the `&mut DestQueue` it was made from, a reborrow of the batch's
// `&mut Outbox`, and is used only through `&mut PutBatch`: sending or sharing the batch moves or
// shares that borrow, which the outbox allows as the batch's `out` field does.
unsafe impl Send for QueuePtr {}
// SAFETY: as for `Send`; through `&PutBatch` nothing reads or writes the queue.
unsafe impl Sync for QueuePtr {}

impl Ctx {
    /// A batch of buffered puts into `dst`: `batch.put(pid, src, offset)` is
    /// [`ctx.put(pid, src, dst, offset)`](Ctx::put), with the same semantics and the same
    /// errors, checked once for the batch where they do not depend on the put.
    ///
    /// The batch borrows the context until it is dropped (so it cannot outlive the superstep);
    /// its puts land at the next sync, interleaved in issue order with the other puts of the
    /// superstep.
    ///
    /// ```
    /// let got = bsp_runtime::run(2, |ctx| {
    ///     let x = ctx.register([0u32; 8]);
    ///     let other = 1 - ctx.pid();
    ///     let mut batch = ctx.put_batch(&x);
    ///     for i in 0..8 {
    ///         batch.put(other, &(10 * i as u32), i);
    ///     }
    ///     ctx.sync();
    ///     x.local(ctx).to_vec()
    /// })
    /// .unwrap();
    /// assert_eq!(got[0], [0, 10, 20, 30, 40, 50, 60, 70]);
    /// ```
    ///
    /// # Panics
    /// Here, if `dst` is not an effective registration of this process (pushed in this
    /// superstep, or deregistered); at each put, as [`Ctx::put`].
    #[track_caller]
    pub fn put_batch<T: Value>(&mut self, dst: impl AsRemote<T>) -> PutBatch<'_, T> {
        let r = dst.as_remote();
        self.batch("put_batch", r.slot, r.serial, r.run_id, r.pid)
    }

    /// A batch of buffered puts into `reg` and this process's part of `reg`, to modify, at once:
    /// for a redistribution that reads its local elements and puts them elsewhere into the same
    /// registration (an FFT's, a transpose's), with no copy of the local part first.
    ///
    /// The puts copy their source at the call and land at the next sync, so reading (or
    /// writing) the local part while the batch lives is sound: nothing reaches the registration
    /// before the sync. Both borrow the context until they are dropped, so neither survives the
    /// sync, where the puts land (a read of the view after it does not compile); meanwhile no
    /// other primitive runs, as with [`put_batch`](Ctx::put_batch).
    ///
    /// ```
    /// // Reverse a vector distributed in blocks: element i goes to n - 1 - i.
    /// let got = bsp_runtime::run(2, |ctx| {
    ///     let (s, p) = (ctx.pid(), ctx.nprocs());
    ///     let mut x = ctx.register(vec![s as u32 * 3, s as u32 * 3 + 1, s as u32 * 3 + 2]);
    ///     let (mut batch, local) = ctx.put_batch_with_local(&mut x);
    ///     for (t, v) in local.iter().enumerate() {
    ///         let j = 3 * p - 1 - (3 * s + t);
    ///         batch.put(j / 3, v, j % 3);
    ///     }
    ///     ctx.sync();
    ///     x.local(ctx).to_vec()
    /// })
    /// .unwrap();
    /// assert_eq!(got, [vec![5, 4, 3], vec![2, 1, 0]]);
    /// ```
    ///
    /// # Panics
    /// As [`put_batch`](Ctx::put_batch), and if `reg` belongs to another process or run.
    #[track_caller]
    pub fn put_batch_with_local<'a, T: Value, H: RegHandle<T>>(
        &'a mut self,
        reg: &'a mut H,
    ) -> (PutBatch<'a, T>, &'a mut [T]) {
        let (name, local) = reg.split_mut(self);
        let (slot, serial, run_id, pid) = (name.slot, name.serial, name.run_id, name.pid);
        let (ptr, len) = (local.as_mut_ptr(), local.len());
        let batch = self.batch("put_batch_with_local", slot, serial, run_id, pid);
        // SAFETY: `ptr`/`len` are this process's part of the registration, just checked by
        // `split_mut`, whose borrow of `reg` this one continues: `reg` stays borrowed mutably
        // for `'a`, so no other view of it exists. The memory is the registration's storage,
        // not the context's or the outbox's, so the batch does not alias it; and the borrow of
        // the context for `'a` keeps the process out of the sync, the only time anything else
        // writes it (the batch's own puts land there too).
        let local = unsafe { std::slice::from_raw_parts_mut(ptr, len) };
        (batch, local)
    }

    /// A batch into the registration (slot, serial) of handle owner (run_id, pid): the checks
    /// that do not depend on the put, made once.
    #[track_caller]
    fn batch<T: Value>(&mut self, op: &str, slot: u32, serial: u64, run_id: u64, pid: usize) -> PutBatch<'_, T> {
        self.check_live(op);
        self.check_handle(op, run_id, pid, serial);
        let row = self.effective_row(op, slot, serial);
        let me = self.pid;
        let out: *mut Outbox = self.outbox_ptr();
        let st = self.state.get_mut();
        // SAFETY: the batch holds `self` mutably for its whole life, so no other primitive (the
        // only other users of `outbox`) runs and no sync switches the outbox meanwhile: this is
        // the only reference to it until the batch is dropped (`Ctx::outbox`'s contract). The
        // outbox is the engine's memory, not part of `State`, so it does not alias `st`.
        let out = unsafe { &mut *out };
        PutBatch { out, st, row, slot, serial, me, tail: None, _t: PhantomData }
    }
}

impl<T: Value> PutBatch<'_, T> {
    /// Copies `src` into the batch's registration at `offset` on process `pid` at the next sync:
    /// [`Ctx::put`].
    ///
    /// # Panics
    /// If `pid >= nprocs()`, or if `offset + len` is past the extent that process `pid`
    /// registered.
    #[track_caller]
    #[inline]
    pub fn put<S: ?Sized + Elems<T>>(&mut self, pid: usize, src: &S, offset: usize) {
        // A one-element source of a small type is read here and the rest gets a copy, so that
        // the caller's variable stays in a register (see `Ctx::put_combine`). A put that
        // continues the batch's last record (the next element on the same process: a scatter
        // to consecutive places) extends it here, in the caller's loop, with nothing else to
        // check; any other put takes the out-of-line path.
        match src.elems() {
            [one] if super::is_register_sized::<T>() => super::put_copy(one, |one| {
                if !self.extend_tail_one(pid, PLAIN, offset, one[0]) {
                    self.put_one_slow(pid, one[0], offset);
                }
            }),
            many => self.queue_put(pid, many, offset),
        }
    }

    /// A put of one small element that does not continue the last record (or needs the
    /// record's buffer to grow): by value, so that the caller's fast path needs no stack.
    #[track_caller]
    #[inline(never)]
    fn put_one_slow(&mut self, pid: usize, value: T, offset: usize) {
        self.queue_put(pid, std::slice::from_ref(&value), offset);
    }

    #[track_caller]
    #[inline(never)]
    fn queue_put(&mut self, pid: usize, src: &[T], offset: usize) {
        if !self.check("put", pid, offset, src.len()) {
            return; // D7: validated, moves nothing
        }
        let bytes: &[u8] = bytemuck::cast_slice(src);
        let byte_offset = offset * std::mem::size_of::<T>();
        if !self.extend_tail(pid, PLAIN, offset, src.len(), bytes) {
            let (slot, extent) = (self.slot, self.extent(pid));
            let q = self.out.dest_for_puts(pid);
            q.push_buffered(slot, byte_offset, bytes);
            self.tail = BatchTail::new::<T>(pid, PLAIN, q.buffered_tail(), slot, extent, q);
        }
        let bulk = if bytes.len() >= BULK_BYTES { flags::BULK } else { 0 };
        self.st.flags |= flags::WORK | flags::PUT | bulk;
    }

    /// A combining put into the batch's registration: [`Ctx::put_combine`], with the checks of
    /// [`put`](PutBatch::put). Consecutive combining puts to consecutive elements with the same
    /// operator cost the receiver one call of the operator's loop, and the sender an append.
    ///
    /// ```
    /// // Fan-in: every process adds its partial sums into the elements process 0 owns.
    /// let got = bsp_runtime::run(3, |ctx| {
    ///     let add = ctx.combiner(|a: f64, b: f64| a + b);
    ///     let y = ctx.register(vec![0.0f64; 4]);
    ///     let pid = ctx.pid() as f64;
    ///     let mut batch = ctx.put_batch(&y);
    ///     for i in 0..4 {
    ///         batch.put_combine(0, &(pid + i as f64), i, add);
    ///     }
    ///     ctx.sync();
    ///     y.local(ctx).to_vec()
    /// })
    /// .unwrap();
    /// assert_eq!(got[0], [3.0, 6.0, 9.0, 12.0]);
    /// ```
    ///
    /// # Panics
    /// As [`put`](PutBatch::put); at the sync, as [`Ctx::put_combine`].
    #[track_caller]
    #[inline]
    pub fn put_combine<S: ?Sized + Elems<T>>(&mut self, pid: usize, src: &S, offset: usize, op: Combiner<T>) {
        // As in `put`: the caller's one small value is copied here, so a partial sum passed as
        // `&sum` inside a row loop is never address-taken by a call.
        match src.elems() {
            [one] if super::is_register_sized::<T>() => super::put_copy(one, |one| {
                if !self.extend_tail_one(pid, op.tag(), offset, one[0]) {
                    self.combine_one_slow(pid, one[0], offset, op);
                }
            }),
            many => self.queue_combining_put(pid, many, offset, op),
        }
    }

    /// A combining put of one small element that does not continue the last record: as
    /// [`put_one_slow`](PutBatch::put_one_slow).
    #[track_caller]
    #[inline(never)]
    fn combine_one_slow(&mut self, pid: usize, value: T, offset: usize, op: Combiner<T>) {
        self.queue_combining_put(pid, std::slice::from_ref(&value), offset, op);
    }

    #[track_caller]
    #[inline(never)]
    fn queue_combining_put(&mut self, pid: usize, src: &[T], offset: usize, op: Combiner<T>) {
        if !self.check("put_combine", pid, offset, src.len()) {
            return; // D7: validated, moves nothing
        }
        let bytes: &[u8] = bytemuck::cast_slice(src);
        let size = std::mem::size_of::<T>();
        let (byte_offset, tag) = (offset * size, op.tag());
        if !self.extend_tail(pid, tag, offset, src.len(), bytes) {
            let (slot, extent) = (self.slot, self.extent(pid));
            let q = self.out.dest(pid);
            q.push_combining_bytes(slot, byte_offset, bytes, tag, size);
            let tail = q.combining_tail(size).filter(|&(_, last_op)| last_op == tag).map(|(t, _)| t);
            self.tail = BatchTail::new::<T>(pid, tag, tail, slot, extent, q);
        }
        self.st.flags |= flags::WORK | flags::PUT;
    }

    /// Appends `bytes`, the `len` elements of a checked put at `offset` on `pid`, to the last
    /// record the batch queued if the put continues it: the same process, the same kind (plain,
    /// or combining with operator `op`), the next elements of the registration, and room left in
    /// the record. Returns whether it did.
    #[inline(always)]
    fn extend_tail(&mut self, pid: usize, op: u64, offset: usize, len: usize, bytes: &[u8]) -> bool {
        match &mut self.tail {
            // The put was checked, so `offset + len` is within the extent: `len <= end - next`
            // is the record's room (`next <= end` as made, saturating to be sure).
            Some(t) if t.pid == pid && t.op == op && t.next == offset && len <= t.end.saturating_sub(t.next) => {
                // SAFETY: `queue` is `pid`'s queue, from the `dest` call that took the tail; no
                // `dest` call since (each takes a new tail or none), so the queues have not moved,
                // and nothing else reaches the outbox while the batch holds it (`&mut`). Nothing
                // was queued for `pid` since, so the tail still describes its last record, whose
                // kind (and operator) is `op`.
                let q = unsafe { t.queue.0.as_mut() };
                q.extend_tail(bytes);
                t.next += len;
                t.set_limit::<T>(q); // the buffer may have grown
                true
            }
            _ => false,
        }
    }

    /// [`extend_tail`](PutBatch::extend_tail) for one element at `offset` that has not been
    /// checked: it continues the record only if `offset` is below the tail's limit, which is
    /// within `pid`'s extent, the record's room and the buffer's capacity, so a put that passes
    /// here needs no other check. The flags of the superstep were set by the put that made the
    /// tail. Inlined into the caller's loop: four compares, the store of the value and the
    /// counts.
    #[inline(always)]
    fn extend_tail_one(&mut self, pid: usize, op: u64, offset: usize, value: T) -> bool {
        match &mut self.tail {
            Some(t) if t.pid == pid && t.next == offset && offset < t.limit && t.op == op => {
                // SAFETY: as in `extend_tail`, `queue` is `pid`'s queue and the tail describes
                // its last record, a buffered one that ends its buffer (`new`); `next < limit`
                // leaves room in the record and at least one element of `T` of spare capacity in
                // the buffer (`set_limit`: the capacity only grows while the batch lives, and
                // every append since went through `extend_tail`, which set the limit again).
                unsafe { t.queue.0.as_mut().extend_tail_unchecked(bytemuck::bytes_of(&value)) };
                t.next += 1;
                true
            }
            _ => false,
        }
    }

    /// The extent of the registration on `pid` (checked), in elements.
    #[inline]
    fn extent(&self, pid: usize) -> usize {
        self.row[pid].1 / std::mem::size_of::<T>()
    }

    /// The checks of a put of `len` elements at `offset` on `pid` that depend on the put (the
    /// pid and the extent; the batch made the others once): panics as [`Ctx::put`] does, and
    /// returns whether there is anything to move.
    #[track_caller]
    #[inline]
    fn check(&self, op: &str, pid: usize, offset: usize, len: usize) -> bool {
        let Some(&(_, extent_bytes)) = self.row.get(pid) else { self.bad_pid(op, pid, offset, len) };
        let extent = extent_bytes.checked_div(std::mem::size_of::<T>()).unwrap_or(0);
        if offset.checked_add(len).is_none_or(|end| end > extent) && len > 0 {
            self.bad_extent(op, pid, offset, len, extent);
        }
        len > 0
    }

    #[cold]
    #[track_caller]
    fn bad_pid(&self, op: &str, pid: usize, offset: usize, len: usize) -> ! {
        panic!(
            "process {}: {op} with process {pid} (registration #{}, offset {offset}, length {len}): pid {pid} is out of range (nprocs = {})",
            self.me,
            self.serial,
            self.row.len()
        )
    }

    #[cold]
    #[track_caller]
    fn bad_extent(&self, op: &str, pid: usize, offset: usize, len: usize, extent: usize) -> ! {
        panic!(
            "process {}: {op} with process {pid}: registration #{}: offset {offset} + length {len} is past the extent {extent} that process {pid} registered (elements of `{}`)",
            self.me,
            self.serial,
            std::any::type_name::<T>()
        )
    }
}

impl<T: Value> std::fmt::Debug for PutBatch<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PutBatch").field("registration", &self.serial).finish_non_exhaustive()
    }
}
