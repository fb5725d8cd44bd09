//! Large transfers of the MPI engine, point to point between user memory (cargo feature `mpi`).
//!
//! Small puts, messages and get replies travel packed in the sync's `MPI_Alltoallv`, which costs
//! a copy into the send buffer and one out of the receive buffer: nothing, for a few words, and
//! most of the time for megabytes. So a transfer of at least [`LARGE`] bytes is left out of the
//! packed exchange (its record still travels there, without its bytes) and moves as its own
//! non-blocking message, straight from where the data is to where it goes:
//!
//! - a put's bytes leave from the hpput source (borrowed until the end of the sync) or from the
//!   sender's outbox (a buffered put's copy, kept until the next superstep), and land straight in
//!   the receiver's registered memory when no other put of the superstep touches those bytes
//!   (then the order of D2 cannot matter), or in a bounce buffer that the put phase applies in
//!   order;
//! - a get's bytes leave from the owner's registered memory, while nobody writes it (the read
//!   phase), and land in the requester's destination (or its staging area, for a destination in
//!   registered memory).
//!
//! Both sides decide "large" by the same rule on the same length, and messages between two ranks
//! with one tag are matched in the order they were posted (MPI's non-overtaking rule), so no
//! extra metadata is needed. A transfer longer than [`CHUNK`] goes as several messages (MPI
//! counts are `int`).

use std::ffi::c_void;

use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::SimpleCommunicator;

/// Transfers of at least this many bytes move point to point.
pub(crate) const LARGE: usize = 64 << 10;

/// The longest single message.
const CHUNK: usize = 1 << 30;

/// The tag of large put data.
pub(crate) const PUT_TAG: i32 = 0x6270;
/// The tag of large get replies.
pub(crate) const GET_TAG: i32 = 0x6271;

/// The tag of the blocks of an exchange among a few ranks (`Mpi::all_to_all_v`).
pub(crate) const BLOCK_TAG: i32 = 0x6273;

/// The tag of the arrival exchange of a sync between two ranks (`Mpi::arrive`).
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

/// Whether a transfer of `len` bytes moves point to point.
#[inline]
pub(crate) fn is_large(len: usize) -> bool {
    len >= LARGE
}

/// Non-blocking sends and receives posted in one phase of a sync, completed together.
#[derive(Default)]
pub(crate) struct Transfers {
    requests: Vec<ffi::MPI_Request>,
}

// SAFETY: `MPI_Request` is an opaque handle (a pointer in Open MPI); the transfers are used by the
// rank's one thread (MPI is initialised `MPI_THREAD_SINGLE`: only that thread calls MPI).
unsafe impl Send for Transfers {}

impl std::fmt::Debug for Transfers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transfers").field("pending", &self.requests.len()).finish()
    }
}

impl Transfers {
    /// Starts sending `len` bytes at `addr` to `rank` with `tag`.
    ///
    /// # Safety
    /// `addr..addr + len` must stay readable and unchanged until [`wait`](Transfers::wait)
    /// returns.
    pub(crate) unsafe fn send(&mut self, comm: &SimpleCommunicator, rank: usize, tag: i32, addr: usize, len: usize) {
        for (at, n) in chunks(len) {
            let mut request = null_request();
            // SAFETY: the caller keeps the bytes readable and unchanged until `wait`; `n` fits in
            // an `int`; `comm` is a valid communicator and `rank` one of its ranks.
            let rc = unsafe {
                ffi::MPI_Isend(
                    (addr + at) as *const c_void,
                    n as i32,
                    ffi::RSMPI_UINT8_T,
                    rank as i32,
                    tag,
                    comm.as_raw(),
                    &mut request,
                )
            };
            assert_eq!(rc, 0, "MPI_Isend of {n} bytes to rank {rank} failed");
            self.requests.push(request);
        }
    }

    /// Starts receiving `len` bytes from `rank` with `tag` into `addr`.
    ///
    /// # Safety
    /// `addr..addr + len` must stay writable, and nobody may read or write it, until
    /// [`wait`](Transfers::wait) returns.
    pub(crate) unsafe fn receive(&mut self, comm: &SimpleCommunicator, rank: usize, tag: i32, addr: usize, len: usize) {
        for (at, n) in chunks(len) {
            let mut request = null_request();
            // SAFETY: the caller keeps the bytes writable and untouched until `wait`; `n` fits in
            // an `int`; `comm` is a valid communicator and `rank` one of its ranks.
            let rc = unsafe {
                ffi::MPI_Irecv(
                    (addr + at) as *mut c_void,
                    n as i32,
                    ffi::RSMPI_UINT8_T,
                    rank as i32,
                    tag,
                    comm.as_raw(),
                    &mut request,
                )
            };
            assert_eq!(rc, 0, "MPI_Irecv of {n} bytes from rank {rank} failed");
            self.requests.push(request);
        }
    }

    /// Completes every transfer started since the last `wait`.
    pub(crate) fn wait(&mut self) {
        if self.requests.is_empty() {
            return;
        }
        // SAFETY: `requests` holds valid request handles from `MPI_Isend`/`MPI_Irecv`; MPI sets
        // each to `MPI_REQUEST_NULL` when it completes; statuses are ignored.
        let rc = unsafe {
            ffi::MPI_Waitall(self.requests.len() as i32, self.requests.as_mut_ptr(), ffi::RSMPI_STATUSES_IGNORE)
        };
        assert_eq!(rc, 0, "MPI_Waitall of {} transfers failed", self.requests.len());
        self.requests.clear();
    }
}

fn null_request() -> ffi::MPI_Request {
    // SAFETY: reading an MPI constant that the `mpi-sys` shim defines.
    unsafe { ffi::RSMPI_REQUEST_NULL }
}

/// `(offset, length)` of the messages that carry `len` bytes.
fn chunks(len: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..len.div_ceil(CHUNK)).map(move |i| (i * CHUNK, (len - i * CHUNK).min(CHUNK)))
}
