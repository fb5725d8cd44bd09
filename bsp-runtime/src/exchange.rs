//! What one process publishes at a sync: its outbox.
//!
//! This is the engine-neutral description of a superstep's communication. The semantic layer
//! (`ctx`, `drma`, `bsmp`, `reg`) fills it during the superstep; an engine moves it. Nothing here
//! is a pointer into another process's memory except [`PutSrc::Direct`], which only the threads
//! engine creates (an engine without a shared address space copies those bytes instead).

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
}

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
    /// The tag size requested for the next superstep (state `C` of SEMANTICS.md §4.1).
    pub tag_request: usize,
    /// Operations still queued when the SPMD function returned (D15), for the message.
    pub pending: Pending,
}

/// Counts of queued communication, by kind. Registration changes are not counted: one left
/// pending when the SPMD function returns has nothing to lose (BSPlib programs often end with
/// `bsp_pop_reg` followed directly by `bsp_end`).
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
#[derive(Clone, Copy, Debug)]
pub(crate) struct PutRec {
    pub byte_offset: usize,
    /// `PutSrc`'s offset or address.
    src: usize,
    pub slot: u32,
    /// Length in bytes, with `DIRECT` set for `PutSrc::Direct`.
    len_kind: u32,
}

impl PutRec {
    const DIRECT: u32 = 1 << 31;
    /// The longest put one record describes; [`DestQueue::push_put`] splits longer ones.
    pub(crate) const MAX_LEN: usize = (1 << 31) - 1;

    #[inline]
    fn new(slot: u32, byte_offset: usize, len: usize, src: PutSrc) -> Self {
        debug_assert!(len <= Self::MAX_LEN);
        let (src, kind) = match src {
            PutSrc::Buffered(at) => (at, 0),
            PutSrc::Direct(addr) => (addr, Self::DIRECT),
        };
        PutRec { byte_offset, src, slot, len_kind: len as u32 | kind }
    }

    /// Length in bytes.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        (self.len_kind & !Self::DIRECT) as usize
    }

    #[inline]
    pub(crate) fn src(&self) -> PutSrc {
        if self.len_kind & Self::DIRECT != 0 {
            PutSrc::Direct(self.src)
        } else {
            PutSrc::Buffered(self.src)
        }
    }
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

/// Everything one process sends to one destination in one superstep, in issue order.
#[derive(Debug, Default)]
pub(crate) struct DestQueue {
    pub puts: Vec<PutRec>,
    pub put_data: Vec<u8>,
    pub msgs: Vec<MsgRec>,
    pub msg_data: Vec<u8>,
    /// Records for extension objects (`ext.rs`).
    pub ext: Vec<crate::ext::ExtRec>,
    pub ext_data: Vec<u8>,
    // stats: gets (and their bytes) the owner of this queue asks of its destination; counted
    // by the requester when it queues them, read by the destination for its statistics.
    pub gets: usize,
    pub get_bytes: usize,
}

impl DestQueue {
    /// Records a put of `len` bytes, as records of at most [`PutRec::MAX_LEN`] bytes each.
    #[inline]
    pub(crate) fn push_put(&mut self, slot: u32, byte_offset: usize, len: usize, src: PutSrc) {
        if len <= PutRec::MAX_LEN {
            self.puts.push(PutRec::new(slot, byte_offset, len, src));
        } else {
            self.push_long_put(slot, byte_offset, len, src);
        }
    }

    #[cold]
    fn push_long_put(&mut self, slot: u32, byte_offset: usize, len: usize, src: PutSrc) {
        let mut done = 0;
        while done < len {
            let n = (len - done).min(PutRec::MAX_LEN);
            let part = match src {
                PutSrc::Buffered(at) => PutSrc::Buffered(at + done),
                PutSrc::Direct(addr) => PutSrc::Direct(addr + done),
            };
            self.puts.push(PutRec::new(slot, byte_offset + done, n, part));
            done += n;
        }
    }

    pub(crate) fn clear(&mut self) {
        self.puts.clear();
        self.put_data.clear();
        self.msgs.clear();
        self.msg_data.clear();
        self.ext.clear();
        self.ext_data.clear();
        (self.gets, self.get_bytes) = (0, 0); // stats:
    }
}

/// One process's outbox for one superstep.
#[derive(Debug, Default)]
pub(crate) struct Outbox {
    pub meta: Meta,
    /// Indexed by destination pid.
    pub to: Vec<DestQueue>,
    /// Destinations with something queued, so a sync touches only those.
    pub touched: Vec<usize>,
}

impl Outbox {
    pub(crate) fn new(nprocs: usize) -> Self {
        Outbox { meta: Meta::default(), to: (0..nprocs).map(|_| DestQueue::default()).collect(), touched: Vec::new() }
    }

    /// Empties the outbox, keeping every buffer's capacity (no allocation in steady state).
    pub(crate) fn clear(&mut self) {
        for &d in &self.touched {
            self.to[d].clear();
        }
        self.touched.clear();
        self.meta.pushes.clear();
        self.meta.pops.clear();
        self.meta.pending = Pending::default();
        self.meta.arrival = Arrival::Sync;
    }

    /// The queue for `pid`, remembering that it was touched.
    #[inline]
    pub(crate) fn dest(&mut self, pid: usize) -> &mut DestQueue {
        let q = &mut self.to[pid];
        if q.puts.is_empty() && q.msgs.is_empty() && q.ext.is_empty() && q.gets == 0 {
            // stats: (`q.gets`) a queue with only gets counts as touched, so that it is cleared
            self.touched.push(pid);
        }
        &mut self.to[pid]
    }
}
