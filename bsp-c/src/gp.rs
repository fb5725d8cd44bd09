//! Global Arrays' GP C API (`include/bsp_gp.h`), over the runtime's GP arrays through
//! `bsp_runtime::foreign::GpTable`: elements are byte blobs, subscripts 0-based in C order,
//! patch bounds inclusive. One-sided operations complete at the next sync (`GP_Sync` or
//! `bsp_sync`): `GP_Get`, `GP_Gather` and the size calls write their results then.

use std::ffi::{c_int, c_void};

use bsp_runtime::Ctx;
use bsp_runtime::foreign::{Elements, GpTable, Packed};

use crate::{with_all, with_proc};

/// `n` C ints at `p` (none if `n` is 0).
///
/// # Safety
/// Unless `n` is 0, `p` must point to `n` readable ints.
unsafe fn ints<'a>(p: *const c_int, n: usize) -> &'a [c_int] {
    if n == 0 || p.is_null() {
        return &[];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(p, n) }
}

/// The subscript of `ndim` ints at `p`, checked non-negative.
///
/// # Safety
/// `p` must point to `ndim` readable ints.
#[track_caller]
unsafe fn subscript(ctx: &Ctx, op: &str, p: *const c_int, ndim: usize) -> Vec<usize> {
    if p.is_null() {
        ctx.abort(format!("{op}: the subscript is NULL"));
    }
    // SAFETY: the caller's contract.
    let s = unsafe { ints(p, ndim) };
    s.iter()
        .map(|&i| {
            usize::try_from(i).unwrap_or_else(|_| ctx.abort(format!("{op}: subscript {s:?} has a negative index")))
        })
        .collect()
}

/// The `nv` subscripts of `ndim` ints each at `p`.
///
/// # Safety
/// `p` must point to `nv * ndim` readable ints.
#[track_caller]
unsafe fn subscripts(ctx: &Ctx, op: &str, p: *const c_int, nv: c_int, ndim: usize) -> Vec<Vec<usize>> {
    let nv = usize::try_from(nv).unwrap_or_else(|_| ctx.abort(format!("{op}: the element count {nv} is negative")));
    // SAFETY: the caller's contract.
    (0..nv).map(|k| unsafe { subscript(ctx, op, p.wrapping_add(k * ndim), ndim) }).collect()
}

/// The extents of the patch `lo..=hi`, and the relative index of each of its elements in
/// row-major order.
fn patch_indices(lo: &[usize], hi: &[usize]) -> Vec<Vec<usize>> {
    let ext: Vec<usize> = lo.iter().zip(hi).map(|(l, h)| (h + 1).saturating_sub(*l)).collect();
    let n: usize = ext.iter().product();
    (0..n)
        .map(|mut k| {
            let mut idx = vec![0; ext.len()];
            for d in (0..ext.len()).rev() {
                idx[d] = k % ext[d];
                k /= ext[d];
            }
            idx
        })
        .collect()
}

/// Where the element at relative index `idx` lives in a caller's array laid out with the
/// strides `ld` (GA's C convention: `((i0·ld[0] + i1)·ld[1] + i2)…`).
fn position(idx: &[usize], ld: &[usize]) -> usize {
    idx.iter().enumerate().fold(0, |acc, (d, &i)| if d == 0 { i } else { acc * ld[d - 1] + i })
}

/// The strides `ld` (`ndim - 1` ints at `p`), checked to hold the patch's extents.
///
/// # Safety
/// `p` must point to `ndim - 1` readable ints.
#[track_caller]
unsafe fn strides(ctx: &Ctx, op: &str, what: &str, p: *const c_int, lo: &[usize], hi: &[usize]) -> Vec<usize> {
    let n = lo.len().saturating_sub(1);
    // SAFETY: the caller's contract.
    let ld = unsafe { ints(p, n) };
    (0..n)
        .map(|d| {
            let extent = hi[d + 1] + 1 - lo[d + 1].min(hi[d + 1] + 1);
            match usize::try_from(ld[d]) {
                Ok(l) if l >= extent => l,
                _ => ctx.abort(format!(
                    "{op}: {what}[{d}] = {} is less than the patch's extent {extent} on axis {}",
                    ld[d],
                    d + 1
                )),
            }
        })
        .collect()
}

/// `void GP_Initialize(void)`: nothing to set up (every process's table exists from
/// `bsp_begin`); checks that it is called inside the SPMD part.
#[unsafe(no_mangle)]
pub extern "C" fn GP_Initialize() {
    with_proc("GP_Initialize", |_, _| ())
}

/// `void GP_Terminate(void)`: destroys every array still allocated (collective).
#[unsafe(no_mangle)]
pub extern "C" fn GP_Terminate() {
    with_all("GP_Terminate", |ctx, _, gp| gp.terminate(ctx))
}

/// `int GP_Create_handle(void)`
#[unsafe(no_mangle)]
pub extern "C" fn GP_Create_handle() -> c_int {
    with_all("GP_Create_handle", |_, _, gp| gp.create_handle())
}

/// `void GP_Set_dimensions(int g_p, int ndim, int *dims)`
///
/// # Safety
/// `dims` must point to `ndim` ints.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GP_Set_dimensions(g_p: c_int, ndim: c_int, dims: *const c_int) {
    with_all("GP_Set_dimensions", |ctx, _, gp| {
        let n = usize::try_from(ndim)
            .unwrap_or_else(|_| ctx.abort(format!("GP_Set_dimensions: the number of dimensions {ndim} is negative")));
        // SAFETY: the caller's contract.
        gp.set_dimensions(ctx, g_p, unsafe { ints(dims, n) })
    })
}

/// `void GP_Set_chunk(int g_p, int *chunk)`
///
/// # Safety
/// `chunk` must point to as many ints as the array has dimensions.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GP_Set_chunk(g_p: c_int, chunk: *const c_int) {
    with_all("GP_Set_chunk", |ctx, _, gp| {
        let n = gp.ndim(ctx, "GP_Set_chunk", g_p);
        // SAFETY: the caller's contract.
        gp.set_chunk(ctx, g_p, unsafe { ints(chunk, n) })
    })
}

/// `void GP_Set_irreg_distr(int g_p, int *mapc, int *nblock)`
///
/// # Safety
/// `nblock` must point to as many ints as the array has dimensions, `mapc` to their sum.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GP_Set_irreg_distr(g_p: c_int, mapc: *const c_int, nblock: *const c_int) {
    with_all("GP_Set_irreg_distr", |ctx, _, gp| {
        let n = gp.ndim(ctx, "GP_Set_irreg_distr", g_p);
        // SAFETY: the caller's contract.
        let nb = unsafe { ints(nblock, n) };
        let total: usize = nb.iter().map(|&b| usize::try_from(b).unwrap_or(0)).sum();
        // SAFETY: the caller's contract.
        gp.set_irreg_distr(ctx, g_p, unsafe { ints(mapc, total) }, nb)
    })
}

/// `int GP_Allocate(int g_p)`: collective, a sync; returns 1.
#[unsafe(no_mangle)]
pub extern "C" fn GP_Allocate(g_p: c_int) -> c_int {
    with_all("GP_Allocate", |ctx, _, gp| gp.allocate(ctx, g_p));
    1
}

/// `int GP_Destroy(int g_p)`: collective, a sync; returns 1.
#[unsafe(no_mangle)]
pub extern "C" fn GP_Destroy(g_p: c_int) -> c_int {
    with_all("GP_Destroy", |ctx, _, gp| gp.destroy(ctx, g_p));
    1
}

/// `void GP_Memzero(int g_p)`: collective, a sync.
#[unsafe(no_mangle)]
pub extern "C" fn GP_Memzero(g_p: c_int) {
    with_all("GP_Memzero", |ctx, _, gp| gp.memzero(ctx, g_p))
}

/// `void GP_Sync(void)`: `bsp_sync`.
#[unsafe(no_mangle)]
pub extern "C" fn GP_Sync() {
    with_all("GP_Sync", |ctx, _, gp| {
        ctx.sync();
        gp.complete(ctx);
    })
}

/// `void GP_Distribution(int g_p, int proc, int *lo, int *hi)`
///
/// # Safety
/// `lo` and `hi` must point to as many ints as the array has dimensions.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GP_Distribution(g_p: c_int, proc: c_int, lo: *mut c_int, hi: *mut c_int) {
    with_all("GP_Distribution", |ctx, _, gp| {
        let n = gp.ndim(ctx, "GP_Distribution", g_p);
        if lo.is_null() || hi.is_null() {
            ctx.abort("GP_Distribution: `lo` or `hi` is NULL");
        }
        // SAFETY: the caller's contract (not NULL, checked above).
        let (lo, hi) = unsafe { (std::slice::from_raw_parts_mut(lo, n), std::slice::from_raw_parts_mut(hi, n)) };
        gp.distribution(ctx, g_p, proc, lo, hi)
    })
}

/// `void *GP_Malloc(size_t size)`: memory for an element, to give to
/// `GP_Assign_local_element`.
#[unsafe(no_mangle)]
pub extern "C" fn GP_Malloc(size: usize) -> *mut c_void {
    with_all("GP_Malloc", |_, _, gp| gp.malloc(size).cast())
}

/// `void GP_Free(void *ptr)`
#[unsafe(no_mangle)]
pub extern "C" fn GP_Free(ptr: *mut c_void) {
    with_all("GP_Free", |ctx, _, gp| gp.free(ctx, ptr.cast()))
}

/// `void GP_Assign_local_element(int g_p, int *subscript, void *ptr, int size)`
///
/// # Safety
/// `subscript` must point to as many ints as the array has dimensions.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GP_Assign_local_element(g_p: c_int, subscript: *const c_int, ptr: *mut c_void, size: c_int) {
    let op = "GP_Assign_local_element";
    with_all(op, |ctx, _, gp| {
        let n = gp.ndim(ctx, op, g_p);
        // SAFETY: the caller's contract.
        let sub = unsafe { self::subscript(ctx, op, subscript, n) };
        gp.assign_local_element(ctx, g_p, &sub, ptr.cast(), size.into())
    })
}

/// `void *GP_Free_local_element(int g_p, int *subscript)`
///
/// # Safety
/// As [`GP_Assign_local_element`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GP_Free_local_element(g_p: c_int, subscript: *const c_int) -> *mut c_void {
    let op = "GP_Free_local_element";
    with_all(op, |ctx, _, gp| {
        let n = gp.ndim(ctx, op, g_p);
        // SAFETY: the caller's contract.
        let sub = unsafe { self::subscript(ctx, op, subscript, n) };
        gp.free_local_element(ctx, g_p, &sub).cast()
    })
}

/// `void GP_Access_element(int g_p, int *subscript, void *ptr, int *size)`: `*(void **)ptr`
/// and `*size` receive the element's address and size.
///
/// # Safety
/// As [`GP_Assign_local_element`]; `ptr` must point to a `void *`, `size` to an int.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GP_Access_element(g_p: c_int, subscript: *const c_int, ptr: *mut c_void, size: *mut c_int) {
    let op = "GP_Access_element";
    with_all(op, |ctx, _, gp| {
        let n = gp.ndim(ctx, op, g_p);
        // SAFETY: the caller's contract.
        let sub = unsafe { self::subscript(ctx, op, subscript, n) };
        if ptr.is_null() || size.is_null() {
            ctx.abort(format!("{op}: `ptr` or `size` is NULL"));
        }
        let (at, len) = gp.access_element(ctx, g_p, &sub);
        // SAFETY: the caller's contract (not NULL, checked above).
        unsafe {
            *ptr.cast::<*mut c_void>() = at.cast();
            *size = c_int::try_from(len).unwrap_or(c_int::MAX);
        }
    })
}

/// `void GP_Release_element(int g_p, int *subscript)`: checks that the element is local.
///
/// # Safety
/// As [`GP_Assign_local_element`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GP_Release_element(g_p: c_int, subscript: *const c_int) {
    // SAFETY: the caller's contract.
    unsafe { release("GP_Release_element", g_p, subscript) }
}

/// `void GP_Release_update_element(int g_p, int *subscript)`: checks that the element is local.
///
/// # Safety
/// As [`GP_Assign_local_element`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GP_Release_update_element(g_p: c_int, subscript: *const c_int) {
    // SAFETY: the caller's contract.
    unsafe { release("GP_Release_update_element", g_p, subscript) }
}

/// # Safety
/// As [`GP_Assign_local_element`].
unsafe fn release(op: &str, g_p: c_int, subscript: *const c_int) {
    with_all(op, |ctx, _, gp| {
        let n = gp.ndim(ctx, op, g_p);
        // SAFETY: the caller's contract.
        let sub = unsafe { self::subscript(ctx, op, subscript, n) };
        gp.release_element(ctx, op, g_p, &sub)
    })
}

/// `void GP_Get_size(int g_p, int *lo, int *hi, int *size)`: `*size` is written at the next
/// sync.
///
/// # Safety
/// `lo` and `hi` must point to as many ints as the array has dimensions; `size` to an int
/// that stays writable until the next sync.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GP_Get_size(g_p: c_int, lo: *const c_int, hi: *const c_int, size: *mut c_int) {
    let op = "GP_Get_size";
    with_all(op, |ctx, _, gp| {
        let n = gp.ndim(ctx, op, g_p);
        // SAFETY: the caller's contract.
        let (lo, hi) = unsafe { (subscript(ctx, op, lo, n), subscript(ctx, op, hi, n)) };
        if size.is_null() {
            ctx.abort(format!("{op}: `size` is NULL"));
        }
        // SAFETY: the caller's contract.
        unsafe { gp.read_size(ctx, g_p, Elements::Patch(&lo, &hi), size) }
    })
}

/// `void GP_Gather_size(int g_p, int nv, int *subscript, int *size)`: `*size` is written at
/// the next sync.
///
/// # Safety
/// `subscript` must point to `nv` times as many ints as the array has dimensions; `size` to an
/// int that stays writable until the next sync.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GP_Gather_size(g_p: c_int, nv: c_int, subscript: *const c_int, size: *mut c_int) {
    let op = "GP_Gather_size";
    with_all(op, |ctx, _, gp| {
        let n = gp.ndim(ctx, op, g_p);
        // SAFETY: the caller's contract.
        let subs = unsafe { subscripts(ctx, op, subscript, nv, n) };
        if size.is_null() {
            ctx.abort(format!("{op}: `size` is NULL"));
        }
        // SAFETY: the caller's contract.
        unsafe { gp.read_size(ctx, g_p, Elements::List(&subs), size) }
    })
}

/// Which elements a read or a write names, and where each one's entry is in the caller's
/// `buf_ptr` and `buf_size` arrays.
struct Layout {
    /// `lo` and `hi` of a patch (`GP_Get`, `GP_Put`); `None` for a list.
    patch: Option<(Vec<usize>, Vec<usize>)>,
    /// The listed subscripts (`GP_Gather`, `GP_Scatter`); empty for a patch.
    subs: Vec<Vec<usize>>,
    /// Element `k`'s entry in `buf_ptr`, and in `buf_size`.
    ptr_at: Vec<usize>,
    size_at: Vec<usize>,
}

impl Layout {
    /// The patch `lo..=hi`, its elements in row-major order at the strides `ld` (`buf_ptr`) and
    /// `ld_sz` (`buf_size`); neither array may be NULL.
    ///
    /// # Safety
    /// `lo` and `hi` must point to as many ints as the array has dimensions, `ld` and `ld_sz`
    /// to one fewer.
    #[allow(clippy::too_many_arguments, reason = "GA's arguments")]
    #[track_caller]
    unsafe fn patch(
        ctx: &Ctx,
        op: &str,
        gp: &mut GpTable,
        g_p: c_int,
        (lo, hi): (*const c_int, *const c_int),
        (ld, ld_sz): (*const c_int, *const c_int),
        buf_ptr: *mut *mut c_void,
        buf_size: *mut c_void,
    ) -> Layout {
        let n = gp.ndim(ctx, op, g_p);
        // SAFETY: the caller's contract.
        let (lo, hi) = unsafe { (subscript(ctx, op, lo, n), subscript(ctx, op, hi, n)) };
        // SAFETY: the caller's contract.
        let (ld, ld_sz) = unsafe { (strides(ctx, op, "ld", ld, &lo, &hi), strides(ctx, op, "ld_sz", ld_sz, &lo, &hi)) };
        check_arrays(ctx, op, buf_ptr, buf_size.cast());
        let idx = patch_indices(&lo, &hi);
        let ptr_at = idx.iter().map(|i| position(i, &ld)).collect();
        let size_at = idx.iter().map(|i| position(i, &ld_sz)).collect();
        Layout { patch: Some((lo, hi)), subs: Vec::new(), ptr_at, size_at }
    }

    /// The `nv` subscripts at `subscript`, element `k`'s entries at `k` in both arrays; neither
    /// array may be NULL.
    ///
    /// # Safety
    /// `subscript` must point to `nv` times as many ints as the array has dimensions.
    #[track_caller]
    unsafe fn list(
        ctx: &Ctx,
        op: &str,
        gp: &mut GpTable,
        g_p: c_int,
        (nv, subscript): (c_int, *const c_int),
        buf_ptr: *mut *mut c_void,
        buf_size: *mut c_int,
    ) -> Layout {
        let n = gp.ndim(ctx, op, g_p);
        // SAFETY: the caller's contract.
        let subs = unsafe { subscripts(ctx, op, subscript, nv, n) };
        check_arrays(ctx, op, buf_ptr, buf_size);
        let at: Vec<usize> = (0..subs.len()).collect();
        Layout { patch: None, subs, ptr_at: at.clone(), size_at: at }
    }

    fn elements(&self) -> Elements<'_> {
        match &self.patch {
            Some((lo, hi)) => Elements::Patch(lo, hi),
            None => Elements::List(&self.subs),
        }
    }

    /// `GP_Get`/`GP_Gather`: the elements read at the next sync, packed into `buf`
    /// (`setbuf == 0`) or each copied to its `buf_ptr` entry.
    ///
    /// # Safety
    /// As [`GP_Get`]: every entry of the layout is in `buf_ptr` and `buf_size`, and all outputs
    /// stay writable until the next sync.
    #[allow(clippy::too_many_arguments, reason = "GA's arguments")]
    #[track_caller]
    unsafe fn read(
        &self,
        ctx: &Ctx,
        op: &str,
        gp: &mut GpTable,
        g_p: c_int,
        buf: *mut c_void,
        (buf_ptr, buf_size): (*mut *mut c_void, *mut c_int),
        size: *mut c_int,
        setbuf: c_int,
    ) {
        let ptrs: *mut *mut u8 = buf_ptr.cast();
        if setbuf == 0 {
            if buf.is_null() {
                ctx.abort(format!("{op}: `buf` is NULL and setbuf is 0"));
            }
            let (ptr_at, size_at) = (self.ptr_at.clone(), self.size_at.clone());
            let out = Packed { buf: buf.cast(), ptrs, sizes: buf_size, ptr_at, size_at, size };
            // SAFETY: the caller's contract.
            unsafe { gp.read_packed(ctx, g_p, self.elements(), out) }
        } else {
            let dst = self
                .ptr_at
                .iter()
                .zip(&self.size_at)
                // SAFETY: the caller's contract: the destinations and their sizes are readable now.
                .map(|(&p, &n)| unsafe { (*ptrs.add(p), room(ctx, op, *buf_size.add(n))) })
                .collect();
            // SAFETY: the caller's contract.
            unsafe { gp.read_placed(ctx, g_p, self.elements(), dst, size) }
        }
    }

    /// `GP_Put`/`GP_Scatter`: the elements' data copied now, landing at the next sync; `*size`
    /// (unless NULL) is the total.
    ///
    /// # Safety
    /// Every entry of the layout is in `buf_ptr` and `buf_size`, each `buf_ptr` entry pointing
    /// to as many bytes as its `buf_size` entry.
    #[allow(clippy::too_many_arguments, reason = "GA's arguments")]
    #[track_caller]
    unsafe fn write(
        &self,
        ctx: &Ctx,
        op: &str,
        gp: &mut GpTable,
        g_p: c_int,
        (buf_ptr, buf_size): (*mut *mut c_void, *mut c_int),
        size: *mut c_int,
        checksize: c_int,
    ) {
        let ptrs: *mut *mut u8 = buf_ptr.cast();
        let data: Vec<&[u8]> = self
            .ptr_at
            .iter()
            .zip(&self.size_at)
            // SAFETY: the caller's contract.
            .map(|(&p, &n)| unsafe { element(ctx, op, *ptrs.add(p), *buf_size.add(n)) })
            .collect();
        let total = gp.write(ctx, g_p, self.elements(), &data, checksize != 0);
        if !size.is_null() {
            // SAFETY: the caller's contract.
            unsafe { *size = c_int::try_from(total).unwrap_or(c_int::MAX) };
        }
    }
}

/// `buf_ptr` and `buf_size`, which no read or write may pass as NULL.
#[track_caller]
fn check_arrays(ctx: &Ctx, op: &str, buf_ptr: *mut *mut c_void, buf_size: *mut c_int) {
    if buf_ptr.is_null() || buf_size.is_null() {
        ctx.abort(format!("{op}: `buf_ptr` or `buf_size` is NULL"));
    }
}

/// `void GP_Get(int g_p, int *lo, int *hi, void *buf, void **buf_ptr, int *ld, void *buf_size,
/// int *ld_sz, int *size, int setbuf)`: the patch, read at the next sync and written then.
///
/// # Safety
/// GA's contract, with every output writable until the next sync: `buf` holds the patch's
/// total size (`setbuf == 0`), `buf_ptr` and `buf_size` (ints) are laid out with the strides
/// `ld` and `ld_sz` (as many as the array has dimensions, minus one); with `setbuf != 0` each
/// `buf_ptr` entry points to as many bytes as its `buf_size` entry.
#[allow(clippy::too_many_arguments, reason = "GA's signature")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GP_Get(
    g_p: c_int,
    lo: *const c_int,
    hi: *const c_int,
    buf: *mut c_void,
    buf_ptr: *mut *mut c_void,
    ld: *const c_int,
    buf_size: *mut c_void,
    ld_sz: *const c_int,
    size: *mut c_int,
    setbuf: c_int,
) {
    let op = "GP_Get";
    with_all(op, |ctx, _, gp| {
        // SAFETY: the caller's contract.
        unsafe {
            let at = Layout::patch(ctx, op, gp, g_p, (lo, hi), (ld, ld_sz), buf_ptr, buf_size);
            at.read(ctx, op, gp, g_p, buf, (buf_ptr, buf_size.cast()), size, setbuf);
        }
    })
}

/// A `buf_size` entry as a number of bytes.
#[track_caller]
fn room(ctx: &Ctx, op: &str, n: c_int) -> usize {
    usize::try_from(n).unwrap_or_else(|_| ctx.abort(format!("{op}: a buf_size entry is negative ({n})")))
}

/// `void GP_Gather(int g_p, int nv, int *subscript, void *buf, void **buf_ptr, int *buf_size,
/// int *size, int setbuf)`: the listed elements, read at the next sync and written then.
///
/// # Safety
/// As [`GP_Get`], with `buf_ptr` and `buf_size` holding `nv` entries each.
#[allow(clippy::too_many_arguments, reason = "GA's signature")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GP_Gather(
    g_p: c_int,
    nv: c_int,
    subscript: *const c_int,
    buf: *mut c_void,
    buf_ptr: *mut *mut c_void,
    buf_size: *mut c_int,
    size: *mut c_int,
    setbuf: c_int,
) {
    let op = "GP_Gather";
    with_all(op, |ctx, _, gp| {
        // SAFETY: the caller's contract.
        unsafe {
            let at = Layout::list(ctx, op, gp, g_p, (nv, subscript), buf_ptr, buf_size);
            at.read(ctx, op, gp, g_p, buf, (buf_ptr, buf_size), size, setbuf);
        }
    })
}

/// `void GP_Put(int g_p, int *lo, int *hi, void **buf_ptr, int *ld, void *buf_size, int
/// *ld_sz, int *size, int checksize)`: the elements' data copied now, landing at the next
/// sync in the existing elements; `*size` is the total.
///
/// # Safety
/// `buf_ptr` and `buf_size` (ints) laid out with the strides `ld` and `ld_sz`, each `buf_ptr`
/// entry pointing to as many bytes as its `buf_size` entry.
#[allow(clippy::too_many_arguments, reason = "GA's signature")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GP_Put(
    g_p: c_int,
    lo: *const c_int,
    hi: *const c_int,
    buf_ptr: *mut *mut c_void,
    ld: *const c_int,
    buf_size: *mut c_void,
    ld_sz: *const c_int,
    size: *mut c_int,
    checksize: c_int,
) {
    let op = "GP_Put";
    with_all(op, |ctx, _, gp| {
        // SAFETY: the caller's contract.
        unsafe {
            let at = Layout::patch(ctx, op, gp, g_p, (lo, hi), (ld, ld_sz), buf_ptr, buf_size);
            at.write(ctx, op, gp, g_p, (buf_ptr, buf_size.cast()), size, checksize);
        }
    })
}

/// The `len` bytes at `p` (none if `len` is 0).
///
/// # Safety
/// Unless `len` is 0, `p` must point to `len` readable bytes.
#[track_caller]
unsafe fn element<'a>(ctx: &Ctx, op: &str, p: *mut u8, len: c_int) -> &'a [u8] {
    let len = room(ctx, op, len);
    if len == 0 {
        return &[];
    }
    if p.is_null() {
        ctx.abort(format!("{op}: a buf_ptr entry is NULL but its size is {len}"));
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(p, len) }
}

/// `void GP_Scatter(int g_p, int nv, int *subscript, void **buf_ptr, int *buf_size, int
/// *size, int checksize)`: the elements' data copied now, landing at the next sync.
///
/// # Safety
/// `buf_ptr` and `buf_size` hold `nv` entries, each `buf_ptr` entry pointing to as many bytes
/// as its `buf_size` entry.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GP_Scatter(
    g_p: c_int,
    nv: c_int,
    subscript: *const c_int,
    buf_ptr: *mut *mut c_void,
    buf_size: *mut c_int,
    size: *mut c_int,
    checksize: c_int,
) {
    let op = "GP_Scatter";
    with_all(op, |ctx, _, gp| {
        // SAFETY: the caller's contract.
        unsafe {
            let at = Layout::list(ctx, op, gp, g_p, (nv, subscript), buf_ptr, buf_size);
            at.write(ctx, op, gp, g_p, (buf_ptr, buf_size), size, checksize);
        }
    })
}
