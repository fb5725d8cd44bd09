//! Combining puts: puts whose conflicts combine with an operator instead of the last one winning.
//!
//! A BSPlib put to an element that another put of the same superstep also writes keeps the last
//! one (ascending source pid, then issue order, D2). A *combining* put applies an operator
//! instead: the element becomes `op(element, value)`, for each combining put in that same order,
//! so fan-in sums (the last phase of a sparse matrix–vector product, a histogram) need no extra
//! superstep to add up what several processes sent. Plain and combining puts to one element
//! interleave in that order: a plain put overwrites, a later combining put combines with what it
//! wrote. Get results land first (D1), so a combining put also combines with a get's result.
//!
//! An operator is made by [`Ctx::combiner`] from a function or closure `Fn(T, T) -> T`. It is
//! named by its number, so every process must make the same combiners in the same order (like
//! registrations); the receiving process applies its own copy of the operator, which is how user
//! functions work on every engine. Since the order is fixed, floating-point results are the same in every run.

use std::marker::PhantomData;

use crate::outbox::{PutKey, flags};
use crate::reg::Remote;
use crate::{AsRemote, Ctx, Elems, Value};

/// An operator for combining puts, made by [`Ctx::combiner`]; `Copy`.
pub struct Combiner<T: Value> {
    id: u32,
    _t: PhantomData<fn(T, T) -> T>,
}

impl<T: Value> Clone for Combiner<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Value> Copy for Combiner<T> {}

impl<T: Value> std::fmt::Debug for Combiner<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Combiner").field("id", &self.id).field("type", &std::any::type_name::<T>()).finish()
    }
}

/// The largest element a combiner takes: its function takes two elements and returns one by
/// value, on the stack of the receiving process's thread (2 MiB by default for a spawned thread),
/// so this leaves room to spare.
const MAX_COMBINED_BYTES: usize = 64 << 10;

/// Combines `src` into `dst` element by element (bytes of one element type).
type ApplyBytes = Box<dyn Fn(&mut [u8], &[u8])>;

/// One process's copy of an operator, type-erased.
pub(crate) struct Op {
    elem_size: usize,
    type_name: &'static str,
    apply: ApplyBytes,
}

impl Op {
    /// The operator `f`, whose loop over a record's elements is compiled for `f` (a closure's
    /// body is inlined into it; a function pointer is called per element).
    fn new<T: Value, F: Fn(T, T) -> T + Copy + 'static>(f: F) -> Self {
        let size = std::mem::size_of::<T>();
        Op {
            elem_size: size,
            type_name: std::any::type_name::<T>(),
            apply: Box::new(move |dst: &mut [u8], src: &[u8]| {
                // Both sides may be unaligned (the source lies in a byte buffer).
                for (d, s) in dst.chunks_exact_mut(size).zip(src.chunks_exact(size)) {
                    let v = f(bytemuck::pod_read_unaligned::<T>(d), bytemuck::pod_read_unaligned::<T>(s));
                    d.copy_from_slice(bytemuck::bytes_of(&v));
                }
            }),
        }
    }
}

impl<T: Value> Combiner<T> {
    /// The word its combining puts carry: operator number and element size, checked by the
    /// receiver.
    #[inline]
    pub(crate) fn tag(self) -> u64 {
        u64::from(self.id) | (std::mem::size_of::<T>() as u64) << 32
    }
}

impl Ctx {
    /// Makes an operator for [`put_combine`](Ctx::put_combine) from `f`: a function, or a closure
    /// (`Copy` and `'static`: what it captures, it holds by value). The receiving process
    /// applies it to a run of combining puts in one loop, with a closure's body inlined there.
    ///
    /// Every process must make the same combiners in the same order: a combiner is named by its
    /// number, and the process that receives a combining put applies its own combiner of that
    /// number.
    ///
    /// ```
    /// let sums = bsp_runtime::run(4, |ctx| {
    ///     let add = ctx.combiner(|a: u64, b: u64| a + b);
    ///     let total = ctx.register([0u64]);
    ///     ctx.put_combine(0, &(ctx.pid() as u64 + 1), &total, 0, add); // all four into one element
    ///     ctx.sync();
    ///     *total.value(ctx)
    /// })
    /// .unwrap();
    /// assert_eq!(sums[0], 1 + 2 + 3 + 4);
    /// ```
    ///
    /// # Panics
    /// If an element of `T` is larger than 64 KiB: `f` takes and returns elements by value, on the stack of the process that
    /// applies it, so a larger one could overflow that stack instead of failing with a message.
    #[track_caller]
    pub fn combiner<T: Value, F: Fn(T, T) -> T + Copy + 'static>(&self, f: F) -> Combiner<T> {
        let size = std::mem::size_of::<T>();
        if size > MAX_COMBINED_BYTES {
            self.fail_misuse(format!(
                "combiner: an element of `{}` is {size} bytes; a combiner takes elements of at most {} bytes (its function takes them by value, on the stack)",
                std::any::type_name::<T>(),
                MAX_COMBINED_BYTES
            ));
        }
        let mut st = self.state.borrow_mut();
        let id = u32::try_from(st.combiners.len()).expect("fewer than 2^32 combiners");
        st.combiners.push(Op::new(f));
        Combiner { id, _t: PhantomData }
    }

    /// A put whose conflicts combine (`bsp_put` with an operator): at the next sync, element
    /// `offset + i` of `dst` on process `pid` becomes `op(element, src[i])`.
    ///
    /// Like [`put`](Ctx::put), the source is copied at the call, and puts are applied after get
    /// results, in ascending source pid and then issue order; plain and combining puts
    /// interleave in that order (a plain put overwrites, a combining one combines with the
    /// value it finds).
    ///
    /// ```
    /// // A histogram: every process adds its counts into process 0's bins, in one superstep.
    /// let bins = bsp_runtime::run(3, |ctx| {
    ///     let add = ctx.combiner(|a: u32, b: u32| a + b);
    ///     let hist = ctx.register([0u32; 4]);
    ///     let mine = [1, ctx.pid() as u32, 0, 2];
    ///     ctx.put_combine(0, &mine, &hist, 0, add);
    ///     ctx.sync();
    ///     hist.local(ctx).to_vec()
    /// })
    /// .unwrap();
    /// assert_eq!(bins[0], [3, 0 + 1 + 2, 0, 6]);
    /// ```
    ///
    /// # Panics
    /// As [`put`](Ctx::put); and at the sync, in the receiving process, if its combiner of that
    /// number does not exist or is for another element type (the processes made different
    /// combiners).
    #[track_caller]
    #[inline]
    pub fn put_combine<T: Value, S: ?Sized + Elems<T>>(
        &self,
        pid: usize,
        src: &S,
        dst: impl AsRemote<T>,
        offset: usize,
        op: Combiner<T>,
    ) {
        // A one-element source is read here, in the caller, and the out-of-line part gets a
        // copy: the caller's variable is then never address-taken by a call, so the compiler can
        // keep it in a register. Otherwise a loop that computes it (the partial sum of a row,
        // put to its owner) adds through the stack, about twice as slow, even where the put
        // itself never runs (rows owned by this process).
        // Only for a small type: a large element is passed by reference (`drma::put_copy`).
        let dst = dst.as_remote();
        match src.elems() {
            [one] if super::is_register_sized::<T>() => {
                super::put_copy(one, |one| self.queue_combining_put_one(pid, one[0], dst, offset, op))
            }
            many => self.queue_combining_put(pid, many, dst, offset, op),
        }
    }

    /// `queue_combining_put` of one small element, by value: the length is known, so its checks
    /// and the copy fold to constants (as `Ctx::put`'s).
    #[track_caller]
    #[inline(never)]
    fn queue_combining_put_one<T: Value>(
        &self,
        pid: usize,
        value: T,
        dst: Remote<'_, T>,
        offset: usize,
        op: Combiner<T>,
    ) {
        // The quick path: a put that continues the last record, a combining one into the same
        // registration on the same process, checked as `put`'s quick path checks (its handle and
        // extent; the rest was checked for an earlier put of the superstep there).
        self.check_live("put_combine");
        self.check_handle("put_combine", dst.run_id, dst.pid, dst.serial);
        let size = std::mem::size_of::<T>();
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        let out = unsafe { self.outbox() };
        if !out.quick_combine_one((pid, PutKey::serial(dst.serial)), offset, size, bytemuck::bytes_of(&value), op.tag())
        {
            self.queue_combining_bytes(pid, std::slice::from_ref(&value), dst, offset, op);
        }
    }

    #[track_caller]
    #[inline(never)]
    fn queue_combining_put<T: Value>(&self, pid: usize, src: &[T], dst: Remote<'_, T>, offset: usize, op: Combiner<T>) {
        self.queue_combining_bytes(pid, src, dst, offset, op);
    }

    /// The work of a combining put: checks it and queues its bytes.
    #[track_caller]
    #[inline(always)]
    fn queue_combining_bytes<T: Value>(
        &self,
        pid: usize,
        src: &[T],
        dst: Remote<'_, T>,
        offset: usize,
        op: Combiner<T>,
    ) {
        let r = self.resolve_put("put_combine", pid, dst, offset, src.len());
        if r.bytes == 0 {
            return;
        }
        let bytes: &[u8] = bytemuck::cast_slice(src);
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        let out = unsafe { self.outbox() };
        out.dest(pid).push_combining_bytes(r.slot, r.byte_offset, bytes, op.tag(), std::mem::size_of::<T>());
        // The next put there takes the quick path (`quick_combine_one`, or `put`'s).
        out.note_hit(PutKey::serial(dst.serial), pid, (r.slot, dst.serial), r.extent);
        self.state.borrow_mut().flags |= flags::WORK | flags::PUT;
    }

    /// Applies a combining put that process `src` sent (`sync/`, in the put phase).
    ///
    /// # Safety
    /// `dst..dst + from.len()` must be this process's registered memory that nobody else reads
    /// or writes now (the put phase of a sync), and must not overlap `from`.
    pub(crate) unsafe fn apply_combining_put(&self, src: usize, tag: u64, dst: usize, from: &[u8]) {
        let (id, elem_size) = ((tag & u64::from(u32::MAX)) as u32, (tag >> 32) as usize);
        let st = self.state.borrow();
        let op = match st.combiners.get(id as usize) {
            Some(op) if op.elem_size == elem_size => op,
            Some(op) => self.fail_misuse(format!(
                "put_combine from process {src}: combiner #{id} is for `{}` ({} bytes) on this process but for {elem_size}-byte elements on process {src}: every process must make the same combiners in the same order",
                op.type_name, op.elem_size
            )),
            None => self.fail_misuse(format!(
                "put_combine from process {src}: combiner #{id} does not exist on this process ({} made): every process must make the same combiners in the same order",
                st.combiners.len()
            )),
        };
        // SAFETY: the caller guarantees `from.len()` writable bytes at `dst`, not read or written
        // by anyone else now, and not overlapping `from`.
        let dst = unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, from.len()) };
        (op.apply)(dst, from);
    }
}
