//! Global Arrays' GP C API (`bsp_gp.h`) on the runtime's GP arrays (`ext/gp/`), elements of
//! bytes.
//!
//! What C needs beyond the Rust API:
//! - **Handles**: `GP_Create_handle` numbers a builder, `GP_Allocate` builds the array (a sync,
//!   as `GpBuilder::build`), `GP_Destroy` destroys it (a sync).
//! - **Element memory from `GP_Malloc`** is a vector of the runtime's allocator whose parts this
//!   table remembers: `GP_Assign_local_element` hands that vector itself to the array (the
//!   element *is* the memory, as in GA), `GP_Free_local_element` takes it back, and `GP_Free`
//!   frees it. Memory not from `GP_Malloc` is refused.
//! - **One-sided reads complete at the next sync** (D17): `GP_Get`, `GP_Gather` and their size
//!   forms queue a read whose destination is kept here, and [`GpTable::complete`], run after
//!   every sync of the process, writes the results into the caller's buffers in GA's layout
//!   (`buf`, `buf_ptr` with the strides `ld`, `buf_size` with `ld_sz`, `size`). Until then the
//!   caller's buffers hold their old contents, as a BSPlib get's destination does.

use std::collections::HashMap;

use super::misuse;
use crate::Ctx;
use crate::gp::{GpArray, GpBuf, GpBuilder};
use crate::superstep::Superstep;

/// One process's GP arrays, GP memory and reads in flight.
#[derive(Debug, Default)]
pub struct GpTable {
    handles: Vec<Option<Handle>>,
    /// `GP_Malloc` memory not held by an array: address → (length, capacity).
    malloc: HashMap<usize, (usize, usize)>,
    /// Reads queued in this superstep, written out after its sync.
    reads: Vec<Read>,
}

#[derive(Debug)]
enum Handle {
    Building { dims: Option<Vec<usize>>, chunk: Option<Vec<i64>>, irregular: Option<(Vec<usize>, Vec<usize>)> },
    Live(GpArray<u8>),
}

/// Where the caller of `GP_Get`/`GP_Gather` with `setbuf == 0` wants the elements: packed into
/// `buf`, element `k`'s address in `ptrs[ptr_at[k]]` and its size in `sizes[size_at[k]]`, the
/// total in `*size` (unless NULL).
#[derive(Debug)]
pub struct Packed {
    pub buf: *mut u8,
    pub ptrs: *mut *mut u8,
    pub sizes: *mut i32,
    pub ptr_at: Vec<usize>,
    pub size_at: Vec<usize>,
    pub size: *mut i32,
}

/// The elements a one-sided call names: the patch `lo..=hi` (`GP_Get`, `GP_Put`,
/// `GP_Get_size`) or a list of subscripts (`GP_Gather`, `GP_Scatter`, `GP_Gather_size`).
#[derive(Debug, Clone, Copy)]
pub enum Elements<'a> {
    Patch(&'a [usize], &'a [usize]),
    List(&'a [Vec<usize>]),
}

impl Elements<'_> {
    /// The call's name: the first of `ops` for a patch, the second for a list.
    fn name(self, [patch, list]: [&'static str; 2]) -> &'static str {
        match self {
            Elements::Patch(..) => patch,
            Elements::List(_) => list,
        }
    }
}

/// The names of a read of elements, of a patch and of a list.
const GET: [&str; 2] = ["GP_Get", "GP_Gather"];

/// Where a queued read's results go once its sync is done.
#[derive(Debug)]
enum Read {
    /// `GP_Get_size`, `GP_Gather_size`.
    Size { total: Box<usize>, size: *mut i32 },
    /// `GP_Get`/`GP_Gather` with `setbuf == 0`.
    Packed { got: Box<GpBuf<u8>>, out: Packed },
    /// `GP_Get`/`GP_Gather` with `setbuf != 0`: each element copied to the address the caller
    /// gave, which holds the number of bytes the caller gave.
    Placed { got: Vec<Vec<u8>>, dst: Vec<(*mut u8, usize)>, op: &'static str, size: *mut i32 },
}

/// GA's handle numbers: slot − 1000.
const FIRST_HANDLE: i32 = -1000;

impl GpTable {
    /// `GP_Create_handle`.
    pub fn create_handle(&mut self) -> i32 {
        self.handles.push(Some(Handle::Building { dims: None, chunk: None, irregular: None }));
        FIRST_HANDLE + (self.handles.len() as i32 - 1)
    }

    #[track_caller]
    fn handle(&mut self, ctx: &Ctx, op: &str, g: i32) -> &mut Handle {
        let slot = usize::try_from(i64::from(g) - i64::from(FIRST_HANDLE)).ok();
        match slot.and_then(|s| self.handles.get_mut(s)).and_then(Option::as_mut) {
            Some(h) => h,
            None => misuse(
                ctx,
                format!("{op}: {g} is not a GP handle of this process (made by GP_Create_handle, not destroyed)"),
            ),
        }
    }

    #[allow(clippy::type_complexity, reason = "the three settings of a handle being built")]
    #[track_caller]
    fn building(
        &mut self,
        ctx: &Ctx,
        op: &str,
        g: i32,
    ) -> (&mut Option<Vec<usize>>, &mut Option<Vec<i64>>, &mut Option<(Vec<usize>, Vec<usize>)>) {
        match self.handle(ctx, op, g) {
            Handle::Building { dims, chunk, irregular } => (dims, chunk, irregular),
            Handle::Live(_) => misuse(ctx, format!("{op}: GP handle {g} is already allocated")),
        }
    }

    #[track_caller]
    fn live(&mut self, ctx: &Ctx, op: &str, g: i32) -> &mut GpArray<u8> {
        match self.handle(ctx, op, g) {
            Handle::Live(a) => a,
            Handle::Building { .. } => misuse(ctx, format!("{op}: GP handle {g} is not allocated yet (GP_Allocate)")),
        }
    }

    /// `GP_Set_dimensions`.
    #[track_caller]
    pub fn set_dimensions(&mut self, ctx: &Ctx, g: i32, dims: &[i32]) {
        let op = "GP_Set_dimensions";
        let d = dims
            .iter()
            .map(|&x| usize::try_from(x).unwrap_or_else(|_| misuse(ctx, format!("{op}: dimension {x} is negative"))))
            .collect();
        *self.building(ctx, op, g).0 = Some(d);
    }

    /// `GP_Set_chunk` (as many values as dimensions).
    #[track_caller]
    pub fn set_chunk(&mut self, ctx: &Ctx, g: i32, chunk: &[i32]) {
        *self.building(ctx, "GP_Set_chunk", g).1 = Some(chunk.iter().map(|&c| i64::from(c)).collect());
    }

    /// `GP_Set_irreg_distr`.
    #[track_caller]
    pub fn set_irreg_distr(&mut self, ctx: &Ctx, g: i32, mapc: &[i32], nblock: &[i32]) {
        let op = "GP_Set_irreg_distr";
        let conv = |v: &[i32], what: &str| -> Vec<usize> {
            v.iter()
                .map(|&x| usize::try_from(x).unwrap_or_else(|_| misuse(ctx, format!("{op}: {what} {x} is negative"))))
                .collect()
        };
        let (mapc, nblock) = (conv(mapc, "block start"), conv(nblock, "block count"));
        *self.building(ctx, op, g).2 = Some((mapc, nblock));
    }

    /// The number of dimensions set for `g` (for the C layer to read its arrays' lengths).
    #[track_caller]
    pub fn ndim(&mut self, ctx: &Ctx, op: &str, g: i32) -> usize {
        match self.handle(ctx, op, g) {
            Handle::Building { dims: Some(d), .. } => d.len(),
            Handle::Building { dims: None, .. } => {
                misuse(ctx, format!("{op}: GP handle {g} has no dimensions yet (GP_Set_dimensions)"))
            }
            Handle::Live(a) => a.dims().len(),
        }
    }

    /// `GP_Allocate`: builds the array (collective, a sync).
    #[track_caller]
    pub fn allocate(&mut self, ctx: &mut Ctx, g: i32) {
        let op = "GP_Allocate";
        let (dims, chunk, irregular) = self.building(ctx, op, g);
        let Some(dims) = dims.clone() else {
            misuse(ctx, format!("{op}: GP handle {g} has no dimensions (GP_Set_dimensions)"))
        };
        let mut b: GpBuilder<u8> = GpArray::builder(&dims).name(format!("GP array {g}"));
        if let Some(c) = chunk.clone() {
            b = b.chunk(&c);
        }
        if let Some((mapc, nblock)) = irregular.clone() {
            b = b.irregular(&mapc, &nblock);
        }
        let array = b.build(ctx);
        self.complete(ctx);
        *self.handle(ctx, op, g) = Handle::Live(array);
    }

    /// `GP_Destroy`: collective, a sync; the elements' memory goes with the array.
    #[track_caller]
    pub fn destroy(&mut self, ctx: &mut Ctx, g: i32) {
        self.live(ctx, "GP_Destroy", g);
        let slot = (i64::from(g) - i64::from(FIRST_HANDLE)) as usize;
        let Some(Handle::Live(array)) = self.handles[slot].take() else { unreachable!("checked above") };
        drop(array.destroy(ctx));
        self.complete(ctx);
    }

    /// `GP_Memzero`: collective, a sync.
    #[track_caller]
    pub fn memzero(&mut self, ctx: &mut Ctx, g: i32) {
        self.live(ctx, "GP_Memzero", g).memzero(ctx);
        self.complete(ctx);
    }

    /// `GP_Terminate`: destroys every array still allocated (each a sync).
    pub fn terminate(&mut self, ctx: &mut Ctx) {
        for slot in 0..self.handles.len() {
            if matches!(self.handles[slot], Some(Handle::Live(_))) {
                self.destroy(ctx, FIRST_HANDLE + slot as i32);
            }
        }
        self.handles.clear();
    }

    /// `GP_Distribution`: the block of `proc`, or `lo = -1, hi = -2` on every axis if it owns
    /// nothing.
    #[track_caller]
    pub fn distribution(&mut self, ctx: &Ctx, g: i32, proc: i32, lo: &mut [i32], hi: &mut [i32]) {
        let op = "GP_Distribution";
        let p = ctx.nprocs();
        let Some(proc) = usize::try_from(proc).ok().filter(|&q| q < p) else {
            misuse(ctx, format!("{op}: process {proc} is out of range (nprocs = {p})"))
        };
        match self.live(ctx, op, g).distribution(proc) {
            Some((l, h)) => {
                for d in 0..lo.len() {
                    (lo[d], hi[d]) = (l[d] as i32, h[d] as i32);
                }
            }
            None => {
                lo.fill(-1);
                hi.fill(-2);
            }
        }
    }

    /// `GP_Malloc`.
    pub fn malloc(&mut self, size: usize) -> *mut u8 {
        let mut v = std::mem::ManuallyDrop::new(vec![0u8; size.max(1)]);
        let (ptr, len, cap) = (v.as_mut_ptr(), size, v.capacity());
        self.malloc.insert(ptr as usize, (len, cap));
        ptr
    }

    /// Takes back `GP_Malloc` memory at `ptr` as a vector of `size` bytes.
    #[track_caller]
    fn take_malloc(&mut self, ctx: &Ctx, op: &str, ptr: *mut u8, size: Option<usize>) -> Vec<u8> {
        let Some(&(len, cap)) = self.malloc.get(&(ptr as usize)) else {
            misuse(
                ctx,
                format!(
                    "{op}: address {:#x} is not memory from GP_Malloc of this process (or it was freed, or it is an element's)",
                    ptr as usize
                ),
            )
        };
        if let Some(size) = size.filter(|&s| s != len) {
            misuse(
                ctx,
                format!("{op}: size {size} differs from the {len} bytes GP_Malloc gave at {:#x}", ptr as usize),
            );
        }
        self.malloc.remove(&(ptr as usize));
        // SAFETY: `ptr`, `len` and `cap` are the parts of a `Vec<u8>` that `malloc` (or
        // `free_local_element`) took apart and no one else owns: its entry was just removed.
        unsafe { Vec::from_raw_parts(ptr, len, cap) }
    }

    /// `GP_Free`.
    #[track_caller]
    pub fn free(&mut self, ctx: &Ctx, ptr: *mut u8) {
        if ptr.is_null() {
            return;
        }
        drop(self.take_malloc(ctx, "GP_Free", ptr, None));
    }

    /// `GP_Assign_local_element`: the element becomes the `GP_Malloc` memory at `ptr`.
    #[track_caller]
    pub fn assign_local_element(&mut self, ctx: &Ctx, g: i32, sub: &[usize], ptr: *mut u8, size: i64) {
        let op = "GP_Assign_local_element";
        let size = super::non_negative(ctx, op, "size", size);
        self.local(ctx, op, g, sub);
        let data = self.take_malloc(ctx, op, ptr, Some(size));
        if let Some(old) = self.live(ctx, op, g).assign_local(ctx, sub, data) {
            self.give_back(old);
        }
    }

    /// Keeps element memory taken out of an array as `GP_Malloc` memory; returns its address.
    fn give_back(&mut self, v: Vec<u8>) -> *mut u8 {
        let mut v = std::mem::ManuallyDrop::new(v);
        let ptr = v.as_mut_ptr();
        self.malloc.insert(ptr as usize, (v.len(), v.capacity()));
        ptr
    }

    /// `GP_Free_local_element`: the element's memory, for `GP_Free` (NULL if unassigned).
    #[track_caller]
    pub fn free_local_element(&mut self, ctx: &Ctx, g: i32, sub: &[usize]) -> *mut u8 {
        match self.local(ctx, "GP_Free_local_element", g, sub).free_local(ctx, sub) {
            Some(v) => self.give_back(v),
            None => std::ptr::null_mut(),
        }
    }

    /// `GP_Access_element`: the address and size of a local element (NULL and 0 if
    /// unassigned); valid until the next sync or change of the element.
    #[track_caller]
    pub fn access_element(&mut self, ctx: &mut Ctx, g: i32, sub: &[usize]) -> (*mut u8, usize) {
        self.local(ctx, "GP_Access_element", g, sub);
        match self.live(ctx, "GP_Access_element", g).access_mut(ctx, sub) {
            Some(e) => (e.as_mut_ptr(), e.len()),
            None => (std::ptr::null_mut(), 0),
        }
    }

    /// `GP_Release_element`, `GP_Release_update_element`: checks that `sub` is local.
    #[track_caller]
    pub fn release_element(&mut self, ctx: &mut Ctx, op: &str, g: i32, sub: &[usize]) {
        self.local(ctx, op, g, sub);
    }

    /// The live array `g`, with `sub` checked to be one of this process's elements.
    #[track_caller]
    fn local(&mut self, ctx: &Ctx, op: &str, g: i32, sub: &[usize]) -> &mut GpArray<u8> {
        let a = self.live(ctx, op, g);
        let me = ctx.pid();
        let dims = a.dims().to_vec();
        if sub.len() != dims.len() || sub.iter().zip(&dims).any(|(i, n)| i >= n) {
            misuse(ctx, format!("{op}: subscript {sub:?} is out of range for GP array {g} of dimensions {dims:?}"));
        }
        match a.distribution(me) {
            Some((lo, hi)) if (0..sub.len()).all(|d| lo[d] <= sub[d] && sub[d] <= hi[d]) => a,
            Some((lo, hi)) => misuse(
                ctx,
                format!(
                    "{op}: element {sub:?} of GP array {g} is not held by process {me}, which holds {lo:?} to {hi:?}"
                ),
            ),
            None => misuse(
                ctx,
                format!("{op}: element {sub:?} of GP array {g} is not held by process {me}, which holds none"),
            ),
        }
    }

    /// A superstep view of `ctx` whose destinations are kept by this table until the sync.
    ///
    /// # Safety
    /// Whatever is lent to a read made through it must stay allocated and untouched until
    /// [`complete`](GpTable::complete) runs after the next sync.
    unsafe fn step<'s>(ctx: &Ctx) -> Superstep<'s, 's> {
        // SAFETY: the caller's contract stands in for the borrows `Ctx::superstep` enforces; the
        // view is used only within the call that makes it.
        unsafe { Superstep::detached(ctx) }
    }

    /// Starts a read of array `g` into `*dst` through `get` (a patch) or `gather` (a list), on
    /// a view of this superstep; `ops` names the call for each, in messages.
    ///
    /// # Safety
    /// `*dst` must stay allocated and untouched until [`complete`](GpTable::complete) (the
    /// caller keeps what owns it in `reads`).
    #[track_caller]
    unsafe fn start<D: ?Sized>(
        &mut self,
        ctx: &Ctx,
        (g, which, ops): (i32, Elements<'_>, [&'static str; 2]),
        dst: *mut D,
        get: impl for<'s> FnOnce(&GpArray<u8>, &Superstep<'s, 's>, &[usize], &[usize], &'s mut D),
        gather: impl for<'s> FnOnce(&GpArray<u8>, &Superstep<'s, 's>, &[Vec<usize>], &'s mut D),
    ) {
        let array = self.live(ctx, which.name(ops), g);
        // SAFETY: the caller's contract.
        let (s, dst) = unsafe { (Self::step(ctx), &mut *dst) };
        match which {
            Elements::Patch(lo, hi) => get(array, &s, lo, hi, dst),
            Elements::List(subs) => gather(array, &s, subs, dst),
        }
    }

    /// `GP_Get_size` and `GP_Gather_size`: the total size of the elements, written to `size`
    /// after the next sync.
    ///
    /// # Safety
    /// `size` must stay writable until then.
    #[track_caller]
    pub unsafe fn read_size(&mut self, ctx: &Ctx, g: i32, which: Elements<'_>, size: *mut i32) {
        let mut total = Box::new(0usize);
        let dst: *mut usize = &mut *total;
        let ops = ["GP_Get_size", "GP_Gather_size"];
        // SAFETY: the box is kept in `reads` until `complete`.
        unsafe {
            self.start(
                ctx,
                (g, which, ops),
                dst,
                |a, s, lo, hi, d| a.get_size(s, lo, hi, d),
                |a, s, subs, d| a.gather_size(s, subs, d),
            )
        };
        self.reads.push(Read::Size { total, size });
    }

    /// `GP_Get`/`GP_Gather` with `setbuf == 0`: the elements written as `out` says after the
    /// next sync.
    ///
    /// # Safety
    /// `out.buf` must hold the elements' total size, and `out.ptrs`/`out.sizes` the indices
    /// given; all stay writable until the next sync.
    #[track_caller]
    pub unsafe fn read_packed(&mut self, ctx: &Ctx, g: i32, which: Elements<'_>, out: Packed) {
        let mut got = Box::new(GpBuf::new());
        let dst: *mut GpBuf<u8> = &mut *got;
        // SAFETY: the box is kept in `reads` until `complete`.
        unsafe {
            self.start(
                ctx,
                (g, which, GET),
                dst,
                |a, s, lo, hi, d| a.get(s, lo, hi, d),
                |a, s, subs, d| a.gather(s, subs, d),
            )
        };
        self.reads.push(Read::Packed { got, out });
    }

    /// `GP_Get`/`GP_Gather` with `setbuf != 0`: element `k` copied to `dst[k].0`, which holds
    /// `dst[k].1` bytes, after the next sync.
    ///
    /// # Safety
    /// Each `dst[k].0` must point to `dst[k].1` writable bytes until the next sync.
    #[track_caller]
    pub unsafe fn read_placed(
        &mut self,
        ctx: &Ctx,
        g: i32,
        which: Elements<'_>,
        dst: Vec<(*mut u8, usize)>,
        size: *mut i32,
    ) {
        // The elements' vectors stay where they are on the heap when `got` moves into `reads`.
        let mut got = vec![Vec::new(); dst.len()];
        let into: *mut [Vec<u8>] = got.as_mut_slice();
        // SAFETY: the vectors' buffer is kept in `reads` until `complete`.
        unsafe {
            self.start(
                ctx,
                (g, which, GET),
                into,
                |a, s, lo, hi, d| a.get_into(s, lo, hi, d),
                |a, s, subs, d| a.gather_into(s, subs, d),
            )
        };
        self.reads.push(Read::Placed { got, dst, op: which.name(GET), size });
    }

    /// `GP_Put` and `GP_Scatter`: the elements' data copied now, landing at the next sync;
    /// returns the total size.
    #[track_caller]
    pub fn write(&mut self, ctx: &Ctx, g: i32, which: Elements<'_>, data: &[&[u8]], checksize: bool) -> usize {
        let array = self.live(ctx, which.name(["GP_Put", "GP_Scatter"]), g);
        match which {
            Elements::Patch(lo, hi) => array.put(ctx, lo, hi, data, checksize),
            Elements::List(subs) => array.scatter(ctx, subs, data, checksize),
        }
    }

    /// Writes the results of the reads of the superstep that just ended into the callers'
    /// buffers. Run after every sync of the process (inlined: most syncs have none).
    #[inline]
    pub fn complete(&mut self, ctx: &Ctx) {
        if !self.reads.is_empty() {
            self.write_reads(ctx);
        }
    }

    /// [`complete`](GpTable::complete) when there are reads to write.
    fn write_reads(&mut self, ctx: &Ctx) {
        for read in self.reads.drain(..) {
            match read {
                Read::Size { total, size } => {
                    // SAFETY: `size` stays writable until now (`read_size`'s contract).
                    unsafe { *size = i32::try_from(*total).unwrap_or(i32::MAX) };
                }
                Read::Packed { got, out: Packed { buf, ptrs, sizes, ptr_at, size_at, size } } => {
                    let data = got.data();
                    // SAFETY: `buf` holds the total size, `ptrs` and `sizes` the indices given
                    // (`read_packed`'s contract).
                    unsafe {
                        std::ptr::copy_nonoverlapping(data.as_ptr(), buf, data.len());
                        for (k, (&at, len)) in got.offsets().iter().zip(got.sizes()).enumerate() {
                            *ptrs.add(ptr_at[k]) = buf.add(at);
                            *sizes.add(size_at[k]) = i32::try_from(len).unwrap_or(i32::MAX);
                        }
                        if !size.is_null() {
                            *size = i32::try_from(data.len()).unwrap_or(i32::MAX);
                        }
                    }
                }
                Read::Placed { got, dst, op, size } => {
                    let mut total = 0usize;
                    for (k, (e, &(to, room))) in got.iter().zip(&dst).enumerate() {
                        if e.len() > room {
                            misuse(
                                ctx,
                                format!(
                                    "{op}: element {k} of the request has {} bytes but its buf_size gives room for {room}",
                                    e.len()
                                ),
                            );
                        }
                        // SAFETY: `to` points to `room` writable bytes (`read_placed`'s contract).
                        unsafe { std::ptr::copy_nonoverlapping(e.as_ptr(), to, e.len()) };
                        total += e.len();
                    }
                    if !size.is_null() {
                        // SAFETY: as above.
                        unsafe { *size = i32::try_from(total).unwrap_or(i32::MAX) };
                    }
                }
            }
        }
    }
}
