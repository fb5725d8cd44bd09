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

use std::ops::{Add, Mul};

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
    if b < a {
        b
    } else {
        a
    }
}

/// The larger of `a` and `b`; `a` when they are equal or unordered (as [`min`]).
///
/// ```
/// assert_eq!(bsp_runtime::ops::max(2, -7), 2);
/// ```
pub fn max<T: PartialOrd>(a: T, b: T) -> T {
    if b > a {
        b
    } else {
        a
    }
}
