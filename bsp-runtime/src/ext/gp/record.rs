//! The bytes a put or scatter sends to an element's owner.
//!
//! One record per call and owner, delivered by the runtime to the owner's
//! [`GpShared`](super::shared::GpShared) at the sync (`ext/mod.rs`). Layout, in native-endian `u64`
//! words and then raw bytes (sender and receiver are the same program):
//!
//! ```text
//! op  checksize  n  (local index, length in T) × n  data of element 0 | data of element 1 | …
//! ```
//!
//! The data is unaligned; the owner copies it into its element as bytes.

/// Which call made a record (for messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Put,
    Scatter,
}

impl Op {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Op::Put => "put",
            Op::Scatter => "scatter",
        }
    }
}

/// The size of the words of records and requests (`request.rs`).
pub(super) const WORD: usize = std::mem::size_of::<u64>();

/// The elements one call sends to one owner, in issue order.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    entries: Vec<(usize, usize)>,
    data: Vec<u8>,
}

impl Batch {
    /// Adds element `local` (index in the owner's block) with `len` values whose bytes are
    /// `bytes`.
    pub(crate) fn push(&mut self, local: usize, len: usize, bytes: &[u8]) {
        self.entries.push((local, len));
        self.data.extend_from_slice(bytes);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub(crate) fn encode(&self, op: Op, checksize: bool) -> Vec<u8> {
        let mut out = Vec::with_capacity(WORD * (3 + 2 * self.entries.len()) + self.data.len());
        let word = |out: &mut Vec<u8>, w: usize| out.extend_from_slice(&(w as u64).to_ne_bytes());
        word(&mut out, op as usize);
        word(&mut out, usize::from(checksize));
        word(&mut out, self.entries.len());
        for &(local, len) in &self.entries {
            word(&mut out, local);
            word(&mut out, len);
        }
        out.extend_from_slice(&self.data);
        out
    }
}

/// A decoded record: the call, its checksize flag, and its elements.
pub(crate) struct Record<'a> {
    pub op: Op,
    pub checksize: bool,
    n: usize,
    index: &'a [u8],
    data: &'a [u8],
}

impl<'a> Record<'a> {
    /// Decodes a record made by [`Batch::encode`].
    ///
    /// # Panics
    /// If `bytes` is not such a record (a bug in this module, not a user error).
    pub(crate) fn decode(bytes: &'a [u8]) -> Record<'a> {
        let word = |i: usize| read_word(bytes, i * WORD);
        let op = if word(0) == Op::Put as usize { Op::Put } else { Op::Scatter };
        let n = word(2);
        let index_end = WORD * (3 + 2 * n);
        assert!(bytes.len() >= index_end, "internal error: truncated gp record");
        Record { op, checksize: word(1) != 0, n, index: &bytes[WORD * 3..index_end], data: &bytes[index_end..] }
    }

    /// The elements: (local index, length in `T`, data bytes), given the size of `T`.
    pub(crate) fn elements(&self, elem_size: usize) -> impl Iterator<Item = (usize, usize, &'a [u8])> + '_ {
        let mut at = 0;
        (0..self.n).map(move |i| {
            let local = read_word(self.index, 2 * i * WORD);
            let len = read_word(self.index, (2 * i + 1) * WORD);
            let bytes = &self.data[at..at + len * elem_size];
            at += bytes.len();
            (local, len, bytes)
        })
    }
}

/// The word at byte `at` of a record or request (`request.rs`).
pub(super) fn read_word(bytes: &[u8], at: usize) -> usize {
    let word: [u8; WORD] = bytes[at..at + WORD].try_into().expect("a slice of WORD bytes");
    usize::try_from(u64::from_ne_bytes(word)).expect("internal error: gp record or request word out of range")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let mut b = Batch::default();
        b.push(3, 2, &[1, 2, 3, 4]);
        b.push(0, 0, &[]);
        b.push(7, 1, &[9, 9]);
        let bytes = b.encode(Op::Scatter, true);
        let r = Record::decode(&bytes);
        assert_eq!(r.op, Op::Scatter);
        assert!(r.checksize);
        let got: Vec<_> = r.elements(2).collect();
        assert_eq!(got, [(3, 2, &[1u8, 2, 3, 4][..]), (0, 0, &[][..]), (7, 1, &[9, 9][..])]);
    }
}
