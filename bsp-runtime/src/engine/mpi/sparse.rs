//! The sparse exchange of the MPI engine: blocks move only between ranks that talk to each other.
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

/// The tag of the blocks of a sparse exchange.
const SPARSE_TAG: i32 = 0x6274;
/// The tag of get replies after a sparse exchange.
const REPLY_TAG: i32 = 0x6275;

/// A block of a sparse exchange: the peer rank and where its words are in a buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Block {
    pub rank: usize,
    pub at: usize,
    pub words: usize,
}

/// Where an exchange's incoming blocks go: appended to `recv`, noted in `got` by source rank in
/// arrival order; `requests` is scratch for the sends.
pub(crate) struct Landing<'a> {
    pub recv: &'a mut Vec<u64>,
    pub got: &'a mut Vec<Block>,
    pub requests: &'a mut Vec<ffi::MPI_Request>,
}

impl<'a> Landing<'a> {
    /// Empties the landing, then starts sending `blocks` of `send` with `tag` (synchronous
    /// sends for the consensus), copying a block for this rank, `me`, straight in. The caller
    /// completes the requests left in `requests` before `send` may change (it borrows `send`
    /// until then).
    fn start(
        self,
        comm: &SimpleCommunicator,
        me: usize,
        send: &[u64],
        blocks: &[Block],
        tag: i32,
        synchronous: bool,
    ) -> Self {
        self.recv.clear();
        self.got.clear();
        self.requests.clear();
        for &b in blocks {
            if b.rank == me {
                let at = self.recv.len();
                self.recv.extend_from_slice(&send[b.at..b.at + b.words]);
                self.got.push(Block { rank: me, at, words: b.words });
            } else {
                // SAFETY: `send` is borrowed by the caller, unchanged, until every request
                // completes (this function's contract, which both callers keep: they wait for
                // `requests` before returning).
                self.requests.push(unsafe { start_send(comm, send, b, tag, synchronous) });
            }
        }
        self
    }
}

fn null_request() -> ffi::MPI_Request {
    // SAFETY: reading an MPI constant that the `mpi-sys` shim defines.
    unsafe { ffi::RSMPI_REQUEST_NULL }
}

fn any_source() -> i32 {
    // SAFETY: reading an MPI constant that the `mpi-sys` shim defines.
    unsafe { ffi::RSMPI_ANY_SOURCE }
}

fn words_of(words: usize) -> i32 {
    i32::try_from(words).unwrap_or_else(|_| {
        panic!("the MPI engine moves at most 2^31 - 1 words (16 GiB) to or from one rank per superstep; a block needs {words}")
    })
}

/// Starts a send of `send[b.at..b.at + b.words]` to `b.rank` with `tag`; `synchronous` for the
/// consensus (completes only when received).
///
/// # Safety
/// The words must stay unchanged until the request completes.
unsafe fn start_send(
    comm: &SimpleCommunicator,
    send: &[u64],
    b: Block,
    tag: i32,
    synchronous: bool,
) -> ffi::MPI_Request {
    let mut request = null_request();
    let buf = send[b.at..b.at + b.words].as_ptr() as *const c_void;
    let (n, rank) = (words_of(b.words), b.rank as i32);
    // SAFETY: `buf` holds `n` words, unchanged until the request completes (the caller's
    // contract); `comm` is a valid communicator and `rank` one of its ranks.
    let rc = unsafe {
        if synchronous {
            ffi::MPI_Issend(buf, n, ffi::RSMPI_UINT64_T, rank, tag, comm.as_raw(), &mut request)
        } else {
            ffi::MPI_Isend(buf, n, ffi::RSMPI_UINT64_T, rank, tag, comm.as_raw(), &mut request)
        }
    };
    assert_eq!(rc, 0, "MPI_Isend of {n} words to rank {rank} failed");
    request
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

/// Whether every request has completed (those that have are set to `MPI_REQUEST_NULL`).
fn all_done(requests: &mut [ffi::MPI_Request]) -> bool {
    if requests.is_empty() {
        return true;
    }
    let mut flag = 0;
    // SAFETY: valid request handles (or `MPI_REQUEST_NULL`); statuses are ignored.
    let rc = unsafe {
        ffi::MPI_Testall(requests.len() as i32, requests.as_mut_ptr(), &mut flag, ffi::RSMPI_STATUSES_IGNORE)
    };
    assert_eq!(rc, 0, "MPI_Testall failed");
    flag != 0
}

/// The non-blocking consensus (module docs): sends `blocks` of `send` to their ranks (a block
/// for this rank, `me`, is copied), and lands every block that arrives in `into`. Returns the
/// number of messages this rank sent (its blocks to others, and the barrier's, counted as
/// ⌈log₂ p⌉).
pub(crate) fn consensus(
    comm: &SimpleCommunicator,
    me: usize,
    send: &[u64],
    blocks: &[Block],
    into: Landing<'_>,
) -> u64 {
    let Landing { recv, got, requests } = into.start(comm, me, send, blocks, SPARSE_TAG, true);
    let sent = requests.len() as u64;
    let mut barrier: Option<ffi::MPI_Request> = None;
    // SAFETY: an MPI status is plain data; MPI writes it before it is read.
    let mut status: ffi::MPI_Status = unsafe { std::mem::zeroed() };
    loop {
        let mut flag = 0;
        // SAFETY: `comm` is valid; `flag` and `status` are written by the call.
        let rc = unsafe { ffi::MPI_Iprobe(any_source(), SPARSE_TAG, comm.as_raw(), &mut flag, &mut status) };
        assert_eq!(rc, 0, "MPI_Iprobe failed");
        if flag != 0 {
            got.push(receive_probed(comm, &status, SPARSE_TAG, recv));
            continue;
        }
        match barrier.as_mut() {
            None => {
                if all_done(requests) {
                    let mut request = null_request();
                    // SAFETY: `comm` is valid; the request is completed below.
                    let rc = unsafe { ffi::MPI_Ibarrier(comm.as_raw(), &mut request) };
                    assert_eq!(rc, 0, "MPI_Ibarrier failed");
                    barrier = Some(request);
                }
            }
            Some(request) => {
                if all_done(std::slice::from_mut(request)) {
                    break;
                }
            }
        }
    }
    requests.clear();
    sent + log2_ceil(comm.size() as usize)
}

/// Get replies after a sparse exchange: sends `blocks` of `send` to their requesters (a block
/// for `me` is copied) and lands one reply from each rank of `owners` in `into`. Returns the
/// number of messages sent.
pub(crate) fn replies(
    comm: &SimpleCommunicator,
    me: usize,
    send: &[u64],
    blocks: &[Block],
    owners: &[usize],
    into: Landing<'_>,
) -> u64 {
    let Landing { recv, got, requests } = into.start(comm, me, send, blocks, REPLY_TAG, false);
    // SAFETY: an MPI status is plain data; MPI writes it before it is read.
    let mut status: ffi::MPI_Status = unsafe { std::mem::zeroed() };
    for &owner in owners.iter().filter(|&&o| o != me) {
        // SAFETY: `comm` is valid, `owner` one of its ranks; `status` is written by the call.
        let rc = unsafe { ffi::MPI_Probe(owner as i32, REPLY_TAG, comm.as_raw(), &mut status) };
        assert_eq!(rc, 0, "MPI_Probe for the reply of rank {owner} failed");
        got.push(receive_probed(comm, &status, REPLY_TAG, recv));
    }
    if !requests.is_empty() {
        // SAFETY: valid request handles; statuses are ignored.
        let rc = unsafe { ffi::MPI_Waitall(requests.len() as i32, requests.as_mut_ptr(), ffi::RSMPI_STATUSES_IGNORE) };
        assert_eq!(rc, 0, "MPI_Waitall of {} replies failed", requests.len());
    }
    let sent = requests.len() as u64;
    requests.clear();
    sent
}

/// ⌈log₂ n⌉: the messages a rank sends in a barrier or an all-reduce of n ranks by the usual
/// algorithms (what the message counts charge for them).
pub(crate) fn log2_ceil(n: usize) -> u64 {
    u64::from(n.max(1).next_power_of_two().trailing_zeros())
}
