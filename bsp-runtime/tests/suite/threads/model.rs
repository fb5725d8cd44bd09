//! Model-based property test: random BSP programs run on the runtime and on a sequential
//! reference model of the semantics (docs/semantics.md §0–§4 and §8), and every observation must
//! agree. Programs mix BSPlib DRMA and BSMP with combining puts (D18) and collectives (D19).
//!
//! The model and the generator are in `model/` (its `mod.rs` says which file holds what).
//!
//! `PROPTEST_CASES` sets the number of programs (256 by default); `BSP_MODEL_MAX_P` and
//! `BSP_MODEL_MAX_STEPS` the largest programs (8 processes, 6 supersteps). A failure prints the
//! smallest failing program found, the first differing observation, and the seed that regenerates
//! the unshrunk program (`generator::generate(seed, p, steps)`).
//!
//! The same property also runs as a check of the suite's table (`property.rs`: seeded programs
//! inside one run, without shrinking), on threads at every p of the suite and in `mpi.rs` on
//! MPI ranks.

mod coverage;
mod shrink;

use std::time::Duration;

use proptest::test_runner::{Config, TestCaseError, TestRunner};

use crate::model::program::{self, Event, Program};
use crate::model::{generator, interp, reference};
use crate::runner::try_within;
use coverage::Coverage;
use shrink::Programs;

/// A run longer than this is a hang (a generated program runs in milliseconds).
const HANG: Duration = Duration::from_secs(60);

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256);
    Config { cases, failure_persistence: None, max_shrink_time: 60_000, ..Config::default() }
}

/// Runs `prog` on the runtime and on the model; describes the first difference.
fn check(prog: &Program) -> Result<(), String> {
    let want = reference::run(prog);
    let got = run_with_timeout(prog)?;
    for (pid, (want, got)) in want.iter().zip(&got).enumerate() {
        if let Some(i) = (0..want.len().max(got.len())).find(|&i| want.get(i) != got.get(i)) {
            let context: Vec<String> =
                want[i.saturating_sub(4_usize)..i].iter().map(|e| format!("      {e:?}")).collect();
            return Err(format!(
                "process {pid}, observation {i}:\n    model:   {:?}\n    runtime: {:?}\n    after (both):\n{}",
                want.get(i),
                got.get(i),
                context.join("\n")
            ));
        }
    }
    Ok(())
}

fn run_with_timeout(prog: &Program) -> Result<Vec<Vec<Event>>, String> {
    let owned = prog.clone();
    match try_within(HANG, "a generated program", move || interp::run(&owned))? {
        Ok(logs) => Ok(logs),
        Err(e) => Err(format!("the runtime failed: {e}")),
    }
}

fn property(programs: Programs) {
    let mut runner = TestRunner::new(config());
    let result = runner.run(&programs, |prog| check(&prog).map_err(TestCaseError::fail));
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// `BSP_MODEL_MAX_P` / `BSP_MODEL_MAX_STEPS` widen the search (defaults 8 and 6).
#[test]
fn random_programs_match_the_model() {
    let env = |name: &str, default: usize| std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    property(Programs { max_p: env("BSP_MODEL_MAX_P", 8), max_steps: env("BSP_MODEL_MAX_STEPS", 6) });
}

/// Regression (runtime bug fixed in d38a387): D10 says unread messages are discarded at the next
/// sync. `sync` cleared the receive queue only inside `exchange`, which it skips when no process
/// queued any communication, so the messages of superstep s stayed readable in s + 2 (with their
/// tags read at the tag size of the wrong superstep).
#[test]
fn unread_messages_are_discarded_by_a_sync_without_communication() {
    let got = bsp_runtime::run(2, |ctx| {
        ctx.send_bytes(1 - ctx.pid(), &[], &[1, 2, 3]);
        ctx.sync();
        let before = ctx.qsize();
        ctx.sync(); // nobody communicates in this superstep
        (before, ctx.qsize(), ctx.move_bytes(&mut []))
    })
    .unwrap();
    assert_eq!(got, vec![((1, 3), (0, 0), None); 2]);
}

/// The same bug as the property test first met it: a quiet superstep after sends, with the tag
/// size changing in between (the stale messages' tags no longer match the size in the queue).
#[test]
fn regression_quiet_superstep_after_sends() {
    use program::{Op, ProcStep, RegInfo, RegOp, Step};
    let plain =
        |tag_calls: Vec<usize>, ops: Vec<Op>| ProcStep { tag_calls, superstep: false, roles: vec![], pre: vec![], ops };
    let prog = Program {
        seed: 0,
        p: 2,
        regs: vec![RegInfo { init: vec![vec![7], vec![8]] }],
        steps: vec![
            Step {
                reg_ops: vec![RegOp::Push(0)],
                procs: vec![plain(vec![2], vec![]), plain(vec![2], vec![])],
                coll: None,
                coll_from: None,
            },
            Step {
                reg_ops: vec![],
                procs: vec![
                    plain(vec![0], vec![Op::Send { pid: 1, tag: vec![1, 2], payload: vec![5] }]),
                    plain(vec![0], vec![Op::Send { pid: 1, tag: vec![3, 4], payload: vec![] }]),
                ],
                coll: None,
                coll_from: None,
            },
            Step {
                reg_ops: vec![],
                procs: vec![plain(vec![], vec![]), plain(vec![], vec![Op::Qsize])],
                coll: None,
                coll_from: None,
            },
            Step {
                reg_ops: vec![],
                procs: vec![
                    plain(vec![], vec![Op::Qsize]),
                    plain(vec![], vec![Op::Qsize, Op::GetTag { len: 0 }, Op::HpMove]),
                ],
                coll: None,
                coll_from: None,
            },
        ],
    };
    check(&prog).unwrap_or_else(|e| panic!("{e}\n{prog}"));
}

/// Every generated program is valid for the model (which asserts the generator's invariants),
/// and the generator produces every operation and the interactions the rules are about.
#[test]
fn generator_covers_the_semantics() {
    let mut cov = Coverage::default();
    for seed in 0..600u64 {
        let p = 1 + (seed % 8) as usize;
        let prog = generator::generate(seed, p, 1 + (seed % 6) as usize);
        let logs = reference::run(&prog);
        assert_eq!(logs.len(), p);
        cov.count(&prog);
    }
    for (what, n) in &cov.0 {
        println!("{n:6}  {what}");
    }
    let expected = [
        "register",
        "unregister",
        "superstep without communication",
        "mode: superstep",
        "mode: plain",
        "set_tagsize several times",
        "role: get destination",
        "role: hpput source",
        "write before communication",
        "write after communication",
        "put of length 0",
        "put from a buffer",
        "put from registered memory",
        "hpput from a buffer",
        "hpput from registered memory",
        "put to self",
        "get of length 0",
        "get into a buffer",
        "get into registered memory",
        "hpget into a buffer",
        "hpget into registered memory",
        "get within one registration of self",
        "send",
        "send with empty payload",
        "qsize",
        "get_tag",
        "move",
        "hpmove",
        "puts overlap (same source)",
        "puts overlap (two sources)",
        "put meets a get destination (D1)",
        "put meets a get source",
        "put_combine (add)",
        "put_combine (min)",
        "put_combine (max)",
        "put_combine (affine)",
        "put_combine from registered memory",
        "put_combine to self",
        "put_combines overlap (same source)",
        "put_combines overlap (two sources)",
        "put_combine meets a plain put",
        "put_combine meets a get destination (D1)",
        "broadcast",
        "broadcast_one",
        "broadcast_large",
        "reduce",
        "allreduce",
        "allreduce_one",
        "scan",
        "scan_one",
        "gather",
        "allgather",
        "scatter",
        "alltoall",
        "alltoallv",
        "collective with a non-commutative operator",
        "collective with empty data",
        "collective completes puts",
        "collective completes sends",
        "gather_into",
        "allgather_into",
        "alltoallv_into",
        "collective on a registration",
        "collective on a registration that a put changes at its sync",
    ];
    for what in expected {
        assert!(cov.get(what) >= 5, "the generator produced `{what}` only {} times in 600 programs", cov.get(what));
    }
}
