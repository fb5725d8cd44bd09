//! The MPI engine: BSP processes are MPI ranks (cargo feature `mpi`).
//!
//! A program built with the feature and started by `mpirun` runs each BSP process as one rank;
//! the same program started directly runs on threads. The BSPlib semantics are the ones of
//! `sync/`, shared with the threads engine through the [`Peers`] view; only the moving of
//! bytes differs:
//!
//! - every sync starts with an exchange of two words between every pair of ranks: the rank's
//!   flags (their OR is what the threads engine's combining barrier gives) and the size of the
//!   block it will send to the other. On two ranks that is one `MPI_Sendrecv` (what an
//!   `MPI_Barrier` costs), which also carries the block itself when it is small (up to 480
//!   words); on more ranks one `MPI_Alltoall`. An empty sync is that one exchange;
//! - otherwise each rank serialises, for every destination, its collective bookkeeping and what
//!   it queued for that destination (puts with their data — hpput sources are read here, so no
//!   staging copy is made at the call —, messages, extension records, get requests), and the
//!   blocks move in one more exchange: a message to and from each other rank up to 8 ranks, one
//!   `MPI_Alltoallv` beyond (a rank with something queued serialises before the first exchange,
//!   to announce its sizes; the others send a header of known size);
//! - gets are request/reply: after the exchange every owner reads the requested bytes from its
//!   registered memory, before applying any put of the superstep (D1), and a second exchange of
//!   blocks returns them;
//! - then every rank applies what it received with the engine-neutral code of `sync/`.
//!
//! Requests to extension objects (GP arrays' reads) travel with the get requests and are
//! answered by the owner's object in the same reply exchange.
//!
//! The format of the blocks is in [`wire`] (reusable by any engine that moves outboxes between
//! address spaces), the large point-to-point transfers in [`direct`].
//!
//! Buffers are kept between syncs, so a steady superstep allocates nothing. Limit: at most
//! 2^31 − 1 words (16 GiB) from one rank to another per superstep (MPI counts are `int`).
//!
//! Failure: a panic or `abort` on one rank prints its message and calls `MPI_Abort`, which
//! stops every rank (a rank waiting in a collective cannot be woken otherwise). Collective
//! mismatches are found by every rank; rank 0 prints the error before any rank returns it
//! (`report_once`), and each returns it quieted.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use mpi::collective::SystemOperation;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;

use std::cell::UnsafeCell;

use super::transport::mpi::direct::{GET_TAG, PUT_TAG, Transfers, swap_words};
pub(crate) use super::transport::mpi::local_ranks;
use super::transport::mpi::sparse::{self, log2_ceil};
use super::transport::mpi::{Dense, INLINE_WORDS, POINT_TO_POINT_RANKS, count, crowded};
use super::transport::wire::{self, HEADER_WORDS, LargeIn, Received};
use super::transport::{Block, DENSE, ExchangeMode, Landing, Out, is_large};
use super::{AnyEngine, Endpoint, Engine, Fate, GetBytes, Outboxes, Peers, Poisoned, ReadResults, Status, Want};
use crate::Error;
use crate::outbox::{GetRec, LANDED, Outbox, PutSrc, flags};
use crate::reg::Table;

/// Whether this OS process was started by `mpirun` (read before MPI is initialised, which
/// sets some of these variables itself).
pub(crate) fn started_by_mpirun() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"].iter().any(|v| std::env::var_os(v).is_some())
}

/// An MPI run is in progress in this OS process (a nested run then uses threads).
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// MPI was initialised (and finalised) by an earlier run: it cannot be started again.
static USED: AtomicBool = AtomicBool::new(false);

/// Whether a launch now should use MPI.
/// Whether rank 0 is running a set-up (`Launch::run_set_up`) now: MPI is initialised for the
/// run to come, and `Launch::nprocs` in the set-up must still answer as before the run.
static SETTING_UP: AtomicBool = AtomicBool::new(false);

/// See [`SETTING_UP`].
pub(crate) fn setting_up() -> bool {
    // Relaxed: read and written by the thread that launches, which runs the set-up.
    SETTING_UP.load(Ordering::Relaxed)
}

pub(crate) fn wanted() -> bool {
    // Relaxed: read and written by the thread that launches (MPI runs on process 0's thread).
    started_by_mpirun() && !ACTIVE.load(Ordering::Relaxed)
}

/// One rank's side of the MPI engine: the communicator, the rank's outboxes and the buffers
/// reused by every sync.
pub(crate) struct Mpi {
    comm: SimpleCommunicator,
    /// The parity of the superstep whose sync is in progress (set by `arrive`).
    parity: usize,
    /// The rank's two outboxes (by superstep parity), written by the rank's own calls and read
    /// by `serialize` in the sync: one thread, never at the same time.
    outboxes: Box<[UnsafeCell<Outbox>; 2]>,
    send: Vec<u64>,
    /// The counts of the blocks out (by destination) and in, and the exchange that moves them.
    dense: Dense,
    recv: Vec<u64>,
    peers: Received,
    /// Scratch for serving gets: one requester's reply bytes, and read positions in the
    /// replies.
    scratch: Vec<u8>,
    cursor: Vec<usize>,
    /// Large transfers moving point to point in this sync (`direct.rs`): puts (completed in
    /// `land_puts`) and get replies (completed in `read`), kept apart so that waiting for one
    /// kind never waits for the other, whose receives are posted later.
    put_transfers: Transfers,
    get_transfers: Transfers,
    /// This rank's large puts, in the order sent: (destination, address, length).
    large_out: Vec<(usize, usize, usize)>,
    /// Large puts coming to this rank, in the order received.
    large_in: Vec<LargeIn>,
    /// Where large puts that cannot land in place wait for the put phase.
    bounce: Vec<u8>,
    /// The arrival's `MPI_Alltoall`: (flags, words for that rank) to each rank, and from each.
    arrive_out: Vec<u64>,
    arrive_in: Vec<u64>,
    /// Set by `arrive`: `send` holds this sync's blocks (the rank had work), and `recv_counts`
    /// the sizes of the blocks coming (some rank had work).
    serialized: bool,
    counts_known: bool,
    /// Set by `arrive` when no rank has gets: `recv` then holds the exchange's blocks until the
    /// end of the sync (no reply exchange reuses it), and puts are applied from it in place.
    recv_kept: bool,
    /// Two ranks: the arrival's message to the other rank and from it (`[flags, words, block]`,
    /// the block inline when it is small: `INLINE`), and whether the blocks of this sync went
    /// inline each way (so that the exchange of blocks skips that direction).
    arrive_msg: Vec<u64>,
    arrive_got: Vec<u64>,
    inline_sent: bool,
    inline_got: bool,
    /// Which exchange syncs may use (`BSP_MPI_EXCHANGE`), and whether this sync uses the
    /// sparse one (decided by `arrive`, identically on every rank).
    mode: ExchangeMode,
    sparse: bool,
    /// The sparse exchange's blocks out and in, the destinations of this rank's blocks, and the
    /// owners of its gets and requests.
    blocks: Vec<Block>,
    arrived: Vec<Block>,
    dests: Vec<usize>,
    owners: Vec<usize>,
    requests: Transfers,
    /// Messages this rank has sent in syncs (a collective counts as the messages its usual
    /// algorithm sends: p − 1 for an all-to-all, ⌈log₂ p⌉ for an all-reduce or a barrier).
    messages: u64,
    /// Some machine of the job runs more ranks than it has cores (every rank learns it from one
    /// all-reduce at the start). The sparse exchange's non-blocking barrier completes only once
    /// every rank has been scheduled to poll it, which on a crowded machine costs more than the
    /// dense exchange saves, so `Auto` then keeps the dense exchange, and its arrival.
    crowded: bool,
}

/// In the size word of a two-rank arrival: the block follows in the same message.
const INLINE: u64 = 1 << 63;

impl Mpi {
    fn new(comm: SimpleCommunicator, nprocs: usize, mode: ExchangeMode) -> Self {
        Mpi {
            comm,
            parity: 0,
            outboxes: Box::new([UnsafeCell::new(Outbox::new(nprocs)), UnsafeCell::new(Outbox::new(nprocs))]),
            send: Vec::new(),
            dense: Dense::new(nprocs),
            recv: Vec::new(),
            peers: Received::new(nprocs),
            scratch: Vec::new(),
            cursor: vec![0; nprocs],
            put_transfers: Transfers::default(),
            get_transfers: Transfers::default(),
            large_out: Vec::new(),
            large_in: Vec::new(),
            bounce: Vec::new(),
            arrive_out: Vec::with_capacity(2 * nprocs),
            arrive_in: vec![0; 2 * nprocs],
            serialized: false,
            counts_known: false,
            recv_kept: false,
            arrive_msg: Vec::with_capacity(INLINE_WORDS),
            arrive_got: vec![0; INLINE_WORDS],
            inline_sent: false,
            inline_got: false,
            mode,
            sparse: false,
            blocks: Vec::new(),
            arrived: Vec::new(),
            dests: Vec::new(),
            owners: Vec::new(),
            requests: Transfers::default(),
            messages: 0,
            crowded: false,
        }
    }

    /// Whether syncs of this run may use the sparse exchange (then every sync starts with an
    /// all-reduce of the flags, which also says whether this one does).
    fn sparse_capable(&self) -> bool {
        let p = self.dense.recv_counts.len();
        match self.mode {
            ExchangeMode::Dense => false,
            ExchangeMode::Sparse => p > 1,
            ExchangeMode::Auto => p > POINT_TO_POINT_RANKS && !self.crowded,
        }
    }

    /// The start of a sync (`Engine::arrive`): one `MPI_Alltoall` that carries every rank's
    /// flags (their OR, as `combine`'s `MPI_Allreduce` gives it) and the size of the block it
    /// will send to each rank, so that a sync with communication needs one collective less. A
    /// rank with something queued serialises its blocks first; the others send only the header,
    /// whose size is known, and serialise it if the sync turns out not to be empty.
    fn arrive_and_announce(&mut self, parity: usize, flags: u64) -> Result<u64, Poisoned> {
        self.parity = parity;
        if self.sparse_capable() {
            return Ok(self.arrive_sparse_capable(flags));
        }
        self.sparse = false;
        let work = flags & (flags::WORK | flags::GET) != 0;
        if work {
            self.serialize();
        }
        self.arrive_out.clear();
        for q in 0..self.arrive_in.len() / 2 {
            let words = if work { self.dense.send_counts[q] as u64 } else { HEADER_WORDS as u64 };
            self.arrive_out.extend_from_slice(&[flags, words]);
        }
        (self.inline_sent, self.inline_got) = (false, false);
        if self.arrive_in.len() == 4 {
            // Two ranks: the exchange is one `MPI_Sendrecv` with the other (as `MPI_Barrier`
            // is), without the collective's own overhead; a small block rides along, so that a
            // superstep of a little communication costs one message each way.
            let me = self.comm.rank() as usize;
            let other = 1 - me;
            self.arrive_in[2 * me..2 * me + 2].copy_from_slice(&self.arrive_out[2 * me..2 * me + 2]);
            self.arrive_msg.clear();
            self.arrive_msg.extend_from_slice(&self.arrive_out[2 * other..2 * other + 2]);
            let words = self.arrive_msg[1] as usize;
            if work && 2 + words <= INLINE_WORDS {
                // The block for the other rank: after the own block if that comes first.
                let at = if other == 0 { 0 } else { self.dense.send_counts[0] as usize };
                self.arrive_msg[1] |= INLINE;
                self.arrive_msg.extend_from_slice(&self.send[at..at + words]);
                self.inline_sent = true;
            }
            swap_words(&self.comm, other, &self.arrive_msg, &mut self.arrive_got);
            self.messages += 1;
            self.arrive_in[2 * other] = self.arrive_got[0];
            self.arrive_in[2 * other + 1] = self.arrive_got[1] & !INLINE;
            self.inline_got = self.arrive_got[1] & INLINE != 0;
        } else {
            self.comm.all_to_all_into(&self.arrive_out[..], &mut self.arrive_in[..]);
            self.messages += self.dense.recv_counts.len() as u64 - 1;
        }
        let mut all = 0;
        for (q, pair) in self.arrive_in.chunks_exact(2).enumerate() {
            all |= pair[0];
            self.dense.recv_counts[q] = count(pair[1] as usize, "the data from one rank");
        }
        self.serialized = work;
        self.counts_known = all & (flags::WORK | flags::GET) != 0;
        self.recv_kept = all & flags::GET == 0;
        Ok(all)
    }

    /// The arrival of a run that may use the sparse exchange: an all-reduce of the flags, with
    /// [`DENSE`] from a rank that talks to more than a quarter of the ranks (`Auto`). The sync
    /// is sparse when somebody queued something and nobody is dense, changes registrations or
    /// the tag size, or ended: the same verdict on every rank, from the same OR.
    fn arrive_sparse_capable(&mut self, flags: u64) -> u64 {
        let p = self.dense.recv_counts.len();
        let mut mine = flags;
        // The ranks this one would send blocks to (none without work), for `exchange_sparse`.
        self.dests.clear();
        if flags & (flags::WORK | flags::GET) != 0 {
            // SAFETY: in the sync, after `parity` was set.
            let out = unsafe { own_outbox(&self.outboxes, self.parity) };
            note_dests(out, &mut self.dests);
            if self.mode == ExchangeMode::Auto && 4 * self.dests.len() > p {
                mine |= DENSE;
            }
        }
        let mut all = 0u64;
        self.comm.all_reduce_into(&mine, &mut all, SystemOperation::bitwise_or());
        self.messages += log2_ceil(p);
        let moved = all & (flags::WORK | flags::GET) != 0;
        self.sparse = moved && all & (DENSE | flags::COLLECTIVE | flags::END | flags::PENDING) == 0;
        (self.serialized, self.counts_known, self.inline_sent, self.inline_got) = (false, false, false, false);
        self.recv_kept = all & flags::GET == 0;
        all & !DENSE
    }

    /// The sparse exchange of blocks (`sparse.rs`): this rank's blocks go to the ranks it
    /// queued something for or asked something of; the senders it hears from become the
    /// view's senders.
    fn exchange_sparse(&mut self) {
        // SAFETY: in the sync, after `arrive`, which noted the destinations in `dests`.
        let out = unsafe { own_outbox(&self.outboxes, self.parity) };
        self.send.clear();
        self.blocks.clear();
        self.large_out.clear();
        for &d in &self.dests {
            let at = self.send.len();
            wire::write_block(out, d, &mut self.send, Some(&mut self.large_out));
            self.blocks.push(Block { rank: d, at, words: self.send.len() - at });
        }
        // What the last exchange left in the view from senders not heard from now must go.
        self.peers.forget_senders();
        let me = self.comm.rank() as usize;
        let (out, into) =
            (Out { words: &self.send, blocks: &self.blocks }, Landing { recv: &mut self.recv, got: &mut self.arrived });
        self.messages += sparse::consensus(&self.comm, me, out, into, &mut self.requests);
        self.arrived.sort_unstable_by_key(|b| b.rank);
        self.large_in.clear();
        self.peers.senders.clear();
        for b in &self.arrived {
            wire::read_block(&self.recv[..], b.at, b.rank, &mut self.peers, &mut self.large_in, self.recv_kept);
            self.peers.senders.push(b.rank as u32);
        }
        self.plan_large_puts();
    }

    /// Where the rank's process finds its outboxes.
    fn outboxes(&self) -> Outboxes {
        let ptr = |cell: &UnsafeCell<Outbox>| std::ptr::NonNull::new(cell.get()).expect("an UnsafeCell is never null");
        Outboxes([ptr(&self.outboxes[0]), ptr(&self.outboxes[1])])
    }

    /// Every rank's arrival, superstep and pending counts (error paths only).
    fn all_statuses(&self, mine: Status) -> Vec<Status> {
        let mut all = vec![0u64; wire::STATUS_WORDS * self.comm.size() as usize];
        self.comm.all_gather_into(&wire::status_words(&mine)[..], &mut all[..]);
        wire::statuses(&all).collect()
    }

    /// Serialises this rank's bookkeeping and its queue for every destination into `send`.
    fn serialize(&mut self) {
        // SAFETY: called in the sync, from `arrive` or `exchange`.
        let out = unsafe { own_outbox(&self.outboxes, self.parity) };
        let p = self.dense.recv_counts.len();
        self.send.clear();
        self.dense.send_counts.clear();
        self.large_out.clear();
        for q in 0..p {
            let start = self.send.len();
            wire::write_block(out, q, &mut self.send, Some(&mut self.large_out));
            let words = self.send.len() - start;
            self.dense.send_counts.push(count(words, "the data for one destination"));
        }
    }

    /// The blocks of this sync to every rank and from every rank ([`Dense::all_to_all_v`]),
    /// `inline`: the blocks that went with a two-rank arrival, as (sent, got).
    fn all_to_all_v(&mut self, inline: (bool, bool)) {
        let got = inline.1.then(|| &self.arrive_got[2..]);
        self.messages += self.dense.all_to_all_v(&self.comm, &self.send, &mut self.recv, inline.0, got);
    }

    /// Turns the received blocks into `peers`, reusing its buffers.
    fn deserialize(&mut self) {
        self.large_in.clear();
        self.peers.hear_from_all();
        for (src, &displ) in self.dense.recv_displs.iter().enumerate() {
            wire::read_block(&self.recv[..], displ as usize, src, &mut self.peers, &mut self.large_in, self.recv_kept);
        }
    }

    /// Decides where each large put coming to this rank lands: in place, when it does not
    /// combine and no other put of the superstep (from any process) writes any of its bytes, so
    /// that D2's order cannot matter; otherwise in `bounce`, applied in order by the put phase.
    fn plan_large_puts(&mut self) {
        let bounced = wire::plan_large_puts(&self.peers, &mut self.large_in);
        self.bounce.clear();
        self.bounce.resize(bounced, 0);
    }

    /// Answers the get requests (from this rank's registered memory, before any put of the
    /// superstep lands) and the requests to this rank's extension objects, then finds the
    /// answers to this rank's own gets and requests, in issue order. The replies are in the
    /// wire format's ([`wire::write_reply`], [`wire::read_replies`]); large gets move point to
    /// point, straight into where `sync/` lands them.
    fn serve_gets(&mut self, table: &Table, got: &mut ReadResults) {
        let p = self.dense.recv_counts.len();
        // SAFETY: in the sync, after `arrive`.
        let out = unsafe { own_outbox(&self.outboxes, self.parity) };
        // Large replies leave from this rank's registered memory and large results land in
        // their destinations: completed before this returns or unwinds.
        let mut transfers = self.get_transfers.post();
        self.send.clear();
        self.dense.send_counts.clear();
        self.blocks.clear();
        // Dense: a reply block for every rank (maybe empty); sparse: for those that asked.
        let sparse = self.sparse;
        let requesters = if sparse { self.peers.senders.len() } else { p };
        for i in 0..requesters {
            let src = if sparse { self.peers.senders[i] as usize } else { i };
            if sparse && self.peers.reqs[src].is_empty() && self.peers.xreqs[src].is_empty() {
                continue;
            }
            let start = self.send.len();
            let (comm, messages) = (&self.comm, &mut self.messages);
            let large = |addr: usize, len: usize| {
                if !is_large(len) {
                    return false;
                }
                // SAFETY: inside this rank's registration (checked against its extent by the
                // requester at the call); nothing writes it until this phase's transfers
                // complete, at the end of `serve_gets`.
                unsafe { transfers.send(comm, src, GET_TAG, addr, len) };
                *messages += 1;
                true
            };
            // SAFETY: the read phase of this sync, whose requests `peers` holds; this rank
            // writes no registered memory before it returns.
            unsafe { wire::write_reply(&self.peers, src, table, &mut self.scratch, &mut self.send, large) };
            let words = self.send.len() - start;
            if sparse {
                self.blocks.push(Block { rank: src, at: start, words });
            } else {
                self.dense.send_counts.push(count(words, "the get replies for one rank"));
            }
        }
        if sparse {
            // Replies go back between the pairs that asked: this rank hears from the owners
            // of its gets and requests.
            self.owners.clear();
            self.owners.extend(out.gets.iter().map(|g| g.pid).chain(out.req_parts.iter().map(|r| r.pid)));
            self.owners.sort_unstable();
            self.owners.dedup();
            let me = self.comm.rank() as usize;
            let (out, into) = (
                Out { words: &self.send, blocks: &self.blocks },
                Landing { recv: &mut self.recv, got: &mut self.arrived },
            );
            self.messages += sparse::replies(&self.comm, me, out, &self.owners, into, &mut self.requests);
            self.dense.recv_displs.resize(p, 0);
            for b in &self.arrived {
                self.dense.recv_displs[b.rank] = count(b.at, "everything this rank receives");
            }
        } else {
            self.comm.all_to_all_into(&self.dense.send_counts[..], &mut self.dense.recv_counts[..]);
            self.messages += p as u64 - 1;
            self.messages += self.dense.all_to_all_v(&self.comm, &self.send, &mut self.recv, false, None);
        }
        // Each owner's reply to this rank starts at its block (in `recv`, unchanged until the
        // next sync's exchange); large gets come point to point.
        for (c, &d) in self.cursor.iter_mut().zip(&self.dense.recv_displs) {
            *c = d as usize * 8;
        }
        let comm = &self.comm;
        let large = |g: &GetRec, b: &mut GetBytes| {
            if !is_large(g.bytes) {
                return false;
            }
            // SAFETY: `b.to` is where `sync/` lands this get (`sync/gets.rs`): its destination,
            // borrowed mutably by this process until the end of this sync (`Superstep::get`) and
            // outside every registration, or its place in the stage, which nothing touches (nor
            // reallocates) until `read` returns; the transfers complete before that.
            unsafe { transfers.receive(comm, g.pid, GET_TAG, b.to, g.bytes) };
            b.from = LANDED;
            true
        };
        let replies = (&mut got.reply, &mut got.ranges);
        wire::read_replies(
            &self.recv,
            &mut self.cursor,
            &out.gets,
            &mut got.gets,
            &out.req_parts,
            replies,
            large,
            |_, _| false,
        );
        // Owners' memory may be written (puts) only once their large replies have left.
        transfers.wait();
    }
}

/// This rank's outbox of the superstep of `parity`, whose sync is in progress: a borrow of the
/// engine's `outboxes` only, so that its other buffers can be written while the outbox is read.
///
/// # Safety
/// Only inside that sync (after `arrive`), where nothing writes the outbox: the rank's own calls
/// are not running (one thread per rank), and the outbox is cleared only after the sync.
unsafe fn own_outbox(outboxes: &[UnsafeCell<Outbox>; 2], parity: usize) -> &Outbox {
    // SAFETY: the caller's contract: nobody writes the outbox while the borrow lives.
    unsafe { &*outboxes[parity].get() }
}

/// The ranks this rank sends a block to in a sparse exchange (every destination it queued
/// something for, or asked something of), ascending, into `dests`.
fn note_dests(out: &Outbox, dests: &mut Vec<usize>) {
    dests.clear();
    out.for_each_queue(|d, _| dests.push(d));
    dests.extend(out.req_parts.iter().map(|r| r.pid));
    dests.sort_unstable();
    dests.dedup();
}

impl Engine for Mpi {
    /// The start of a sync: see [`Mpi::arrive_and_announce`].
    #[inline]
    fn arrive(&mut self, parity: usize, flags: u64) -> Result<u64, Poisoned> {
        self.arrive_and_announce(parity, flags)
    }

    fn combine(&mut self, flags: u64) -> Result<u64, Poisoned> {
        let mut all = 0u64;
        self.comm.all_reduce_into(&flags, &mut all, SystemOperation::bitwise_or());
        self.messages += log2_ceil(self.dense.recv_counts.len());
        Ok(all)
    }

    fn messages(&self) -> u64 {
        self.messages
    }

    fn statuses(&mut self, mine: Status) -> Result<Vec<Status>, Poisoned> {
        Ok(self.all_statuses(mine))
    }

    fn exchange(&mut self) -> Result<(), Poisoned> {
        if self.sparse {
            self.exchange_sparse();
            return Ok(());
        }
        if !std::mem::take(&mut self.serialized) {
            self.serialize();
            // What `arrive` announced for a rank with nothing queued: a header alone.
            debug_assert!(!self.counts_known || self.dense.send_counts.iter().all(|&c| c as usize == HEADER_WORDS));
        }
        if !std::mem::take(&mut self.counts_known) {
            self.comm.all_to_all_into(&self.dense.send_counts[..], &mut self.dense.recv_counts[..]);
            self.messages += self.dense.recv_counts.len() as u64 - 1;
        }
        let inline = (std::mem::take(&mut self.inline_sent), std::mem::take(&mut self.inline_got));
        self.all_to_all_v(inline);
        self.deserialize();
        self.plan_large_puts();
        Ok(())
    }

    fn peers(&self) -> &dyn Peers {
        &self.peers
    }

    fn read(&mut self, table: &Table, got: &mut ReadResults) {
        self.serve_gets(table, got);
    }

    fn end_reads(&mut self) -> Result<(), Poisoned> {
        // Owners read their memory for others in `read`, before its reply exchange returned.
        Ok(())
    }

    fn land_puts(&mut self, table: &Table) -> Result<(), Poisoned> {
        if self.large_in.is_empty() && self.large_out.is_empty() {
            return Ok(());
        }
        let mut transfers = self.put_transfers.post();
        for &(dest, addr, len) in &self.large_out {
            // SAFETY: the bytes of a buffered put in this rank's outbox (cleared only after this
            // sync) or an hpput source (borrowed until the end of this sync); the transfers
            // complete below.
            unsafe { transfers.send(&self.comm, dest, PUT_TAG, addr, len) };
            self.messages += 1;
        }
        let bounce = self.bounce.as_mut_ptr() as usize;
        for large in &self.large_in {
            let dst = if large.in_place {
                let entry = table.entries[large.slot as usize].as_ref().expect("a put checked at the call");
                entry.local_addr + large.byte_offset
            } else {
                bounce + large.at
            };
            // SAFETY: in place: this rank's registered memory, inside the registration (checked
            // by the sender against this rank's extent), which no other put of this superstep
            // writes, nobody reads any more in this sync (gets were served), and this rank does
            // not touch until the transfers complete below. Otherwise: this put's place in
            // `bounce`, which is sized for every bounced put and untouched until the put phase.
            unsafe { transfers.receive(&self.comm, large.src, PUT_TAG, dst, large.len) };
        }
        transfers.wait();
        for large in &self.large_in {
            let src = if large.in_place { PutSrc::Direct(LANDED) } else { PutSrc::Direct(bounce + large.at) };
            self.peers.queues[large.src].replace_put(large.index, src, large.len);
        }
        Ok(())
    }

    fn end_puts(&mut self) -> Result<(), Poisoned> {
        // hpput sources were copied into the send buffer by `exchange`.
        Ok(())
    }

    fn end_outbox_reads(&mut self) -> Result<bool, Poisoned> {
        // Only this rank reads its outboxes, and it is done: `serialize` copied the small puts'
        // bytes, and the large ones were sent from the outbox and completed in `land_puts`.
        Ok(true)
    }
}

/// The number of ranks `mpirun` started, from the environment it gives every rank (before MPI
/// is initialised).
pub(crate) fn ranks_from_env() -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.trim().parse::<usize>().ok())
}

/// The number of processes a launch runs on MPI: the one asked for, else the number of ranks.
fn procs(want: Want, size: usize) -> Result<usize, Error> {
    // `default_procs` gives way to the number of ranks; an explicit count (`Launch::procs`,
    // `run(p, ..)`, `#[bsp::program(procs = N)]`) or `BSP_NPROCS` does not (D28).
    let p = want.requested.unwrap_or(size);
    if p == 0 {
        return Err(Error::launch("cannot run an SPMD program on 0 processes".to_string()));
    }
    if p > size {
        return Err(Error::launch(format!(
            "{p} processes were requested but mpirun started only {size} MPI {}: start more ranks (`mpirun -n {p}`) or ask for fewer",
            if size == 1 { "rank" } else { "ranks" }
        )));
    }
    Ok(p)
}

/// `Launch::nprocs` under `mpirun`.
pub(crate) fn nprocs(want: Want) -> Result<usize, Error> {
    match ranks_from_env() {
        Some(size) => procs(want, size),
        None => Err(Error::launch(
            "started by mpirun, but the number of ranks is not in the environment (OMPI_COMM_WORLD_SIZE, PMI_SIZE)"
                .to_string(),
        )),
    }
}

/// Runs `body` at this OS process's endpoint, as one MPI rank.
///
/// As with BSPlib's `bsp_begin`/`bsp_end`, the code after the run continues on process 0 only:
/// every other rank finalises MPI and exits here (status 0, or 1 if the run failed), so a
/// program's output after the run appears once, as on threads. Process 0 gets its own result.
pub(crate) fn launch<R, B>(want: Want, body: B) -> Result<Vec<R>, Error>
where
    B: Fn(Endpoint) -> Option<R>,
{
    // `MPI_THREAD_SINGLE`: every MPI call of the run is made on this thread (the rank's SPMD
    // function runs on it; the threads of a nested run never call MPI), and at any higher level
    // Open MPI takes a lock in every call (~0.1 µs each on the machine of PERFORMANCE.md, more
    // than the whole of an empty sync's own work).
    with_world(mpi::Threading::Single, |world| run_on(world, want, body))
}

/// Runs `setup` on rank 0 and hands its result to every rank: one broadcast of a header (ok,
/// the number of processes, the length), one of the bytes (the value, or the error's message).
pub(crate) fn share_set_up(world: &SimpleCommunicator, setup: impl FnOnce() -> super::SetUp) -> super::SetUp {
    let root = world.process_at_rank(0);
    let mut head = [0u64; 3];
    let mut bytes = Vec::new();
    let mut failed = None;
    if world.rank() == 0 {
        // Relaxed: this thread alone reads it (`setting_up`), while the set-up runs.
        SETTING_UP.store(true, Ordering::Relaxed);
        let decided = setup();
        SETTING_UP.store(false, Ordering::Relaxed);
        match decided {
            Ok((p, value)) => (head, bytes) = ([1, p as u64, value.len() as u64], value),
            Err(e) => {
                bytes = e.to_string().into_bytes();
                head = [0, 0, bytes.len() as u64];
                failed = Some(e);
            }
        }
    }
    root.broadcast_into(&mut head[..]);
    bytes.resize(head[2] as usize, 0);
    root.broadcast_into(&mut bytes[..]);
    match failed {
        Some(e) => Err(e),
        None if head[0] == 0 => Err(Error::launch(String::from_utf8_lossy(&bytes).into_owned())),
        None => Ok((head[1] as usize, bytes)),
    }
}

/// Initialises MPI at `threading` (once per program), runs `run` with the world communicator
/// on this thread, and finalises MPI. As with BSPlib's `bsp_begin`/`bsp_end`, the code after the
/// run continues on rank 0 only: every other rank exits here (status 0, or 1 if the run failed).
pub(crate) fn with_world<R>(
    threading: mpi::Threading,
    run: impl FnOnce(SimpleCommunicator) -> Result<R, Error>,
) -> Result<R, Error> {
    let world = World::open(threading)?;
    let result = run(world.comm());
    world.close(result.is_err());
    result
}

/// MPI, initialised for a run and finalised by [`close`](World::close): [`with_world`] in two
/// halves, for a launch whose caller goes on between them (`foreign/launch.rs`).
pub(crate) struct World {
    universe: mpi::environment::Universe,
    rank: usize,
}

impl World {
    /// Initialises MPI at `threading` (once per program).
    pub(crate) fn open(threading: mpi::Threading) -> Result<World, Error> {
        // Relaxed: only the launching thread reads or writes these (see `wanted`).
        if USED.swap(true, Ordering::Relaxed) {
            return Err(Error::launch(
                "MPI can be started only once per program, and an earlier SPMD run already used it".to_string(),
            ));
        }
        let Some((universe, _)) = mpi::initialize_with_threading(threading) else {
            return Err(Error::launch("MPI was already initialised by someone else".to_string()));
        };
        ACTIVE.store(true, Ordering::Relaxed);
        let rank = universe.world().rank() as usize;
        Ok(World { universe, rank })
    }

    /// The world communicator.
    pub(crate) fn comm(&self) -> SimpleCommunicator {
        self.universe.world()
    }

    /// Finalises MPI (after every communicator of the run is gone); every rank but 0 exits here,
    /// with status 1 if the run `failed`.
    pub(crate) fn close(self, failed: bool) {
        ACTIVE.store(false, Ordering::Relaxed);
        let rank = self.rank;
        drop(self.universe);
        if rank != 0 {
            std::process::exit(i32::from(failed));
        }
    }
}

pub(crate) fn run_on<R, B>(world: SimpleCommunicator, want: Want, body: B) -> Result<Vec<R>, Error>
where
    B: Fn(Endpoint) -> Option<R>,
{
    let Some((endpoint, end)) = start_on(&world, want)? else {
        return Ok(Vec::new()); // a surplus rank takes no part
    };
    if let Some(r) = body(endpoint) {
        return Ok(vec![r]);
    }
    Err(end.failed(&world))
}

/// What a rank of a run needs after its process ends, to report a failure.
pub(crate) struct RunEnd {
    /// For reporting a collective failure (the run's own communicator may be gone by then).
    fence: SimpleCommunicator,
    fate: Arc<Fate>,
    rank: usize,
}

/// This rank's endpoint of a run of the processes `want` asks for on the ranks of `world`, or
/// `None` on a surplus rank, which takes no part.
pub(crate) fn start_on(world: &SimpleCommunicator, want: Want) -> Result<Option<(Endpoint, RunEnd)>, Error> {
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let p = match procs(want, size) {
        Ok(p) => p,
        Err(e) => return Err(report_once(world, e)),
    };
    let color = if rank < p { Color::with_value(0) } else { Color::undefined() };
    let Some(comm) = world.split_by_color(color) else {
        return Ok(None);
    };
    let fence = comm.duplicate();
    let fate = Arc::new(Fate::new(Box::new(|| {})));
    let mut engine = Box::new(Mpi::new(comm, p, ExchangeMode::from_env()));
    if engine.mode == ExchangeMode::Auto && p > POINT_TO_POINT_RANKS {
        engine.crowded = crowded(&engine.comm);
    }
    let outboxes = engine.outboxes();
    let endpoint = Endpoint { engine: AnyEngine::Mpi(engine), pid: rank, nprocs: p, outboxes, fate: fate.clone() };
    Ok(Some((endpoint, RunEnd { fence, fate, rank })))
}

impl RunEnd {
    /// What reporting the failure of a run whose ranks share `fence` and whose processes on
    /// this rank share `fate` needs (the hybrid engine's ranks).
    pub(crate) fn new(fence: SimpleCommunicator, fate: Arc<Fate>, rank: usize) -> Self {
        RunEnd { fence, fate, rank }
    }

    /// The run's failure, after this rank's process failed: an error every rank found alike is
    /// printed once (by rank 0) and returned quieted; a failure of this rank alone is printed,
    /// and MPI stops every rank (`MPI_Abort`), since the others may wait for it forever.
    pub(crate) fn failed(self, world: &SimpleCommunicator) -> Error {
        let error = self.fate.take_failure().unwrap_or_else(|| Error::panic(self.rank, "stopped".to_string()));
        if error.is_collective() {
            return report_once(&self.fence, error);
        }
        abort_alone(world, Some(error))
    }
}

/// Prints this rank's failure, if any, and ends every rank (`MPI_Abort`): only this rank failed,
/// so the others may wait in a collective forever (the MPI engine's and the hybrid engine's
/// failure report).
pub(crate) fn abort_alone(world: &SimpleCommunicator, error: Option<Error>) -> ! {
    if let Some(error) = error {
        crate::error::print_error(&error);
    }
    world.abort(1)
}

/// An error that every rank of `comm` found identically: rank 0 prints it now, and no rank
/// returns before it has. (A rank that exits with a non-zero status makes mpirun kill the
/// others, rank 0 included: if rank 0 printed only after returning, as `exit_on_error` does, the
/// message would often be lost.) Every rank returns it quieted, so it is printed once.
pub(crate) fn report_once(comm: &SimpleCommunicator, error: Error) -> Error {
    if comm.rank() == 0 {
        crate::error::print_error(&error);
    }
    comm.barrier();
    error.quieted()
}
