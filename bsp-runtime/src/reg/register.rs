//! `register` and `unregister`: registrations whose state is carried by the types.
//!
//! In BSPlib a registration pushed by `bsp_push_reg` takes effect at the next `bsp_sync`, and one
//! popped by `bsp_pop_reg` stays usable until the next `bsp_sync`: between the call and the sync
//! the handle exists but must not be used (D4), or must not be used any more after it (D6). A
//! run-time check can only report such a use; here the transitions happen inside the calls that
//! sync, so the handle the program holds is always effective:
//!
//! - [`Ctx::register`] pushes and syncs, and only then returns the [`Reg`] (or a tuple of them,
//!   pushed together and made effective by the same sync; or, with [`Ctx::register_each`], a
//!   `Vec` of them). No handle exists before its registration is in force, whatever path it
//!   takes afterwards: an alias, a field, a helper, a closure, a `Vec`.
//! - [`Ctx::unregister`] takes the handle (or a tuple of them) by value, pops and syncs, and gives
//!   the data back. Its [`Remote`](crate::Remote) names borrow it, so none survives the call.
//!
//! Both take `&mut Ctx`, like [`Ctx::sync`]: they cannot be called inside a superstep closure,
//! nor by a helper that was given only `&Ctx`. Mismatches between processes (different numbers,
//! element types or order of registrations) are still found at the sync, by every process.
//!
//! The calls `push_reg` and `pop_reg` exist only so that BSPlib code ported as is gets a message
//! pointing here: no type satisfies their bounds.

use crate::{Ctx, Reg, Value};

/// Data that [`Ctx::register`] turns into one registration: `Vec<T>`, `[T; N]`, `&[T]`,
/// `&[T; N]` or `Box<[T]>` of a plain-old-data `T` (the data is moved or copied into memory the
/// runtime owns). Sealed.
///
/// ```
/// bsp_runtime::run(2, |ctx| {
///     let v = vec![1u8, 2];
///     let (a, b, c, d) = ctx.register((v, [0u16; 3], &[0u32; 4][..], Box::from([0u64; 5])));
///     assert_eq!((a.len(), b.len(), c.len(), d.len()), (2, 3, 4, 5));
/// })
/// .unwrap();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be registered",
    label = "expected `Vec<T>`, `[T; N]`, `&[T]` or `Box<[T]>` of a plain-old-data `T`",
    note = "`register` copies or moves the data into memory the runtime owns; to register memory in place, use `with_reg`"
)]
pub trait RegValues: sealed::Sealed {
    /// The element type.
    type Elem: Value;
    /// The elements, in memory that can be handed to the runtime.
    #[doc(hidden)]
    fn into_elems(self) -> Vec<Self::Elem>;
}

impl<T: Value> sealed::Sealed for Vec<T> {}
impl<T: Value> RegValues for Vec<T> {
    type Elem = T;
    fn into_elems(self) -> Vec<T> {
        self
    }
}
impl<T: Value, const N: usize> sealed::Sealed for [T; N] {}
impl<T: Value, const N: usize> RegValues for [T; N] {
    type Elem = T;
    fn into_elems(self) -> Vec<T> {
        self.into()
    }
}
impl<T: Value> sealed::Sealed for &[T] {}
impl<T: Value> RegValues for &[T] {
    type Elem = T;
    fn into_elems(self) -> Vec<T> {
        self.to_vec()
    }
}
impl<T: Value, const N: usize> sealed::Sealed for &[T; N] {}
impl<T: Value, const N: usize> RegValues for &[T; N] {
    type Elem = T;
    fn into_elems(self) -> Vec<T> {
        self.to_vec()
    }
}
impl<T: Value> sealed::Sealed for Box<[T]> {}
impl<T: Value> RegValues for Box<[T]> {
    type Elem = T;
    fn into_elems(self) -> Vec<T> {
        self.into_vec()
    }
}

/// What [`Ctx::register`] accepts: one [`RegValues`] (giving a [`Reg`]) or a tuple of 2 to 12
/// registrations, each of which may be a tuple itself (giving the same shape of `Reg`s, all
/// registered by one sync): any number of pieces, `((a, b, c, d, e, f, g, h, i, j, k, l), m)`.
/// Sealed.
///
/// ```
/// bsp_runtime::run(2, |ctx| {
///     // Seven arrays (the registrations of an LU decomposition, say) in one sync.
///     let (a, pi, (u, v, w), (x, y)) =
///         ctx.register((vec![0.0f64; 9], [0u64; 3], ([0u8; 1], [0u8; 2], [0u8; 3]), ([0i32; 4], [0i32; 5])));
///     assert_eq!((a.len(), pi.len(), u.len() + v.len() + w.len(), x.len() + y.len()), (9, 3, 6, 9));
///     let ((a, _), ..) = ctx.unregister(((a, pi), (u, v, w), (x, y)));
///     assert_eq!(a.len(), 9);
/// })
/// .unwrap();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be registered",
    label = "expected `Vec<T>`, `[T; N]`, `&[T]` or `Box<[T]>` of a plain-old-data `T`, or a tuple of 2 to 12 of them",
    note = "several pieces are registered with one sync as a tuple, `ctx.register((a, b))` (nest tuples for more than 12: `((a, .., l), m)`), or as a `Vec` with `ctx.register_each(..)`"
)]
pub trait Registration: sealed::Sealed {
    /// The handles: a [`Reg`], or a tuple of them.
    type Regs;
    /// Pushes every piece, in tuple order.
    #[doc(hidden)]
    fn push(self, ctx: &Ctx) -> Self::Regs;
}

// Not recommended in messages: for a type that is neither (a tuple of 7, say), rustc then names
// `Registration` and its message, not the bound `RegValues` of this impl.
#[diagnostic::do_not_recommend]
impl<D: RegValues> Registration for D {
    type Regs = Reg<D::Elem>;
    fn push(self, ctx: &Ctx) -> Reg<D::Elem> {
        ctx.push_owned(self.into_elems())
    }
}

/// What [`Ctx::unregister`] accepts: a [`Reg`] (giving its data back as a `Vec`) or a tuple of 2
/// to 12 of them, each of which may be a tuple itself (giving the same shape of data,
/// deregistered by one sync). Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a registration that can be unregistered",
    label = "expected `Reg<T>` or a tuple of them, by value",
    note = "`unregister` takes the handle by value: after it no copy or borrow of the handle is left to use"
)]
pub trait Unregistration: sealed::Sealed {
    /// The data given back: a `Vec<T>`, or a tuple of them.
    type Data;
    /// Pops every registration, in tuple order (before the sync).
    #[doc(hidden)]
    fn pop(&self, ctx: &Ctx);
    /// Takes the data back (after the sync).
    #[doc(hidden)]
    fn take(self, ctx: &Ctx) -> Self::Data;
}

impl<T: Value> sealed::Sealed for Reg<T> {}
impl<T: Value> Unregistration for Reg<T> {
    type Data = Vec<T>;
    fn pop(&self, ctx: &Ctx) {
        ctx.pop_owned(self);
    }
    fn take(self, ctx: &Ctx) -> Vec<T> {
        self.into_vec(ctx)
    }
}

mod sealed {
    /// Implemented only by the types of this module.
    pub trait Sealed {}
}

// Tuples of 2 to 12 registrations, each of which may itself be a tuple: nesting registers any
// number of pieces with one sync, `((a, b, c, d, e, f, g, h, i, j, k, l), m)`.
macro_rules! tuples {
    ($($d:ident),+) => {
        impl<$($d),+> sealed::Sealed for ($($d,)+) {}
        impl<$($d: Registration),+> Registration for ($($d,)+) {
            type Regs = ($($d::Regs,)+);
            #[allow(non_snake_case, reason = "the type parameters name the tuple's fields")]
            fn push(self, ctx: &Ctx) -> Self::Regs {
                let ($($d,)+) = self;
                ($($d.push(ctx),)+)
            }
        }
        impl<$($d: Unregistration),+> Unregistration for ($($d,)+) {
            type Data = ($($d::Data,)+);
            #[allow(non_snake_case, reason = "the type parameters name the tuple's fields")]
            fn pop(&self, ctx: &Ctx) {
                let ($($d,)+) = self;
                $($d.pop(ctx);)+
            }
            #[allow(non_snake_case, reason = "the type parameters name the tuple's fields")]
            fn take(self, ctx: &Ctx) -> Self::Data {
                let ($($d,)+) = self;
                ($($d.take(ctx),)+)
            }
        }
    };
}
tuples!(A, B);
tuples!(A, B, C);
tuples!(A, B, C, D);
tuples!(A, B, C, D, E);
tuples!(A, B, C, D, E, F);
tuples!(A, B, C, D, E, F, G);
tuples!(A, B, C, D, E, F, G, H);
tuples!(A, B, C, D, E, F, G, H, I);
tuples!(A, B, C, D, E, F, G, H, I, J);
tuples!(A, B, C, D, E, F, G, H, I, J, K);
tuples!(A, B, C, D, E, F, G, H, I, J, K, L);

impl Ctx {
    /// Registers `data` for remote access and syncs (`bsp_push_reg` followed by `bsp_sync`);
    /// collective. Returns the handle, effective at once.
    ///
    /// `data` is one piece (`Vec<T>`, `[T; N]`, `&[T]`, `&[T; N]`, `Box<[T]>`), giving a
    /// [`Reg<T>`], or a tuple of 2 to 12 pieces (or of tuples of them, to any depth), giving the
    /// same shape of handles: all are pushed in order and made effective by the one sync, the usual BSPlib shape of several
    /// `bsp_push_reg` before one `bsp_sync`. Lengths may differ per process (a process that only
    /// reads or writes others' parts may register nothing: `Vec::new()`).
    ///
    /// **This is a sync**: it ends the superstep in progress, and the communication queued in it
    /// completes here, exactly as at [`sync`](Ctx::sync). Every process must register at the same
    /// point, the same number of pieces with the same element types in the same order. Because
    /// the handle exists only after the sync, no registration can be used before it is in force
    /// (D4), in any way the program passes the handle around.
    ///
    /// The element type must have a size: registering a zero-sized type such as `()` is a
    /// compile error (see `value.rs`).
    ///
    /// ```
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let other = 1 - ctx.pid();
    ///     // bsp_push_reg(ctx, a); bsp_push_reg(ctx, b); bsp_sync(ctx);
    ///     let (a, b) = ctx.register((vec![0u32; 2], [0.0f64]));
    ///     ctx.put(other, &[7, 8], &a, 0);
    ///     ctx.put(other, &0.5, &b, 0);
    ///     ctx.sync();
    ///     (a.local(ctx).to_vec(), *b.value(ctx))
    /// })
    /// .unwrap();
    /// assert_eq!(out[0], (vec![7, 8], 0.5));
    /// ```
    ///
    /// # Panics
    /// On every process, at the sync, if the processes registered different numbers of pieces or
    /// different element types; otherwise as [`sync`](Ctx::sync).
    #[track_caller]
    pub fn register<D: Registration>(&mut self, data: D) -> D::Regs {
        self.check_live("register");
        let regs = data.push(self);
        self.sync_for(crate::ctx::Wait::Registration);
        regs
    }

    /// Registers every piece of `data` and syncs once; collective. As
    /// [`register`](Ctx::register) with a tuple, for a number of pieces known only at run time
    /// (every process must register the same number).
    ///
    /// ```
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let rows = ctx.register_each((0..3).map(|i| vec![i as u8; 2]));
    ///     ctx.put(1 - ctx.pid(), &9, &rows[2], 1);
    ///     ctx.sync();
    ///     rows.iter().map(|r| r.local(ctx).to_vec()).collect::<Vec<_>>()
    /// })
    /// .unwrap();
    /// assert_eq!(out[0], vec![vec![0, 0], vec![1, 1], vec![2, 9]]);
    /// ```
    ///
    /// # Panics
    /// As [`register`](Ctx::register).
    #[track_caller]
    pub fn register_each<D: RegValues>(&mut self, data: impl IntoIterator<Item = D>) -> Vec<Reg<D::Elem>> {
        self.check_live("register_each");
        let regs = data.into_iter().map(|d| self.push_owned(d.into_elems())).collect();
        self.sync_for(crate::ctx::Wait::Registration);
        regs
    }

    /// Deregisters `regs` and syncs (`bsp_pop_reg` followed by `bsp_sync`); collective. Returns
    /// the data: a `Vec<T>` for a [`Reg<T>`], or a tuple of them for a tuple of handles (popped
    /// in tuple order, by one sync).
    ///
    /// **This is a sync**: communication queued before it in the superstep, including puts into
    /// and gets from `regs`, completes here, as at [`sync`](Ctx::sync). The handle is taken by
    /// value, and [`Remote`](crate::Remote) names borrow it, so nothing can name the registration
    /// after this call. This is stricter than BSPlib, where a popped registration stays usable
    /// until the next sync (D6): here, queue the superstep's communication first, then
    /// unregister (D27). A get on the registration needs its superstep's own sync first.
    ///
    /// ```
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let x = ctx.register([0u16; 2]);
    ///     ctx.put(1 - ctx.pid(), &5, &x, 1); // completes at the sync of `unregister`
    ///     ctx.unregister(x)
    /// })
    /// .unwrap();
    /// assert_eq!(out, vec![vec![0, 5], vec![0, 5]]);
    /// ```
    ///
    /// # Panics
    /// On every process, at the sync, if the processes popped different registrations;
    /// otherwise as [`sync`](Ctx::sync).
    #[track_caller]
    pub fn unregister<R: Unregistration>(&mut self, regs: R) -> R::Data {
        self.check_live("unregister");
        regs.pop(self);
        self.sync_for(crate::ctx::Wait::Registration);
        regs.take(self)
    }

    /// Deregisters every handle of `regs` and syncs once; collective. As
    /// [`unregister`](Ctx::unregister), for handles kept in a `Vec` (for example those of
    /// [`register_each`](Ctx::register_each)).
    ///
    /// ```
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let rows = ctx.register_each([[1u8], [2u8]]);
    ///     ctx.unregister_each(rows)
    /// })
    /// .unwrap();
    /// assert_eq!(out[1], vec![vec![1], vec![2]]);
    /// ```
    ///
    /// # Panics
    /// As [`unregister`](Ctx::unregister).
    #[track_caller]
    pub fn unregister_each<T: Value>(&mut self, regs: Vec<Reg<T>>) -> Vec<Vec<T>> {
        self.check_live("unregister_each");
        for reg in &regs {
            self.pop_owned(reg);
        }
        self.sync_for(crate::ctx::Wait::Registration);
        regs.into_iter().map(|reg| reg.into_vec(self)).collect()
    }
}

/// The bound of the uncallable `push_reg`: implemented by no type, so that BSPlib code ported as
/// is gets this message.
#[diagnostic::on_unimplemented(
    message = "there is no `push_reg` in bsp: register with `ctx.register(data)`, which pushes and syncs",
    label = "`push_reg` is not available",
    note = "a registration is usable only after the sync that makes it effective, so `register` includes that sync and returns the handle after it: `let r = ctx.register(data);` replaces `let r = ctx.push_reg(data); ctx.sync();`",
    note = "to register several pieces with one sync, pass a tuple: `let (a, b) = ctx.register((a, b));`"
)]
pub trait UseRegister {}

/// The bound of the uncallable `pop_reg`: implemented by no type.
#[diagnostic::on_unimplemented(
    message = "there is no `pop_reg` in bsp: deregister with `ctx.unregister(reg)`, which pops and syncs",
    label = "`pop_reg` is not available",
    note = "`unregister` takes the handle by value and gives the data back after the sync, so the registration cannot be used after it; queue the superstep's communication before it"
)]
pub trait UseUnregister {}

#[doc(hidden)]
impl Ctx {
    /// Not callable (the bound holds for no type): see [`Ctx::register`].
    pub fn push_reg<T: Value>(&self, _data: impl Into<Vec<T>> + UseRegister) -> Reg<T> {
        unreachable!("no type implements `UseRegister`")
    }

    /// Not callable (the bound holds for no type): see [`Ctx::unregister`].
    pub fn pop_reg<R: UseUnregister>(&self, _reg: R) {
        unreachable!("no type implements `UseUnregister`")
    }
}
