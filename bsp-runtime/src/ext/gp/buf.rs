//! `GpBuf<T>`: the result of a GP get or gather, packed the way GA packs it.

use crate::Value;

/// The elements a [`get`](super::GpArray::get) or [`gather`](super::GpArray::gather) brought
/// back: their data packed contiguously (GA's `buf`), with the start of each element (GA's
/// `buf_ptr`, as offsets), the size of each (GA's `buf_size`) and the total (GA's `size`).
///
/// Elements are in row-major order of the patch for a get (the last axis varies fastest) and
/// in the order of the subscript list for a gather. Sizes count elements of `T`, not bytes.
/// An unassigned array element comes back with size 0, as in GA.
///
/// A `GpBuf` is filled at the sync that ends the superstep of the request, and stays
/// borrowed until then; fill it again in a later superstep to reuse its memory.
///
/// ```
/// use bsp_runtime::gp::{GpArray, GpBuf};
/// let out = bsp_runtime::run(2, |ctx| {
///     let mut g = GpArray::<u8>::builder(&[4]).build(ctx);
///     if let Some((lo, hi)) = g.distribution(ctx.pid()) {
///         for i in lo[0]..=hi[0] {
///             g.assign_local(ctx, &[i], vec![i as u8; i]); // element i holds i copies of i
///         }
///     }
///     ctx.sync();
///     let mut buf = GpBuf::new();
///     ctx.superstep(|s| g.get(s, &[1], &[3], &mut buf));
///     (buf.sizes().collect::<Vec<_>>(), buf.data().to_vec(), buf.element(2).to_vec())
/// })
/// .unwrap();
/// assert_eq!(out[0].0, [1, 2, 3]);
/// assert_eq!(out[0].1, [1, 2, 2, 3, 3, 3]);
/// assert_eq!(out[0].2, [3, 3, 3]);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct GpBuf<T: Value> {
    data: Vec<T>,
    /// `offsets[i]..offsets[i + 1]` is element `i`; one more entry than elements.
    offsets: Vec<usize>,
    shape: Vec<usize>,
}

impl<T: Value> Default for GpBuf<T> {
    fn default() -> Self {
        GpBuf { data: Vec::new(), offsets: vec![0], shape: vec![0] }
    }
}

impl<T: Value + std::fmt::Debug> std::fmt::Debug for GpBuf<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpBuf")
            .field("shape", &self.shape)
            .field("elements", &(0..self.len()).map(|i| self.element(i)).collect::<Vec<_>>())
            .finish()
    }
}

impl<T: Value> GpBuf<T> {
    /// An empty buffer (no elements).
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of array elements held (not the number of `T`s: see [`total`](Self::total)).
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether no array element is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The extents of the patch for a get (C order), or `[n]` for a gather of `n` subscripts.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Element `i` (row-major position in the patch, or position in the subscript list).
    ///
    /// # Panics
    /// If `i >= self.len()`.
    #[track_caller]
    pub fn element(&self, i: usize) -> &[T] {
        assert!(i < self.len(), "gp buffer: element {i} requested but the buffer holds {} elements", self.len());
        &self.data[self.offsets[i]..self.offsets[i + 1]]
    }

    /// The elements in order.
    pub fn elements(&self) -> impl ExactSizeIterator<Item = &[T]> + '_ {
        self.offsets.windows(2).map(|w| &self.data[w[0]..w[1]])
    }

    /// The size of every element, in elements of `T` (GA's `buf_size`).
    pub fn sizes(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.offsets.windows(2).map(|w| w[1] - w[0])
    }

    /// Where each element starts in [`data`](Self::data) (GA's `buf_ptr`, as offsets), plus
    /// the total at the end: element `i` is `data()[offsets()[i]..offsets()[i + 1]]`.
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// All elements' data, packed contiguously in order (GA's `buf`).
    pub fn data(&self) -> &[T] {
        &self.data
    }

    /// The total size of the elements, in elements of `T` (GA's `size`).
    pub fn total(&self) -> usize {
        self.data.len()
    }

    /// The elements as separate vectors.
    pub fn into_elements(self) -> Vec<Vec<T>> {
        self.elements().map(<[T]>::to_vec).collect()
    }

    /// Empties the buffer for a result of the given shape, keeping its memory.
    pub(crate) fn reset(&mut self, shape: &[usize]) {
        self.data.clear();
        self.offsets.clear();
        self.offsets.push(0);
        self.shape.clear();
        self.shape.extend_from_slice(shape);
    }

    /// Makes room for `elements` more elements holding `values` values of `T` in all.
    pub(crate) fn reserve(&mut self, elements: usize, values: usize) {
        self.offsets.reserve(elements);
        self.data.reserve(values);
    }

    /// Appends the next element, given as the bytes of its values (not necessarily aligned).
    pub(crate) fn push_bytes(&mut self, bytes: &[u8]) {
        super::request::extend_from_bytes(&mut self.data, bytes);
        self.offsets.push(self.data.len());
    }
}
