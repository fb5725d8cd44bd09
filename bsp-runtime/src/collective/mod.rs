//! Collectives: broadcast, reduce, scan, gather, scatter and all-to-all, typed, in the fewest
//! supersteps.
//!
//! This module holds their documentation and their [`ops`]; the collectives themselves are
//! methods of [`Ctx`]. Every process calls each with the same arguments where the docs say so
//! (root, operator, lengths). Each *ends the current superstep*: it queues its messages and
//! syncs, so it takes `&mut Ctx`, and whatever else the process queued in that superstep (puts,
//! gets, messages, registrations) is completed by the same sync. The data
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
//! Besides its data, each process sends every process a header of about 50 bytes (which
//! collective, root, element type and length), so that every process can check that all called
//! the same collective with compatible arguments.
//!
//! # Errors
//! - Misuse seen at the call panics in that process, naming it: a root out of range, `scatter` or
//!   `alltoallv` with not one part per process, `alltoall` with a length that is not a multiple
//!   of `p`.
//! - Disagreement between processes is found after the sync by every process alike and fails
//!   the run with the same message everywhere (see [`Error`](crate::Error)): different
//!   collectives, roots or element types, or different lengths where they must agree
//!   (`reduce`, `allreduce`, `scan`, `alltoall`).
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

mod data;
mod into;
pub mod ops;

use std::borrow::Cow;
use std::mem::size_of;

pub use data::CollectiveData;
pub use into::Parts;

use crate::{Ctx, Value};

/// Which collective (and which of its supersteps) a message belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Broadcast,
    BroadcastLargePieces,
    BroadcastLargeAll,
    Reduce,
    Allreduce,
    Scan,
    Gather,
    Allgather,
    Scatter,
    Alltoall,
    Alltoallv,
}

const KINDS: [Kind; 11] = [
    Kind::Broadcast,
    Kind::BroadcastLargePieces,
    Kind::BroadcastLargeAll,
    Kind::Reduce,
    Kind::Allreduce,
    Kind::Scan,
    Kind::Gather,
    Kind::Allgather,
    Kind::Scatter,
    Kind::Alltoall,
    Kind::Alltoallv,
];

/// Marks a header as ours (the low bits are the kind).
const MAGIC: u64 = 0xB5C0_11EC_7100_0000;

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Broadcast => "broadcast",
            Kind::BroadcastLargePieces => "broadcast_large (superstep 1 of 2)",
            Kind::BroadcastLargeAll => "broadcast_large (superstep 2 of 2)",
            Kind::Reduce => "reduce",
            Kind::Allreduce => "allreduce",
            Kind::Scan => "scan",
            Kind::Gather => "gather",
            Kind::Allgather => "allgather",
            Kind::Scatter => "scatter",
            Kind::Alltoall => "alltoall",
            Kind::Alltoallv => "alltoallv",
        }
    }

    /// The name of the public method, for messages at the call.
    fn op(self) -> &'static str {
        match self {
            Kind::BroadcastLargePieces | Kind::BroadcastLargeAll => "broadcast_large",
            k => k.name(),
        }
    }

    fn has_root(self) -> bool {
        matches!(self, Kind::Broadcast | Kind::BroadcastLargePieces | Kind::Reduce | Kind::Gather | Kind::Scatter)
    }

    fn code(self) -> u64 {
        MAGIC + KINDS.iter().position(|&k| k == self).expect("every kind is listed") as u64
    }

    fn from_code(code: u64) -> Option<Kind> {
        KINDS.iter().copied().find(|k| k.code() == code)
    }
}

/// The fixed part of the message every process sends every process in a collective; the
/// element type's name and then the payload follow it.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Header {
    kind: u64,
    root: u64,
    /// The sender's length argument (its data length, or the length of the part for this
    /// receiver), which may differ from `count` (when the payload is not needed here).
    len: u64,
    /// Elements of payload in this message.
    count: u64,
    elem_size: u64,
    name_len: u64,
}

/// One process's collective call, as the others see it.
struct Part<'a> {
    kind: Kind,
    root: usize,
    len: usize,
    count: usize,
    elem_size: usize,
    type_name: &'a str,
    payload: &'a [u8],
}

impl<'a> Part<'a> {
    fn parse(bytes: &'a [u8]) -> Option<Part<'a>> {
        let head: Header = bytemuck::pod_read_unaligned(bytes.get(..size_of::<Header>())?);
        let rest = &bytes[size_of::<Header>()..];
        let name_len = usize::try_from(head.name_len).ok()?;
        let type_name = std::str::from_utf8(rest.get(..name_len)?).ok()?;
        let payload = &rest[name_len..];
        let (count, elem_size) = (usize::try_from(head.count).ok()?, usize::try_from(head.elem_size).ok()?);
        if count.checked_mul(elem_size)? != payload.len() {
            return None;
        }
        Some(Part {
            kind: Kind::from_code(head.kind)?,
            root: usize::try_from(head.root).ok()?,
            len: usize::try_from(head.len).ok()?,
            count,
            elem_size,
            type_name,
            payload,
        })
    }

    /// How a mismatch message describes this call.
    fn describe(&self) -> String {
        let root = if self.kind.has_root() { format!(" with root {}", self.root) } else { String::new() };
        format!("`{}`{root} on `{}`", self.kind.name(), self.type_name)
    }
}

/// This process's call.
struct Call {
    kind: Kind,
    /// The method called, for messages (`gather_into` is a `Kind::Gather` too).
    op: &'static str,
    root: usize,
    elem_size: usize,
    type_name: &'static str,
    /// The superstep the collective ends.
    step: usize,
}

impl Call {
    fn matches(&self, part: &Part<'_>) -> bool {
        part.kind == self.kind
            && part.root == self.root
            && part.elem_size == self.elem_size
            && part.type_name == self.type_name
    }
}

/// The bytes of `xs` (none for a zero-sized `T`).
fn bytes_of<T: Value>(xs: &[T]) -> &[u8] {
    if size_of::<T>() == 0 {
        &[]
    } else {
        bytemuck::cast_slice(xs)
    }
}

/// Appends the `count` elements in `bytes` (at any alignment) to `out`.
fn extend_from_bytes<T: Value>(out: &mut Vec<T>, bytes: &[u8], count: usize) {
    let old = out.len();
    out.resize(old + count, T::zeroed());
    if size_of::<T>() > 0 {
        bytemuck::cast_slice_mut::<T, u8>(&mut out[old..]).copy_from_slice(bytes);
    }
}

/// The `count` elements in `bytes` (at any alignment).
fn vec_from_bytes<T: Value>(bytes: &[u8], count: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(count);
    extend_from_bytes(&mut out, bytes, count);
    out
}

/// `acc[i] = op(acc[i], x[i])`, with `x` the elements in `bytes` (at any alignment).
fn combine_bytes<T: Value>(acc: &mut [T], bytes: &[u8], op: &impl Fn(T, T) -> T) {
    let size = size_of::<T>();
    if size == 0 {
        acc.iter_mut().for_each(|a| *a = op(*a, T::zeroed()));
        return;
    }
    for (a, b) in acc.iter_mut().zip(bytes.chunks_exact(size)) {
        *a = op(*a, bytemuck::pod_read_unaligned(b));
    }
}

/// Where `n` elements split into `p` near-equal blocks put block `q`: `q·n/p .. (q+1)·n/p`.
fn block(n: usize, p: usize, q: usize) -> std::ops::Range<usize> {
    let at = |q: usize| (q as u128 * n as u128 / p as u128) as usize;
    at(q)..at(q + 1)
}

impl Ctx {
    #[track_caller]
    fn coll_call<T: Value>(&self, kind: Kind, root: usize) -> Call {
        self.coll_call_as::<T>(kind, kind.op(), root)
    }

    /// As `coll_call`, for a method `op` that is another form of collective `kind`.
    #[track_caller]
    fn coll_call_as<T: Value>(&self, kind: Kind, op: &'static str, root: usize) -> Call {
        self.check_live(op);
        if kind.has_root() && root >= self.nprocs {
            self.fail_misuse(format!("{op}: root {root} is out of range (nprocs = {})", self.nprocs));
        }
        Call { kind, op, root, elem_size: size_of::<T>(), type_name: std::any::type_name::<T>(), step: self.step }
    }

    /// This process's data for `call`, read now (before the sync) if `needed`, else empty.
    #[track_caller]
    fn coll_read<'a, T: Value>(&self, call: &Call, data: impl CollectiveData<T> + 'a, needed: bool) -> Cow<'a, [T]> {
        if needed {
            data.read(self, call.op)
        } else {
            Cow::Borrowed(&[])
        }
    }

    /// Fails the call unless `n` is one part per process (`alltoallv`).
    #[track_caller]
    fn coll_check_one_part_each(&self, call: &Call, n: usize) {
        if n != self.nprocs {
            self.fail_misuse(format!(
                "{}: pass one part per process, but there are {n} parts (nprocs = {})",
                call.op, self.nprocs
            ));
        }
    }

    /// Sends process `to` this process's header (with length argument `len`) and `payload`.
    #[track_caller]
    fn coll_send<T: Value>(&self, call: &Call, to: usize, len: usize, payload: &[T]) {
        let head = Header {
            kind: call.kind.code(),
            root: call.root as u64,
            len: len as u64,
            count: payload.len() as u64,
            elem_size: call.elem_size as u64,
            name_len: call.type_name.len() as u64,
        };
        self.sys_send(call.op, to, &[bytemuck::bytes_of(&head), call.type_name.as_bytes(), bytes_of(payload)]);
    }

    /// The one superstep of most collectives: tells every process this process's length, sends
    /// `data` to the processes `to` picks (never to itself: its own part stays in `data`), and
    /// syncs.
    #[track_caller]
    fn coll_exchange<T: Value>(&mut self, call: &Call, data: &[T], to: impl Fn(usize) -> bool) {
        let me = self.pid;
        for q in 0..self.nprocs {
            self.coll_send(call, q, data.len(), if q != me && to(q) { data } else { &[] });
        }
        self.sync();
    }

    /// The superstep of `alltoallv`: sends `parts[q]` to process `q` (not its own part) and syncs.
    #[track_caller]
    fn coll_exchange_parts<T: Value, P: AsRef<[T]>>(&mut self, call: &Call, parts: &[P]) {
        let me = self.pid;
        self.coll_check_one_part_each(call, parts.len());
        for (q, part) in parts.iter().enumerate() {
            let part = part.as_ref();
            self.coll_send(call, q, part.len(), if q != me { part } else { &[] });
        }
        self.sync();
    }

    /// Every process's call, indexed by pid, as received at the sync that ends the collective.
    ///
    /// Fails the run unless every process made the same call: on every process alike if each
    /// called a collective (each received the same headers), else as a panic of the callers,
    /// which stops the processes that synced without one.
    fn coll_parts(&self, call: &Call) -> Vec<Part<'_>> {
        let p = self.nprocs;
        let mut parts: Vec<Option<Part<'_>>> = (0..p).map(|_| None).collect();
        for (src, bytes) in self.sys_messages() {
            parts[src] = Part::parse(bytes);
        }
        if parts.iter().all(|part| part.as_ref().is_some_and(|part| call.matches(part))) {
            return parts.into_iter().flatten().collect();
        }
        let calls: Vec<String> = parts
            .iter()
            .enumerate()
            .map(|(q, part)| match part {
                Some(part) => format!("process {q} called {}", part.describe()),
                None => format!("process {q} called no collective"),
            })
            .collect();
        let msg = format!(
            "collective mismatch at the sync ending superstep {}: every process must call the same collective, with the same root and element type, but {}",
            call.step,
            calls.join(", ")
        );
        if parts.iter().all(Option::is_some) {
            // Every process called a collective and received every header: all reach this
            // verdict alike.
            self.fail_collective(msg)
        } else {
            // A process that called plain `sync` checks nothing and would go on (and wait for the
            // others forever on MPI): stop every process as a panic does.
            self.fail_misuse(msg)
        }
    }

    /// Fails the run (on every process alike) unless every process passed the same length.
    fn coll_same_len(&self, call: &Call, parts: &[Part<'_>], what: &str) {
        if parts.iter().any(|part| part.len != parts[0].len) {
            let lens: Vec<usize> = parts.iter().map(|part| part.len).collect();
            self.fail_collective(format!(
                "`{}` at the sync ending superstep {}: every process must pass {what} of the same length, but the lengths differ (per process: {lens:?})",
                // The kind's name, not `call.op`: the message must be the same on every process.
                call.kind.op(),
                call.step
            ));
        }
    }

    /// Folds the data of processes `0..=last` (this process's from `mine`, the others' from
    /// `parts`) with `op`, in ascending pid order, elementwise.
    fn coll_fold<T: Value>(&self, parts: &[Part<'_>], last: usize, mine: &[T], op: &impl Fn(T, T) -> T) -> Vec<T> {
        let me = self.pid;
        let mut acc = if me == 0 { mine.to_vec() } else { vec_from_bytes(parts[0].payload, parts[0].count) };
        for (q, part) in parts.iter().enumerate().take(last + 1).skip(1) {
            if q == me {
                acc.iter_mut().zip(mine).for_each(|(a, &b)| *a = op(*a, b));
            } else {
                combine_bytes(&mut acc, part.payload, op);
            }
        }
        acc
    }

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
        let call = self.coll_call::<T>(Kind::Broadcast, root);
        let me = self.pid;
        let data = self.coll_read(&call, data, me == root);
        let data = &data[..];
        for q in 0..self.nprocs {
            let payload = if me == root && q != me { data } else { &[] };
            self.coll_send(&call, q, if me == root { data.len() } else { 0 }, payload);
        }
        self.sync();
        let parts = self.coll_parts(&call);
        if me == root {
            data.to_vec()
        } else {
            vec_from_bytes(parts[root].payload, parts[root].count)
        }
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
        let call = self.coll_call::<T>(Kind::BroadcastLargePieces, root);
        let (me, p) = (self.pid, self.nprocs);
        let data = self.coll_read(&call, data, me == root);
        let data = &data[..];
        for q in 0..p {
            let payload = if me == root && q != me { &data[block(data.len(), p, q)] } else { &[] };
            self.coll_send(&call, q, if me == root { data.len() } else { 0 }, payload);
        }
        self.sync();
        let (n, piece) = {
            let parts = self.coll_parts(&call);
            let piece =
                if me == root { Vec::new() } else { vec_from_bytes::<T>(parts[root].payload, parts[root].count) };
            (parts[root].len, piece)
        };
        let call = self.coll_call::<T>(Kind::BroadcastLargeAll, 0);
        let mine = if me == root { &data[block(n, p, me)] } else { &piece[..] };
        for q in 0..p {
            self.coll_send(&call, q, n, if q == me || q == root { &[] } else { mine });
        }
        self.sync();
        if me == root {
            // The root has it all; it only helped the others.
            self.coll_parts(&call);
            return data.to_vec();
        }
        let parts = self.coll_parts(&call);
        let mut all = Vec::with_capacity(n);
        for (q, part) in parts.iter().enumerate() {
            if q == me {
                all.extend_from_slice(mine);
            } else {
                extend_from_bytes(&mut all, part.payload, part.count);
            }
        }
        all
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
        let call = self.coll_call::<T>(Kind::Reduce, root);
        let me = self.pid;
        let data = self.coll_read(&call, data, true);
        let data = &data[..];
        self.coll_exchange(&call, data, |q| q == root);
        let parts = self.coll_parts(&call);
        self.coll_same_len(&call, &parts, "data");
        (me == root).then(|| self.coll_fold(&parts, self.nprocs - 1, data, &op))
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
        let call = self.coll_call::<T>(Kind::Allreduce, 0);
        let data = self.coll_read(&call, data, true);
        let data = &data[..];
        self.coll_exchange(&call, data, |_| true);
        let parts = self.coll_parts(&call);
        self.coll_same_len(&call, &parts, "data");
        self.coll_fold(&parts, self.nprocs - 1, data, &op)
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
        let call = self.coll_call::<T>(Kind::Scan, 0);
        let me = self.pid;
        let data = self.coll_read(&call, data, true);
        let data = &data[..];
        self.coll_exchange(&call, data, |q| q > me);
        let parts = self.coll_parts(&call);
        self.coll_same_len(&call, &parts, "data");
        self.coll_fold(&parts, me, data, &op)
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
        let call = self.coll_call::<T>(Kind::Gather, root);
        let me = self.pid;
        let data = self.coll_read(&call, data, true);
        let data = &data[..];
        self.coll_exchange(&call, data, |q| q == root);
        let parts = self.coll_parts(&call);
        (me == root).then(|| self.coll_collect(&parts, data))
    }

    /// Each process's data, indexed by pid: `mine` for this one, the payloads for the others.
    fn coll_collect<T: Value>(&self, parts: &[Part<'_>], mine: &[T]) -> Vec<Vec<T>> {
        parts
            .iter()
            .enumerate()
            .map(|(q, part)| if q == self.pid { mine.to_vec() } else { vec_from_bytes(part.payload, part.count) })
            .collect()
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
        let call = self.coll_call::<T>(Kind::Allgather, 0);
        let data = self.coll_read(&call, data, true);
        let data = &data[..];
        self.coll_exchange(&call, data, |_| true);
        let parts = self.coll_parts(&call);
        self.coll_collect(&parts, data)
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
        let call = self.coll_call::<T>(Kind::Scatter, root);
        let (me, p) = (self.pid, self.nprocs);
        if me == root && parts.len() != p {
            self.fail_misuse(format!(
                "scatter: the root must pass one part per process, but it passed {} parts (nprocs = {p})",
                parts.len()
            ));
        }
        if me == root {
            for (q, part) in parts.iter().enumerate() {
                let part = part.as_ref();
                self.coll_send(&call, q, part.len(), if q != me { part } else { &[] });
            }
        } else {
            for q in 0..p {
                self.coll_send::<T>(&call, q, 0, &[]);
            }
        }
        self.sync();
        let got = self.coll_parts(&call);
        if me == root {
            parts[me].as_ref().to_vec()
        } else {
            vec_from_bytes(got[root].payload, got[root].count)
        }
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
        let call = self.coll_call::<T>(Kind::Alltoall, 0);
        let (me, p) = (self.pid, self.nprocs);
        let data = self.coll_read(&call, data, true);
        let data = &data[..];
        if data.len() % p != 0 {
            self.fail_misuse(format!(
                "alltoall: the length {} is not a multiple of nprocs = {p} (block q of the data goes to process q, so it needs {p} blocks of equal length; for blocks of different lengths use `alltoallv`)",
                data.len()
            ));
        }
        let k = data.len() / p;
        for q in 0..p {
            self.coll_send(&call, q, data.len(), if q != me { &data[q * k..(q + 1) * k] } else { &[] });
        }
        self.sync();
        let parts = self.coll_parts(&call);
        self.coll_same_len(&call, &parts, "data");
        let mut out = Vec::with_capacity(data.len());
        for (q, part) in parts.iter().enumerate() {
            if q == me {
                out.extend_from_slice(&data[me * k..(me + 1) * k]);
            } else {
                extend_from_bytes(&mut out, part.payload, part.count);
            }
        }
        out
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
        let call = self.coll_call::<T>(Kind::Alltoallv, 0);
        self.coll_exchange_parts(&call, parts);
        let got = self.coll_parts(&call);
        self.coll_collect(&got, parts[self.pid].as_ref())
    }
}
