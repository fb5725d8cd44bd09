//! Rectangular patches `lo..=hi` of a GP array's index space, visited in row-major order (the
//! last C axis varies fastest), which is the order GA packs `GP_Get` results in.

/// The subscripts of the patch `lo..=hi` (inclusive bounds, C order), in row-major order: the
/// last axis varies fastest. An empty iterator if `hi < lo` on some axis.
///
/// This is the order of the elements of a [`get`](super::GpArray::get) result and of the
/// `elements` of a [`put`](super::GpArray::put).
///
/// ```
/// let subs: Vec<Vec<usize>> = bsp_runtime::gp::subscripts(&[1, 0], &[2, 1]).collect();
/// assert_eq!(subs, [[1, 0], [1, 1], [2, 0], [2, 1]]);
/// ```
///
/// # Panics
/// If `lo` and `hi` have different lengths.
pub fn subscripts(lo: &[usize], hi: &[usize]) -> Subscripts {
    assert_eq!(lo.len(), hi.len(), "`lo` {lo:?} and `hi` {hi:?} must have one index per axis each");
    let empty = lo.iter().zip(hi).any(|(l, h)| h < l);
    Subscripts { lo: lo.to_vec(), hi: hi.to_vec(), next: (!empty).then(|| lo.to_vec()) }
}

/// Iterator over the subscripts of a patch in row-major order; see [`subscripts`].
#[derive(Clone, Debug)]
pub struct Subscripts {
    lo: Vec<usize>,
    hi: Vec<usize>,
    next: Option<Vec<usize>>,
}

impl Iterator for Subscripts {
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        let current = self.next.take()?;
        let mut following = current.clone();
        // Odometer: bump the last axis, carrying into earlier ones.
        for d in (0..following.len()).rev() {
            if following[d] < self.hi[d] {
                following[d] += 1;
                self.next = Some(following);
                break;
            }
            following[d] = self.lo[d];
        }
        Some(current)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.next {
            None => (0, Some(0)),
            Some(at) => {
                // Elements left = row-major rank of the end minus the rank of `at`.
                let mut left = 0usize;
                let mut stride = 1usize;
                for d in (0..at.len()).rev() {
                    left += (self.hi[d] - at[d]) * stride;
                    stride *= self.hi[d] - self.lo[d] + 1;
                }
                (left + 1, Some(left + 1))
            }
        }
    }
}

impl ExactSizeIterator for Subscripts {}

/// Calls `f` with every subscript of the patch `lo..=hi` (callers check `lo <= hi`), in
/// row-major order, as [`subscripts`] yields them but without a vector per subscript.
pub(crate) fn for_each(lo: &[usize], hi: &[usize], mut f: impl FnMut(&[usize])) {
    let mut sub = lo.to_vec();
    loop {
        f(&sub);
        // Odometer: bump the last axis, carrying into earlier ones.
        let Some(d) = (0..sub.len()).rev().find(|&d| sub[d] < hi[d]) else { return };
        sub[d] += 1;
        sub[d + 1..].copy_from_slice(&lo[d + 1..]);
    }
}

/// Extents of the patch `lo..=hi` (callers check `lo <= hi`).
pub(crate) fn extents(lo: &[usize], hi: &[usize]) -> Vec<usize> {
    lo.iter().zip(hi).map(|(l, h)| h - l + 1).collect()
}

/// The subscript at row-major position `index` of the patch starting at `lo` with `extents`.
pub(crate) fn unravel(mut index: usize, lo: &[usize], extents: &[usize]) -> Vec<usize> {
    let mut sub = vec![0; lo.len()];
    for d in (0..lo.len()).rev() {
        sub[d] = lo[d] + index % extents[d];
        index /= extents[d];
    }
    sub
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_major_with_exact_size() {
        let it = subscripts(&[0, 1, 2], &[1, 2, 3]);
        assert_eq!(it.len(), 8);
        let all: Vec<_> = it.collect();
        assert_eq!(all[0], [0, 1, 2]);
        assert_eq!(all[1], [0, 1, 3]);
        assert_eq!(all[2], [0, 2, 2]);
        assert_eq!(all[7], [1, 2, 3]);
        let ext = extents(&[0, 1, 2], &[1, 2, 3]);
        for (i, s) in all.iter().enumerate() {
            assert_eq!(&unravel(i, &[0, 1, 2], &ext), s);
        }
    }

    #[test]
    fn for_each_visits_the_subscripts_in_order() {
        for (lo, hi) in [(&[0, 1, 2][..], &[1, 2, 3][..]), (&[4], &[4]), (&[2, 0], &[2, 3])] {
            let mut seen = Vec::new();
            for_each(lo, hi, |sub| seen.push(sub.to_vec()));
            assert_eq!(seen, subscripts(lo, hi).collect::<Vec<_>>());
        }
    }

    #[test]
    fn empty_patch() {
        assert_eq!(subscripts(&[3], &[2]).count(), 0);
        assert_eq!(subscripts(&[3], &[2]).len(), 0);
    }

    #[test]
    fn size_hint_counts_down() {
        let mut it = subscripts(&[0, 0], &[2, 3]);
        for left in (0..12).rev() {
            it.next();
            assert_eq!(it.len(), left);
        }
        assert!(it.next().is_none());
    }
}
