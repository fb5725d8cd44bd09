//! Loom models of the barrier (`engine/group/barrier.rs`) and of the hand-offs built on it (a
//! group's leader writing between two barriers what the others read after the second; a word
//! crossing groups through the real in-process transport, `engine/transport/in_process.rs`):
//! loom runs each model under every interleaving of its threads (up to `LOOM_MAX_PREEMPTIONS`
//! preemptions, 2 by default here) and every value a load may return under the C++ memory model,
//! and fails on a data race on a loom `UnsafeCell` (an access not ordered after the previous
//! write), on a thread that waits forever, or on a failed assertion. Run by `scripts/loom`,
//! which builds the crate with `--cfg loom`: the barrier's atomics, parker, yields and spin
//! hints then come from loom (`primitive.rs`), and its patience is one poll of each kind and one
//! yield before it parks, so that the models reach the spinning, yielding and parking paths.
//!
//! Every non-`Relaxed` ordering and fence of the barrier is needed by one of these models:
//! weakened, a model fails (a race on a cell, or a lost wake-up).

use loom::cell::UnsafeCell;
use loom::sync::Arc;

use crate::engine::Poisoned;
use crate::engine::group::barrier::{Barrier, Strategy};
use crate::engine::transport::Transport;
use crate::engine::transport::in_process::{Board, InProcess};
use crate::primitive::Parker;
use crate::primitive::model::paths;

/// Explores `f` with at most `LOOM_MAX_PREEMPTIONS` preemptions (2 if unset); returns how many
/// yields and blocking parks its executions took.
fn explore(what: &str, f: impl Fn() + Sync + Send + 'static) -> (u64, u64) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(2);
    }
    let (yields, parks) = paths();
    let executions = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counted = executions.clone();
    let start = std::time::Instant::now();
    builder.check(move || {
        counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        f();
    });
    let (y, p) = paths();
    let executions = executions.load(std::sync::atomic::Ordering::Relaxed);
    let secs = start.elapsed().as_secs_f64();
    println!("{what}: {executions} executions, {} yields, {} blocking parks, {secs:.1} s", y - yields, p - parks);
    (y - yields, p - parks)
}

/// Runs `body(pid, parker)` for every process of `parkers` on loom threads, process 0 on the
/// model's own thread, and waits for them all.
fn run(parkers: Vec<Parker>, body: impl Fn(usize, Parker) + Send + Sync + 'static) {
    let body = Arc::new(body);
    let mut parkers = parkers.into_iter().enumerate();
    let (_, first) = parkers.next().expect("a process");
    let threads: Vec<_> = parkers
        .map(|(pid, parker)| {
            let body = body.clone();
            loom::thread::spawn(move || body(pid, parker))
        })
        .collect();
    body(0, first);
    for t in threads {
        t.join().unwrap();
    }
}

/// Words written by one thread and read by others, whose accesses loom checks: a read that the
/// barrier does not order after the write is a data race for loom.
struct Cells(Box<[UnsafeCell<u64>]>);

// SAFETY: the models access each cell only in the phases their protocol allows, and loom checks
// every access against the happens-before order it builds (that is what the models test).
unsafe impl Sync for Cells {}

impl Cells {
    fn new(n: usize) -> Self {
        Cells((0..n).map(|_| UnsafeCell::new(0)).collect())
    }

    fn write(&self, i: usize, v: u64) {
        // SAFETY: loom checks that no other access is concurrent with this one.
        self.0[i].with_mut(|p| unsafe { *p = v });
    }

    fn read(&self, i: usize) -> u64 {
        // SAFETY: loom checks that no write is concurrent with this read.
        self.0[i].with(|p| unsafe { *p })
    }
}

/// The flag of process `q` in epoch `e`: one bit each, so that a flag of another epoch or a
/// missing one shows.
fn flag(n: usize, e: usize, q: usize) -> u64 {
    1 << (e * n + q)
}

/// `n` processes meet `epochs` times. Before arriving at epoch `e` every process writes its word
/// for that epoch (double-buffered by parity, as the outboxes are) and arrives with its own flag;
/// after leaving it checks that the barrier returned the OR of every process's flags for `e`
/// and reads every process's word for `e`. A process that left before another arrived would read
/// that word unordered after its write (a race for loom) or before it (a wrong value); a process
/// that rewrites its word for `e + 2` before every other has read the one for `e` races too. So
/// the model checks that nobody leaves an epoch before all have arrived, and that each epoch
/// publishes everything written before it.
fn meet(n: usize, strategy: Strategy, epochs: usize) -> (u64, u64) {
    explore(&format!("{n} meet {epochs} times, {strategy:?}"), move || {
        let (barrier, parkers) = Barrier::with_strategy(n, strategy);
        assert_eq!(barrier.strategy(), strategy);
        let barrier = Arc::new(barrier);
        let words = Arc::new(Cells::new(2 * n));
        run(parkers, move |pid, parker| {
            for e in 0..epochs {
                let parity = e % 2;
                words.write(parity * n + pid, (e * n + pid + 1) as u64);
                let all = barrier.wait(pid, &parker, flag(n, e, pid)).expect("nobody fails");
                assert_eq!(all, (0..n).fold(0, |acc, q| acc | flag(n, e, q)), "{strategy:?}, epoch {e}, pid {pid}");
                for q in 0..n {
                    assert_eq!(words.read(parity * n + q), (e * n + q + 1) as u64, "epoch {e}: pid {pid} reads {q}");
                }
            }
        });
    })
}

/// Checks that a model reached the yields and the parks at least once over its executions.
fn reached(what: &str, (yields, parks): (u64, u64)) {
    assert!(yields > 0, "{what}: no execution yielded");
    assert!(parks > 0, "{what}: no execution parked");
}

#[test]
fn loom_two_processes_meet_three_times_dissemination() {
    reached("dissemination, 2", meet(2, Strategy::Dissemination, 3));
}

#[test]
fn loom_two_processes_meet_three_times_central() {
    reached("central, 2", meet(2, Strategy::Central, 3));
}

/// Once only: three processes of the dissemination barrier take two rounds each, and two epochs
/// of them are beyond a minute's exploration (the reuse of slots by parity is in the model of
/// two processes).
#[test]
fn loom_three_processes_meet_once_dissemination() {
    reached("dissemination, 3", meet(3, Strategy::Dissemination, 1));
}

#[test]
fn loom_three_processes_meet_twice_central() {
    reached("central, 3", meet(3, Strategy::Central, 2));
}

/// `n` processes meet `before` times; then the last one fails (poisons the barrier) instead of
/// arriving at the next epoch, where the others wait. Every waiter must return `Err(Poisoned)`
/// (none may hang, which loom reports as a deadlock), and so must its later waits. An epoch that
/// the failing process completed may still end in `Err(Poisoned)` for a process that sees the
/// poison before the epoch's last word (the run fails either way), but never in `Ok` with the
/// wrong flags, and the epoch of the failure never ends in `Ok`.
fn poison(n: usize, strategy: Strategy, before: usize) -> (u64, u64) {
    explore(&format!("{n}, poison after {before} epochs, {strategy:?}"), move || {
        let (barrier, parkers) = Barrier::with_strategy(n, strategy);
        let barrier = Arc::new(barrier);
        run(parkers, move |pid, parker| {
            for e in 0..=before {
                if pid == n - 1 && e == before {
                    barrier.poison();
                    return;
                }
                match barrier.wait(pid, &parker, flag(n, e, pid)) {
                    Ok(all) => {
                        assert!(e < before, "{strategy:?}: pid {pid} left the epoch of the failure");
                        assert_eq!(all, (0..n).fold(0, |acc, q| acc | flag(n, e, q)), "{strategy:?}: epoch {e}");
                    }
                    Err(Poisoned) => {
                        assert!(pid != n - 1, "{strategy:?}: the failing process saw its own poison");
                        assert!(
                            matches!(barrier.wait(pid, &parker, 0), Err(Poisoned)),
                            "{strategy:?}: pid {pid}, a wait after the poison"
                        );
                        return;
                    }
                }
            }
        });
    })
}

#[test]
fn loom_poison_wakes_every_waiter_dissemination() {
    // Two processes: the waiter yields to the failing one, which never waits, so it poisons
    // before the waiter parks; three: a waiter also parks before the poison.
    poison(2, Strategy::Dissemination, 0);
    reached("poison, dissemination", poison(3, Strategy::Dissemination, 0));
    reached("poison, dissemination, second epoch", poison(2, Strategy::Dissemination, 1));
}

#[test]
fn loom_poison_wakes_every_waiter_central() {
    poison(2, Strategy::Central, 0);
    poison(2, Strategy::Central, 1);
    reached("poison, central", poison(3, Strategy::Central, 0));
    poison(3, Strategy::Central, 1);
}

/// The hand-off inside a group of `t` threads, as the driver's arrival does it
/// (`Driver::arrive`, `send_blocks`, `read_blocks` in `engine/driver.rs`), over `syncs` syncs:
/// every process writes its outbox for the superstep (one of two by parity, as `Group` keeps
/// them) and arrives at the group's barrier with its flag; the leader (local process 0) then
/// reads every outbox of the group, writes what it received into the shared buffer (`Shared::
/// recv`) and hands the OR on through the second barrier, where the others wait and add
/// nothing; after it every process reads the buffer, until its next sync's first barrier,
/// after which the leader rewrites it. Checks that the leader reads complete outboxes, that every
/// process reads the leader's buffer whole and leaves with the leader's OR, and (with two syncs
/// or more) that the leader's rewrite comes after every reader is done.
fn hand_off(t: usize, strategy: Strategy, syncs: usize) -> (u64, u64) {
    explore(&format!("group of {t}, hand-off over {syncs} syncs, {strategy:?}"), move || {
        let (barrier, parkers) = Barrier::with_strategy(t, strategy);
        let barrier = Arc::new(barrier);
        // Outboxes by parity, then the leader's buffer.
        let cells = Arc::new(Cells::new(2 * t + 1));
        let recv = 2 * t;
        let outbox = move |s: usize, q: usize| ((s * t + q) as u64) << 8 | 1;
        let received = move |s: usize| (0..t).map(|q| outbox(s, q)).sum::<u64>() + s as u64;
        let from_other_groups = 1 << 40;
        run(parkers, move |local, parker| {
            for s in 0..syncs {
                let parity = s % 2;
                cells.write(parity * t + local, outbox(s, local));
                let mine = flag(t, s, local);
                let combined = barrier.wait(local, &parker, mine).expect("nobody fails");
                let mut all = 0;
                if local == 0 {
                    // The leader: every outbox of the group, then the transport's answer.
                    let sum: u64 = (0..t).map(|q| cells.read(parity * t + q)).sum();
                    cells.write(recv, sum + s as u64);
                    all = combined | from_other_groups;
                }
                let all = barrier.wait(local, &parker, all).expect("nobody fails");
                assert_eq!(all, (0..t).fold(from_other_groups, |acc, q| acc | flag(t, s, q)), "sync {s}");
                assert_eq!(cells.read(recv), received(s), "sync {s}: process {local} reads the leader's buffer");
            }
        });
    })
}

/// A group of two (three processes of the dissemination barrier meeting twice in one sync are
/// beyond a minute's exploration).
#[test]
fn loom_group_hands_the_leaders_buffer_to_every_process_dissemination() {
    reached("hand-off, dissemination", hand_off(2, Strategy::Dissemination, 2));
}

#[test]
fn loom_group_hands_the_leaders_buffer_to_every_process_central() {
    reached("hand-off, central", hand_off(2, Strategy::Central, 2));
    hand_off(3, Strategy::Central, 1);
}

/// The whole path of a word between groups, with the real in-process transport
/// (`transport/in_process.rs`): group 0 has two processes, its leader and one other; group 1
/// only its leader. As in `Driver::arrive` and `send_blocks`, group 0's processes write their
/// outboxes and meet at their group's barrier; its leader reads both outboxes, combines the
/// flags with group 1's leader (`Transport::all_or`) and exchanges with it
/// (`Transport::exchange`: mailboxes behind mutexes between two barriers of the leaders'
/// board), receiving into the group's shared buffer; after the group's second barrier the other
/// process reads that buffer (`read_blocks`) and must find group 1's word, and the OR of all
/// three processes' flags. One sync, with the leaders' board barrier as `Board::new` picks it
/// for two processes on this machine.
fn across_groups(strategy: Strategy) -> (u64, u64) {
    explore(&format!("two groups (2 + 1) over the in-process transport, {strategy:?}"), move || {
        let (barrier, parkers) = Barrier::with_strategy(2, strategy);
        let barrier = Arc::new(barrier);
        let mut parkers = parkers.into_iter();
        let (parker0, parker1) = (parkers.next().expect("two processes"), parkers.next().expect("two processes"));
        let (board, leaders) = Board::new(2, 2);
        let mut leaders = leaders.into_iter();
        let (lead0, lead1) = (leaders.next().expect("two leaders"), leaders.next().expect("two leaders"));
        // The outboxes of group 0's processes (one word each here), and its shared buffer.
        let cells = Arc::new(Cells::new(2));
        let recv = Arc::new(Buffer(UnsafeCell::new(Vec::new())));
        let outbox = |q: usize| (q as u64 + 1) << 8;
        let (remote, all_flags) = (7, 0b111);
        let other_group = {
            let board = board.clone();
            loom::thread::spawn(move || {
                let mut transport = InProcess::new(board, 1, lead1);
                assert_eq!(transport.all_or(0b100).expect("nobody fails"), all_flags, "group 1");
                let mut got = Vec::new();
                transport.exchange(&[remote], &[1, 0], &mut got, 1).expect("nobody fails");
                assert_eq!(got, [outbox(0) + outbox(1)], "group 1 receives group 0's block");
            })
        };
        let other = {
            let (barrier, cells, recv) = (barrier.clone(), cells.clone(), recv.clone());
            loom::thread::spawn(move || {
                cells.write(1, outbox(1));
                barrier.wait(1, &parker1, 0b010).expect("nobody fails");
                assert_eq!(barrier.wait(1, &parker1, 0).expect("nobody fails"), all_flags, "group 0's other process");
                // SAFETY: read after the group's second barrier (loom checks the leader's write).
                recv.0.with(|r| assert_eq!(unsafe { &*r }, &[remote], "what the leader received"));
            })
        };
        // Group 0's leader, on the model's thread.
        cells.write(0, outbox(0));
        let combined = barrier.wait(0, &parker0, 0b001).expect("nobody fails");
        let mut transport = InProcess::new(board, 0, lead0);
        let all = transport.all_or(combined).expect("nobody fails");
        let block = cells.read(0) + cells.read(1);
        // SAFETY: written between the group's barriers, where the other process waits (loom
        // checks it).
        recv.0.with_mut(|r| transport.exchange(&[block], &[0, 1], unsafe { &mut *r }, 1).expect("nobody fails"));
        assert_eq!(barrier.wait(0, &parker0, all).expect("nobody fails"), all_flags, "group 0's leader");
        // SAFETY: the leader's own write.
        recv.0.with(|r| assert_eq!(unsafe { &*r }, &[remote], "what the leader received"));
        other_group.join().unwrap();
        other.join().unwrap();
    })
}

/// A group's shared buffer (`Shared::recv` in `driver.rs`).
struct Buffer(UnsafeCell<Vec<u64>>);

// SAFETY: written by the leader between two barriers, read after the second (loom checks it).
unsafe impl Sync for Buffer {}

#[test]
fn loom_a_word_crosses_groups_through_the_in_process_transport() {
    across_groups(Strategy::Dissemination);
    across_groups(Strategy::Central);
}
