//! The driver: groups of threads joined by a transport (`transport/`), the engine of every
//! layout whose processes do not all share memory (module docs of `engine/`: the driver, the
//! group and the transport).
//!
//! R groups (*ranks*) of T threads each run p = R·T processes, laid out rank-major: rank r holds
//! pids `r·T .. r·T + T`, one thread each. Under `mpirun` (cargo feature `mpi`) each rank is an
//! MPI rank: with T = 1 (the MPI layout; surplus ranks take no part) MPI is initialised
//! `MPI_THREAD_SINGLE`; with `BSP_THREADS=T` (or [`Launch::threads_per_rank`](crate::Launch))
//! process `r·T` runs on the thread that started the rank, the only one that calls MPI
//! (`MPI_THREAD_FUNNELED`); a single rank of T threads is the threads engine, which `launch`
//! then runs instead. Inside a rank the processes work as on the threads engine (a [`Group`]:
//! outboxes, registered memory and extension objects read in place; a group of one has nobody
//! to meet, its barrier is a check of the poison); this file moves what crosses ranks.
//!
//! # A sync
//! 1. Every process of the rank arrives at the rank's barrier (its outbox complete). The leader
//!    (the rank's first thread) combines the rank's flags with the other leaders'
//!    (`Transport::arrive`, or `all_or` where the sync may be sparse) and, if anybody queued
//!    something, exchanges what the rank's processes queued for other ranks, one block per pair
//!    of processes in the wire format ([`wire`]): dense (a rank with something queued
//!    serialises a block for every pair before the arrival, which announces their sizes and may
//!    carry small ones), or sparse (only between ranks that talk: `BSP_MPI_EXCHANGE`; by default
//!    where the transport finds it pays and every rank talks to at most a quarter of the
//!    others). A second barrier hands the OR of every process's flags (and the received blocks)
//!    to the rank's processes.
//! 2. `exchange`: each process reads the blocks addressed to it (its view of remote senders);
//!    local senders it reads in place.
//! 3. `read`: gets from other ranks are request/reply. Each process serves the requests of
//!    remote processes addressed to it from its own memory into its reply slot, and notes its
//!    large replies and large gets; after a barrier the leader moves the large ones point to
//!    point (from the owner's registered memory straight to where the get lands) and exchanges
//!    the replies, and after another each process completes its gets in issue order (local
//!    owners in place, remote ones from their replies or already landed).
//! 4. `land_puts`, only in a sync with large puts between ranks (64 KiB or more, whose bytes
//!    stay out of the blocks where the transport moves bytes point to point: MPI): each process
//!    notes where its large puts land (registered memory, or a bounce buffer when another put of
//!    the superstep overlaps); after a barrier the leader sends the rank's large puts from where
//!    their bytes are and receives those coming to it, and a barrier ends it.
//! 5. `end_reads`, `end_puts`, `end_outbox_reads` are the rank's barrier: remote readers work on
//!    copies made before the arrival ended.
//!
//! Who touches what, when: the leader reads the rank's outboxes (and the hpput sources they
//! point to) between the two barriers of the arrival, where their owners wait; it writes the
//! shared buffers ([`Shared`]) only between those barriers and between those of the reply
//! exchange, and the processes read them only after the second barrier of each pair, until
//! their next sync's first barrier (puts from remote processes are applied from the received
//! buffer in place, which the leader rewrites only after that barrier).
//!
//! Failure: as on the threads engine inside a rank (the barrier is poisoned, every process
//! wakes); under MPI a rank whose processes failed alone then calls `MPI_Abort`, which ends
//! every rank. Collective mismatches are found by every process and reported once.

use std::cell::UnsafeCell;
use std::sync::Arc;

use crate::primitive::Parker;

use super::group::{Group, placement, serve_in_place};
use super::transport::in_process::{Board, InProcess};
use super::transport::wire::{self, Received};
use super::transport::{Block, DENSE, ExchangeMode, LARGE_PUTS, Landing, Out, Transfer, Transport, is_large};
use super::{AnyEngine, Endpoint, Engine, Fate, Peers, Poisoned, ReadResults, RegRow, Status, Want};
use crate::Error;
use crate::outbox::{DestQueue, LANDED, Meta, Outbox, PutSrc, flags};
use crate::reg::Table;
#[cfg(feature = "mpi")]
pub(crate) use on_mpi::{launch, launch_set_up, nprocs, set_up};

use crate::env::THREADS_VAR;

/// What the leader hands the rank's processes, written only between barriers (module docs).
#[derive(Default)]
struct Shared {
    /// The blocks from the other ranks: entries `[src, dst, words, block…]`, by rank.
    recv: UnsafeCell<Vec<u64>>,
    /// The replies from the other ranks, in the same entry format (on the error paths, every
    /// process's status words).
    replies_in: UnsafeCell<Vec<u64>>,
    /// What each local process notes for the leader: written by that process, read by the
    /// leader after a barrier.
    noted: Box<[UnsafeCell<Noted>]>,
}

/// What one process notes for its leader.
#[derive(Default)]
struct Noted {
    /// Its replies to remote requesters (in `read`): entries `[requester, owner, words, reply…]`.
    replies: Vec<u64>,
    /// Its large transfers to receive (its large puts in `land_puts`, its large gets from other
    /// ranks in `read`): (source pid, address, length), and to send (the large replies to its
    /// remote requesters, in `read`): (requester pid, address, length).
    receives: Vec<Transfer>,
    sends: Vec<Transfer>,
}

// SAFETY: every `UnsafeCell` is written by one thread at a time between two barriers of the
// rank's group and read only after the second (module docs, "Who touches what, when"); the
// barrier's Release/Acquire pairs order the writes before the reads.
unsafe impl Sync for Shared {}

/// One rank's side: its group of threads and the buffers the leader shares with them.
pub(crate) struct Rank {
    group: Group,
    shared: Shared,
    rank: usize,
    ranks: usize,
    /// Threads (processes) per rank.
    t: usize,
    /// Every rank is in this OS process (the in-process transport); otherwise large puts and
    /// gets move point to point (`Transport::transfer`).
    one_address_space: bool,
}

/// The leader's part: the transport and its buffers.
pub(crate) struct Leader {
    transport: Box<dyn Transport>,
    send: Vec<u64>,
    send_counts: Vec<usize>,
    /// Which exchange syncs may use (`BSP_MPI_EXCHANGE`), whether they may use the sparse one
    /// (then the arrival is the transport's `all_or`), and whether this sync does (decided in
    /// the arrival, identically on every rank).
    mode: ExchangeMode,
    sparse_capable: bool,
    sparse: bool,
    /// The sparse exchange's blocks out and in, and the ranks this rank's blocks go to, or
    /// whose processes this rank's processes asked something of.
    blocks: Vec<Block>,
    got: Vec<Block>,
    ranks: Vec<usize>,
    /// This rank's large puts to other ranks, in the order serialised: (destination pid,
    /// address, length); and the transfers of `land_puts`: (rank, address, length) out and in.
    large_out: Vec<Transfer>,
    sends: Vec<Transfer>,
    receives: Vec<Transfer>,
    /// The receives by (source pid, destination index in the rank, address, length).
    incoming: Vec<(usize, usize, usize, usize)>,
}

impl Leader {
    /// The leader's part over `transport`, with the exchange `mode`.
    pub(crate) fn new(transport: Box<dyn Transport>, mode: ExchangeMode) -> Box<Leader> {
        let ranks = transport.ranks();
        // Whether syncs of this run may use the sparse exchange.
        let sparse_capable = match mode {
            ExchangeMode::Dense => false,
            ExchangeMode::Sparse => ranks > 1,
            ExchangeMode::Auto => transport.sparse_by_default(),
        };
        Box::new(Leader {
            transport,
            send: Vec::new(),
            send_counts: Vec::with_capacity(ranks),
            mode,
            sparse_capable,
            sparse: false,
            blocks: Vec::new(),
            got: Vec::new(),
            ranks: Vec::new(),
            large_out: Vec::new(),
            sends: Vec::new(),
            receives: Vec::new(),
            incoming: Vec::new(),
        })
    }

    /// Sends `send` by `send_counts` and receives into `recv`: by the dense exchange (`late` as
    /// `Transport::exchange` takes it) or, in a sparse sync, the sparse one (for the `replies`,
    /// from the owners in `ranks`).
    fn exchange(&mut self, recv: &mut Vec<u64>, late: usize, replies: bool) -> Result<(), Poisoned> {
        if !self.sparse {
            return self.transport.exchange(&self.send, &self.send_counts, recv, late);
        }
        // The blocks of `send`, but the empty ones.
        self.blocks.clear();
        let mut at = 0;
        for (rank, &words) in self.send_counts.iter().enumerate() {
            if words > 0 {
                self.blocks.push(Block { rank, at, words });
            }
            at += words;
        }
        let (out, owners) = (Out { words: &self.send, blocks: &self.blocks }, replies.then_some(&self.ranks[..]));
        self.transport.exchange_sparse(out, owners, Landing { recv, got: &mut self.got })
    }
}

impl Rank {
    /// The other ranks that this rank's outboxes of `parity` address: their queues (puts,
    /// messages, records, gets), or with `owners` the owners of their gets and requests.
    /// Ascending, into `ranks`.
    ///
    /// # Safety
    /// Inside the sync, after the arrival's first barrier: every local outbox is complete and
    /// nobody writes it until the next superstep.
    unsafe fn ranks_of(&self, parity: usize, owners: bool, ranks: &mut Vec<usize>) {
        let t = self.t;
        ranks.clear();
        for s in 0..t {
            // SAFETY: the caller's contract.
            let out = unsafe { self.group.outbox(s, parity) };
            if owners {
                ranks.extend(out.gets.iter().map(|g| g.pid / t).chain(out.req_parts.iter().map(|r| r.pid / t)));
            } else {
                out.for_each_queue(|d, _| ranks.push(d / t));
                ranks.extend(out.req_parts.iter().map(|r| r.pid / t));
            }
        }
        ranks.retain(|&r| r != self.rank);
        ranks.sort_unstable();
        ranks.dedup();
    }
}

/// One process's side of the driver.
pub(crate) struct Driver {
    rank: Arc<Rank>,
    parker: Parker,
    /// Index in the rank's group, and pid.
    local: usize,
    pid: usize,
    parity: usize,
    /// On the rank's first thread only.
    leader: Option<Box<Leader>>,
    /// What remote processes queued for this one (their blocks, deserialised).
    remote: Received,
    /// The processes that may have queued something for this one, ascending: remote senders
    /// heard from, and every process of the rank.
    senders: Vec<u32>,
    /// Read positions in the reply of each remote owner (by pid).
    reply_at: Vec<usize>,
    scratch: Vec<u8>,
    /// The large puts coming to this process (placeholders in `remote` until `land_puts`),
    /// whether its rank moves large puts in this sync, and where those that cannot land in
    /// place wait for the put phase.
    large: Vec<wire::LargeIn>,
    large_puts: bool,
    bounce: Vec<u8>,
}

/// In an entry's word count: the block carries large puts, whose bytes move point to point.
const ENTRY_LARGE: u64 = 1 << 63;

/// The entries `[src, dst, words, block…]` of `buf`, as (src, dst, words with [`ENTRY_LARGE`],
/// the block's range).
fn entries(buf: &[u64]) -> impl Iterator<Item = (usize, usize, u64, std::ops::Range<usize>)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let head = buf.get(at..at + 3)?;
        let block = at + 3..at + 3 + (head[2] & !ENTRY_LARGE) as usize;
        at = block.end;
        Some((head[0] as usize, head[1] as usize, head[2], block))
    })
}

impl Driver {
    /// Whether every process of the run is in this OS process.
    pub(crate) fn one_address_space(&self) -> bool {
        self.rank.one_address_space
    }

    /// The messages this rank's leader sent (0 on the others).
    pub(crate) fn messages(&self) -> u64 {
        self.leader.as_ref().map_or(0, |l| l.transport.messages())
    }

    /// The first pid of this rank.
    fn base(&self) -> usize {
        self.rank.rank * self.rank.t
    }

    fn is_local(&self, pid: usize) -> bool {
        pid / self.rank.t == self.rank.rank
    }

    /// The outbox of local process `pid` (a pid of this rank) for this sync's superstep.
    ///
    /// # Safety
    /// Inside the sync, after the first barrier of the arrival.
    unsafe fn local_outbox(&self, pid: usize) -> &Outbox {
        // SAFETY: the caller's contract, as for the threads engine's `Group::outbox`.
        unsafe { self.rank.group.outbox(pid - self.base(), self.parity) }
    }

    /// The rank's barrier: returns the OR of the rank's processes' flags.
    fn local_barrier(&self, flags: u64) -> Result<u64, Poisoned> {
        if self.rank.t == 1 {
            // A group of one meets nobody: a barrier would only cost its atomics.
            return if self.rank.group.barrier().is_poisoned() { Err(Poisoned) } else { Ok(flags) };
        }
        self.rank.group.barrier().wait(self.local, &self.parker, flags)
    }

    /// The rank's processes meet with their `flags`, the leader runs `lead` with the OR of them
    /// while the others wait, and they meet again: returns what the leader's `lead` returned (the
    /// others bring nothing to the second meeting). A failure of either meeting or of `lead` is
    /// the run's, which poisons every group's barrier: every process of the rank returns it.
    #[inline(always)]
    fn led(&mut self, flags: u64, lead: impl FnOnce(&mut Self, u64) -> Result<u64, Poisoned>) -> Result<u64, Poisoned> {
        let local = self.local_barrier(flags)?;
        let mut all = 0;
        if self.leader.is_some() {
            all = lead(self, local)?;
        }
        self.local_barrier(all)
    }

    /// The leader's serialisation of the rank's outboxes: for each other rank, a block per
    /// pair (local sender, process of that rank) that has something to move (every pair when
    /// `all_pairs`). Entries are `[src, dst, words, block…]`.
    fn serialize(&mut self, all_pairs: bool) {
        let (t, ranks, me) = (self.rank.t, self.rank.ranks, self.rank.rank);
        let base = self.base();
        let rank = &*self.rank;
        let leader = self.leader.as_mut().expect("the leader exchanges");
        leader.send.clear();
        leader.send_counts.clear();
        leader.large_out.clear();
        let point_to_point = !rank.one_address_space;
        for r in 0..ranks {
            let start = leader.send.len();
            if r != me {
                for s in 0..t {
                    // SAFETY: inside the sync, after the arrival's first barrier: every local
                    // outbox is complete and nobody writes it until the next superstep.
                    let out = unsafe { rank.group.outbox(s, self.parity) };
                    for d in r * t..(r + 1) * t {
                        if !all_pairs && out.queue(d).is_none() && !out.req_parts.iter().any(|x| x.pid == d) {
                            continue;
                        }
                        let (at, large) = (leader.send.len(), leader.large_out.len());
                        leader.send.extend_from_slice(&[(base + s) as u64, d as u64, 0]);
                        // Large puts' bytes go point to point where the transport can, from
                        // where they are (`land_puts`); the entry says so.
                        let large_out = point_to_point.then_some(&mut leader.large_out);
                        wire::write_block(out, d, &mut leader.send, large_out);
                        let flag = if leader.large_out.len() > large { ENTRY_LARGE } else { 0 };
                        leader.send[at + 2] = (leader.send.len() - at - 3) as u64 | flag;
                    }
                }
            }
            leader.send_counts.push(leader.send.len() - start);
        }
    }

    /// Serves the requests of remote processes addressed to this one into its reply slot:
    /// entries `[requester, owner, words, reply…]`, a reply in the wire format
    /// ([`wire::write_reply`]).
    fn serve_remote(&mut self, table: &Table, got: &ReadResults) {
        let (shared, local, pid) = (&self.rank.shared, self.local, self.pid);
        // SAFETY: this process's own slot, written only by it in its `read`, before the barrier
        // after which the leader reads it.
        let Noted { replies: out, receives, sends } = unsafe { &mut *shared.noted[local].get() };
        out.clear();
        sends.clear();
        receives.clear();
        // Large gets move point to point where the transport can: their bytes leave from this
        // process's registered memory, and land where `sync/` lands them.
        let point_to_point = !self.rank.one_address_space;
        for &src in &self.remote.senders {
            let src = src as usize;
            if self.remote.reqs[src].is_empty() && self.remote.xreqs[src].is_empty() {
                continue;
            }
            let at = out.len();
            out.extend_from_slice(&[src as u64, pid as u64, 0]);
            let large = |addr: usize, len: usize| {
                let large = point_to_point && is_large(len);
                if large {
                    sends.push((src, addr, len));
                }
                large
            };
            // SAFETY: the read phase of this sync, whose requests `remote` holds; this process
            // writes no registered memory before its `end_reads`, and the leader's transfers of
            // the large replies complete before it passes the barrier before that.
            unsafe { wire::write_reply(&self.remote, src, table, &mut self.scratch, out, large) };
            out[at + 2] = (out.len() - at - 3) as u64;
        }
        if point_to_point {
            // SAFETY: this process's own outbox, read in its sync (after the arrival).
            let mine = unsafe { self.rank.group.outbox(local, self.parity) };
            for (g, b) in mine.gets.iter().zip(&got.gets) {
                if !self.is_local(g.pid) && is_large(g.bytes) {
                    receives.push((g.pid, b.to, g.bytes));
                }
            }
        }
    }

    /// The leader's part of the reply exchange: every local process's replies, by the requester's
    /// rank, to the other ranks.
    fn send_replies(&mut self) -> Result<(), Poisoned> {
        let (t, ranks) = (self.rank.t, self.rank.ranks);
        let rank = self.rank.clone();
        let leader = self.leader.as_mut().expect("the leader exchanges");
        leader.send.clear();
        leader.send_counts.clear();
        for r in 0..ranks {
            let start = leader.send.len();
            for slot in rank.shared.noted.iter() {
                // SAFETY: after the barrier that follows every local process's `serve_remote`;
                // they write their slots again only in the next sync's read phase.
                let replies = unsafe { &(*slot.get()).replies };
                for (_, _, _, block) in entries(replies).filter(|&(requester, _, _, _)| requester / t == r) {
                    leader.send.extend_from_slice(&replies[block.start - 3..block.end]);
                }
            }
            leader.send_counts.push(leader.send.len() - start);
        }
        if leader.sparse {
            // Replies go back between the ranks that asked: this rank hears from the owners of
            // its processes' gets and requests.
            // SAFETY: inside the sync, after the arrival.
            unsafe { rank.ranks_of(self.parity, true, &mut leader.ranks) };
        }
        // SAFETY: written by the leader between the reply exchange's barriers only.
        leader.exchange(unsafe { &mut *rank.shared.replies_in.get() }, 0, true)
    }

    /// The leader's part of `land_puts` (`puts`) and of `read`: the rank's large transfers,
    /// all point to point, in the order both sides agree on (by source pid, then destination
    /// pid, then issue order). Sends: the rank's large puts to other ranks, from where their
    /// bytes are, or the large replies its processes noted in their `sends` slots; receives:
    /// what its processes noted in their `receives` slots, to where each lands.
    fn move_large(&mut self, puts: bool) -> Result<(), Poisoned> {
        let (t, rank) = (self.rank.t, &*self.rank);
        let leader = self.leader.as_mut().expect("the leader moves the large transfers");
        leader.sends.clear();
        leader.receives.clear();
        leader.incoming.clear();
        if puts {
            leader.sends.extend(leader.large_out.iter().map(|&(d, addr, len)| (d / t, addr, len)));
        }
        for (d, slot) in rank.shared.noted.iter().enumerate() {
            // SAFETY: after the barrier that follows every local process's noting; they write
            // their slots again only in the next phase that moves large transfers.
            let noted = unsafe { &*slot.get() };
            if !puts {
                // Slots come by owner, each by requester (ascending) and issue order.
                leader.sends.extend(noted.sends.iter().map(|&(q, addr, len)| (q / t, addr, len)));
            }
            leader.incoming.extend(noted.receives.iter().map(|&(src, addr, len)| (src, d, addr, len)));
        }
        if leader.sends.is_empty() && leader.incoming.is_empty() {
            return Ok(());
        }
        // Stable: each (source, destination) pair keeps its issue order.
        leader.incoming.sort_by_key(|&(src, d, _, _)| (src, d));
        leader.receives.extend(leader.incoming.iter().map(|&(src, _, addr, len)| (src / t, addr, len)));
        // SAFETY: the sends' bytes are the rank's processes' buffered puts in their outboxes
        // (cleared only after this sync), their hpput sources (borrowed until the end of this
        // sync) or their registered memory, read for a get (written only after `end_reads`),
        // unchanged: every process of the rank waits at the barrier after this. The receives
        // land in the rank's processes' registered memory, which no other put of the superstep
        // writes there and nobody reads any more in this sync (gets were served), in their
        // bounce buffers, or where their gets land (destinations borrowed until the end of the
        // sync, or their stages), untouched until the barrier after this.
        unsafe { leader.transport.transfer(&leader.sends, &leader.receives) }
    }

    /// The leader's part of an arrival, with the OR of the rank's flags (`local`): the OR of
    /// every rank's, after the exchange of blocks if anybody queued something (with
    /// [`LARGE_PUTS`] if the rank moves large puts in this sync).
    fn lead_arrival(&mut self, local: u64) -> Result<u64, Poisoned> {
        const MOVES: u64 = flags::WORK | flags::GET;
        const ALL_PAIRS: u64 = flags::COLLECTIVE | flags::END | flags::PENDING;
        let (t, ranks) = (self.rank.t, self.rank.ranks);
        let leader = self.leader.as_mut().expect("the leader arrives for the rank");
        let (mut late, mut serialized) = (0, false);
        let all = if leader.sparse_capable {
            let mut mine = local;
            if local & MOVES != 0 && leader.mode == ExchangeMode::Auto {
                // A rank that talks to more than a quarter of the ranks asks for the dense
                // exchange.
                // SAFETY: inside the sync, after the arrival's first barrier.
                unsafe { self.rank.ranks_of(self.parity, false, &mut leader.ranks) };
                if 4 * leader.ranks.len() > ranks {
                    mine |= DENSE;
                }
            }
            let or = leader.transport.all_or(mine)?;
            // Sparse when somebody queued something and nobody is dense, changes registrations
            // or the tag size, or ended: the same verdict on every rank, from the same OR.
            leader.sparse = or & MOVES != 0 && or & (DENSE | ALL_PAIRS) == 0;
            or & !DENSE
        } else {
            // The dense exchange: a rank with something queued serialises a block for every
            // pair before the arrival, whose sizes the transport announces in it (and whose
            // small blocks it may carry); the others serialise after it, if anybody queued
            // something: nothing, or a bare header for every pair where the collective
            // bookkeeping must reach everyone, whose size every rank knows.
            leader.sparse = false;
            serialized = local & MOVES != 0;
            if serialized {
                self.serialize(true);
            }
            let leader = self.leader.as_mut().expect("the leader arrives for the rank");
            let all = leader.transport.arrive(local, serialized.then_some((&leader.send, &leader.send_counts)))?;
            if all & ALL_PAIRS != 0 {
                late = t * t * (3 + wire::HEADER_WORDS);
            }
            all
        };
        if all & MOVES == 0 {
            return Ok(all);
        }
        if !serialized {
            self.serialize(all & ALL_PAIRS != 0);
            debug_assert!(
                self.leader.as_ref().is_some_and(|l| l.sparse_capable || l.send.len() == late * (ranks - 1)),
                "a rank with nothing queued sends bare headers"
            );
        }
        let leader = self.leader.as_mut().expect("the leader exchanges");
        // SAFETY: written by the leader between the arrival's barriers only (module docs).
        let recv = unsafe { &mut *self.rank.shared.recv.get() };
        leader.exchange(recv, late, false)?;
        // Whether this rank moves large puts point to point in this sync, either way.
        let large = !leader.large_out.is_empty() || entries(recv).any(|(_, _, words, _)| words & ENTRY_LARGE != 0);
        Ok(if large { all | LARGE_PUTS } else { all })
    }
}

impl Engine for Driver {
    fn arrive(&mut self, parity: usize, flags: u64) -> Result<u64, Poisoned> {
        self.parity = parity;
        // The leader hands the OR to the others through the barrier, with whether the rank
        // moves large puts in `land_puts`.
        let all = self.led(flags, Self::lead_arrival)?;
        self.large_puts = all & LARGE_PUTS != 0;
        Ok(all & !LARGE_PUTS)
    }

    fn combine(&mut self, flags: u64) -> Result<u64, Poisoned> {
        self.led(flags, |d, local| d.leader.as_mut().expect("the leader combines").transport.all_or(local))
    }

    fn statuses(&mut self, _mine: Status) -> Result<Vec<Status>, Poisoned> {
        // Every process wrote its arrival, superstep and pending counts into its outbox's
        // bookkeeping before arriving; the leader gathers the rank's from the outboxes, and
        // every rank's into the reply buffer (no read phase is in progress).
        let rank = self.rank.clone();
        self.led(0, |d, _| {
            // SAFETY: inside the sync (or the end), after the arrival's barriers.
            let meta = |s: usize| unsafe { &rank.group.outbox(s, d.parity).meta };
            let words: Vec<u64> = (0..rank.t).flat_map(|s| wire::status_words(&Status::of(meta(s)))).collect();
            let leader = d.leader.as_mut().expect("the leader gathers");
            // SAFETY: written by the leader between two barriers; read after the second.
            leader.transport.all_gather(&words, unsafe { &mut *rank.shared.replies_in.get() }).map(|()| 0)
        })?;
        // SAFETY: read after the barrier that follows the leader's write.
        Ok(wire::statuses(unsafe { &*rank.shared.replies_in.get() }).collect())
    }

    fn exchange(&mut self) -> Result<(), Poisoned> {
        // The blocks addressed to this process, from the received buffer into `remote`.
        self.remote.forget_senders();
        self.large.clear();
        // SAFETY: read after the arrival's second barrier; the leader writes it again only after
        // the next sync's first barrier, which this process has not reached.
        let recv = unsafe { &*self.rank.shared.recv.get() };
        for (src, _, _, block) in entries(recv).filter(|&(_, dst, _, _)| dst == self.pid) {
            // Puts are applied from where they arrived (`in_place`): the buffer stays as it is
            // until this process's next sync. Large ones are placeholders until `land_puts`.
            wire::read_block(recv, block.start, src, &mut self.remote, &mut self.large, true);
            self.remote.senders.push(src as u32);
        }
        // The view's senders: remote ones heard from and every local process, ascending (after
        // a dense exchange the entries come rank by rank, senders ascending within each; after
        // a sparse one the ranks come in any order).
        if !self.remote.senders.is_sorted() {
            self.remote.senders.sort_unstable();
        }
        let base = self.base() as u32;
        let local = base..base + self.rank.t as u32;
        self.senders.clear();
        let split = self.remote.senders.partition_point(|&s| s < base);
        self.senders.extend_from_slice(&self.remote.senders[..split]);
        self.senders.extend(local);
        self.senders.extend_from_slice(&self.remote.senders[split..]);
        Ok(())
    }

    fn peers(&self) -> &dyn Peers {
        self
    }

    fn read(&mut self, table: &Table, got: &mut ReadResults) {
        // 1. Serve what remote processes asked of this one; the leader exchanges the replies.
        self.serve_remote(table, got);
        // A poisoned barrier or transport: the run failed, and the replies may be incomplete:
        // no get is found (`sync/` copies none), and the sync stops at its next engine call.
        if self.led(0, |d, _| d.move_large(false).and_then(|()| d.send_replies()).map(|()| 0)).is_err() {
            return;
        }
        // 2. Where each remote owner's reply to this process starts.
        // SAFETY: read after the reply exchange's second barrier; the leader writes it again
        // only in the next sync's read phase.
        let replies = unsafe { &*self.rank.shared.replies_in.get() };
        for (_, owner, _, block) in entries(replies).filter(|&(requester, _, _, _)| requester == self.pid) {
            self.reply_at[owner] = block.start * 8;
        }
        let rank = self.rank.clone();
        // SAFETY: this process's own outbox, read in its sync (after the arrival).
        let mine = unsafe { rank.group.outbox(self.local, self.parity) };
        let (pid, base, t) = (self.pid, self.base(), self.rank.t);
        let local = |q: usize| (base..base + t).contains(&q);
        // 3. Gets in issue order and extension requests in part order: local owners in place (a
        // thread of this rank, inside this sync, which writes its registered memory only after
        // its `end_reads`, the rank's barrier that this process's is too), remote ones from
        // their replies.
        let point_to_point = !self.rank.one_address_space;
        // A large get from another rank already landed, point to point.
        let elsewhere = |g: &crate::outbox::GetRec| {
            if local(g.pid) { Some(g.src_addr) } else { (point_to_point && is_large(g.bytes)).then_some(LANDED) }
        };
        let served = |part: &crate::outbox::ReqPart, reply: &mut Vec<u8>| {
            if local(part.pid) {
                // SAFETY: the owner is a thread of this rank, inside this sync, before its
                // `end_reads`; `table` is this process's, whose requests were checked at the call.
                unsafe { serve_in_place(table, pid, part, &mine.req_data, reply) };
            }
            local(part.pid)
        };
        wire::read_replies((replies, &mut self.reply_at), mine, got, elsewhere, served);
    }

    fn land_puts(&mut self, table: &Table) -> Result<(), Poisoned> {
        if !self.large_puts {
            return Ok(());
        }
        // Where each large put coming to this process lands (in place, or in its bounce
        // buffer), published to the leader, which moves the rank's large puts both ways.
        let mut large = std::mem::take(&mut self.large);
        let bounced = wire::plan_large_puts(self, &mut large);
        self.bounce.clear();
        self.bounce.resize(bounced, 0);
        let bounce = self.bounce.as_mut_ptr() as usize;
        // SAFETY: this process's own slot, written only by it here, before the barrier after
        // which the leader reads it.
        let mine = unsafe { &mut (*self.rank.shared.noted[self.local].get()).receives };
        mine.clear();
        for l in &large {
            let dst = if l.in_place {
                let entry = table.entries[l.slot as usize].as_ref().expect("a put checked at the call");
                entry.local_addr + l.byte_offset
            } else {
                bounce + l.at
            };
            mine.push((l.src, dst, l.len));
        }
        let moved = self.led(0, |d, _| d.move_large(true).map(|()| 0));
        for l in &large {
            let src = if l.in_place { PutSrc::Direct(LANDED) } else { PutSrc::Direct(bounce + l.at) };
            self.remote.queues[l.src].replace_put(l.index, src, l.len);
        }
        self.large = large;
        moved.map(drop)
    }

    fn end_phase(&mut self) -> Result<(), Poisoned> {
        // The rank's barrier: its processes read each other's registered memory, hpput sources
        // and outboxes in place until here; other ranks' processes were served before the
        // replies left, and the leader copied what they read in the arrival.
        self.local_barrier(0).map(drop)
    }
}

impl Peers for Driver {
    fn senders(&self) -> &[u32] {
        &self.senders
    }

    fn meta(&self, q: usize) -> &Meta {
        if self.is_local(q) {
            // SAFETY: the view is used only inside the sync, after the arrival.
            unsafe { &self.local_outbox(q).meta }
        } else {
            &self.remote.metas[q]
        }
    }

    fn queue(&self, src: usize) -> Option<&DestQueue> {
        if self.is_local(src) {
            // SAFETY: as in `meta`.
            unsafe { self.local_outbox(src).queue(self.pid) }
        } else {
            Some(&self.remote.queues[src])
        }
    }

    fn registration_row(&self, p: usize, i: usize) -> RegRow {
        let serial = self.meta(self.pid).pushes[i].serial;
        self.rank.group.shared_row(serial, self.rank.t, || RegRow::build(self, p, i))
    }
}

/// What starts the processes of one rank of a run of the driver: its shared state and failure record,
/// and where its threads go. Cloned into each thread that runs one.
#[derive(Clone)]
pub(crate) struct Starter {
    state: Arc<Rank>,
    pub(crate) fate: Arc<Fate>,
    /// The ranks on this machine, and this rank's place among them (for pinning).
    here: (usize, usize),
}

impl Rank {
    /// The shared state of rank `rank` of `ranks`, a group of `t` threads, on a machine that runs
    /// `busy` processes in all (the group's barrier spins only when they fit its cores), and
    /// the parkers of its processes. `one_address_space`: every rank is in this OS process
    /// (the in-process transport); otherwise the transport moves large transfers point to
    /// point.
    pub(crate) fn new(
        rank: usize,
        ranks: usize,
        t: usize,
        busy: usize,
        one_address_space: bool,
    ) -> (Arc<Rank>, Vec<Parker>) {
        let (group, parkers) = Group::new(t, ranks * t, busy);
        let shared = Shared { noted: (0..t).map(|_| UnsafeCell::default()).collect(), ..Shared::default() };
        (Arc::new(Rank { group, shared, rank, ranks, t, one_address_space }), parkers)
    }
}

impl Starter {
    /// The pid of the rank's process `local`.
    pub(crate) fn pid(&self, local: usize) -> usize {
        self.state.rank * self.state.t + local
    }

    /// The failure of starting the thread of the rank's process `local`.
    pub(crate) fn cannot_start(&self, local: usize, e: &std::io::Error) -> Error {
        let (rank, t) = (self.state.rank, self.state.t);
        Error::launch(format!("rank {rank} cannot start thread {local} of {t} ({THREADS_VAR}={t}): {e}"))
    }

    /// The endpoint of the rank's process `local` (the leader's part goes to the first), with
    /// the calling thread pinned for it.
    pub(crate) fn endpoint(
        &self,
        local: usize,
        parker: Parker,
        leader: Option<Box<Leader>>,
    ) -> (Endpoint, placement::Placed) {
        let (t, p, (here, local_rank)) = (self.state.t, self.state.ranks * self.state.t, self.here);
        // A rank of one process keeps the cores `mpirun` gave it.
        let placed =
            if t > 1 { placement::pin(local_rank * t + local, here * t) } else { placement::Placed::default() };
        let pid = self.pid(local);
        let engine = Driver {
            rank: self.state.clone(),
            parker,
            local,
            pid,
            parity: 0,
            leader,
            remote: Received::new(p),
            senders: Vec::new(),
            reply_at: vec![0; p],
            scratch: Vec::new(),
            large: Vec::new(),
            large_puts: false,
            bounce: Vec::new(),
        };
        let outboxes = self.state.group.outboxes(local);
        let fate = self.fate.clone();
        (Endpoint { engine: AnyEngine::Driver(Box::new(engine)), pid, nprocs: p, outboxes, fate }, placed)
    }

    /// Runs `body` at the endpoint of the rank's process `local` on the calling thread, which
    /// gets its affinity back after.
    fn run<R>(
        &self,
        local: usize,
        parker: Parker,
        leader: Option<Box<Leader>>,
        body: impl Fn(Endpoint) -> Option<R>,
    ) -> Option<R> {
        let (endpoint, placed) = self.endpoint(local, parker, leader);
        let result = body(endpoint);
        placement::release(placed);
        result
    }
}

/// The in-process layout: runs `body` at the endpoints of `want` processes split into `groups`
/// groups of threads of this OS process joined by the in-process transport, one thread each; process 0 on the calling thread.
pub(crate) fn launch_in_process<R, B>(want: Want, groups: usize, body: B) -> Result<Vec<R>, Error>
where
    R: Send,
    B: Fn(Endpoint) -> Option<R> + Sync,
{
    let p = super::group::nprocs(want)?;
    if groups == 0 || p % groups != 0 {
        return Err(Error::launch(format!(
            "{p} processes cannot be split into {groups} groups of the same size (in-process groups)"
        )));
    }
    let t = p / groups;
    let (board, board_parkers) = Board::new(groups, p);
    let (states, parkers): (Vec<Arc<Rank>>, Vec<Vec<Parker>>) =
        (0..groups).map(|r| Rank::new(r, groups, t, p, true)).unzip();
    let fate = {
        let (states, board) = (states.clone(), board.clone());
        Arc::new(Fate::new(Box::new(move || {
            states.iter().for_each(|s| s.group.poison());
            board.poison();
        })))
    };
    // Every group's starter, and each process's parker, by pid, with its group's end of the
    // board for a leader.
    let mut board_parkers = board_parkers.into_iter();
    let (mut starters, mut args) = (Vec::with_capacity(groups), Vec::with_capacity(p));
    for (r, (state, parkers)) in states.into_iter().zip(parkers).enumerate() {
        let mut board_parker = board_parkers.next();
        args.extend(parkers.into_iter().map(|parker| (parker, board_parker.take())));
        starters.push(Starter { state, fate: fate.clone(), here: (groups, r) });
    }
    // From three groups on, the sparse exchange whenever the superstep allows it (as
    // `BSP_MPI_EXCHANGE=sparse` asks), so that the suite's layouts run both exchanges.
    let mode = match ExchangeMode::from_env() {
        ExchangeMode::Auto if groups >= 3 => ExchangeMode::Sparse,
        mode => mode,
    };
    let start = |pid: usize, (parker, board_parker): (Parker, Option<Parker>)| {
        let (r, local) = (pid / t, pid % t);
        let leader = board_parker.map(|parker| Leader::new(Box::new(InProcess::new(board.clone(), r, parker)), mode));
        starters[r].run(local, parker, leader, &body)
    };
    let cannot_start = |pid: usize, e: std::io::Error| starters[pid / t].cannot_start(pid % t, &e);
    super::group::run_all(args, &fate, start, cannot_start)
}

/// The MPI layouts: one group per MPI rank, of one process (T = 1, `MPI_THREAD_SINGLE`) or of
/// T = `BSP_THREADS` (the rank's first thread alone calls MPI: `MPI_THREAD_FUNNELED`), joined
/// by the MPI transport.
#[cfg(feature = "mpi")]
mod on_mpi {
    use std::sync::Arc;

    use crate::primitive::Parker;
    use mpi::topology::{Color, SimpleCommunicator};
    use mpi::traits::*;

    use super::{Leader, Rank, Starter};
    use crate::Error;
    use crate::engine::group::{all_results, run_threads};
    use crate::engine::mpi::{RunEnd, abort_alone, ranks_from_env, report_once, share_set_up, with_world};
    use crate::engine::transport::ExchangeMode;
    use crate::engine::transport::mpi::{MpiTransport, local_ranks};
    use crate::engine::{Endpoint, Fate, SetUp, Want};
    use crate::env::THREADS_VAR;

    /// The number of processes on `ranks` ranks, and the threads per rank
    /// (`Launch::threads_per_rank`, else `BSP_THREADS`, validated by `launch.rs`, else 1): with
    /// one, the number asked for (surplus ranks take no part), else the ranks (`default_procs`
    /// gives way to the ranks; an explicit count or `BSP_NPROCS` does not: D28); with more,
    /// ranks × threads, which an explicit count must equal.
    fn procs(want: Want, ranks: usize) -> Result<(usize, usize), Error> {
        let t = want.threads.unwrap_or(1);
        let p = if t == 1 { want.requested.unwrap_or(ranks) } else { ranks * t };
        let rank_s = if ranks == 1 { "rank" } else { "ranks" };
        match want.requested {
            _ if t == 0 => Err(Error::launch(format!(
                "cannot run 0 threads per rank ({THREADS_VAR} or `Launch::threads_per_rank`): ask for at least 1"
            ))),
            Some(0) => Err(Error::launch("cannot run an SPMD program on 0 processes".to_string())),
            Some(q) if t == 1 && q > ranks => Err(Error::launch(format!(
                "{q} processes were requested but mpirun started only {ranks} MPI {rank_s}: start more ranks (`mpirun -n {q}`) or ask for fewer"
            ))),
            // With one thread per rank, `p` is `q`.
            Some(q) if q != p => Err(Error::launch(format!(
                "{q} processes were requested but mpirun started {ranks} MPI {rank_s} with {t} threads each ({THREADS_VAR}={t}), {p} processes: ask for {p}, or start ranks and threads whose product is {q}"
            ))),
            _ => Ok((p, t)),
        }
    }

    /// `Launch::nprocs` under `mpirun`.
    pub(crate) fn nprocs(want: Want) -> Result<usize, Error> {
        let ranks = ranks_from_env().ok_or_else(|| {
            Error::launch(
                "started by mpirun, but the number of ranks is not in the environment (OMPI_COMM_WORLD_SIZE, PMI_SIZE)"
                    .to_string(),
            )
        })?;
        procs(want, ranks).map(|(p, _)| p)
    }

    /// MPI's threading level for `want`: `MPI_THREAD_FUNNELED` with threads beside the rank's
    /// first, which alone calls MPI; else `MPI_THREAD_SINGLE`, which Open MPI serves without a
    /// lock per call.
    fn threading(want: Want) -> mpi::Threading {
        if want.threads.is_some_and(|t| t > 1) { mpi::Threading::Funneled } else { mpi::Threading::Single }
    }

    /// Runs `body` at the endpoints of this rank's processes, one thread each (the rank's first on
    /// this thread, which alone calls MPI). A single rank of several threads is the threads
    /// engine (MPI is initialised, and nothing calls it).
    pub(crate) fn launch<R, B>(want: Want, body: B) -> Result<Vec<R>, Error>
    where
        R: Send,
        B: Fn(Endpoint) -> Option<R> + Sync,
    {
        let t = want.threads.unwrap_or(1);
        match ranks_from_env() {
            Some(1) if t > 1 => with_world((mpi::Threading::Single, t), |world| {
                procs(want, 1).map_err(|e| report_once(&world, e))?;
                match crate::engine::group::launch(Want { requested: Some(t), ..Want::default() }, body) {
                    // The only rank failed: end it with `MPI_Abort`, as a rank of a larger layout
                    // does. Returning and exiting non-zero would leave `mpirun` its own two seconds
                    // of kill timeouts before it ends the job.
                    Err(e) if !e.is_quiet() => {
                        crate::error::print_error(&e);
                        world.abort(1)
                    }
                    r => r,
                }
            }),
            _ => with_world((threading(want), t), |world| run_on(world, want, body)),
        }
    }

    /// [`launch_set_up`](crate::engine::launch_set_up) under `mpirun`: MPI starts, rank 0 runs
    /// `setup`, every rank learns its result, and the run goes on as the MPI layout's (T threads
    /// per rank) would for that number of processes.
    pub(crate) fn launch_set_up<R, B>(want: Want, setup: impl FnOnce() -> SetUp, body: B) -> Result<Vec<R>, Error>
    where
        R: Send,
        B: Fn(Endpoint, &[u8]) -> Option<R> + Sync,
    {
        with_world((threading(want), want.threads.unwrap_or(1)), |world| {
            let (p, bytes) = share_set_up(&world, setup).map_err(|e| report_once(&world, e))?;
            run_on(world, Want { requested: Some(p), ..want }, |endpoint| body(endpoint, &bytes))
        })
    }

    fn run_on<R, B>(world: SimpleCommunicator, want: Want, body: B) -> Result<Vec<R>, Error>
    where
        R: Send,
        B: Fn(Endpoint) -> Option<R> + Sync,
    {
        let Some((starter, first, others_parkers, leader, fence)) = set_up(&world, want)? else {
            return Ok(Vec::new()); // a surplus rank takes no part
        };
        let (rank, t, fate) = (starter.state.rank, starter.state.t, starter.fate.clone());
        let first = || {
            let result = if fate.is_failed() { None } else { starter.run(0, first, Some(leader), &body) };
            if fate.failed_alone() {
                // A failure of this rank only: end every rank now, without joining rank-mates that
                // may compute for a long time before their next runtime call (the leader is the
                // thread that may call MPI).
                abort_alone(&world, fate.take_failure());
            }
            result
        };
        let cannot_start = |local: usize, e: std::io::Error| starter.cannot_start(local, &e);
        let others = |local: usize, parker: Parker| starter.run(local, parker, None, &body);
        let results = run_threads(rank * t, &fate, first, others_parkers, &others, cannot_start);
        if fate.is_failed() {
            return Err(RunEnd::new(fence, fate, rank).failed(&world));
        }
        all_results(results, rank * t)
    }

    /// The parts of a rank's run: what starts its processes, the first process's parker, the
    /// others', the leader's part (for the rank's first process, on this thread), and a
    /// communicator for reporting a failure.
    pub(crate) type Parts = (Starter, Parker, Vec<Parker>, Box<Leader>, SimpleCommunicator);

    /// Sets up this rank's part of a run of the processes `want` asks for on the ranks of
    /// `world`, or `None` on a surplus rank, which takes no part.
    pub(crate) fn set_up(world: &SimpleCommunicator, want: Want) -> Result<Option<Parts>, Error> {
        let (rank, ranks) = (world.rank() as usize, world.size() as usize);
        let (p, t) = procs(want, ranks).map_err(|e| report_once(world, e))?;
        let groups = p / t;
        let color = if rank < groups { Color::with_value(0) } else { Color::undefined() };
        let Some(comm) = world.split_by_color(color) else {
            return Ok(None);
        };
        let fence = comm.duplicate();
        // The ranks on this machine and this rank's place among them: its threads are pinned, one
        // core each, only when the cores this rank may use hold every thread of them all (unbound
        // ranks); a rank bound to a few cores leaves its threads free on them. The barrier spins
        // only when the machine is not oversubscribed.
        let (here, local_rank) = local_ranks();
        let (state, mut parkers) = Rank::new(rank, groups, t, here * t, false);
        let fate = {
            let state = state.clone();
            Arc::new(Fate::new(Box::new(move || state.group.poison())))
        };
        let leader = Leader::new(Box::new(MpiTransport::new(comm)), ExchangeMode::from_env());
        let first = parkers.remove(0);
        Ok(Some((Starter { state, fate, here: (here, local_rank) }, first, parkers, leader, fence)))
    }
}
