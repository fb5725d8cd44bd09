//! `put_batch`: many buffered puts into one registration, with the checks that do not depend on
//! the put (the process may communicate, the handle is this process's and effective) done once.
//!
//! A batch holds the context mutably, so nothing can change the registration, the superstep or
//! the outbox while it lives; each of its puts checks only its pid and its extent, then appends
//! to the outbox exactly as [`Ctx::put`] does (same records, same order, same sync).

use std::marker::PhantomData;
use std::sync::Arc;

use crate::ctx::State;
use crate::sync::outbox::{append, flags, Outbox, BULK_BYTES};
use crate::{AsRemote, Combiner, Ctx, Elems, Value};

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
    _t: PhantomData<fn(&T)>,
}

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
        self.check_live("put_batch");
        self.check_handle("put_batch", r.run_id, r.pid, r.serial);
        let row = self.effective_row("put_batch", r.slot, r.serial);
        let me = self.pid;
        let out: *mut Outbox = self.outbox_ptr();
        let st = self.state.get_mut();
        // SAFETY: the batch holds `self` mutably for its whole life, so no other primitive (the
        // only other users of `outbox`) runs and no sync switches the outbox meanwhile: this is
        // the only reference to it until the batch is dropped (`Ctx::outbox`'s contract). The
        // outbox is the engine's memory, not part of `State`, so it does not alias `st`.
        let out = unsafe { &mut *out };
        PutBatch { out, st, row, slot: r.slot, serial: r.serial, me, _t: PhantomData }
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
        const OP: &str = "put";
        let src = src.elems();
        let len = src.len();
        let Some(&(_, extent_bytes)) = self.row.get(pid) else { self.bad_pid(OP, pid, offset, len) };
        let size = std::mem::size_of::<T>();
        let extent = extent_bytes.checked_div(size).unwrap_or(0);
        if offset.checked_add(len).is_none_or(|end| end > extent) && len > 0 {
            self.bad_extent(OP, pid, offset, len, extent);
        }
        if len == 0 {
            return; // D7: validated, moves nothing
        }
        let bytes: &[u8] = bytemuck::cast_slice(src);
        self.out.dest(pid).push_buffered(self.slot, offset * size, bytes);
        let bulk = if bytes.len() >= BULK_BYTES { flags::BULK } else { 0 };
        self.st.flags |= flags::WORK | flags::PUT | bulk;
        self.st.pending.puts += 1;
    }

    /// A combining put into the batch's registration: [`Ctx::put_combine`], with the checks of
    /// [`put`](PutBatch::put). Consecutive one-word combining puts to consecutive elements with
    /// the same operator cost the receiver one call of the operator's loop.
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
        const OP: &str = "put_combine";
        let src = src.elems();
        let len = src.len();
        let Some(&(_, extent_bytes)) = self.row.get(pid) else { self.bad_pid(OP, pid, offset, len) };
        let size = std::mem::size_of::<T>();
        let extent = extent_bytes.checked_div(size).unwrap_or(0);
        if offset.checked_add(len).is_none_or(|end| end > extent) && len > 0 {
            self.bad_extent(OP, pid, offset, len, extent);
        }
        if len == 0 {
            return; // D7: validated, moves nothing
        }
        let bytes: &[u8] = bytemuck::cast_slice(src);
        let q = self.out.dest(pid);
        let at = q.put_data.len();
        append(&mut q.put_data, bytes);
        q.push_combining_put(self.slot, offset * size, bytes.len(), at, op.tag(), size);
        self.st.flags |= flags::WORK | flags::PUT;
        self.st.pending.puts += 1;
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
