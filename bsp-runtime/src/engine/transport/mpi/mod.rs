//! The MPI transport: groups are MPI ranks (cargo feature `mpi`).
//!
//! [`MpiTransport`], the [`Transport`] of the driver's leaders (one per rank), with the arrival
//! that carries the blocks' sizes (on two ranks one `MPI_Sendrecv`, with a small block inline),
//! the dense exchange ([`Dense`]: point to point among a few ranks, in eager pieces up to
//! 16 KiB, `MPI_Alltoallv` beyond), the large point-to-point transfers ([`direct`]) and the
//! sparse exchange ([`sparse`], non-blocking consensus); and MPI's set-up for every layout
//! ([`launch`]).

pub(crate) mod direct;
pub(crate) mod launch;
pub(crate) mod sparse;

use mpi::Count;
use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::{Landing, Out, Transfer, Transport};
use crate::engine::Poisoned;
use direct::{BLOCK_TAG, LARGE_TAG, Transfers, swap_words};
use sparse::log2_ceil;

/// The longest arrival message that carries its block (in words): under Open MPI's eager limit
/// for shared memory (4 KiB), so that the message stays one copy, without a rendezvous.
pub(crate) const INLINE_WORDS: usize = 480;

/// The longest message of a block cut into pieces (in words): as [`INLINE_WORDS`], under Open
/// MPI's eager limit for shared memory, so that each piece goes without a rendezvous.
const PIECE_WORDS: usize = INLINE_WORDS;

/// Blocks of at most this many words (16 KiB) go between a few ranks as pieces of
/// [`PIECE_WORDS`]: a block above the eager limit sent whole waits for a rendezvous (a round
/// trip between the ranks, then a copy by the kernel), which costs more than the copies of a
/// few eager pieces. Longer blocks go whole.
const PIECES_MAX_WORDS: usize = 2048;

/// `(offset, words)` of the messages that carry a block of `words` words between two ranks
/// ([`Dense::all_to_all_v`]): pieces of [`PIECE_WORDS`] up to [`PIECES_MAX_WORDS`], otherwise
/// the whole block. Sender and receiver cut the block alike, from the size both know, and
/// pieces with one tag between two ranks match in the order posted (MPI's non-overtaking rule).
fn pieces(words: usize) -> impl Iterator<Item = (usize, usize)> {
    let piece = if words <= PIECES_MAX_WORDS { PIECE_WORDS } else { words.max(1) };
    (0..words.div_ceil(piece)).map(move |i| (i * piece, (words - i * piece).min(piece)))
}

/// Up to this many ranks, the exchange of blocks is a message to and from each other rank
/// ([`Dense::all_to_all_v`]), beyond, one `MPI_Alltoallv`.
pub(crate) const POINT_TO_POINT_RANKS: usize = 8;

/// `counts` as MPI displacements (exclusive prefix sums), checked: MPI displacements are `int`.
/// Returns the total.
pub(crate) fn displacements(counts: &[Count], displs: &mut Vec<Count>, what: &str) -> usize {
    displs.clear();
    let mut at: usize = 0;
    for &c in counts {
        displs.push(count(at, what));
        at += usize::try_from(c).expect("MPI counts are not negative");
    }
    count(at, what);
    at
}

/// `words` as an MPI count, checked: MPI counts are `int`.
pub(crate) fn count(words: usize, what: &str) -> Count {
    Count::try_from(words).unwrap_or_else(|_| {
        panic!(
            "the MPI engine moves at most 2^31 - 1 words (16 GiB) to or from one rank per superstep; {what} needs {words}"
        )
    })
}

/// The dense exchange of blocks ([`Transport::exchange`]): one block to and from every rank,
/// whose sizes both sides know.
#[derive(Default)]
struct Dense {
    /// The sizes of the blocks out, by destination rank (words).
    send_counts: Vec<Count>,
    send_displs: Vec<Count>,
    /// The sizes of the blocks in (from the arrival or an `MPI_Alltoall`), and where each lands.
    recv_counts: Vec<Count>,
    recv_displs: Vec<Count>,
}

impl Dense {
    /// The blocks of `send` (by `send_counts`) to every rank, into `recv` (by `recv_counts`, at
    /// `recv_displs`), this rank being `me`: a message to and from each other rank, posted
    /// through `transfers`, up to [`POINT_TO_POINT_RANKS`] ranks, one `MPI_Alltoallv` beyond.
    /// `inline_sent`: the block for the other of two ranks went with the arrival; `inline_got`:
    /// the other's block, which came with it. `recv` is grown, never shrunk (readers go by the
    /// displacements). Returns the messages this rank sent.
    #[inline(never)]
    fn all_to_all_v(
        &mut self,
        (comm, me, transfers): (&SimpleCommunicator, usize, &mut Transfers),
        send: &[u64],
        recv: &mut Vec<u64>,
        inline_sent: bool,
        inline_got: Option<&[u64]>,
    ) -> u64 {
        displacements(&self.send_counts, &mut self.send_displs, "everything this rank sends");
        let total = displacements(&self.recv_counts, &mut self.recv_displs, "everything this rank receives");
        // Grown, never cleared: MPI overwrites the blocks, and readers go by the displacements
        // (zeroing the buffer on every sync costs as much as a copy of it).
        if recv.len() < total {
            recv.resize(total, 0);
        }
        let p = self.recv_counts.len();
        if p > POINT_TO_POINT_RANKS {
            let send = Partition::new(send, &self.send_counts[..], &self.send_displs[..]);
            let mut into = PartitionMut::new(&mut recv[..total], &self.recv_counts[..], &self.recv_displs[..]);
            comm.all_to_all_varcount_into(&send, &mut into);
            return p as u64 - 1;
        }
        // A few ranks: what `MPI_Alltoallv` does for them (a message to and from each other
        // rank, a copy of the own block), without the collective's overhead.
        let mut messages = 0;
        let (sd, rd, n) = (self.send_displs[me] as usize, self.recv_displs[me] as usize, self.send_counts[me] as usize);
        recv[rd..rd + n].copy_from_slice(&send[sd..sd + n]);
        let (out, into) = (send.as_ptr() as usize, recv.as_mut_ptr() as usize);
        let mut transfers = transfers.post();
        for q in (0..p).filter(|&q| q != me) {
            let (at, words) = (self.recv_displs[q] as usize, self.recv_counts[q] as usize);
            if let Some(block) = inline_got {
                // Two ranks, and the other's block came with its arrival.
                recv[at..at + words].copy_from_slice(&block[..words]);
                continue;
            }
            for (from, n) in pieces(words) {
                // SAFETY: a piece of rank q's block of `recv` (inside `total` words), written by
                // nothing else and read only after the transfers complete below (`recv` is not
                // touched, nor reallocated, until then).
                unsafe { transfers.post(comm, q, BLOCK_TAG, (into + 8 * (at + from), 8 * n), true) };
            }
        }
        for q in (0..p).filter(|&q| q != me && !inline_sent) {
            let (at, words) = (self.send_displs[q] as usize, self.send_counts[q] as usize);
            for (from, n) in pieces(words) {
                // SAFETY: a piece of the block for rank q of `send`, unchanged until the transfers
                // complete below.
                unsafe { transfers.post(comm, q, BLOCK_TAG, (out + 8 * (at + from), 8 * n), false) };
                messages += 1;
            }
        }
        transfers.wait();
        messages
    }
}

/// The ranks `mpirun` started on this machine and this rank's place among them, from the
/// environment Open MPI gives every rank (one rank, the first, when it gives none).
pub(crate) fn local_ranks() -> (usize, usize) {
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.trim().parse::<usize>().ok());
    (env("OMPI_COMM_WORLD_LOCAL_SIZE").unwrap_or(1), env("OMPI_COMM_WORLD_LOCAL_RANK").unwrap_or(0))
}

/// Whether any machine of the job runs more ranks than it has cores (one all-reduce over
/// `comm`, collective). The sparse exchange's non-blocking barrier completes only once every
/// rank has been scheduled to poll it, which on a crowded machine costs more than the dense
/// exchange saves, so `ExchangeMode::Auto` then keeps the dense exchange.
pub(crate) fn crowded(comm: &SimpleCommunicator) -> bool {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let here = u64::from(local_ranks().0 > cores);
    let mut anywhere = 0u64;
    comm.all_reduce_into(&here, &mut anywhere, SystemOperation::bitwise_or());
    anywhere != 0
}

/// The [`Transport`] of the driver's leaders: one MPI rank per group.
pub(crate) struct MpiTransport {
    comm: SimpleCommunicator,
    /// This rank (asked of MPI once).
    me: usize,
    dense: Dense,
    /// The requests of each phase that posts some (the dense exchange among a few ranks, the
    /// sparse one, the large transfers), which completes them before it returns.
    requests: Transfers,
    /// The arrival's words: (flags, words for that rank) to each rank, and (only the words of
    /// each rank used) from each; on two ranks the message to the other and from it (`[flags,
    /// words, block]`, the block inline when it is small: [`INLINE`]).
    arrive_out: Vec<u64>,
    arrive_in: Vec<u64>,
    arrive_got: Vec<u64>,
    /// Set by `arrive` for the exchange that follows: the sizes of the parts coming are in
    /// `arrive_in`, and whether the parts of the two-rank arrival went inline each way.
    announced: bool,
    inline_sent: bool,
    inline_got: bool,
    /// Beyond [`POINT_TO_POINT_RANKS`] ranks: whether some machine runs more ranks than cores.
    crowded: bool,
    messages: u64,
}

/// In the size word of a two-rank arrival: the part follows in the same message.
const INLINE: u64 = 1 << 63;
/// The size word of a rank that announced no size in its arrival.
const UNANNOUNCED: u64 = INLINE - 1;

impl MpiTransport {
    /// The transport among the ranks of `comm` (collective: every rank makes it).
    pub(crate) fn new(comm: SimpleCommunicator) -> Self {
        let ranks = comm.size() as usize;
        let crowded = ranks > POINT_TO_POINT_RANKS && crowded(&comm);
        MpiTransport {
            me: comm.rank() as usize,
            comm,
            dense: Dense { recv_counts: vec![0; ranks], ..Dense::default() },
            requests: Transfers::default(),
            arrive_out: Vec::with_capacity(INLINE_WORDS.max(2 * ranks)),
            arrive_in: vec![0; 2 * ranks],
            arrive_got: vec![0; INLINE_WORDS],
            announced: false,
            inline_sent: false,
            inline_got: false,
            crowded,
            messages: 0,
        }
    }
}

impl Transport for MpiTransport {
    fn ranks(&self) -> usize {
        self.dense.recv_counts.len()
    }

    fn all_or(&mut self, flags: u64) -> Result<u64, Poisoned> {
        self.announced = false;
        let mut all = 0u64;
        self.comm.all_reduce_into(&flags, &mut all, SystemOperation::bitwise_or());
        self.messages += log2_ceil(self.ranks());
        Ok(all)
    }

    fn arrive(&mut self, flags: u64, out: Option<(&[u64], &[usize])>) -> Result<u64, Poisoned> {
        let (ranks, me) = (self.ranks(), self.me);
        let words = |q: usize| out.map_or(UNANNOUNCED, |(_, counts)| counts[q] as u64);
        self.announced = true;
        self.inline_got = false;
        if ranks == 2 {
            // One `MPI_Sendrecv` with the other rank (what `MPI_Barrier` costs), without the
            // collective's own overhead; a small part rides along, so that a superstep of a
            // little communication costs one message each way.
            let other = 1 - me;
            self.arrive_out.clear();
            self.arrive_out.extend_from_slice(&[flags, words(other)]);
            self.inline_sent = false;
            if let Some((send, counts)) = out {
                let (at, words) = (counts[..other].iter().sum::<usize>(), counts[other]);
                if 2 + words <= INLINE_WORDS {
                    self.arrive_out[1] |= INLINE;
                    self.arrive_out.extend_from_slice(&send[at..at + words]);
                    self.inline_sent = true;
                }
            }
            swap_words(&self.comm, other, &self.arrive_out, &mut self.arrive_got);
            self.messages += 1;
            let got = &self.arrive_got;
            self.arrive_in[2 * me + 1] = words(me);
            self.arrive_in[2 * other + 1] = got[1] & !INLINE;
            self.inline_got = got[1] & INLINE != 0;
            return Ok(flags | got[0]);
        }
        self.inline_sent = false;
        self.arrive_out.clear();
        self.arrive_out.extend((0..ranks).flat_map(|q| [flags, words(q)]));
        self.comm.all_to_all_into(&self.arrive_out[..], &mut self.arrive_in[..]);
        self.messages += ranks as u64 - 1;
        Ok(self.arrive_in.chunks_exact(2).fold(0, |all, pair| all | pair[0]))
    }

    fn exchange(&mut self, send: &[u64], counts: &[usize], recv: &mut Vec<u64>, late: usize) -> Result<(), Poisoned> {
        let (ranks, me) = (self.ranks(), self.me);
        self.dense.send_counts.clear();
        self.dense.send_counts.extend(counts.iter().map(|&c| count(c, "the blocks for one rank")));
        if std::mem::take(&mut self.announced) {
            for (q, pair) in self.arrive_in.chunks_exact(2).enumerate() {
                let words = match pair[1] {
                    _ if q == me => counts[me],
                    UNANNOUNCED => late,
                    words => words as usize,
                };
                self.dense.recv_counts[q] = count(words, "the blocks from one rank");
            }
        } else {
            self.comm.all_to_all_into(&self.dense.send_counts[..], &mut self.dense.recv_counts[..]);
            self.messages += ranks as u64 - 1;
        }
        let inline_sent = std::mem::take(&mut self.inline_sent);
        let inline_got = std::mem::take(&mut self.inline_got).then(|| &self.arrive_got[2..]);
        if let (true, Some(got)) = (inline_sent, inline_got) {
            // Two ranks, both parts went with the arrival: the parts in rank order, the own
            // one and the other's.
            let own = &send[counts[..me].iter().sum::<usize>()..][..counts[me]];
            let got = &got[..self.dense.recv_counts[1 - me] as usize];
            recv.clear();
            let (first, second) = if me == 0 { (own, got) } else { (got, own) };
            recv.extend_from_slice(first);
            recv.extend_from_slice(second);
            return Ok(());
        }
        self.messages +=
            self.dense.all_to_all_v((&self.comm, me, &mut self.requests), send, recv, inline_sent, inline_got);
        let total = self.dense.recv_counts.iter().map(|&c| c as usize).sum();
        recv.truncate(total);
        Ok(())
    }

    fn exchange_sparse(&mut self, out: Out<'_>, owners: Option<&[usize]>, into: Landing<'_>) -> Result<(), Poisoned> {
        let (comm, me, requests) = (&self.comm, self.me, &mut self.requests);
        self.messages += match owners {
            None => sparse::consensus(comm, me, out, into, requests),
            Some(owners) => sparse::replies(comm, me, out, owners, into, requests),
        };
        Ok(())
    }

    unsafe fn transfer(&mut self, sends: &[Transfer], receives: &[Transfer]) -> Result<(), Poisoned> {
        let mut posted = self.requests.post();
        for &(rank, addr, len) in receives {
            // SAFETY: the caller keeps the bytes writable and untouched until this returns, and
            // `posted` completes the receive before.
            unsafe { posted.post(&self.comm, rank, LARGE_TAG, (addr, len), true) };
        }
        for &(rank, addr, len) in sends {
            // SAFETY: the caller keeps the bytes readable and unchanged until this returns, and
            // `posted` completes the send before.
            unsafe { posted.post(&self.comm, rank, LARGE_TAG, (addr, len), false) };
            self.messages += 1;
        }
        posted.wait();
        Ok(())
    }

    fn sparse_by_default(&self) -> bool {
        self.ranks() > POINT_TO_POINT_RANKS && !self.crowded
    }

    fn all_gather(&mut self, mine: &[u64], all: &mut Vec<u64>) -> Result<(), Poisoned> {
        self.announced = false;
        all.clear();
        all.resize(mine.len() * self.ranks(), 0);
        self.comm.all_gather_into(mine, &mut all[..]);
        self.messages += log2_ceil(self.ranks());
        Ok(())
    }

    fn messages(&self) -> u64 {
        self.messages
    }
}
