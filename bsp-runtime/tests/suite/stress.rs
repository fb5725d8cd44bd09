//! Stress as engine-neutral checks, reduced to a few seconds: mixed supersteps of every kind,
//! checking every value; empty syncs; a late process in every superstep. `stress.rs` runs the
//! full-size versions on threads (thousands of supersteps, many more processes than cores).
//!
//! Each superstep of the mixed program is one of a few kinds, chosen from the superstep number
//! by a hash that every process computes alike (so the collective structure matches): an empty
//! sync, a put to the right neighbour, gets and hpgets from two processes, messages to two
//! processes (read back in the next superstep in the exact D10 order, sometimes only in part),
//! hpputs into a per-source slot, or a registration swap (pop one, push its successor). Every
//! process checks what it received in every superstep.

use std::time::Duration;

use bsp_runtime::Ctx;

use super::check::{Outcome, Procs, checks, ensure, expect};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Empty,
    PutRight,
    Gets,
    Messages,
    HpPuts,
    SwapRegistration,
}

pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The kind of superstep `step` (the same on every process).
pub fn kind(step: usize) -> Kind {
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
pub fn val(step: usize, pid: usize) -> u64 {
    ((step as u64) << 32) | pid as u64
}

/// The second destination of the messages of superstep `step` from `pid`.
pub fn far(step: usize, pid: usize, p: usize) -> usize {
    (pid + 1 + step % p) % p
}

/// The messages process `me` must find after the messages superstep `step`, in D10 order
/// (ascending source, then send order): (tag, payload).
pub fn expected_messages(step: usize, me: usize, p: usize) -> Vec<(u64, [u64; 2])> {
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

/// The mixed program: `steps` checked supersteps; returns the number of checks this process
/// made, or the first one that failed. A failed check does not change which syncs follow, so
/// the processes stay in step.
pub fn mixed(ctx: &mut Ctx, steps: usize) -> Result<u64, String> {
    {
        let (me, p) = (ctx.pid(), ctx.nprocs());
        let (left, right) = ((me + p - 1) % p, (me + 1) % p);
        ctx.set_tagsize(8);
        // x[0..2]: the put from the left neighbour; x[2]: this process's value, read by gets.
        // slots[q]: the hpput from process q.
        // swap: a registration that is swapped for a new one now and then; its length varies.
        let (mut x, slots, mut swap) = ctx.register((vec![0u64; 3], vec![0u64; p], vec![0u64; 1 + me % 3]));
        let mut swap_seed = 0;
        let mut checks = 0u64;
        let mut first_failure = None;
        let mut check = |ok: bool, what: &dyn Fn() -> String| {
            if ok {
                checks += 1;
            } else if first_failure.is_none() {
                first_failure = Some(format!("process {me}: {}", what()));
            }
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
                    // Fill the left neighbour's whole part, then pop (D27: the put lands at
                    // the pop's sync), then push the next one.
                    let len_left = 1 + (left + swap_seed) % 3;
                    ctx.put(left, &vec![val(step, me); len_left][..], &swap, 0);
                    let old = ctx.unregister(swap);
                    swap = ctx.register(vec![val(step, me); 1 + (me + step) % 3]);
                    let len = 1 + (me + swap_seed) % 3;
                    check(old.len() == len && old.iter().all(|&v| v == val(step, right)), &|| {
                        format!("superstep {step}: the popped registration holds {old:?}")
                    });
                    swap_seed = step;
                }
            }
            prev = k;
        }
        match first_failure {
            None => Ok(checks),
            Some(why) => Err(why),
        }
    }
}

/// Supersteps of the reduced mixed program.
const MIXED_STEPS: usize = 400;

/// The mixed program, reduced.
pub fn mixed_supersteps(ctx: &mut Ctx) -> Outcome {
    let s0 = ctx.step();
    let checks = mixed(ctx, MIXED_STEPS)?;
    ensure(checks >= MIXED_STEPS as u64, || format!("too few checks: {checks}"))?;
    // One sync per superstep, one for the first registrations, and a second for each swap
    // (its pop and its push are a sync each).
    let swaps = (0..MIXED_STEPS).filter(|&step| kind(step) == Kind::SwapRegistration).count();
    expect("syncs", ctx.step() - s0, MIXED_STEPS + 1 + swaps)
}

/// Only the barrier: every sync is empty.
pub fn empty_syncs(ctx: &mut Ctx) -> Outcome {
    let s0 = ctx.step();
    for _ in 0..500 {
        ctx.sync();
    }
    expect("syncs", ctx.step() - s0, 500)
}

/// One process is late in every superstep (a different one each time), so the others wait
/// (on threads they give up spinning and park, and must be woken): `steps` puts around the ring.
pub fn late_arrivals(ctx: &mut Ctx, steps: usize) -> Outcome {
    let (me, p) = (ctx.pid(), ctx.nprocs());
    let x = ctx.register(vec![0u64]);
    let mut sum = 0;
    let mut wrong = Vec::new();
    for step in 0..steps {
        if step % p == me {
            std::thread::sleep(Duration::from_micros(200));
        }
        ctx.put((me + 1) % p, &val(step, me), &x, 0);
        ctx.sync();
        let got = x.local(ctx)[0];
        if got != val(step, (me + p - 1) % p) {
            wrong.push((step, got));
        }
        sum += got & 0xffff_ffff;
    }
    expect("supersteps with a wrong value (superstep, value)", wrong, vec![])?;
    expect("the sum of the left neighbour's pids", sum, (steps * ((me + p - 1) % p)) as u64)
}

/// [`late_arrivals`], reduced.
pub fn a_late_process_in_every_superstep(ctx: &mut Ctx) -> Outcome {
    late_arrivals(ctx, 100)
}

checks! {
    mixed_supersteps => Procs::ALL.on(&[2, 5]),
    empty_syncs => Procs::ALL.on(&[2, 16]),
    a_late_process_in_every_superstep => Procs::ALL.on(&[4]),
}
