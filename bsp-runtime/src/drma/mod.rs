//! DRMA: `put`, `hpput`, `get`, `hpget` (docs/semantics.md §3, decisions D1–D7).
//!
//! - `put` copies its source into the outbox at the call (buffered on source and destination).
//! - `hpput` records the source's address; the receiver copies straight from it during the sync
//!   (the source is borrowed until then, so it cannot change). A source inside this process's
//!   registered memory is copied at the call instead, because incoming puts may write there
//!   during the same sync.
//! - `get` and `hpget` record the destination's address; the requester reads the source during
//!   the sync, before any put lands (D1), and writes its destination directly, or through a
//!   staging buffer when the destination lies in its own registered memory (which other
//!   processes may be reading at that moment).
//!
//! Offsets and lengths are in elements. Zero-length transfers validate pid and registration and
//! move nothing (D7).

pub(crate) mod batch;
pub(crate) mod combine;
pub(crate) mod dest;
pub(crate) mod get_batch;

use crate::outbox::{GetRec, PutKey, PutSrc, flags};
use crate::reg::Remote;
use crate::{AsRemote, Ctx, Elems, GetDest, Superstep, Value};

impl Ctx {
    /// Copies `src` into `dst` at `offset` on process `pid` at the next sync (`bsp_put`).
    ///
    /// The source is copied before `put` returns, so it may be reused at once. Puts land after
    /// get results (the put wins, D1); puts to the same element are applied in ascending
    /// source pid, then issue order, and the last one wins (D2).
    ///
    /// ```
    /// let got = bsp_runtime::run(2, |ctx| {
    ///     let mut x = ctx.register([0u8; 4]);
    ///     let mut v = [1u8, 2];
    ///     ctx.put(1 - ctx.pid(), &v, &x, 2);
    ///     v[0] = 9; // no effect on the transfer
    ///     ctx.sync();
    ///     x.local(ctx).to_vec()
    /// })
    /// .unwrap();
    /// assert_eq!(got[0], [0, 0, 1, 2]);
    /// ```
    ///
    /// # Panics
    /// If `pid >= nprocs()`, if `dst` is not an effective registration (pushed in this
    /// superstep, or already deregistered), or if `offset + len` is past the extent that process
    /// `pid` registered.
    #[track_caller]
    #[inline]
    pub fn put<T: Value, S: ?Sized + Elems<T>>(&self, pid: usize, src: &S, dst: impl AsRemote<T>, offset: usize) {
        // A one-element source of a small type is read here and the out-of-line part gets a
        // copy, so that the caller's variable stays in a register (see `Ctx::put_combine`).
        let dst = dst.as_remote();
        match src.elems() {
            [one] if is_register_sized::<T>() => put_copy(one, |one| self.queue_put_one(pid, one[0], dst, offset)),
            many => self.queue_put(pid, many, dst, offset),
        }
    }

    /// [`queue_put`](Ctx::queue_put) of one small element, passed by value: the quick path
    /// then knows the length, and the value needs no memory of the caller's. A put to the
    /// target of the last one that fits the queue's spare capacity makes no call.
    #[track_caller]
    #[inline(never)]
    fn queue_put_one<T: Value>(&self, pid: usize, value: T, dst: Remote<'_, T>, offset: usize) {
        self.check_live("put");
        self.check_handle("put", dst.run_id, dst.pid, dst.serial);
        let size = std::mem::size_of::<T>();
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        let out = unsafe { self.outbox() };
        if !out.quick_put::<true>((pid, PutKey::serial(dst.serial)), (offset, 1, size), size, || {
            bytemuck::bytes_of(&value)
        }) {
            self.queue_put_one_more(pid, value, dst, offset);
        }
    }

    /// The rest of [`queue_put_one`](Ctx::queue_put_one).
    #[track_caller]
    #[inline(never)]
    fn queue_put_one_more<T: Value>(&self, pid: usize, value: T, dst: Remote<'_, T>, offset: usize) {
        let (size, key) = (std::mem::size_of::<T>(), PutKey::serial(dst.serial));
        // The first put of the superstep into this registration (as named) has no second quick
        // path to try.
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        let hit = unsafe { self.outbox() }.hit_registration(key).is_some();
        if !(hit && self.quick_put_more((pid, key), (offset, 1, size), size, || bytemuck::bytes_of(&value))) {
            self.queue_put_checked(pid, std::slice::from_ref(&value), dst, offset);
        }
    }

    /// The out-of-line part of `put`: a put to the target of the last checked put of the
    /// superstep, or into its registration, checks only the handle, the process and the extent
    /// ([`quick_put_more`](Ctx::quick_put_more)); any other takes the whole path.
    #[track_caller]
    #[inline(never)]
    fn queue_put<T: Value>(&self, pid: usize, src: &[T], dst: Remote<'_, T>, offset: usize) {
        self.check_live("put");
        self.check_handle("put", dst.run_id, dst.pid, dst.serial);
        let (size, bytes) = (std::mem::size_of::<T>(), bytemuck::cast_slice(src));
        if !self.quick_put_more((pid, PutKey::serial(dst.serial)), (offset, src.len(), size), bytes.len(), || bytes) {
            self.queue_put_checked(pid, src, dst, offset);
        }
    }

    /// Queues a buffered put of `len` bytes (`n` elements of `size` bytes) at element `offset`
    /// of the registration named `key` on `pid` (`target`), by a process that is live and for a
    /// handle of its own, if the last checked put of the superstep went into that
    /// registration, named so: to the same process (its extent noted), or to another, whose
    /// extent there this looks up (and notes). `bytes` gives the bytes, and is called only once the put is
    /// accepted. Returns whether it did; if not (another registration, a process out of range,
    /// a put past the extent, of nothing, or bulk), nothing changed, and the caller takes the
    /// checked path. Shared by `put` and BSPlib's `bsp_put` (`foreign/regs.rs`); it never
    /// panics.
    #[inline(never)]
    pub(crate) fn quick_put_more<'b>(
        &self,
        target: (usize, PutKey),
        elems: (usize, usize, usize),
        len: usize,
        bytes: impl FnOnce() -> &'b [u8] + Copy,
    ) -> bool {
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        let out = unsafe { self.outbox() };
        if out.quick_put::<false>(target, elems, len, bytes) {
            return true;
        }
        // Another process: its extent of the same registration, effective (a checked put went
        // into it in this superstep, and registrations change only at syncs).
        let (pid, key) = target;
        let Some((slot, serial)) = out.hit_registration(key) else { return false };
        let Ok(st) = self.state.try_borrow() else { return false };
        let Some(extent) = st.table.get(slot, serial).and_then(|e| e.extent_on(pid, self.nprocs)) else {
            return false;
        };
        drop(st);
        out.note_hit(key, pid, (slot, serial), extent);
        out.quick_put::<false>(target, elems, len, bytes)
    }

    /// `put` with every check: the first put of a superstep into a registration, and any put
    /// the quick path refuses (to fail with its message, or one of nothing or bulk).
    #[track_caller]
    #[inline(never)]
    fn queue_put_checked<T: Value>(&self, pid: usize, src: &[T], dst: Remote<'_, T>, offset: usize) {
        let r = self.resolve_put("put", pid, dst, offset, src.len());
        if r.bytes == 0 {
            return;
        }
        self.queue_buffered_put(pid, r.slot, r.byte_offset, bytemuck::cast_slice(src));
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        unsafe { self.outbox() }.note_hit(PutKey::serial(dst.serial), pid, (r.slot, dst.serial), r.extent);
    }

    /// Queues a checked buffered put: inlined into `queue_put`, so that a put is one call (a
    /// second call's frame and argument moves cost about a tenth of a one-word put).
    #[inline(always)]
    fn queue_buffered_put(&self, pid: usize, slot: u32, byte_offset: usize, bytes: &[u8]) {
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        unsafe { self.outbox() }.dest_for_puts(pid).push_buffered(slot, byte_offset, bytes);
        let bulk = if bytes.len() >= crate::outbox::BULK_BYTES { flags::BULK } else { 0 };
        self.state.borrow_mut().flags |= flags::WORK | flags::PUT | bulk;
    }

    /// Queues a get of `elems` elements into the `elems` elements at `dst`, which lie in the
    /// buffer that starts at `dst_buf`: the out-of-line part of `get` and `hpget`.
    #[track_caller]
    #[inline(never)]
    fn queue_get<T: Value>(
        &self,
        op: &str,
        pid: usize,
        src: Remote<'_, T>,
        offset: usize,
        dst: (*mut T, usize, usize),
    ) {
        let (dst, elems, dst_buf) = dst;
        let r = self.resolve(op, pid, src, offset, elems);
        if r.bytes == 0 {
            return;
        }
        let dst_addr = dst as usize;
        let staged = self.state.borrow().table.overlaps_local(dst_addr, r.bytes);
        self.push_get(pid, r.slot, r.byte_offset, r.remote_addr + r.byte_offset, r.bytes, dst_addr, dst_buf, staged, 1);
    }

    /// Appends `calls` checked gets that read `bytes` consecutive bytes in all (from `src_addr`,
    /// at `byte_offset` of registration `slot` on `pid`, into `dst_addr` of the buffer that
    /// starts at `dst_buf`) to the outbox: the record of `get`, and of a run of the get batch's.
    #[allow(clippy::too_many_arguments, reason = "the fields of the record")]
    #[inline]
    pub(crate) fn push_get(
        &self,
        pid: usize,
        slot: u32,
        byte_offset: usize,
        src_addr: usize,
        bytes: usize,
        dst_addr: usize,
        dst_buf: usize,
        staged: bool,
        calls: usize,
    ) {
        {
            let mut st = self.state.borrow_mut();
            st.flags |= flags::GET | flags::WORK;
            st.pending.gets += calls;
        }
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        let out = unsafe { self.outbox() };
        // A get that continues the previous one (same process and registration, the next bytes
        // of both the source and the destination buffer, staged alike) extends its record: the
        // two do not overlap, so reading and writing them in order or as one moves the same
        // bytes. A loop of one-word gets of consecutive elements (a fan-out) then costs one copy.
        // Only within one destination buffer: two buffers that merely lie next to each other
        // are two allocations, and one copy across both is undefined behaviour.
        if let Some(last) = out.gets.last_mut()
            && last.pid == pid
            && last.slot == slot
            && last.staged == staged
            && last.byte_offset + last.bytes == byte_offset
            && last.src_addr + last.bytes == src_addr
            && last.dst_addr + last.bytes == dst_addr
            && last.dst_buf == dst_buf
        {
            last.bytes += bytes;
        } else {
            out.gets.push(GetRec { pid, slot, byte_offset, src_addr, bytes, dst_addr, dst_buf, staged });
        }
        let q = out.dest(pid); // stats: what this process asks of `pid` (calls, not records)
        (q.gets, q.get_bytes) = (q.gets + calls, q.get_bytes + bytes);
    }
}

/// Whether a value of `T` is small enough to be copied to the stack on the way to a put, which
/// lets the caller keep it in registers: two words at most. A larger element is passed by
/// reference, and never copied to the stack whatever its size (a one-element put of a 4 MiB
/// array would overflow a thread's stack).
#[inline(always)]
pub(crate) const fn is_register_sized<T>() -> bool {
    std::mem::size_of::<T>() <= 2 * std::mem::size_of::<usize>()
}

/// Calls `queue` with a copy of `*one`, made in a frame of its own: the copy's stack slot is part
/// of this function's frame, never of the caller's, even in a build that does not optimise away
/// the branch for the types `is_register_sized` refuses (this function is inlined only where it
/// is called, for small types).
#[inline]
pub(crate) fn put_copy<T: Copy, R>(one: &T, queue: impl FnOnce(&[T]) -> R) -> R {
    let one = *one;
    queue(std::slice::from_ref(&one))
}

impl<'s> Superstep<'s, '_> {
    /// Reads `dst.len()` elements of `src` at `offset` on process `pid` into `dst` at the end of
    /// this superstep (`bsp_get`).
    ///
    /// The source is read at the sync, after every process finished its superstep and before
    /// any put lands. `dst` stays borrowed until the sync, so the compiler rejects reading it
    /// early. Overlapping get destinations: the later get (in issue order) wins; a put into the
    /// same memory wins over both (D1).
    ///
    /// `dst` is `&mut x`, `&mut [T]`, `&mut [T; N]`, `&mut Vec<T>`, or a part of a [`Dest`](crate::Dest). Since
    /// each get borrows its destination until the sync, a second get into the same buffer
    /// through `&mut buf[i]` is a borrow error (E0499, "cannot borrow `buf` as mutable more than
    /// once"): borrow the buffer once with [`dest`](Superstep::dest) and pass
    /// [`d.at(i)`](crate::Dest::at) or [`d.range(a..b)`](crate::Dest::range) instead, as often as needed:
    ///
    /// ```
    /// let got = bsp_runtime::run(2, |ctx| {
    ///     let x = ctx.register([ctx.pid() as u8 * 3, 1]);
    ///     let mut buf = vec![0u8; 4];
    ///     ctx.superstep(|s| {
    ///         let d = s.dest(&mut buf);
    ///         for i in 0..4 {
    ///             s.get(i / 2, &x, i % 2, d.at(i));
    ///         }
    ///     });
    ///     buf
    /// })
    /// .unwrap();
    /// assert_eq!(got[0], [0, 1, 3, 1]);
    /// ```
    ///
    /// ```
    /// let got = bsp_runtime::run(3, |ctx| {
    ///     let x = ctx.register([10 * ctx.pid() as u32]);
    ///     let mut all = [0u32; 3];
    ///     ctx.superstep(|s| {
    ///         // one destination element per process: borrow them with `iter_mut`
    ///         for (q, slot) in all.iter_mut().enumerate() {
    ///             s.get(q, &x, 0, slot);
    ///         }
    ///     });
    ///     all
    /// })
    /// .unwrap();
    /// assert_eq!(got[1], [0, 10, 20]);
    /// ```
    ///
    /// # Panics
    /// As [`Ctx::put`], with the extent of `src` on process `pid`.
    #[track_caller]
    #[inline]
    pub fn get<T: Value>(&self, pid: usize, src: impl AsRemote<T>, offset: usize, dst: impl GetDest<'s, T>) {
        self.ctx.queue_get("get", pid, src.as_remote(), offset, dst.into_raw());
    }

    /// An unbuffered get (`bsp_hpget`): like [`get`](Superstep::get), and the data may move at
    /// any time until the end of the sync. `dst` is borrowed until the sync; it takes the same
    /// destinations as `get`, including the parts of a [`Dest`](crate::Dest).
    ///
    /// ```
    /// let got = bsp_runtime::run(2, |ctx| {
    ///     let x = ctx.register([ctx.pid() as u32; 3]);
    ///     let mut buf = [7u32; 6];
    ///     ctx.superstep(|s| {
    ///         let d = s.dest(&mut buf);
    ///         s.hpget(0, &x, 0, d.range(0..3));
    ///         s.hpget(1, &x, 1, d.range(4..));
    ///     });
    ///     buf
    /// })
    /// .unwrap();
    /// assert_eq!(got[0], [0, 0, 0, 7, 1, 1]);
    /// ```
    ///
    /// # Panics
    /// As [`get`](Superstep::get).
    #[track_caller]
    #[inline]
    pub fn hpget<T: Value>(&self, pid: usize, src: impl AsRemote<T>, offset: usize, dst: impl GetDest<'s, T>) {
        self.ctx.queue_get("hpget", pid, src.as_remote(), offset, dst.into_raw());
    }

    /// An unbuffered put (`bsp_hpput`): the receiver copies straight from `src` during the sync,
    /// with no staging copy. `src` is borrowed until the sync, so it cannot change meanwhile.
    ///
    /// ```
    /// let got = bsp_runtime::run(2, |ctx| {
    ///     let x = ctx.register(vec![0u64; 1024]);
    ///     let block: Vec<u64> = (0..1024).collect();
    ///     ctx.superstep(|s| s.hpput(1 - s.pid(), &block[..], &x, 0));
    ///     x.local(ctx)[1023]
    /// })
    /// .unwrap();
    /// assert_eq!(got, vec![1023, 1023]);
    /// ```
    ///
    /// # Panics
    /// As [`Ctx::put`].
    #[track_caller]
    pub fn hpput<T: Value, S: ?Sized + Elems<T>>(&self, pid: usize, src: &'s S, dst: impl AsRemote<T>, offset: usize) {
        let ctx = self.ctx;
        let src = src.elems();
        let r = ctx.resolve("hpput", pid, dst.as_remote(), offset, src.len());
        if r.bytes == 0 {
            return;
        }
        let bytes: &[u8] = bytemuck::cast_slice(src);
        let addr = bytes.as_ptr() as usize;
        if ctx.state.borrow().table.overlaps_local(addr, bytes.len()) {
            ctx.queue_buffered_put(pid, r.slot, r.byte_offset, bytes);
            return;
        }
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        let q = unsafe { ctx.outbox() }.dest_for_puts(pid);
        q.push_put(r.slot, r.byte_offset, r.bytes, PutSrc::Direct(addr));
        ctx.state.borrow_mut().flags |= flags::WORK | flags::PUT | flags::HPPUT;
    }
}
