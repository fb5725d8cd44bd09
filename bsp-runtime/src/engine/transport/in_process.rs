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
//! also ORs their flags); an exchange is: every leader writes its part for each group into the
//! mailbox of that pair, a barrier, every leader reads the mailboxes addressed to it, a barrier
//! (after which the mailboxes may be written again). Each mailbox is behind a mutex, so the
//! hand-over needs no `unsafe`. One failure record serves the whole run: a failure poisons every
//! group's barrier and the leaders', so every waiting process wakes.

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
}

impl Transport for InProcess {
    fn rank(&self) -> usize {
        self.rank
    }

    fn ranks(&self) -> usize {
        self.board.ranks
    }

    fn all_or(&mut self, flags: u64) -> Result<u64, Poisoned> {
        self.board.barrier.wait(self.rank, &self.parker, flags)
    }

    fn exchange(&mut self, send: &[u64], counts: &[usize], recv: &mut Vec<u64>, _: usize) -> Result<(), Poisoned> {
        let mut at = 0;
        for (dst, &words) in counts.iter().enumerate() {
            let mut mailbox = self.board.mailbox(self.rank, dst);
            mailbox.clear();
            mailbox.extend_from_slice(&send[at..at + words]);
            at += words;
        }
        self.board.barrier.wait(self.rank, &self.parker, 0)?;
        recv.clear();
        for src in 0..self.board.ranks {
            recv.extend_from_slice(&self.board.mailbox(src, self.rank));
        }
        self.board.barrier.wait(self.rank, &self.parker, 0).map(drop)
    }

    fn exchange_sparse(&mut self, out: Out<'_>, into: Landing<'_>) -> Result<(), Poisoned> {
        // This group's row of mailboxes: its blocks, and nothing for the other groups.
        for dst in 0..self.board.ranks {
            self.board.mailbox(self.rank, dst).clear();
        }
        for b in out.blocks {
            self.board.mailbox(self.rank, b.rank).extend_from_slice(&out.words[b.at..b.at + b.words]);
        }
        self.board.barrier.wait(self.rank, &self.parker, 0)?;
        into.recv.clear();
        into.got.clear();
        for src in (0..self.board.ranks).filter(|&src| src != self.rank) {
            let mailbox = self.board.mailbox(src, self.rank);
            if !mailbox.is_empty() {
                into.got.push(Block { rank: src, at: into.recv.len(), words: mailbox.len() });
                into.recv.extend_from_slice(&mailbox);
            }
        }
        self.board.barrier.wait(self.rank, &self.parker, 0).map(drop)
    }

    fn replies(&mut self, out: Out<'_>, owners: &[usize], into: Landing<'_>) -> Result<(), Poisoned> {
        let Landing { recv, got } = into;
        self.exchange_sparse(out, Landing { recv, got: &mut *got })?;
        debug_assert!(got.iter().map(|b| b.rank).eq(owners.iter().copied()), "a reply from every owner asked");
        Ok(())
    }

    fn sparse_by_default(&self) -> bool {
        // Nothing to save by it here; `launch` asks for it from three groups on.
        false
    }

    fn all_gather(&mut self, mine: &[u64], all: &mut Vec<u64>) -> Result<(), Poisoned> {
        let mut mailbox = self.board.mailbox(self.rank, self.rank);
        mailbox.clear();
        mailbox.extend_from_slice(mine);
        drop(mailbox);
        self.board.barrier.wait(self.rank, &self.parker, 0)?;
        all.clear();
        for src in 0..self.board.ranks {
            all.extend_from_slice(&self.board.mailbox(src, src));
        }
        self.board.barrier.wait(self.rank, &self.parker, 0).map(drop)
    }

    fn messages(&self) -> u64 {
        // What the statistics count are messages to other OS processes: none here.
        0
    }
}
