//! Global pointer arrays: Global Arrays' GP API on the BSP runtime (docs/semantics.md §7, D17).
//!
//! A [`GpArray<T>`] is an array of up to 7 dimensions whose elements are variable-length slices
//! `[T]` of plain data: adjacency lists, particle lists, sparse rows. It is split into one
//! rectangular block per process exactly as Global Arrays splits it
//! ([`Distribution`]), so [`distribution`](GpArray::distribution) answers what GA's
//! `GP_Distribution` would. Every element is *unassigned* until the process owning it assigns
//! it.
//!
//! ```
//! use bsp_runtime::gp::{GpArray, GpBuf};
//! let sums = bsp_runtime::run(4, |ctx| {
//!     let mut g = GpArray::<u64>::builder(&[10]).name("rows").build(ctx); // a sync
//!     // Local: each process assigns the elements it owns; element i holds 1..=i.
//!     let (lo, hi) = g.distribution(ctx.pid()).unwrap();
//!     for i in lo[0]..=hi[0] {
//!         g.assign_local(ctx, &[i], (1..=i as u64).collect::<Vec<_>>());
//!     }
//!     // One-sided: read a patch that spans several owners; it lands at the end of the superstep.
//!     let mut buf = GpBuf::new();
//!     ctx.superstep(|s| g.get(s, &[2], &[7], &mut buf));
//!     buf.elements().map(|e| e.iter().sum::<u64>()).collect::<Vec<_>>()
//! })
//! .unwrap();
//! assert_eq!(sums[0], [3, 6, 10, 15, 21, 28]);
//! ```
//!
//! # The model, in BSP terms
//! - **Creation** ([`GpArray::builder`] … [`build`](GpBuilder::build)) is collective and a
//!   sync, like [`Ctx::register`](crate::Ctx::register): the array is registered with the
//!   runtime and is usable for one-sided operations as soon as `build` returns it (D4 holds by
//!   construction).
//! - **Local operations** ([`access`](GpArray::access), [`access_mut`](GpArray::access_mut),
//!   [`assign_local`](GpArray::assign_local), [`free_local`](GpArray::free_local)) take only
//!   subscripts the calling process owns and borrow its [`Ctx`](crate::Ctx), so no reference
//!   into an element survives a sync.
//! - **One-sided operations** name any element and complete at the sync ending the superstep,
//!   like `get` and `put` (D17). Reads ([`get`](GpArray::get),
//!   [`gather`](GpArray::gather), their `_into` and `_size` variants) live on
//!   [`Superstep`](crate::Superstep) and borrow their destination until the sync: reading a
//!   result early is a compile error. They see the elements as they are at the end of the
//!   superstep, before any put of that superstep lands (D1). Writes ([`put`](GpArray::put),
//!   [`scatter`](GpArray::scatter)) copy their data at the call and land at the sync, into the
//!   existing elements, in ascending source pid and issue order (the last one wins, D2).
//! - **`memzero`** and **`destroy`** are collective and include a sync. Dropping a handle
//!   without destroying it is safe; the array then lives until the run ends.
//!
//! Sizes count elements of `T`, not bytes. Subscripts are 0-based, in C order, and patch
//! bounds `lo..=hi` are inclusive, as in GA's C API.
//!
//! # GA's calls and their counterparts
//!
//! | GA | here |
//! |---|---|
//! | `GP_Initialize`, `GP_Terminate` | nothing: a run ([`run`](crate::run)) sets up and tears down |
//! | `GP_Create_handle`, `GP_Set_dimensions` | [`GpArray::builder(&dims)`](GpArray::builder) |
//! | `GP_Set_chunk` | [`GpBuilder::chunk`] |
//! | `GP_Set_irreg_distr` | [`GpBuilder::irregular`] |
//! | `GP_Allocate` (then `GP_Sync`) | [`GpBuilder::build`] (a sync) |
//! | `GP_Distribution` | [`GpArray::distribution`] |
//! | `GP_Malloc` + `GP_Assign_local_element` | a `Vec<T>` + [`GpArray::assign_local`] |
//! | `GP_Access_element` + `GP_Release_element` | [`GpArray::access`] (the borrow) |
//! | `GP_Access_element` + `GP_Release_update_element` | [`GpArray::access_mut`] (the borrow) |
//! | `GP_Free_local_element` + `GP_Free` | [`GpArray::free_local`] (dropping the `Vec`) |
//! | `GP_Get_size` / `GP_Gather_size` | [`GpArray::get_size`] / [`GpArray::gather_size`] |
//! | `GP_Get` / `GP_Gather`, `setbuf = 0` | [`GpArray::get`] / [`GpArray::gather`] into a [`GpBuf`] |
//! | `GP_Get` / `GP_Gather`, `setbuf = 1` | [`GpArray::get_into`] / [`GpArray::gather_into`] |
//! | `GP_Put` / `GP_Scatter` | [`GpArray::put`] / [`GpArray::scatter`] (`checksize` flag) |
//! | `GP_Memzero` | [`GpArray::memzero`] |
//! | `GP_Sync` | [`Ctx::sync`](crate::Ctx::sync) (or [`GpArray::sync`]) |
//! | `GP_Destroy` | [`GpArray::destroy`] |
//!
//! # Errors
//! Misuse panics with a message naming the array, the operation, the subscript and the
//! process: a subscript out of range or with the wrong number of indices, a local operation on
//! another process's element (the message names its owner), a patch with `lo > hi`, a wrong
//! number of elements, invalid dimensions or distribution, use before the sync that makes the
//! array effective. What only the owner can know (the element is unassigned, the sizes differ
//! under `checksize`, the data is longer than the element) is found when the owner applies
//! the put at the sync, and panics there naming the source process and the sizes. As for every
//! failure, the runtime then stops all processes and the launcher reports the first message.
//! Processes that create arrays of different types or shapes fail at the sync after creation.
//!
//! # Soundness
//! Each process's elements live in a `GpShared<T>` registered with the runtime as an extension
//! object (`ext/mod.rs`). Reads by any process are requests that the object answers in the get
//! phase of a sync (its `serve`, while the owner is inside the sync too; on the MPI engine it
//! runs on the owner), and the owner writes the elements only from its own code between syncs
//! or in its put phase, after the get-phase barrier: the protocol is written down in
//! `shared.rs`, and every `unsafe` block refers to it.

mod array;
mod buf;
pub mod distribution;
mod onesided;
mod patch;
mod record;
mod request;
mod shared;

pub use array::{GpArray, GpBuilder};
pub use buf::GpBuf;
pub use distribution::{Distribution, DistributionError, MAX_NDIM};
pub use patch::{Subscripts, subscripts};
