//! `GpArray<T>`: creation, local element operations, memzero, sync and destruction. The
//! one-sided operations are in `onesided.rs`.

use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::sync::Arc;

use super::distribution::Distribution;
use super::shared::GpShared;
use crate::ext::ExtReg;
use crate::{Ctx, Value};

/// A global pointer array (GA's GP array): an array of up to 7 dimensions, distributed over
/// the processes in blocks exactly as Global Arrays distributes it, whose elements are
/// variable-length slices `[T]`.
///
/// Each element is *unassigned* until its owner assigns it ([`assign_local`](Self::assign_local));
/// any process can then read it and write into it with one-sided operations that complete at
/// the end of the superstep ([`get`](Self::get), [`put`](Self::put), [`gather`](Self::gather),
/// [`scatter`](Self::scatter), ...). Subscripts are 0-based, in C order, and patch bounds
/// `lo..=hi` are inclusive, as in GA's C API. Sizes count elements of `T`, not bytes. See the
/// [module documentation](super) for the model and the GA correspondence.
///
/// ```
/// use bsp_runtime::gp::{GpArray, GpBuf};
/// let out = bsp_runtime::run(3, |ctx| {
///     // GP_Create_handle + GP_Set_dimensions + GP_Allocate (collective)
///     // (a sync: the array is usable for one-sided operations as soon as it exists)
///     let mut g = GpArray::<u32>::builder(&[6]).name("lists").build(ctx);
///     // Every process fills the elements it owns: element i holds 0..i.
///     let (lo, hi) = g.distribution(ctx.pid()).unwrap();
///     for i in lo[0]..=hi[0] {
///         g.assign_local(ctx, &[i], (0..i as u32).collect::<Vec<_>>());
///     }
///     let mut buf = GpBuf::new();
///     ctx.superstep(|s| g.gather(s, &[[5], [0], [2]], &mut buf));
///     buf.into_elements()
/// })
/// .unwrap();
/// assert_eq!(out[1], vec![vec![0, 1, 2, 3, 4], vec![], vec![0, 1]]);
/// ```
pub struct GpArray<T: Value> {
    pub(crate) shared: Arc<GpShared<T>>,
    pub(crate) reg: ExtReg,
    _not_send: PhantomData<*const ()>,
}

impl<T: Value> std::fmt::Debug for GpArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpArray")
            .field("name", &self.shared.label())
            .field("type", &std::any::type_name::<T>())
            .field("dims", &self.shared.dist.dims())
            .field("grid", &self.shared.dist.grid())
            .field("pid", &self.reg.pid)
            .finish()
    }
}

/// How to create a [`GpArray`]: dimensions, then optionally minimum chunk sizes or an irregular
/// distribution, and a name for messages. Made by [`GpArray::builder`].
///
/// ```
/// use bsp_runtime::gp::GpArray;
/// let blocks = bsp_runtime::run(4, |ctx| {
///     let regular = GpArray::<f64>::builder(&[8, 8]).build(ctx);
///     let chunked = GpArray::<f64>::builder(&[6, 6]).chunk(&[6, -1]).build(ctx);
///     // rows split at 0 and 2, columns at 0 and 5; 2 x 2 blocks for 4 processes
///     let irregular = GpArray::<f64>::builder(&[4, 8]).irregular(&[0, 2, 0, 5], &[2, 2]).build(ctx);
///     (regular.distribution(1), chunked.distribution(1), irregular.distribution(3))
/// })
/// .unwrap();
/// assert_eq!(blocks[0].0, Some((vec![0, 4], vec![3, 7])));
/// assert_eq!(blocks[0].1, Some((vec![0, 2], vec![5, 3])));
/// assert_eq!(blocks[0].2, Some((vec![2, 5], vec![3, 7])));
/// ```
#[derive(Clone, Debug)]
pub struct GpBuilder<T: Value> {
    dims: Vec<usize>,
    chunk: Option<Vec<i64>>,
    irregular: Option<(Vec<usize>, Vec<usize>)>,
    name: Option<String>,
    _type: PhantomData<fn() -> T>,
}

impl<T: Value> GpBuilder<T> {
    /// Minimum block extent per axis (`GP_Set_chunk`), C order; a value `<= 0` leaves the axis
    /// to the library, `chunk[d] = dims[d]` keeps axis `d` whole. GA's quirks included: see
    /// [`Distribution::regular`].
    pub fn chunk(mut self, chunk: &[i64]) -> Self {
        self.chunk = Some(chunk.to_vec());
        self
    }

    /// An irregular distribution (`GP_Set_irreg_distr`): `nblock[d]` blocks on axis `d`, whose
    /// product must be the number of processes, and `mapc` the 0-based start of every block,
    /// axis after axis (C order). See [`Distribution::irregular`].
    pub fn irregular(mut self, mapc: &[usize], nblock: &[usize]) -> Self {
        self.irregular = Some((mapc.to_vec(), nblock.to_vec()));
        self
    }

    /// The name messages use for the array (otherwise `#n`, its registration number).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Creates the array (`GP_Allocate` followed by `GP_Sync`); collective: every process must
    /// build its arrays in the same order, with the same element type, dimensions and
    /// distribution, at the same point (relative to its other registrations).
    ///
    /// **This is a sync**, as [`Ctx::register`] is: the array becomes known to every process
    /// at it (D4), so the `GpArray` is usable for one-sided operations as soon as it exists, and
    /// communication queued before it in the superstep completes there. All elements start
    /// unassigned.
    ///
    /// # Panics
    /// If the dimensions, chunk or irregular distribution are invalid (each message says
    /// why), if both `chunk` and `irregular` were given, if `T` has size 0, or if this
    /// process's share of the array cannot be allocated (the message names its size). At the
    /// sync, on every process, if the processes created arrays of different types or shapes.
    #[track_caller]
    pub fn build(self, ctx: &mut Ctx) -> GpArray<T> {
        let what = match &self.name {
            // The C interface names its arrays by their handle ("GP array 3").
            Some(name) if crate::calls::from_c() => name.clone(),
            Some(name) => format!("gp array `{name}`"),
            None => format!("a gp array of `{}`", std::any::type_name::<T>()),
        };
        if std::mem::size_of::<T>() == 0 {
            ctx.fail_misuse(format!(
                "{what}: the element type `{}` has size 0; GP elements hold data",
                std::any::type_name::<T>()
            ));
        }
        let dist = match (&self.chunk, &self.irregular) {
            (Some(_), Some(_)) => ctx.fail_misuse(format!(
                "{what}: both `chunk` and `irregular` were given; choose one (`irregular` fixes every block)"
            )),
            (_, Some((mapc, nblock))) => Distribution::irregular(&self.dims, ctx.nprocs(), mapc, nblock),
            (chunk, None) => Distribution::regular(&self.dims, ctx.nprocs(), chunk.as_deref()),
        };
        let dist = match dist {
            Ok(dist) => dist,
            Err(e) => ctx.fail_misuse(format!("{what}: create: {e}")),
        };
        let signature = signature::<T>(&dist);
        let shared = match GpShared::<T>::try_new(dist, ctx.pid()) {
            Ok(shared) => Arc::new(shared),
            Err(e) => ctx.fail_misuse(format!("{what}: create with dims {:?}: {e}", self.dims)),
        };
        let reg = ctx.push_ext(shared.clone(), signature);
        let label = match self.name {
            Some(name) if crate::calls::from_c() => name,
            Some(name) => format!("gp array `{name}`"),
            None => format!("gp array #{}", reg.serial),
        };
        shared.label.set(label).expect("the label is set once, here");
        ctx.sync_for(crate::ctx::Wait::GpArray);
        GpArray { shared, reg, _not_send: PhantomData }
    }
}

/// What must agree across processes for their parts to be read as one array: the element type
/// and the distribution.
fn signature<T: Value>(dist: &Distribution) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::any::TypeId::of::<T>().hash(&mut h);
    dist.dims().hash(&mut h);
    for d in 0..dist.ndim() {
        dist.block_starts(d).hash(&mut h);
    }
    dist.nprocs().hash(&mut h);
    h.finish()
}

impl<T: Value> GpArray<T> {
    /// Starts creating an array of extents `dims` (C order; 1 to 7 axes, each at least 1).
    /// `GP_Create_handle` + `GP_Set_dimensions`; finish with [`GpBuilder::build`].
    pub fn builder(dims: &[usize]) -> GpBuilder<T> {
        GpBuilder { dims: dims.to_vec(), chunk: None, irregular: None, name: None, _type: PhantomData }
    }

    /// The name messages use: "gp array `name`" or "gp array #n".
    pub fn name(&self) -> &str {
        self.shared.label()
    }

    /// The array's extents, C order.
    pub fn dims(&self) -> &[usize] {
        self.shared.dist.dims()
    }

    /// The distribution (identical on every process): owners, blocks, local indices.
    pub fn dist(&self) -> &Distribution {
        &self.shared.dist
    }

    /// The block of elements process `proc` owns, as inclusive bounds `(lo, hi)` in C order
    /// (`GP_Distribution`); `None` if it owns nothing (GA reports `hi < lo` then).
    ///
    /// ```
    /// use bsp_runtime::gp::GpArray;
    /// let blocks = bsp_runtime::run(3, |ctx| {
    ///     let g = GpArray::<u8>::builder(&[10]).build(ctx);
    ///     (0..3).map(|q| g.distribution(q).unwrap()).collect::<Vec<_>>()
    /// })
    /// .unwrap();
    /// // GA's split of 10 elements over 3 processes
    /// assert_eq!(blocks[0], [(vec![0], vec![3]), (vec![4], vec![6]), (vec![7], vec![9])]);
    /// ```
    pub fn distribution(&self, proc: usize) -> Option<(Vec<usize>, Vec<usize>)> {
        self.shared.dist.block(proc)
    }

    /// Checks that this handle belongs to `ctx`'s process and run.
    #[track_caller]
    pub(crate) fn check_handle(&self, ctx: &Ctx, op: &str) {
        if self.reg.run_id != ctx.run_id() || self.reg.pid != ctx.pid() {
            ctx.fail_misuse(format!(
                "{}: {op}: this handle belongs to process {} of another run or process; use this process's handle",
                self.name(),
                self.reg.pid
            ));
        }
    }

    /// Checks `sub` and returns its owner and local index.
    #[track_caller]
    pub(crate) fn locate(&self, ctx: &Ctx, op: &str, sub: &[usize]) -> (usize, usize) {
        match self.shared.dist.local_index(sub) {
            Ok(at) => at,
            Err(e) => ctx.fail_misuse(format!("{}: {op}: {e}", self.name())),
        }
    }

    /// Checks that `sub` is owned by this process and returns its local index.
    #[track_caller]
    fn local(&self, ctx: &Ctx, op: &str, sub: &[usize]) -> usize {
        self.check_handle(ctx, op);
        let (owner, index) = self.locate(ctx, op, sub);
        if owner != ctx.pid() {
            let mine = match self.distribution(ctx.pid()) {
                Some((lo, hi)) => format!("this process owns {}", crate::calls::patch_text(&lo, &hi)),
                None => "this process owns no element".to_string(),
            };
            ctx.fail_misuse(format!(
                "{}: {op}: subscript {sub:?} is owned by process {owner}, not by this process ({mine}); local operations take local subscripts only (see `distribution`), use `get`/`put` for the others",
                self.name()
            ));
        }
        index
    }

    /// The local element at `sub`, to read (`GP_Access_element`); `None` if unassigned. The
    /// borrow plays the part of `GP_Release_element`.
    ///
    /// ```
    /// use bsp_runtime::gp::GpArray;
    /// bsp_runtime::run(1, |ctx| {
    ///     let mut g = GpArray::<i32>::builder(&[2, 2]).build(ctx);
    ///     g.assign_local(ctx, &[1, 0], vec![7, 8]);
    ///     assert_eq!(g.access(ctx, &[1, 0]), Some(&[7, 8][..]));
    ///     assert_eq!(g.access(ctx, &[0, 0]), None);
    /// })
    /// .unwrap();
    /// ```
    ///
    /// # Panics
    /// If `sub` is out of range or owned by another process.
    #[track_caller]
    pub fn access<'a>(&'a self, ctx: &'a Ctx, sub: &[usize]) -> Option<&'a [T]> {
        let index = self.local(ctx, "access", sub);
        // SAFETY: we are the owner, outside a sync (we hold `&Ctx`, and the sync needs
        // `&mut Ctx`); the only writers are our `&mut self` methods and our put phase, and the
        // returned borrow of `self` and `ctx` excludes both (`shared.rs`).
        let elems = unsafe { self.shared.elems() };
        elems[index].as_deref()
    }

    /// The local element at `sub`, to modify in place (`GP_Access_element` followed by
    /// `GP_Release_update_element` when the borrow ends); `None` if unassigned.
    ///
    /// ```
    /// use bsp_runtime::gp::GpArray;
    /// bsp_runtime::run(1, |ctx| {
    ///     let mut g = GpArray::<f64>::builder(&[2]).build(ctx);
    ///     g.assign_local(ctx, &[0], [1.0, 2.0]);
    ///     for x in g.access_mut(ctx, &[0]).unwrap() {
    ///         *x *= 10.0;
    ///     }
    ///     assert_eq!(g.access(ctx, &[0]).unwrap(), [10.0, 20.0]);
    /// })
    /// .unwrap();
    /// ```
    ///
    /// It takes `&mut Ctx`, so an element cannot be borrowed inside a superstep (where only
    /// `&Ctx` is at hand) and so cannot become a get destination written at the sync while
    /// other processes read the element:
    ///
    /// ```compile_fail,E0308
    /// use bsp_runtime::gp::GpArray;
    /// bsp_runtime::run(2, |ctx| {
    ///     let x = ctx.register([1u64]);
    ///     let mut g = GpArray::<u64>::builder(&[2]).build(ctx);
    ///     g.assign_local(ctx, &[ctx.pid()], vec![0]);
    ///     let me = ctx.pid();
    ///     ctx.superstep(|s| s.get(0, &x, 0, g.access_mut(s, &[me]).unwrap()));
    /// });
    /// ```
    ///
    /// # Panics
    /// If `sub` is out of range or owned by another process.
    #[track_caller]
    pub fn access_mut<'a>(&'a mut self, ctx: &'a mut Ctx, sub: &[usize]) -> Option<&'a mut [T]> {
        let index = self.local(ctx, "access_mut", sub);
        // SAFETY: as in `access`, and `&mut self` excludes every other borrow of our elements.
        // `&mut Ctx` keeps the borrow out of supersteps (a `Superstep` gives only `&Ctx`), so it
        // can never be the destination of a get, which the sync writes in its get phase while
        // other processes may be serving reads of these elements.
        let elems = unsafe { self.shared.elems_mut() };
        elems[index].as_deref_mut()
    }

    /// Makes `data` the local element at `sub` (`GP_Malloc` + `GP_Assign_local_element`) and
    /// returns the element it replaces, if any. Other processes see it from the next sync on.
    ///
    /// ```
    /// use bsp_runtime::gp::GpArray;
    /// bsp_runtime::run(1, |ctx| {
    ///     let mut g = GpArray::<u8>::builder(&[3]).build(ctx);
    ///     assert_eq!(g.assign_local(ctx, &[2], vec![1, 2]), None);
    ///     assert_eq!(g.assign_local(ctx, &[2], [3]), Some(vec![1, 2]));
    ///     assert_eq!(g.free_local(ctx, &[2]), Some(vec![3]));
    ///     assert_eq!(g.access(ctx, &[2]), None);
    /// })
    /// .unwrap();
    /// ```
    ///
    /// # Panics
    /// If `sub` is out of range or owned by another process.
    #[track_caller]
    pub fn assign_local(&mut self, ctx: &Ctx, sub: &[usize], data: impl Into<Vec<T>>) -> Option<Vec<T>> {
        let index = self.local(ctx, "assign_local", sub);
        // SAFETY: as in `access_mut`.
        let elems = unsafe { self.shared.elems_mut() };
        elems[index].replace(data.into().into_boxed_slice()).map(<[T]>::into_vec)
    }

    /// Unassigns the local element at `sub` and returns its data
    /// (`GP_Free_local_element`; dropping the result is `GP_Free`). Later requests for the
    /// element find it unassigned (size 0).
    ///
    /// # Panics
    /// If `sub` is out of range or owned by another process.
    #[track_caller]
    pub fn free_local(&mut self, ctx: &Ctx, sub: &[usize]) -> Option<Vec<T>> {
        let index = self.local(ctx, "free_local", sub);
        // SAFETY: as in `access_mut`.
        let elems = unsafe { self.shared.elems_mut() };
        elems[index].take().map(<[T]>::into_vec)
    }

    /// Sets every value of every element of the array to zero (`GP_Memzero`); collective.
    ///
    /// As in GA, it first syncs (so puts queued before it land first), then every process
    /// zeroes the elements it owns. No closing sync is needed: other processes read them only
    /// in a later sync, which this process enters after zeroing.
    ///
    /// ```
    /// use bsp_runtime::gp::GpArray;
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let mut g = GpArray::<u32>::builder(&[2]).build(ctx);
    ///     let me = ctx.pid();
    ///     g.assign_local(ctx, &[me], [7, 7]);
    ///     g.memzero(ctx);
    ///     g.access(ctx, &[me]).unwrap().to_vec()
    /// })
    /// .unwrap();
    /// assert_eq!(out, [[0, 0], [0, 0]]);
    /// ```
    ///
    /// # Panics
    /// As [`Ctx::sync`].
    #[track_caller]
    pub fn memzero(&mut self, ctx: &mut Ctx) {
        self.check_handle(ctx, "memzero");
        ctx.sync_for(crate::ctx::Wait::GpArray);
        // SAFETY: as in `access_mut`: we are the owner, outside a sync, holding `&mut self`.
        let elems = unsafe { self.shared.elems_mut() };
        for element in elems.iter_mut().flatten() {
            element.fill(T::zeroed());
        }
    }

    /// `GP_Sync`: the same as [`Ctx::sync`] (one sync completes every GP operation and every
    /// other communication of the superstep).
    ///
    /// # Panics
    /// As [`Ctx::sync`].
    pub fn sync(&self, ctx: &mut Ctx) {
        ctx.sync_for(crate::ctx::Wait::GpArray);
    }

    /// Destroys the array (`GP_Destroy`); collective, and a sync. Returns the elements this
    /// process owned that were still assigned, with their subscripts, in row-major order (the
    /// `GP_Free_local_element` + `GP_Free` loop of GA's teardown idiom, done for you).
    ///
    /// One-sided operations on the array queued in this superstep still complete at that sync
    /// (as before [`Ctx::unregister`], D27); the array is taken by value, so none can follow.
    ///
    /// Dropping a `GpArray` without destroying it is safe: the array stays registered (and
    /// usable by the other processes) until the run ends, when its memory is freed.
    ///
    /// ```
    /// use bsp_runtime::gp::GpArray;
    /// let left = bsp_runtime::run(2, |ctx| {
    ///     let mut g = GpArray::<u16>::builder(&[4]).build(ctx);
    ///     let (lo, _) = g.distribution(ctx.pid()).unwrap();
    ///     g.assign_local(ctx, &lo, [9]);
    ///     g.destroy(ctx)
    /// })
    /// .unwrap();
    /// assert_eq!(left[1], vec![(vec![2], vec![9])]);
    /// ```
    ///
    /// # Panics
    /// At the sync, on every process, if the processes did not all destroy it.
    #[track_caller]
    pub fn destroy(self, ctx: &mut Ctx) -> Vec<(Vec<usize>, Vec<T>)> {
        self.check_handle(ctx, "destroy");
        ctx.pop_ext(&self.reg);
        ctx.sync_for(crate::ctx::Wait::GpArray);
        // The deregistration took effect at that sync: our table dropped its reference, and no
        // process reads the object any more. Ours is the last `Arc`.
        let GpArray { shared, .. } = self;
        let Some(shared) = Arc::into_inner(shared) else {
            ctx.fail_misuse(
                "gp array: destroy: internal error: the array is still referenced after its deregistration".to_string(),
            );
        };
        let (lo, hi) = match shared.dist.block(shared.owner) {
            Some(block) => block,
            None => return Vec::new(),
        };
        super::patch::subscripts(&lo, &hi)
            .zip(shared.into_elements())
            .filter_map(|(sub, element)| element.map(|e| (sub, e.into_vec())))
            .collect()
    }
}
