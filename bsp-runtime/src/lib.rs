//! The runtime of [`bsplib`](https://docs.rs/bsplib): bulk-synchronous parallel programming in the
//! style of BSPlib, typed and checked by the compiler.
//!
//! # The model
//! An SPMD program runs the same function on `p` processes, each with its own memory and a pid
//! in `0..p`. Time is divided into *supersteps*. Inside a superstep each process computes on
//! its own data and *queues* communication: DRMA (`put`, `get` and their unbuffered `hp`
//! variants, on registered variables) and BSMP (tagged messages). [`Ctx::sync`] ends the
//! superstep for everyone: it waits for every process, then completes all the queued
//! communication at once, in a fixed order (§1 of the semantics, `bsp::docs::semantics` in the
//! [docs of `bsplib`](https://docs.rs/bsplib/latest/bsp/docs/semantics/index.html)):
//!
//! 1. get sources are read, as they were at the end of the superstep;
//! 2. get results are written, then puts (so a put wins over a get on the same bytes);
//! 3. messages sent in the superstep become the receive queue of the next;
//! 4. registration changes take effect.
//!
//! ```
//! // Every process learns the pid of its left neighbour.
//! let left = bsp_runtime::run(4, |ctx| {
//!     let (pid, p) = (ctx.pid(), ctx.nprocs());
//!     let x = ctx.register([pid as u32]); // collective, and a sync: effective at once
//!     let mut result = 0;
//!     ctx.superstep(|s| {
//!         s.get((pid + p - 1) % p, &x, 0, &mut result); // lands at the end of this superstep
//!     });
//!     result
//! })
//! .unwrap();
//! assert_eq!(left, vec![3, 0, 1, 2]);
//! ```
//!
//! # Soundness by construction
//! Safe code cannot race with communication. The rules, and what enforces each:
//!
//! - **Registered memory is owned by the runtime.** [`Reg<T>`] is a handle; its local elements
//!   are reached through [`Reg::local`] / [`Reg::local_mut`], which borrow the process's
//!   [`Ctx`]. [`Ctx::sync`] takes `&mut Ctx`, so no such borrow is alive during a sync, which is
//!   the only time other processes read this memory or the runtime writes into it.
//! - **A pending get's destination cannot be touched before the sync.** `get` and `hpget` exist
//!   only on [`Superstep`], which [`Ctx::superstep`] hands to a closure and syncs after it
//!   returns, like `std::thread::scope` joins. The destination is borrowed mutably for the
//!   scope's (higher-ranked) lifetime, so reading or writing it inside the superstep is a borrow
//!   error, and the borrow cannot be leaked out of the closure.
//! - **An hpput source cannot change before the sync**: it is borrowed immutably for the same
//!   scope lifetime.
//! - **A registration is named only while it is in force.** [`Ctx::register`] includes the sync
//!   that makes a registration effective and only then returns the [`Reg`];
//!   [`Ctx::unregister`] takes the handle by value and includes the sync that ends it; a
//!   [`Remote`] name borrows the handle. Both need `&mut Ctx`, so they cannot run inside a
//!   superstep. Using a registration too early or too late therefore does not compile, however
//!   the handle is passed around.
//! - **hpmove references do not outlive their superstep**: [`Ctx::hpmove`] returns references
//!   tied to `&Ctx`, and the sync needs `&mut Ctx`.
//! - **Nothing rests on `Drop`.** No handle the user holds has a destructor that soundness needs:
//!   `mem::forget` of a `Reg`, of the closure's captures or of anything else opens no hole. The
//!   sync at the end of a superstep is run by `Ctx::superstep` itself; if the closure unwinds,
//!   the process is marked broken and never syncs again, so the addresses it queued are never
//!   used.
//! - **The runtime never writes memory that someone else may be reading.** Get destinations that
//!   lie in registered memory are staged and written after the barrier that ends the get phase,
//!   and so are the results of GP reads; hpput sources in registered memory are copied at the
//!   call; GP elements can be borrowed mutably only with `&mut Ctx`, so never as a get
//!   destination. The protocol is written down in
//!   `sync.rs` and `engine/threads/mod.rs`; every `unsafe` block states its part of it.
//!
//! # Errors
//! Misuse is reported at the call, in that process, with the pid, operation, registration,
//! offset, length and extent; collective mismatches are found at the sync by every process and
//! name the superstep. Either way every process stops promptly and the launcher returns the first
//! [`Error`]. Nothing hangs.

mod bsmp;
mod ctx;
mod drma;
mod engine;
mod env;
mod error;
mod ext;
mod launch;
mod observe;
mod reg;
mod same;
mod superstep;
mod superstep_misuse;
mod sync;
mod value;

pub use ctx::Ctx;
pub use drma::batch::PutBatch;
pub use drma::combine::Combiner;
pub use drma::dest::{Dest, DestPart, GetDest};
pub use error::{Error, ErrorKind};
pub use ext::collective::{self, ops, Grid, Team};
pub use ext::gp;
pub use launch::{exit_on_error, run, Launch, NPROCS_VAR, THREADS_VAR};
pub use observe::stats;
pub use reg::handle::RegHandle;
pub use reg::locals::{LocalPart, LocalParts};
pub use reg::register::{RegValues, Registration, Unregistration};
#[doc(hidden)]
pub use reg::register::{UseRegister, UseUnregister};
pub use reg::scoped::{RegData, RegSet, Registered};
pub use reg::{AsRemote, Reg, Remote};
pub use superstep::{OnlyInsideASuperstep, Superstep};
pub use value::{Elems, ElemsMut, Value};

/// The plain-old-data traits (and, with its derive, `#[derive(Pod, Zeroable)]`) that [`Value`]
/// builds on, re-exported so that a program needs no dependency of its own on a matching
/// version. With the derive through this path, tell it where the crate is:
///
/// ```
/// use bsp_runtime::bytemuck;
///
/// #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
/// #[bytemuck(crate = "bsp_runtime::bytemuck")]
/// #[repr(C)]
/// struct Particle {
///     x: f64,
///     v: f64,
/// }
///
/// let out = bsp_runtime::run(2, |ctx| {
///     let p = ctx.register([Particle { x: ctx.pid() as f64, v: 0.5 }]);
///     let mut other = Particle { x: 0.0, v: 0.0 };
///     ctx.superstep(|s| s.get(1 - s.pid(), &p, 0, &mut other));
///     other.x + other.v
/// })
/// .unwrap();
/// assert_eq!(out, [1.5, 0.5]);
/// ```
pub use bytemuck;

/// Items the macros of `bsp-macros` expand to. Not a public API: no stability promise.
#[doc(hidden)]
pub mod __private {
    pub use crate::{exit_on_error, Ctx, Error, Launch, Superstep};
}
