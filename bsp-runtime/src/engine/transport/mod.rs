//! Transports: what joins groups of processes that do not share an address space.
//!
//! A run is a set of *groups*, each a set of processes that are threads of one address space
//! (the threads engine's [`Group`](super::threads::Group): they read each other's outboxes and
//! memory in place), numbered `0..ranks`, with the same number of processes each, laid out
//! group-major (group `r` holds pids `r·t .. r·t + t`). What moves between groups goes through a
//! [`Transport`], driven by one process of each group (its *leader*, `hybrid.rs`): the OR of
//! every group's flags, the exchange of blocks (the serialised outboxes, and the replies to
//! get requests, in the format of [`wire`]), and every group's status on an error path.
//!
//! A transport is one file here and one arm where it is started (`engine/mod.rs`):
//! - `mpi/` (cargo feature `mpi`): groups are MPI ranks (`mpirun`), joined by MPI; its
//!   dense exchange ([`mpi::Dense`]: point to point among a few ranks, `MPI_Alltoallv` beyond),
//!   its large point-to-point transfers (`mpi/direct.rs`) and its sparse exchange
//!   (`mpi/sparse.rs`, non-blocking consensus) serve the MPI engine too.
//!
//! The trait and the wire format need no feature: a transport is written against them alone.

#[cfg(feature = "mpi")]
pub(crate) mod mpi;
pub(crate) mod wire;

use super::Poisoned;

/// Transfers of at least this many bytes move point to point where the transport can (the
/// MPI engine's large puts and gets), instead of inside the blocks.
pub(crate) const LARGE: usize = 64 << 10;

/// Whether a transfer of `len` bytes moves point to point.
#[inline]
pub(crate) fn is_large(len: usize) -> bool {
    len >= LARGE
}

/// What joins the groups of a run, as the leader of one group sees it. Every group's leader
/// makes the same calls, in the same order (they are collective). A call returns [`Poisoned`]
/// when the run failed while it waited (a transport that cannot wake a waiter instead ends the
/// whole run, as MPI's `MPI_Abort` does).
pub(crate) trait Transport {
    /// This group's number, and the number of groups.
    fn rank(&self) -> usize;
    fn ranks(&self) -> usize;

    /// The OR of every group's `flags`.
    fn all_or(&mut self, flags: u64) -> Result<u64, Poisoned>;

    /// The dense exchange: `send` holds one part for each group in group order, `counts[r]`
    /// words for group `r` (0 for none; this group's own part too); `recv` becomes every
    /// group's part for this one, in group order, and nothing else.
    fn exchange(&mut self, send: &[u64], counts: &[usize], recv: &mut Vec<u64>) -> Result<(), Poisoned>;

    /// Every group's `mine` (of the same length everywhere), in group order, into `all`.
    fn all_gather(&mut self, mine: &[u64], all: &mut Vec<u64>) -> Result<(), Poisoned>;

    /// The messages this group has sent to others so far (a collective counts as the messages
    /// of its usual algorithm), for the statistics.
    fn messages(&self) -> u64;
}
