//! `Ctx::same` as engine-neutral checks: promises kept pass (beside a collective and messages of
//! the same superstep), broken ones fail the run at the next sync with the place and every
//! process's value. The runtime checks promises in debug builds only, and so do these tests: a
//! release build of the suite checks instead that broken promises go unchecked (the value comes
//! back and the run goes on).

use bsp_runtime::{Ctx, ops};

use super::check::{Complaints, Outcome, checks};
#[cfg(debug_assertions)]
use super::check::{Probe, cases};

/// Promises of a count, a float and a pair, beside messages and a collective whose promises
/// travel on the channel the collective reads after its sync.
pub fn kept_promises_pass_beside_collectives_and_messages(ctx: &mut Ctx) -> Outcome {
    let p = ctx.nprocs();
    let rounds = ctx.same(p as u64);
    let scale = ctx.same(0.5f64);
    ctx.send_bytes(0, &[], &[ctx.pid() as u8]);
    let total = ctx.allreduce_one(ctx.pid() as u64, ops::sum);
    let mut steps = 0;
    for _ in 0..rounds {
        ctx.same([steps, total]);
        ctx.sync();
        steps += 1;
    }
    let mut c = Complaints::default();
    c.expect("(supersteps, total, scale)", (steps, total, scale), (p as u64, (p * (p - 1) / 2) as u64, 0.5));
    c.outcome()
}

/// Release builds check nothing: a broken promise returns its value, a promise made on some
/// processes only is ignored, and every process goes on through the syncs.
#[cfg(not(debug_assertions))]
pub fn broken_promises_go_unchecked_in_release_builds(ctx: &mut Ctx) -> Outcome {
    let pid = ctx.pid();
    let promised = ctx.same(pid * 10);
    if pid == 1 {
        ctx.same(7u8);
    }
    let start = ctx.step();
    ctx.sync();
    ctx.sync();
    let mut c = Complaints::default();
    c.expect("(value returned, supersteps passed)", (promised, ctx.step() - start), (pid * 10, 2));
    c.outcome()
}

#[cfg(debug_assertions)]
checks! {
    kept_promises_pass_beside_collectives_and_messages,
}

#[cfg(not(debug_assertions))]
checks! {
    kept_promises_pass_beside_collectives_and_messages,
    broken_promises_go_unchecked_in_release_builds,
}

// ---------------------------------------------------------------------------------------------
// Failure cases
// ---------------------------------------------------------------------------------------------
//
// Process 0 compares the promises right after the sync that ends their superstep and fails the
// run there; the others learn it at their next sync, so nobody passes that one. Debug builds
// only: a release build has no such failure (`broken_promises_go_unchecked_in_release_builds`).

/// Each process promises its pid times 10.
#[cfg(debug_assertions)]
fn different_values_fail_at_the_next_sync(ctx: &mut Ctx, probe: &Probe) {
    ctx.same(ctx.pid() * 10);
    ctx.sync();
    ctx.sync();
    probe.reached("past the sync after a broken promise");
}

/// Only process 1 promises a value.
#[cfg(debug_assertions)]
fn a_promise_on_some_processes_only_fails(ctx: &mut Ctx, probe: &Probe) {
    if ctx.pid() == 1 {
        ctx.same(7u8);
    }
    ctx.sync();
    ctx.sync();
    probe.reached("past the sync after a promise of one process");
}

/// A broken promise in the superstep that a collective ends.
#[cfg(debug_assertions)]
fn a_broken_promise_inside_a_collective_superstep_fails_there(ctx: &mut Ctx, probe: &Probe) {
    ctx.same(ctx.pid() as i64 - 1);
    ctx.broadcast_one(0, 5u32);
    ctx.sync();
    probe.reached("past the sync after a collective with a broken promise");
}

#[cfg(debug_assertions)]
cases! {
    different_values_fail_at_the_next_sync: [3] => |f| {
        f.failed_on(0)?;
        f.mentions(&[
            "`same`: the value promised at",
            "same.rs:",
            "is not the same on every process (checked at the sync ending superstep 0): process 0 has 0, \
             process 1 has 10, process 2 has 20",
        ])
    },
    a_promise_on_some_processes_only_fails: [2] => |f| {
        f.failed_on(0)?;
        f.mentions(&["(checked at the sync ending superstep 0): process 0 made no such promise, process 1 has 7"])
    },
    a_broken_promise_inside_a_collective_superstep_fails_there: [2] => |f| {
        f.failed_on(0)?;
        f.mentions(&["process 0 has -1, process 1 has 0"])
    },
}

/// No failure cases in a release build (the MPI binary reads this table; the threads binary has
/// no test to run from it).
#[cfg(not(debug_assertions))]
#[allow(dead_code, reason = "read by the MPI binary (`mpi.rs`) only")]
pub const CASES: &[super::check::Case] = &[];
