//! Stress on the threads engine: thousands of supersteps on many more processes than cores,
//! checking every value. The programs are those of `stress.rs`, whose reduced versions are
//! checks of the suite's table (on every engine).
//!
//! On a 2-core machine, p = 16 and p = 64 run the oversubscribed (central, parking) barrier and
//! p = 2 the dissemination one. Each run is watched by a timeout, so a hang fails the test instead
//! of stalling it; elapsed times are printed (`--nocapture`) but not asserted.

use std::time::{Duration, Instant};

use crate::runner::within_for;
use crate::stress::{late_arrivals, mixed, val};

/// A run that has not finished after this long hangs.
const TIMEOUT: Duration = Duration::from_secs(120);

/// Runs `f` (an SPMD run) under the hang guard with [`TIMEOUT`], prints how long it took, and
/// fails if the run failed.
fn watched<R: Send + 'static>(name: &str, f: impl FnOnce() -> Result<R, bsp_runtime::Error> + Send + 'static) -> R {
    let start = Instant::now();
    match within_for(TIMEOUT, name, f) {
        Ok(r) => {
            println!("{name}: {:.2?}", start.elapsed());
            r
        }
        Err(e) => panic!("{name}: the run failed: {e}"),
    }
}

/// The mixed program of `suite/stress.rs` on `p` processes, `steps` supersteps.
fn check_mixed(name: &str, p: usize, steps: usize) {
    let checks = watched(name, move || bsp_runtime::run(p, move |ctx| mixed(ctx, steps)));
    assert_eq!(checks.len(), p);
    for (me, c) in checks.into_iter().enumerate() {
        match c {
            Ok(c) => assert!(c >= steps as u64, "{name}: process {me} made too few checks: {c}"),
            Err(why) => panic!("{name}: {why}"),
        }
    }
}

#[test]
fn mixed_supersteps_on_16_processes() {
    check_mixed("p = 16, 2000 supersteps", 16, 2000);
}

#[test]
fn mixed_supersteps_on_64_processes() {
    check_mixed("p = 64, 800 supersteps", 64, 800);
}

/// The dissemination barrier (no more processes than cores on a 2-core machine).
#[test]
fn mixed_supersteps_on_2_processes() {
    check_mixed("p = 2, 20000 supersteps", 2, 20_000);
}

/// Only the barrier: every sync is empty.
#[test]
fn empty_syncs_on_64_processes() {
    let steps = watched("p = 64, 3000 empty syncs", || {
        bsp_runtime::run(64, |ctx| {
            for _ in 0..3000 {
                ctx.sync();
            }
            ctx.step()
        })
    });
    assert!(steps.iter().all(|&s| s == 3000));
}

/// One process is late in every superstep (a different one each time), so the others give up
/// spinning and park, and must be woken.
#[test]
fn late_arrivals_on_16_processes() {
    let outcomes =
        watched("p = 16, 300 supersteps with a late process", || bsp_runtime::run(16, |ctx| late_arrivals(ctx, 300)));
    for (me, outcome) in outcomes.into_iter().enumerate() {
        if let Err(why) = outcome {
            panic!("process {me}: {why}");
        }
    }
}

/// Many short runs back to back: launch, registration and teardown paths.
#[test]
fn many_short_runs() {
    watched("200 runs of p = 8, 5 supersteps", || {
        for run in 0..200 {
            let got = bsp_runtime::run(8, move |ctx| {
                let (me, p) = (ctx.pid(), ctx.nprocs());
                let x = ctx.register(vec![run as u64; 2]);
                for step in 0..4 {
                    ctx.put((me + step + 1) % p, &val(step, me), &x, 1);
                    ctx.sync();
                }
                x.local(ctx).to_vec()
            })?;
            for (me, x) in got.iter().enumerate() {
                assert_eq!(x[..], [run as u64, val(3, (me + 8 - 4) % 8)], "run {run}, process {me}");
            }
        }
        Ok(())
    });
}
