//! Scoped registration of memory the caller owns: `Ctx::with_reg` and `Ctx::with_regs`.
//!
//! `register` takes ownership of the data, which does not fit a routine that receives
//! `&mut [T]` and must register it for the length of its work, as `bsp_push_reg` …
//! `bsp_pop_reg` do in C. `ctx.with_reg(v, |ctx, v| …)` registers `v` in place (push, then a
//! sync so that it is effective), runs the closure with a handle [`Registered`] that works
//! wherever a `&Reg` does, then deregisters it (pop, then a sync so that nobody reaches it any
//! more) and gives the memory back: no copy is made.
//!
//! Why it is sound:
//! - the caller's `&mut [T]` is turned into a raw pointer once, at the start, and not used again
//!   until `with_reg` returns, after the sync that ends the registration; meanwhile the memory is
//!   reached only through the handle, like a `Reg`'s (local views borrow the `Ctx`, and a sync
//!   needs `&mut Ctx`) and by the runtime inside syncs;
//! - the handle's lifetime `'r` is a brand: invariant, and chosen by `with_reg` for each call
//!   (the closure is generic over it), so the handle cannot leave the closure, by return value,
//!   through a captured variable or by swapping with another scope's handle;
//! - nothing rests on `Drop`: the pop and its sync are run by `with_reg` itself after the
//!   closure returns. If the closure (or a sync) unwinds instead, the process is marked broken,
//!   so it never syncs again and no other process can reach the memory (others read a
//!   process's registered memory only inside a sync that it takes part in), and the run fails.

use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::ptr::NonNull;
use std::sync::Arc;

use crate::{Ctx, Value};

/// A registration of memory the caller owns, valid inside one [`Ctx::with_reg`] (or
/// [`Ctx::with_regs`]) closure.
///
/// Use `&registered` wherever `&Reg` is accepted (`put`, `get`, `hpput`, `hpget`), and
/// [`local`](Registered::local) / [`local_mut`](Registered::local_mut) for this process's
/// elements, as with a [`Reg`](crate::Reg). The lifetime `'r` ties it to its closure: it cannot
/// be returned from it or stored outside it.
///
/// ```
/// fn scale_by_neighbour(ctx: &mut bsp_runtime::Ctx, v: &mut [f64]) {
///     let (pid, p) = (ctx.pid(), ctx.nprocs());
///     ctx.with_reg(v, |ctx, mut v| {
///         let mut factor = 0.0;
///         ctx.superstep(|s| s.get((pid + 1) % p, &v, 0, &mut factor));
///         v.local_mut(ctx).iter_mut().for_each(|x| *x *= factor);
///     });
/// }
///
/// let out = bsp_runtime::run(3, |ctx| {
///     let mut v = vec![ctx.pid() as f64 + 1.0; 2];
///     scale_by_neighbour(ctx, &mut v);
///     v
/// })
/// .unwrap();
/// assert_eq!(out, vec![vec![2.0; 2], vec![6.0; 2], vec![3.0; 2]]);
/// ```
pub struct Registered<'r, T: Value> {
    pub(crate) slot: u32,
    pub(crate) serial: u64,
    pub(crate) run_id: u64,
    pub(crate) pid: usize,
    ptr: NonNull<T>,
    len: usize,
    /// Invariant in `'r`: the brand of one `with_reg` call.
    _brand: PhantomData<fn(&'r ()) -> &'r ()>,
    /// The caller's memory, borrowed mutably (and not `Send`, like `Ctx`).
    _data: PhantomData<*mut T>,
}

impl<T: Value> std::fmt::Debug for Registered<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registered")
            .field("registration", &self.serial)
            .field("pid", &self.pid)
            .field("len", &self.len)
            .finish()
    }
}

impl<T: Value> Registered<'_, T> {
    /// The number of elements this process registered.
    ///
    /// ```
    /// bsp_runtime::run(2, |ctx| {
    ///     let mut v = [0u8; 5];
    ///     ctx.with_reg(&mut v[1..], |_, r| assert_eq!((r.len(), r.is_empty()), (4, false)));
    /// })
    /// .unwrap();
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether this process registered no elements.
    ///
    /// ```
    /// bsp_runtime::run(1, |ctx| ctx.with_reg::<u8, _>(&mut [], |_, r| assert!(r.is_empty()))).unwrap();
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The registration's number in messages (`registration #n`).
    ///
    /// ```
    /// bsp_runtime::run(1, |ctx| {
    ///     let a = ctx.register([0u8]);
    ///     ctx.with_reg(&mut [0u8], |_, r| assert_eq!(r.id(), a.id() + 1));
    /// })
    /// .unwrap();
    /// ```
    pub fn id(&self) -> u64 {
        self.serial
    }

    /// This registration's name for communication (see [`Remote`](crate::Remote)); it borrows
    /// the handle, so it cannot leave the closure either, nor be used after
    /// [`local_mut`](Registered::local_mut) on the same handle: take both at once with
    /// [`split_mut`](Registered::split_mut).
    ///
    /// ```
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let mut v = [0u32];
    ///     ctx.with_reg(&mut v, |ctx, r| {
    ///         let name = r.remote();
    ///         ctx.put(1 - ctx.pid(), &3, name, 0);
    ///         ctx.sync();
    ///     });
    ///     v[0]
    /// })
    /// .unwrap();
    /// assert_eq!(out, vec![3, 3]);
    /// ```
    pub fn remote(&self) -> crate::Remote<'_, T> {
        crate::Remote::new(self.slot, self.serial, self.run_id, self.pid)
    }

    /// This registration's name and this process's elements, to modify, at once: for a get
    /// whose destination is this process's own part of the registration it reads from.
    ///
    /// ```
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let mut v = [ctx.pid() as u32; 2];
    ///     ctx.with_reg(&mut v, |ctx, mut r| {
    ///         ctx.superstep(|s| {
    ///             let (name, local) = r.split_mut(s);
    ///             s.get(1 - s.pid(), name, 0, &mut local[1..]);
    ///         });
    ///     });
    ///     v
    /// })
    /// .unwrap();
    /// assert_eq!(out, vec![[0, 1], [1, 0]]);
    /// ```
    ///
    /// # Panics
    /// As [`local_mut`](Registered::local_mut).
    #[track_caller]
    pub fn split_mut<'a>(&'a mut self, ctx: &'a Ctx) -> (crate::Remote<'a, T>, &'a mut [T]) {
        let name = crate::Remote::new(self.slot, self.serial, self.run_id, self.pid);
        (name, self.local_mut(ctx))
    }

    #[track_caller]
    fn check_owner(&self, ctx: &Ctx, what: &str) {
        ctx.check_owner(what, self.run_id, self.pid, self.serial);
    }

    /// This process's registered elements.
    ///
    /// ```
    /// bsp_runtime::run(2, |ctx| {
    ///     let mut v = [1, 2, 3];
    ///     ctx.with_reg(&mut v, |ctx, r| assert_eq!(r.local(ctx), [1, 2, 3]));
    /// })
    /// .unwrap();
    /// ```
    ///
    /// # Panics
    /// If the registration belongs to another process or run.
    #[track_caller]
    pub fn local<'a>(&'a self, ctx: &'a Ctx) -> &'a [T] {
        self.check_owner(ctx, "local");
        // SAFETY: `ptr`/`len` are the caller's `&mut [T]`, which `with_reg` keeps borrowed (and
        // does not touch) while this handle exists; the borrow of `ctx` keeps the process out of
        // `sync` (the only time the runtime or other processes write this memory), and
        // `local_mut` needs `&mut self`, so no mutable view is alive.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// This process's registered elements, to modify.
    ///
    /// ```
    /// bsp_runtime::run(2, |ctx| {
    ///     let mut v = [1, 2, 3];
    ///     ctx.with_reg(&mut v, |ctx, mut r| r.local_mut(ctx)[0] = 10);
    ///     assert_eq!(v, [10, 2, 3]);
    /// })
    /// .unwrap();
    /// ```
    ///
    /// # Panics
    /// If the registration belongs to another process or run.
    #[track_caller]
    pub fn local_mut<'a>(&'a mut self, ctx: &'a Ctx) -> &'a mut [T] {
        self.check_owner(ctx, "local_mut");
        // SAFETY: as in `local`; `&mut self` makes this view unique (the handle is not `Clone`).
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

/// Memory that [`Ctx::with_regs`] can register: `&mut [T]`, `&mut [T; N]` or `&mut Vec<T>`
/// (whose length cannot change while registered: it is borrowed). Sealed.
///
/// ```
/// bsp_runtime::run(2, |ctx| {
///     let (mut slice, mut array, mut vec) = ([0u8; 4], [0u16; 2], vec![0u32; 3]);
///     ctx.with_regs((&mut slice[1..], &mut array, &mut vec), |ctx, (a, b, c)| {
///         assert_eq!((a.len(), b.len(), c.len()), (3, 2, 3));
///     });
/// })
/// .unwrap();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be registered in place",
    label = "expected `&mut [T]`, `&mut [T; N]` or `&mut Vec<T>` of a plain-old-data `T`",
    note = "`with_reg` and `with_regs` register memory the caller owns, borrowed mutably for the scope"
)]
pub trait RegData: sealed::Sealed {
    /// The element type.
    type Elem: Value;
    /// The elements' address and number: the only use of the caller's reference.
    #[doc(hidden)]
    fn into_raw(self) -> (NonNull<Self::Elem>, usize);
}

impl<T: Value> sealed::Sealed for &mut [T] {}
impl<T: Value> RegData for &mut [T] {
    type Elem = T;
    fn into_raw(self) -> (NonNull<T>, usize) {
        let len = self.len();
        (NonNull::from(self).cast(), len)
    }
}
impl<T: Value, const N: usize> sealed::Sealed for &mut [T; N] {}
impl<T: Value, const N: usize> RegData for &mut [T; N] {
    type Elem = T;
    fn into_raw(self) -> (NonNull<T>, usize) {
        (NonNull::from(self).cast(), N)
    }
}
impl<T: Value> sealed::Sealed for &mut Vec<T> {}
impl<T: Value> RegData for &mut Vec<T> {
    type Elem = T;
    fn into_raw(self) -> (NonNull<T>, usize) {
        self.as_mut_slice().into_raw()
    }
}

/// Memory that [`Ctx::with_regs`] registers at once: one [`RegData`] (its handle is a
/// [`Registered`]) or a tuple of 2 to 12 of them, each of which may be a tuple itself (the
/// handles come in the same shape): any number of pieces with one sync each way. Sealed.
///
/// ```
/// bsp_runtime::run(1, |ctx| {
///     let (mut a, mut b, mut c, mut d) = ([1u8], [2u16], [3u32], [4u64]);
///     let sum = ctx.with_regs((&mut a, &mut b, &mut c, &mut d), |ctx, (a, b, c, d)| {
///         a.local(ctx)[0] as u64 + b.local(ctx)[0] as u64 + c.local(ctx)[0] as u64 + d.local(ctx)[0]
///     });
///     assert_eq!(sum, 10);
///     // Nested: seven pieces.
///     let mut v = [[0u8; 2]; 7];
///     let [v0, v1, v2, v3, v4, v5, v6] = &mut v;
///     let n = ctx.with_regs(((v0, v1, v2), (v3, v4), (v5, v6)), |ctx, ((a, ..), _, (.., g))| {
///         a.len() + g.local(ctx).len()
///     });
///     assert_eq!(n, 4);
/// })
/// .unwrap();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be registered in place",
    label = "expected `&mut [T]`, `&mut [T; N]` or `&mut Vec<T>` of a plain-old-data `T`, or a tuple of 2 to 12 of them",
    note = "`with_regs` registers memory the caller owns, borrowed mutably for the scope; nest tuples for more than 12: `((a, .., l), m)`"
)]
pub trait RegSet: sealed::Sealed {
    /// The handles, with brand `'r`.
    type Handles<'r>;
    /// Pushes every piece, in order, and notes its (slot, serial) in `ids`; returns the handles.
    #[doc(hidden)]
    fn push<'r>(self, ctx: &Ctx, ids: &mut Vec<(u32, u64)>) -> Self::Handles<'r>;
}

mod sealed {
    /// Implemented only by the types of this module.
    pub trait Sealed {}
}

impl<D: RegData> RegSet for D {
    type Handles<'r> = Registered<'r, D::Elem>;
    fn push<'r>(self, ctx: &Ctx, ids: &mut Vec<(u32, u64)>) -> Registered<'r, D::Elem> {
        let handle = ctx.push_scoped(self.into_raw());
        ids.push((handle.slot, handle.serial));
        handle
    }
}

macro_rules! reg_set {
    ($($d:ident),+) => {
        impl<$($d),+> sealed::Sealed for ($($d,)+) {}
        impl<$($d: RegSet),+> RegSet for ($($d,)+) {
            type Handles<'r> = ($($d::Handles<'r>,)+);
            #[allow(non_snake_case, reason = "the type parameters name the tuple's fields")]
            fn push<'r>(self, ctx: &Ctx, ids: &mut Vec<(u32, u64)>) -> Self::Handles<'r> {
                let ($($d,)+) = self;
                ($($d.push(ctx, ids),)+)
            }
        }
    };
}
reg_set!(A, B);
reg_set!(A, B, C);
reg_set!(A, B, C, D);
reg_set!(A, B, C, D, E);
reg_set!(A, B, C, D, E, F);
reg_set!(A, B, C, D, E, F, G);
reg_set!(A, B, C, D, E, F, G, H);
reg_set!(A, B, C, D, E, F, G, H, I);
reg_set!(A, B, C, D, E, F, G, H, I, J);
reg_set!(A, B, C, D, E, F, G, H, I, J, K);
reg_set!(A, B, C, D, E, F, G, H, I, J, K, L);

impl Ctx {
    /// Registers `data` (this process's memory) in place for the length of `f`; collective,
    /// like [`register`](Ctx::register), and every process calls it at the same point.
    ///
    /// Pushes the registration and syncs (so it is effective inside `f`), runs `f` with a
    /// [`Registered`] handle, then pops it and syncs (so nobody reaches it any more); `data` is
    /// the caller's again when `with_reg` returns, with every change made to it, and no copy was
    /// made. Each process may register a different length, as with `register`.
    ///
    /// **Cost:** 2 syncs, besides those of `f`: the first also ends the superstep in progress
    /// (and completes what it queued), the second ends the last superstep of `f`.
    ///
    /// ```
    /// // A routine that registers its argument, as `bsp_push_reg(v)` ... `bsp_pop_reg(v)` do.
    /// fn rotate(ctx: &mut bsp_runtime::Ctx, v: &mut [u64]) {
    ///     let (pid, p) = (ctx.pid(), ctx.nprocs());
    ///     let mine = v.to_vec();
    ///     ctx.with_reg(v, |ctx, v| {
    ///         ctx.put((pid + 1) % p, &mine[..], &v, 0);
    ///         ctx.sync();
    ///     });
    /// }
    ///
    /// let out = bsp_runtime::run(3, |ctx| {
    ///     let mut block = vec![ctx.pid() as u64; 4];
    ///     for _ in 0..1000 {
    ///         rotate(ctx, &mut block[1..3]); // part of an array
    ///     }
    ///     block
    /// })
    /// .unwrap();
    /// assert_eq!(out[0], [0, 2, 2, 0]); // 1000 = 1 (mod 3) rotations
    /// ```
    ///
    /// # Panics
    /// As `register` and `unregister` (at the syncs, on every process, if the processes registered
    /// different numbers or element types). If `f` panics, the process can no longer
    /// communicate and the run fails.
    #[track_caller]
    pub fn with_reg<T: Value, R>(
        &mut self,
        data: &mut [T],
        f: impl for<'r> FnOnce(&mut Ctx, Registered<'r, T>) -> R,
    ) -> R {
        self.check_live("with_reg");
        self.scoped(
            |ctx| {
                let handle = ctx.push_scoped(data.into_raw());
                let ids = vec![(handle.slot, handle.serial)];
                (handle, ids)
            },
            f,
        )
    }

    /// Registers several pieces of memory in place at once, with one sync each way: a tuple of
    /// 2 to 12 `&mut [T]`, `&mut [T; N]` or `&mut Vec<T>` (or of tuples of them, to any depth),
    /// whose handles `f` receives in the same shape, as [`Registered`]s. Otherwise as
    /// [`with_reg`](Ctx::with_reg).
    ///
    /// ```
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let (mut a, mut b) = (vec![0u32; 2], [0.0f64; 3]);
    ///     let other = 1 - ctx.pid();
    ///     ctx.with_regs((&mut a, &mut b), |ctx, (a, b)| {
    ///         ctx.put(other, &[7, 8], &a, 0);
    ///         ctx.put(other, &1.5, &b, 2);
    ///         ctx.sync();
    ///     });
    ///     (a, b)
    /// })
    /// .unwrap();
    /// assert_eq!(out[0], (vec![7, 8], [0.0, 0.0, 1.5]));
    /// ```
    ///
    /// # Panics
    /// As [`with_reg`](Ctx::with_reg).
    #[track_caller]
    pub fn with_regs<S: RegSet, R>(&mut self, data: S, f: impl for<'r> FnOnce(&mut Ctx, S::Handles<'r>) -> R) -> R {
        self.check_live("with_regs");
        self.scoped(
            |ctx| {
                let mut ids = Vec::new();
                let handles = data.push(ctx, &mut ids);
                (handles, ids)
            },
            f,
        )
    }

    /// Pushes the caller's memory at `ptr` in place, recording no owner (the caller keeps it
    /// alive: `scoped` returns only after the registration is gone). The pointer is the only
    /// use of the caller's reference: from here on the memory is reached through it (the
    /// handle and the runtime) until `scoped` returns.
    #[track_caller]
    fn push_scoped<'r, T: Value>(&self, (ptr, len): (NonNull<T>, usize)) -> Registered<'r, T> {
        self.check_live("with_reg");
        let (slot, serial) = self.state.borrow_mut().table.alloc();
        let (addr, bytes) = (ptr.as_ptr() as usize, len * std::mem::size_of::<T>());
        self.push_entry(
            slot,
            serial,
            addr,
            bytes,
            std::mem::size_of::<T>(),
            std::any::type_name::<T>(),
            Arc::new(()),
            None,
        );
        Registered {
            slot,
            serial,
            run_id: self.run_id(),
            pid: self.pid,
            ptr,
            len,
            _brand: PhantomData,
            _data: PhantomData,
        }
    }

    /// Push (by `push`), sync, `f`, pop, sync; marks the process broken if any of it unwinds.
    fn scoped<H, R>(&mut self, push: impl FnOnce(&Ctx) -> (H, Vec<(u32, u64)>), f: impl FnOnce(&mut Ctx, H) -> R) -> R {
        let run = catch_unwind(AssertUnwindSafe(|| {
            let (handles, ids) = push(self);
            self.sync_for(crate::ctx::Wait::Registration);
            let result = f(self, handles);
            for (slot, serial) in ids {
                self.pop_entry("with_reg", slot, serial);
            }
            self.sync_for(crate::ctx::Wait::Registration);
            result
        }));
        match run {
            Ok(result) => result,
            Err(payload) => {
                // The memory may still be registered: this process must never sync again, so
                // that no other process reaches it once the caller's frame is gone.
                self.broken.set(true);
                resume_unwind(payload)
            }
        }
    }
}
