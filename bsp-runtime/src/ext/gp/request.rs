//! The bytes a GP read (get, gather, their `_into` and `_size` variants) sends to the owners
//! of the elements it reads, and their replies.
//!
//! A read is one extension request (`ext/mod.rs`) with one part per owner of a requested element,
//! ascending owner; the part lists the owner's elements in request order, duplicates included.
//! The owner's [`GpShared`](super::shared::GpShared) answers it in the get phase of the sync
//! ([`serve`]), and the requester's callback gets the replies in part order and walks them in
//! request order ([`Order::elements`]). Layouts, in native-endian `u64` words and then raw bytes
//! (requester and owner are the same program):
//!
//! ```text
//! request:  sizes_only  n  (local index) × n
//! reply:    (length in T) × n  [data of element 0 | data of element 1 | …  unless sizes_only]
//! ```
//!
//! An unassigned element has length 0. The data is unaligned; the requester copies it out as
//! bytes (or in place when it happens to be aligned).

use std::ops::Range;

use super::record::{WORD, read_word};
use crate::Value;

/// The parts of a read: for each owner asked, the bytes of its request.
#[derive(Debug)]
pub(crate) struct Parts {
    bytes: Vec<u8>,
    /// Each part's owner (ascending) and byte range in `bytes`.
    parts: Vec<(usize, Range<usize>)>,
}

impl Parts {
    /// (owner, request bytes), in part order: the `parts` of `Ctx::request_ext`.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (usize, &[u8])> + '_ {
        self.parts.iter().map(|(owner, range)| (*owner, &self.bytes[range.clone()]))
    }
}

/// How to walk the replies of a read in request order.
#[derive(Debug)]
pub(crate) struct Order {
    sizes_only: bool,
    /// For each requested element, in request order, the part (owner) it was asked of.
    part: Vec<u32>,
    /// The number of elements asked of each part.
    counts: Vec<usize>,
}

/// Groups the elements at `locs` (owner, local index), in request order, by owner: the request
/// parts, and the order to read the replies back in.
pub(crate) fn plan(nprocs: usize, sizes_only: bool, locs: &[(usize, usize)]) -> (Order, Parts) {
    // Per owner: the number of its elements, then its part number.
    let mut count = vec![0usize; nprocs];
    for &(owner, _) in locs {
        count[owner] += 1;
    }
    // Per owner: the word where its next local index goes.
    let mut next = vec![0usize; nprocs];
    let mut parts = Vec::new();
    let mut counts = Vec::new();
    let mut words = 0;
    for (owner, c) in count.iter_mut().enumerate() {
        if *c > 0 {
            parts.push((owner, WORD * words..WORD * (words + 2 + *c)));
            counts.push(*c);
            next[owner] = words + 2;
            words += 2 + *c;
            *c = parts.len() - 1;
        }
    }
    let mut bytes = vec![0u8; WORD * words];
    for ((_, range), &n) in parts.iter().zip(&counts) {
        let at = range.start / WORD;
        write_word(&mut bytes, at, usize::from(sizes_only));
        write_word(&mut bytes, at + 1, n);
    }
    let mut part = Vec::with_capacity(locs.len());
    for &(owner, index) in locs {
        write_word(&mut bytes, next[owner], index);
        next[owner] += 1;
        part.push(u32::try_from(count[owner]).expect("fewer than 2^32 processes"));
    }
    (Order { sizes_only, part, counts }, Parts { bytes, parts })
}

/// Answers a request made by [`plan`]: appends the reply to `reply`. `element(i)` is local
/// element `i` (empty if unassigned), or `None` if there is no such element.
///
/// # Errors
/// The first local index that names no element (a bug, not a user error: requester and owner
/// share the distribution).
pub(crate) fn serve<'a, T: Value>(
    request: &[u8],
    reply: &mut Vec<u8>,
    element: impl Fn(usize) -> Option<&'a [T]>,
) -> Result<(), usize> {
    assert!(request.len() >= 2 * WORD, "internal error: truncated gp request");
    let sizes_only = read_word(request, 0) != 0;
    let n = read_word(request, WORD);
    assert_eq!(request.len(), WORD * (2 + n), "internal error: gp request of the wrong length");
    let indices = || (0..n).map(|i| read_word(request, WORD * (2 + i)));
    let mut values = 0;
    for index in indices() {
        values += element(index).ok_or(index)?.len();
    }
    reply.reserve(WORD * n + if sizes_only { 0 } else { values * std::mem::size_of::<T>() });
    for index in indices() {
        let len = element(index).map_or(0, <[T]>::len);
        reply.extend_from_slice(&(len as u64).to_ne_bytes());
    }
    if !sizes_only {
        for index in indices() {
            reply.extend_from_slice(bytemuck::cast_slice(element(index).unwrap_or(&[])));
        }
    }
    Ok(())
}

impl Order {
    /// The requested elements, in request order, from the `replies` of the parts (in part
    /// order): each element's length in `T` and its data bytes (empty for a sizes-only read).
    ///
    /// # Panics
    /// If the replies are not those of this read (a bug, not a user error).
    pub(crate) fn elements<'a, 'r: 'a, T: Value>(
        &'a self,
        replies: &mut dyn Iterator<Item = &'r [u8]>,
    ) -> Elements<'a, T> {
        let mut cursors = Vec::with_capacity(self.counts.len());
        let mut data_bytes = 0;
        for (reply, &n) in replies.zip(&self.counts) {
            let (sizes, data) = reply.split_at(WORD * n);
            data_bytes += data.len();
            cursors.push(Cursor { sizes, data });
        }
        assert_eq!(cursors.len(), self.counts.len(), "internal error: a gp read got too few replies");
        if self.sizes_only {
            assert_eq!(data_bytes, 0, "internal error: data in the reply to a gp size query");
        }
        Elements {
            sizes_only: self.sizes_only,
            order: self.part.iter(),
            cursors,
            values: data_bytes / std::mem::size_of::<T>(),
            _type: std::marker::PhantomData,
        }
    }
}

/// Where the next element of one part's reply is.
struct Cursor<'a> {
    sizes: &'a [u8],
    data: &'a [u8],
}

/// The elements of a read, in request order (see [`Order::elements`]).
pub(crate) struct Elements<'a, T> {
    sizes_only: bool,
    order: std::slice::Iter<'a, u32>,
    cursors: Vec<Cursor<'a>>,
    values: usize,
    _type: std::marker::PhantomData<fn() -> T>,
}

impl<T> Elements<'_, T> {
    /// The total length in `T` of the data of every element (0 for a sizes-only read).
    pub(crate) fn values(&self) -> usize {
        self.values
    }
}

impl<'a, T: Value> Iterator for Elements<'a, T> {
    /// (length in `T`, data bytes: empty for a sizes-only read)
    type Item = (usize, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let &part = self.order.next()?;
        let cursor = &mut self.cursors[part as usize];
        let len = read_word(cursor.sizes, 0);
        cursor.sizes = &cursor.sizes[WORD..];
        let bytes = if self.sizes_only { 0 } else { len * std::mem::size_of::<T>() };
        let (data, rest) = cursor.data.split_at(bytes);
        cursor.data = rest;
        Some((len, data))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.order.size_hint()
    }
}

impl<T: Value> ExactSizeIterator for Elements<'_, T> {}

/// Appends the values whose bytes are `bytes` (a whole number of `T`, not necessarily aligned).
pub(crate) fn extend_from_bytes<T: Value>(dst: &mut Vec<T>, bytes: &[u8]) {
    match bytemuck::try_cast_slice::<u8, T>(bytes) {
        Ok(values) => dst.extend_from_slice(values),
        Err(_) => {
            let at = dst.len();
            dst.resize(at + bytes.len() / std::mem::size_of::<T>(), T::zeroed());
            bytemuck::cast_slice_mut::<T, u8>(&mut dst[at..]).copy_from_slice(bytes);
        }
    }
}

fn write_word(bytes: &mut [u8], word: usize, value: usize) {
    bytes[WORD * word..WORD * (word + 1)].copy_from_slice(&(value as u64).to_ne_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Owners 0..3 with 4 local elements: element `i` holds `i` copies of `10 * owner + i` for
    /// `i` in 1..=2, elements 0 and 3 are empty; there is no element 4.
    fn element(owner: usize, index: usize) -> Option<&'static [u16]> {
        const DATA: [[&[u16]; 4]; 3] =
            [[&[], &[1], &[2, 2], &[]], [&[], &[11], &[12, 12], &[]], [&[], &[21], &[22, 22], &[]]];
        DATA.get(owner).and_then(|o| o.get(index)).copied()
    }

    fn round_trip(sizes_only: bool, locs: &[(usize, usize)]) -> (usize, Vec<(usize, Vec<u16>)>) {
        let (order, parts) = plan(3, sizes_only, locs);
        let owners: Vec<usize> = parts.iter().map(|(q, _)| q).collect();
        let mut sorted = owners.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(owners, sorted, "one part per owner, ascending");
        // Replies back to back at odd offsets, as the threads engine may place them.
        let mut all = vec![0u8];
        let mut ranges = Vec::new();
        for (q, request) in parts.iter() {
            let start = all.len();
            serve::<u16>(request, &mut all, |i| element(q, i)).unwrap();
            ranges.push(start..all.len());
            all.push(0);
        }
        let elements = order.elements::<u16>(&mut ranges.iter().map(|r| &all[r.clone()]));
        assert_eq!(elements.len(), locs.len());
        let values = elements.values();
        let got = elements
            .map(|(len, bytes)| {
                let mut v = Vec::new();
                extend_from_bytes(&mut v, bytes);
                (len, v)
            })
            .collect();
        (values, got)
    }

    #[test]
    fn replies_come_back_in_request_order() {
        let locs = [(2, 2), (0, 1), (2, 3), (2, 2), (0, 2)];
        let (values, got) = round_trip(false, &locs);
        assert_eq!(values, 7);
        assert_eq!(got, [(2, vec![22, 22]), (1, vec![1]), (0, vec![]), (2, vec![22, 22]), (2, vec![2, 2])]);
        let (values, got) = round_trip(true, &locs);
        assert_eq!(values, 0);
        assert_eq!(got, [(2, vec![]), (1, vec![]), (0, vec![]), (2, vec![]), (2, vec![])]);
    }

    #[test]
    fn nothing_requested() {
        let (order, parts) = plan(4, false, &[]);
        assert_eq!(parts.iter().count(), 0);
        assert_eq!(order.elements::<u8>(&mut std::iter::empty()).count(), 0);
    }

    #[test]
    fn a_bad_index_is_reported() {
        let (_, parts) = plan(3, false, &[(1, 0), (1, 9)]);
        let (q, request) = parts.iter().next().unwrap();
        assert_eq!(serve::<u16>(request, &mut Vec::new(), |i| element(q, i)), Err(9));
    }
}
