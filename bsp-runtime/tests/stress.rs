//! Stress: thousands of supersteps on many more processes than cores, checking every value.
//!
//! Each superstep is one of a few kinds, chosen from the superstep number by a hash that every
//! process computes alike (so the collective structure matches): an empty sync, a put to the right
//! neighbour, gets and hpgets from two processes, messages to two processes (read back in the next
//! superstep in the exact D10 order, sometimes only in part), hpputs into a per-source slot, or a
//! registration swap (pop one, push its successor). Every process checks what it received in
//! every superstep.
//!
//! On a 2-core machine, p = 16 and p = 64 run the oversubscribed (central, parking) barrier and
//! p = 2 the dissemination one. Each run is watched by a timeout, so a hang fails the test instead
//! of stalling it; elapsed times are printed (`--nocapture`) but not asserted.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use bsp_runtime::Ctx;

/// A run that has not finished after this long hangs.
const TIMEOUT: Duration = Duration::from_secs(120);

/// Runs `f` (an SPMD run) on its own thread; fails if it errs or does not finish in time.
fn watched<R: Send + 'static>(name: &str, f: impl FnOnce() -> Result<R, bsp_runtime::Error> + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    let start = Instant::now();
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            let _ = tx.send(f());
        })
        .expect("spawn the watched run");
    match rx.recv_timeout(TIMEOUT) {
        Ok(Ok(r)) => {
            println!("{name}: {:.2?}", start.elapsed());
            r
        }
        Ok(Err(e)) => panic!("{name}: the run failed: {e}"),
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{name}: no result after {TIMEOUT:?}; the runtime hangs"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{name}: the launcher panicked"),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Empty,
    PutRight,
    Gets,
    Messages,
    HpPuts,
    SwapRegistration,
}

fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The kind of superstep `step` (the same on every process).
fn kind(step: usize) -> Kind {
    match mix(step as u64) % 20 {
        0..=5 => Kind::Empty,
        6..=9 => Kind::PutRight,
        10..=12 => Kind::Gets,
        13..=16 => Kind::Messages,
        17..=18 => Kind::HpPuts,
        _ => Kind::SwapRegistration,
    }
}

/// A value that names its superstep and process.
fn val(step: usize, pid: usize) -> u64 {
    ((step as u64) << 32) | pid as u64
}

/// The second destination of the messages of superstep `step` from `pid`.
fn far(step: usize, pid: usize, p: usize) -> usize {
    (pid + 1 + step % p) % p
}

/// The messages process `me` must find after the messages superstep `step`, in D10 order
/// (ascending source, then send order): (tag, payload).
fn expected_messages(step: usize, me: usize, p: usize) -> Vec<(u64, [u64; 2])> {
    let mut out = Vec::new();
    for q in 0..p {
        for (i, to) in [(q + 1) % p, far(step, q, p)].into_iter().enumerate() {
            if to == me {
                out.push((step as u64, [val(step, q), i as u64]));
            }
        }
    }
    out
}

/// The mixed program: `steps` checked supersteps on `p` processes; returns the number of checks
/// each process made.
fn mixed(p: usize, steps: usize) -> Result<Vec<u64>, bsp_runtime::Error> {
    bsp_runtime::run(p, move |ctx: &mut Ctx| {
        let (me, p) = (ctx.pid(), ctx.nprocs());
        let (left, right) = ((me + p - 1) % p, (me + 1) % p);
        // x[0..2]: the put from the left neighbour; x[2]: this process's value, read by gets.
        let mut x = ctx.push_reg(vec![0u64; 3]);
        // slots[q]: the hpput from process q.
        let slots = ctx.push_reg(vec![0u64; p]);
        // A registration that is swapped for a new one now and then; its length varies.
        let mut swap = ctx.push_reg(vec![0u64; 1 + me % 3]);
        let mut swap_seed = 0;
        ctx.set_tagsize(8);
        ctx.sync();
        let mut checks = 0u64;
        let mut check = |ok: bool, what: &dyn Fn() -> String| {
            assert!(ok, "process {me}: {}", what());
            checks += 1;
        };
        let mut hp_src = [0u64; 1];
        let mut prev = Kind::Empty;
        for step in 0..steps {
            // The queue holds exactly what the previous superstep sent to this process.
            let want = if prev == Kind::Messages { expected_messages(step - 1, me, p) } else { Vec::new() };
            check(ctx.qsize() == (want.len(), 16 * want.len()), &|| {
                format!("superstep {step}: queue {:?}, expected {} messages", ctx.qsize(), want.len())
            });
            // Read all messages, or (every third superstep) only the first: the rest must be
            // discarded by the next sync.
            let read = if step % 3 == 0 { want.len().min(1) } else { want.len() };
            for w in &want[..read] {
                let got = ctx.move_message::<u64, u64>();
                check(got.as_ref().is_some_and(|(t, pl)| *t == w.0 && pl[..] == w.1), &|| {
                    format!("superstep {step}: message {got:?}, expected {w:?}")
                });
            }
            let k = kind(step);
            match k {
                Kind::Empty => ctx.sync(),
                Kind::PutRight => {
                    ctx.put(right, &[val(step, me), 7][..], &x, 0);
                    ctx.sync();
                    let got = &x.local(ctx)[..2];
                    check(got == [val(step, left), 7], &|| format!("superstep {step}: put from the left: {got:?}"));
                }
                Kind::Gets => {
                    x.local_mut(ctx)[2] = val(step, me);
                    let other = far(step, me, p);
                    let mut got = [0u64; 2];
                    ctx.superstep(|s| {
                        let [a, b] = &mut got;
                        s.get(left, &x, 2, a);
                        s.hpget(other, &x, 2, b);
                    });
                    check(got == [val(step, left), val(step, other)], &|| {
                        format!("superstep {step}: gets from {left} and {other}: {got:?}")
                    });
                }
                Kind::Messages => {
                    for (i, to) in [right, far(step, me, p)].into_iter().enumerate() {
                        ctx.send(to, &(step as u64), &[val(step, me), i as u64][..]);
                    }
                    ctx.sync();
                }
                Kind::HpPuts => {
                    hp_src[0] = val(step, me);
                    let to = far(step, me, p);
                    ctx.superstep(|s| s.hpput(to, &hp_src, &slots, me));
                    let from = (0..p).find(|&q| far(step, q, p) == me);
                    if let Some(q) = from {
                        let got = slots.local(ctx)[q];
                        check(got == val(step, q), &|| format!("superstep {step}: hpput from {q}: {got:#x}"));
                    }
                }
                Kind::SwapRegistration => {
                    // Lengths differ per process: 1 + (pid + seed) % 3, the seed being the
                    // superstep of the push (0 for the first registration).
                    let next = ctx.push_reg(vec![val(step, me); 1 + (me + step) % 3]);
                    ctx.pop_reg(&swap);
                    // D6: still usable until the sync; fill the left neighbour's whole part.
                    let len_left = 1 + (left + swap_seed) % 3;
                    ctx.put(left, &vec![val(step, me); len_left][..], &swap, 0);
                    ctx.sync();
                    let old = std::mem::replace(&mut swap, next).into_vec(ctx);
                    let len = 1 + (me + swap_seed) % 3;
                    check(old.len() == len && old.iter().all(|&v| v == val(step, right)), &|| {
                        format!("superstep {step}: the popped registration holds {old:?}")
                    });
                    swap_seed = step;
                }
            }
            prev = k;
        }
        checks
    })
}

fn check_mixed(name: &str, p: usize, steps: usize) {
    let checks = watched(name, move || mixed(p, steps));
    assert_eq!(checks.len(), p);
    assert!(checks.iter().all(|&c| c >= steps as u64), "{name}: too few checks: {checks:?}");
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
    let sums = watched("p = 16, 300 supersteps with a late process", || {
        bsp_runtime::run(16, |ctx| {
            let (me, p) = (ctx.pid(), ctx.nprocs());
            let x = ctx.push_reg(vec![0u64]);
            ctx.sync();
            let mut sum = 0;
            for step in 0..300 {
                if step % p == me {
                    std::thread::sleep(Duration::from_micros(200));
                }
                ctx.put((me + 1) % p, &val(step, me), &x, 0);
                ctx.sync();
                let got = x.local(ctx)[0];
                assert_eq!(got, val(step, (me + p - 1) % p), "process {me}, superstep {step}");
                sum += got & 0xffff_ffff;
            }
            sum
        })
    });
    for (me, sum) in sums.iter().enumerate() {
        assert_eq!(*sum, 300 * ((me + 15) % 16) as u64);
    }
}

/// Many short runs back to back: launch, registration and teardown paths.
#[test]
fn many_short_runs() {
    watched("200 runs of p = 8, 5 supersteps", || {
        for run in 0..200 {
            let got = bsp_runtime::run(8, move |ctx| {
                let (me, p) = (ctx.pid(), ctx.nprocs());
                let x = ctx.push_reg(vec![run as u64; 2]);
                ctx.sync();
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
