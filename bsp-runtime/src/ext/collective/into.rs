//! Gathering collectives that write into a buffer the caller keeps: [`Parts`], and
//! `gather_into`, `allgather_into` and `alltoallv_into`.
//!
//! `gather`, `allgather` and `alltoallv` return a `Vec<Vec<T>>`: one allocation per process on
//! every call. A loop that calls them every superstep can instead keep one [`Parts`] and pass it
//! to the `_into` forms, which refill it in place (its memory is reused once it is large
//! enough). A `Parts` holds the received data contiguously, in pid order, so it reads both as
//! one slice ([`flat`](Parts::flat), the `concat()` of the `Vec<Vec<T>>`) and per process
//! (`parts[q]`).

use std::ops::Index;

use super::CollectiveData;
use super::wire::{Call, Group, Kind, Part, extend_from_bytes};
use crate::{Ctx, Value};

/// What a gathering collective received, one part per process, stored contiguously in pid
/// order; reused from call to call by the `_into` collectives.
///
/// ```
/// use bsp_runtime::collective::Parts;
///
/// let out = bsp_runtime::run(3, |ctx| {
///     let mut got = Parts::new(); // kept across the loop: its memory is reused
///     let mut lens = Vec::new();
///     for round in 0..3 {
///         ctx.allgather_into(&vec![ctx.pid() as u32; round], &mut got);
///         lens.push(got.flat().len());
///     }
///     (lens, got[2].to_vec(), got.to_vecs())
/// })
/// .unwrap();
/// assert_eq!(out[0].0, [0, 3, 6]);
/// assert_eq!(out[0].1, [2, 2]);
/// assert_eq!(out[0].2, [vec![0, 0], vec![1, 1], vec![2, 2]]);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Parts<T> {
    data: Vec<T>,
    /// `starts[q]..starts[q + 1]` is part `q`; empty when there are no parts.
    starts: Vec<usize>,
}

impl<T> Default for Parts<T> {
    fn default() -> Self {
        Parts { data: Vec::new(), starts: Vec::new() }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Parts<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T> Parts<T> {
    /// No parts, nothing allocated.
    ///
    /// ```
    /// let parts = bsp_runtime::collective::Parts::<u8>::new();
    /// assert!(parts.is_empty());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of parts: `nprocs()` after a call that filled it, 0 before, and 0 after a
    /// `gather_into` on a process other than the root.
    ///
    /// ```
    /// let n = bsp_runtime::run(2, |ctx| {
    ///     let mut parts = bsp_runtime::collective::Parts::new();
    ///     ctx.gather_into(1, &[1u8], &mut parts);
    ///     parts.len()
    /// })
    /// .unwrap();
    /// assert_eq!(n, [0, 2]);
    /// ```
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Whether there are no parts (see [`len`](Parts::len)).
    ///
    /// ```
    /// assert!(bsp_runtime::collective::Parts::<f64>::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Part `q`: what process `q` contributed (or sent this process).
    ///
    /// ```
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let mut parts = bsp_runtime::collective::Parts::new();
    ///     ctx.allgather_into(&vec![7u8; ctx.pid() + 1], &mut parts);
    ///     (parts.part(0).to_vec(), parts.get(1).map(<[u8]>::len), parts.get(2).is_none())
    /// })
    /// .unwrap();
    /// assert_eq!(out[0], (vec![7], Some(2), true));
    /// ```
    ///
    /// # Panics
    /// If `q >= len()`.
    #[track_caller]
    pub fn part(&self, q: usize) -> &[T] {
        match self.get(q) {
            Some(part) => part,
            None => panic!("Parts::part: part {q} does not exist (there are {} parts)", self.len()),
        }
    }

    /// Part `q`, or `None` if there is no part `q`.
    ///
    /// ```
    /// assert_eq!(bsp_runtime::collective::Parts::<u8>::new().get(0), None);
    /// ```
    pub fn get(&self, q: usize) -> Option<&[T]> {
        let (start, end) = (*self.starts.get(q)?, *self.starts.get(q + 1)?);
        Some(&self.data[start..end])
    }

    /// Every part, one after the other in pid order (what `concat()` of the `Vec<Vec<T>>`
    /// of the allocating collective gives).
    ///
    /// ```
    /// let out = bsp_runtime::run(3, |ctx| {
    ///     let mut parts = bsp_runtime::collective::Parts::new();
    ///     ctx.allgather_into(&vec![ctx.pid() as u8; ctx.pid()], &mut parts);
    ///     parts.flat().to_vec()
    /// })
    /// .unwrap();
    /// assert_eq!(out[0], [1, 2, 2]);
    /// ```
    pub fn flat(&self) -> &[T] {
        &self.data
    }

    /// Every part, contiguous, to modify in place (to sort it, say); the part boundaries stay.
    ///
    /// ```
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let mut parts = bsp_runtime::collective::Parts::new();
    ///     ctx.allgather_into(&[9 - ctx.pid() as u8, 5], &mut parts);
    ///     parts.flat_mut().sort();
    ///     parts.to_vecs()
    /// })
    /// .unwrap();
    /// assert_eq!(out[0], [vec![5, 5], vec![8, 9]]);
    /// ```
    pub fn flat_mut(&mut self) -> &mut [T] {
        &mut self.data
    }

    /// The parts in pid order.
    ///
    /// ```
    /// let out = bsp_runtime::run(3, |ctx| {
    ///     let mut parts = bsp_runtime::collective::Parts::new();
    ///     ctx.allgather_into(&vec![0u16; ctx.pid()], &mut parts);
    ///     parts.iter().map(<[u16]>::len).collect::<Vec<_>>()
    /// })
    /// .unwrap();
    /// assert_eq!(out[1], [0, 1, 2]);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[T]> + '_ {
        self.starts.windows(2).map(|w| &self.data[w[0]..w[1]])
    }

    /// The data, in pid order, without the boundaries (no copy).
    ///
    /// ```
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let mut parts = bsp_runtime::collective::Parts::new();
    ///     ctx.allgather_into(&[ctx.pid() as i32], &mut parts);
    ///     parts.into_flat()
    /// })
    /// .unwrap();
    /// assert_eq!(out[1], [0, 1]);
    /// ```
    pub fn into_flat(self) -> Vec<T> {
        self.data
    }

    /// Starts refilling: no parts, the memory kept.
    fn clear(&mut self) {
        self.data.clear();
        self.starts.clear();
    }
}

impl<T: Clone> Parts<T> {
    /// A copy as one vector per part (the shape the allocating collectives return).
    ///
    /// ```
    /// assert!(bsp_runtime::collective::Parts::<u8>::new().to_vecs().is_empty());
    /// ```
    pub fn to_vecs(&self) -> Vec<Vec<T>> {
        self.iter().map(<[T]>::to_vec).collect()
    }
}

impl<T> Index<usize> for Parts<T> {
    type Output = [T];

    /// Part `q`, as [`part`](Parts::part).
    #[track_caller]
    fn index(&self, q: usize) -> &[T] {
        self.part(q)
    }
}

impl Ctx {
    /// Refills `out` with every process's part, in pid order: `mine` for this process, the
    /// payloads for the others.
    fn coll_collect_into<T: Value>(&self, call: &Call<'_>, parts: &[Part<'_>], mine: &[T], out: &mut Parts<T>) {
        out.clear();
        out.starts.push(0);
        for (q, part) in parts.iter().enumerate() {
            if q == call.group.me {
                out.data.extend_from_slice(mine);
            } else {
                extend_from_bytes(&mut out.data, part.payload, part.count);
            }
            out.starts.push(out.data.len());
        }
    }

    /// [`gather`](Ctx::gather) into `out`, which the caller keeps from call to call: on `root`,
    /// `out` holds every process's data (part `q` from process `q`); elsewhere it is left with
    /// no parts.
    ///
    /// **[Cost](crate::collective#cost):** as `gather`; `out` is reused, so no allocation once
    /// it is large enough.
    ///
    /// ```
    /// let got = bsp_runtime::run(3, |ctx| {
    ///     let mut parts = bsp_runtime::collective::Parts::new();
    ///     ctx.gather_into(0, &vec![ctx.pid() as u8; ctx.pid()], &mut parts);
    ///     parts.to_vecs()
    /// })
    /// .unwrap();
    /// assert_eq!(got[0], [vec![], vec![1], vec![2, 2]]);
    /// assert!(got[1].is_empty());
    /// ```
    ///
    /// # Panics
    /// As [`gather`](Ctx::gather) (a process may call `gather` while another calls
    /// `gather_into`).
    #[track_caller]
    pub fn gather_into<T: Value>(&mut self, root: usize, data: impl CollectiveData<T>, out: &mut Parts<T>) {
        self.gather_into_in(Group::all(self), root, data, out);
    }

    #[track_caller]
    pub(super) fn gather_into_in<T: Value>(
        &mut self,
        group: Group<'_>,
        root: usize,
        data: impl CollectiveData<T>,
        out: &mut Parts<T>,
    ) {
        let call = self.coll_call::<T>(group, Kind::Gather, "gather_into", root);
        let me = group.me;
        let data = self.coll_read(&call, data, true);
        self.coll_exchange(&call, &data, |q| q == root);
        let parts = self.coll_parts(&call);
        if me == root {
            self.coll_collect_into(&call, &parts, &data, out);
        } else {
            out.clear();
        }
    }

    /// [`allgather`](Ctx::allgather) into `out`, which the caller keeps from call to call: part
    /// `q` of `out` is process `q`'s data.
    ///
    /// **[Cost](crate::collective#cost):** as `allgather`; `out` is reused, so no allocation
    /// once it is large enough.
    ///
    /// ```
    /// let got = bsp_runtime::run(3, |ctx| {
    ///     let mut parts = bsp_runtime::collective::Parts::new();
    ///     ctx.allgather_into(&[ctx.pid() as i8 * 2], &mut parts);
    ///     parts.flat().to_vec()
    /// })
    /// .unwrap();
    /// assert_eq!(got[2], [0, 2, 4]);
    /// ```
    ///
    /// # Panics
    /// As [`allgather`](Ctx::allgather).
    #[track_caller]
    pub fn allgather_into<T: Value>(&mut self, data: impl CollectiveData<T>, out: &mut Parts<T>) {
        self.allgather_into_in(Group::all(self), data, out);
    }

    #[track_caller]
    pub(super) fn allgather_into_in<T: Value>(
        &mut self,
        group: Group<'_>,
        data: impl CollectiveData<T>,
        out: &mut Parts<T>,
    ) {
        let call = self.coll_call::<T>(group, Kind::Allgather, "allgather_into", 0);
        let data = self.coll_read(&call, data, true);
        self.coll_exchange(&call, &data, |_| true);
        let parts = self.coll_parts(&call);
        self.coll_collect_into(&call, &parts, &data, out);
    }

    /// [`alltoallv`](Ctx::alltoallv) into `out`, which the caller keeps from call to call:
    /// `parts[q]` goes to process `q`, and part `q` of `out` came from process `q`.
    ///
    /// **[Cost](crate::collective#cost):** as `alltoallv`; `out` is reused, so no allocation
    /// once it is large enough.
    ///
    /// ```
    /// // Every process sends q copies of its pid to process q, twice, into the same buffer.
    /// let got = bsp_runtime::run(3, |ctx| {
    ///     let parts: Vec<Vec<usize>> = (0..ctx.nprocs()).map(|q| vec![ctx.pid(); q]).collect();
    ///     let mut received = bsp_runtime::collective::Parts::new();
    ///     ctx.alltoallv_into(&parts, &mut received);
    ///     ctx.alltoallv_into(&parts, &mut received);
    ///     received.to_vecs()
    /// })
    /// .unwrap();
    /// assert_eq!(got[2], [vec![0, 0], vec![1, 1], vec![2, 2]]);
    /// ```
    ///
    /// # Panics
    /// As [`alltoallv`](Ctx::alltoallv).
    #[track_caller]
    pub fn alltoallv_into<T: Value, P: AsRef<[T]>>(&mut self, parts: &[P], out: &mut Parts<T>) {
        self.alltoallv_into_in(Group::all(self), parts, out);
    }

    #[track_caller]
    pub(super) fn alltoallv_into_in<T: Value, P: AsRef<[T]>>(
        &mut self,
        group: Group<'_>,
        parts: &[P],
        out: &mut Parts<T>,
    ) {
        let call = self.coll_call::<T>(group, Kind::Alltoallv, "alltoallv_into", 0);
        self.coll_exchange_parts(&call, parts);
        let got = self.coll_parts(&call);
        self.coll_collect_into(&call, &got, parts[group.me].as_ref(), out);
    }
}
