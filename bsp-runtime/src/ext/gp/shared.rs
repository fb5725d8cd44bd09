//! `GpShared<T>`: one process's part of a GP array, the object registered with the runtime.
//!
//! # Who touches the elements, when
//! The elements of process X's part are
//! - read and written by X's own code between syncs, through the [`GpArray`](super::GpArray)
//!   handle and a borrow of X's [`Ctx`] (so no such borrow survives into a sync, which needs
//!   `&mut Ctx`);
//! - read, and only read, by [`ExtTarget::serve`] in the **get phase** of a sync, answering a
//!   request (`ext/mod.rs`, `request.rs`) that a get, gather or size query of some process (X
//!   included) queued in the superstep. On the threads engine `serve` runs on the requester's
//!   thread: every process is inside the sync then (past its first barrier), so X's code is
//!   not running, and nobody writes. On the MPI engine it runs on X itself, in X's get phase,
//!   before X applies anything it received; no other process can reach X's memory;
//! - written by X in the **put phase** of a sync, when it applies the put and scatter records
//!   sent to it ([`ExtTarget::apply`]). On the threads engine that comes after the get-phase
//!   barrier (there is one whenever some process has a request: `request_ext` sets the `GET`
//!   flag), so every `serve` of the sync is done, and no `serve` of the next sync starts before
//!   X arrives at it. On the MPI engine X serves every request of the superstep before it
//!   applies any record, on its one thread.
//!
//! So reads never overlap writes, and writes are all by X, one at a time. The barriers give
//! the happens-before edges (`engine/threads/barrier.rs`). The object itself stays allocated while anybody
//! may read it: X's registration table holds an `Arc` until the sync that applies the
//! deregistration, after that sync's get phase.

use std::cell::UnsafeCell;
use std::sync::OnceLock;

use super::distribution::Distribution;
use super::patch;
use super::record::Record;
use super::request;
use crate::ext::ExtTarget;
use crate::{Ctx, Value};

/// One element: `None` while unassigned.
pub(crate) type Element<T> = Option<Box<[T]>>;

/// One process's elements of a GP array, with what every process needs to interpret them.
pub(crate) struct GpShared<T: Value> {
    /// "gp array `name`" or "gp array #serial", for messages; set once, right after the
    /// registration is pushed.
    pub(crate) label: OnceLock<String>,
    /// The distribution (identical on every process; the registration's signature checks it).
    pub(crate) dist: Distribution,
    /// The process this part belongs to.
    pub(crate) owner: usize,
    /// The elements of the owner's block, indexed by `Distribution::local_index` (row-major).
    elems: UnsafeCell<Vec<Element<T>>>,
}

// SAFETY: the elements (`Box<[T]>`, `T: Value` is `Send + Sync` plain data) are only accessed
// as the module docs describe: written by the owner alone, never while anyone reads, with the
// sync barriers ordering the accesses of different threads.
unsafe impl<T: Value> Sync for GpShared<T> {}

impl<T: Value> GpShared<T> {
    /// The part of `owner`, all elements unassigned.
    ///
    /// # Errors
    /// If the memory for the element slots cannot be allocated: the message names the number
    /// of elements and the bytes asked for (the array's size is the user's choice, so running
    /// out is an error to report, not a reason to abort the OS process).
    pub(crate) fn try_new(dist: Distribution, owner: usize) -> Result<Self, String> {
        let n = dist.local_len(owner);
        let mut elems: Vec<Element<T>> = Vec::new();
        if let Err(e) = elems.try_reserve_exact(n) {
            let bytes = n.checked_mul(std::mem::size_of::<Element<T>>());
            let bytes = bytes.map_or_else(|| "more than `usize::MAX`".to_string(), |b| b.to_string());
            return Err(format!(
                "cannot allocate the {n} elements that process {owner} owns ({bytes} bytes for their slots): {e}"
            ));
        }
        elems.resize_with(n, || None);
        Ok(GpShared { label: OnceLock::new(), dist, owner, elems: UnsafeCell::new(elems) })
    }

    pub(crate) fn label(&self) -> &str {
        self.label.get().map_or("gp array", String::as_str)
    }

    /// The elements, to read.
    ///
    /// # Safety
    /// Nobody may write them while the returned borrow lives: either the caller is the owner
    /// outside a sync (its code holds `&GpArray` and `&Ctx`, and nothing else writes then), or
    /// the caller is [`ExtTarget::serve`], in the get phase of a sync (module docs).
    pub(crate) unsafe fn elems(&self) -> &[Element<T>] {
        // SAFETY: no writer while the borrow lives (the caller's contract).
        unsafe { &*self.elems.get() }
    }

    /// The elements, to write.
    ///
    /// # Safety
    /// The caller is the owner, and nobody else reads or writes them while the borrow lives:
    /// either outside a sync with exclusive access to its `GpArray` handle and a borrow of its
    /// `Ctx`, or in its put phase, or after the deregistration took effect (module docs).
    #[allow(clippy::mut_from_ref, reason = "exclusivity is the caller's contract, as for `UnsafeCell::get`")]
    pub(crate) unsafe fn elems_mut(&self) -> &mut Vec<Element<T>> {
        // SAFETY: exclusive access (the caller's contract).
        unsafe { &mut *self.elems.get() }
    }

    /// The elements by value, once nobody else can reach the object.
    pub(crate) fn into_elements(self) -> Vec<Element<T>> {
        self.elems.into_inner()
    }

    /// The subscript of local element `index` of the owner's block.
    pub(crate) fn subscript(&self, index: usize) -> Vec<usize> {
        match self.dist.block(self.owner) {
            Some((lo, hi)) => patch::unravel(index, &lo, &patch::extents(&lo, &hi)),
            None => Vec::new(),
        }
    }
}

impl<T: Value> ExtTarget for GpShared<T> {
    /// Answers a get, gather or size query from `src` (`request.rs`): the sizes of the
    /// requested elements, in the order asked, then their data unless only sizes were asked
    /// for. Only reads the elements.
    fn serve(&self, src: usize, request: &[u8], reply: &mut Vec<u8>) {
        // SAFETY: we are in the get phase of a sync (`ExtTarget::serve`'s contract), when
        // nobody writes the elements (module docs).
        let elems = unsafe { self.elems() };
        let served = request::serve::<T>(request, reply, |i| elems.get(i).map(|e| e.as_deref().unwrap_or(&[])));
        if let Err(index) = served {
            panic!(
                "{}: internal error: a read from process {src} names local element {index} of process {}, which has {}",
                self.label(),
                self.owner,
                elems.len()
            );
        }
    }

    /// Applies a put or scatter from `src` (ascending source pid, then issue order: the last
    /// write to an element wins). Misuse panics on the owner; the sync holds the panic until
    /// nobody reads this process's memory any more, then the run stops.
    fn apply(&self, owner: &Ctx, src: usize, bytes: &[u8]) {
        let record = Record::decode(bytes);
        let size = std::mem::size_of::<T>();
        // SAFETY: we are the owner in its put phase (`ExtTarget::apply`'s contract): nobody else
        // reads or writes the elements now (module docs).
        let elems = unsafe { self.elems_mut() };
        for (local, len, data) in record.elements(size) {
            let Some(slot) = elems.get_mut(local) else {
                owner.fail_misuse(format!(
                    "{}: internal error: {} from process {src} names local element {local} of {}",
                    self.label(),
                    record.op.name(),
                    elems.len()
                ));
            };
            if let Some(problem) = check_write::<T>(slot.as_deref().map(<[T]>::len), len, record.checksize) {
                owner.fail_misuse(format!(
                    "{}: {} from process {src} into element {:?} (owned by process {}): {problem}",
                    self.label(),
                    record.op.name(),
                    self.subscript(local),
                    self.owner
                ));
            }
            if let Some(element) = slot {
                // A prefix of the element, as GA copies `buf_size` bytes into the blob.
                bytemuck::cast_slice_mut::<T, u8>(&mut element[..len]).copy_from_slice(data);
            }
        }
    }

    /// The elements: their number, then for each its length plus one (0: unassigned) and its
    /// bytes, as little-endian `u64`s and raw bytes.
    fn save(&self) -> Option<Vec<u8>> {
        // SAFETY: the owner, between syncs (`ExtTarget::save`'s contract): nobody writes.
        let elems = unsafe { self.elems() };
        let mut out = Vec::new();
        out.extend_from_slice(&(elems.len() as u64).to_le_bytes());
        for e in elems {
            out.extend_from_slice(&e.as_ref().map_or(0, |e| e.len() as u64 + 1).to_le_bytes());
            if let Some(e) = e {
                out.extend_from_slice(bytemuck::cast_slice(e));
            }
        }
        Some(out)
    }

    fn restore(&self, bytes: &[u8]) -> Result<(), String> {
        let size = std::mem::size_of::<T>();
        let mut rest = bytes;
        let mut take = |n: usize| -> Result<&[u8], String> {
            if n > rest.len() {
                return Err("the saved elements end early".to_string());
            }
            let (head, tail) = rest.split_at(n);
            rest = tail;
            Ok(head)
        };
        let word = |b: &[u8]| usize::try_from(u64::from_le_bytes(b.try_into().expect("eight bytes")));
        let n = word(take(8)?).map_err(|_| "a saved count does not fit this machine")?;
        // SAFETY: the owner, between syncs (`ExtTarget::restore`'s contract): nobody reads.
        let elems = unsafe { self.elems_mut() };
        if n != elems.len() {
            return Err(format!(
                "{}: {n} elements were saved but process {} owns {}",
                self.label(),
                self.owner,
                elems.len()
            ));
        }
        let mut restored = Vec::with_capacity(n);
        for _ in 0..n {
            let len = word(take(8)?).map_err(|_| "a saved length does not fit this machine")?;
            restored.push(match len.checked_sub(1) {
                None => None,
                Some(len) => {
                    let data = take(len.checked_mul(size).ok_or("a saved element is too long")?)?;
                    let mut e = vec![T::zeroed(); len].into_boxed_slice();
                    bytemuck::cast_slice_mut::<T, u8>(&mut e).copy_from_slice(data);
                    Some(e)
                }
            });
        }
        *elems = restored;
        Ok(())
    }
}

/// Why writing `len` values into an element of `held` values (`None`: unassigned) is wrong,
/// if it is. GA's rules: a put writes into the existing element, so it must be assigned and
/// at least as long as the data; `checksize` asks for equal sizes. Empty data writes nothing.
fn check_write<T>(held: Option<usize>, len: usize, checksize: bool) -> Option<String> {
    // Made only for a message (this runs for every put it checks). A C program's elements are
    // bytes.
    let data = || {
        if crate::calls::from_c() {
            format!("{len} bytes")
        } else {
            format!("{len} elements of `{}`", std::any::type_name::<T>())
        }
    };
    let assign = crate::calls::gp_call("assign_local");
    match held {
        None if len > 0 => Some(format!(
            "the element is unassigned; assign it on its owner with `{assign}` before putting into it \
             (a put writes into an existing element)"
        )),
        held => {
            let held = held.unwrap_or(0);
            if checksize && held != len {
                Some(format!("checksize: the data has {} but the array element holds {held}", data()))
            } else if len > held {
                Some(format!(
                    "the data has {} but the array element holds only {held}; a put writes \
                     into the existing element and cannot grow it (reassign it with `{assign}`, or send at \
                     most {held})",
                    data()
                ))
            } else {
                None
            }
        }
    }
}
