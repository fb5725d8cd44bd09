#![doc = include_str!(concat!(env!("OUT_DIR"), "/README.md"))]
//!
//! # This crate
//! This is the crate to depend on (on the registry as `bsplib`; its library is `bsp`):
//!
//! ```toml
//! [dependencies]
//! bsp = { package = "bsplib", version = "0.1" }
//! ```
//!
//! It re-exports the runtime ([`bsp_runtime`]) and the macros ([`program`] and
//! [`superstep!`]), and [`bytemuck`], whose `Pod` is what [`Value`] asks of a type. To derive it
//! through this crate alone, say where the crate is:
//!
//! ```
//! #[derive(Clone, Copy, bsp::bytemuck::Pod, bsp::bytemuck::Zeroable)]
//! #[bytemuck(crate = "bsp::bytemuck")]
//! #[repr(C)]
//! struct Particle {
//!     x: f64,
//!     v: f64,
//! }
//!
//! fn communicable<T: bsp::Value>() {}
//! communicable::<Particle>();
//! ```
//!
//! The longer pages are the modules of [`docs`].

pub use bsp_macros::{program, superstep, superstep_fn};
// Everything the runtime exports is `bsp::…` through the glob, and documented here through the
// list: rustdoc inlines a glob re-export wholesale, the runtime's `bytemuck` (and through it
// all of `core`) included, which wrote 9,148 pages of other crates under this crate's docs and
// linked `Option` to them. A runtime item missing from the list is still `bsp::…`; it gets its
// page here once listed.
/// The plain-old-data traits [`Value`] builds on (and their derives), re-exported so that a
/// program needs no dependency of its own on a matching version (see the crate docs).
#[doc(no_inline)]
pub use bsp_runtime::bytemuck;
#[doc(hidden)]
pub use bsp_runtime::*;
pub use bsp_runtime::{
    collective, exit_on_error, gp, ops, run, stats, AsRemote, Combiner, Ctx, Dest, DestPart, Elems, ElemsMut, Error,
    ErrorKind, GetBatch, GetDest, Grid, Launch, LocalPart, LocalParts, OnlyInsideASuperstep, PutBatch, Reg, RegData,
    RegHandle, RegSet, RegValues, Registered, Registration, Remote, Superstep, Team, Unregistration, Value,
    MAX_LOCAL_PROCS, NPROCS_VAR, THREADS_VAR,
};

mod macro_support;
mod prologue;
pub use prologue::{prologue, prologue_vec};

/// The longer pages: the guide for BSPlib programmers, the exact semantics, a worked example of
/// BSP cost, and the measured performance. Their code blocks are doctests.
pub mod docs {
    #[doc = include_str!(concat!(env!("OUT_DIR"), "/guide.md"))]
    pub mod guide {}

    #[doc = include_str!(concat!(env!("OUT_DIR"), "/semantics.md"))]
    pub mod semantics {}

    #[doc = include_str!(concat!(env!("OUT_DIR"), "/cost.md"))]
    pub mod cost {}

    #[doc = include_str!(concat!(env!("OUT_DIR"), "/PERFORMANCE.md"))]
    pub mod performance {}
}

/// Items the macros expand to. Not a public API: no stability promise.
#[doc(hidden)]
pub mod __private {
    pub use crate::macro_support::*;
    pub use bsp_runtime::__private::*;
}
