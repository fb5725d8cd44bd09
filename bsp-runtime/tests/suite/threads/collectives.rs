//! Collectives: what only a threads run shows in this form, the same bits in every run (the
//! rules are the checks and failure cases of `collectives.rs` and `teams.rs`).

use crate::runner::run_ok;
use bsp_runtime::ops;

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
