//! What a collective reads: a slice, an array, a vector, or the local part of a registration.
//!
//! A registration's local part is reached through the context (`x.local(ctx)`), so
//! `ctx.allreduce(x.local(ctx), op)` cannot compile: the argument borrows `ctx`, which the
//! collective needs mutably to sync (E0502). The collectives therefore take the registration
//! itself, `ctx.allreduce(&x, op)`, and read its local part inside, at the call.

use std::borrow::Cow;

use crate::{Ctx, Reg, Registered, Value};

mod sealed {
    pub trait Sealed {}
}

/// The data argument of a collective: `&[T]`, `&[T; N]`, `&Vec<T>`, or a registration
/// (`&Reg<T>`, `&Registered<T>`, or their `&mut` forms) whose local part this process
/// contributes.
///
/// The data is read at the call, like a `put`'s source: a registration's local part is copied
/// before the collective's sync, so puts that land in it at that same sync do not change what
/// this process contributes. Slices, arrays and vectors are not copied.
///
/// This trait is sealed: the types above are all there is.
///
/// ```
/// use bsp_runtime::ops;
///
/// let out = bsp_runtime::run(3, |ctx| {
///     let x = ctx.register(vec![ctx.pid() as u64; 2]);
///     let sums = ctx.allreduce(&x, ops::sum); // the local part of `x`, no `x.local(ctx)`
///     let all = ctx.allgather(&x);
///     (sums, all.concat().len())
/// })
/// .unwrap();
/// assert_eq!(out, vec![(vec![3, 3], 6); 3]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not data a collective can read as `[{T}]`",
    label = "expected `&[{T}]`, `&[{T}; N]`, `&Vec<{T}>`, `&Reg<{T}>` or `&Registered<{T}>`",
    note = "to contribute a registration's local part, pass the registration itself (`&x`), not `x.local(ctx)`"
)]
pub trait CollectiveData<T: Value>: sealed::Sealed {
    /// This process's elements, read at the call (`op` names the collective in messages).
    #[doc(hidden)]
    fn read<'a>(self, ctx: &Ctx, op: &str) -> Cow<'a, [T]>
    where
        Self: 'a;
}

impl<T: Value> sealed::Sealed for &[T] {}
impl<T: Value> CollectiveData<T> for &[T] {
    fn read<'a>(self, _: &Ctx, _: &str) -> Cow<'a, [T]>
    where
        Self: 'a,
    {
        Cow::Borrowed(self)
    }
}

impl<T: Value, const N: usize> sealed::Sealed for &[T; N] {}
impl<T: Value, const N: usize> CollectiveData<T> for &[T; N] {
    fn read<'a>(self, _: &Ctx, _: &str) -> Cow<'a, [T]>
    where
        Self: 'a,
    {
        Cow::Borrowed(self)
    }
}

impl<T: Value> sealed::Sealed for &Vec<T> {}
impl<T: Value> CollectiveData<T> for &Vec<T> {
    fn read<'a>(self, _: &Ctx, _: &str) -> Cow<'a, [T]>
    where
        Self: 'a,
    {
        Cow::Borrowed(self)
    }
}

impl<T: Value> sealed::Sealed for &Reg<T> {}
impl<T: Value> CollectiveData<T> for &Reg<T> {
    #[track_caller]
    fn read<'a>(self, ctx: &Ctx, op: &str) -> Cow<'a, [T]>
    where
        Self: 'a,
    {
        ctx.check_owner(op, self.run_id, self.pid, self.serial);
        Cow::Owned(self.local(ctx).to_vec())
    }
}

impl<T: Value> sealed::Sealed for &Registered<'_, T> {}
impl<T: Value> CollectiveData<T> for &Registered<'_, T> {
    #[track_caller]
    fn read<'a>(self, ctx: &Ctx, op: &str) -> Cow<'a, [T]>
    where
        Self: 'a,
    {
        ctx.check_owner(op, self.run_id, self.pid, self.serial);
        Cow::Owned(self.local(ctx).to_vec())
    }
}

impl<T: Value> sealed::Sealed for &mut Reg<T> {}
impl<T: Value> CollectiveData<T> for &mut Reg<T> {
    #[track_caller]
    fn read<'a>(self, ctx: &Ctx, op: &str) -> Cow<'a, [T]>
    where
        Self: 'a,
    {
        (&*self).read(ctx, op)
    }
}

impl<T: Value> sealed::Sealed for &mut Registered<'_, T> {}
impl<T: Value> CollectiveData<T> for &mut Registered<'_, T> {
    #[track_caller]
    fn read<'a>(self, ctx: &Ctx, op: &str) -> Cow<'a, [T]>
    where
        Self: 'a,
    {
        (&*self).read(ctx, op)
    }
}
