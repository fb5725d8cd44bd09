#![doc = include_str!("../README.md")]
//!
//! # This crate
//! This is the crate to depend on. It re-exports the runtime ([`bsp_runtime`]) and the macros
//! ([`program`] and [`superstep!`]), and [`bytemuck`], whose `Pod` is what [`Value`] asks of
//! a type. To derive it through this crate alone, say where the crate is:
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

pub use bsp_macros::{program, superstep};
pub use bsp_runtime::*;

/// The guide "From BSPlib C to `bsp`" (`docs/guide.md`), whose examples run as doctests.
#[doc = include_str!("../docs/guide.md")]
#[cfg(doctest)]
pub struct GuideDoctests;

/// Items the macros expand to. Not a public API: no stability promise.
#[doc(hidden)]
pub mod __private {
    pub use bsp_runtime::__private::*;
}
