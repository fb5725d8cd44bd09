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

/// The destinations process `q` puts to in superstep `s` of [`fan_outs`]: 0 to 19 of them, fewer
/// or more than fit in an outbox's first cache line; distinct and other than `q` where p is
/// over 1000, while at smaller p some come twice or are `q` itself (each put of a repeat writes
/// the same words again).
fn fan_out(q: usize, s: usize, p: usize) -> impl Iterator<Item = usize> {
    let (width, stride) = ((q * 7 + s * 3) % 20, 1 + (s % 5) * 13);
    (0..width).map(move |k| (q + 1 + k * stride) % p)
}

/// Beyond 64 processes (senders note themselves, outboxes find their queues by pid, and a put
/// of a word travels in its record): every process puts words of its own to a varying set of
/// destinations (one word, two consecutive ones, or one put of two words; some supersteps with
/// a combining put and a message among them), and every receiver finds exactly what was sent
/// to it, superstep after superstep (queues are reused with different destinations each time).
fn fan_outs(ctx: &mut bsp_runtime::Ctx, steps: usize) -> Result<(), String> {
    let (me, p) = (ctx.pid(), ctx.nprocs());
    let add = ctx.combiner(|a: u64, b: u64| a + b);
    ctx.set_tagsize(8);
    // Words 2q and 2q + 1: what process q sent here.
    let mut x = ctx.register(vec![0u64; 2 * p]);
    let word = |q: usize, s: usize, d: usize, i: usize| ((q * 1_000_003 + d) as u64) << 16 | (s as u64) << 1 | i as u64;
    // How many words q sends to each destination in superstep s, and how.
    let words = |q: usize, s: usize| if (q + s) % 3 == 0 { 1 } else { 2 };
    // The first failure; every process goes on to the end, so that all make the same syncs.
    let mut failure = None;
    let mut fail = |why: String| {
        failure.get_or_insert(why);
    };
    for s in 0..steps {
        x.local_mut(ctx).fill(0);
        for (k, d) in fan_out(me, s, p).enumerate() {
            if k == 0 && s % 4 == 1 {
                ctx.put_combine(d, &word(me, s, d, 0), &x, 2 * me, add);
                ctx.send(d, &(s as u64), &[me as u64]);
                if words(me, s) == 2 {
                    ctx.put(d, &word(me, s, d, 1), &x, 2 * me + 1);
                }
            } else if words(me, s) == 2 && (me + k) % 2 == 0 {
                ctx.put(d, &[word(me, s, d, 0), word(me, s, d, 1)][..], &x, 2 * me);
            } else {
                ctx.put(d, &word(me, s, d, 0), &x, 2 * me);
                if words(me, s) == 2 {
                    ctx.put(d, &word(me, s, d, 1), &x, 2 * me + 1);
                }
            }
        }
        ctx.sync();
        for (i, &got) in x.local(ctx).iter().enumerate() {
            let q = i / 2;
            let sent = fan_out(q, s, p).any(|d| d == me) && i % 2 < words(q, s);
            let want = if sent { word(q, s, me, i % 2) } else { 0 };
            if got != want {
                fail(format!("process {me}, superstep {s}: word {i} from {q}: {got:#x}, expected {want:#x}"));
            }
        }
        let mut senders = Vec::new();
        while let Some((tag, from)) = ctx.move_message::<u64, u64>() {
            senders.push((tag, from[0] as usize));
        }
        let want: Vec<(u64, usize)> =
            (0..p).filter(|&q| s % 4 == 1 && fan_out(q, s, p).next() == Some(me)).map(|q| (s as u64, q)).collect();
        if senders != want {
            fail(format!("process {me}, superstep {s}: messages {senders:?}, expected {want:?}"));
        }
    }
    failure.map_or(Ok(()), Err)
}

#[test]
fn fan_outs_beyond_64_processes() {
    for p in [80, 1030] {
        let name = format!("p = {p}, fan-outs of 0 to 19 destinations");
        let results = watched(&name.clone(), move || bsp_runtime::run(p, move |ctx| fan_outs(ctx, 24)));
        for r in results {
            r.unwrap_or_else(|why| panic!("{name}: {why}"));
        }
    }
}
