//! `Ctx::same`: promises kept pass (beside a collective and messages of the same superstep),
//! broken ones fail the run at the next sync with the place and every process's value. The
//! checks run in debug builds only, as the tests are built.

use crate::runner::{assert_mentions, run_err, run_ok};
use bsp_runtime::ops;

#[test]
fn kept_promises_pass_beside_collectives_and_messages() {
    let out = run_ok(4, |ctx| {
        let rounds = ctx.same(ctx.nprocs() as u64);
        let scale = ctx.same(0.5f64);
        ctx.send_bytes(0, &[], &[ctx.pid() as u8]);
        // The promises travel on the channel the collective reads after its sync.
        let total = ctx.allreduce_one(ctx.pid() as u64, ops::sum);
        let mut steps = 0;
        for _ in 0..rounds {
            ctx.same([steps, total]);
            ctx.sync();
            steps += 1;
        }
        (steps, total, scale)
    });
    assert_eq!(out, vec![(4, 6, 0.5); 4]);
}

#[test]
fn different_values_fail_at_the_next_sync() {
    let err = run_err(3, |ctx| {
        let n = ctx.same(ctx.pid() * 10);
        ctx.sync();
        n
    });
    assert_mentions(
        &err,
        &[
            "`same`: the value promised at",
            "same.rs:",
            "is not the same on every process (checked at the sync ending superstep 0): process 0 has 0, process 1 has 10, process 2 has 20",
        ],
    );
}

#[test]
fn a_promise_on_some_processes_only_fails() {
    let err = run_err(2, |ctx| {
        if ctx.pid() == 1 {
            ctx.same(7u8);
        }
        ctx.sync();
    });
    assert_mentions(
        &err,
        &["(checked at the sync ending superstep 0): process 0 made no such promise, process 1 has 7"],
    );
}

#[test]
fn a_broken_promise_inside_a_collective_superstep_fails_there() {
    let err = run_err(2, |ctx| {
        ctx.same(ctx.pid() as i64 - 1);
        ctx.broadcast_one(0, 5u32)
    });
    assert_mentions(&err, &["process 0 has -1, process 1 has 0"]);
}
