//! The in-process transport: groups that are sets of threads of this OS process, joined by
//! shared mailboxes.
//!
//! It runs the driver (`driver.rs`) exactly as MPI does — every block serialised in the
//! wire format, every get between groups a request and a reply, the collective bookkeeping
//! exchanged — but without MPI, so that `cargo test`, Miri and ThreadSanitizer reach all of
//! it. A launch asks for it with `Launch::in_process_groups` (hidden: for testing); its p
//! processes are split into that many groups of p / groups threads (`driver::launch_in_process`,
//! the layout).
//!
//! The groups' leaders meet at a combining barrier of their own (the threads engine's, which
//! also ORs their flags), and exchange through a mailbox per pair of groups (`InProcess::swap`),
//! each behind a mutex, so the hand-over needs no `unsafe`. One failure record serves the whole
//! run: a failure poisons every group's barrier and the leaders', so every waiting process wakes.

use std::sync::Arc;

use crate::primitive::{Mutex, MutexGuard, Parker};

use super::{Block, Landing, Out, Transport};
use crate::engine::Poisoned;
use crate::engine::group::barrier::Barrier;

/// What the leaders of one run share.
pub(crate) struct Board {
    barrier: Barrier,
    /// `boxes[src · ranks + dst]`: what group `src` sent group `dst` in the exchange in progress.
    boxes: Box<[Mutex<Vec<u64>>]>,
    ranks: usize,
}

impl Board {
    /// The board of `groups` leaders, on a machine that runs `busy` processes in all (its
    /// barrier spins only when they fit the cores), and each leader's parker, by group.
    pub(crate) fn new(groups: usize, busy: usize) -> (Arc<Board>, Vec<Parker>) {
        let (barrier, parkers) = Barrier::sharing(groups, busy);
        let boxes = (0..groups * groups).map(|_| Mutex::default()).collect();
        (Arc::new(Board { barrier, boxes, ranks: groups }), parkers)
    }

    /// Wakes every leader that waits (a failure).
    pub(crate) fn poison(&self) {
        self.barrier.poison();
    }

    fn mailbox(&self, src: usize, dst: usize) -> MutexGuard<'_, Vec<u64>> {
        // A mailbox holds plain words: a leader that panicked while holding it (the run has
        // failed then) leaves nothing inconsistent.
        self.boxes[src * self.ranks + dst].lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One group's end of the in-process transport (its leader's).
pub(crate) struct InProcess {
    board: Arc<Board>,
    parker: Parker,
    rank: usize,
}

impl InProcess {
    /// Group `rank`'s end of `board`, for its leader, which waits with `parker` (from
    /// [`Board::new`]).
    pub(crate) fn new(board: Arc<Board>, rank: usize, parker: Parker) -> Self {
        InProcess { board, parker, rank }
    }

    /// One exchange through the board: this group's leader writes `part(dst)` into its mailbox
    /// for each group, meets the other leaders, hands `read` the mailbox of each group for this
    /// one (by source), and meets them again (after which the mailboxes may be written again).
    fn swap<'a>(&self, part: impl Fn(usize) -> &'a [u64], mut read: impl FnMut(usize, &[u64])) -> Result<(), Poisoned> {
        for dst in 0..self.board.ranks {
            let mut mailbox = self.board.mailbox(self.rank, dst);
            mailbox.clear();
            mailbox.extend_from_slice(part(dst));
        }
        self.board.barrier.wait(self.rank, &self.parker, 0)?;
        for src in 0..self.board.ranks {
            read(src, &self.board.mailbox(src, self.rank));
        }
        self.board.barrier.wait(self.rank, &self.parker, 0).map(drop)
    }
}

impl Transport for InProcess {
    fn ranks(&self) -> usize {
        self.board.ranks
    }

    fn all_or(&mut self, flags: u64) -> Result<u64, Poisoned> {
        self.board.barrier.wait(self.rank, &self.parker, flags)
    }

    fn exchange(&mut self, send: &[u64], counts: &[usize], recv: &mut Vec<u64>, _: usize) -> Result<(), Poisoned> {
        recv.clear();
        let part = |dst: usize| &send[counts[..dst].iter().sum::<usize>()..][..counts[dst]];
        self.swap(part, |_, mailbox| recv.extend_from_slice(mailbox))
    }

    fn exchange_sparse(&mut self, out: Out<'_>, owners: Option<&[usize]>, into: Landing<'_>) -> Result<(), Poisoned> {
        into.recv.clear();
        into.got.clear();
        // This group's row of mailboxes: its blocks, and nothing for the other groups.
        let block =
            |dst: usize| out.blocks.iter().find(|b| b.rank == dst).map_or(&[][..], |b| &out.words[b.at..][..b.words]);
        self.swap(block, |src, mailbox| {
            if src != self.rank && !mailbox.is_empty() {
                into.got.push(Block { rank: src, at: into.recv.len(), words: mailbox.len() });
                into.recv.extend_from_slice(mailbox);
            }
        })?;
        let from_owners = |o: &[usize]| into.got.iter().map(|b| b.rank).eq(o.iter().copied());
        debug_assert!(owners.is_none_or(from_owners), "a reply from every owner asked");
        Ok(())
    }

    fn sparse_by_default(&self) -> bool {
        // Nothing to save by it here; `launch` asks for it from three groups on.
        false
    }

    fn all_gather(&mut self, mine: &[u64], all: &mut Vec<u64>) -> Result<(), Poisoned> {
        all.clear();
        self.swap(|_| mine, |_, mailbox| all.extend_from_slice(mailbox))
    }

    fn messages(&self) -> u64 {
        // What the statistics count are messages to other OS processes: none here.
        0
    }
}
