//! `Superstep`: the scope in which operations that borrow until the sync are allowed.
//!
//! `Ctx::superstep(|s| ...)` runs the closure and then syncs, like `std::thread::scope` runs a
//! closure and then joins. Borrows handed to `get`/`hpget` (destinations) and `hpput` (sources)
//! have the scope's lifetime `'s`, which ends only after the sync; so the borrow checker rejects
//! touching them before the data has moved. The closure cannot leak `'s` (it is higher-ranked),
//! and soundness does not rest on any user value being dropped: the sync is done by
//! `Ctx::superstep` itself, after the closure returns. If the closure unwinds instead, the
//! process is marked broken and never syncs again, so the recorded addresses are never used.

use std::marker::PhantomData;
use std::ops::Deref;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use crate::Ctx;

/// A superstep in progress: [`Ctx`] plus `get`, `hpget` and `hpput`.
///
/// Obtained from [`Ctx::superstep`]; derefs to [`Ctx`], so `pid`, `put`, `send`, `hpmove`,
/// ... are all available (not `sync`, `register` or `unregister`, which need `&mut Ctx`). The superstep ends (with a sync) when the closure returns.
///
/// ```
/// let r = bsp_runtime::run(2, |ctx| {
///     let x = ctx.register([ctx.pid() as i64 + 1]);
///     let mut sum = [0i64; 2];
///     ctx.superstep(|s| {
///         let [a, b] = &mut sum;
///         s.hpget(0, &x, 0, a);
///         s.hpget(1, &x, 0, b);
///         // reading `sum` here would not compile: it is borrowed until the sync
///     });
///     sum[0] + sum[1]
/// })
/// .unwrap();
/// assert_eq!(r, vec![3, 3]);
/// ```
///
/// Reading a get destination before the sync is a compile error:
///
/// ```compile_fail,E0502
/// bsp_runtime::run(2, |ctx| {
///     let x = ctx.register([1u8]);
///     let mut v = 0u8;
///     ctx.superstep(|s| {
///         s.get(0, &x, 0, &mut v);
///         println!("{v}"); // error: `v` is borrowed until the end of the superstep
///     });
/// });
/// ```
pub struct Superstep<'s, 'env: 's> {
    pub(crate) ctx: &'s Ctx,
    _scope: PhantomData<&'s mut &'s ()>,
    _env: PhantomData<&'env mut &'env ()>,
}

impl std::fmt::Debug for Superstep<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Superstep").field("pid", &self.ctx.pid).field("step", &self.ctx.step).finish()
    }
}

impl<'s> Superstep<'s, 's> {
    /// A superstep of `ctx` that is not a closure's: for callers that keep what they lend to
    /// its operations alive and untouched until the next sync themselves (the C interface,
    /// `foreign/gp.rs`), where no borrow can say so.
    ///
    /// # Safety
    /// `ctx` must outlive every use of the result, and whatever is lent to an operation made
    /// through it (a get's destination, an hpput's source) must stay allocated, and untouched
    /// by the caller, until the end of the next sync of `ctx`.
    pub(crate) unsafe fn detached(ctx: *const Ctx) -> Self {
        // SAFETY: the caller's contract.
        Superstep { ctx: unsafe { &*ctx }, _scope: PhantomData, _env: PhantomData }
    }
}

impl Deref for Superstep<'_, '_> {
    type Target = Ctx;
    fn deref(&self) -> &Ctx {
        self.ctx
    }
}

impl Ctx {
    /// Runs `f` as one superstep and ends it with a sync; returns what `f` returns.
    ///
    /// Inside, `get`, `hpget` and `hpput` borrow their destination or source until the sync, so
    /// the compiler rejects reading a get destination (or changing an hpput source) too early.
    /// This is what the `superstep!` macro lowers to.
    ///
    /// ```
    /// let v = bsp_runtime::run(2, |ctx| {
    ///     let x = ctx.register([ctx.pid() as u16]);
    ///     let mut other = 0;
    ///     let n = ctx.superstep(|s| {
    ///         s.get(1 - s.pid(), &x, 0, &mut other);
    ///         s.nprocs()
    ///     });
    ///     (n, other)
    /// })
    /// .unwrap();
    /// assert_eq!(v, vec![(2, 1), (2, 0)]);
    /// ```
    #[track_caller]
    pub fn superstep<'env, R>(&'env mut self, f: impl for<'s> FnOnce(&'s Superstep<'s, 'env>) -> R) -> R {
        // A superstep whose second part makes no sync: it ends with its own.
        self.superstep_then(f, |_| ()).0
    }
}

impl Ctx {
    /// Runs `f` as a superstep that ends in the first sync `then` makes: a collective (on every
    /// process or on a team), a GP array's sync, a registration; if `then` makes none, a plain
    /// sync after it. Returns what both return.
    ///
    /// The gets, hpgets and hpputs of `f` complete in that sync, beside the collective's own
    /// data, so a superstep that fetches data and a collective that follows cost one sync, not
    /// two. As with [`superstep`](Ctx::superstep), what `f` lends (a get's destination, an
    /// hpput's source) stays borrowed until this call returns, so neither `then` nor the code
    /// after the call can touch it before it has landed.
    ///
    /// In that sync a get reads its source as any get does (before any put of the superstep
    /// lands), and the collective's data travels on the runtime's own channel, never into
    /// registered memory: a registration given to the collective as its data is read at the
    /// call, before the superstep's puts and gets change it.
    ///
    /// ```
    /// use bsp_runtime::ops;
    ///
    /// let got = bsp_runtime::run(3, |ctx| {
    ///     let x = ctx.register([10 * ctx.pid() as u32]);
    ///     let mut right = 0u32;
    ///     let step = ctx.step();
    ///     let ((), total) = ctx.superstep_then(
    ///         |s| s.get((s.pid() + 1) % s.nprocs(), &x, 0, &mut right),
    ///         |ctx| ctx.allreduce_one(ctx.pid(), ops::sum),
    ///     );
    ///     let syncs = ctx.step() - step; // one: the allreduce's, which also filled `right`
    ///     (right, total, syncs)
    /// })
    /// .unwrap();
    /// assert_eq!(got, [(10, 3, 1), (20, 3, 1), (0, 3, 1)]);
    /// ```
    #[track_caller]
    pub fn superstep_then<'env, R, Q>(
        &'env mut self,
        f: impl for<'s> FnOnce(&'s Superstep<'s, 'env>) -> R,
        then: impl FnOnce(&mut Ctx) -> Q,
    ) -> (R, Q) {
        let step = Superstep { ctx: &*self, _scope: PhantomData, _env: PhantomData };
        // Exactly this closure's unwinding marks the process broken: a check of
        // `std::thread::panicking()` would also fire for a superstep run from a destructor while
        // some unrelated panic unwinds, where the closure itself returned normally.
        let first = match catch_unwind(AssertUnwindSafe(|| f(&step))) {
            Ok(result) => result,
            Err(payload) => {
                // The closure may have queued addresses of borrows that its unwinding ended: the
                // process never syncs again, so they are never used.
                self.broken.set(true);
                resume_unwind(payload)
            }
        };
        let before = self.step;
        // What `f` lent is still borrowed by this call (the closure was given it for the call's
        // whole duration), so `then` cannot reach it; its first sync completes it.
        match catch_unwind(AssertUnwindSafe(|| then(&mut *self))) {
            Ok(second) => {
                if self.step == before {
                    self.sync();
                }
                (first, second)
            }
            Err(payload) => {
                if self.step == before {
                    // The superstep's lent addresses were never used: never sync again.
                    self.broken.set(true);
                }
                resume_unwind(payload)
            }
        }
    }
}

/// Sealed marker that no type implements (and, being `Sized`, no trait object either): the bound
/// of the `Ctx` methods below, which exist only so that calling `get`, `hpget` or `hpput` outside
/// a superstep says why it cannot work.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`get`, `hpget` and `hpput` exist only inside a superstep",
    label = "called on the context outside a superstep",
    note = "write the call inside `bsp::superstep!(ctx, {{ ... }})` or `ctx.superstep(|s| ...)`: it borrows its destination (or hpput source) until the sync that ends that superstep, so that it cannot be read too early"
)]
pub trait OnlyInsideASuperstep: sealed::Never + Sized {}

mod sealed {
    /// Implemented by no type.
    pub trait Never {}
}

/// Sealed marker that no type implements: the bound of `Superstep::sync` and
/// `Superstep::superstep` below, which exist only so that syncing inside a superstep says why it
/// cannot work (instead of a borrow error about `Deref`).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a superstep cannot sync: it ends with the sync at the end of its block",
    label = "a sync (or a second superstep) inside a superstep",
    note = "end the superstep instead: write two `superstep!` blocks (or `ctx.superstep` calls) one after the other, or call `ctx.sync()` between them"
)]
pub trait EndsAtTheEndOfItsBlock: sealed::Never {}

#[doc(hidden)]
impl<'s, 'env> Superstep<'s, 'env> {
    /// Not callable (the bound holds for no type): a superstep ends with its own sync.
    pub fn sync(&self)
    where
        Self: EndsAtTheEndOfItsBlock,
    {
        unreachable!("no type implements `EndsAtTheEndOfItsBlock`")
    }

    /// Not callable (the bound holds for no type): supersteps do not nest.
    pub fn superstep<R>(&self, _f: impl FnOnce(&Self) -> R) -> R
    where
        Self: EndsAtTheEndOfItsBlock,
    {
        unreachable!("no type implements `EndsAtTheEndOfItsBlock`")
    }
}

/// Sealed marker that no type implements: the bound of `Superstep::register` and its kin below,
/// which exist only so that registering inside a superstep says why it cannot work (instead of a
/// borrow error about `Deref`).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a superstep cannot register or unregister: `register` and `unregister` include a sync, and a superstep ends with the sync at the end of its block",
    label = "a registration change inside a superstep",
    note = "register before the superstep and unregister after it: `let r = ctx.register(data); ctx.superstep(|s| ...); ctx.unregister(r);`"
)]
pub trait RegistersBetweenSupersteps: sealed::Never {}

#[doc(hidden)]
impl<'s, 'env> Superstep<'s, 'env> {
    /// Not callable (the bound holds for no type): registering includes a sync.
    pub fn register<D: crate::Registration>(&self, _data: D) -> D::Regs
    where
        Self: RegistersBetweenSupersteps,
    {
        unreachable!("no type implements `RegistersBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): registering includes a sync.
    pub fn register_each<D: crate::RegValues>(&self, _data: impl IntoIterator<Item = D>) -> Vec<crate::Reg<D::Elem>>
    where
        Self: RegistersBetweenSupersteps,
    {
        unreachable!("no type implements `RegistersBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): unregistering includes a sync.
    pub fn unregister<R: crate::Unregistration>(&self, _regs: R) -> R::Data
    where
        Self: RegistersBetweenSupersteps,
    {
        unreachable!("no type implements `RegistersBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): unregistering includes a sync.
    pub fn unregister_each<T: crate::Value>(&self, _regs: Vec<crate::Reg<T>>) -> Vec<Vec<T>>
    where
        Self: RegistersBetweenSupersteps,
    {
        unreachable!("no type implements `RegistersBetweenSupersteps`")
    }
}

#[doc(hidden)]
impl Ctx {
    /// Not callable (the bound holds for no type): see [`Superstep::get`].
    pub fn get<T: crate::Value, D: OnlyInsideASuperstep>(
        &self,
        _pid: usize,
        _src: impl crate::AsRemote<T>,
        _offset: usize,
        _dst: &mut D,
    ) {
        unreachable!("no type implements `OnlyInsideASuperstep`")
    }

    /// Not callable (the bound holds for no type): see [`Superstep::hpget`].
    pub fn hpget<T: crate::Value, D: OnlyInsideASuperstep>(
        &self,
        _pid: usize,
        _src: impl crate::AsRemote<T>,
        _offset: usize,
        _dst: &mut D,
    ) {
        unreachable!("no type implements `OnlyInsideASuperstep`")
    }

    /// Not callable (the bound holds for no type): see [`Superstep::hpput`].
    pub fn hpput<T: crate::Value, S: OnlyInsideASuperstep>(
        &self,
        _pid: usize,
        _src: &S,
        _dst: impl crate::AsRemote<T>,
        _offset: usize,
    ) {
        unreachable!("no type implements `OnlyInsideASuperstep`")
    }
}
