//! Collectives on the threads engine: every check and failure case of `suite/collectives.rs`
//! (`collectives::on_threads::<check>`, `collectives::fails_on_threads::<case>`) and of
//! `suite/teams.rs` (`teams::…`), and below what
//! only a threads run shows in this form: the same bits in every run.

mod common;

#[path = "suite/check.rs"]
mod check;
#[path = "suite/collectives.rs"]
mod collectives;
#[path = "suite/teams.rs"]
mod teams;

use bsp_runtime::ops;
use common::run_ok;

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
