//! The run-time checks of alignment that `#[bsp::program]` inserts where the macro cannot decide
//! whether a condition is the same on every process (it depends on a `get`, on messages, on
//! other data): the program compiles, and a run whose processes disagree fails at the sync of
//! the branch some took, naming the condition's place (debug builds, as `ctx.same`). A process
//! that returns where the others go on is found by the runtime at the others' next sync.
//!
//! Each program below is misaligned on its 2 processes; the same shapes with data every process
//! holds alike are the `aligned_*` pass cases of `tests/ui/pass/`.

use bsp::Ctx;

/// The line of this file that holds `marker`, as the runtime names a place (`file:line`).
fn place_of(marker: &str) -> String {
    let source = include_str!("runtime_checks.rs");
    let line = source
        .lines()
        .position(|l| l.contains(marker) && !l.contains("place_of"))
        .unwrap_or_else(|| panic!("no line holds `{marker}`"));
    format!("runtime_checks.rs:{}", line + 1)
}

/// The runtime's own finding when every process has ended or synced: its numbers of syncs differ.
const SYNC_COUNTS: &str = "every process must make the same number of syncs";

/// What a misaligned run's error says: in a debug build, the promise made at the condition's
/// place (`want` says which processes promised what); in a release build, which checks no
/// promise, the runtime's own finding `release` further on.
fn assert_fails_at(error: bsp::Error, marker: &str, want: &str, release: &str) {
    let text = error.to_string();
    if cfg!(debug_assertions) {
        let place = place_of(marker);
        assert!(text.contains("`same`: the value promised at "), "{text}");
        assert!(text.contains(&place), "the error does not name {place}: {text}");
        assert!(text.contains(want), "the error does not say `{want}`: {text}");
    } else {
        assert!(text.contains(release), "the error does not say `{release}`: {text}");
    }
}

/// A loop bound fetched from the neighbour: process 0 loops twice, process 1 once.
#[bsp::program(procs = 2)]
fn loop_bound_from_a_get(ctx: &mut Ctx) {
    let counts = ctx.register([ctx.pid() + 1]);
    let mut n = 0;
    bsp::superstep!(ctx, {
        ctx.get((ctx.pid() + 1) % ctx.nprocs(), &counts, 0, &mut n);
    });
    for _ in 0..n {
        ctx.sync();
    }
    ctx.sync();
}

#[test]
fn a_loop_bound_from_a_get_fails_at_the_sync_of_the_extra_iteration() {
    let error = loop_bound_from_a_get().unwrap_err();
    assert_fails_at(error, "for _ in 0..n {", "process 0 has 1, process 1 made no such promise", SYNC_COUNTS);
}

/// A loop over the number of messages received, with a collective in its body: process 0
/// received two messages, process 1 none.
#[bsp::program(procs = 2)]
fn loop_over_the_queue_size(ctx: &mut Ctx) {
    ctx.send_bytes(0, &[], &[1]);
    ctx.sync();
    let (messages, _) = ctx.qsize();
    for _ in 0..messages {
        let _sum = ctx.allreduce_one(1u32, bsp::ops::sum);
    }
    ctx.sync();
}

#[test]
fn a_loop_over_the_queue_size_fails_at_the_collective_some_processes_skip() {
    let error = loop_over_the_queue_size().unwrap_err();
    let release = "process 0 called `allreduce` on `u32`, process 1 called no collective";
    assert_fails_at(error, "for _ in 0..messages {", "process 0 has 1, process 1 made no such promise", release);
}

/// A `while let` over the received messages, syncing once per message.
#[bsp::program(procs = 2)]
fn while_let_over_messages(ctx: &mut Ctx) {
    ctx.send_bytes(0, &[], &[1, 2, 3]);
    ctx.sync();
    let mut buf = [0u8; 4];
    while let Some(_len) = ctx.move_bytes(&mut buf) {
        ctx.sync();
    }
    ctx.sync();
}

#[test]
fn a_while_let_over_messages_fails_at_the_first_sync_of_the_loop() {
    let error = while_let_over_messages().unwrap_err();
    assert_fails_at(error, "while let Some(_len)", "process 0 has 1, process 1 made no such promise", SYNC_COUNTS);
}

/// An `if` on the number of messages received whose branches sync differently: process 1
/// received two, process 0 none.
#[bsp::program(procs = 2)]
fn branches_on_the_queue_size(ctx: &mut Ctx) {
    ctx.send_bytes(1, &[], &[1]);
    ctx.sync();
    if ctx.qsize().0 > 0 {
        ctx.sync();
        ctx.sync();
    } else {
        ctx.sync();
    }
    ctx.sync();
}

#[test]
fn branches_on_the_queue_size_fail_at_their_first_sync() {
    let error = branches_on_the_queue_size().unwrap_err();
    assert_fails_at(error, "if ctx.qsize().0 > 0 {", "process 0 has 0, process 1 has 1", SYNC_COUNTS);
}

/// A `let ... else` on a received message: the process without one returns, the other syncs.
#[bsp::program(procs = 2)]
fn let_else_on_a_message(ctx: &mut Ctx) {
    ctx.send_bytes(0, &[], &[1]);
    ctx.sync();
    let mut buf = [0u8; 4];
    let Some(_len) = ctx.move_bytes(&mut buf) else {
        return;
    };
    ctx.sync();
}

#[test]
fn a_let_else_on_a_message_fails_when_the_others_sync() {
    let text = let_else_on_a_message().unwrap_err().to_string();
    assert!(text.contains("process 1 returned from the SPMD function while process 0 called `sync`"), "{text}");
}

/// A loop bound counted by an iterator chain over the pid (`filter` might make it the same
/// everywhere, so the macro leaves it to the run): process 1 counts one, process 0 none.
#[bsp::program(procs = 2)]
fn loop_bound_from_an_iterator_chain(ctx: &mut Ctx) {
    let counted = (0..ctx.pid()).filter(|q| q % 2 == 0).count();
    for _ in 0..counted {
        ctx.sync();
    }
    ctx.sync();
}

#[test]
fn a_loop_bound_from_an_iterator_chain_fails_at_the_sync_of_the_extra_iteration() {
    let error = loop_bound_from_an_iterator_chain().unwrap_err();
    let want = "process 0 made no such promise, process 1 has 1";
    assert_fails_at(error, "for _ in 0..counted {", want, SYNC_COUNTS);
}

/// A `?` on a result that is an error on process 0 only: process 0 returns, process 1 syncs.
/// (Whether a value is `Ok` may be the same everywhere: left to the run, whose end check finds
/// the process that returned.)
#[bsp::program(procs = 2)]
fn question_mark_on_some_processes(ctx: &mut Ctx) -> Result<u32, String> {
    let parsed: Result<u32, String> = if ctx.pid() == 0 { Err("no number".to_owned()) } else { Ok(1) };
    let v = parsed?;
    ctx.sync();
    Ok(v)
}

#[test]
fn a_question_mark_on_some_processes_fails_when_the_others_sync() {
    let text = question_mark_on_some_processes().unwrap_err().to_string();
    assert!(text.contains("process 0 returned from the SPMD function while process 1 called `sync`"), "{text}");
}

/// A helper that syncs, marked `#[bsp::superstep_fn]`, called by process 0 only.
#[bsp::superstep_fn]
fn exchange_with_the_right(ctx: &mut Ctx, x: &bsp::Reg<u64>) -> u64 {
    let mut right = 0;
    bsp::superstep!(ctx, {
        ctx.get((ctx.pid() + 1) % ctx.nprocs(), x, 0, &mut right);
    });
    right
}

#[bsp::program(procs = 2)]
fn helper_on_one_process(ctx: &mut Ctx) {
    let x = ctx.register([ctx.pid() as u64]);
    if ctx.pid() == 0 {
        exchange_with_the_right(ctx, &x);
    }
    ctx.sync();
}

#[test]
fn a_helper_called_on_some_processes_fails_at_its_first_sync() {
    let error = helper_on_one_process().unwrap_err();
    let want = "process 0 has 1, process 1 made no such promise";
    assert_fails_at(error, "fn exchange_with_the_right(", want, SYNC_COUNTS);
}
