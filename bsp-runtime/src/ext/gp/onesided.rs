//! One-sided operations on any element: get, gather, their size queries, put and scatter
//! (docs/semantics.md §7.4–7.5, D17).
//!
//! - **Reads** (`get`, `gather`, `get_into`, `gather_into`, `get_size`, `gather_size`) check
//!   their subscripts at the call, group the requested elements by owner and queue one
//!   extension request (`ext/mod.rs`) with one part per owner: the owner's local indices, in
//!   request order (`request.rs`). In the get phase of the sync ending the superstep each
//!   owner's object answers its part ([`ExtTarget::serve`](crate::ext::ExtTarget::serve):
//!   the elements' sizes and data, or the sizes only): every process is in that sync, and no
//!   put or record of the superstep has landed yet (the same rule as a DRMA get, D1). On the
//!   threads engine the requester calls `serve` itself; on the MPI engine the part travels to
//!   the owner's rank, which serves it, and the reply travels back. One callback then copies
//!   the replies into the destination in request order (row-major patch order or subscript
//!   list order, duplicates included). The destination is borrowed for the superstep's
//!   lifetime `'s`, like `Superstep::get`, so it cannot be read before the sync: that is a
//!   compile error.
//! - **Writes** (`put`, `scatter`) check their subscripts at the call, copy the data into one
//!   record per owner (so the sources can be reused at once) and queue it; each owner applies
//!   the records sent to it in its put phase, in ascending source pid and then issue order, so
//!   the last write to an element wins (D2). The owner checks what only it knows (is the
//!   element assigned, does its size match) and panics with a message naming the array, the
//!   element, the source process and the sizes.

use std::marker::PhantomData;

use super::GpArray;
use super::buf::GpBuf;
use super::patch;
use super::record::{Batch, Op};
use super::request::{self, Elements};
use crate::{Ctx, Superstep, Value};

/// Where the result of a GP read lands: the closed set of destinations the public reads take.
enum ReadDst<'s, T: Value> {
    /// `get`, `gather`: a buffer, reshaped to `shape`.
    Buf { buf: &'s mut GpBuf<T>, shape: Vec<usize> },
    /// `get_into`, `gather_into`: one vector per element.
    Elements(&'s mut [Vec<T>]),
    /// `get_size`, `gather_size`: the total size.
    Size(SizeDst<'s>),
}

impl<T: Value> ReadDst<'_, T> {
    fn sizes_only(&self) -> bool {
        matches!(self, ReadDst::Size(_))
    }

    /// Writes the replies, in request order, into the destination.
    fn fill(self, elements: Elements<'_, T>) {
        match self {
            ReadDst::Buf { buf, shape } => {
                buf.reset(&shape);
                buf.reserve(elements.len(), elements.values());
                for (_, bytes) in elements {
                    buf.push_bytes(bytes);
                }
            }
            ReadDst::Elements(dst) => {
                for (d, (_, bytes)) in dst.iter_mut().zip(elements) {
                    d.clear();
                    request::extend_from_bytes(d, bytes);
                }
            }
            ReadDst::Size(size) => size.set(elements.map(|(len, _)| len).sum()),
        }
    }
}

/// The destination of a size query, held as a raw pointer taken once at the call.
///
/// The `usize` may be registered memory (`xs.value_mut(s)`), which other processes, and this
/// one, read through its raw address in the get phase of the same sync that later writes the
/// size. A `&mut usize` kept in the callback would be invalidated by those reads under Stacked
/// Borrows, and writing through it afterwards would be undefined behaviour; a raw pointer,
/// derived once from the caller's borrow, stays valid across them. The borrow of `'s` that the
/// caller gave up keeps every other access out until the sync is over.
struct SizeDst<'s> {
    ptr: std::ptr::NonNull<usize>,
    _borrow: PhantomData<&'s mut usize>,
}

impl<'s> SizeDst<'s> {
    fn new(size: &'s mut usize) -> Self {
        SizeDst { ptr: std::ptr::NonNull::from(size), _borrow: PhantomData }
    }

    fn set(self, value: usize) {
        // SAFETY: `ptr` comes from a `&'s mut usize` that nothing else uses until the superstep
        // ends (the caller's borrow lasts `'s`); the callback runs inside the sync that ends
        // it, after the get-phase barrier, when no process reads this process's memory any
        // more (`ext/mod.rs`, `deliver_replies`), so this write races with nothing.
        unsafe { self.ptr.as_ptr().write(value) }
    }
}

impl<T: Value> GpArray<T> {
    /// Checks that the array may be used for communication now: the handle is this process's,
    /// and its registration is in force (always, since `build` includes the sync that makes it
    /// effective; checked on every call all the same).
    #[track_caller]
    fn check_usable(&self, ctx: &Ctx, op: &str) {
        self.check_handle(ctx, op);
        ctx.ext_addr(op, ctx.pid(), &self.reg);
    }

    /// Checks the patch `lo..=hi` and returns its extents.
    #[track_caller]
    fn check_patch(&self, ctx: &Ctx, op: &str, lo: &[usize], hi: &[usize]) -> Vec<usize> {
        let dims = self.dims();
        let fail = |why: String| -> ! {
            let (op, patch) = (crate::calls::gp_call(op), crate::calls::patch_text(lo, hi));
            ctx.fail_misuse(format!("{}: {op} of patch {patch}: {why}", self.name()))
        };
        if lo.len() != dims.len() || hi.len() != dims.len() {
            fail(format!(
                "`lo` and `hi` need one index per axis, but the array has {} dimensions {dims:?}",
                dims.len()
            ));
        }
        for d in 0..dims.len() {
            if lo[d] > hi[d] {
                fail(format!("`lo` is above `hi` on axis {d} (bounds are inclusive)"));
            }
            if hi[d] >= dims[d] {
                fail(format!("index {} on axis {d} is out of range for dims {dims:?} (subscripts are 0-based)", hi[d]));
            }
        }
        patch::extents(lo, hi)
    }

    /// The owner and local index of each element of the patch, in row-major order, and the
    /// patch's extents.
    #[track_caller]
    fn locate_patch(&self, ctx: &Ctx, op: &str, lo: &[usize], hi: &[usize]) -> (Vec<usize>, Vec<(usize, usize)>) {
        let extents = self.check_patch(ctx, op, lo, hi);
        self.check_usable(ctx, op);
        let n: usize = extents.iter().product();
        let mut locs = Vec::new();
        if let Err(e) = locs.try_reserve_exact(n) {
            ctx.fail_misuse(format!(
                "{}: {} of patch {}: the patch has {n} elements, too many to list ({e})",
                self.name(),
                crate::calls::gp_call(op),
                crate::calls::patch_text(lo, hi)
            ));
        }
        patch::for_each(lo, hi, |sub| locs.push(self.locate(ctx, op, sub)));
        (extents, locs)
    }

    /// The owner and local index of each listed element, in list order.
    #[track_caller]
    fn locate_list<S: AsRef<[usize]>>(&self, ctx: &Ctx, op: &str, subs: &[S]) -> Vec<(usize, usize)> {
        self.check_usable(ctx, op);
        subs.iter().map(|sub| self.locate(ctx, op, sub.as_ref())).collect()
    }

    /// Asks the owners of the elements at `locs` (owner, local index) for them, or for their
    /// sizes only, at the sync ending `s`; the replies land in `dst` there, in the order of
    /// `locs`.
    ///
    /// Safe by construction: the reply callback is built here from a [`ReadDst`], one of a
    /// closed set of destinations that each borrow their target for the superstep's lifetime
    /// `'s` and own the rest, which is what [`Ctx::request_ext`]'s contract asks.
    #[track_caller]
    fn request<'s>(&self, s: &Superstep<'s, '_>, op: &str, locs: &[(usize, usize)], dst: ReadDst<'s, T>) {
        let (order, parts) = request::plan(s.nprocs(), dst.sizes_only(), locs);
        let on_reply = move |replies: &mut dyn Iterator<Item = &[u8]>| dst.fill(order.elements::<T>(replies));
        // SAFETY: `on_reply` owns `order` and `dst`. Every variant of `ReadDst` borrows only
        // its destination, mutably for `'s` (the superstep, which ends after the sync that runs
        // the callback), so nothing else touches it until then, and owns the rest (the shape).
        // Its drop glue frees owned vectors only and never uses the borrow (a size destination
        // is a raw pointer with no drop glue at all).
        unsafe { s.request_ext(op, &self.reg, parts.iter(), Box::new(on_reply)) }
    }

    /// Reads the elements at `locs` into `buf` (shaped `shape`) at the sync ending `s`.
    #[track_caller]
    fn read_buf<'s>(
        &self,
        s: &Superstep<'s, '_>,
        op: &str,
        shape: Vec<usize>,
        locs: &[(usize, usize)],
        buf: &'s mut GpBuf<T>,
    ) {
        self.request(s, op, locs, ReadDst::Buf { buf, shape });
    }

    /// Reads the elements at `locs` into `dst` (as many) at the sync ending `s`.
    #[track_caller]
    fn read_into<'s>(&self, s: &Superstep<'s, '_>, op: &str, locs: &[(usize, usize)], dst: &'s mut [Vec<T>]) {
        debug_assert_eq!(dst.len(), locs.len());
        self.request(s, op, locs, ReadDst::Elements(dst));
    }

    /// Stores the total size of the elements at `locs` in `size` at the sync ending `s`.
    #[track_caller]
    fn read_size<'s>(&self, s: &Superstep<'s, '_>, op: &str, locs: &[(usize, usize)], size: &'s mut usize) {
        self.request(s, op, locs, ReadDst::Size(SizeDst::new(size)));
    }

    /// Copies the patch `lo..=hi` (inclusive, C order) into `buf` at the end of this superstep
    /// (`GP_Get` with `setbuf == 0`): the elements packed in row-major order, with their
    /// offsets and sizes. Unassigned elements come back empty.
    ///
    /// The elements are read at the sync, as they are at the end of the superstep on their
    /// owners, before any put of the superstep lands. `buf` is borrowed until then, so reading
    /// it early does not compile:
    ///
    /// ```compile_fail,E0502
    /// use bsp_runtime::gp::{GpArray, GpBuf};
    /// bsp_runtime::run(2, |ctx| {
    ///     let g = GpArray::<u8>::builder(&[2]).build(ctx);
    ///     ctx.sync();
    ///     let mut buf = GpBuf::new();
    ///     ctx.superstep(|s| {
    ///         g.get(s, &[0], &[1], &mut buf);
    ///         println!("{}", buf.total()); // error: `buf` is borrowed until the end of the superstep
    ///     });
    /// });
    /// ```
    ///
    /// ```
    /// use bsp_runtime::gp::{GpArray, GpBuf};
    /// let out = bsp_runtime::run(4, |ctx| {
    ///     let mut g = GpArray::<u32>::builder(&[4, 4]).build(ctx);
    ///     let (lo, hi) = g.distribution(ctx.pid()).unwrap();
    ///     for sub in bsp_runtime::gp::subscripts(&lo, &hi) {
    ///         let v = (10 * sub[0] + sub[1]) as u32;
    ///         g.assign_local(ctx, &sub, vec![v; sub[1]]); // element [i, j] holds j values
    ///     }
    ///     ctx.sync();
    ///     let mut buf = GpBuf::new();
    ///     ctx.superstep(|s| g.get(s, &[1, 1], &[2, 2], &mut buf)); // spans all four blocks
    ///     buf
    /// })
    /// .unwrap();
    /// let buf = &out[3];
    /// assert_eq!(buf.shape(), [2, 2]);
    /// assert_eq!(buf.sizes().collect::<Vec<_>>(), [1, 2, 1, 2]);
    /// assert_eq!(buf.data(), [11, 12, 12, 21, 22, 22]);
    /// assert_eq!(buf.offsets(), [0, 1, 3, 4, 6]);
    /// ```
    ///
    /// # Panics
    /// If the patch is out of range or has `lo > hi` on some axis, or if the array was created
    /// in this superstep.
    #[track_caller]
    pub fn get<'s>(&self, s: &Superstep<'s, '_>, lo: &[usize], hi: &[usize], buf: &'s mut GpBuf<T>) {
        let (extents, locs) = self.locate_patch(s, "get", lo, hi);
        self.read_buf(s, "get", extents, &locs, buf);
    }

    /// Copies the patch `lo..=hi` into caller-provided elements at the end of this superstep
    /// (`GP_Get` with `setbuf != 0`): `dst[i]` receives element `i` of the patch in row-major
    /// order, replacing its contents and reusing its memory. Unassigned elements come back
    /// empty. Read at the sync as for [`get`](Self::get); `dst` is borrowed until then.
    ///
    /// ```
    /// use bsp_runtime::gp::GpArray;
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let mut g = GpArray::<i64>::builder(&[4]).build(ctx);
    ///     let (lo, hi) = g.distribution(ctx.pid()).unwrap();
    ///     for i in lo[0]..=hi[0] {
    ///         g.assign_local(ctx, &[i], vec![-(i as i64); 2]);
    ///     }
    ///     ctx.sync();
    ///     let mut dst = vec![Vec::with_capacity(2); 3];
    ///     ctx.superstep(|s| g.get_into(s, &[1], &[3], &mut dst));
    ///     dst
    /// })
    /// .unwrap();
    /// assert_eq!(out[0], [[-1, -1], [-2, -2], [-3, -3]]);
    /// ```
    ///
    /// # Panics
    /// As [`get`](Self::get), and if `dst.len()` is not the number of elements in the patch.
    #[track_caller]
    pub fn get_into<'s>(&self, s: &Superstep<'s, '_>, lo: &[usize], hi: &[usize], dst: &'s mut [Vec<T>]) {
        let (_, locs) = self.locate_patch(s, "get_into", lo, hi);
        if dst.len() != locs.len() {
            s.fail_misuse(format!(
                "{}: {} of patch {}: `dst` has {} elements but the patch has {}",
                self.name(),
                crate::calls::gp_call("get_into"),
                crate::calls::patch_text(lo, hi),
                dst.len(),
                locs.len()
            ));
        }
        self.read_into(s, "get_into", &locs, dst);
    }

    /// Stores the total size (in elements of `T`) of the patch `lo..=hi` in `size` at the end
    /// of this superstep (`GP_Get_size`); unassigned elements count 0.
    ///
    /// ```
    /// use bsp_runtime::gp::GpArray;
    /// let sizes = bsp_runtime::run(2, |ctx| {
    ///     let mut g = GpArray::<u32>::builder(&[4]).build(ctx);
    ///     let (lo, hi) = g.distribution(ctx.pid()).unwrap();
    ///     for i in lo[0]..=hi[0] {
    ///         if i != 2 {
    ///             g.assign_local(ctx, &[i], vec![0; i + 1]); // sizes 1, 2, (unassigned), 4
    ///         }
    ///     }
    ///     ctx.sync();
    ///     let mut size = 0;
    ///     ctx.superstep(|s| g.get_size(s, &[0], &[3], &mut size));
    ///     size
    /// })
    /// .unwrap();
    /// assert_eq!(sizes, [7, 7]);
    /// ```
    ///
    /// # Panics
    /// As [`get`](Self::get).
    #[track_caller]
    pub fn get_size<'s>(&self, s: &Superstep<'s, '_>, lo: &[usize], hi: &[usize], size: &'s mut usize) {
        let (_, locs) = self.locate_patch(s, "get_size", lo, hi);
        self.read_size(s, "get_size", &locs, size);
    }

    /// Copies the listed elements into `buf` at the end of this superstep (`GP_Gather` with
    /// `setbuf == 0`), packed in list order. A subscript listed twice is copied twice.
    /// Subscripts are C order, 0-based: `&[[i, j], ...]`, `&[vec![i, j], ...]`.
    ///
    /// Read at the sync as for [`get`](Self::get); `buf` is borrowed until then.
    ///
    /// ```
    /// use bsp_runtime::gp::{GpArray, GpBuf};
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let mut g = GpArray::<u8>::builder(&[2, 2]).build(ctx);
    ///     let (lo, hi) = g.distribution(ctx.pid()).unwrap();
    ///     for sub in bsp_runtime::gp::subscripts(&lo, &hi) {
    ///         g.assign_local(ctx, &sub, vec![b'x'; sub[0] + sub[1]]); // [i, j] holds i + j bytes
    ///     }
    ///     ctx.sync();
    ///     let subs = [[1, 1], [0, 1], [1, 1]];
    ///     let (mut buf, mut size) = (GpBuf::new(), 0);
    ///     ctx.superstep(|s| {
    ///         g.gather_size(s, &subs, &mut size);
    ///         g.gather(s, &subs, &mut buf);
    ///     });
    ///     (size, buf.sizes().collect::<Vec<_>>())
    /// })
    /// .unwrap();
    /// assert_eq!(out[0], (5, vec![2, 1, 2]));
    /// ```
    ///
    /// # Panics
    /// If a subscript is out of range or has the wrong number of indices, or if the array was
    /// created in this superstep.
    #[track_caller]
    pub fn gather<'s, S: AsRef<[usize]>>(&self, s: &Superstep<'s, '_>, subs: &[S], buf: &'s mut GpBuf<T>) {
        let locs = self.locate_list(s, "gather", subs);
        self.read_buf(s, "gather", vec![locs.len()], &locs, buf);
    }

    /// Copies the listed elements into caller-provided elements at the end of this superstep
    /// (`GP_Gather` with `setbuf != 0`): `dst[k]` receives element `subs[k]`, replacing its
    /// contents and reusing its memory.
    ///
    /// # Panics
    /// As [`gather`](Self::gather), and if `dst.len() != subs.len()`.
    #[track_caller]
    pub fn gather_into<'s, S: AsRef<[usize]>>(&self, s: &Superstep<'s, '_>, subs: &[S], dst: &'s mut [Vec<T>]) {
        let locs = self.locate_list(s, "gather_into", subs);
        if dst.len() != locs.len() {
            s.fail_misuse(format!(
                "{}: gather_into: `dst` has {} elements but {} subscripts were given",
                self.name(),
                dst.len(),
                locs.len()
            ));
        }
        self.read_into(s, "gather_into", &locs, dst);
    }

    /// Stores the total size (in elements of `T`) of the listed elements in `size` at the end
    /// of this superstep (`GP_Gather_size`); duplicates count each time.
    ///
    /// # Panics
    /// As [`gather`](Self::gather).
    #[track_caller]
    pub fn gather_size<'s, S: AsRef<[usize]>>(&self, s: &Superstep<'s, '_>, subs: &[S], size: &'s mut usize) {
        let locs = self.locate_list(s, "gather_size", subs);
        self.read_size(s, "gather_size", &locs, size);
    }

    /// Writes `elements` into the patch `lo..=hi` at the end of this superstep (`GP_Put`):
    /// `elements[i]` goes into element `i` of the patch in row-major order. Returns the total
    /// size sent, in elements of `T` (GA's `size`).
    ///
    /// The data is copied at the call. Each owner applies it at the sync, after every get of
    /// the superstep has read (D1), into the **existing** element, as GA does: the element must
    /// be assigned, and the data may not be longer than it; shorter data overwrites a prefix.
    /// With `checksize`, the data must have exactly the element's size. Empty data writes
    /// nothing (and, without `checksize`, is allowed even for an unassigned element). Writes to
    /// the same element: ascending source pid, then issue order, the last one wins (D2).
    ///
    /// ```
    /// use bsp_runtime::gp::{GpArray, GpBuf};
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let mut g = GpArray::<u8>::builder(&[2, 2]).build(ctx);
    ///     let (lo, hi) = g.distribution(ctx.pid()).unwrap();
    ///     for sub in bsp_runtime::gp::subscripts(&lo, &hi) {
    ///         g.assign_local(ctx, &sub, [0, 0]);
    ///     }
    ///     ctx.sync();
    ///     if ctx.pid() == 0 {
    ///         // the second column: [0, 1] and [1, 1], owned by processes 0 and 1
    ///         g.put(ctx, &[0, 1], &[1, 1], &[[1, 2], [3, 4]], true);
    ///     }
    ///     ctx.sync();
    ///     let mut buf = GpBuf::new();
    ///     ctx.superstep(|s| g.get(s, &[0, 0], &[1, 1], &mut buf));
    ///     buf.into_elements()
    /// })
    /// .unwrap();
    /// assert_eq!(out[1], [[0, 0], [1, 2], [0, 0], [3, 4]]);
    /// ```
    ///
    /// # Panics
    /// At the call, as [`get`](Self::get), and if `elements.len()` is not the number of
    /// elements in the patch. At the sync, on an element's owner, if the element is
    /// unassigned and the data is not empty, if `checksize` and the sizes differ, or if the
    /// data is longer than the element.
    #[track_caller]
    pub fn put<E: AsRef<[T]>>(&self, ctx: &Ctx, lo: &[usize], hi: &[usize], elements: &[E], checksize: bool) -> usize {
        self.check_patch(ctx, "put", lo, hi);
        let n = patch::subscripts(lo, hi).len();
        if elements.len() != n {
            ctx.fail_misuse(format!(
                "{}: {} of patch {}: {} elements were given but the patch has {n}",
                self.name(),
                crate::calls::gp_call("put"),
                crate::calls::patch_text(lo, hi),
                elements.len()
            ));
        }
        self.send_writes(ctx, Op::Put, patch::subscripts(lo, hi).zip(elements), checksize)
    }

    /// Writes `elements[k]` into element `subs[k]` at the end of this superstep
    /// (`GP_Scatter`), with the rules of [`put`](Self::put). Returns the total size sent, in
    /// elements of `T`. A subscript listed twice is written twice, in list order, so the last
    /// one wins (and across processes, the highest pid).
    ///
    /// ```
    /// use bsp_runtime::gp::{GpArray, GpBuf};
    /// let out = bsp_runtime::run(3, |ctx| {
    ///     let mut g = GpArray::<u32>::builder(&[3]).build(ctx);
    ///     let me = ctx.pid();
    ///     g.assign_local(ctx, &[me], [0]);
    ///     ctx.sync();
    ///     // every process writes its pid into element (me + 1) % 3
    ///     g.scatter(ctx, &[[(me + 1) % 3]], &[[me as u32]], true);
    ///     ctx.sync();
    ///     g.access(ctx, &[me]).unwrap()[0]
    /// })
    /// .unwrap();
    /// assert_eq!(out, [2, 0, 1]);
    /// ```
    ///
    /// # Panics
    /// As [`put`](Self::put), and if `elements.len() != subs.len()`.
    #[track_caller]
    pub fn scatter<S: AsRef<[usize]>, E: AsRef<[T]>>(
        &self,
        ctx: &Ctx,
        subs: &[S],
        elements: &[E],
        checksize: bool,
    ) -> usize {
        if elements.len() != subs.len() {
            ctx.fail_misuse(format!(
                "{}: scatter: {} elements were given for {} subscripts",
                self.name(),
                elements.len(),
                subs.len()
            ));
        }
        self.send_writes(ctx, Op::Scatter, subs.iter().map(AsRef::as_ref).zip(elements), checksize)
    }

    /// Sorts the writes by owner into records (issue order kept) and queues them.
    #[track_caller]
    fn send_writes<S: AsRef<[usize]>, E: AsRef<[T]>>(
        &self,
        ctx: &Ctx,
        op: Op,
        writes: impl Iterator<Item = (S, E)>,
        checksize: bool,
    ) -> usize {
        self.check_usable(ctx, op.name());
        let mut batches: Vec<Batch> = (0..ctx.nprocs()).map(|_| Batch::default()).collect();
        let mut total = 0;
        for (sub, data) in writes {
            let (owner, index) = self.locate(ctx, op.name(), sub.as_ref());
            let data = data.as_ref();
            batches[owner].push(index, data.len(), bytemuck::cast_slice(data));
            total += data.len();
        }
        for (owner, batch) in batches.iter().enumerate() {
            if !batch.is_empty() {
                ctx.queue_ext(op.name(), owner, &self.reg, &batch.encode(op, checksize));
            }
        }
        total
    }
}
