//! Collectives on the threads engine: the SPMD checks of `collectives/checks.rs` at p = 1..8,
//! and the misuse each collective must reject, with its message.

mod common;

#[path = "collectives/checks.rs"]
mod checks;

use bsp_runtime::ops;
use common::{assert_mentions, run_err, run_ok};

/// Runs one check at p = 1..8 and fails with every process's complaint.
fn at_every_p(name: &str, check: checks::Check) {
    for p in 1..=8 {
        let outcomes = run_ok(p, check);
        let failed: Vec<String> = outcomes.into_iter().filter_map(Result::err).collect();
        assert!(failed.is_empty(), "{name} at p = {p}:\n  {}", failed.join("\n  "));
    }
}

macro_rules! spmd_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                at_every_p(stringify!($name), checks::$name);
            }
        )*
        /// Every check of `checks.rs` has a test here (so a new check is not forgotten).
        #[test]
        fn every_check_is_run() {
            let here = [$(stringify!($name)),*];
            for (name, _) in checks::ALL {
                assert!(here.contains(name), "check {name} has no test");
            }
            assert_eq!(here.len(), checks::ALL.len());
        }
    };
}

spmd_tests!(
    broadcast_from_every_root,
    broadcast_large_from_every_root,
    reductions_fold_in_pid_order,
    allreduce_is_bit_identical,
    scan_is_inclusive_prefix,
    gathers_keep_sizes,
    scatter_from_every_root,
    alltoall_transposes,
    element_types,
    collective_ends_the_superstep,
);

/// The same program gives the same bits in every run (nothing depends on thread timing).
#[test]
fn results_are_the_same_in_every_run() {
    let program = |ctx: &mut bsp_runtime::Ctx| {
        let x: Vec<f32> = (0..50).map(|i| ((ctx.pid() * 50 + i) as f32).sin() * 1e3).collect();
        let s = ctx.allreduce(&x, ops::sum);
        let prefix = ctx.scan(&x, ops::sum);
        s.iter().chain(&prefix).map(|v| v.to_bits()).collect::<Vec<u32>>()
    };
    let first = run_ok(7, program);
    for _ in 0..5 {
        assert_eq!(run_ok(7, program), first);
    }
}

#[test]
fn root_out_of_range_is_named() {
    let err = run_err(3, |ctx| ctx.broadcast(5, &[1u8]));
    assert_mentions(&err, &["process", "broadcast: root 5 is out of range (nprocs = 3)"]);
    let err = run_err(2, |ctx| ctx.reduce(2, &[1u8], ops::sum));
    assert_mentions(&err, &["reduce: root 2 is out of range (nprocs = 2)"]);
    let err = run_err(2, |ctx| ctx.gather(9, &[1u8]));
    assert_mentions(&err, &["gather: root 9"]);
    let err = run_err(2, |ctx| ctx.broadcast_large(2, &[1u8]));
    assert_mentions(&err, &["broadcast_large: root 2"]);
    let err = run_err(2, |ctx| ctx.scatter(3, &[[1u8], [2]]));
    assert_mentions(&err, &["scatter: root 3"]);
}

#[test]
fn scatter_needs_one_part_per_process() {
    let err = run_err(3, |ctx| {
        let parts = if ctx.pid() == 1 { vec![vec![1u8]; 2] } else { Vec::new() };
        ctx.scatter(1, &parts)
    });
    assert_mentions(&err, &["process 1", "scatter", "passed 2 parts (nprocs = 3)"]);
}

#[test]
fn alltoallv_needs_one_part_per_process() {
    let err = run_err(2, |ctx| ctx.alltoallv(&[[1u8]]));
    assert_mentions(&err, &["alltoallv", "1 parts (nprocs = 2)"]);
}

#[test]
fn alltoall_needs_a_multiple_of_p() {
    let err = run_err(3, |ctx| ctx.alltoall(&[1u8; 4]));
    assert_mentions(&err, &["alltoall", "length 4 is not a multiple of nprocs = 3", "alltoallv"]);
}

#[test]
fn different_lengths_are_found_by_every_process() {
    for p in [2, 3, 5] {
        let err = run_err(p, |ctx| {
            let n = if ctx.pid() == 1 { 3 } else { 2 };
            ctx.allreduce(&vec![1.0f64; n], ops::sum)
        });
        let mut lens = vec![2; p];
        lens[1] = 3;
        assert_mentions(
            &err,
            &["`allreduce` at the sync ending superstep 0", "the same length", &format!("per process: {lens:?}")],
        );
    }
    let err = run_err(2, |ctx| ctx.reduce(0, &vec![1u32; ctx.pid()], ops::sum));
    assert_mentions(&err, &["`reduce`", "per process: [0, 1]"]);
    let err = run_err(2, |ctx| ctx.scan(&vec![1u32; ctx.pid()], ops::sum));
    assert_mentions(&err, &["`scan`", "per process: [0, 1]"]);
    let err = run_err(2, |ctx| ctx.alltoall(&vec![1u32; 2 * (ctx.pid() + 1)]));
    assert_mentions(&err, &["`alltoall`", "per process: [2, 4]"]);
}

#[test]
fn different_collectives_are_a_mismatch() {
    let err = run_err(3, |ctx| {
        if ctx.pid() == 2 {
            ctx.allreduce(&[1u64], ops::sum);
        } else {
            ctx.broadcast(0, &[1u64]);
        }
    });
    assert_mentions(
        &err,
        &[
            "collective mismatch at the sync ending superstep 0",
            "process 0 called `broadcast` with root 0 on `u64`",
            "process 2 called `allreduce` on `u64`",
        ],
    );
}

#[test]
fn different_roots_or_types_are_a_mismatch() {
    let err = run_err(2, |ctx| ctx.broadcast(ctx.pid(), &[1u8]));
    assert_mentions(&err, &["process 0 called `broadcast` with root 0", "process 1 called `broadcast` with root 1"]);
    let err = run_err(2, |ctx| {
        if ctx.pid() == 0 {
            ctx.allgather(&[1u32]);
        } else {
            ctx.allgather(&[1i32]);
        }
    });
    assert_mentions(&err, &["`allgather` on `u32`", "`allgather` on `i32`"]);
}

#[test]
fn a_plain_sync_beside_a_collective_is_a_mismatch() {
    let err = run_err(2, |ctx| {
        if ctx.pid() == 0 {
            ctx.allreduce_one(1u8, ops::sum);
        } else {
            ctx.sync();
        }
        ctx.sync();
    });
    assert_mentions(&err, &["collective mismatch", "process 1 called no collective"]);
}
