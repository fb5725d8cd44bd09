//! Collectives: broadcast, reduce, scan, gather, scatter and all-to-all, typed, in the fewest
//! supersteps.
//!
//! This module holds their documentation and their [`ops`]; the collectives themselves are
//! methods of [`Ctx`], on every process, and of [`Team`], on a subset of the processes (such as
//! a processor row or column of a [`Grid`]). Every process calls each with the same arguments
//! where the docs say so (root, operator, lengths). Each *ends the current superstep*: it queues
//! its messages and syncs, so it takes `&mut Ctx`, and whatever else the process queued in that
//! superstep (puts, messages, registrations, and the gets of a
//! [`superstep_then`](Ctx::superstep_then) that ends in it) is completed by the same sync. The data
//! travels on the runtime's own message channel, so collectives need no registration and leave
//! the BSMP queue and tag size untouched; like any sync, they empty the BSMP receive queue.
//!
//! The data argument ([`CollectiveData`]) is a slice, an array, a `Vec`, or a registration
//! (`&x` for a [`Reg`](crate::Reg) or [`Registered`](crate::Registered)), whose local part is
//! read at the call: `ctx.allreduce(&x, op)`, where `ctx.allreduce(x.local(ctx), op)` would not
//! compile (its argument borrows the context the collective syncs).
//!
//! Results are deterministic: combining operators are applied in ascending pid order, elementwise
//! (`((x₀ ∘ x₁) ∘ x₂) ∘ …`), so `allreduce` of floating-point numbers gives bit-identical
//! results on every process and on every run, whatever the engine.
//!
//! # Cost
//! With `p` processes and `n` elements per process (for the variable-size forms, `nᵢ` on process
//! `i` and `N = Σ nᵢ`), in elements of `T`; `g` and `l` are the machine's BSP parameters, and a
//! superstep costs `w + h·g + l`:
//!
//! | Collective | Syncs | h-relation | Operator applications |
//! |---|---|---|---|
//! | [`broadcast`](Ctx::broadcast) | 1 | `(p−1)·n`, sent by the root | |
//! | [`broadcast_large`](Ctx::broadcast_large) | 2 | `(p−1)·n/p` per sync, so `≈ 2n` in all | |
//! | [`reduce`](Ctx::reduce) | 1 | `(p−1)·n`, received by the root | `(p−1)·n` on the root |
//! | [`allreduce`](Ctx::allreduce) | 1 | `(p−1)·n` | `(p−1)·n` on every process |
//! | [`scan`](Ctx::scan) | 1 | `(p−1)·n` (sent by 0, received by `p−1`) | `i·n` on process `i` |
//! | [`gather`](Ctx::gather) | 1 | `N − n_root`, received by the root | |
//! | [`allgather`](Ctx::allgather) | 1 | `maxᵢ max((p−1)·nᵢ, N − nᵢ)` | |
//! | [`scatter`](Ctx::scatter) | 1 | `N − n_root`, sent by the root | |
//! | [`alltoall`](Ctx::alltoall) | 1 | `(p−1)·n/p` (`n = p·k`) | |
//! | [`alltoallv`](Ctx::alltoallv) | 1 | the largest total a process sends to or receives from the others | |
//!
//! [`gather_into`](Ctx::gather_into), [`allgather_into`](Ctx::allgather_into) and
//! [`alltoallv_into`](Ctx::alltoallv_into) cost the same as their allocating forms, but refill a
//! [`Parts`] that the caller keeps instead of returning a new `Vec<Vec<T>>`.
//!
//! `broadcast` is the cheapest choice while `(p−1)·n·g < l`; for large `n` and many processes
//! `broadcast_large` trades one more `l` for a `p/2` times smaller h-relation.
//!
//! These are the figures that [`Ctx::stats`] counts for a collective's superstep
//! ([`Traffic::collectives`](crate::stats::Traffic::collectives) and `collective_bytes`, sent
//! and received, in h), and so does the trace with its predictions: an `allreduce` of 1000
//! words at p = 4 is h = 3000 words. Besides its data, each process sends every other process a
//! header of about 60 bytes (which collective, root, element type, length, and the team's
//! members), so that every process can check that all called the same collective with
//! compatible arguments; like a put's offset, it is not counted.
//!
//! On a [`Team`] of `size` members, read `size` for `p` and ranks for pids: a team collective
//! costs what the same collective costs on `size` processes, and the teams of one sync run side
//! by side (the superstep's h is the largest over all teams). A team of one sends nothing: its
//! collective costs a plain `sync` (on a 1×N grid, every column collective is an empty sync).
//!
//! # Errors
//! - Misuse seen at the call panics in that process, naming it: a root out of range, `scatter` or
//!   `alltoallv` with not one part per process, `alltoall` with a length that is not a multiple
//!   of `p`.
//! - Disagreement between processes is found after the sync by every process alike and fails
//!   the run with the same message everywhere (see [`Error`](crate::Error)): different
//!   collectives, roots or element types, or different lengths where they must agree
//!   (`reduce`, `allreduce`, `scan`, `alltoall`).
//! - On a team, its members find a disagreement (also on who the members are, or a member that
//!   called plain `sync`) and fail the run with a message that lists each member's call; the
//!   processes of the other teams stop at their next sync.
//!
//! ```
//! use bsp_runtime::ops;
//!
//! let out = bsp_runtime::run(4, |ctx| {
//!     let pid = ctx.pid() as f64;
//!     let total = ctx.allreduce(&[pid, 1.0], ops::sum); // [0+1+2+3, 4]
//!     let before = ctx.scan(&[1u32], ops::sum)[0]; // 1, 2, 3, 4
//!     let everyone = ctx.allgather(&vec![ctx.pid(); ctx.pid()]); // variable sizes
//!     (total, before, everyone[3].len())
//! })
//! .unwrap();
//! assert_eq!(out[2], (vec![6.0, 4.0], 3, 3));
//! ```

mod algorithms;
mod data;
mod into;
pub mod ops;
mod team;
mod wire;

pub use data::CollectiveData;
pub use into::Parts;
pub use team::{Grid, Team};
pub(crate) use wire::payload_len;

use crate::{Ctx, Value};
use wire::Group;

impl Ctx {
    /// Sends `data` from `root` to every process; returns it on every process (one sync).
    ///
    /// `data` is read on the root only; the others may pass anything (`&[]`).
    ///
    /// **[Cost](crate::collective#cost):** 1 sync; h = `(p−1)·n`, sent by the root. See [`broadcast_large`] for large `n`.
    ///
    /// [`broadcast_large`]: Ctx::broadcast_large
    ///
    /// ```
    /// let got = bsp_runtime::run(3, |ctx| {
    ///     let mine = if ctx.pid() == 1 { vec![7u16, 8, 9] } else { Vec::new() };
    ///     ctx.broadcast(1, &mine)
    /// })
    /// .unwrap();
    /// assert_eq!(got, vec![vec![7, 8, 9]; 3]);
    /// ```
    ///
    /// # Panics
    /// If `root >= nprocs()`; after the sync, on every process, if the processes called
    /// different collectives or passed different roots or element types.
    #[track_caller]
    pub fn broadcast<T: Value>(&mut self, root: usize, data: impl CollectiveData<T>) -> Vec<T> {
        self.broadcast_in(Group::all(self), root, data)
    }

    /// One value from `root` to every process (as [`broadcast`](Ctx::broadcast)).
    ///
    /// ```
    /// let got = bsp_runtime::run(2, |ctx| ctx.broadcast_one(0, ctx.pid() as u8 + 40)).unwrap();
    /// assert_eq!(got, vec![40, 40]);
    /// ```
    ///
    /// # Panics
    /// As [`broadcast`](Ctx::broadcast).
    #[track_caller]
    pub fn broadcast_one<T: Value>(&mut self, root: usize, value: T) -> T {
        self.broadcast(root, &[value])[0]
    }

    /// Sends `data` from `root` to every process in two supersteps: the root scatters `p`
    /// near-equal pieces, then every process sends its piece to all (an allgather).
    ///
    /// The same result as [`broadcast`](Ctx::broadcast), for a smaller h-relation: no process
    /// sends or receives much more than `n` elements in each superstep, where `broadcast` has the
    /// root send `(p−1)·n`. `data` is read on the root only.
    ///
    /// **[Cost](crate::collective#cost):** 2 syncs; h = `(p−1)·n/p` in each, so `≈ 2n` in all.
    ///
    /// ```
    /// let got = bsp_runtime::run(4, |ctx| {
    ///     let data: Vec<u64> = if ctx.pid() == 0 { (0..10).collect() } else { Vec::new() };
    ///     let steps = ctx.step();
    ///     let all = ctx.broadcast_large(0, &data);
    ///     (all.iter().sum::<u64>(), ctx.step() - steps)
    /// })
    /// .unwrap();
    /// assert_eq!(got, vec![(45, 2); 4]);
    /// ```
    ///
    /// # Panics
    /// As [`broadcast`](Ctx::broadcast).
    #[track_caller]
    pub fn broadcast_large<T: Value>(&mut self, root: usize, data: impl CollectiveData<T>) -> Vec<T> {
        self.broadcast_large_in(Group::all(self), root, data)
    }

    /// Combines every process's `data` elementwise with `op`, in ascending pid order; returns the
    /// result on `root` (`Some`) and `None` elsewhere.
    ///
    /// Every process must pass the same length. The result on the root is
    /// `op(…op(op(x₀, x₁), x₂)…, x_{p−1})` for each element.
    ///
    /// **[Cost](crate::collective#cost):** 1 sync; h = `(p−1)·n`, received by the root; `(p−1)·n` applications of `op` on
    /// the root.
    ///
    /// ```
    /// let got = bsp_runtime::run(3, |ctx| {
    ///     let x = ctx.pid() as i32 + 1;
    ///     ctx.reduce(2, &[x, -x], |a, b| a * b)
    /// })
    /// .unwrap();
    /// assert_eq!(got, vec![None, None, Some(vec![6, -6])]);
    /// ```
    ///
    /// # Panics
    /// If `root >= nprocs()`; after the sync, on every process, if the processes passed
    /// different lengths (the message lists them), or as [`broadcast`](Ctx::broadcast).
    #[track_caller]
    pub fn reduce<T: Value>(
        &mut self,
        root: usize,
        data: impl CollectiveData<T>,
        op: impl Fn(T, T) -> T,
    ) -> Option<Vec<T>> {
        self.reduce_in(Group::all(self), root, data, op)
    }

    /// Combines every process's `data` elementwise with `op`, in ascending pid order, and returns
    /// the result on every process: bit-identical everywhere, even for floating point.
    ///
    /// Every process must pass the same length.
    ///
    /// **[Cost](crate::collective#cost):** 1 sync; h = `(p−1)·n`; `(p−1)·n` applications of `op` on every process.
    ///
    /// ```
    /// use bsp_runtime::ops;
    ///
    /// let got = bsp_runtime::run(4, |ctx| {
    ///     let x = ctx.pid() as f64;
    ///     ctx.allreduce(&[x, x * x], ops::sum)
    /// })
    /// .unwrap();
    /// assert_eq!(got, vec![vec![6.0, 14.0]; 4]);
    /// ```
    ///
    /// # Panics
    /// As [`reduce`](Ctx::reduce).
    #[track_caller]
    pub fn allreduce<T: Value>(&mut self, data: impl CollectiveData<T>, op: impl Fn(T, T) -> T) -> Vec<T> {
        self.allreduce_in(Group::all(self), data, op)
    }

    /// [`allreduce`](Ctx::allreduce) of one value.
    ///
    /// ```
    /// let got = bsp_runtime::run(3, |ctx| ctx.allreduce_one(ctx.pid() as u32, bsp_runtime::ops::max)).unwrap();
    /// assert_eq!(got, vec![2, 2, 2]);
    /// ```
    ///
    /// # Panics
    /// As [`allreduce`](Ctx::allreduce).
    #[track_caller]
    pub fn allreduce_one<T: Value>(&mut self, value: T, op: impl Fn(T, T) -> T) -> T {
        self.allreduce(&[value], op)[0]
    }

    /// Inclusive prefix combination over the processes: process `i` gets
    /// `op(…op(x₀, x₁)…, xᵢ)`, elementwise, in ascending pid order.
    ///
    /// Every process must pass the same length. For an exclusive prefix (the offset of each
    /// process's block in a global array, say), subtract or shift: see the example.
    ///
    /// **[Cost](crate::collective#cost):** 1 sync; h = `(p−1)·n` (process 0 sends it, process `p−1` receives it); `i·n`
    /// applications of `op` on process `i`.
    ///
    /// ```
    /// let got = bsp_runtime::run(4, |ctx| {
    ///     let count = 10 * (ctx.pid() as u64 + 1); // 10, 20, 30, 40 items
    ///     let inclusive = ctx.scan(&[count], bsp_runtime::ops::sum)[0];
    ///     inclusive - count // where this process's items start
    /// })
    /// .unwrap();
    /// assert_eq!(got, vec![0, 10, 30, 60]);
    /// ```
    ///
    /// # Panics
    /// As [`reduce`](Ctx::reduce).
    #[track_caller]
    pub fn scan<T: Value>(&mut self, data: impl CollectiveData<T>, op: impl Fn(T, T) -> T) -> Vec<T> {
        self.scan_in(Group::all(self), data, op)
    }

    /// [`scan`](Ctx::scan) of one value.
    ///
    /// ```
    /// let got = bsp_runtime::run(3, |ctx| ctx.scan_one(2u8, |a, b| a * b)).unwrap();
    /// assert_eq!(got, vec![2, 4, 8]);
    /// ```
    ///
    /// # Panics
    /// As [`scan`](Ctx::scan).
    #[track_caller]
    pub fn scan_one<T: Value>(&mut self, value: T, op: impl Fn(T, T) -> T) -> T {
        self.scan(&[value], op)[0]
    }

    /// Collects every process's `data` on `root`, indexed by pid (`Some` there, `None`
    /// elsewhere). Lengths may differ, and may be zero.
    ///
    /// **[Cost](crate::collective#cost):** 1 sync; h = `N − n_root` (all the others' data), received by the root.
    ///
    /// ```
    /// let got = bsp_runtime::run(3, |ctx| ctx.gather(0, &vec![ctx.pid() as u8; ctx.pid()])).unwrap();
    /// assert_eq!(got[0], Some(vec![vec![], vec![1], vec![2, 2]]));
    /// assert_eq!(got[1], None);
    /// ```
    ///
    /// # Panics
    /// As [`broadcast`](Ctx::broadcast).
    #[track_caller]
    pub fn gather<T: Value>(&mut self, root: usize, data: impl CollectiveData<T>) -> Option<Vec<Vec<T>>> {
        self.gather_in(Group::all(self), root, data)
    }

    /// Collects every process's `data` on every process, indexed by pid. Lengths may differ, and
    /// may be zero.
    ///
    /// **[Cost](crate::collective#cost):** 1 sync; h = `maxᵢ max((p−1)·nᵢ, N − nᵢ)`: each process sends its data to
    /// every other and receives all of theirs.
    ///
    /// ```
    /// let got = bsp_runtime::run(3, |ctx| ctx.allgather(&[ctx.pid() as i8 * 2])).unwrap();
    /// assert_eq!(got[2], vec![vec![0], vec![2], vec![4]]);
    /// ```
    ///
    /// # Panics
    /// As [`broadcast`](Ctx::broadcast).
    #[track_caller]
    pub fn allgather<T: Value>(&mut self, data: impl CollectiveData<T>) -> Vec<Vec<T>> {
        self.allgather_in(Group::all(self), data)
    }

    /// Sends `parts[q]` from `root` to process `q`; returns this process's part. Lengths may
    /// differ, and may be zero.
    ///
    /// `parts` is read on the root only (the others may pass `&[] as &[Vec<T>]`) and must hold
    /// one part per process there.
    ///
    /// **[Cost](crate::collective#cost):** 1 sync; h = `N − n_root`, sent by the root.
    ///
    /// ```
    /// let got = bsp_runtime::run(3, |ctx| {
    ///     let parts: Vec<Vec<u32>> =
    ///         if ctx.pid() == 0 { vec![vec![1], vec![], vec![3, 3, 3]] } else { Vec::new() };
    ///     ctx.scatter(0, &parts)
    /// })
    /// .unwrap();
    /// assert_eq!(got, vec![vec![1], vec![], vec![3, 3, 3]]);
    /// ```
    ///
    /// # Panics
    /// On the root, if `parts.len() != nprocs()`; or as [`broadcast`](Ctx::broadcast).
    #[track_caller]
    pub fn scatter<T: Value, P: AsRef<[T]>>(&mut self, root: usize, parts: &[P]) -> Vec<T> {
        self.scatter_in(Group::all(self), root, parts)
    }

    /// Personalised all-to-all exchange of equal blocks: `data` holds `p` blocks of `k`
    /// elements; block `q` goes to process `q`, and block `q` of the result came from process
    /// `q`.
    ///
    /// Every process must pass the same length, a multiple of `p`. For blocks of different sizes,
    /// see [`alltoallv`](Ctx::alltoallv).
    ///
    /// **[Cost](crate::collective#cost):** 1 sync; h = `(p−1)·k`.
    ///
    /// ```
    /// // Transpose a 3×3 matrix distributed by rows.
    /// let got = bsp_runtime::run(3, |ctx| {
    ///     let row: Vec<u32> = (0..3).map(|j| 10 * ctx.pid() as u32 + j).collect();
    ///     ctx.alltoall(&row) // now a column
    /// })
    /// .unwrap();
    /// assert_eq!(got[1], vec![1, 11, 21]);
    /// ```
    ///
    /// # Panics
    /// If `data.len()` is not a multiple of `nprocs()`; after the sync, on every process, if the
    /// processes passed different lengths, or as [`broadcast`](Ctx::broadcast).
    #[track_caller]
    pub fn alltoall<T: Value>(&mut self, data: impl CollectiveData<T>) -> Vec<T> {
        self.alltoall_in(Group::all(self), data)
    }

    /// Personalised all-to-all exchange of blocks of any size: `parts[q]` goes to process `q`,
    /// and element `q` of the result came from process `q`. Lengths may differ, and may be zero.
    ///
    /// **[Cost](crate::collective#cost):** 1 sync; h = the largest number of elements a process sends to, or receives
    /// from, the others.
    ///
    /// ```
    /// // Every process sends q copies of its pid to process q.
    /// let got = bsp_runtime::run(3, |ctx| {
    ///     let parts: Vec<Vec<usize>> = (0..ctx.nprocs()).map(|q| vec![ctx.pid(); q]).collect();
    ///     ctx.alltoallv(&parts)
    /// })
    /// .unwrap();
    /// assert_eq!(got[2], vec![vec![0, 0], vec![1, 1], vec![2, 2]]);
    /// assert_eq!(got[0], vec![vec![], vec![], vec![]]);
    /// ```
    ///
    /// # Panics
    /// If `parts.len() != nprocs()`; or as [`broadcast`](Ctx::broadcast).
    #[track_caller]
    pub fn alltoallv<T: Value, P: AsRef<[T]>>(&mut self, parts: &[P]) -> Vec<Vec<T>> {
        self.alltoallv_in(Group::all(self), parts)
    }
}
