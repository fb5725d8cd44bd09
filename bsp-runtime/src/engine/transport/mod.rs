//! Transports: what joins groups of processes that do not share an address space (module docs
//! of `engine/`: the driver, the group and the transport). Groups are numbered `0..ranks`, with
//! the same number of processes each, laid out group-major (group `r` holds pids
//! `r·t .. r·t + t`); the [`Transport`] trait and the wire format ([`wire`]) need no feature, and
//! a transport is one file here written against them alone: [`in_process`] (groups in this OS
//! process, for tests), `mpi/` (cargo feature `mpi`: groups are MPI ranks).

pub(crate) mod in_process;
#[cfg(feature = "mpi")]
pub(crate) mod mpi;
pub(crate) mod wire;

use super::Poisoned;

/// How a sync of more than two ranks exchanges its blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ExchangeMode {
    /// The sparse exchange in supersteps where every rank talks to at most a quarter of the
    /// ranks and nobody changes registrations or the tag size, where the transport finds it
    /// pays (MPI: beyond 8 ranks, unless some machine runs more ranks than it has cores); the
    /// dense one otherwise.
    Auto,
    /// Always the dense exchange: sizes by `MPI_Alltoall`, then the blocks.
    Dense,
    /// The sparse exchange whenever the superstep allows it (registrations and tag sizes still
    /// go the dense way), at any number of ranks.
    Sparse,
}

/// The environment variable that chooses the exchange (`auto`, `dense` or `sparse`).
pub(crate) const EXCHANGE_VAR: &str = "BSP_MPI_EXCHANGE";

impl ExchangeMode {
    /// The mode `BSP_MPI_EXCHANGE` asks for (`auto` when unset). Its value was checked when
    /// the launch started (`env.rs`), which names the variable for any other value.
    pub(crate) fn from_env() -> ExchangeMode {
        match std::env::var(EXCHANGE_VAR).as_deref() {
            Ok("dense") => ExchangeMode::Dense,
            Ok("sparse") => ExchangeMode::Sparse,
            _ => ExchangeMode::Auto,
        }
    }
}

/// In the flags of a sparse-capable arrival: some rank talks to too many others for the sparse
/// exchange (an engine bit, above those of `outbox::flags`; removed before `sync/` sees
/// the flags).
pub(crate) const DENSE: u64 = 1 << 40;

/// In the flags a group's leader hands its processes at the end of the arrival: the
/// group sends or receives large puts point to point in this sync (an engine bit, removed
/// before `sync/` sees the flags).
pub(crate) const LARGE_PUTS: u64 = 1 << 41;

/// A block of a sparse exchange: the peer group and where its words are in a buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Block {
    pub rank: usize,
    pub at: usize,
    pub words: usize,
}

/// The blocks a group sends in a sparse exchange: `blocks` of `words`.
#[derive(Clone, Copy)]
pub(crate) struct Out<'a> {
    pub words: &'a [u64],
    pub blocks: &'a [Block],
}

/// Where the blocks a group receives land: appended to `recv`, each noted in `got` (source
/// group, position, length), in arrival order.
pub(crate) struct Landing<'a> {
    pub recv: &'a mut Vec<u64>,
    pub got: &'a mut Vec<Block>,
}

/// One large transfer: (peer, address, length); the peer is a group, or where the driver
/// collects them, a pid.
pub(crate) type Transfer = (usize, usize, usize);

/// Transfers of at least this many bytes move point to point where the transport can (the
/// MPI transport's large puts and gets), instead of inside the blocks.
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
    /// The number of groups.
    fn ranks(&self) -> usize;

    /// The OR of every group's `flags`.
    fn all_or(&mut self, flags: u64) -> Result<u64, Poisoned>;

    /// The start of a sync that may use the dense exchange: the OR of every group's `flags`, as
    /// [`all_or`](Transport::all_or), with, where this group has serialised its parts already,
    /// those parts (`out`: `send` and `counts`, as [`exchange`](Transport::exchange) takes
    /// them), so that the transport may announce their sizes, or move small ones, in the same
    /// step (MPI: one `MPI_Sendrecv` on two ranks, with the part inline; an `MPI_Alltoall` of
    /// flags and sizes on more). The dense exchange that follows, if any, is told the size of
    /// the parts of groups that announced none.
    fn arrive(&mut self, flags: u64, out: Option<(&[u64], &[usize])>) -> Result<u64, Poisoned> {
        let _ = out;
        self.all_or(flags)
    }

    /// The dense exchange: `send` holds one part for each group in group order, `counts[r]`
    /// words for group `r` (0 for none; this group's own part too); `recv` becomes every
    /// group's part for this one, in group order, and nothing else. Right after an
    /// [`arrive`](Transport::arrive), the part for this group of every other group that
    /// announced none there is `late` words long; the same parts announced there are
    /// passed again here.
    fn exchange(&mut self, send: &[u64], counts: &[usize], recv: &mut Vec<u64>, late: usize) -> Result<(), Poisoned>;

    /// The sparse exchange: sends the blocks of `out` (at most one per group; none to this
    /// one) and receives into `into` (emptied first) the blocks that other groups send this one,
    /// in any order. Collective: every group calls it, with or without blocks; nobody knows
    /// beforehand who sends it what, except for the replies to a sparse exchange, which
    /// `owners` announces: one block from each of those groups (ascending; not this one).
    fn exchange_sparse(&mut self, out: Out<'_>, owners: Option<&[usize]>, into: Landing<'_>) -> Result<(), Poisoned>;

    /// Moves large puts' or gets' bytes point to point and completes them before it returns:
    /// each of `sends` (group, address, length) to its group, each of `receives` (group,
    /// address, length) from its group; between two groups they match in the order listed on
    /// both sides. Called only for a transport between address spaces (the driver's
    /// `point_to_point`); otherwise large puts' and gets' bytes travel in the blocks.
    ///
    /// # Safety
    /// Every send's bytes must stay readable and unchanged, and every receive's writable and
    /// untouched by anybody else, until it returns.
    unsafe fn transfer(&mut self, sends: &[Transfer], receives: &[Transfer]) -> Result<(), Poisoned> {
        let _ = (sends, receives);
        unreachable!("a transport without point-to-point transfers is given none")
    }

    /// Whether `ExchangeMode::Auto` uses the sparse exchange (when the superstep allows it).
    fn sparse_by_default(&self) -> bool;

    /// Every group's `mine` (of the same length everywhere), in group order, into `all`.
    fn all_gather(&mut self, mine: &[u64], all: &mut Vec<u64>) -> Result<(), Poisoned>;

    /// The messages this group has sent to others so far (a collective counts as the messages
    /// of its usual algorithm), for the statistics.
    fn messages(&self) -> u64;
}
