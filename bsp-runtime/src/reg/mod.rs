//! Registered variables: `Reg<T>`, the memory it owns, and each process's registration table.
//!
//! A registration is created collectively (`register`, `reg/register.rs`) and matched across
//! processes by order, as in BSPlib. Here the runtime owns the registered memory (`Reg<T>` is the
//! handle), so local code can only reach it through a borrow of the process's [`Ctx`]; `sync`
//! takes `&mut Ctx`, so no such borrow is alive while other processes write into it.
//!
//! Every process keeps a full table: for each slot, every process's address and extent (the
//! address is used by the threads engine only). Bounds checks therefore use the *target's*
//! extent at the call, without asking the target.

pub(crate) mod handle;
pub(crate) mod locals;
pub(crate) mod register;
pub(crate) mod scoped;

use std::any::Any;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::Arc;

use crate::{Ctx, Value};

/// The memory of one registration: a vector in raw parts, shared between the `Reg` handle and
/// the table so that it outlives the registration even if the handle is dropped.
///
/// It keeps the vector's capacity rather than shrinking it to a boxed slice: shrinking
/// reallocates, a copy of the user's data whose failure would abort the OS process.
pub(crate) struct Storage<T> {
    ptr: NonNull<T>,
    len: usize,
    cap: usize,
}

// SAFETY: `Storage` is a `Vec<T>` in raw form with `T: Value` (`Send + Sync` plain data).
// Accesses through the raw pointer follow the superstep protocol (`sync/`): local code borrows
// through `&Ctx`/`&mut Reg`, other processes touch it only inside a sync.
unsafe impl<T: Value> Send for Storage<T> {}
// SAFETY: as above.
unsafe impl<T: Value> Sync for Storage<T> {}

impl<T> Storage<T> {
    fn new(data: Vec<T>) -> Self {
        let mut data = std::mem::ManuallyDrop::new(data);
        let (len, cap) = (data.len(), data.capacity());
        let ptr = NonNull::new(data.as_mut_ptr()).expect("a vector's pointer is never null");
        Storage { ptr, len, cap }
    }

    pub(crate) fn addr(&self) -> usize {
        self.ptr.as_ptr() as usize
    }

    pub(crate) fn bytes(&self) -> usize {
        std::mem::size_of_val(self.as_slice_unchecked())
    }

    /// The vector itself, without a copy (what `unregister` gives back).
    fn into_vec(self) -> Vec<T> {
        let parts = std::mem::ManuallyDrop::new(self);
        // SAFETY: ptr/len/cap are the parts of the Vec<T> taken apart in `new`; `parts` is never
        // dropped, so the vector is put back together exactly once, here instead of in `drop`.
        unsafe { Vec::from_raw_parts(parts.ptr.as_ptr(), parts.len, parts.cap) }
    }

    #[inline]
    fn as_slice_unchecked(&self) -> &[T] {
        // SAFETY: ptr/len come from a live Vec<T>; callers guarantee no concurrent writer
        // (the public accessors go through `&Ctx`, see the module docs).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for Storage<T> {
    fn drop(&mut self) {
        // SAFETY: ptr/len/cap are the parts of the Vec<T> taken apart in `new` (never dropped
        // there), put back together exactly once.
        drop(unsafe { Vec::from_raw_parts(self.ptr.as_ptr(), self.len, self.cap) });
    }
}

/// Where a registration stands on this process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RegState {
    /// Pushed in superstep `.0`; effective after the next sync.
    Pushed(usize),
    /// Effective.
    Active,
    /// Popped in superstep `.0`; gone at the next sync (`unregister` makes it at once, D27).
    Popped(usize),
}

/// One slot of a process's registration table.
pub(crate) struct Entry {
    pub serial: u64,
    pub state: RegState,
    /// This process's memory.
    pub local_addr: usize,
    pub local_bytes: usize,
    /// Every process's (address, extent in bytes); filled when the registration takes effect.
    /// Shared by the processes of a run where they share memory (`Peers::registration_row`).
    pub remote: Arc<[(usize, usize)]>,
    /// The extent in bytes when it is the same on every process (the usual case), filled with
    /// `remote`: a put checks it without reading the row (a cache line per destination, at
    /// large p).
    pub same_extent: Option<usize>,
    /// Keeps the memory alive while registered (never read).
    pub _keep: Arc<dyn Any + Send + Sync>,
    /// For an extension registration: the object that applies records sent to it, in an
    /// outer `Arc` so that its address (published as `PushInfo::handler`) is thin and stable.
    /// (Not a `Box`: moving a `Box` asserts unique access, which would invalidate the address
    /// other processes use, under Stacked Borrows.)
    #[allow(clippy::redundant_allocation, reason = "the outer `Arc` gives the fat `Arc` a thin, stable address")]
    pub ext: Option<Arc<Arc<dyn crate::ext::ExtTarget>>>,
    /// Every process's `handler` address, for an extension registration.
    pub handlers: Arc<[usize]>,
}

impl Entry {
    /// The extent in bytes on process `pid`, `None` if `pid` is past the row: read from
    /// `same_extent` when every process registered the same one (no read of the row, a cache
    /// line per destination at large p).
    #[inline(always)]
    pub(crate) fn extent_on(&self, pid: usize, nprocs: usize) -> Option<usize> {
        match self.same_extent {
            Some(extent) if pid < nprocs => Some(extent),
            _ => self.remote.get(pid).map(|&(_, extent)| extent),
        }
    }
}

/// A process's registration table. Slots are reused LIFO; since pushes and pops are collective
/// and applied in the same order everywhere, slot numbers agree across processes.
#[derive(Default)]
pub(crate) struct Table {
    pub entries: Vec<Option<Entry>>,
    free: Vec<u32>,
    next_serial: u64,
}

impl Table {
    pub(crate) fn alloc(&mut self) -> (u32, u64) {
        self.next_serial += 1;
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.entries.push(None);
                // The two highest slots are never used: the wire format marks runs of puts
                // with them (`engine/transport/wire.rs`).
                u32::try_from(self.entries.len() - 1)
                    .ok()
                    .filter(|&s| s < u32::MAX - 1)
                    .expect("more than 2^32 - 2 registrations")
            }
        };
        (slot, self.next_serial)
    }

    pub(crate) fn release(&mut self, slot: u32) {
        self.entries[slot as usize] = None;
        self.free.push(slot);
    }

    #[inline]
    pub(crate) fn get(&self, slot: u32, serial: u64) -> Option<&Entry> {
        self.entries.get(slot as usize)?.as_ref().filter(|e| e.serial == serial)
    }

    /// The slot whose serial is `serial`, if registered.
    pub(crate) fn find_serial(&self, serial: u64) -> Option<u32> {
        self.entries.iter().position(|e| e.as_ref().is_some_and(|e| e.serial == serial)).map(|i| i as u32)
    }

    /// How many registrations were ever made: with the superstep, it says whether the table can
    /// have changed (an entry is added by a push at any time, and dropped only at a sync).
    pub(crate) fn made(&self) -> u64 {
        self.next_serial
    }

    /// The widest range around `[addr, addr + len)` (`len > 0`) that overlaps no registration
    /// of this process, if that range itself overlaps none.
    pub(crate) fn gap_around(&self, addr: usize, len: usize) -> Option<(usize, usize)> {
        let (mut lo, mut hi) = (0, usize::MAX);
        for e in self.entries.iter().flatten().filter(|e| e.local_bytes > 0) {
            let end = e.local_addr + e.local_bytes;
            if end <= addr {
                lo = lo.max(end);
            } else if addr + len <= e.local_addr {
                hi = hi.min(e.local_addr);
            } else {
                return None;
            }
        }
        Some((lo, hi))
    }

    /// Whether `[addr, addr + len)` overlaps memory of any registration of this process.
    pub(crate) fn overlaps_local(&self, addr: usize, len: usize) -> bool {
        len > 0
            && self.entries.iter().flatten().any(|e| addr < e.local_addr + e.local_bytes && e.local_addr < addr + len)
    }

    /// Whether `[addr, addr + len)` lies within the memory of one registration of this process.
    pub(crate) fn within_local(&self, addr: usize, len: usize) -> bool {
        self.entries.iter().flatten().any(|e| e.local_addr <= addr && addr + len <= e.local_addr + e.local_bytes)
    }
}

/// A typed registered variable: a slice of `T` that other processes can put into and get from.
///
/// Made by [`Ctx::register`] (collective; it includes the sync that makes the registration
/// effective, so a `Reg` is usable for communication as soon as it exists) and given back by
/// [`Ctx::unregister`] (collective; it takes the handle by value and includes the sync that ends
/// the registration, so no use after it compiles). Offsets and lengths are counted in elements of
/// `T`; each process may register a different length.
///
/// The memory belongs to the runtime while registered: read and write it through the process's
/// context with [`local`](Reg::local) and [`local_mut`](Reg::local_mut). Those borrows end before
/// the next sync (which needs `&mut Ctx`), so remote writes never race with local code.
///
/// ```
/// let sums = bsp_runtime::run(3, |ctx| {
///     let mut x = ctx.register(vec![0u64; ctx.nprocs()]);
///     for q in 0..ctx.nprocs() {
///         ctx.put(q, &(ctx.pid() as u64 + 1), &x, ctx.pid());
///     }
///     ctx.sync();
///     x.local_mut(ctx)[0] += 100;
///     x.local(ctx).iter().sum::<u64>()
/// })
/// .unwrap();
/// assert_eq!(sums, vec![106, 106, 106]);
/// ```
pub struct Reg<T: Value> {
    pub(crate) slot: u32,
    pub(crate) serial: u64,
    pub(crate) run_id: u64,
    pub(crate) pid: usize,
    pub(crate) storage: Arc<Storage<T>>,
    _not_send: PhantomData<*const ()>,
}

impl<T: Value> std::fmt::Debug for Reg<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reg")
            .field("registration", &self.serial)
            .field("pid", &self.pid)
            .field("len", &self.storage.len)
            .finish()
    }
}

/// A registration's name for communication: `Copy`, and it reaches no local memory.
///
/// It borrows the handle it names (`'r`), so it cannot outlive it: once the handle is given to
/// [`Ctx::unregister`], no `Remote` of it is left to communicate with.
///
/// Communication calls accept `&Reg<T>` or `Remote<T>`. The difference matters when a get's
/// destination is this process's own part of the registration it reads from (as in
/// `bsp_get(3)`'s `get_array`), or when a name kept in a variable is used after `local_mut` on
/// its handle: [`Reg::split_mut`] gives the name and the local elements at once.
///
/// ```
/// // forall i: xs[i] := xs[(i + 1) mod n], with xs distributed one element per process
/// let xs = bsp_runtime::run(3, |ctx| {
///     let (pid, p) = (ctx.pid(), ctx.nprocs());
///     let mut xs = ctx.register([pid * 10]);
///     ctx.superstep(|s| {
///         let (name, local) = xs.split_mut(s);
///         s.get((pid + 1) % p, name, 0, local);
///     });
///     *xs.value(ctx)
/// })
/// .unwrap();
/// assert_eq!(xs, vec![10, 20, 0]);
/// ```
pub struct Remote<'r, T: Value> {
    pub(crate) slot: u32,
    pub(crate) serial: u64,
    pub(crate) run_id: u64,
    pub(crate) pid: usize,
    /// Names elements of `T` (without owning one), and borrows the handle for `'r`.
    _t: PhantomData<fn() -> T>,
    _handle: PhantomData<&'r ()>,
}

impl<T: Value> Remote<'_, T> {
    pub(crate) fn new(slot: u32, serial: u64, run_id: u64, pid: usize) -> Self {
        Remote { slot, serial, run_id, pid, _t: PhantomData, _handle: PhantomData }
    }
}

impl<T: Value> Clone for Remote<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Value> Copy for Remote<'_, T> {}

impl<T: Value> std::fmt::Debug for Remote<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote").field("registration", &self.serial).field("pid", &self.pid).finish()
    }
}

/// A registration as communication calls take it: `&Reg<T>`, `&mut Reg<T>`, `Remote<T>`,
/// `&Remote<T>`, or the handle of an in-place registration, `&Registered<T>` (or
/// `&mut Registered<T>`).
///
/// ```
/// let out = bsp_runtime::run(2, |ctx| {
///     let mut x = ctx.register([0u8; 4]);
///     let other = 1 - ctx.pid();
///     ctx.put(other, &1, &x, 0); // &Reg
///     ctx.put(other, &2, &mut x, 1); // &mut Reg
///     ctx.put(other, &3, x.remote(), 2); // Remote
///     let mut v = [0u8; 4];
///     ctx.with_reg(&mut v, |ctx, mut r| {
///         ctx.put(other, &4, &r, 3); // &Registered
///         ctx.put(other, &5, &mut r, 0); // &mut Registered
///         ctx.sync();
///     });
///     (x.local(ctx).to_vec(), v)
/// })
/// .unwrap();
/// assert_eq!(out[0], (vec![1, 2, 3, 0], [5, 0, 0, 4]));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not name a registration of `{T}`",
    label = "expected `&Reg<{T}>`, `&mut Reg<{T}>`, `&Registered<{T}>` or `Remote<{T}>`",
    note = "register memory with `ctx.register(data)` (or in place with `with_reg`); the element types of source and registration must agree"
)]
pub trait AsRemote<T: Value> {
    /// The registration's name.
    fn as_remote(&self) -> Remote<'_, T>;
}

impl<T: Value> AsRemote<T> for &Reg<T> {
    fn as_remote(&self) -> Remote<'_, T> {
        self.remote()
    }
}
impl<T: Value> AsRemote<T> for &mut Reg<T> {
    fn as_remote(&self) -> Remote<'_, T> {
        self.remote()
    }
}
impl<T: Value> AsRemote<T> for &crate::Registered<'_, T> {
    fn as_remote(&self) -> Remote<'_, T> {
        Remote::new(self.slot, self.serial, self.run_id, self.pid)
    }
}
impl<T: Value> AsRemote<T> for &mut crate::Registered<'_, T> {
    fn as_remote(&self) -> Remote<'_, T> {
        Remote::new(self.slot, self.serial, self.run_id, self.pid)
    }
}
impl<T: Value> AsRemote<T> for Remote<'_, T> {
    fn as_remote(&self) -> Remote<'_, T> {
        *self
    }
}
impl<T: Value> AsRemote<T> for &Remote<'_, T> {
    fn as_remote(&self) -> Remote<'_, T> {
        **self
    }
}

impl<T: Value> Reg<T> {
    /// This registration's name for communication (see [`Remote`]); it borrows the handle, so
    /// it cannot outlive the registration.
    ///
    /// Because of that borrow, a name kept in a variable cannot be used after
    /// [`local_mut`](Reg::local_mut) on the same handle (rustc's E0502, "cannot borrow as mutable
    /// because it is also borrowed as immutable"): take both at once with
    /// [`split_mut`](Reg::split_mut).
    ///
    /// ```
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let x = ctx.register([0u32]);
    ///     let name = x.remote();
    ///     ctx.put(1 - ctx.pid(), &7, name, 0);
    ///     ctx.sync();
    ///     *x.value(ctx)
    /// })
    /// .unwrap();
    /// assert_eq!(out, vec![7, 7]);
    /// ```
    pub fn remote(&self) -> Remote<'_, T> {
        Remote::new(self.slot, self.serial, self.run_id, self.pid)
    }

    /// This registration's name and this process's elements, to modify, at once: for a get
    /// whose destination is this process's own part of the registration it reads from.
    ///
    /// ```
    /// // Every process copies element 0 of its right neighbour into its own element 1.
    /// let out = bsp_runtime::run(3, |ctx| {
    ///     let (pid, p) = (ctx.pid(), ctx.nprocs());
    ///     let mut xs = ctx.register([pid as u8, 0]);
    ///     ctx.superstep(|s| {
    ///         let (name, local) = xs.split_mut(s);
    ///         s.get((pid + 1) % p, name, 0, &mut local[1]);
    ///     });
    ///     xs.local(ctx).to_vec()
    /// })
    /// .unwrap();
    /// assert_eq!(out, vec![vec![0, 1], vec![1, 2], vec![2, 0]]);
    /// ```
    ///
    /// # Panics
    /// As [`local_mut`](Reg::local_mut).
    #[track_caller]
    pub fn split_mut<'a>(&'a mut self, ctx: &'a Ctx) -> (Remote<'a, T>, &'a mut [T]) {
        let name = Remote::new(self.slot, self.serial, self.run_id, self.pid);
        (name, self.local_mut(ctx))
    }

    pub(crate) fn new(slot: u32, serial: u64, run_id: u64, pid: usize, data: Vec<T>) -> (Self, Arc<Storage<T>>) {
        let storage = Arc::new(Storage::new(data));
        let reg = Reg { slot, serial, run_id, pid, storage: storage.clone(), _not_send: PhantomData };
        (reg, storage)
    }

    /// The number of elements this process registered.
    pub fn len(&self) -> usize {
        self.storage.len
    }

    /// Whether this process registered no elements.
    pub fn is_empty(&self) -> bool {
        self.storage.len == 0
    }

    /// The registration's number in messages (`registration #n`): the n-th registration of the
    /// run (counting every piece of a batch).
    pub fn id(&self) -> u64 {
        self.serial
    }

    #[track_caller]
    #[inline]
    fn check_owner(&self, ctx: &Ctx, what: &str) {
        ctx.check_owner(what, self.run_id, self.pid, self.serial);
    }

    /// This process's registered elements.
    ///
    /// # Panics
    /// If the registration belongs to another process or run.
    #[track_caller]
    #[inline]
    pub fn local<'a>(&'a self, ctx: &'a Ctx) -> &'a [T] {
        self.check_owner(ctx, "local");
        self.storage.as_slice_unchecked()
    }

    /// This process's registered elements, to modify.
    ///
    /// It needs the handle alone: a name taken earlier by [`remote`](Reg::remote) and still in
    /// use after this call is a borrow conflict (E0502). To write the local part and communicate
    /// through the name in one superstep, take both at once with [`split_mut`](Reg::split_mut).
    ///
    /// # Panics
    /// If the registration belongs to another process or run.
    #[track_caller]
    #[inline]
    pub fn local_mut<'a>(&'a mut self, ctx: &'a Ctx) -> &'a mut [T] {
        self.check_owner(ctx, "local_mut");
        // SAFETY: `&mut self` is the only handle (Reg is not Clone), the borrow of `ctx` keeps
        // the process out of `sync` (the only time other processes or the runtime touch this
        // memory), and the returned borrow is tied to both.
        unsafe { std::slice::from_raw_parts_mut(self.storage.ptr.as_ptr(), self.storage.len) }
    }

    /// Element 0 (the usual shape of a registered single value).
    ///
    /// # Panics
    /// If no element was registered, or as [`local`](Reg::local).
    #[track_caller]
    pub fn value<'a>(&'a self, ctx: &'a Ctx) -> &'a T {
        match self.local(ctx).first() {
            Some(v) => v,
            None => ctx.fail_misuse(format!("value: registration #{} has no elements on this process", self.serial)),
        }
    }

    /// Element 0, to modify.
    ///
    /// # Panics
    /// As [`value`](Reg::value).
    #[track_caller]
    pub fn value_mut<'a>(&'a mut self, ctx: &'a Ctx) -> &'a mut T {
        let serial = self.serial;
        match self.local_mut(ctx).first_mut() {
            Some(v) => v,
            None => ctx.fail_misuse(format!("value_mut: registration #{serial} has no elements on this process")),
        }
    }

    /// Takes the elements back once the registration is gone (after the sync of its pop).
    #[track_caller]
    pub(crate) fn into_vec(self, ctx: &Ctx) -> Vec<T> {
        self.check_owner(ctx, "unregister");
        let serial = self.serial;
        match Arc::try_unwrap(self.storage) {
            Ok(storage) => storage.into_vec(),
            Err(_) => ctx.fail_misuse(format!(
                "unregister: internal error: registration #{serial} is still referenced after the sync of its pop"
            )),
        }
    }
}

impl Ctx {
    /// Pushes `data` (collective; effective at the next sync): the first half of
    /// [`Ctx::register`], which syncs right after.
    #[track_caller]
    pub(crate) fn push_owned<T: Value>(&self, data: Vec<T>) -> Reg<T> {
        #[allow(clippy::let_unit_value, reason = "evaluating the constant is the check")]
        let () = crate::value::NotZeroSized::<T>::CHECK;
        self.check_live("register");
        let mut st = self.state.borrow_mut();
        let (slot, serial) = st.table.alloc();
        drop(st);
        let (reg, storage) = Reg::new(slot, serial, self.run_id(), self.pid, data);
        let (addr, bytes) = (storage.addr(), storage.bytes());
        self.push_entry(slot, serial, addr, bytes, std::mem::size_of::<T>(), std::any::type_name::<T>(), storage, None);
        reg
    }

    /// Records a pushed registration (of memory or of an extension object) in the table and the
    /// outbox.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push_entry(
        &self,
        slot: u32,
        serial: u64,
        addr: usize,
        bytes: usize,
        elem_size: usize,
        type_name: &'static str,
        keep: Arc<dyn Any + Send + Sync>,
        ext: Option<Arc<dyn crate::ext::ExtTarget>>,
    ) {
        let ext = ext.map(Arc::new);
        let handler = ext.as_ref().map_or(0, |b| Arc::as_ptr(b) as usize);
        let mut st = self.state.borrow_mut();
        st.table.entries[slot as usize] = Some(Entry {
            serial,
            state: RegState::Pushed(self.step),
            local_addr: if ext.is_some() { 0 } else { addr },
            local_bytes: if ext.is_some() { 0 } else { bytes },
            remote: Arc::from([]),
            same_extent: None,
            _keep: keep,
            ext,
            handlers: Arc::from([]),
        });
        st.flags |= crate::outbox::flags::WORK | crate::outbox::flags::COLLECTIVE;
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        unsafe { self.outbox() }.meta.pushes.push(crate::outbox::PushInfo {
            serial,
            addr,
            bytes,
            handler,
            elem_size,
            type_name: type_name.into(),
        });
    }

    /// Pops `reg` (collective; effective at the next sync): the first half of
    /// [`Ctx::unregister`], which syncs right after.
    #[track_caller]
    pub(crate) fn pop_owned<T: Value>(&self, reg: &Reg<T>) {
        self.check_live("unregister");
        self.check_handle("unregister", reg.run_id, reg.pid, reg.serial);
        self.pop_entry("unregister", reg.slot, reg.serial);
    }

    /// Checks that a handle for local access belongs to this process of this run.
    ///
    /// Inlined, with the failure out of line: local views are taken inside users' loops (a
    /// view per row of a sparse product), where a call per view keeps the loop from overlapping
    /// the memory accesses of consecutive iterations.
    #[track_caller]
    #[inline]
    pub(crate) fn check_owner(&self, what: &str, run_id: u64, pid: usize, serial: u64) {
        if run_id != self.run_id() || pid != self.pid {
            self.not_owner(what, pid, serial);
        }
    }

    #[cold]
    #[inline(never)]
    #[track_caller]
    fn not_owner(&self, what: &str, pid: usize, serial: u64) -> ! {
        self.fail_misuse(format!(
            "{what}: registration #{serial} belongs to process {pid} of another run or process, not to this one"
        ))
    }

    #[track_caller]
    #[inline]
    pub(crate) fn check_handle(&self, op: &str, run_id: u64, pid: usize, serial: u64) {
        if run_id != self.run_id() || pid != self.pid {
            self.foreign_handle(op, pid, serial);
        }
    }

    #[cold]
    #[inline(never)]
    #[track_caller]
    fn foreign_handle(&self, op: &str, pid: usize, serial: u64) -> ! {
        self.fail_misuse(format!(
            "{op}: registration #{serial} belongs to process {pid} of another run or process; use this process's handle"
        ))
    }

    #[track_caller]
    pub(crate) fn pop_entry(&self, op: &str, slot: u32, serial: u64) {
        let mut st = self.state.borrow_mut();
        let step = self.step;
        let Some(entry) =
            st.table.entries.get_mut(slot as usize).and_then(|e| e.as_mut()).filter(|e| e.serial == serial)
        else {
            drop(st);
            self.fail_misuse(format!("{op}: registration #{serial} is not registered (already deregistered)"));
        };
        match entry.state {
            RegState::Pushed(_) => {
                drop(st);
                self.fail_misuse(format!(
                    "{op}: registration #{serial} was pushed in this superstep ({step}); it can be popped only after the sync that makes it effective"
                ))
            }
            RegState::Popped(s) => {
                drop(st);
                self.fail_misuse(format!("{op}: registration #{serial} was already popped in superstep {s}"))
            }
            RegState::Active => entry.state = RegState::Popped(step),
        }
        st.flags |= crate::outbox::flags::WORK | crate::outbox::flags::COLLECTIVE;
        drop(st);
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        unsafe { self.outbox() }.meta.pops.push(serial);
    }

    /// Looks up `reg` for a communication with `pid` of `len` elements at `offset`; returns
    /// the byte offset and length, the target's address (threads engine) for gets, and the
    /// extent there.
    ///
    /// Always inlined: it is the path of every get and hpput, and of the first put of a
    /// superstep into a registration (`drma/mod.rs`), and as a call it passes its arguments and
    /// its result through memory (a one-word `Ctx::put` through it ran ~225 instructions
    /// instead of ~160, callgrind, `PERFORMANCE.md`).
    #[track_caller]
    #[inline(always)]
    pub(crate) fn resolve<T: Value>(
        &self,
        op: &str,
        pid: usize,
        reg: Remote<'_, T>,
        offset: usize,
        len: usize,
    ) -> Resolved {
        self.resolve_with::<T, true>(op, pid, reg, offset, len)
    }

    /// [`resolve`](Ctx::resolve) for a put, which needs no address of the target: its
    /// `remote_addr` is 0, and a registration whose extent is the same on every process is
    /// checked without reading the row of extents.
    #[track_caller]
    #[inline(always)]
    pub(crate) fn resolve_put<T: Value>(
        &self,
        op: &str,
        pid: usize,
        reg: Remote<'_, T>,
        offset: usize,
        len: usize,
    ) -> Resolved {
        self.resolve_with::<T, false>(op, pid, reg, offset, len)
    }

    #[track_caller]
    #[inline(always)]
    fn resolve_with<T: Value, const ADDR: bool>(
        &self,
        op: &str,
        pid: usize,
        reg: Remote<'_, T>,
        offset: usize,
        len: usize,
    ) -> Resolved {
        self.check_live(op);
        if pid >= self.nprocs {
            self.transfer_pid_out_of_range(op, pid, reg.serial, offset, len);
        }
        // (`check_live` and the pid are checked above.)
        let (addr, extent_bytes) = if ADDR {
            self.lookup_entry(op, pid, reg.run_id, reg.pid, reg.slot, reg.serial)
        } else {
            (0, self.lookup_extent(op, pid, reg.run_id, reg.pid, reg.slot, reg.serial))
        };
        let size = std::mem::size_of::<T>();
        let extent = extent_bytes.checked_div(size).unwrap_or(0);
        if len > 0 && offset.checked_add(len).is_none_or(|end| end > extent) {
            self.past_extent(op, pid, reg.serial, offset, len, extent, std::any::type_name::<T>());
        }
        // A zero-length transfer moves nothing (D7): its offset is not used, and may be anything.
        let byte_offset = if len == 0 { 0 } else { offset * size };
        Resolved { slot: reg.slot, byte_offset, bytes: len * size, remote_addr: addr, extent: extent_bytes }
    }

    #[cold]
    #[inline(never)]
    #[track_caller]
    fn transfer_pid_out_of_range(&self, op: &str, pid: usize, serial: u64, offset: usize, len: usize) -> ! {
        self.fail_misuse(format!(
            "{op} with process {pid} (registration #{serial}, offset {offset}, length {len}): pid {pid} is out of range (nprocs = {})",
            self.nprocs
        ))
    }

    #[cold]
    #[inline(never)]
    #[track_caller]
    #[allow(clippy::too_many_arguments, reason = "the values the message names")]
    fn past_extent(&self, op: &str, pid: usize, serial: u64, offset: usize, len: usize, extent: usize, ty: &str) -> ! {
        self.fail_misuse(format!(
            "{op} with process {pid}: registration #{serial}: offset {offset} + length {len} is past the extent {extent} that process {pid} registered (elements of `{ty}`)"
        ))
    }

    /// Validates a use of registration `(slot, serial)` with `pid` and returns that process's
    /// (address, extent in bytes).
    #[track_caller]
    #[inline]
    pub(crate) fn lookup(
        &self,
        op: &str,
        pid: usize,
        run_id: u64,
        owner: usize,
        slot: u32,
        serial: u64,
    ) -> (usize, usize) {
        self.check_live(op);
        self.check_pid(op, pid);
        self.lookup_entry(op, pid, run_id, owner, slot, serial)
    }

    /// [`lookup`](Ctx::lookup) once the process is known to be live and `pid` in range
    /// (inlined into [`resolve`](Ctx::resolve), the fast path of every put and get).
    #[track_caller]
    #[inline(always)]
    pub(crate) fn lookup_entry(
        &self,
        op: &str,
        pid: usize,
        run_id: u64,
        owner: usize,
        slot: u32,
        serial: u64,
    ) -> (usize, usize) {
        self.check_handle(op, run_id, owner, serial);
        let st = self.state.borrow();
        match st.table.get(slot, serial) {
            Some(entry) if !matches!(entry.state, RegState::Pushed(_)) => entry.remote[pid],
            entry => {
                let pushed = entry.map(|e| e.state);
                drop(st);
                self.not_effective_with(op, pid, serial, pushed)
            }
        }
    }

    /// The extent in bytes of registration `(slot, serial)` on `pid`, checked as
    /// [`lookup_entry`](Ctx::lookup_entry) checks it (`pid` is in range): without reading the
    /// row of extents when the extent is the same on every process.
    #[track_caller]
    #[inline(always)]
    pub(crate) fn lookup_extent(
        &self,
        op: &str,
        pid: usize,
        run_id: u64,
        owner: usize,
        slot: u32,
        serial: u64,
    ) -> usize {
        self.check_handle(op, run_id, owner, serial);
        let st = self.state.borrow();
        match st.table.get(slot, serial) {
            Some(entry) if !matches!(entry.state, RegState::Pushed(_)) => {
                entry.extent_on(pid, self.nprocs).expect("the caller checked the pid")
            }
            entry => {
                let pushed = entry.map(|e| e.state);
                drop(st);
                self.not_effective_with(op, pid, serial, pushed)
            }
        }
    }

    /// Every process's (address, extent in bytes) of the effective registration
    /// `(slot, serial)` of this process (the handle is checked by the caller).
    #[track_caller]
    pub(crate) fn effective_row(&self, op: &str, slot: u32, serial: u64) -> Arc<[(usize, usize)]> {
        let st = self.state.borrow();
        match st.table.get(slot, serial) {
            Some(entry) if !matches!(entry.state, RegState::Pushed(_)) => entry.remote.clone(),
            entry => {
                let pushed = entry.map(|e| e.state);
                drop(st);
                self.not_effective(op, serial, pushed)
            }
        }
    }

    /// [`not_effective`](Ctx::not_effective) for a transfer with `pid`.
    #[cold]
    #[inline(never)]
    #[track_caller]
    fn not_effective_with(&self, op: &str, pid: usize, serial: u64, state: Option<RegState>) -> ! {
        self.not_effective(&format!("{op} with process {pid}"), serial, state)
    }

    /// Fails a use (`what`) of registration #`serial`, which is not effective: deregistered
    /// (`state` is `None`), or pushed in this superstep.
    #[cold]
    #[track_caller]
    fn not_effective(&self, what: &str, serial: u64, state: Option<RegState>) -> ! {
        match state {
            Some(RegState::Pushed(s)) => self.fail_misuse(format!(
                "{what}: registration #{serial} was pushed in this superstep ({s}) and takes effect only at the next sync"
            )),
            _ => self.fail_misuse(format!(
                "{what}: registration #{serial} is not registered (it was deregistered by an earlier sync)"
            )),
        }
    }
}

/// A validated DRMA target.
pub(crate) struct Resolved {
    pub slot: u32,
    pub byte_offset: usize,
    pub bytes: usize,
    pub remote_addr: usize,
    /// The registration's extent on the process, in bytes.
    pub extent: usize,
}
