//! The sparse exchange of the MPI transport: blocks move only between ranks that talk to each other.
//!
//! The dense exchange of a sync costs every rank O(p) messages or slots whatever it sends (an
//! `MPI_Alltoall` of sizes, then an `MPI_Alltoallv`). In a superstep where each rank talks to a
//! few others, this one costs a rank O(ranks it talks to + log p): it is the *non-blocking
//! consensus* of Hoefler, Siebert and Lumsdaine ("Scalable communication protocols for dynamic
//! sparse data exchange", PPoPP 2010):
//!
//! 1. every rank starts a *synchronous* send of each block to its destination (`MPI_Issend`: it
//!    completes only once the destination has started receiving it);
//! 2. it receives whatever blocks arrive (`MPI_Improbe` for any source, then `MPI_Mrecv`), and
//!    once all of its own sends have completed, enters a non-blocking barrier (`MPI_Ibarrier`);
//! 3. it keeps receiving until that barrier completes.
//!
//! When the barrier completes every rank has entered it, so every send of every rank has been
//! matched by a receive: nothing is left in flight, and nobody needed to know beforehand how
//! many blocks it would receive. Get replies then go back point to point, between pairs that
//! both sides know (the requester asked the owner; the owner received the request).

use mpi::point_to_point::{Message, Status};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::super::{Block, Landing, Out};
use super::direct::{Posted, Transfers};

/// The tag of the blocks of a sparse exchange.
const SPARSE_TAG: i32 = 0x6274;
/// The tag of get replies after a sparse exchange.
const REPLY_TAG: i32 = 0x6275;

/// Empties `into`, then starts sending the blocks of `out` with `tag` (synchronous sends for
/// the consensus) through a guard on `requests`, which it returns, copying a block for this
/// rank, `me`, straight in.
///
/// # Safety
/// `out`'s words must stay unchanged while the guard lives (it completes the sends before it
/// goes).
unsafe fn start<'t>(
    requests: &'t mut Transfers,
    comm: &SimpleCommunicator,
    me: usize,
    out: Out<'_>,
    into: &mut Landing<'_>,
    (tag, synchronous): (i32, bool),
) -> Posted<'t> {
    let mut posted = requests.post();
    into.recv.clear();
    into.got.clear();
    for &b in out.blocks {
        let words = &out.words[b.at..b.at + b.words];
        if b.rank == me {
            let at = into.recv.len();
            into.recv.extend_from_slice(words);
            into.got.push(Block { rank: me, at, words: b.words });
        } else {
            // SAFETY: the words are unchanged while `posted` lives (this function's contract).
            unsafe { posted.send_words(comm, b.rank, tag, words, synchronous) };
        }
    }
    posted
}

/// Receives the message that a matched probe found (`probed`) at the end of `recv`, and returns
/// its block.
fn receive((message, status): (Message, Status), recv: &mut Vec<u64>) -> Block {
    let (rank, words, at) = (status.source_rank() as usize, status.count(u64::equivalent_datatype()), recv.len());
    recv.resize(at + words as usize, 0);
    message.matched_receive_into(&mut recv[at..]);
    Block { rank, at, words: words as usize }
}

/// The non-blocking consensus (module docs): sends the blocks of `out` to their ranks (a block
/// for this rank, `me`, is copied), and lands every block that arrives in `into`; `requests`
/// keeps the sends' requests between syncs. Returns the number of messages this rank sent (its
/// blocks to others, and the barrier's, counted as ⌈log₂ p⌉).
pub(crate) fn consensus(
    comm: &SimpleCommunicator,
    me: usize,
    out: Out<'_>,
    mut into: Landing<'_>,
    requests: &mut Transfers,
) -> u64 {
    // SAFETY: `out` is borrowed, unchanged, for the whole of this function, which the guard
    // does not outlive.
    let mut sends = unsafe { start(requests, comm, me, out, &mut into, (SPARSE_TAG, true)) };
    let sent = sends.len() as u64;
    let mut barrier = false;
    loop {
        if let Some(probed) = comm.any_process().immediate_matched_probe_with_tag(SPARSE_TAG) {
            into.got.push(receive(probed, into.recv));
            continue;
        }
        // Once every send of this rank was received, it enters the barrier (the same guard
        // holds its request); once the barrier completes, so has every send of every rank.
        if sends.complete(false) {
            if barrier {
                break;
            }
            sends.barrier(comm);
            barrier = true;
        }
    }
    sent + log2_ceil(comm.size() as usize)
}

/// Get replies after a sparse exchange: sends the blocks of `out` to their requesters (a block
/// for `me` is copied) and lands one reply from each rank of `owners` in `into`. Returns the
/// number of messages sent.
pub(crate) fn replies(
    comm: &SimpleCommunicator,
    me: usize,
    out: Out<'_>,
    owners: &[usize],
    mut into: Landing<'_>,
    requests: &mut Transfers,
) -> u64 {
    // SAFETY: as in `consensus`.
    let sends = unsafe { start(requests, comm, me, out, &mut into, (REPLY_TAG, false)) };
    for &owner in owners.iter().filter(|&&o| o != me) {
        into.got.push(receive(comm.process_at_rank(owner as i32).matched_probe_with_tag(REPLY_TAG), into.recv));
    }
    let sent = sends.len() as u64;
    sends.wait();
    sent
}

/// ⌈log₂ n⌉: the messages a rank sends in a barrier or an all-reduce of n ranks by the usual
/// algorithms (what the message counts charge for them).
pub(crate) fn log2_ceil(n: usize) -> u64 {
    u64::from(n.max(1).next_power_of_two().trailing_zeros())
}
