//! The runtime of [`bsplib`](https://docs.rs/bsplib): bulk-synchronous parallel programming in the
//! style of BSPlib, typed and checked by the compiler.
//!
//! # Contents
//! **Running a program.** [`run`] starts `p` processes and returns each one's result;
//! [`Launch`] sets the count, the engine's threads per rank and the statistics; [`Error`] (with
//! [`ErrorKind`]) is the first failure of a run, [`exit_on_error`] prints it and exits.
//! [`NPROCS_VAR`] and [`THREADS_VAR`] name the environment variables a launch reads, and
//! [`MAX_LOCAL_PROCS`] is the most processes one OS process runs.
//!
//! **A process.** [`Ctx`] is one process: [`pid`](Ctx::pid), [`nprocs`](Ctx::nprocs),
//! [`time`](Ctx::time), [`step`](Ctx::step), [`abort`](Ctx::abort), and every primitive below.
//! [`Ctx::sync`] ends a superstep; [`Ctx::superstep`] runs one in a closure and hands it a
//! [`Superstep`], where the calls that borrow until the sync live. [`Ctx::same`] states that a
//! value is the same on every process.
//!
//! **Registration.** [`Ctx::register`] / [`Ctx::unregister`] (and their `_each` forms) give and
//! take back a [`Reg<T>`], memory the runtime owns; [`Reg::local`] and [`Reg::local_mut`] reach
//! this process's part, [`Ctx::locals`] several at once ([`LocalPart`], [`LocalParts`]).
//! [`Ctx::with_reg`] and [`Ctx::with_regs`] register memory the caller owns for the length of a
//! closure ([`Registered`], [`RegData`], [`RegSet`]). [`Remote`] and [`AsRemote`] name a
//! registration for remote access, [`RegHandle`] is what a `Reg` and a `Registered` share.
//! The traits [`RegValues`], [`Registration`] and [`Unregistration`] say what may be registered
//! in one call. (BSPlib's `push_reg` and `pop_reg` exist only to say, in a compile error, that
//! `register` and `unregister` replace them, syncs included.)
//!
//! **DRMA.** [`Ctx::put`] copies at the call; [`Superstep::get`], [`Superstep::hpget`] and
//! [`Superstep::hpput`] borrow until the sync. [`Superstep::dest`] lends one buffer to many gets
//! ([`Dest`], [`DestPart`], [`GetDest`]). [`Ctx::put_batch`] ([`PutBatch`]) checks many puts into
//! one registration once, [`Superstep::get_batch`] ([`GetBatch`]) many one-element gets from
//! one; [`Ctx::combiner`] and [`Ctx::put_combine`] ([`Combiner`]) make puts that combine instead
//! of overwriting.
//!
//! **BSMP.** [`Ctx::set_tagsize`], [`Ctx::send`], [`Ctx::qsize`], [`Ctx::get_tag`],
//! [`Ctx::move_message`] and [`Ctx::hpmove`]: tagged messages, received in the next superstep.
//!
//! **Collectives** ([`collective`]). [`Ctx::broadcast`], [`Ctx::reduce`], [`Ctx::allreduce`],
//! [`Ctx::scan`], [`Ctx::gather`], [`Ctx::allgather`], [`Ctx::scatter`], [`Ctx::alltoall`],
//! [`Ctx::alltoallv`] and their `_into` forms ([`collective::Parts`]), with the operators of
//! [`ops`]; the same on a subset of the processes ([`Team`]) and on the rows and columns of a
//! 2-D grid ([`Grid`]).
//!
//! **Global pointer arrays** ([`gp`]). [`gp::GpArray`], built by [`gp::GpBuilder`] and split as
//! [`gp::Distribution`] says: arrays of variable-length elements with one-sided get, put,
//! gather and scatter; reads arrive in a [`gp::GpBuf`].
//!
//! **Costs** ([`stats`]). [`Ctx::stats`] returns what each superstep cost ([`stats::Stats`],
//! [`stats::StepStats`], [`stats::Traffic`]), in the mode of [`stats::StatsMode`]; a
//! [`stats::Machine`] measured by `bspbench` predicts times. `BSP_TRACE` writes a timeline.
//!
//! **Element types.** [`Value`] is what may cross processes: plain old data ([`bytemuck`]);
//! [`Elems`] and [`ElemsMut`] are the shapes it comes in (an element, an array, a slice).
//!
//! # Architecture
//! The layers, from the user's calls down to the engines, and where each lives in
//! `bsp-runtime/src/`. `Ctx` is the hub that every layer extends; apart from it, no two of these
//! modules import each other, directly or through others (`scripts/structure` in the repository
//! checks it in CI).
//!
//! | layer | where | what it does |
//! |---|---|---|
//! | launch | `launch.rs`, `env.rs`, `error.rs` | starts the processes on an engine, checks the `BSP_*` variables, returns the first failure |
//! | the process | `ctx.rs`, `superstep.rs`, `superstep_misuse.rs`, `same.rs` | `Ctx`, the hub every primitive extends with an `impl` block; the superstep scope, where a get's destination stays borrowed until the sync (the read-before-sync rule) |
//! | the sync | `sync/`: `mod.rs`, `verdict.rs`, `apply.rs` | the phases of a sync in order, written once for every engine; the collective verdict; where gets are written and puts land |
//! | extensions | `ext/`: `mod.rs`, `collective/`, `gp/` | the hook that lets further one-sided communication ride on the sync's phases; collectives; GP arrays |
//! | primitives | `reg/`, `drma/`, `bsmp.rs`, `value.rs` | registration, put and get, messages: each call is checked and queued in the outbox |
//! | engines | `engine/`: `mod.rs`, `group/`, `driver.rs`, `transport/` | the `Engine` trait and the one list of engines and layouts; the threads engine, a group of threads with its combining barrier (`group/barrier.rs`); the driver, groups joined by a transport (`transport/`: the trait, the wire format `transport/wire.rs`, MPI's, in-process), which runs the MPI layout (one process per rank) and the hybrid (T per rank) |
//! | the outbox | `outbox/`: `mod.rs`, `channel.rs` | what one process publishes at a sync, written by the primitives and read by the engines; the runtime's own message channel |
//! | observability | `observe/`: `stats.rs`, `recorder.rs`, `trace/` | the public figures of each superstep, the recorder that counts them at every sync, and the traces and summaries made from them |
//!
//! ```text
//! user code ──► Ctx, Superstep ──► reg/ drma/ bsmp ext/ ──► outbox/        (during a superstep)
//! Ctx::sync ──► sync/mod.rs ──► engine/ (threads | mpi | hybrid)          (combine, exchange, read)
//!           ──► sync/verdict.rs, sync/apply.rs ──► registered memory      (checks; gets, then puts)
//! ```
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
//!   `sync/` and `engine/group/mod.rs`; every `unsafe` block states its part of it.
//!
//! # Errors
//! Misuse is reported at the call, in that process, with the pid, operation, registration,
//! offset, length and extent; collective mismatches are found at the sync by every process and
//! name the superstep. Either way every process stops promptly and the launcher returns the first
//! [`Error`]. Nothing hangs.

mod bsmp;
mod calls;
mod checkpoint;
mod ctx;
mod drma;
mod engine;
mod env;
mod error;
mod ext;
// The runtime for foreign callers (BSPlib's C interface, the `bsplib-c` crate): registration
// by address, launch without a closure. Not a Rust API: no stability promise.
#[doc(hidden)]
pub mod foreign;
mod launch;
// Loom models of the barrier and of the hand-offs between barriers (`scripts/loom`).
#[cfg(all(test, loom))]
mod loom_models;
mod observe;
mod outbox;
mod primitive;
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
pub use drma::get_batch::GetBatch;
pub use env::{MAX_LOCAL_PROCS, NPROCS_VAR, THREADS_VAR};
pub use error::{Error, ErrorKind};
pub use ext::collective::{self, Grid, Team, ops};
pub use ext::gp;
pub use launch::{Launch, exit_on_error, run};
pub use observe::stats;
pub use reg::handle::RegHandle;
pub use reg::locals::{LocalPart, LocalParts};
pub use reg::register::{RegValues, Registration, Unregistration};
#[doc(hidden)]
pub use reg::register::{UseRegister, UseUnregister};
pub use reg::scoped::{RegData, RegSet, Registered};
pub use reg::{AsRemote, Reg, Remote};
#[doc(hidden)]
pub use same::PROMISES_CHECKED;
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
    pub use crate::{Ctx, Error, Launch, Superstep, exit_on_error};
}
