//! The calls a superstep does not have, each saying why: the collectives (each is a superstep of
//! its own), `with_reg` and `with_regs` (their registration changes include syncs) and
//! `put_batch` and `put_batch_with_local` (the batch borrows the context mutably). `Superstep` derefs to `Ctx`, so without
//! these methods rustc would only say that `DerefMut` is not implemented for `Superstep`; with
//! them, a call inside a superstep meets a bound that no type satisfies, whose
//! `#[diagnostic::on_unimplemented]` message names the rule and the fix. (Inside `superstep!`,
//! the macros report these calls themselves; these messages are for code they do not see:
//! helpers given `&Superstep`, closures given to `ctx.superstep` in plain `bsp::run` code.)

use crate::ext::collective::{CollectiveData, Parts};
use crate::{AsRemote, PutBatch, RegSet, Registered, Superstep, Value};

mod sealed {
    /// Implemented by no type.
    pub trait Never {}
}

/// Sealed marker that no type implements: the bound of the collectives on a superstep.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a collective cannot be called inside a superstep: it is a superstep of its own, ending with its own sync",
    label = "a collective inside a superstep",
    note = "call it before the superstep or after it, with the context (`&mut Ctx`): `ctx.superstep(|s| ...); let all = ctx.allreduce_one(x, op);`"
)]
pub trait CollectivesBetweenSupersteps: sealed::Never {}

/// Sealed marker that no type implements: the bound of `with_reg` and `with_regs` on a
/// superstep.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`with_reg` and `with_regs` cannot be called inside a superstep: registering and unregistering include syncs",
    label = "a scoped registration inside a superstep",
    note = "call it with the context (`&mut Ctx`), outside the superstep, and make the supersteps inside its body: `ctx.with_reg(data, |ctx, r| ctx.superstep(|s| ...))`"
)]
pub trait RegistersAroundSupersteps: sealed::Never {}

/// Sealed marker that no type implements: the bound of `put_batch` on a superstep.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`put_batch` cannot be called inside a superstep: a batch borrows the context mutably",
    label = "a batch started inside a superstep",
    note = "fill the batch with the context (`&mut Ctx`) before the superstep (its puts land at the next sync, as those of `put` do), or call `put` for each value inside the superstep"
)]
pub trait BatchesBetweenSupersteps: sealed::Never {}

/// The collectives, with their signatures and `&self`: none can be called.
#[doc(hidden)]
impl<'s, 'env> Superstep<'s, 'env> {
    /// Not callable (the bound holds for no type): a collective is a superstep of its own.
    pub fn broadcast<T: Value>(&self, _root: usize, _data: impl CollectiveData<T>) -> Vec<T>
    where
        Self: CollectivesBetweenSupersteps,
    {
        unreachable!("no type implements `CollectivesBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): a collective is a superstep of its own.
    pub fn broadcast_one<T: Value>(&self, _root: usize, _value: T) -> T
    where
        Self: CollectivesBetweenSupersteps,
    {
        unreachable!("no type implements `CollectivesBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): a collective is a superstep of its own.
    pub fn broadcast_large<T: Value>(&self, _root: usize, _data: impl CollectiveData<T>) -> Vec<T>
    where
        Self: CollectivesBetweenSupersteps,
    {
        unreachable!("no type implements `CollectivesBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): a collective is a superstep of its own.
    pub fn reduce<T: Value>(
        &self,
        _root: usize,
        _data: impl CollectiveData<T>,
        _op: impl Fn(T, T) -> T,
    ) -> Option<Vec<T>>
    where
        Self: CollectivesBetweenSupersteps,
    {
        unreachable!("no type implements `CollectivesBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): a collective is a superstep of its own.
    pub fn allreduce<T: Value>(&self, _data: impl CollectiveData<T>, _op: impl Fn(T, T) -> T) -> Vec<T>
    where
        Self: CollectivesBetweenSupersteps,
    {
        unreachable!("no type implements `CollectivesBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): a collective is a superstep of its own.
    pub fn allreduce_one<T: Value>(&self, _value: T, _op: impl Fn(T, T) -> T) -> T
    where
        Self: CollectivesBetweenSupersteps,
    {
        unreachable!("no type implements `CollectivesBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): a collective is a superstep of its own.
    pub fn scan<T: Value>(&self, _data: impl CollectiveData<T>, _op: impl Fn(T, T) -> T) -> Vec<T>
    where
        Self: CollectivesBetweenSupersteps,
    {
        unreachable!("no type implements `CollectivesBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): a collective is a superstep of its own.
    pub fn scan_one<T: Value>(&self, _value: T, _op: impl Fn(T, T) -> T) -> T
    where
        Self: CollectivesBetweenSupersteps,
    {
        unreachable!("no type implements `CollectivesBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): a collective is a superstep of its own.
    pub fn gather<T: Value>(&self, _root: usize, _data: impl CollectiveData<T>) -> Option<Vec<Vec<T>>>
    where
        Self: CollectivesBetweenSupersteps,
    {
        unreachable!("no type implements `CollectivesBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): a collective is a superstep of its own.
    pub fn gather_into<T: Value>(&self, _root: usize, _data: impl CollectiveData<T>, _out: &mut Parts<T>)
    where
        Self: CollectivesBetweenSupersteps,
    {
        unreachable!("no type implements `CollectivesBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): a collective is a superstep of its own.
    pub fn allgather<T: Value>(&self, _data: impl CollectiveData<T>) -> Vec<Vec<T>>
    where
        Self: CollectivesBetweenSupersteps,
    {
        unreachable!("no type implements `CollectivesBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): a collective is a superstep of its own.
    pub fn allgather_into<T: Value>(&self, _data: impl CollectiveData<T>, _out: &mut Parts<T>)
    where
        Self: CollectivesBetweenSupersteps,
    {
        unreachable!("no type implements `CollectivesBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): a collective is a superstep of its own.
    pub fn scatter<T: Value, P: AsRef<[T]>>(&self, _root: usize, _parts: &[P]) -> Vec<T>
    where
        Self: CollectivesBetweenSupersteps,
    {
        unreachable!("no type implements `CollectivesBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): a collective is a superstep of its own.
    pub fn alltoall<T: Value>(&self, _data: impl CollectiveData<T>) -> Vec<T>
    where
        Self: CollectivesBetweenSupersteps,
    {
        unreachable!("no type implements `CollectivesBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): a collective is a superstep of its own.
    pub fn alltoallv<T: Value, P: AsRef<[T]>>(&self, _parts: &[P]) -> Vec<Vec<T>>
    where
        Self: CollectivesBetweenSupersteps,
    {
        unreachable!("no type implements `CollectivesBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): a collective is a superstep of its own.
    pub fn alltoallv_into<T: Value, P: AsRef<[T]>>(&self, _parts: &[P], _out: &mut Parts<T>)
    where
        Self: CollectivesBetweenSupersteps,
    {
        unreachable!("no type implements `CollectivesBetweenSupersteps`")
    }
}

#[doc(hidden)]
impl<'s, 'env> Superstep<'s, 'env> {
    /// Not callable (the bound holds for no type): registering includes a sync.
    pub fn with_reg<T: Value, R>(
        &self,
        _data: &mut [T],
        _f: impl for<'r> FnOnce(&mut crate::Ctx, Registered<'r, T>) -> R,
    ) -> R
    where
        Self: RegistersAroundSupersteps,
    {
        unreachable!("no type implements `RegistersAroundSupersteps`")
    }

    /// Not callable (the bound holds for no type): registering includes a sync.
    pub fn with_regs<S: RegSet, R>(&self, _data: S, _f: impl for<'r> FnOnce(&mut crate::Ctx, S::Handles<'r>) -> R) -> R
    where
        Self: RegistersAroundSupersteps,
    {
        unreachable!("no type implements `RegistersAroundSupersteps`")
    }

    /// Not callable (the bound holds for no type): a batch borrows the context mutably.
    pub fn put_batch<T: Value>(&self, _dst: impl AsRemote<T>) -> PutBatch<'_, T>
    where
        Self: BatchesBetweenSupersteps,
    {
        unreachable!("no type implements `BatchesBetweenSupersteps`")
    }

    /// Not callable (the bound holds for no type): a batch borrows the context mutably.
    pub fn put_batch_with_local<'a, T: Value, H: crate::RegHandle<T>>(
        &'a self,
        _reg: &'a mut H,
    ) -> (PutBatch<'a, T>, &'a mut [T])
    where
        Self: BatchesBetweenSupersteps,
    {
        unreachable!("no type implements `BatchesBetweenSupersteps`")
    }
}
