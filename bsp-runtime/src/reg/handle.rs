//! [`RegHandle`]: what a [`Reg`] and a [`Registered`] have in common, so that a helper can take
//! either ("something registered") for remote access and local views.

use crate::{Ctx, Reg, Registered, Remote, Value};

mod sealed {
    /// Implemented only by `Reg` and `Registered`.
    pub trait Sealed {}
}

/// A registration's handle: a [`Reg<T>`] (from [`Ctx::register`]) or a [`Registered<T>`] (from
/// [`Ctx::with_reg`]). A helper generic over it serves both:
/// [`remote`](RegHandle::remote) names the registration for `put`, `get` and the rest, and
/// [`local`](RegHandle::local) / [`local_mut`](RegHandle::local_mut) view this process's part.
/// The methods are those of the two types. Sealed.
///
/// ```
/// use bsp_runtime::{Ctx, RegHandle};
///
/// /// Puts this process's first element into element `pid` of every process's registration.
/// fn all_gather_first(ctx: &mut Ctx, x: &mut impl RegHandle<u32>) {
///     let (pid, mine) = (ctx.pid(), x.local(ctx)[0]);
///     for q in 0..ctx.nprocs() {
///         ctx.put(q, &mine, x.remote(), pid);
///     }
///     ctx.sync();
/// }
///
/// let out = bsp_runtime::run(3, |ctx| {
///     let mut owned = ctx.register(vec![10 + ctx.pid() as u32; 3]);
///     all_gather_first(ctx, &mut owned); // a `Reg`
///     let mut in_place = [20 + ctx.pid() as u32; 3];
///     ctx.with_reg(&mut in_place, |ctx, mut r| all_gather_first(ctx, &mut r)); // a `Registered`
///     (owned.local(ctx).to_vec(), in_place)
/// })
/// .unwrap();
/// assert_eq!(out[1], (vec![10, 11, 12], [20, 21, 22]));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a registration's handle",
    label = "expected `Reg<{T}>` or `Registered<{T}>`",
    note = "register memory with `ctx.register(data)`, or in place with `ctx.with_reg(&mut data, ..)`"
)]
pub trait RegHandle<T: Value>: sealed::Sealed {
    /// This registration's name for communication ([`Reg::remote`], [`Registered::remote`]).
    fn remote(&self) -> Remote<'_, T>;

    /// This process's registered elements ([`Reg::local`], [`Registered::local`]).
    ///
    /// # Panics
    /// If the registration belongs to another process or run.
    fn local<'a>(&'a self, ctx: &'a Ctx) -> &'a [T];

    /// This process's registered elements, to modify ([`Reg::local_mut`],
    /// [`Registered::local_mut`]).
    ///
    /// # Panics
    /// As [`local`](RegHandle::local).
    fn local_mut<'a>(&'a mut self, ctx: &'a Ctx) -> &'a mut [T];

    /// The registration's name and this process's elements, to modify, at once
    /// ([`Reg::split_mut`], [`Registered::split_mut`]).
    ///
    /// # Panics
    /// As [`local`](RegHandle::local).
    fn split_mut<'a>(&'a mut self, ctx: &'a Ctx) -> (Remote<'a, T>, &'a mut [T]);

    /// The number of elements this process registered.
    fn len(&self) -> usize;

    /// Whether this process registered no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The registration's number in messages (`registration #n`).
    fn id(&self) -> u64;
}

impl<T: Value> sealed::Sealed for Reg<T> {}
impl<T: Value> RegHandle<T> for Reg<T> {
    fn remote(&self) -> Remote<'_, T> {
        Reg::remote(self)
    }
    #[track_caller]
    fn local<'a>(&'a self, ctx: &'a Ctx) -> &'a [T] {
        Reg::local(self, ctx)
    }
    #[track_caller]
    fn local_mut<'a>(&'a mut self, ctx: &'a Ctx) -> &'a mut [T] {
        Reg::local_mut(self, ctx)
    }
    #[track_caller]
    fn split_mut<'a>(&'a mut self, ctx: &'a Ctx) -> (Remote<'a, T>, &'a mut [T]) {
        Reg::split_mut(self, ctx)
    }
    fn len(&self) -> usize {
        Reg::len(self)
    }
    fn id(&self) -> u64 {
        Reg::id(self)
    }
}

impl<T: Value> sealed::Sealed for Registered<'_, T> {}
impl<T: Value> RegHandle<T> for Registered<'_, T> {
    fn remote(&self) -> Remote<'_, T> {
        Registered::remote(self)
    }
    #[track_caller]
    fn local<'a>(&'a self, ctx: &'a Ctx) -> &'a [T] {
        Registered::local(self, ctx)
    }
    #[track_caller]
    fn local_mut<'a>(&'a mut self, ctx: &'a Ctx) -> &'a mut [T] {
        Registered::local_mut(self, ctx)
    }
    #[track_caller]
    fn split_mut<'a>(&'a mut self, ctx: &'a Ctx) -> (Remote<'a, T>, &'a mut [T]) {
        Registered::split_mut(self, ctx)
    }
    fn len(&self) -> usize {
        Registered::len(self)
    }
    fn id(&self) -> u64 {
        Registered::id(self)
    }
}
