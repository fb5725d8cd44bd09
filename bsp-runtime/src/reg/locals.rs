//! Several registrations' local parts at once: `ctx.locals((&mut a, &b))`.
//!
//! `reg.local(ctx)` and `reg.local_mut(ctx)` each borrow the context, so code that reads one
//! registration while it writes another takes the views one by one, or in separate scopes.
//! [`Ctx::locals`] takes a tuple of handles and returns the tuple of views in one call: `&Reg<T>`
//! gives `&[T]`, `&mut Reg<T>` gives `&mut [T]`, and the same for a scoped
//! [`Registered`]. The views live until the next use of the context that needs it mutably (a
//! sync, a collective), exactly as a single `local` view does.

use crate::{Ctx, Reg, Registered, Value};

mod sealed {
    pub trait Sealed {}
}

/// A registration handle whose local part [`Ctx::locals`] can lend: `&Reg<T>`, `&mut Reg<T>`,
/// `&Registered<T>` or `&mut Registered<T>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a registration handle whose local part `locals` can lend",
    label = "expected `&Reg<T>`, `&mut Reg<T>`, `&Registered<T>` or `&mut Registered<T>`"
)]
pub trait LocalPart<'a>: sealed::Sealed {
    /// `&'a [T]` for a shared handle, `&'a mut [T]` for a mutable one.
    type View;

    #[doc(hidden)]
    fn view(self, ctx: &'a Ctx) -> Self::View;
}

impl<T: Value> sealed::Sealed for &Reg<T> {}
impl<'a, T: Value> LocalPart<'a> for &'a Reg<T> {
    type View = &'a [T];

    #[track_caller]
    fn view(self, ctx: &'a Ctx) -> &'a [T] {
        self.local(ctx)
    }
}

impl<T: Value> sealed::Sealed for &mut Reg<T> {}
impl<'a, T: Value> LocalPart<'a> for &'a mut Reg<T> {
    type View = &'a mut [T];

    #[track_caller]
    fn view(self, ctx: &'a Ctx) -> &'a mut [T] {
        self.local_mut(ctx)
    }
}

impl<T: Value> sealed::Sealed for &Registered<'_, T> {}
impl<'a, T: Value> LocalPart<'a> for &'a Registered<'_, T> {
    type View = &'a [T];

    #[track_caller]
    fn view(self, ctx: &'a Ctx) -> &'a [T] {
        self.local(ctx)
    }
}

impl<T: Value> sealed::Sealed for &mut Registered<'_, T> {}
impl<'a, T: Value> LocalPart<'a> for &'a mut Registered<'_, T> {
    type View = &'a mut [T];

    #[track_caller]
    fn view(self, ctx: &'a Ctx) -> &'a mut [T] {
        self.local_mut(ctx)
    }
}

/// A tuple of 1 to 6 [`LocalPart`]s, for [`Ctx::locals`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tuple of registration handles",
    label = "expected a tuple such as `(&mut a, &b)` of `&Reg<T>`, `&mut Reg<T>`, `&Registered<T>` or `&mut Registered<T>`",
    note = "for one registration, `x.local(ctx)` or `x.local_mut(ctx)`; for one in a tuple, `(&mut x,)`"
)]
pub trait LocalParts<'a>: sealed::Sealed {
    /// The tuple of views, in the same order.
    type Views;

    #[doc(hidden)]
    fn views(self, ctx: &'a Ctx) -> Self::Views;
}

macro_rules! tuples {
    ($(($($h:ident),+))*) => {$(
        impl<$($h: sealed::Sealed),+> sealed::Sealed for ($($h,)+) {}
        impl<'a, $($h: LocalPart<'a>),+> LocalParts<'a> for ($($h,)+) {
            type Views = ($($h::View,)+);

            #[track_caller]
            #[allow(non_snake_case, reason = "the type parameters name the tuple's fields")]
            fn views(self, ctx: &'a Ctx) -> Self::Views {
                let ($($h,)+) = self;
                ($($h.view(ctx),)+)
            }
        }
    )*};
}

tuples! {
    (A)
    (A, B)
    (A, B, C)
    (A, B, C, D)
    (A, B, C, D, E)
    (A, B, C, D, E, F)
}

impl Ctx {
    /// The local parts of several registrations at once: `&Reg<T>` (or `&Registered<T>`) gives
    /// `&[T]`, `&mut Reg<T>` (or `&mut Registered<T>`) gives `&mut [T]`, in a tuple in the same
    /// order.
    ///
    /// One call replaces a `local`/`local_mut` per registration, and the views can be used side
    /// by side: read one registration while writing another. They borrow the context, so they
    /// end before the next sync or collective, as a single `local` view does. Each handle is
    /// borrowed as written, so the same registration cannot be lent twice if one of the loans is
    /// `&mut`: the borrow checker says so.
    ///
    /// ```
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let (mut sum, x, y) = ctx.register((vec![0.0f64; 3], vec![ctx.pid() as f64 + 1.0; 3], vec![10.0f64; 3]));
    ///     let (sum_v, x_v, y_v) = ctx.locals((&mut sum, &x, &y));
    ///     for ((s, a), b) in sum_v.iter_mut().zip(x_v).zip(y_v) {
    ///         *s = a + b;
    ///     }
    ///     sum.local(ctx).to_vec()
    /// })
    /// .unwrap();
    /// assert_eq!(out, [vec![11.0; 3], vec![12.0; 3]]);
    /// ```
    ///
    /// Scoped registrations work the same way:
    ///
    /// ```
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let (mut a, mut b) = ([1u32, 2], [0u32; 2]);
    ///     ctx.with_regs((&mut a[..], &mut b[..]), |ctx, (a, mut b)| {
    ///         let (a, b) = ctx.locals((&a, &mut b));
    ///         b.copy_from_slice(a);
    ///     });
    ///     b
    /// })
    /// .unwrap();
    /// assert_eq!(out, [[1, 2], [1, 2]]);
    /// ```
    ///
    /// # Panics
    /// As [`Reg::local`]: if a registration belongs to another process or run.
    #[track_caller]
    pub fn locals<'a, L: LocalParts<'a>>(&'a self, regs: L) -> L::Views {
        regs.views(self)
    }
}
