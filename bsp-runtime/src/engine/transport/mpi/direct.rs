//! Point-to-point messages of the MPI transport (cargo feature `mpi`): the requests of every
//! non-blocking phase, kept in [`Transfers`] and posted through a [`Posted`] guard that completes
//! them before their memory can go, the two-rank arrival's `MPI_Sendrecv` ([`swap_words`]), and
//! the tags.
//!
//! Large puts' and gets' bytes (at least [`LARGE`](super::super::LARGE) bytes, which the driver
//! leaves out of the blocks: `driver.rs`, steps 3 and 4 of a sync) move as messages of their
//! own, straight from where the data is to where it goes. Both sides decide "large" by the same
//! rule on the same length, and messages between two ranks with one tag are matched in the
//! order they were posted (MPI's non-overtaking rule), so no extra metadata is needed. A
//! transfer longer than [`CHUNK`] goes as several messages (MPI counts are `int`).

use std::ffi::c_void;

use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::SimpleCommunicator;

/// The longest single message.
const CHUNK: usize = 1 << 30;

/// The tag of large puts' and gets' bytes: between two ranks, messages with one tag match in
/// the order posted, and both post a sync's gets (read phase) before its puts (`land_puts`).
pub(crate) const LARGE_TAG: i32 = 0x6270;

/// The tag of the blocks of an exchange among a few ranks (`Dense::all_to_all_v`).
pub(crate) const BLOCK_TAG: i32 = 0x6273;

/// The tag of the arrival exchange of a sync between two ranks (`MpiTransport::arrive`).
pub(crate) const ARRIVE_TAG: i32 = 0x6272;

/// Sends `out` to `rank` and receives `inp.len()` words from it into `inp`: one `MPI_Sendrecv`,
/// called directly (the `mpi` crate's wrapper compares communicators on every call, which costs
/// as much as the exchange of a few words).
pub(crate) fn swap_words(comm: &SimpleCommunicator, rank: usize, out: &[u64], inp: &mut [u64]) {
    // SAFETY: both buffers are valid for their lengths (which fit in an `int`: a few words) for
    // the whole blocking call; `comm` is a valid communicator and `rank` one of its ranks.
    let rc = unsafe {
        ffi::MPI_Sendrecv(
            out.as_ptr() as *const c_void,
            out.len() as i32,
            ffi::RSMPI_UINT64_T,
            rank as i32,
            ARRIVE_TAG,
            inp.as_mut_ptr() as *mut c_void,
            inp.len() as i32,
            ffi::RSMPI_UINT64_T,
            rank as i32,
            ARRIVE_TAG,
            comm.as_raw(),
            ffi::RSMPI_STATUS_IGNORE,
        )
    };
    assert_eq!(rc, 0, "MPI_Sendrecv of {} words with rank {rank} failed", out.len());
}

/// Where the requests of one phase of a sync are kept between syncs (reused, so that a phase
/// allocates nothing): requests are only ever posted through a [`Posted`] guard, which
/// completes every one of them before it goes, also when the phase unwinds.
#[derive(Default)]
pub(crate) struct Transfers {
    requests: Vec<ffi::MPI_Request>,
    /// For each request, whether it is a receive (the ones a guard dropped on unwind cancels).
    receives: Vec<bool>,
}

impl Transfers {
    /// Starts a phase: the guard through which its transfers are posted, and which completes
    /// them (as MPI's and rsmpi's scoped requests: no request outlives the scope that posted
    /// it).
    pub(crate) fn post(&mut self) -> Posted<'_> {
        debug_assert!(self.requests.is_empty(), "every phase completes its requests");
        Posted { t: self }
    }
}

/// The transfers of one phase, in flight: every request posted through it is completed before
/// it is dropped, by [`wait`](Posted::wait) or [`complete`](Posted::complete), or else by its
/// `Drop`, which first cancels the receives if the phase unwinds. So memory named by a request
/// is never freed, nor reused, while MPI may still read or write it: the posting functions'
/// contracts only ask that it stay valid for the guard's life.
pub(crate) struct Posted<'a> {
    t: &'a mut Transfers,
}

impl Posted<'_> {
    /// Starts sending (or, with `receive`, receiving) the `len` bytes at `addr` with `rank` and
    /// `tag`, as messages of at most [`CHUNK`] bytes.
    ///
    /// # Safety
    /// The bytes must stay valid until this guard is dropped (or [`wait`](Posted::wait)
    /// returns): readable and unchanged for a send; writable, and neither read nor written by
    /// anybody else, for a receive.
    pub(crate) unsafe fn post(
        &mut self,
        comm: &SimpleCommunicator,
        rank: usize,
        tag: i32,
        (addr, len): (usize, usize),
        receive: bool,
    ) {
        let op = if receive { Op::Irecv } else { Op::Isend };
        for (at, n) in chunks(len) {
            // SAFETY: the caller's contract; `n` fits in an `int`.
            unsafe { self.start(op, comm, (rank, tag), ((addr + at) as *mut c_void, n as i32, ffi::RSMPI_UINT8_T)) };
        }
    }

    /// Starts sending `words` to `rank` with `tag`; `synchronous` for a send that completes
    /// only once the receiver has started receiving it (`MPI_Issend`).
    ///
    /// # Safety
    /// `words` must stay unchanged until this guard is dropped (or completes its requests).
    pub(crate) unsafe fn send_words(
        &mut self,
        comm: &SimpleCommunicator,
        rank: usize,
        tag: i32,
        words: &[u64],
        synchronous: bool,
    ) {
        let (op, n) = (if synchronous { Op::Issend } else { Op::Isend }, super::count(words.len(), "a block"));
        // SAFETY: the caller's contract.
        unsafe { self.start(op, comm, (rank, tag), (words.as_ptr() as *mut c_void, n, ffi::RSMPI_UINT64_T)) };
    }

    /// Starts `op` on `count` elements of `datatype` at `buf` with `rank` and `tag`.
    ///
    /// # Safety
    /// As for [`post`](Posted::post): the elements stay valid while the guard lives.
    #[inline(always)]
    unsafe fn start(
        &mut self,
        op: Op,
        comm: &SimpleCommunicator,
        (rank, tag): (usize, i32),
        (buf, count, datatype): (*mut c_void, i32, ffi::MPI_Datatype),
    ) {
        let (peer, comm, mut request) = (rank as i32, comm.as_raw(), null_request());
        // SAFETY: the caller keeps the elements valid while the guard lives, and the guard
        // completes (or, on unwind, cancels and completes) the request before it goes; `comm` is
        // a valid communicator and `rank` one of its ranks.
        let rc = unsafe {
            match op {
                Op::Irecv => ffi::MPI_Irecv(buf, count, datatype, peer, tag, comm, &mut request),
                Op::Isend => ffi::MPI_Isend(buf, count, datatype, peer, tag, comm, &mut request),
                Op::Issend => ffi::MPI_Issend(buf, count, datatype, peer, tag, comm, &mut request),
            }
        };
        assert_eq!(rc, 0, "MPI_{op:?} of {count} elements with rank {rank} failed");
        self.push(request, op == Op::Irecv);
    }

    /// Starts a non-blocking barrier on `comm` (no buffer), completed with the others.
    pub(crate) fn barrier(&mut self, comm: &SimpleCommunicator) {
        let mut request = null_request();
        // SAFETY: `comm` is a valid communicator; the request names no memory, and the guard
        // completes it.
        let rc = unsafe { ffi::MPI_Ibarrier(comm.as_raw(), &mut request) };
        assert_eq!(rc, 0, "MPI_Ibarrier failed");
        self.push(request, false);
    }

    fn push(&mut self, request: ffi::MPI_Request, receive: bool) {
        self.t.requests.push(request);
        self.t.receives.push(receive);
    }

    /// The number of requests posted and not yet completed.
    pub(crate) fn len(&self) -> usize {
        self.t.requests.len()
    }

    /// Whether every request has completed (then the guard holds none any more): tested, or
    /// with `wait` waited for.
    pub(crate) fn complete(&mut self, wait: bool) -> bool {
        let (requests, mut flag) = (&mut self.t.requests, 1);
        let n = requests.len() as i32;
        if n == 0 {
            return true;
        }
        // SAFETY: valid request handles (or `MPI_REQUEST_NULL`, which MPI sets for completed
        // ones); statuses are ignored.
        let rc = unsafe {
            if wait {
                ffi::MPI_Waitall(n, requests.as_mut_ptr(), ffi::RSMPI_STATUSES_IGNORE)
            } else {
                ffi::MPI_Testall(n, requests.as_mut_ptr(), &mut flag, ffi::RSMPI_STATUSES_IGNORE)
            }
        };
        assert_eq!(rc, 0, "completing {n} transfers (wait: {wait}) failed");
        if flag != 0 {
            requests.clear();
            self.t.receives.clear();
        }
        flag != 0
    }

    /// Completes every transfer posted through this guard.
    pub(crate) fn wait(mut self) {
        self.complete(true);
    }
}

impl Drop for Posted<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // The phase unwinds: its receives may never be matched (the peer may fail too), so
            // they are cancelled; a cancelled request still completes, below, before its memory
            // can go. Sends complete once received (or buffered), as in a normal phase end.
            for (request, &receive) in self.t.requests.iter_mut().zip(&self.t.receives) {
                if receive && *request != null_request() {
                    // SAFETY: a valid, not yet completed receive request; cancelling it only
                    // marks it, and `complete` waits for it.
                    unsafe { ffi::MPI_Cancel(request) };
                }
            }
        }
        self.complete(true);
    }
}

/// What a request does: the MPI call that starts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Irecv,
    Isend,
    Issend,
}

fn null_request() -> ffi::MPI_Request {
    // SAFETY: reading an MPI constant that the `mpi-sys` shim defines.
    unsafe { ffi::RSMPI_REQUEST_NULL }
}

/// `(offset, length)` of the messages that carry `len` bytes.
fn chunks(len: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..len.div_ceil(CHUNK)).map(move |i| (i * CHUNK, (len - i * CHUNK).min(CHUNK)))
}
