//! What one process publishes at a sync: its outbox.
//!
//! This is the engine-neutral description of a superstep's communication: the collective
//! bookkeeping, a queue per destination, and the process's gets and extension requests. The
//! semantic layer (`ctx`, `drma`, `bsmp`, `reg`, `ext`) fills it during the superstep; an engine
//! moves it. The addresses in it (`PutSrc::Direct`, `GetRec::src_addr`, `PushInfo::addr`) are
//! valid in the sender's address space only; an engine whose processes do not share it uses the
//! slot, offset and pid beside them.

pub(crate) mod channel;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use crossbeam_utils::CachePadded;

/// Per-process flags combined by the sync barrier.
pub(crate) mod flags {
    /// The process arrived from `sync`.
    pub const SYNC: u64 = 1;
    /// The process arrived from the end of the SPMD function.
    pub const END: u64 = 1 << 1;
    /// The process queued something others must look at (puts, messages, registration changes,
    /// a tag-size request).
    pub const WORK: u64 = 1 << 2;
    /// The process has gets: a get phase (and a barrier after it) is needed.
    pub const GET: u64 = 1 << 3;
    /// The process has unbuffered puts read straight from its memory: a closing barrier is
    /// needed so that it does not return (and release the source) before the readers finish.
    pub const HPPUT: u64 = 1 << 4;
    /// The process ended with communication still queued.
    pub const PENDING: u64 = 1 << 5;
    /// The process pushed or popped a registration or requested a tag size. Without it, every
    /// process's collective bookkeeping is empty or unchanged since it was last compared, so the
    /// comparison (which reads every other process's outbox) is skipped.
    pub const COLLECTIVE: u64 = 1 << 6;
    /// The process queued puts (buffered, unbuffered or combining): the put phase runs.
    pub const PUT: u64 = 1 << 7;
    /// The process sent messages (BSMP or the runtime's channel): the message phase runs.
    pub const MSG: u64 = 1 << 8;
    /// The process queued records for extension objects: the record phase runs.
    pub const EXT: u64 = 1 << 9;
    /// The process queued a buffered put of at least [`BULK_BYTES`](super::BULK_BYTES): the
    /// sync ends with a barrier after which nobody reads the outboxes, so that the next
    /// superstep writes the same outboxes again, still in the cache, instead of the other pair.
    pub const BULK: u64 = 1 << 10;
}

/// A buffered put of at least this many bytes sets [`flags::BULK`]: its copy into the outbox
/// and out again costs far more than a barrier, and runs ~1.3× faster into memory that the
/// last superstep used (threads engine, 8 MiB, `PERFORMANCE.md`).
pub(crate) const BULK_BYTES: usize = 64 << 10;

/// How a process arrived at the barrier (for diagnostics).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Arrival {
    #[default]
    Sync,
    End,
}

/// A registration pushed in this superstep, as the other processes need to know it.
#[derive(Clone, Debug)]
pub(crate) struct PushInfo {
    /// Serial number of the registration (the same on every process if the pushes match).
    pub serial: u64,
    /// Address of the local memory (meaningful to the threads engine only).
    pub addr: usize,
    /// Extent in bytes.
    pub bytes: usize,
    /// For an extension object: the address of its boxed `Arc<dyn ExtTarget>` (threads engine).
    pub handler: usize,
    /// Size of one element, to catch processes registering different types.
    pub elem_size: usize,
    /// Element type name, for messages (owned when it came from another OS process).
    pub type_name: std::borrow::Cow<'static, str>,
}

/// Collective bookkeeping compared at the sync.
#[derive(Debug, Default)]
pub(crate) struct Meta {
    pub arrival: Arrival,
    pub step: usize,
    pub pushes: Vec<PushInfo>,
    /// Serials of the registrations popped in this superstep, in call order.
    pub pops: Vec<u64>,
    /// The tag size requested for the next superstep (state `C` of docs/semantics.md §4.1).
    pub tag_request: usize,
    /// Operations still queued when the SPMD function returned (D15), for the message.
    pub pending: Pending,
}

impl Meta {
    /// Empties the registration changes (out of the empty sync's way).
    #[inline(never)]
    fn clear_registrations(&mut self) {
        self.pushes.clear();
        self.pops.clear();
    }
}

/// Counts of queued communication, by kind. Registration changes are not counted: the public
/// calls that make them include their sync, so none is left pending when the SPMD function
/// returns (D23). While a superstep runs, `puts` counts only records for extension objects:
/// the puts are counted by their queues (`DestQueue::put_calls`), and added where the count is
/// read (the end of the SPMD function).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pending {
    pub puts: usize,
    pub gets: usize,
    pub sends: usize,
}

impl Pending {
    pub(crate) fn total(&self) -> usize {
        self.puts + self.gets + self.sends
    }
}

impl std::fmt::Display for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        for (n, what) in [(self.puts, "put"), (self.gets, "get"), (self.sends, "send")] {
            if n > 0 {
                parts.push(format!("{n} {what}{}", if n == 1 { "" } else { "s" }));
            }
        }
        write!(f, "{}", parts.join(", "))
    }
}

/// `PutSrc::Direct(LANDED)`: a put whose bytes an engine has already written into place
/// (`Engine::land_puts`); the put phase only counts it.
pub(crate) const LANDED: usize = usize::MAX;

/// Where the bytes of a put come from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum PutSrc {
    /// Offset into the destination queue's `data` (a buffered put, copied at the call).
    Buffered(usize),
    /// Address in the sender's memory, borrowed until the end of the sync (an `hpput`).
    Direct(usize),
}

/// One put (or hpput) to one destination: 24 bytes (the receiver reads one per put, from
/// another core's cache).
///
/// A queue's first buffered put of at most a word may carry its bytes in the record itself,
/// where its queue says so ([`DestQueue::words_inline`]): its `src` holds them, and
/// [`PutRec::src`] gives their address as a `PutSrc::Direct`, valid while the record is where
/// it was read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PutRec {
    pub byte_offset: usize,
    /// `PutSrc`'s offset or address, or the bytes of a put carried in the record (`INLINE`).
    src: usize,
    pub slot: u32,
    /// Length in bytes, with `DIRECT` set for `PutSrc::Direct`, `INLINE` (and `DIRECT`) for a
    /// put carried in the record, and `COMBINE` for a combining put (whose operator is the next
    /// entry of `DestQueue::combines`).
    len_kind: u32,
}

impl PutRec {
    const DIRECT: u32 = 1 << 31;
    const COMBINE: u32 = 1 << 30;
    /// With `DIRECT`: the bytes are `src` itself.
    const INLINE: u32 = 1 << 29;
    /// The longest put one record describes; [`DestQueue::push_put`] splits longer ones.
    pub(crate) const MAX_LEN: usize = (1 << 29) - 1;

    #[inline]
    fn new(slot: u32, byte_offset: usize, len: usize, src: PutSrc, combine: bool) -> Self {
        debug_assert!(len <= Self::MAX_LEN);
        let (src, kind) = match src {
            PutSrc::Buffered(at) => (at, 0),
            PutSrc::Direct(addr) => (addr, Self::DIRECT),
        };
        let kind = kind | if combine { Self::COMBINE } else { 0 };
        PutRec { byte_offset, src, slot, len_kind: len as u32 | kind }
    }

    /// A plain buffered put of `bytes` (at most a word) carried in the record.
    #[inline(always)]
    fn inline(slot: u32, byte_offset: usize, bytes: &[u8]) -> Self {
        let mut word = [0u8; WORD];
        word[..bytes.len()].copy_from_slice(bytes);
        let kind = Self::DIRECT | Self::INLINE;
        PutRec { byte_offset, src: usize::from_ne_bytes(word), slot, len_kind: bytes.len() as u32 | kind }
    }

    /// [`src`](PutRec::src) of a record that carries its bytes.
    #[inline(always)]
    fn inline_src(&self) -> PutSrc {
        // (The cast exposes the field's provenance, for the reader's cast back.)
        PutSrc::Direct(std::ptr::addr_of!(self.src) as usize)
    }

    /// Where a receiver that reads the sender's queue in place finds the bytes: in the
    /// queue's `data` (`Ok`, the offset), in this record (`Err(None)`), or at an address
    /// (`Err(Some)`, which may be [`LANDED`]).
    #[inline(always)]
    pub(crate) fn source(&self) -> Result<usize, Option<usize>> {
        if self.len_kind & Self::DIRECT == 0 {
            Ok(self.src)
        } else if self.is_inline() {
            Err(None)
        } else {
            Err(Some(self.src))
        }
    }

    /// The bytes of a record that carries them ([`source`](PutRec::source) is `Err(None)`).
    #[inline(always)]
    pub(crate) fn carried(&self) -> *const u8 {
        std::ptr::addr_of!(self.src).cast()
    }

    /// Whether the record carries its bytes.
    #[inline(always)]
    fn is_inline(&self) -> bool {
        self.len_kind & Self::INLINE != 0
    }

    /// Length in bytes.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        (self.len_kind & !(Self::DIRECT | Self::COMBINE | Self::INLINE)) as usize
    }

    /// Where the bytes are: for a record that carries them, their address in this record (the
    /// first `len` bytes of `src`), as a `PutSrc::Direct`, valid while the record stays where it is.
    #[inline]
    pub(crate) fn src(&self) -> PutSrc {
        if self.len_kind & Self::DIRECT == 0 {
            PutSrc::Buffered(self.src)
        } else if self.is_inline() {
            self.inline_src()
        } else {
            PutSrc::Direct(self.src)
        }
    }

    /// Whether the put combines with the destination instead of overwriting it.
    #[inline]
    pub(crate) fn combines(&self) -> bool {
        self.len_kind & Self::COMBINE != 0
    }
}

/// A get queued for the sync.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(feature = "mpi"), allow(dead_code, reason = "pid, slot and offset are for the MPI engine"))]
pub(crate) struct GetRec {
    /// The source: process, registration slot and byte offset (for engines that ask the owner).
    pub pid: usize,
    pub slot: u32,
    pub byte_offset: usize,
    /// Address of the source in the owner's memory (for an engine that shares it).
    pub src_addr: usize,
    pub bytes: usize,
    pub dst_addr: usize,
    /// The start of the buffer the destination lies in, as the get was given it (the whole
    /// `&mut` value or slice, the [`Dest`](crate::Dest), or the get batch's buffer): a record
    /// is extended only by a get into the same buffer, so that it never runs from one
    /// allocation into another that happens to follow it in memory.
    pub dst_buf: usize,
    /// The destination lies in this process's registered memory: write it after the get phase.
    pub staged: bool,
}

/// One part of a request to extension objects (`ext/mod.rs`): the bytes (`req_data[at..at + len]`
/// of the outbox) for the object in registration `slot` on `pid`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReqPart {
    pub pid: usize,
    pub slot: u32,
    pub at: usize,
    pub len: usize,
}

/// A record queued for an extension object on one destination (`ext/mod.rs`); its bytes are
/// `ext_data[at..at + len]` of the queue.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ExtRec {
    pub slot: u32,
    pub at: usize,
    pub len: usize,
}

/// One message to one destination; tag and payload live in the queue's `msg_data`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MsgRec {
    /// Alignment the receiver must give the tag and payload (that of the sent types, at least
    /// 16), so that `hpmove` can return typed references.
    pub align: usize,
    pub at: usize,
    pub tag_len: usize,
    pub payload_len: usize,
}

/// The longest put a record can carry itself ([`PutRec`]).
const WORD: usize = std::mem::size_of::<usize>();

/// Appends `bytes` to `buf`, with the copy of a one-word put done inline (a call to `memcpy`
/// costs more than the copy).
#[inline(always)]
pub(crate) fn append(buf: &mut Vec<u8>, bytes: &[u8]) {
    match <&[u8; 8]>::try_from(bytes) {
        Ok(word) => buf.extend_from_slice(word),
        Err(_) => buf.extend_from_slice(bytes),
    }
}

/// Everything one process sends to one destination in one superstep, in issue order.
///
/// `repr(C)` and cache-line aligned, with what the receiver of a superstep of puts reads (whether
/// anything was queued, the put records and their bytes, the count of calls) in the first cache
/// line: a sync reads these from another core's memory, and each further line is another
/// transfer between cores.
#[derive(Debug, Default)]
#[repr(C, align(64))]
pub(crate) struct DestQueue {
    pub puts: Vec<PutRec>,
    pub put_data: Vec<u8>,
    /// Puts queued (calls: consecutive ones may share a record).
    pub put_calls: usize,
    /// Something was queued in this superstep (an outbox of a few processes keeps every queue).
    touched: bool,
    /// The queue was reached through [`Outbox::dest`] in this superstep, the only way to queue
    /// anything but plain puts (whose records and bytes are the fields above and the two after
    /// this one): while it is false, every field from `gets` on is empty, and clearing the queue
    /// touches only this cache line.
    others: bool,
    /// The queue's first put of a superstep, if it is a buffered put of at most a word, carries
    /// its bytes in its record ([`PutRec`]), not in `put_data`: a cache line less for the sender
    /// to write and for the receiver to read. Set for the queues of an outbox of more than
    /// [`DIRECT`] processes, where every line is a miss (a queue there mostly holds one put); a
    /// put that continues that record makes a record of its own.
    pub words_inline: bool,
    /// The bytes of the puts carried in their records (`put_data` holds the other buffered ones).
    pub inline_bytes: u32,
    /// Gets (and their bytes) the owner of this queue asks of its destination: counted by the
    /// requester when it queues them, read by the destination for its statistics (`observe/stats.rs`).
    pub gets: usize,
    pub get_bytes: usize,
    /// The operators of the combining puts among `puts`, in order (`drma/combine.rs`).
    pub combines: Vec<u64>,
    pub msgs: Vec<MsgRec>,
    pub msg_data: Vec<u8>,
    /// Records for extension objects (`ext/mod.rs`).
    pub ext: Vec<ExtRec>,
    pub ext_data: Vec<u8>,
    /// Messages on the runtime's own channel (`outbox/channel.rs`); only `payload_len` and `at` are used.
    pub sys_msgs: Vec<MsgRec>,
    pub sys_data: Vec<u8>,
}

// What the receiver of a superstep of plain puts reads, and the sender writes, is in the first
// cache line of a queue.
const _: () = assert!(std::mem::offset_of!(DestQueue, inline_bytes) + 4 <= 64);

impl DestQueue {
    /// Records a put of `len` bytes, as records of at most [`PutRec::MAX_LEN`] bytes each.
    ///
    /// A put that continues the previous one (same registration, the next bytes of both the
    /// destination and the source) extends its record instead: applying the two in order or as
    /// one writes the same bytes, since they do not overlap. A loop of one-word puts to
    /// consecutive elements then costs the receiver one copy, not one per word.
    #[inline]
    pub(crate) fn push_put(&mut self, slot: u32, byte_offset: usize, len: usize, src: PutSrc) {
        self.put_calls += 1;
        if let Some(last) = self.puts.last_mut().filter(|last| !last.is_inline()) {
            let continues = match (last.src(), src) {
                (PutSrc::Buffered(a), PutSrc::Buffered(b)) | (PutSrc::Direct(a), PutSrc::Direct(b)) => {
                    b == a + last.len()
                }
                _ => false,
            };
            if continues
                && !last.combines()
                && last.slot == slot
                && byte_offset == last.byte_offset + last.len()
                && last.len() + len <= PutRec::MAX_LEN
            {
                *last = PutRec::new(slot, last.byte_offset, last.len() + len, last.src(), false);
                return;
            }
        }
        if len <= PutRec::MAX_LEN {
            self.puts.push(PutRec::new(slot, byte_offset, len, src, false));
        } else {
            self.push_long_put(slot, byte_offset, len, src, None);
        }
    }

    /// Queues a buffered put of `bytes` (copied here) to `byte_offset` in registration `slot`:
    /// [`push_put`](DestQueue::push_put) with the bytes appended, specialised for the common
    /// case of a put that continues the previous buffered one (a loop of puts to consecutive
    /// elements), which extends that record with one comparison chain.
    #[inline(always)]
    pub(crate) fn push_buffered(&mut self, slot: u32, byte_offset: usize, bytes: &[u8]) {
        let at = self.put_data.len();
        let len = bytes.len();
        if let Some(last) = self.puts.last_mut() {
            // `len_kind` is the plain length only for a buffered, non-combining record; with a
            // kind bit set it exceeds `MAX_LEN`, so such a record never passes the first test.
            let n = last.len_kind as usize;
            if n + len <= PutRec::MAX_LEN
                && last.src + n == at
                && last.byte_offset + n == byte_offset
                && last.slot == slot
            {
                last.len_kind += len as u32;
                self.put_calls += 1;
                append(&mut self.put_data, bytes);
                return;
            }
        } else if self.words_inline && len <= WORD {
            // The queue's first put of the superstep (in an outbox of many processes, often its
            // only one) travels in its record.
            self.put_calls += 1;
            self.inline_bytes += len as u32;
            self.puts.push(PutRec::inline(slot, byte_offset, bytes));
            return;
        }
        // A buffered put continues only a buffered record, which the test above looked at (one
        // that carries its bytes is followed by a record of its own).
        self.put_calls += 1;
        if len <= PutRec::MAX_LEN {
            self.puts.push(PutRec::new(slot, byte_offset, len, PutSrc::Buffered(at), false));
        } else {
            self.push_long_put(slot, byte_offset, len, PutSrc::Buffered(at), None);
        }
        append(&mut self.put_data, bytes);
    }

    /// The last record, if it is a plain buffered put whose bytes end `put_data`: a buffered put
    /// of the bytes after it continues it ([`extend_tail`](DestQueue::extend_tail)).
    #[inline]
    pub(crate) fn buffered_tail(&self) -> Option<Tail> {
        let last = self.puts.last()?;
        // `len_kind` is the plain length only for a buffered, non-combining record (see
        // `push_buffered`).
        let n = last.len_kind as usize;
        (n <= PutRec::MAX_LEN && last.src + n == self.put_data.len()).then(|| Tail {
            slot: last.slot,
            end: last.byte_offset + n,
            room: PutRec::MAX_LEN - n,
        })
    }

    /// [`extend_tail`](DestQueue::extend_tail) for a caller that knows the record and the room
    /// are there (a put batch's tail, `drma/batch.rs`): no call, no check and no panic on its
    /// path, so a loop of one-word puts that continue a record keeps it in the loop.
    ///
    /// # Safety
    /// The queue has a last record, a buffered one whose bytes end `put_data` (its tail), with
    /// room for `bytes`; and `put_data` has at least `bytes.len()` bytes of spare capacity.
    #[inline(always)]
    pub(crate) unsafe fn extend_tail_unchecked(&mut self, bytes: &[u8]) {
        let len = self.put_data.len();
        debug_assert!(self.put_data.capacity() - len >= bytes.len());
        // SAFETY: the caller guarantees a last record.
        let last = unsafe { self.puts.last_mut().unwrap_unchecked() };
        debug_assert!(last.len() + bytes.len() <= PutRec::MAX_LEN);
        debug_assert!(matches!(last.src(), PutSrc::Buffered(a) if a + last.len() == len));
        // SAFETY: the caller guarantees `bytes.len()` bytes of spare capacity after `len`, and
        // `bytes` is not part of this queue's buffer (the caller's value): no overlap.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.put_data.as_mut_ptr().add(len), bytes.len()) };
        // SAFETY: the `bytes.len()` bytes after `len` were initialised just above, within the
        // capacity.
        unsafe { self.put_data.set_len(len + bytes.len()) };
        // The length is the low bits of `len_kind`, below the kind bits, and stays below them.
        last.len_kind += bytes.len() as u32;
        self.put_calls += 1;
    }

    /// [`push_buffered`](DestQueue::push_buffered) of `N` bytes if the put fits the spare
    /// capacity of the queue's buffers, with no call and no panic on its path (the quick path of
    /// `put`, which then needs no stack frame); returns whether it did (if not, nothing changed).
    #[inline(always)]
    pub(crate) fn push_buffered_in_place<const N: usize>(
        &mut self,
        slot: u32,
        byte_offset: usize,
        bytes: &[u8; N],
    ) -> bool {
        let at = self.put_data.len();
        if self.put_data.capacity() - at < N || N > PutRec::MAX_LEN {
            return false;
        }
        match self.puts.last_mut() {
            // As in `push_buffered`: `len_kind` is the plain length only for a buffered,
            // non-combining record, and exceeds `MAX_LEN` otherwise.
            Some(last)
                if last.len_kind as usize + N <= PutRec::MAX_LEN
                    && last.src + last.len_kind as usize == at
                    && last.byte_offset + last.len_kind as usize == byte_offset
                    && last.slot == slot =>
            {
                last.len_kind += N as u32;
            }
            _ => {
                let n = self.puts.len();
                let Some(rec) = self.puts.spare_capacity_mut().first_mut() else { return false };
                rec.write(PutRec::new(slot, byte_offset, N, PutSrc::Buffered(at), false));
                // SAFETY: the record after the `n` initialised ones was written just above,
                // within the capacity.
                unsafe { self.puts.set_len(n + 1) };
            }
        }
        // SAFETY: the buffer has room for `N` more bytes after its `at` (checked above), and
        // `bytes` (the caller's, read only now, so that it need not be held in registers across
        // the checks) cannot overlap the buffer's spare capacity.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.put_data.as_mut_ptr().add(at), N) };
        // SAFETY: the `N` bytes after `at` were initialised just above, within the capacity.
        unsafe { self.put_data.set_len(at + N) };
        self.put_calls += 1;
        true
    }

    /// Extends the last record with a combining put of `bytes` (whole elements of its size)
    /// with operator `op` to `byte_offset` in registration `slot`, as
    /// [`push_combining_put`](DestQueue::push_combining_put) would merge it, if the record is a
    /// combining one that it continues and the bytes fit its room and the buffer's spare
    /// capacity: no call and no panic on the path. Returns whether it did (if not, nothing
    /// changed).
    #[inline(always)]
    pub(crate) fn extend_combining_in_place(&mut self, slot: u32, byte_offset: usize, bytes: &[u8], op: u64) -> bool {
        let (at, len) = (self.put_data.len(), bytes.len());
        if self.put_data.capacity() - at < len {
            return false;
        }
        let (Some(last), Some(&last_op)) = (self.puts.last_mut(), self.combines.last()) else { return false };
        // A buffered combining record's `len_kind` is its length with only `COMBINE` set.
        let kind = last.len_kind & (PutRec::DIRECT | PutRec::COMBINE);
        let n = (last.len_kind & !PutRec::COMBINE) as usize;
        // (The element size is in the operator's tag, above its 32-bit id.)
        let elem = (op >> 32) as usize;
        let continues = kind == PutRec::COMBINE
            && last_op == op
            && last.slot == slot
            && last.src + n == at
            && last.byte_offset + n == byte_offset
            && elem > 0
            && n + len <= PutRec::MAX_LEN / elem * elem;
        if !continues {
            return false;
        }
        // The length stays below the kind bits (checked above).
        last.len_kind += len as u32;
        // SAFETY: the buffer has room for `len` more bytes after its `at` (checked above), and
        // `bytes` (the caller's value) is not part of it.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.put_data.as_mut_ptr().add(at), len) };
        // SAFETY: the `len` bytes after `at` were initialised just above, within the capacity.
        unsafe { self.put_data.set_len(at + len) };
        self.put_calls += 1;
        true
    }

    /// The last record and its operator, if it is a combining put whose bytes end `put_data`: a
    /// combining put with the same operator of the bytes after it continues it
    /// ([`extend_tail`](DestQueue::extend_tail)), as
    /// [`push_combining_put`](DestQueue::push_combining_put) would merge it; `elem` is the element
    /// size (a record holds whole elements).
    #[inline]
    pub(crate) fn combining_tail(&self, elem: usize) -> Option<(Tail, u64)> {
        let last = self.puts.last()?;
        let n = last.len();
        let ends_data = matches!(last.src(), PutSrc::Buffered(a) if a + n == self.put_data.len());
        if !last.combines() || !ends_data {
            return None;
        }
        let op = *self.combines.last()?;
        Some((Tail { slot: last.slot, end: last.byte_offset + n, room: (PutRec::MAX_LEN / elem * elem) - n }, op))
    }

    /// Queues a buffered put of `bytes` that continues the last record, as
    /// [`push_buffered`](DestQueue::push_buffered) (or, for a combining record, with its operator,
    /// [`push_combining_bytes`](DestQueue::push_combining_bytes)) would: `bytes` go to the
    /// registration of that record, right after it (its [`Tail`]'s `slot` and `end`), and are at
    /// most its `room`; nothing was queued here since the tail was taken.
    #[inline(always)]
    pub(crate) fn extend_tail(&mut self, bytes: &[u8]) {
        let last = self.puts.last_mut().expect("a tail to extend");
        debug_assert!(last.len() + bytes.len() <= PutRec::MAX_LEN);
        debug_assert!(matches!(last.src(), PutSrc::Buffered(a) if a + last.len() == self.put_data.len()));
        // The length is the low bits of `len_kind`, below the kind bits, and stays below them.
        last.len_kind += bytes.len() as u32;
        self.put_calls += 1;
        append(&mut self.put_data, bytes);
    }

    /// Records a combining put with operator `op` (`drma/combine.rs`); `elem` is the element size,
    /// so that a long put is split at element boundaries.
    ///
    /// Like a plain put, one that continues the previous combining put (same registration and
    /// operator, the next bytes of both the destination and the source) extends its record:
    /// the two do not overlap, so combining them in order or as one gives the same elements. A
    /// fan-in of one-word sums to consecutive elements then costs the receiver one call of the
    /// operator's loop, not one per word.
    pub(crate) fn push_combining_put(
        &mut self,
        slot: u32,
        byte_offset: usize,
        len: usize,
        at: usize,
        op: u64,
        elem: usize,
    ) {
        self.put_calls += 1;
        if let (Some(last), Some(&last_op)) = (self.puts.last_mut(), self.combines.last())
            && last.combines()
            && last_op == op
            && last.slot == slot
            && matches!(last.src(), PutSrc::Buffered(a) if a + last.len() == at)
            && last.byte_offset + last.len() == byte_offset
            && last.len() + len <= PutRec::MAX_LEN / elem * elem
        {
            *last = PutRec::new(slot, last.byte_offset, last.len() + len, last.src(), true);
            return;
        }
        if len <= PutRec::MAX_LEN {
            self.puts.push(PutRec::new(slot, byte_offset, len, PutSrc::Buffered(at), true));
            self.combines.push(op);
        } else {
            self.push_long_put(slot, byte_offset, len, PutSrc::Buffered(at), Some((op, elem)));
        }
    }

    /// Queues a combining put of `bytes` (copied here) with operator `op` to `byte_offset` in
    /// registration `slot`: [`push_combining_put`](DestQueue::push_combining_put) with the bytes
    /// appended, as [`push_buffered`](DestQueue::push_buffered) is for a plain put.
    #[inline]
    pub(crate) fn push_combining_bytes(&mut self, slot: u32, byte_offset: usize, bytes: &[u8], op: u64, elem: usize) {
        let at = self.put_data.len();
        append(&mut self.put_data, bytes);
        self.push_combining_put(slot, byte_offset, bytes.len(), at, op, elem);
    }

    /// Records a put exactly as given, never merged with the previous one (for an engine that
    /// rebuilds a sender's records, which were merged at the sender already, and refers to them
    /// by index). `len` must be at most [`PutRec::MAX_LEN`].
    #[cfg_attr(not(feature = "mpi"), allow(dead_code, reason = "for engines that rebuild queues (MPI)"))]
    pub(crate) fn push_put_record(&mut self, slot: u32, byte_offset: usize, len: usize, src: PutSrc) {
        self.puts.push(PutRec::new(slot, byte_offset, len, src, false));
    }

    /// Points put `i` (pushed by an engine as a placeholder) at `len` bytes at `src`; its kind
    /// (plain or combining) stays.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code, reason = "for engines that rebuild queues (MPI)"))]
    pub(crate) fn replace_put(&mut self, i: usize, src: PutSrc, len: usize) {
        let old = self.puts[i];
        self.puts[i] = PutRec::new(old.slot, old.byte_offset, len, src, old.combines());
    }

    #[cold]
    fn push_long_put(&mut self, slot: u32, byte_offset: usize, len: usize, src: PutSrc, combine: Option<(u64, usize)>) {
        // A combining put is split at element boundaries.
        let max = match combine {
            Some((_, elem)) => PutRec::MAX_LEN / elem * elem,
            None => PutRec::MAX_LEN,
        };
        let mut done = 0;
        while done < len {
            let n = (len - done).min(max);
            let part = match src {
                PutSrc::Buffered(at) => PutSrc::Buffered(at + done),
                PutSrc::Direct(addr) => PutSrc::Direct(addr + done),
            };
            self.puts.push(PutRec::new(slot, byte_offset + done, n, part, combine.is_some()));
            if let Some((op, _)) = combine {
                self.combines.push(op);
            }
            done += n;
        }
    }

    /// Empties the queue for the next superstep, writing only the cache lines it used: the
    /// first (plain puts) unless something else was queued (`others`).
    #[inline]
    fn clear_used(&mut self) {
        if self.others {
            self.clear();
        } else {
            // (Without `words_inline`, `inline_bytes` stays 0.)
            debug_assert!(self.words_inline || self.inline_bytes == 0);
            self.puts.clear();
            self.put_data.clear();
            self.put_calls = 0;
            self.touched = false;
        }
    }

    /// [`clear_used`](DestQueue::clear_used) for a queue that may carry puts in its records
    /// (`words_inline`).
    #[inline]
    fn clear_used_inline(&mut self) {
        self.clear_used();
        self.inline_bytes = 0;
    }

    pub(crate) fn clear(&mut self) {
        self.others = false;
        self.puts.clear();
        self.put_data.clear();
        self.combines.clear();
        self.msgs.clear();
        self.msg_data.clear();
        self.ext.clear();
        self.ext_data.clear();
        self.sys_msgs.clear();
        self.sys_data.clear();
        (self.gets, self.get_bytes, self.put_calls, self.inline_bytes) = (0, 0, 0, 0);
        self.touched = false;
    }
}

/// The last record of a [`DestQueue`] when it is a plain buffered put
/// ([`DestQueue::buffered_tail`]): a buffered put into registration `slot` at byte offset `end`
/// of up to `room` bytes continues it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tail {
    pub slot: u32,
    pub end: usize,
    pub room: usize,
}

/// Destinations below this pid are found through a dense table, the others through a map, so
/// that an outbox costs O(destinations touched) (plus at most this many words), not O(p).
const DENSE: usize = 1024;

/// Up to this many processes, an outbox keeps one queue per process, indexed by pid: a reader
/// finds its queue without a lookup in memory another core wrote (what a sync of a few
/// processes on a few cores notices), for O(p) queues per process, which is small here.
const DIRECT: usize = 64;

/// Who queued something for whom, for an engine whose processes read each other's outboxes in
/// place: a sender notes itself at a destination when it first queues something for it in a
/// superstep, so that in the sync the destination visits only those senders instead of every
/// process (O(senders) work per process, not O(p)).
///
/// One list per process and superstep parity. A list of parity `s % 2` is written by senders
/// during superstep `s` and taken by its owner during sync `s`, after the first barrier; the
/// next writes to it happen in superstep `s + 2` (or `s + 1` after a sync that kept the outbox
/// parity), after a barrier its owner reaches only after taking it. So the barriers order every
/// write before every read, and the atomics only serialise senders that note themselves at the
/// same destination at once.
#[derive(Debug)]
pub(crate) struct Senders {
    lists: Box<[CachePadded<ByParity>]>,
}

/// One process's lists of senders, by superstep parity.
type ByParity = [SenderList; 2];

/// How many senders a list holds in its own cache line; more go to its `overflow`.
const INLINE_SENDERS: usize = 7;

/// One list of senders: the first [`INLINE_SENDERS`] in one cache line with their count (a
/// sender writes, and the owner reads, that line alone: at large p every line is a miss), the
/// rest under a lock.
#[derive(Debug, Default)]
#[repr(C, align(64))]
struct SenderList {
    /// Senders noted so far (all of them, `overflow`'s included).
    count: AtomicU32,
    first: [AtomicU32; INLINE_SENDERS],
    overflow: Mutex<Vec<u32>>,
}

impl Senders {
    pub(crate) fn new(nprocs: usize) -> Self {
        Senders { lists: (0..nprocs).map(|_| CachePadded::new(ByParity::default())).collect() }
    }

    /// Notes that `src` queued something for `dest` in a superstep of `parity`.
    fn note(&self, dest: usize, src: u32, parity: usize) {
        let list = &self.lists[dest][parity];
        // Relaxed: the count only hands out places among concurrent senders; the owner reads
        // the list after the barrier that every sender reached after noting itself.
        let k = list.count.fetch_add(1, Ordering::Relaxed) as usize;
        match list.first.get(k) {
            // Relaxed: read by the owner after the barrier (as above).
            Some(place) => place.store(src, Ordering::Relaxed),
            // A poisoned lock (a process panicked while pushing) still holds a valid list.
            None => list.overflow.lock().unwrap_or_else(|e| e.into_inner()).push(src),
        }
    }

    /// Takes the senders noted at `me` for the superstep of `parity` into `into`, in ascending
    /// pid order, each once, and empties the list for the next superstep of that parity.
    ///
    /// Out of line: inlined into the threads engine's `exchange`, its lock and sort made that
    /// function save every callee-saved register on the path of the runs that note no senders.
    #[inline(never)]
    pub(crate) fn take(&self, me: usize, parity: usize, into: &mut Vec<u32>) {
        into.clear();
        let list = &self.lists[me][parity];
        // Relaxed (every load and store here): the senders noted themselves before the barrier
        // that this process passed before taking the list, and note again only after a barrier
        // that it reaches after this (the type's docs).
        let n = list.count.load(Ordering::Relaxed) as usize;
        into.extend(list.first.iter().take(n).map(|s| s.load(Ordering::Relaxed)));
        if n > INLINE_SENDERS {
            let mut rest = list.overflow.lock().unwrap_or_else(|e| e.into_inner());
            into.extend_from_slice(&rest);
            rest.clear();
        }
        list.count.store(0, Ordering::Relaxed);
        into.sort_unstable();
        into.dedup();
    }
}

/// One process's outbox for one superstep.
///
/// It holds a queue per destination touched in the superstep, in first-touch order; queues keep
/// their buffers between supersteps (no allocation in steady state), and the memory is
/// proportional to the destinations a process actually sends to.
///
/// `repr(C)`: what a reader looks up (the queues and how to find them) comes first, in the
/// first cache line, away from what only the owner reads. A receiver finds the queue a sender
/// keeps for it in that line alone when the sender queued for at most [`FIRSTS`] destinations
/// (their pids are there, in first-touch order), and only beyond them in the dense table or the
/// map: at large p every line of another process's outbox is a miss.
#[derive(Debug, Default)]
#[repr(C, align(64))]
pub(crate) struct Outbox {
    /// `queues[pid]` is `pid`'s queue (at most [`DIRECT`] processes: `direct`). Otherwise
    /// `queues[..used]` are this superstep's and those after keep buffers for later (emptied when
    /// taken again, [`Outbox::touch`]).
    queues: Vec<DestQueue>,
    direct: bool,
    /// How many of `firsts` hold a pid in this superstep: `min(used, FIRSTS)`.
    nfirsts: u8,
    generation: u32,
    /// `firsts[i]` (below `nfirsts`) is the pid of `queues[i]` (not with `direct`).
    firsts: [u32; FIRSTS],
    /// `dense[pid]` (pids below [`DENSE`]) is `generation << 32 | (1 + the index of pid's
    /// queue)` if `pid` has a queue at an index of at least [`FIRSTS`] in this superstep; an
    /// entry of another generation, or 0, means none. Entries are written only while more than
    /// [`FIRSTS`] queues are in use, and clearing such an outbox moves to the next generation
    /// instead of writing the entries back (a cache line each, at large p); an outbox that used
    /// at most [`FIRSTS`] queues wrote none, and keeps its generation.
    dense: Vec<u64>,
    /// As `dense`, for pids from [`DENSE`] on.
    sparse: HashMap<usize, u32>,
    pub meta: Meta,
    /// This process's gets of the superstep, in issue order.
    pub gets: Vec<GetRec>,
    /// The parts of this process's requests to extension objects, and their bytes.
    pub req_parts: Vec<ReqPart>,
    pub req_data: Vec<u8>,
    used: usize,
    /// The pid of `queues[i]` (with `direct`, each touched pid); otherwise of `queues[FIRSTS + i]`,
    /// those before being in `firsts`.
    dests: Vec<usize>,
    /// The last destination looked up and its queue index (consecutive puts mostly go to one).
    last: Option<(usize, usize)>,
    /// Where to note this process at a destination it first queues something for (an engine
    /// whose receivers visit only their senders): the lists, this process's pid, the parity.
    notes: Option<(Arc<Senders>, u32, usize)>,
    /// The target of the last buffered put that took the checked path in this superstep
    /// ([`Outbox::quick_put`]).
    hit: Option<PutHit>,
}

/// How many destinations' pids an outbox of more than [`DIRECT`] processes keeps in its first
/// cache line ([`Outbox::firsts`](Outbox)).
const FIRSTS: usize = 8;

/// The target of a buffered put that was checked in this superstep: registration `serial` (in
/// `slot`) on process `pid`, whose extent there is `extent` bytes, as the caller named it
/// (`key`: [`PutKey`]). None of it changes before the sync (a registration changes only at a
/// sync; a pop leaves it usable until then, and a push of the same address takes effect only
/// then), and the sync clears the outbox.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PutHit {
    key: u64,
    pid: usize,
    serial: u64,
    slot: u32,
    extent: usize,
    /// The index of `pid`'s queue, once a put through the hit has found it (`usize::MAX` before).
    index: usize,
}

/// How a put names its registration, for [`Outbox::quick_put`]: a handle's serial number (the
/// Rust API), or the address a C program registered (BSPlib's `bsp_put`), which the high bit
/// tells apart (serials count from 1; addresses are below 2^63).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PutKey(u64);

impl PutKey {
    /// The key of a put through a handle of registration `serial`.
    #[inline(always)]
    pub(crate) fn serial(serial: u64) -> Self {
        PutKey(serial)
    }

    /// The key of a put to the registration that a C program registered at `addr`.
    #[inline(always)]
    pub(crate) fn address(addr: usize) -> Self {
        PutKey(addr as u64 | 1 << 63)
    }
}

impl Outbox {
    /// An outbox for a run of `nprocs` processes.
    pub(crate) fn new(nprocs: usize) -> Self {
        if nprocs <= DIRECT {
            Outbox { queues: (0..nprocs).map(|_| DestQueue::default()).collect(), direct: true, ..Self::default() }
        } else {
            Self::default()
        }
    }

    /// An outbox of process `pid` for supersteps of `parity` that notes `pid` in `senders` at
    /// each destination it first queues something for in a superstep.
    pub(crate) fn noting(nprocs: usize, senders: Arc<Senders>, pid: usize, parity: usize) -> Self {
        let pid = u32::try_from(pid).expect("fewer than 2^32 processes");
        Outbox { notes: Some((senders, pid, parity)), ..Self::new(nprocs) }
    }

    /// Calls `f` with each destination touched in this superstep and its queue, in first-touch
    /// order.
    #[inline]
    pub(crate) fn for_each_queue(&self, mut f: impl FnMut(usize, &DestQueue)) {
        if self.direct {
            for &d in &self.dests {
                f(d, &self.queues[d]);
            }
        } else {
            let firsts = self.firsts.iter().map(|&d| d as usize);
            for (q, d) in self.queues[..self.used].iter().zip(firsts.chain(self.dests.iter().copied())) {
                f(d, q);
            }
        }
    }

    /// Empties the outbox, keeping every buffer's capacity (no allocation in steady state).
    #[inline]
    pub(crate) fn clear(&mut self) {
        if self.used > 0 {
            self.clear_queues();
        }
        if !self.meta.pushes.is_empty() || !self.meta.pops.is_empty() {
            self.meta.clear_registrations();
        }
        self.meta.pending = Pending::default();
        self.meta.arrival = Arrival::Sync;
        self.gets.clear();
        self.req_parts.clear();
        self.req_data.clear();
        self.hit = None;
    }

    fn clear_queues(&mut self) {
        if self.direct {
            for &d in &self.dests {
                self.queues[d].clear_used();
            }
        } else {
            // The queues are emptied when they are taken again (`touch`): each is written then
            // anyway, and at large p each is a cache line that no process has used since.
            self.nfirsts = 0;
            if self.used > FIRSTS {
                self.generation = self.generation.wrapping_add(1);
                if self.generation == 0 {
                    // After 2^32 generations an entry never written since could match again.
                    self.dense.fill(0);
                }
            }
        }
        if !self.sparse.is_empty() {
            self.sparse.clear();
        }
        self.dests.clear();
        self.used = 0;
        self.last = None;
    }

    /// Always inlined: a sync calls it through `queue` for every sender, and out of line (as the
    /// compiler leaves it, since `touch` calls it too) its call costs as much as its work.
    #[inline(always)]
    fn index_of(&self, pid: usize) -> Option<usize> {
        if self.direct {
            return self.queues[pid].touched.then_some(pid);
        }
        let n = usize::from(self.nfirsts);
        if let Some(i) = self.firsts[..n].iter().position(|&f| f as usize == pid) {
            return Some(i);
        }
        if n < FIRSTS {
            // Every queue of this superstep is among `firsts`.
            return None;
        }
        if pid < DENSE {
            match self.dense.get(pid) {
                Some(&e) if (e >> 32) as u32 == self.generation && e as u32 > 0 => Some(e as u32 as usize - 1),
                _ => None,
            }
        } else {
            self.sparse.get(&pid).map(|&i| i as usize)
        }
    }

    /// The queue for `pid`, made if this is the first thing queued for it in this superstep.
    #[inline]
    pub(crate) fn dest(&mut self, pid: usize) -> &mut DestQueue {
        let q = self.dest_for_puts(pid);
        q.others = true;
        q
    }

    /// [`dest`](Outbox::dest) for queuing plain buffered or unbuffered puts only
    /// ([`DestQueue::push_buffered`], [`DestQueue::push_put`] and the tail's extensions):
    /// anything else queued through it would survive the queue's clearing.
    #[inline]
    pub(crate) fn dest_for_puts(&mut self, pid: usize) -> &mut DestQueue {
        let i = match self.last {
            Some((p, i)) if p == pid => i,
            _ => self.touch(pid),
        };
        &mut self.queues[i]
    }

    fn touch(&mut self, pid: usize) -> usize {
        if self.direct {
            let q = &mut self.queues[pid];
            if !q.touched {
                q.touched = true;
                self.dests.push(pid);
                self.used += 1;
                if let Some((senders, me, parity)) = &self.notes {
                    senders.note(pid, *me, *parity);
                }
            }
            self.last = Some((pid, pid));
            return pid;
        }
        let i = match self.index_of(pid) {
            Some(i) => i,
            None => {
                let i = self.used;
                if i == self.queues.len() {
                    self.queues.push(DestQueue { words_inline: true, ..DestQueue::default() });
                } else {
                    // A queue of an earlier superstep (`clear_queues` left it as it was).
                    self.queues[i].clear_used_inline();
                }
                self.used += 1;
                if let Some((senders, me, parity)) = &self.notes {
                    senders.note(pid, *me, *parity);
                }
                let stored = u32::try_from(i).expect("fewer than 2^32 destinations");
                if i < FIRSTS {
                    self.firsts[i] = u32::try_from(pid).expect("fewer than 2^32 processes");
                    self.nfirsts += 1;
                } else if pid < DENSE {
                    self.dests.push(pid);
                    if self.dense.len() <= pid {
                        self.dense.resize(pid + 1, 0);
                    }
                    self.dense[pid] = u64::from(self.generation) << 32 | u64::from(stored + 1);
                } else {
                    self.dests.push(pid);
                    self.sparse.insert(pid, stored);
                }
                i
            }
        };
        self.last = Some((pid, i));
        i
    }

    /// Remembers that a buffered put into registration (`slot`, `serial`) on `pid`, whose
    /// extent there is `extent` bytes, named by `key`, was checked and queued in this superstep,
    /// so that the process's flags say it has puts: [`quick_put`](Outbox::quick_put) then
    /// queues the next puts to the same target with only their extent checked.
    /// (If that put's queue was the last one looked up, the hit keeps its index.)
    #[inline]
    pub(crate) fn note_hit(&mut self, key: PutKey, pid: usize, (slot, serial): (u32, u64), extent: usize) {
        let index = match self.last {
            Some((p, i)) if p == pid => i,
            _ => usize::MAX,
        };
        self.hit = Some(PutHit { key: key.0, pid, serial, slot, extent, index });
    }

    /// The registration (slot, serial) that `key` names if the last checked put
    /// ([`note_hit`](Outbox::note_hit)) named it so (to any process).
    #[inline]
    pub(crate) fn hit_registration(&self, key: PutKey) -> Option<(u32, u64)> {
        self.hit.filter(|h| h.key == key.0).map(|h| (h.slot, h.serial))
    }

    /// Queues a buffered put of `len` bytes (`n` elements of `size` bytes, at element `offset`)
    /// into the registration named `key` on `pid`, if that is the target of the last checked put
    /// of this superstep ([`note_hit`](Outbox::note_hit)), the put lies within the extent there,
    /// moves something, and is not bulk: the checks that do not depend on the offset, and the
    /// flags, were made for that put. `bytes` gives the put's bytes (`len` of them), and is
    /// called only once the put is accepted.
    ///
    /// With `IN_PLACE`, only a put of 4, 8 or 16 bytes, if an earlier put through the same hit
    /// found the queue, and the put fits its spare capacity: then there is no call on the path.
    /// Returns whether it did; if not, nothing changed.
    #[inline(always)]
    pub(crate) fn quick_put<'b, const IN_PLACE: bool>(
        &mut self,
        target: (usize, PutKey),
        elems: (usize, usize, usize),
        len: usize,
        bytes: impl FnOnce() -> &'b [u8],
    ) -> bool {
        if !IN_PLACE {
            return self.quick_put_len::<false>(target, elems, len, bytes);
        }
        // Each length gets a copy of the path with its length known, so that its checks of the
        // length fold away; a word, the commonest, is found by the first comparison.
        match len {
            8 => self.quick_put_len::<true>(target, elems, 8, bytes),
            4 => {
                less_likely();
                self.quick_put_len::<true>(target, elems, 4, bytes)
            }
            16 => {
                less_likely();
                self.quick_put_len::<true>(target, elems, 16, bytes)
            }
            _ => false,
        }
    }

    /// [`quick_put`](Outbox::quick_put), with `IN_PLACE` for a `len` of 4, 8 or 16 only.
    #[inline(always)]
    fn quick_put_len<'b, const IN_PLACE: bool>(
        &mut self,
        (pid, key): (usize, PutKey),
        (offset, n, size): (usize, usize, usize),
        len: usize,
        bytes: impl FnOnce() -> &'b [u8],
    ) -> bool {
        let Some(hit) = self.hit else { return false };
        if hit.key != key.0 || hit.pid != pid {
            return false;
        }
        // (A put of zero-sized elements moves nothing: the checked path.)
        let (Some(extent), slot) = (hit.extent.checked_div(size), hit.slot) else { return false };
        if len == 0 || offset > extent || n > extent - offset || len >= BULK_BYTES {
            return false;
        }
        if IN_PLACE {
            let Some(q) = self.queues.get_mut(hit.index) else { return false };
            let at = offset * size;
            // (`len` is 4, 8 or 16, known where this is inlined; `bytes` gives `len` bytes.)
            let pushed = match (len, bytes()) {
                (8, b) => matches!(<&[u8; 8]>::try_from(b), Ok(b) if q.push_buffered_in_place(slot, at, b)),
                (4, b) => matches!(<&[u8; 4]>::try_from(b), Ok(b) if q.push_buffered_in_place(slot, at, b)),
                (_, b) => matches!(<&[u8; 16]>::try_from(b), Ok(b) if q.push_buffered_in_place(slot, at, b)),
            };
            if !pushed {
                return false;
            }
        } else {
            self.dest_for_puts(pid).push_buffered(slot, offset * size, bytes());
            // `dest_for_puts` left `pid`'s queue as the last one looked up.
            if let (Some(h), Some((_, i))) = (&mut self.hit, self.last) {
                h.index = i;
            }
        }
        true
    }

    /// Queues a combining put of one element (`bytes`, of `size` bytes, with operator `op`) at
    /// element `offset` of the registration named `key` on `pid`, if that is the target of the
    /// last checked put of this superstep (as for [`quick_put`](Outbox::quick_put)), the element
    /// lies within the extent there, and the put continues the queue's last record, a combining
    /// one with the same operator, within its room and the buffer's spare capacity: then there
    /// is no call on the path. Returns whether it did; if not, nothing changed.
    #[inline(always)]
    pub(crate) fn quick_combine_one(
        &mut self,
        (pid, key): (usize, PutKey),
        offset: usize,
        size: usize,
        bytes: &[u8],
        op: u64,
    ) -> bool {
        let Some(hit) = self.hit else { return false };
        if hit.key != key.0 || hit.pid != pid {
            return false;
        }
        let Some(extent) = hit.extent.checked_div(size) else { return false };
        if offset >= extent || bytes.len() != size {
            return false;
        }
        let Some(q) = self.queues.get_mut(hit.index) else { return false };
        q.extend_combining_in_place(hit.slot, offset * size, bytes, op)
    }

    /// The put calls queued in this superstep (each queue counts its own, `put_calls`).
    pub(crate) fn put_calls(&self) -> usize {
        let mut calls = 0;
        self.for_each_queue(|_, q| calls += q.put_calls);
        calls
    }

    /// What was queued for `pid` in this superstep, if anything.
    #[inline]
    pub(crate) fn queue(&self, pid: usize) -> Option<&DestQueue> {
        self.index_of(pid).map(|i| &self.queues[i])
    }
}

/// Marks the path that calls it as the less likely one, so that the compiler lays out the other
/// first (a stable form of `std::hint::cold_path`).
#[cold]
#[inline]
fn less_likely() {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes of every record of `q`, read where a receiver reads them (`PutRec::src`), with
    /// its registration slot and byte offset.
    fn records(q: &DestQueue) -> Vec<(u32, usize, Vec<u8>)> {
        q.puts
            .iter()
            .map(|r| {
                let bytes = match r.src() {
                    PutSrc::Buffered(at) => q.put_data[at..at + r.len()].to_vec(),
                    // SAFETY: a record that carries its bytes gives their address in itself,
                    // which `q` keeps in place while it is borrowed here (no hpput is queued).
                    PutSrc::Direct(addr) => unsafe { std::slice::from_raw_parts(addr as *const u8, r.len()) }.to_vec(),
                };
                (r.slot, r.byte_offset, bytes)
            })
            .collect()
    }

    #[test]
    fn the_first_word_of_a_queue_travels_in_its_record() {
        let mut q = DestQueue { words_inline: true, ..DestQueue::default() };
        q.push_buffered(1, 16, &7u64.to_ne_bytes());
        assert!(q.put_data.is_empty(), "the first put is carried in its record");
        assert_eq!(q.inline_bytes, 8);
        // The next ones are buffered, and those that continue each other share a record.
        q.push_buffered(1, 24, &[1, 2, 3]);
        q.push_buffered(1, 27, &[4, 5]);
        q.put_data.reserve(64);
        q.puts.reserve(4);
        assert!(q.push_buffered_in_place(1, 29, &[9; 4]));
        assert!(q.push_buffered_in_place(2, 40, &[6; 8]));
        assert_eq!(
            records(&q),
            [
                (1, 16, 7u64.to_ne_bytes().to_vec()),
                (1, 24, [&[1, 2, 3, 4, 5][..], &[9; 4]].concat()),
                (2, 40, vec![6; 8])
            ]
        );
        assert_eq!((q.put_calls, q.inline_bytes, q.put_data.len()), (5, 8, 17));
        q.clear_used_inline();
        assert!(q.puts.is_empty() && q.put_data.is_empty() && q.inline_bytes == 0);
        // A put of more than a word is buffered even as the first.
        q.push_buffered(3, 0, &[5; 9]);
        assert_eq!(records(&q), [(3, 0, vec![5; 9])]);
        assert_eq!((q.inline_bytes, q.put_data.len()), (0, 9));
    }

    #[test]
    fn without_words_inline_every_put_is_buffered() {
        let mut q = DestQueue::default();
        q.push_buffered(1, 0, &7u64.to_ne_bytes());
        q.push_buffered(1, 32, &8u64.to_ne_bytes());
        assert_eq!(q.put_data.len(), 16);
        assert_eq!(records(&q), [(1, 0, 7u64.to_ne_bytes().to_vec()), (1, 32, 8u64.to_ne_bytes().to_vec())]);
    }

    #[test]
    fn senders_are_taken_ascending_once_each_beyond_the_inline_places() {
        let s = Senders::new(3);
        let mut got = Vec::new();
        for src in [9, 4, 12, 4, 1, 30, 2, 8, 7, 5, 11] {
            s.note(2, src, 1);
        }
        s.note(2, 3, 0);
        s.take(2, 1, &mut got);
        assert_eq!(got, [1, 2, 4, 5, 7, 8, 9, 11, 12, 30]);
        // The list is empty for the next superstep of its parity; the other parity kept its own.
        s.take(2, 1, &mut got);
        assert!(got.is_empty());
        s.take(2, 0, &mut got);
        assert_eq!(got, [3]);
        // A second superstep of the parity, again more senders than the line holds: only its own
        // (the overflow of the first was emptied when it was taken).
        for src in [40, 41, 42, 43, 44, 45, 46, 47, 48] {
            s.note(2, src, 1);
        }
        s.take(2, 1, &mut got);
        assert_eq!(got, [40, 41, 42, 43, 44, 45, 46, 47, 48]);
    }

    #[test]
    fn an_outbox_of_many_processes_finds_queues_beyond_its_first_line() {
        let mut out = Outbox::new(2000);
        let mut before: Vec<usize> = Vec::new();
        for round in 0..4usize {
            // More destinations than fit the first line, past it some from the dense table (pids
            // below 1024) and some from the map; round 2 uses only the first line, round 3 the
            // table again (the generation moves only when the table was written).
            let mut dests: Vec<usize> = (0..12).map(|k| k * 70 + round * 7).collect();
            dests.extend([1500 + round * 7, 1900 + round * 3]);
            if round == 2 {
                dests.truncate(5);
            }
            for &d in &dests {
                out.dest_for_puts(d).push_buffered(0, 8 * round, &(d as u64).to_ne_bytes());
            }
            for &d in &dests {
                let q = out.queue(d).expect("a queue for every destination");
                assert_eq!(records(q), [(0, 8 * round, (d as u64).to_ne_bytes().to_vec())], "round {round}, pid {d}");
            }
            // Last superstep's destinations that are not this one's have no queue.
            for &d in before.iter().filter(|d| !dests.contains(d)) {
                assert!(out.queue(d).is_none(), "round {round}: pid {d} kept a queue of the round before");
            }
            assert!(out.queue(1999).is_none());
            out.clear();
            before = dests;
        }
    }
}
