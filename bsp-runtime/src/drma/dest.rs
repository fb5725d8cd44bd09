//! `Dest`: one local buffer as the destination of many gets in one superstep.
//!
//! A `get` borrows its destination until the sync, so two gets into elements of one array are a
//! borrow error (E0499) if each borrows the array. [`Superstep::dest`] borrows the whole buffer
//! once, for the rest of the superstep, and hands out a `Copy` name for it whose elements and
//! ranges ([`Dest::at`], [`Dest::range`]) can be given to any number of `get`s and `hpget`s.
//! Nothing in the buffer can be read or written before the sync: it stays borrowed mutably for
//! the superstep's lifetime `'s`, which the closure cannot leak.
//!
//! Overlapping destinations are allowed; the runtime writes get results in issue order, so where
//! two gets overlap the later one wins (and a put into the same memory wins over both, D1).

use std::marker::PhantomData;
use std::ops::{Bound, Range, RangeBounds};
use std::ptr::NonNull;

use crate::{Superstep, Value};

/// A local buffer borrowed for the rest of a superstep, as the destination of many gets.
///
/// Made by [`Superstep::dest`]. It is `Copy`: pass [`at(i)`](Dest::at) (one element),
/// [`range(a..b)`](Dest::range) (several) or the `Dest` itself (all of it) to
/// [`get`](Superstep::get) and [`hpget`](Superstep::hpget), as often as needed. The buffer can be
/// read again after the superstep's sync.
///
/// ```
/// let rows = bsp_runtime::run(3, |ctx| {
///     let (pid, p) = (ctx.pid(), ctx.nprocs());
///     let x = ctx.register([10 * pid as u32, 10 * pid as u32 + 1]);
///     let mut block = vec![0u32; 2 * p];
///     ctx.superstep(|s| {
///         let d = s.dest(&mut block);
///         for q in 0..p {
///             s.get(q, &x, 1, d.at(2 * q)); // element 1 of process q
///             s.get(q, &x, 0, d.at(2 * q + 1)); // element 0 of process q
///         }
///     });
///     block
/// })
/// .unwrap();
/// assert_eq!(rows[0], [1, 0, 11, 10, 21, 20]);
/// ```
///
/// Reading the buffer inside the superstep does not compile:
///
/// ```compile_fail,E0502
/// bsp_runtime::run(2, |ctx| {
///     let x = ctx.register([1u8]);
///     let mut buf = [0u8; 2];
///     ctx.superstep(|s| {
///         let d = s.dest(&mut buf);
///         s.get(0, &x, 0, d.at(0));
///         println!("{}", buf[0]); // error: `buf` is borrowed until the sync
///     });
/// });
/// ```
pub struct Dest<'s, T: Value> {
    ptr: NonNull<T>,
    len: usize,
    /// For the messages of `at` and `range`.
    pid: usize,
    _borrow: PhantomData<&'s mut [T]>,
}

impl<T: Value> Clone for Dest<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Value> Copy for Dest<'_, T> {}

impl<T: Value> std::fmt::Debug for Dest<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dest").field("len", &self.len).finish_non_exhaustive()
    }
}

/// Some elements of a [`Dest`]: the destination of one `get` or `hpget`.
///
/// Made by [`Dest::at`] and [`Dest::range`].
///
/// ```
/// let got = bsp_runtime::run(2, |ctx| {
///     let x = ctx.register([1u8, 2, 3]);
///     let mut buf = [0u8; 5];
///     ctx.superstep(|s| {
///         let d = s.dest(&mut buf);
///         let part: bsp_runtime::DestPart<'_, u8> = d.range(2..);
///         s.hpget(0, &x, 0, part);
///     });
///     buf
/// })
/// .unwrap();
/// assert_eq!(got[1], [0, 0, 1, 2, 3]);
/// ```
pub struct DestPart<'s, T: Value> {
    ptr: NonNull<T>,
    len: usize,
    /// The start of the whole buffer (the `Dest`'s).
    buf: NonNull<T>,
    _borrow: PhantomData<&'s mut [T]>,
}

impl<T: Value> std::fmt::Debug for DestPart<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DestPart").field("len", &self.len).finish_non_exhaustive()
    }
}

impl<'s, T: Value> Dest<'s, T> {
    /// The number of elements of the buffer.
    ///
    /// ```
    /// bsp_runtime::run(1, |ctx| {
    ///     let mut buf = [0i8; 3];
    ///     ctx.superstep(|s| assert_eq!(s.dest(&mut buf).len(), 3));
    /// })
    /// .unwrap();
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    ///
    /// ```
    /// bsp_runtime::run(1, |ctx| {
    ///     let mut buf: [f32; 0] = [];
    ///     ctx.superstep(|s| assert!(s.dest(&mut buf).is_empty()));
    /// })
    /// .unwrap();
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Element `i`, as the destination of a get of one element.
    ///
    /// ```
    /// let got = bsp_runtime::run(2, |ctx| {
    ///     let x = ctx.register([ctx.pid() as u64 + 5]);
    ///     let mut both = [0u64; 2];
    ///     ctx.superstep(|s| {
    ///         let d = s.dest(&mut both);
    ///         s.get(1, &x, 0, d.at(0));
    ///         s.get(0, &x, 0, d.at(1));
    ///     });
    ///     both
    /// })
    /// .unwrap();
    /// assert_eq!(got[0], [6, 5]);
    /// ```
    ///
    /// # Panics
    /// If `i >= len()`, naming the index and the length.
    #[track_caller]
    pub fn at(self, i: usize) -> DestPart<'s, T> {
        if i >= self.len {
            panic!("process {}: dest: index {i} is out of range for a buffer of length {}", self.pid, self.len);
        }
        self.part(i..i + 1)
    }

    /// Elements `range`, as the destination of a get of `range.len()` elements.
    ///
    /// ```
    /// let got = bsp_runtime::run(2, |ctx| {
    ///     let x = ctx.register([ctx.pid() as u16; 2]);
    ///     let mut buf = [9u16; 5];
    ///     ctx.superstep(|s| {
    ///         let d = s.dest(&mut buf);
    ///         s.hpget(0, &x, 0, d.range(..2));
    ///         s.hpget(1, &x, 0, d.range(3..=4));
    ///     });
    ///     buf
    /// })
    /// .unwrap();
    /// assert_eq!(got[0], [0, 0, 9, 1, 1]);
    /// ```
    ///
    /// # Panics
    /// If the range is decreasing or ends past `len()`, naming it and the length.
    #[track_caller]
    pub fn range(self, range: impl RangeBounds<usize>) -> DestPart<'s, T> {
        let start = match range.start_bound() {
            Bound::Included(&a) => Some(a),
            Bound::Excluded(&a) => a.checked_add(1),
            Bound::Unbounded => Some(0),
        };
        let end = match range.end_bound() {
            Bound::Included(&b) => b.checked_add(1),
            Bound::Excluded(&b) => Some(b),
            Bound::Unbounded => Some(self.len),
        };
        match (start, end) {
            (Some(a), Some(b)) if a <= b && b <= self.len => self.part(a..b),
            _ => {
                let start = match range.start_bound() {
                    Bound::Included(a) => a.to_string(),
                    Bound::Excluded(a) => format!("{a} (excluded)"),
                    Bound::Unbounded => String::new(),
                };
                let end = match range.end_bound() {
                    Bound::Included(b) => format!("..={b}"),
                    Bound::Excluded(b) => format!("..{b}"),
                    Bound::Unbounded => "..".to_owned(),
                };
                panic!(
                    "process {}: dest: range {start}{end} is out of range for a buffer of length {}",
                    self.pid, self.len
                )
            }
        }
    }

    /// `r`, which is within the buffer.
    fn part(self, r: Range<usize>) -> DestPart<'s, T> {
        debug_assert!(r.start <= r.end && r.end <= self.len);
        // SAFETY: `r.start <= len`, so the result is within (or one past the end of) the
        // buffer `ptr` points into.
        let ptr = unsafe { NonNull::new_unchecked(self.ptr.as_ptr().add(r.start)) };
        DestPart { ptr, len: r.len(), buf: self.ptr, _borrow: PhantomData }
    }
}

impl<'s> Superstep<'s, '_> {
    /// Borrows `buf` for the rest of this superstep as the destination of any number of gets:
    /// elements ([`Dest::at`]), ranges ([`Dest::range`]) or all of it.
    ///
    /// The buffer can be neither read nor written until the superstep's sync. Gets into
    /// overlapping parts are allowed: the later one (in issue order) wins.
    ///
    /// ```
    /// // Element q of every process q into one row; a whole row from process 0 into another.
    /// let got = bsp_runtime::run(4, |ctx| {
    ///     let (pid, p) = (ctx.pid(), ctx.nprocs());
    ///     let x = ctx.register(vec![pid as i32; p]);
    ///     let (mut diagonal, mut first) = ([0i32; 4], [0i32; 4]);
    ///     ctx.superstep(|s| {
    ///         let d = s.dest(&mut diagonal);
    ///         for q in 0..p {
    ///             s.get(q, &x, q, d.at(q));
    ///         }
    ///         s.get(0, &x, 0, &mut first);
    ///     });
    ///     (diagonal, first)
    /// })
    /// .unwrap();
    /// assert_eq!(got[3], ([0, 1, 2, 3], [0; 4]));
    /// ```
    pub fn dest<T: Value>(&self, buf: &'s mut [T]) -> Dest<'s, T> {
        let len = buf.len();
        Dest { ptr: NonNull::from(buf).cast(), len, pid: self.ctx.pid, _borrow: PhantomData }
    }
}

/// A destination of [`get`](Superstep::get) and [`hpget`](Superstep::hpget): `&mut x`,
/// `&mut [T]`, `&mut [T; N]`, `&mut Vec<T>`, a [`Dest`] or a [`DestPart`].
///
/// Sealed: the runtime writes into the memory a destination names, so only these types may be
/// one.
///
/// ```
/// let got = bsp_runtime::run(2, |ctx| {
///     let x = ctx.register([1u16, 2, 3]);
///     let (mut one, mut three, mut arr, mut vec, mut buf) = (0, [0; 3], [0; 2], vec![0; 1], [0; 4]);
///     ctx.superstep(|s| {
///         s.get(0, &x, 2, &mut one); // &mut T
///         s.get(0, &x, 0, &mut three[..]); // &mut [T]
///         s.get(0, &x, 1, &mut arr); // &mut [T; N]
///         s.get(0, &x, 0, &mut vec); // &mut Vec<T>
///         let d = s.dest(&mut buf);
///         s.get(0, &x, 0, d.at(3)); // DestPart
///         s.get(0, &x, 0, d.range(..3)); // DestPart
///     });
///     (one, three, arr, vec, buf)
/// })
/// .unwrap();
/// assert_eq!(got[1], (3, [1, 2, 3], [2, 3], vec![1], [1, 2, 3, 1]));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the destination of a get of `{T}`",
    label = "expected `&mut {T}`, `&mut [{T}]`, `&mut [{T}; N]`, `&mut Vec<{T}>`, or a part of a `Dest<{T}>`",
    note = "for many gets into one buffer, borrow it once with `let d = s.dest(&mut buf);` and pass `d.at(i)` or `d.range(a..b)`"
)]
pub trait GetDest<'s, T: Value>: sealed::Sealed<T> {
    /// The elements' address and number, and the start of the buffer they belong to (gets into
    /// one buffer may be joined into one copy; gets into different ones never are).
    #[doc(hidden)]
    fn into_raw(self) -> (*mut T, usize, usize);
}

mod sealed {
    /// Implemented only by the destinations of this module.
    pub trait Sealed<T> {}
}

impl<T: Value, D: ?Sized + crate::ElemsMut<T>> sealed::Sealed<T> for &mut D {}
impl<'s, T: Value, D: ?Sized + crate::ElemsMut<T>> GetDest<'s, T> for &'s mut D {
    fn into_raw(self) -> (*mut T, usize, usize) {
        let elems = self.elems_mut();
        let ptr = elems.as_mut_ptr();
        (ptr, elems.len(), ptr as usize)
    }
}

impl<T: Value> sealed::Sealed<T> for DestPart<'_, T> {}
impl<'s, T: Value> GetDest<'s, T> for DestPart<'s, T> {
    fn into_raw(self) -> (*mut T, usize, usize) {
        (self.ptr.as_ptr(), self.len, self.buf.as_ptr() as usize)
    }
}

impl<T: Value> sealed::Sealed<T> for Dest<'_, T> {}
impl<'s, T: Value> GetDest<'s, T> for Dest<'s, T> {
    fn into_raw(self) -> (*mut T, usize, usize) {
        (self.ptr.as_ptr(), self.len, self.ptr.as_ptr() as usize)
    }
}
