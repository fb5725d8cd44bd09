//! `get_batch`: many one-element gets from one registration into one local buffer, with the
//! checks that do not depend on the get (the process may communicate, the handle is this
//! process's and effective, whether the buffer lies in registered memory) done once.
//!
//! A batch lives inside a superstep (it borrows the [`Superstep`] and, like a [`Dest`], its
//! buffer for the superstep's lifetime `'s`), so it cannot outlive the sync, where its gets are
//! read. Each of its gets checks only its pid, its source offset and its place in the buffer,
//! then appends exactly the record [`Superstep::get`] appends (same records, same order, merged
//! with the previous get in the same way), so batch gets and other gets interleave in issue
//! order.
//!
//! [`Dest`]: crate::Dest

use std::marker::PhantomData;
use std::sync::Arc;

use crate::outbox::GetRec;
use crate::{AsRemote, Ctx, GetDest, Superstep, Value};

/// One-element gets from one registration into one buffer, from [`Superstep::get_batch`].
///
/// Each [`get`](GetBatch::get) is [`Superstep::get`] of one element without the checks the
/// batch made once; [`get_each`](GetBatch::get_each) also gathers gets that continue each other
/// into one record inside its loop. A fan-out (get these n single elements from wherever they
/// live) spends its time on exactly these calls.
pub struct GetBatch<'s, T: Value> {
    ctx: &'s Ctx,
    /// Every process's (address, extent in bytes) of the registration.
    row: Arc<[(usize, usize)]>,
    slot: u32,
    serial: u64,
    /// The buffer.
    dst: *mut T,
    len: usize,
    /// Whether every get into the buffer is staged (the buffer lies in registered memory) or
    /// none is; `None` if that depends on the element (decided per get, as `get` does).
    staged: Option<bool>,
    _borrow: PhantomData<&'s mut [T]>,
}

impl<'s> Superstep<'s, '_> {
    /// A batch of one-element gets from `src` into `dst`: `batch.get(pid, offset, i)` is
    /// [`s.get(pid, src, offset, d.at(i))`](Superstep::get) with `d` the buffer `dst`, with the
    /// same semantics and the same errors, checked once for the batch where they do not depend
    /// on the get.
    ///
    /// `dst` is any destination of `get` (`&mut [T]`, a [`Dest`](crate::Dest) or a part of
    /// one), borrowed until the sync; the batch's gets are read at the sync, interleaved in
    /// issue order with the other gets of the superstep.
    ///
    /// ```
    /// // Fan-out: element (i * 3) % 8 of process i % p into position i.
    /// let got = bsp_runtime::run(2, |ctx| {
    ///     let p = ctx.nprocs();
    ///     let x = ctx.register((0..8).map(|k| 10 * ctx.pid() as u32 + k).collect::<Vec<_>>());
    ///     let mut buf = [0u32; 6];
    ///     ctx.superstep(|s| {
    ///         let mut batch = s.get_batch(&x, &mut buf);
    ///         for i in 0..6 {
    ///             batch.get(i % p, (i * 3) % 8, i);
    ///         }
    ///     });
    ///     buf
    /// })
    /// .unwrap();
    /// assert_eq!(got[0], [0, 13, 6, 11, 4, 17]);
    /// ```
    ///
    /// # Panics
    /// Here, if `src` is not an effective registration of this process (pushed in this
    /// superstep, or deregistered); at each get, as [`get`](Superstep::get), and if the
    /// position is past the end of `dst`.
    #[track_caller]
    pub fn get_batch<T: Value>(&self, src: impl AsRemote<T>, dst: impl GetDest<'s, T>) -> GetBatch<'s, T> {
        let ctx: &'s Ctx = self.ctx;
        let r = src.as_remote();
        ctx.check_live("get_batch");
        ctx.check_handle("get_batch", r.run_id, r.pid, r.serial);
        let row = ctx.effective_row("get_batch", r.slot, r.serial);
        let (dst, len, _) = dst.into_raw();
        let (addr, bytes) = (dst as usize, len * std::mem::size_of::<T>());
        let st = ctx.state.borrow();
        let table = &st.table;
        let staged = if !table.overlaps_local(addr, bytes) {
            Some(false)
        } else if table.within_local(addr, bytes) {
            Some(true)
        } else {
            None
        };
        drop(st);
        GetBatch { ctx, row, slot: r.slot, serial: r.serial, dst, len, staged, _borrow: PhantomData }
    }
}

impl<T: Value> GetBatch<'_, T> {
    /// Reads element `offset` of the batch's registration on process `pid` into element `at`
    /// of the batch's buffer at the sync: [`Superstep::get`] of one element.
    ///
    /// # Panics
    /// If `pid >= nprocs()`, if `offset` is not below the extent that process `pid`
    /// registered, or if `at` is not below the length of the buffer.
    #[track_caller]
    #[inline]
    pub fn get(&mut self, pid: usize, offset: usize, at: usize) {
        self.get_one(pid, offset, at);
    }

    /// The out-of-line part of `get`: the checks and the record stay out of the caller's loop.
    #[track_caller]
    #[inline(never)]
    fn get_one(&self, pid: usize, offset: usize, at: usize) {
        if let Some(run) = self.check(pid, offset, at) {
            self.queue(run);
        }
    }

    /// [`get(pid, offset, at)`](GetBatch::get) for each `(pid, offset, at)` of `gets`, in
    /// order: a fan-out in one call. The gets are checked one by one as `get` checks them, but
    /// the runs of gets that continue each other (the next element of the same process's
    /// registration into the next element of the buffer) are gathered in the loop and queued
    /// as one record each, so a get costs a few compares.
    ///
    /// ```
    /// // Every process reads elements 2, 3, 4 and 7 of the next process.
    /// let got = bsp_runtime::run(3, |ctx| {
    ///     let next = (ctx.pid() + 1) % ctx.nprocs();
    ///     let x = ctx.register((0..8).map(|k| 10 * ctx.pid() as u32 + k).collect::<Vec<_>>());
    ///     let mut buf = [0u32; 4];
    ///     ctx.superstep(|s| {
    ///         let mut batch = s.get_batch(&x, &mut buf);
    ///         batch.get_each([2, 3, 4, 7].into_iter().enumerate().map(|(at, k)| (next, k, at)));
    ///     });
    ///     buf
    /// })
    /// .unwrap();
    /// assert_eq!(got[2], [2, 3, 4, 7]);
    /// ```
    ///
    /// # Panics
    /// As [`get`](GetBatch::get), at the first get that fails its checks; the gets before it
    /// are queued.
    #[track_caller]
    pub fn get_each(&mut self, gets: impl IntoIterator<Item = (usize, usize, usize)>) {
        let size = std::mem::size_of::<T>();
        let Some(staged) = self.staged.filter(|_| size > 0) else {
            // Staged or not depending on the element, or elements of size 0: each get by
            // itself, as `get` (whose record still continues the previous one where it can).
            for (pid, offset, at) in gets {
                self.get_one(pid, offset, at);
            }
            return;
        };
        // The run being gathered is queued when the next get does not continue it, at the end,
        // before a check panics, and if the iterator panics: the guard's drop.
        struct Gathering<'b, 's, T: Value> {
            batch: &'b GetBatch<'s, T>,
            staged: bool,
            run: Open,
            queued: Queued,
        }
        impl<T: Value> Drop for Gathering<'_, '_, T> {
            fn drop(&mut self) {
                self.batch.queue_open(&mut self.run, self.staged, &mut self.queued);
                self.batch.queued(&mut self.queued);
            }
        }
        let mut g = Gathering { batch: self, staged, run: Open::NONE, queued: Queued::default() };
        for (pid, offset, at) in gets {
            let r = &mut g.run;
            // The next element of the same process into the next place, within the extent of
            // `pid` and the buffer (`at_limit`: the run's places never pass either).
            if pid == r.pid && offset == r.next_offset && at == r.next_at && at < r.at_limit {
                (r.next_offset, r.next_at) = (offset + 1, at + 1);
                continue;
            }
            g.batch.queue_open(r, staged, &mut g.queued);
            let extent = match g.batch.row.get(pid) {
                Some(&(_, extent_bytes)) => extent_bytes / size,
                None => g.batch.bad_pid(pid, offset),
            };
            if offset >= extent {
                g.batch.bad_extent(pid, offset, extent);
            }
            if at >= g.batch.len {
                g.batch.bad_index(at);
            }
            *r = Open {
                pid,
                start_offset: offset,
                start_at: at,
                next_offset: offset + 1,
                next_at: at + 1,
                at_limit: at + (extent - offset).min(g.batch.len - at),
            };
        }
    }

    /// Queues the gets of `run` (if any) as one record, and leaves it empty. The first record
    /// of a `get_each` is queued as `get` queues one (it may continue the superstep's last get);
    /// the later ones cannot continue the run before them (it would have gathered them), so
    /// they are appended as they are, with their counts kept in `queued` until the end.
    #[inline]
    fn queue_open(&self, run: &mut Open, staged: bool, queued: &mut Queued) {
        if run.next_at > run.start_at {
            let size = std::mem::size_of::<T>();
            let addr = self.row[run.pid].0;
            let calls = run.next_at - run.start_at;
            let (byte_offset, dst_addr) = (run.start_offset * size, self.dst as usize + run.start_at * size);
            let dst_buf = self.dst as usize; // one buffer: its runs may join
            let (pid, slot, bytes) = (run.pid, self.slot, calls * size);
            if !queued.first {
                self.ctx.push_get(pid, slot, byte_offset, addr + byte_offset, bytes, dst_addr, dst_buf, staged, calls);
                queued.first = true;
            } else {
                if pid != queued.pid {
                    self.queued(queued);
                    queued.pid = pid;
                }
                (queued.calls, queued.bytes) = (queued.calls + calls, queued.bytes + bytes);
                let rec =
                    GetRec { pid, slot, byte_offset, src_addr: addr + byte_offset, bytes, dst_addr, dst_buf, staged };
                // SAFETY: the only outbox reference of this call, dropped before it returns
                // (`Ctx::outbox`); the caller's iterator runs between two such calls, never
                // during one.
                unsafe { self.ctx.outbox() }.gets.push(rec);
            }
        }
        *run = Open::NONE;
    }

    /// Counts the gets of `queued` (appended to the outbox by `queue_open` after the first
    /// record) as `push_get` counts its own: in the superstep's pending gets, and in what this
    /// process asks of their process. Leaves the counts at zero.
    #[cold]
    fn queued(&self, queued: &mut Queued) {
        if queued.calls == 0 {
            return;
        }
        self.ctx.state.borrow_mut().pending.gets += queued.calls;
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        let q = unsafe { self.ctx.outbox() }.dest(queued.pid);
        (q.gets, q.get_bytes) = (q.gets + queued.calls, q.get_bytes + queued.bytes);
        (queued.calls, queued.bytes) = (0, 0);
    }

    /// The checks of a get of element `offset` on `pid` into element `at` (the batch made the
    /// others once): panics as [`Superstep::get`] does, and returns the get as a run of one, or
    /// `None` if it moves nothing (elements of size 0).
    #[track_caller]
    #[inline]
    fn check(&self, pid: usize, offset: usize, at: usize) -> Option<Run> {
        let Some(&(addr, extent_bytes)) = self.row.get(pid) else { self.bad_pid(pid, offset) };
        let size = std::mem::size_of::<T>();
        let extent = extent_bytes.checked_div(size).unwrap_or(0);
        if offset >= extent {
            self.bad_extent(pid, offset, extent);
        }
        if at >= self.len {
            self.bad_index(at);
        }
        if size == 0 {
            return None; // D7: validated, moves nothing
        }
        let dst_addr = self.dst as usize + at * size;
        let staged = match self.staged {
            Some(staged) => staged,
            None => self.ctx.state.borrow().table.overlaps_local(dst_addr, size),
        };
        let byte_offset = offset * size;
        Some(Run { pid, byte_offset, src_addr: addr + byte_offset, dst_addr, bytes: size, staged, calls: 1 })
    }

    /// Queues `run` in the outbox, as `get` queues a get.
    #[inline]
    fn queue(&self, run: Run) {
        let Run { pid, byte_offset, src_addr, dst_addr, bytes, staged, calls, .. } = run;
        let dst_buf = self.dst as usize; // one buffer: its runs may join
        self.ctx.push_get(pid, self.slot, byte_offset, src_addr, bytes, dst_addr, dst_buf, staged, calls);
    }

    #[cold]
    #[track_caller]
    fn bad_pid(&self, pid: usize, offset: usize) -> ! {
        self.ctx.fail_misuse(format!(
            "get with process {pid} (registration #{}, offset {offset}, length 1): pid {pid} is out of range (nprocs = {})",
            self.serial,
            self.row.len()
        ))
    }

    #[cold]
    #[track_caller]
    fn bad_extent(&self, pid: usize, offset: usize, extent: usize) -> ! {
        self.ctx.fail_misuse(format!(
            "get with process {pid}: registration #{}: offset {offset} + length 1 is past the extent {extent} that process {pid} registered (elements of `{}`)",
            self.serial,
            std::any::type_name::<T>()
        ))
    }

    #[cold]
    #[track_caller]
    fn bad_index(&self, at: usize) -> ! {
        self.ctx.fail_misuse(format!(
            "get_batch: destination index {at} is out of range for a buffer of length {}",
            self.len
        ))
    }
}

/// Gets of consecutive bytes from one process into consecutive bytes of the buffer: `calls`
/// gets, one record.
#[derive(Clone, Copy, Debug)]
struct Run {
    pid: usize,
    byte_offset: usize,
    src_addr: usize,
    dst_addr: usize,
    bytes: usize,
    staged: bool,
    calls: usize,
}

/// The run of gets `get_each` is gathering: elements `start_offset..next_offset` of `pid`'s
/// registration into places `start_at..next_at` of the buffer (none if they are equal); a get
/// of element `next_offset` into place `next_at < at_limit` continues it.
#[derive(Clone, Copy, Debug)]
struct Open {
    pid: usize,
    start_offset: usize,
    start_at: usize,
    next_offset: usize,
    next_at: usize,
    at_limit: usize,
}

/// What `get_each` appended to the outbox after its first record and has not counted yet: the
/// `calls` gets, of `bytes` in all, from process `pid`.
#[derive(Debug, Default)]
struct Queued {
    first: bool,
    pid: usize,
    calls: usize,
    bytes: usize,
}

impl Open {
    /// No run: no get continues it.
    const NONE: Open = Open { pid: usize::MAX, start_offset: 0, start_at: 0, next_offset: 0, next_at: 0, at_limit: 0 };
}

impl<T: Value> std::fmt::Debug for GetBatch<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GetBatch").field("registration", &self.serial).field("len", &self.len).finish_non_exhaustive()
    }
}
