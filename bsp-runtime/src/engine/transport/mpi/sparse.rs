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
//! 2. it receives whatever blocks arrive (`MPI_Iprobe` for any source, then `MPI_Recv`), and once
//!    all of its own sends have completed, enters a non-blocking barrier (`MPI_Ibarrier`);
//! 3. it keeps receiving until that barrier completes.
//!
//! When the barrier completes every rank has entered it, so every send of every rank has been
//! matched by a receive: nothing is left in flight, and nobody needed to know beforehand how
//! many blocks it would receive. Get replies then go back point to point, between pairs that
//! both sides know (the requester asked the owner; the owner received the request).

use std::ffi::c_void;

use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::{Communicator, SimpleCommunicator};

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

/// An MPI status to be written by a probe.
fn no_status() -> ffi::MPI_Status {
    // SAFETY: an MPI status is plain data; MPI writes it before it is read.
    unsafe { std::mem::zeroed() }
}

fn any_source() -> i32 {
    // SAFETY: reading an MPI constant that the `mpi-sys` shim defines.
    unsafe { ffi::RSMPI_ANY_SOURCE }
}

/// Receives the message that `status` describes (probed with `tag`) at the end of `recv`, and
/// returns its block.
fn receive_probed(comm: &SimpleCommunicator, status: &ffi::MPI_Status, tag: i32, recv: &mut Vec<u64>) -> Block {
    let mut n = 0;
    // SAFETY: `status` comes from a successful probe.
    let rc = unsafe { ffi::MPI_Get_count(status, ffi::RSMPI_UINT64_T, &mut n) };
    assert_eq!(rc, 0, "MPI_Get_count failed");
    let (rank, words) = (status.MPI_SOURCE as usize, n as usize);
    let at = recv.len();
    recv.resize(at + words, 0);
    // SAFETY: `recv[at..]` has room for the `n` words of the probed message, which this receive
    // matches (same source and tag; messages between two ranks are not overtaken).
    let rc = unsafe {
        ffi::MPI_Recv(
            recv[at..].as_mut_ptr() as *mut c_void,
            n,
            ffi::RSMPI_UINT64_T,
            rank as i32,
            tag,
            comm.as_raw(),
            ffi::RSMPI_STATUS_IGNORE,
        )
    };
    assert_eq!(rc, 0, "MPI_Recv of {n} words from rank {rank} failed");
    Block { rank, at, words }
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
    let mut status = no_status();
    loop {
        let mut flag = 0;
        // SAFETY: `comm` is valid; `flag` and `status` are written by the call.
        let rc = unsafe { ffi::MPI_Iprobe(any_source(), SPARSE_TAG, comm.as_raw(), &mut flag, &mut status) };
        assert_eq!(rc, 0, "MPI_Iprobe failed");
        if flag != 0 {
            into.got.push(receive_probed(comm, &status, SPARSE_TAG, into.recv));
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
    let mut status = no_status();
    for &owner in owners.iter().filter(|&&o| o != me) {
        // SAFETY: `comm` is valid, `owner` one of its ranks; `status` is written by the call.
        let rc = unsafe { ffi::MPI_Probe(owner as i32, REPLY_TAG, comm.as_raw(), &mut status) };
        assert_eq!(rc, 0, "MPI_Probe for the reply of rank {owner} failed");
        into.got.push(receive_probed(comm, &status, REPLY_TAG, into.recv));
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
