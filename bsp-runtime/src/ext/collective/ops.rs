//! Ready-made operators for [`reduce`](crate::Ctx::reduce), [`allreduce`](crate::Ctx::allreduce)
//! and [`scan`](crate::Ctx::scan).
//!
//! Each is a plain generic function, so it is passed by name: `ctx.allreduce(&x, ops::sum)`.
//! Any closure `Fn(T, T) -> T` works as well.
//!
//! ```
//! use bsp_runtime::ops;
//!
//! let r = bsp_runtime::run(3, |ctx| {
//!     let x = [ctx.pid() as i64 + 1];
//!     let s = ctx.allreduce(&x, ops::sum)[0];
//!     let lo = ctx.allreduce(&x, ops::min)[0];
//!     let hi = ctx.allreduce(&x, ops::max)[0];
//!     let pr = ctx.allreduce(&x, ops::product)[0];
//!     (s, lo, hi, pr)
//! })
//! .unwrap();
//! assert_eq!(r, vec![(6, 1, 3, 6); 3]);
//! ```

use std::ops::{Add, Mul, Neg};

/// `a + b`.
///
/// ```
/// assert_eq!(bsp_runtime::ops::sum(2.5, 1.0), 3.5);
/// ```
pub fn sum<T: Add<Output = T>>(a: T, b: T) -> T {
    a + b
}

/// `a * b`.
///
/// ```
/// assert_eq!(bsp_runtime::ops::product(3u32, 4), 12);
/// ```
pub fn product<T: Mul<Output = T>>(a: T, b: T) -> T {
    a * b
}

/// The smaller of `a` and `b`; `a` when they are equal or unordered (a NaN in `b` is ignored,
/// a NaN in `a` is kept).
///
/// ```
/// assert_eq!(bsp_runtime::ops::min(2, -7), -7);
/// assert_eq!(bsp_runtime::ops::min(1.0, f64::NAN), 1.0);
/// ```
pub fn min<T: PartialOrd>(a: T, b: T) -> T {
    if b < a { b } else { a }
}

/// The larger of `a` and `b`; `a` when they are equal or unordered (as [`min`]).
///
/// ```
/// assert_eq!(bsp_runtime::ops::max(2, -7), 2);
/// ```
pub fn max<T: PartialOrd>(a: T, b: T) -> T {
    if b > a { b } else { a }
}

/// A value and where it is (an index, such as a global row number), for [`max_loc`] and
/// [`min_loc`]: the operands of a pivot search.
///
/// Packed (no padding), so it is plain old data for any element type:
/// `Loc<f64>` is 16 bytes, `Loc<f32>` 12.
///
/// ```
/// use bsp_runtime::ops::Loc;
/// let x = Loc::new(2.5f32, 7);
/// assert_eq!((x.value(), x.index()), (2.5, 7));
/// assert_eq!(std::mem::size_of::<Loc<f32>>(), 12);
/// ```
#[derive(Clone, Copy)]
#[repr(C, packed)]
pub struct Loc<T> {
    value: T,
    index: u64,
}

// SAFETY: `repr(C, packed)` lays the two fields out one after the other with no padding; both are
// valid for every bit pattern (`T: Pod`, `u64`), so the struct is too, and all-zero is valid.
unsafe impl<T: bytemuck::Zeroable> bytemuck::Zeroable for Loc<T> {}
// SAFETY: as above; `Loc<T>` is `Copy` and `'static` whenever `T: Pod`.
unsafe impl<T: bytemuck::Pod> bytemuck::Pod for Loc<T> {}

impl<T: Copy> Loc<T> {
    /// `value` at `index`.
    ///
    /// ```
    /// assert_eq!(bsp_runtime::ops::Loc::new(-1i32, 3).index(), 3);
    /// ```
    pub fn new(value: T, index: u64) -> Loc<T> {
        Loc { value, index }
    }

    /// The value.
    ///
    /// ```
    /// assert_eq!(bsp_runtime::ops::Loc::new(4u8, 0).value(), 4);
    /// ```
    pub fn value(&self) -> T {
        self.value
    }

    /// Where the value is.
    ///
    /// ```
    /// assert_eq!(bsp_runtime::ops::Loc::new(4u8, 9).index(), 9);
    /// ```
    pub fn index(&self) -> u64 {
        self.index
    }
}

impl<T: Copy + std::fmt::Debug> std::fmt::Debug for Loc<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loc").field("value", &self.value()).field("index", &self.index()).finish()
    }
}

impl<T: Copy + PartialEq> PartialEq for Loc<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value() == other.value() && self.index() == other.index()
    }
}

/// The larger value with its index; of equal values, the one with the smaller index (so the
/// result does not depend on the order of combination). `a` when the values are unordered, as
/// [`max`].
///
/// ```
/// use bsp_runtime::ops::{max_loc, Loc};
/// assert_eq!(max_loc(Loc::new(1.0, 4), Loc::new(3.0, 9)), Loc::new(3.0, 9));
/// assert_eq!(max_loc(Loc::new(3.0, 4), Loc::new(3.0, 2)), Loc::new(3.0, 2));
/// ```
pub fn max_loc<T: PartialOrd + Copy>(a: Loc<T>, b: Loc<T>) -> Loc<T> {
    let (x, y) = (a.value(), b.value());
    if y > x || (y == x && b.index() < a.index()) { b } else { a }
}

/// The smaller value with its index; of equal values, the one with the smaller index (as
/// [`max_loc`]).
///
/// ```
/// use bsp_runtime::ops::{min_loc, Loc};
/// assert_eq!(min_loc(Loc::new(1u32, 4), Loc::new(3, 0)), Loc::new(1, 4));
/// ```
pub fn min_loc<T: PartialOrd + Copy>(a: Loc<T>, b: Loc<T>) -> Loc<T> {
    let (x, y) = (a.value(), b.value());
    if y < x || (y == x && b.index() < a.index()) { b } else { a }
}

/// The value of larger magnitude, `|x|`, with its sign and index: partial pivoting's choice.
/// Of equal magnitudes (`-3.0` and `3.0` too), `a`: the one that comes first in the order of
/// combination. Collectives combine in ascending pid order, so in a
/// [`reduce`](crate::Ctx::reduce) or [`allreduce`](crate::Ctx::allreduce) of one candidate per
/// process the lowest pid wins a tie, whatever the indices; a process that first picks its own
/// candidate by folding its rows in index order with this operator keeps the lowest index. That
/// is BSPlib's LU: each process takes its first row of largest |a_ik|, then the first process
/// of those with the largest. `a` as well when the magnitudes are unordered (a NaN in `b` is
/// ignored, as [`max`]).
///
/// The magnitude is compared without negating a negative value, so `i32::MIN` needs no
/// `-i32::MIN`.
///
/// ```
/// use bsp_runtime::ops::{max_abs_loc, Loc};
/// // The sign is kept: -5 is the pivot, not 4.
/// assert_eq!(max_abs_loc(Loc::new(4.0, 0), Loc::new(-5.0, 7)), Loc::new(-5.0, 7));
/// // Equal magnitudes: the first operand, whatever the indices.
/// assert_eq!(max_abs_loc(Loc::new(-3.0, 9), Loc::new(3.0, 2)), Loc::new(-3.0, 9));
/// assert_eq!(max_abs_loc(Loc::new(i32::MIN, 1), Loc::new(i32::MAX, 0)), Loc::new(i32::MIN, 1));
///
/// // A pivot search: every process offers its first row of largest magnitude; the lowest pid
/// // of those with the largest wins.
/// let pivots = bsp_runtime::run(4, |ctx| {
///     let s = ctx.pid();
///     // Rows s, s + 4, s + 8 (cyclic); processes 1 and 3 both hold a -9.
///     let column = [[1.0, 2.0, 0.5], [-9.0, 3.0, 9.0], [4.0, -2.0, 1.0], [0.0, -9.0, 8.0]][s];
///     let mine = (0..3)
///         .map(|k| Loc::new(column[k], (s + 4 * k) as u64))
///         .reduce(max_abs_loc)
///         .unwrap();
///     ctx.allreduce_one(mine, max_abs_loc)
/// })
/// .unwrap();
/// assert_eq!(pivots, vec![Loc::new(-9.0, 1); 4]);
/// ```
pub fn max_abs_loc<T: PartialOrd + Copy + Neg<Output = T> + Default>(a: Loc<T>, b: Loc<T>) -> Loc<T> {
    // -|x|, which cannot overflow: a positive value negated.
    let minus_magnitude = |x: T| if x > T::default() { -x } else { x };
    if minus_magnitude(b.value()) < minus_magnitude(a.value()) { b } else { a }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// max_abs_loc is associative (a fold in any grouping of the same order gives the same
    /// result) and picks the first of the largest magnitudes, its sign kept.
    #[test]
    fn max_abs_loc_picks_the_first_largest_magnitude_in_any_grouping() {
        let xs = [2.0, -7.0, 7.0, 0.0, -7.0, 6.5, -0.0];
        let locs: Vec<Loc<f64>> = xs.iter().enumerate().map(|(i, &x)| Loc::new(x, i as u64)).collect();
        let left = locs.iter().copied().reduce(max_abs_loc).unwrap();
        let right = locs.iter().rev().copied().reduce(|acc, x| max_abs_loc(x, acc)).unwrap();
        assert_eq!(left, Loc::new(-7.0, 1));
        assert_eq!(right, left);
        for split in 1..locs.len() {
            let (l, r) = locs.split_at(split);
            let l = l.iter().copied().reduce(max_abs_loc).unwrap();
            let r = r.iter().copied().reduce(max_abs_loc).unwrap();
            assert_eq!(max_abs_loc(l, r), left, "split at {split}");
        }
        // NaN: ignored in `b`, kept in `a` (as `max`).
        assert_eq!(max_abs_loc(Loc::new(1.0, 0), Loc::new(f64::NAN, 1)).index(), 0);
        assert!(max_abs_loc(Loc::new(f64::NAN, 0), Loc::new(1.0, 1)).value().is_nan());
        // Integers at the edge of their range.
        assert_eq!(max_abs_loc(Loc::new(i64::MAX, 0), Loc::new(i64::MIN, 1)), Loc::new(i64::MIN, 1));
        assert_eq!(max_abs_loc(Loc::new(-1i8, 0), Loc::new(1, 1)), Loc::new(-1, 0));
    }
}
