//! `bsp-runtime` against the spec: one test per rule of SEMANTICS.md §1–§5 and per decision
//! D1–D16 that the runtime covers (failures are in `failures.rs`). Each test names its rule in
//! its doc comment and runs at several process counts where that means something.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use bsp_runtime::{Ctx, Launch, Value, NPROCS_VAR};
use common::{ring, run_ok, within, PS};

/// Index of the first element where `got` and `want` differ, with both values.
fn first_mismatch<T: PartialEq + Copy>(got: &[T], want: &[T]) -> Option<(usize, T, T)> {
    assert_eq!(got.len(), want.len(), "lengths differ");
    got.iter().zip(want).position(|(g, w)| g != w).map(|i| (i, got[i], want[i]))
}

// ---------------------------------------------------------------------------------------------
// §2 SPMD framework, D12, D13
// ---------------------------------------------------------------------------------------------

/// §2.4, §2.5: `nprocs` is the number actually running, pids are `0..p`; results come back
/// indexed by pid.
#[test]
fn run_returns_one_result_per_process_indexed_by_pid() {
    for p in PS {
        let got = run_ok(p, |ctx| (ctx.pid(), ctx.nprocs()));
        assert_eq!(got, (0..p).map(|q| (q, p)).collect::<Vec<_>>());
    }
}

/// §2.1: process 0 continues the caller's thread of control; the others get threads of their own.
#[test]
fn process_zero_runs_on_the_calling_thread() {
    within("process 0 thread", || {
        let me = std::thread::current().id();
        let ids = bsp_runtime::run(3, |_| std::thread::current().id()).unwrap();
        assert_eq!(ids[0], me);
        assert!(ids[1] != me && ids[2] != me && ids[1] != ids[2]);
    });
}

/// The SPMD function may borrow from the caller (no `'static` bound).
#[test]
fn the_spmd_function_may_borrow_from_the_caller() {
    within("borrowing run", || {
        let data: Vec<u64> = (0..8).map(|i| i * i).collect();
        let got = bsp_runtime::run(8, |ctx| data[ctx.pid()]).unwrap();
        assert_eq!(got, data);
    });
}

/// D12: more processes than cores start exactly as requested and still synchronise quickly.
#[test]
fn more_processes_than_cores_run_as_requested() {
    let p = 48;
    let got = run_ok(p, |ctx| {
        let (pid, p) = (ctx.pid(), ctx.nprocs());
        let (_, right) = ring(pid, p);
        let x = ctx.push_reg([pid as u64]);
        ctx.sync();
        for _ in 0..20 {
            let v = *x.value(ctx);
            ctx.put(right, &v, &x, 0);
            ctx.sync();
        }
        (p, *x.value(ctx))
    });
    for (pid, (n, v)) in got.iter().enumerate() {
        assert_eq!(*n, p);
        // after 20 shifts to the right, process pid holds the value of pid - 20
        assert_eq!(*v as usize, (pid + p * 20 - 20) % p);
    }
}

/// §2.6: `time` is positive, strictly increasing between two calls, and measures seconds.
#[test]
fn time_is_positive_strictly_increasing_and_in_seconds() {
    for p in [1, 4] {
        let got = run_ok(p, |ctx| {
            let t0 = ctx.time();
            let t1 = ctx.time();
            ctx.sync();
            let t2 = ctx.time();
            std::thread::sleep(std::time::Duration::from_millis(20));
            let t3 = ctx.time();
            (t0, t1, t2, t3)
        });
        for (t0, t1, t2, t3) in got {
            assert!(0.0 < t0, "time() = {t0} must be > 0");
            assert!(t0 < t1, "two calls: {t0} then {t1}: not strictly increasing");
            assert!(t1 < t2);
            assert!(t3 - t2 >= 0.019, "a 20 ms sleep measured as {} s", t3 - t2);
            assert!(t3 < 10.0);
        }
    }
}

/// `step` counts the syncs done so far (a `superstep` is one sync).
#[test]
fn step_counts_the_syncs() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let mut seen = vec![ctx.step()];
            ctx.sync();
            seen.push(ctx.step());
            let inside = ctx.superstep(|s| s.step());
            seen.push(inside);
            seen.push(ctx.step());
            let x = ctx.push_reg([0u8]);
            ctx.sync();
            seen.push(ctx.step());
            ctx.pop_reg(&x);
            ctx.sync();
            seen.push(ctx.step());
            seen
        });
        for s in got {
            assert_eq!(s, [0, 1, 1, 2, 3, 4]);
        }
    }
}

/// §1: many supersteps in a row, alternating empty ones, puts, gets, hpputs and messages, stay
/// in step on both barrier algorithms (p up to the number of cores, and more).
#[test]
fn many_supersteps_of_every_kind_stay_in_step() {
    for p in [2, 3, 5] {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let (left, right) = ring(pid, p);
            let mut x = ctx.push_reg([pid as u64]);
            ctx.sync();
            let mut errors = 0;
            for round in 0..200u64 {
                let want_left = 1000 * round + left as u64;
                *x.value_mut(ctx) = 1000 * round + pid as u64;
                match round % 5 {
                    0 => ctx.sync(),
                    1 => {
                        let mut v = 0;
                        ctx.superstep(|s| s.get(left, &x, 0, &mut v));
                        errors += usize::from(v != want_left);
                    }
                    2 => {
                        let v = *x.value(ctx);
                        ctx.put(right, &v, &x, 0);
                        ctx.sync();
                        errors += usize::from(*x.value(ctx) != want_left);
                    }
                    3 => {
                        let v = [*x.value(ctx)];
                        ctx.superstep(|s| s.hpput(right, &v, &x, 0));
                        errors += usize::from(*x.value(ctx) != want_left);
                    }
                    _ => {
                        ctx.send(right, &(), &[*x.value(ctx)][..]);
                        ctx.sync();
                        let got = ctx.move_message::<(), u64>().map(|m| m.1);
                        errors += usize::from(got != Some(vec![want_left]));
                    }
                }
            }
            (errors, ctx.step())
        });
        assert_eq!(got, vec![(0, 201); p]);
    }
}

/// `superstep` returns what its closure returns, after the sync.
#[test]
fn superstep_returns_what_its_closure_returns() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let x = ctx.push_reg([ctx.pid() as u32 * 3]);
            ctx.sync();
            let mut v = 0;
            let (pid, step) = ctx.superstep(|s| {
                s.get(s.nprocs() - 1, &x, 0, &mut v);
                (s.pid(), s.step())
            });
            (pid, step, v, ctx.step())
        });
        for (pid, got) in got.into_iter().enumerate() {
            assert_eq!(got, (pid, 1, 3 * (p as u32 - 1), 2));
        }
    }
}

/// D13: SPMD runs may follow each other in one program; nothing global carries over.
#[test]
fn runs_may_follow_each_other() {
    within("runs in sequence", || {
        for round in 0..4u32 {
            for p in PS {
                let got = bsp_runtime::run(p, move |ctx| {
                    let x = ctx.push_reg([ctx.pid() as u32 + round]);
                    ctx.sync();
                    let mut v = 0;
                    ctx.superstep(|s| s.get(0, &x, 0, &mut v));
                    (x.id(), v, ctx.step())
                })
                .unwrap();
                // registrations are numbered per run: the first push is #1 every time
                assert!(got.iter().all(|&g| g == (1, round, 2)), "round {round}, p {p}: {got:?}");
            }
        }
    });
}

/// D13: a process may start a nested SPMD run, an independent group with its own pids, and
/// carry on with its own run afterwards.
#[test]
fn a_process_can_start_a_nested_run() {
    for p in [1, 2, 3] {
        let got = run_ok(p, |ctx| {
            let (outer, p) = (ctx.pid(), ctx.nprocs());
            let x = ctx.push_reg([outer as u32]);
            ctx.sync();
            let inner = bsp_runtime::run(2, move |ictx| {
                let y = ictx.push_reg([100 * outer as u32 + ictx.pid() as u32]);
                ictx.sync();
                let mut other = 0;
                ictx.superstep(|s| s.get(1 - s.pid(), &y, 0, &mut other));
                (ictx.pid(), ictx.nprocs(), other)
            })
            .unwrap();
            let mut left = 0;
            ctx.superstep(|s| s.get(ring(outer, p).0, &x, 0, &mut left));
            (inner, left)
        });
        for (pid, (inner, left)) in got.into_iter().enumerate() {
            let base = 100 * pid as u32;
            assert_eq!(inner, vec![(0, 2, base + 1), (1, 2, base)]);
            assert_eq!(left as usize, ring(pid, p).0);
        }
    }
}

/// §2.1 (number of processes): the call wins over `BSP_NPROCS`, which wins over the default;
/// with neither, the number of cores. Only this test of this file touches the environment.
#[test]
fn launch_takes_the_process_count_from_the_call_then_bsp_nprocs_then_the_default() {
    within("launch", || {
        let nprocs = |l: Launch| l.run(|ctx| ctx.nprocs()).unwrap();
        std::env::set_var(NPROCS_VAR, "3");
        assert_eq!(nprocs(Launch::new()), [3, 3, 3]);
        assert_eq!(nprocs(Launch::new().default_procs(5)), [3, 3, 3]);
        assert_eq!(nprocs(Launch::new().procs(2)), [2, 2]);
        assert_eq!(nprocs(Launch::new().procs(2).default_procs(5)), [2, 2]);
        assert_eq!(bsp_runtime::run(2, |ctx| ctx.nprocs()).unwrap(), [2, 2]);
        assert_eq!(Launch::new().nprocs().unwrap(), 3);
        std::env::remove_var(NPROCS_VAR);
        assert_eq!(nprocs(Launch::new().default_procs(5)), [5; 5]);
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(Launch::new().nprocs().unwrap(), cores);
        assert_eq!(nprocs(Launch::new()).len(), cores);
    });
}

// ---------------------------------------------------------------------------------------------
// §3.1, §3.2 registration, D4–D6
// ---------------------------------------------------------------------------------------------

/// §3.1: a registration is usable from the superstep after the sync that follows its push.
#[test]
fn registration_takes_effect_at_the_next_sync() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let x = ctx.push_reg(vec![0u32; p]);
            ctx.sync();
            for q in 0..p {
                ctx.put(q, &(pid as u32 + 1), &x, pid);
            }
            ctx.sync();
            x.local(ctx).to_vec()
        });
        for v in got {
            assert_eq!(v, (1..=p as u32).collect::<Vec<_>>());
        }
    }
}

/// §3.1, §6.1: extents may differ per process; bounds are those of the target, not the caller.
#[test]
fn registration_extents_may_differ_per_process() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let (_, right) = ring(pid, p);
            // process q registers q + 1 elements
            let x = ctx.push_reg(vec![0u16; pid + 1]);
            ctx.sync();
            // the last element of the right neighbour, maybe past this process's own extent
            ctx.put(right, &[pid as u16 + 1], &x, right);
            ctx.sync();
            let mut lasts = vec![0u16; p];
            ctx.superstep(|s| {
                for (q, slot) in lasts.iter_mut().enumerate() {
                    s.get(q, &x, q, slot);
                }
            });
            (x.len(), x.local(ctx).to_vec(), lasts)
        });
        for (pid, (len, local, lasts)) in got.into_iter().enumerate() {
            assert_eq!(len, pid + 1);
            let mut want = vec![0u16; pid + 1];
            want[pid] = ring(pid, p).0 as u16 + 1;
            assert_eq!(local, want);
            let want_lasts: Vec<u16> = (0..p).map(|q| ring(q, p).0 as u16 + 1).collect();
            assert_eq!(lasts, want_lasts);
        }
    }
}

/// bsp_push_reg(3) EXAMPLES 2: a put through the registration lands in the target's instance;
/// after the last sync process 0 has x=1, y=2 and process 1 has x=2, y=4.
#[test]
fn bsp_push_reg_example_2() {
    for p in [2, 3, 4] {
        let got = run_ok(p, |ctx| {
            let pid = ctx.pid();
            let (x0, y) = if pid == 0 { (1, 2) } else { (3, 4) };
            let x = ctx.push_reg([x0]);
            ctx.sync();
            if pid == 0 {
                ctx.put(1, &y, &x, 0);
            }
            ctx.sync();
            (*x.value(ctx), y)
        });
        assert_eq!(got[0], (1, 2));
        assert_eq!(got[1], (2, 4));
        assert!(got[2..].iter().all(|&g| g == (3, 4)));
    }
}

/// §3.1 (zero size), bsp_push_reg(3) NOTES vi: a process may register nothing and still reach
/// the others' parts (half duplex); zero-length accesses to an empty part are fine.
#[test]
fn zero_size_registrations_allow_half_duplex_communication() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let data = if pid == 0 { Vec::new() } else { vec![10 * pid as u32] };
            let x = ctx.push_reg(data);
            let none = ctx.push_reg(Vec::<u64>::new());
            ctx.sync();
            let mut seen = vec![0u32; p];
            let mut nothing: [u64; 0] = [];
            ctx.superstep(|s| {
                if pid == 0 {
                    for (q, slot) in seen.iter_mut().enumerate().skip(1) {
                        s.get(q, &x, 0, slot);
                        s.put(q, &(100 + q as u32), &x, 0);
                    }
                }
                s.put(0, &[0u32; 0], &x, 0);
                s.put(ring(pid, p).1, &[0u64; 0], &none, 0);
                s.get(ring(pid, p).1, &none, 0, &mut nothing);
            });
            (x.is_empty(), none.len(), x.local(ctx).to_vec(), seen)
        });
        for (pid, (empty, none_len, local, seen)) in got.into_iter().enumerate() {
            assert_eq!(empty, pid == 0);
            assert_eq!(none_len, 0);
            if pid == 0 {
                assert!(local.is_empty());
                let want: Vec<u32> = (0..p as u32).map(|q| 10 * q).collect();
                assert_eq!(seen, want, "process 0's gets read before its puts landed");
            } else {
                assert_eq!(local, [100 + pid as u32]);
            }
        }
    }
}

/// D6, §3.2: a registration popped in a superstep can still be put into and got from until
/// the sync; after it, `into_vec` gives the data back, including what landed at that sync.
#[test]
fn a_popped_registration_is_usable_until_the_sync_then_into_vec_returns_its_data() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let (left, right) = ring(pid, p);
            let mut x = ctx.push_reg(vec![pid as u32; 2]);
            ctx.sync();
            x.local_mut(ctx)[1] = 50 + pid as u32;
            let mut before = [0u32; 2];
            ctx.superstep(|s| {
                s.pop_reg(&x);
                s.put(right, &(100 + pid as u32), &x, 0);
                s.get(left, &x, 0, &mut before);
            });
            (before, x.into_vec(ctx))
        });
        for (pid, (before, data)) in got.into_iter().enumerate() {
            let left = ring(pid, p).0 as u32;
            assert_eq!(before, [left, 50 + left]);
            assert_eq!(data, [100 + left, 50 + pid as u32]);
        }
    }
}

/// §3.2: pops take effect before pushes at a sync, slots are reused, and every registration
/// keeps addressing its own memory on every process.
#[test]
fn registration_slots_are_reused_after_pops() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let (_, right) = ring(pid, p);
            let a = ctx.push_reg(vec![0u32; 1]);
            let b = ctx.push_reg(vec![0u32; 2]);
            let c = ctx.push_reg(vec![0u32; 3]);
            ctx.sync();
            ctx.pop_reg(&b);
            ctx.sync();
            // reuses b's slot; c and a must stay where they are
            let d = ctx.push_reg(vec![0u32; 4]);
            ctx.sync();
            let v = |reg: u32| 10 * reg + pid as u32;
            ctx.put(right, &[v(1)], &a, 0);
            ctx.put(right, &[v(3); 3], &c, 0);
            ctx.put(right, &[v(4); 4], &d, 0);
            ctx.sync();
            // pop and push in one superstep: the pop of a frees its slot at the sync, the push
            // of e takes a new one, so e and d never share memory
            ctx.pop_reg(&a);
            let e = ctx.push_reg(vec![0u32; 5]);
            ctx.sync();
            ctx.put(right, &[v(5); 5], &e, 0);
            ctx.put(right, &[v(6); 4], &d, 0);
            ctx.sync();
            let ids = [a.id(), b.id(), c.id(), d.id(), e.id()];
            let locals = [c.local(ctx).to_vec(), d.local(ctx).to_vec(), e.local(ctx).to_vec()];
            (ids, a.into_vec(ctx), b.into_vec(ctx), locals)
        });
        for (pid, (ids, a, b, [c, d, e])) in got.into_iter().enumerate() {
            let left = ring(pid, p).0 as u32;
            assert_eq!(ids, [1, 2, 3, 4, 5]);
            assert_eq!(a, [10 + left]);
            assert_eq!(b, [0, 0]);
            assert_eq!(c, [30 + left; 3]);
            assert_eq!(d, [60 + left; 4]);
            assert_eq!(e, [50 + left; 5]);
        }
    }
}

/// §3.1, §3.2 (pushes and pops need not nest like a stack): pop the oldest first, then the
/// newest, then the middle one; the rest keep working in between.
#[test]
fn pops_need_not_follow_stack_order() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let (_, right) = ring(pid, p);
            let a = ctx.push_reg([0i64]);
            let b = ctx.push_reg([0i64; 2]);
            let c = ctx.push_reg([0i64; 3]);
            ctx.sync();
            ctx.pop_reg(&a);
            ctx.sync();
            ctx.put(right, &[pid as i64; 2], &b, 0);
            ctx.put(right, &[-(pid as i64); 3], &c, 0);
            ctx.sync();
            let after_first = (b.local(ctx).to_vec(), c.local(ctx).to_vec());
            ctx.pop_reg(&c);
            ctx.sync();
            ctx.put(right, &(pid as i64 + 7), &b, 1);
            ctx.sync();
            let after_second = b.local(ctx).to_vec();
            ctx.pop_reg(&b);
            ctx.sync();
            (after_first, after_second, a.into_vec(ctx), b.into_vec(ctx), c.into_vec(ctx))
        });
        for (pid, (first, second, a, b, c)) in got.into_iter().enumerate() {
            let left = ring(pid, p).0 as i64;
            assert_eq!(first, (vec![left; 2], vec![-left; 3]));
            assert_eq!(second, [left, left + 7]);
            assert_eq!((a, b, c), (vec![0], vec![left, left + 7], vec![-left; 3]));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// §3.3, §3.4 DRMA and the ordering table of §5, D1–D3, D7
// ---------------------------------------------------------------------------------------------

/// §5 row "local write to a put's src after the call": no effect; the source is copied at
/// the call (§3.3 buffering).
#[test]
fn put_copies_its_source_at_the_call() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let x = ctx.push_reg([0u32; 2]);
            ctx.sync();
            let mut v = [pid as u32 + 1, pid as u32 + 2];
            ctx.put(ring(pid, p).1, &v, &x, 0);
            v = [99, 99];
            ctx.sync();
            (v, x.local(ctx).to_vec())
        });
        for (pid, (v, x)) in got.into_iter().enumerate() {
            let left = ring(pid, p).0 as u32;
            assert_eq!(v, [99, 99]);
            assert_eq!(x, [left + 1, left + 2]);
        }
    }
}

/// §5 row "put to self": deferred to the sync (BOM `put_6`); hpput to self is checked after
/// the sync only (§3.3: tests may only check the state after the sync).
#[test]
fn put_to_self_is_deferred_to_the_sync() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let pid = ctx.pid();
            let x = ctx.push_reg([5u32, 6]);
            ctx.sync();
            ctx.put(pid, &7u32, &x, 0);
            let before = x.local(ctx).to_vec();
            let block = [8u32];
            ctx.superstep(|s| s.hpput(pid, &block, &x, 1));
            (before, x.local(ctx).to_vec())
        });
        for (before, after) in got {
            assert_eq!(before, [5, 6]);
            assert_eq!(after, [7, 8]);
        }
    }
}

/// §5 row "local write to a get's src (on the owner) before sync": the get sees the written
/// value (BOM `get_6`), whether the owner is the requester or a neighbour.
#[test]
fn get_reads_its_source_at_the_sync_after_local_writes() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let (_, right) = ring(pid, p);
            let mut x = ctx.push_reg([1u32]);
            ctx.sync();
            let (mut from_self, mut from_right) = (0, 0);
            ctx.superstep(|s| {
                s.get(pid, &x, 0, &mut from_self);
                s.get(right, &x, 0, &mut from_right);
                *x.value_mut(s) = 100 + pid as u32; // after the gets were issued
            });
            (from_self, from_right)
        });
        for (pid, got) in got.into_iter().enumerate() {
            assert_eq!(got, (100 + pid as u32, 100 + ring(pid, p).1 as u32));
        }
    }
}

/// §1 phase 2, §5 row "get source vs put destination": a get sees the value from before the
/// superstep even when puts to the same bytes land in the same sync; a get and a put on the
/// same registration in one superstep, remote and self.
#[test]
fn get_source_is_read_before_any_put_lands() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let (_, right) = ring(pid, p);
            let x = ctx.push_reg([10 * pid as u32, 20 * pid as u32]);
            ctx.sync();
            let (mut remote, mut own) = (0, 0);
            ctx.superstep(|s| {
                s.put(right, &(1000 + pid as u32), &x, 0);
                s.put(pid, &(2000 + pid as u32), &x, 1);
                s.get(right, &x, 0, &mut remote);
                s.get(pid, &x, 1, &mut own);
            });
            (remote, own, x.local(ctx).to_vec())
        });
        for (pid, (remote, own, x)) in got.into_iter().enumerate() {
            let (left, right) = ring(pid, p);
            assert_eq!(remote, 10 * right as u32);
            assert_eq!(own, 20 * pid as u32);
            assert_eq!(x, [1000 + left as u32, 2000 + pid as u32]);
        }
    }
}

/// D1, §5 row "get destination vs put destination": the put wins over a get or an hpget,
/// whether it comes from another process or from the requester itself, issued before or after.
#[test]
fn a_put_wins_over_a_get_on_the_same_local_destination() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let (_, right) = ring(pid, p);
            let mut x = ctx.push_reg([0u32; 3]);
            let y = ctx.push_reg([100 + pid as u32, 200 + pid as u32, 300 + pid as u32]);
            ctx.sync();
            let name = x.remote();
            ctx.superstep(|s| {
                s.put(pid, &7u32, &x, 1);
                // the get covers all three elements; two of them are also put destinations
                if pid % 2 == 0 {
                    s.get(right, &y, 0, x.local_mut(s));
                } else {
                    s.hpget(right, &y, 0, x.local_mut(s));
                }
                s.put(right, &(500 + pid as u32), name, 0); // issued after the get: wins too
            });
            x.local(ctx).to_vec()
        });
        for (pid, x) in got.into_iter().enumerate() {
            let (left, right) = ring(pid, p);
            assert_eq!(x, [500 + left as u32, 7, 300 + right as u32]);
        }
    }
}

/// D2, §5 row "put vs put, different sources": puts to the same bytes are applied in
/// ascending source pid, so the highest pid wins, element by element; put or hpput alike.
#[test]
fn overlapping_puts_from_different_sources_highest_pid_wins() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let x = ctx.push_reg(vec![u32::MAX; p + 2]);
            ctx.sync();
            let block = [pid as u32; 3];
            ctx.superstep(|s| {
                for t in 0..p {
                    if pid % 2 == 0 {
                        s.put(t, &block, &x, pid);
                    } else {
                        s.hpput(t, &block, &x, pid);
                    }
                }
            });
            x.local(ctx).to_vec()
        });
        let want: Vec<u32> = (0..p + 2).map(|i| i.min(p - 1) as u32).collect();
        for x in got {
            assert_eq!(x, want);
        }
    }
}

/// D2, §5 row "put vs put, same source": applied in issue order, the last one wins; put and
/// hpput interleave in issue order.
#[test]
fn overlapping_puts_from_one_source_last_issued_wins() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let (_, right) = ring(pid, p);
            let x = ctx.push_reg([0u32; 5]);
            ctx.sync();
            let two = [2u32, 2];
            ctx.superstep(|s| {
                s.put(right, &[1u32; 5], &x, 0);
                s.hpput(right, &two, &x, 1);
                s.put(right, &3u32, &x, 2);
                s.put(right, &[4u32, 4], &x, 3);
                s.put(right, &5u32, &x, 4);
            });
            x.local(ctx).to_vec()
        });
        for x in got {
            assert_eq!(x, [1, 2, 3, 4, 5]);
        }
    }
}

/// D7: zero-length puts, gets, hpputs and hpgets move nothing, whatever the offset.
#[test]
fn zero_length_transfers_move_nothing() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let (_, right) = ring(pid, p);
            let x = ctx.push_reg([1u32, 2]);
            ctx.sync();
            let (empty, mut into_get, mut into_hpget): ([u32; 0], [u32; 0], Vec<u32>) = ([], [], Vec::new());
            ctx.superstep(|s| {
                s.put(right, &empty, &x, 5);
                s.hpput(right, &empty, &x, 100);
                s.get(right, &x, 7, &mut into_get);
                s.hpget(right, &x, 2, &mut into_hpget);
            });
            (x.local(ctx).to_vec(), into_hpget.len())
        });
        for got in got {
            assert_eq!(got, (vec![1, 2], 0));
        }
    }
}

/// §3.3 `hpput` (D3): from memory that is not registered it behaves like a put after the sync.
#[test]
fn hpput_from_unregistered_memory_behaves_like_put() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let (_, right) = ring(pid, p);
            let x = ctx.push_reg(vec![0u64; 64]);
            ctx.sync();
            let block: Vec<u64> = (0..32).map(|i| 1000 * pid as u64 + i).collect();
            ctx.superstep(|s| s.hpput(right, &block[..], &x, 16));
            x.local(ctx).to_vec()
        });
        for (pid, x) in got.into_iter().enumerate() {
            let left = ring(pid, p).0 as u64;
            let mut want = vec![0u64; 64];
            for (i, w) in want[16..48].iter_mut().enumerate() {
                *w = 1000 * left + i as u64;
            }
            assert_eq!(x, want);
        }
    }
}

/// §3.3, D3: an hpput whose source is registered memory that other hpputs write in the same
/// sync behaves like a put: every process receives its neighbour's pre-superstep values.
#[test]
fn hpput_from_registered_memory_behaves_like_put() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let (_, right) = ring(pid, p);
            let x = ctx.push_reg(vec![pid as u32; 4]);
            let mut y = ctx.push_reg(vec![10 + pid as u32; 2]);
            ctx.sync();
            ctx.superstep(|s| {
                s.hpput(right, x.local(s), &x, 0);
                s.hpput(right, &y.local(s)[..1], &x, 3);
            });
            let shifted = x.local(ctx).to_vec();
            // to itself, source and destination overlapping: like a put (a memmove at the sync)
            y.local_mut(ctx).copy_from_slice(&[1, 2]);
            let name = &y.remote(); // a `&Remote` names the registration too
            ctx.superstep(|s| s.hpput(pid, &y.local(s)[..1], name, 1));
            (shifted, y.local(ctx).to_vec())
        });
        for (pid, (x, y)) in got.into_iter().enumerate() {
            let left = ring(pid, p).0 as u32;
            assert_eq!(x, [left, left, left, 10 + left]);
            assert_eq!(y, [1, 1]);
        }
    }
}

/// §3.3, D3, D11: an hpput whose source is an `hpmove` payload (the receive buffer, which the
/// sender's own sync rebuilds) behaves like a put.
#[test]
fn hpput_from_an_hpmove_payload_behaves_like_put() {
    const K: usize = 4096;
    const BIG: usize = 8 << 20;
    for _ in 0..5 {
        let got = run_ok(3, |ctx| {
            let pid = ctx.pid();
            let x = ctx.push_reg(vec![0u64; K]);
            let big = ctx.push_reg(vec![0u8; if pid == 2 { BIG } else { 0 }]);
            ctx.sync();
            if pid == 0 {
                ctx.send(1, &(), &[1u64; K][..]);
            }
            ctx.sync();
            if pid == 0 {
                // same size as the first message: it lands where the first one was
                ctx.send(1, &(), &[2u64; K][..]);
                // keeps process 2 busy before it reads process 1's hpput source
                ctx.put(2, &vec![7u8; BIG][..], &big, 0);
            }
            ctx.superstep(|s| {
                if s.pid() == 1 {
                    let (_, payload) = s.hpmove::<(), u64>().unwrap();
                    s.hpput(2, payload, &x, 0);
                }
            });
            x.local(ctx).iter().filter(|&&v| v != 1).count()
        });
        assert_eq!(got[2], 0, "process 2 received {} elements that process 1 never hpput", got[2]);
    }
}

/// §1 phases 2–3, §3.4, D1: gets whose destinations lie in the registration they read, which
/// the neighbours read in the same sync, and the process itself too (overlapping source and
/// destination): every read sees the pre-superstep values, and a put to one of those bytes wins.
#[test]
fn gets_into_the_registration_they_read_see_pre_superstep_values() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let (left, right) = ring(pid, p);
            let base = 10 * pid as u32;
            let mut x = ctx.push_reg([base, base + 1, base + 2, base + 3]);
            ctx.sync();
            let name = x.remote();
            ctx.superstep(|s| {
                let (low, high) = x.local_mut(s).split_at_mut(2);
                s.get(left, name, 2, low); // x[0..2] := left's x[2..4]
                s.get(pid, name, 0, high); // x[2..4] := own x[0..2]
                s.put(right, &(1000 + pid as u32), name, 3); // lands on right's x[3]: wins
            });
            x.local(ctx).to_vec()
        });
        for (pid, x) in got.into_iter().enumerate() {
            let left = 10 * ring(pid, p).0 as u32;
            let me = 10 * pid as u32;
            assert_eq!(x, [left + 2, left + 3, me, 1000 + left / 10], "p {p}, process {pid}");
        }
    }
}

/// Puts, hpputs, gets and hpgets of 8 MiB, checked element by element.
#[test]
fn transfers_of_8_mib_arrive_intact() {
    const N: usize = (8 << 20) / 4;
    fn pattern(from: usize, kind: u32) -> Vec<u32> {
        (0..N as u32).map(|i| i.wrapping_mul(2_654_435_761) ^ ((from as u32) << 28) ^ (kind << 24)).collect()
    }
    #[track_caller]
    fn check(what: &str, pid: usize, got: &[u32], want: &[u32]) {
        if let Some((i, g, w)) = first_mismatch(got, want) {
            panic!("{what} on process {pid}: element {i} is {g:#x}, expected {w:#x}");
        }
    }
    for p in [2, 3] {
        run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let (left, right) = ring(pid, p);
            let mut x = ctx.push_reg(vec![0u32; N]);
            ctx.sync();
            ctx.put(right, &pattern(pid, 1)[..], &x, 0);
            ctx.sync();
            check("put", pid, x.local(ctx), &pattern(left, 1));
            let block = pattern(pid, 2);
            ctx.superstep(|s| s.hpput(right, &block[..], &x, 0));
            check("hpput", pid, x.local(ctx), &pattern(left, 2));
            x.local_mut(ctx).copy_from_slice(&pattern(pid, 3));
            let mut dst = vec![0u32; N];
            ctx.superstep(|s| s.get(left, &x, 0, &mut dst[..]));
            check("get", pid, &dst, &pattern(left, 3));
            x.local_mut(ctx).copy_from_slice(&pattern(pid, 4));
            ctx.superstep(|s| s.hpget(right, &x, 0, &mut dst[..]));
            check("hpget", pid, &dst, &pattern(right, 4));
        });
    }
}

// ---------------------------------------------------------------------------------------------
// bsp_get(3) EXAMPLES
// ---------------------------------------------------------------------------------------------

/// bsp_get(3) example 1, `get_array`: `forall i: xs[i] := xs[xs[i]]` over a block-distributed
/// array, in place: the gets write the registered array that they (and other processes) read.
#[test]
fn bsp_get_example_1_get_array() {
    const N_OVER_P: usize = 3;
    for p in PS {
        let n = N_OVER_P * p;
        let global: Vec<u32> = (0..n).map(|g| ((g * 7 + 3) % n) as u32).collect();
        let want: Vec<u32> = global.iter().map(|&v| global[v as usize]).collect();
        let got = run_ok(p, move |ctx| {
            let pid = ctx.pid();
            let n = N_OVER_P * ctx.nprocs();
            let mine: Vec<u32> = (0..N_OVER_P).map(|i| (((pid * N_OVER_P + i) * 7 + 3) % n) as u32).collect();
            let mut xs = ctx.push_reg(mine.clone());
            ctx.sync();
            let name = xs.remote();
            ctx.superstep(|s| {
                for (slot, &v) in xs.local_mut(s).iter_mut().zip(&mine) {
                    let (owner, local_idx) = (v as usize / N_OVER_P, v as usize % N_OVER_P);
                    s.get(owner, name, local_idx, slot);
                }
            });
            ctx.pop_reg(&xs);
            ctx.sync();
            xs.into_vec(ctx)
        });
        assert_eq!(got.concat(), want, "p = {p}");
    }
}

/// bsp_get(3) example 2, `bsp_sum`: every process hpgets every local sum.
#[test]
fn bsp_get_example_2_bsp_sum_with_hpget() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let xs: Vec<i32> = (1..=pid as i32 + 1).collect();
            let result = ctx.push_reg([xs.iter().sum::<i32>()]);
            ctx.sync();
            let mut local_sums = vec![0i32; p];
            ctx.superstep(|s| {
                for (i, slot) in local_sums.iter_mut().enumerate() {
                    s.hpget(i, &result, 0, slot);
                }
            });
            ctx.pop_reg(&result);
            ctx.sync();
            local_sums.iter().sum::<i32>()
        });
        let want: i32 = (1..=p as i32).map(|k| k * (k + 1) / 2).sum();
        assert_eq!(got, vec![want; p]);
    }
}

/// bsp_get(3) example 3, `cyclic_shift` with a buffered get into `x` itself, the variable the
/// right neighbour reads in the same superstep: returns the left neighbour's x.
#[test]
fn bsp_get_example_3_cyclic_shift_with_get() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let mut x = ctx.push_reg([7 * pid as i32]);
            ctx.sync();
            let name = x.remote();
            ctx.superstep(|s| s.get(if pid == 0 { p - 1 } else { pid - 1 }, name, 0, x.local_mut(s)));
            ctx.pop_reg(&x);
            ctx.sync();
            x.into_vec(ctx)[0]
        });
        let want: Vec<i32> = (0..p).map(|pid| 7 * ring(pid, p).0 as i32).collect();
        assert_eq!(got, want);
    }
}

/// bsp_get(3) example 4, `cyclic_shift` with a high-performance get.
#[test]
fn bsp_get_example_4_cyclic_shift_with_hpget() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let x = ctx.push_reg([7 * pid as i32]);
            ctx.sync();
            let mut result = -1;
            ctx.superstep(|s| s.hpget(if pid == 0 { p - 1 } else { pid - 1 }, &x, 0, &mut result));
            ctx.pop_reg(&x);
            ctx.sync();
            result
        });
        let want: Vec<i32> = (0..p).map(|pid| 7 * ring(pid, p).0 as i32).collect();
        assert_eq!(got, want);
    }
}

/// bsp_get(3) example 5, `bsp_allsums` (logarithmic prefix sums): on 4 processes y=1 sums=1,
/// y=2 sums=3, y=3 sums=6, y=4 sums=10.
#[test]
fn bsp_get_example_5_allsums() {
    fn allsums(ctx: &mut Ctx, x: i32) -> i32 {
        let (pid, p) = (ctx.pid(), ctx.nprocs());
        let mut right = ctx.push_reg([0i32]);
        ctx.sync();
        *right.value_mut(ctx) = x;
        let mut i = 1;
        while i < p {
            let mut left = 0;
            ctx.superstep(|s| {
                if pid >= i {
                    s.get(pid - i, &right, 0, &mut left);
                }
            });
            if pid >= i {
                *right.value_mut(ctx) += left;
            }
            i *= 2;
        }
        ctx.pop_reg(&right);
        let r = *right.value(ctx);
        ctx.sync();
        r
    }
    for p in PS {
        let got = run_ok(p, |ctx| {
            let y = ctx.pid() as i32 + 1;
            (y, allsums(ctx, y))
        });
        let want: Vec<(i32, i32)> = (1..=p as i32).map(|y| (y, y * (y + 1) / 2)).collect();
        assert_eq!(got, want);
        if p == 4 {
            assert_eq!(got, [(1, 1), (2, 3), (3, 6), (4, 10)]);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// §4 BSMP, D8–D11
// ---------------------------------------------------------------------------------------------

/// D8, §4.1: `set_tagsize` returns the size in force (B of the (A, B, C) model): the argument
/// sequence set(1), set(0), set(1) | sync | set(5), set(1) returns 0, 0, 0 | 1, 1; the last
/// request of a superstep is the one that takes effect.
#[test]
fn set_tagsize_returns_the_size_in_force() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let first = [ctx.set_tagsize(1), ctx.set_tagsize(0), ctx.set_tagsize(1)];
            ctx.sync();
            let second = [ctx.set_tagsize(5), ctx.set_tagsize(1)];
            ctx.sync();
            // 1 is in force now: a 1-byte tag is accepted
            ctx.send_bytes(ctx.pid(), &[9], &[]);
            let third = ctx.set_tagsize(1);
            ctx.sync();
            let mut tag = [0u8];
            (first, second, third, ctx.get_tag_bytes(&mut tag), tag)
        });
        for g in got {
            assert_eq!(g, ([0, 0, 0], [1, 1], 1, Some(0), [9]));
        }
    }
}

/// D8: processes may reach the same final request by different call sequences.
#[test]
fn only_the_last_tagsize_request_of_a_superstep_counts() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            if ctx.pid() % 2 == 0 {
                ctx.set_tagsize(4);
                ctx.set_tagsize(16);
            }
            ctx.set_tagsize(8);
            ctx.sync();
            ctx.set_tagsize(8)
        });
        assert_eq!(got, vec![8; p]);
    }
}

/// §4.1 (OX NOTES; BOM's (A, B, C) model): a message is sent with the tag size in force in its
/// superstep and read with that size in the next, even when a different size was requested.
#[test]
fn queued_messages_keep_the_tag_size_they_were_sent_with() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let (_, right) = ring(pid, p);
            ctx.set_tag::<u32>();
            ctx.sync();
            // in force: 4 bytes; requested for the next superstep: 8
            assert_eq!(ctx.set_tag::<u64>(), 4);
            ctx.send(right, &(pid as u32), &[1u8][..]);
            ctx.sync();
            // the queue has 4-byte tags; sends now use 8 bytes
            let first = ctx.get_tag::<u32>();
            ctx.send(right, &(u64::MAX - pid as u64), &[2u8, 2][..]);
            ctx.sync();
            (first, ctx.get_tag::<u64>())
        });
        for (pid, (first, second)) in got.into_iter().enumerate() {
            let left = ring(pid, p).0;
            assert_eq!(first, Some((1, left as u32)));
            assert_eq!(second, Some((2, u64::MAX - left as u64)));
        }
    }
}

/// §4.3: `qsize` counts the messages and the sum of their payload bytes, not the tags; sends
/// of the current superstep do not show.
#[test]
fn qsize_counts_messages_and_payload_bytes_not_tags() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let at_start = ctx.qsize();
            ctx.set_tag::<u64>();
            ctx.sync();
            for q in 0..p {
                ctx.send(q, &0u64, &vec![0u16; pid + 1][..]);
            }
            let while_sending = ctx.qsize();
            ctx.sync();
            (at_start, while_sending, ctx.qsize())
        });
        for g in got {
            assert_eq!(g, ((0, 0), (0, 0), (p, p * (p + 1))));
        }
    }
}

/// §4.3, §4.5, §4.6: both numbers of `qsize` shrink after every kind of move.
#[test]
fn qsize_shrinks_after_each_move() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            ctx.set_tag::<u16>();
            ctx.sync();
            for k in 0..5 {
                // 5 messages to each process; the one from q with index k has 2(q + k + 1) bytes
                for q in 0..p {
                    ctx.send(q, &(k as u16), &vec![pid as u16; pid + k + 1][..]);
                }
            }
            ctx.sync();
            let mut sizes = vec![ctx.qsize()];
            let mut buf = [0u16; 64];
            let mut bytes = [0u8; 256];
            for i in 0..5 * p {
                let moved = match i % 5 {
                    0 => ctx.move_message::<u16, u16>().is_some(),
                    1 => ctx.move_into(&mut buf).is_some(),
                    2 => ctx.move_bytes(&mut bytes).is_some(),
                    3 => ctx.hpmove::<u16, u16>().is_some(),
                    _ => ctx.hpmove_bytes().is_some(),
                };
                assert!(moved, "message {i} is missing");
                sizes.push(ctx.qsize());
            }
            sizes
        });
        // dequeue order is ascending source, then send order (D10)
        let lens: Vec<usize> = (0..p).flat_map(|q| (0..5).map(move |k| 2 * (q + k + 1))).collect();
        let mut want = Vec::new();
        for i in 0..=lens.len() {
            want.push((lens.len() - i, lens[i..].iter().sum::<usize>()));
        }
        for sizes in got {
            assert_eq!(sizes, want);
        }
    }
}

/// §4.4: `get_tag` reports the first message's payload length and tag without dequeuing it.
#[test]
fn get_tag_does_not_dequeue() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let pid = ctx.pid();
            ctx.set_tag::<[u8; 3]>();
            ctx.sync();
            ctx.send(pid, &[1u8, 2, 3], &[5u32, 6][..]);
            ctx.sync();
            let a = ctx.get_tag::<[u8; 3]>();
            let b = ctx.get_tag::<[u8; 3]>();
            let mut raw = [0u8; 3];
            let c = ctx.get_tag_bytes(&mut raw);
            let q = ctx.qsize();
            let m = ctx.move_message::<[u8; 3], u32>();
            (a, b, c, raw, q, m, ctx.qsize())
        });
        for g in got {
            assert_eq!(
                g,
                (
                    Some((8, [1, 2, 3])),
                    Some((8, [1, 2, 3])),
                    Some(8),
                    [1, 2, 3],
                    (1, 8),
                    Some(([1, 2, 3], vec![5, 6])),
                    (0, 0)
                )
            );
        }
    }
}

/// D9, §4.4–§4.6: on an empty queue (before any message, and after draining one) every
/// reception call reports "empty" and leaves the caller's buffers untouched.
#[test]
fn an_empty_queue_reports_none_and_leaves_buffers_untouched() {
    fn all_empty(ctx: &Ctx) -> bool {
        let mut tag = [0xABu8; 4];
        let mut payload = [0xCDu32; 2];
        let mut bytes = [0xEFu8; 3];
        ctx.qsize() == (0, 0)
            && ctx.get_tag::<u32>().is_none()
            && ctx.get_tag_bytes(&mut tag).is_none()
            && ctx.move_message::<u32, u8>().is_none()
            && ctx.move_into(&mut payload).is_none()
            && ctx.move_bytes(&mut bytes).is_none()
            && ctx.hpmove::<u32, u8>().is_none()
            && ctx.hpmove_bytes().is_none()
            && tag == [0xAB; 4]
            && payload == [0xCD; 2]
            && bytes == [0xEF; 3]
    }
    for p in PS {
        let got = run_ok(p, |ctx| {
            let before = all_empty(ctx);
            ctx.set_tag::<u32>();
            ctx.sync();
            ctx.send(ctx.pid(), &7u32, &[1u8][..]);
            ctx.sync();
            let drained = ctx.move_message::<u32, u8>();
            (before, drained, all_empty(ctx))
        });
        for g in got {
            assert_eq!(g, (true, Some((7, vec![1])), true));
        }
    }
}

/// §4.5: a move copies `min(payload, buffer)` elements, leaves the rest of the buffer alone,
/// returns the full payload length, and with an empty buffer just discards the message.
#[test]
fn move_into_and_move_bytes_truncate_and_return_the_full_length() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let pid = ctx.pid();
            for _ in 0..3 {
                ctx.send(pid, &(), &[1u32, 2, 3, 4, 5][..]);
            }
            ctx.send_bytes(pid, &[], &[10, 11, 12, 13, 14, 15]);
            ctx.send_bytes(pid, &[], &[20, 21]);
            ctx.sync();
            let mut short = [0u32; 2];
            let mut long = [9u32; 8];
            let a = ctx.move_into(&mut short);
            let b = ctx.move_into(&mut long);
            let c = ctx.move_into::<u32>(&mut []);
            let mut bytes = [0u8; 4];
            let d = ctx.move_bytes(&mut bytes);
            let mut roomy = [0xFFu8; 4];
            let e = ctx.move_bytes(&mut roomy);
            (a, short, b, long, c, d, bytes, e, roomy, ctx.qsize())
        });
        for g in got {
            assert_eq!(
                g,
                (
                    Some(5),
                    [1, 2],
                    Some(5),
                    [1, 2, 3, 4, 5, 9, 9, 9],
                    Some(5),
                    Some(6),
                    [10, 11, 12, 13],
                    Some(2),
                    [20, 21, 0xFF, 0xFF],
                    (0, 0)
                )
            );
        }
    }
}

/// §4.2 (OX NOTES ii): tag-only, payload-only and empty messages are all messages.
#[test]
fn empty_messages_still_count() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let p = ctx.nprocs();
            for q in 0..p {
                ctx.send(q, &(), &[0u8; 0][..]);
            }
            ctx.set_tag::<u16>();
            ctx.sync();
            let sizes = ctx.qsize();
            let first = ctx.get_tag::<()>();
            let mut moved = 0;
            while let Some(((), payload)) = ctx.move_message::<(), u8>() {
                assert!(payload.is_empty());
                moved += 1;
            }
            for q in 0..p {
                ctx.send(q, &(q as u16), &[0u8; 0][..]);
            }
            ctx.sync();
            let tag_only = ctx.qsize();
            let mut tags = Vec::new();
            while let Some((tag, payload)) = ctx.hpmove::<u16, u8>() {
                assert!(payload.is_empty());
                tags.push(*tag);
            }
            (sizes, first, moved, tag_only, tags)
        });
        for (pid, g) in got.into_iter().enumerate() {
            assert_eq!(g, ((p, 0), Some((0, ())), p, (p, 0), vec![pid as u16; p]));
        }
    }
}

/// D11, §4.6: `hpmove` hands out references into the receive buffer, aligned for any `Value`
/// (u128, f64, u64 tags) whatever the tag size and the lengths of earlier messages, and valid
/// for the rest of the superstep, after further moves.
#[test]
fn hpmove_references_are_aligned_for_any_value() {
    fn check<Tg: Value + PartialEq + std::fmt::Debug>(ctx: &mut Ctx, tag: Tg) {
        let (pid, p) = (ctx.pid(), ctx.nprocs());
        ctx.set_tag::<Tg>();
        ctx.sync();
        for q in 0..p {
            for len in 0..4 {
                let wide: Vec<u128> = (0..len).map(|i| (u128::MAX / 3) ^ (pid * 10 + i) as u128).collect();
                let float: Vec<f64> = (0..len).map(|i| pid as f64 + i as f64 / 4.0).collect();
                ctx.send(q, &tag, &wide[..]);
                ctx.send(q, &tag, &[7u8; 5][..len + 1]); // odd lengths in between
                ctx.send(q, &tag, &float[..]);
            }
        }
        ctx.sync();
        let mut held = Vec::new();
        for from in 0..p {
            for len in 0..4 {
                let (t, wide) = ctx.hpmove::<Tg, u128>().unwrap();
                let (_, odd) = ctx.hpmove_bytes().unwrap();
                let (_, float) = ctx.hpmove::<Tg, f64>().unwrap();
                assert_eq!(t, &tag);
                assert_eq!(odd.len(), len + 1);
                let tag_addr = t as *const Tg as usize;
                assert_eq!(tag_addr % std::mem::align_of::<Tg>(), 0, "tag of {} bytes", std::mem::size_of::<Tg>());
                assert_eq!(wide.as_ptr() as usize % std::mem::align_of::<u128>(), 0, "u128 payload of {len}");
                assert_eq!(float.as_ptr() as usize % std::mem::align_of::<f64>(), 0, "f64 payload of {len}");
                held.push((from, len, wide, float));
            }
        }
        assert!(ctx.hpmove_bytes().is_none());
        // every reference is still valid after the later moves
        for (from, len, wide, float) in held {
            let want_wide: Vec<u128> = (0..len).map(|i| (u128::MAX / 3) ^ (from * 10 + i) as u128).collect();
            let want_float: Vec<f64> = (0..len).map(|i| from as f64 + i as f64 / 4.0).collect();
            assert_eq!(wide, &want_wide[..]);
            assert_eq!(float, &want_float[..]);
        }
    }
    for p in [1, 2, 3] {
        run_ok(p, |ctx| {
            check(ctx, ());
            check(ctx, 0x5Au8);
            check(ctx, [1u8, 2, 3]);
            check(ctx, 0x0123_4567_89AB_CDEFu64);
            check(ctx, [0xFFu8; 17]);
        });
    }
}

/// D11: "aligned for any plain-data type" includes the 32-byte-aligned SIMD types that
/// `bytemuck` makes `Pod` (`__m256`): `hpmove` must hand them out, and the copying moves must
/// accept them too.
#[cfg(target_arch = "x86_64")]
#[test]
fn hpmove_and_move_message_accept_32_byte_aligned_values() {
    use std::arch::x86_64::__m256;
    let got = run_ok(2, |ctx| {
        let other = 1 - ctx.pid();
        let lanes: Vec<[f32; 8]> = (0..3).map(|i| [ctx.pid() as f32 + i as f32; 8]).collect();
        let payload: Vec<__m256> = lanes.iter().map(|&l| bytemuck::cast(l)).collect();
        ctx.send(other, &(), &payload[..]);
        ctx.send(other, &(), &payload[..]);
        ctx.sync();
        let (_, by_ref) = ctx.hpmove::<(), __m256>().expect("a message");
        let aligned = by_ref.as_ptr() as usize % std::mem::align_of::<__m256>() == 0;
        let by_ref: Vec<[f32; 8]> = by_ref.iter().map(|&v| bytemuck::cast(v)).collect();
        let (_, copied) = ctx.move_message::<(), __m256>().expect("a message");
        let copied: Vec<[f32; 8]> = copied.iter().map(|&v| bytemuck::cast(v)).collect();
        (aligned, by_ref, copied)
    });
    for (pid, (aligned, by_ref, copied)) in got.into_iter().enumerate() {
        let want: Vec<[f32; 8]> = (0..3).map(|i| [(1 - pid) as f32 + i as f32; 8]).collect();
        assert!(aligned);
        assert_eq!(by_ref, want);
        assert_eq!(copied, want);
    }
}

/// §4.7, bsmp(3): messages sent in superstep s are readable only in s + 1 (not in s, even
/// when sent to oneself) and are gone after the next sync.
#[test]
fn messages_are_readable_only_in_the_next_superstep() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let (_, right) = ring(pid, p);
            let x = ctx.push_reg([0u8]);
            ctx.sync();
            ctx.send(pid, &(), &[1u8, 2][..]);
            ctx.send(right, &(), &[3u8][..]);
            let same = ctx.qsize();
            ctx.sync();
            let next = ctx.qsize();
            // not read; someone communicates in this superstep
            ctx.put(right, &1u8, &x, 0);
            ctx.sync();
            (same, next, ctx.qsize())
        });
        for g in got {
            assert_eq!(g, ((0, 0), (2, 3), (0, 0)));
        }
    }
}

/// D10, §4.7, bsmp(3): unread messages are discarded at the next sync, also when nobody
/// communicates in that superstep, and also after part of the queue was read.
#[test]
fn unread_messages_are_discarded_at_the_next_sync_even_if_nobody_communicates() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let (_, right) = ring(pid, p);
            ctx.send(right, &(), &[3u8; 3][..]);
            ctx.send(right, &(), &[4u8; 4][..]);
            ctx.sync();
            let full = ctx.qsize();
            ctx.sync(); // an empty superstep: nobody sends, puts or registers anything
            let untouched = ctx.qsize();
            ctx.send(right, &(), &[5u8; 5][..]);
            ctx.send(right, &(), &[6u8; 6][..]);
            ctx.sync();
            let partly = ctx.move_bytes(&mut []);
            ctx.sync();
            (full, untouched, partly, ctx.qsize(), ctx.hpmove_bytes().is_none())
        });
        for g in got {
            assert_eq!(g, ((2, 7), (0, 0), Some(5), (0, 0), true));
        }
    }
}

/// D10: dequeue order is deterministic: ascending source pid, then send order.
#[test]
fn dequeue_order_is_ascending_source_pid_then_send_order() {
    for p in PS {
        for _ in 0..3 {
            let got = run_ok(p, |ctx| {
                let (pid, p) = (ctx.pid(), ctx.nprocs());
                ctx.set_tag::<[u32; 2]>();
                ctx.sync();
                for seq in 0..3u32 {
                    for q in (0..p).rev() {
                        ctx.send(q, &[pid as u32, seq], &[seq as u8][..]);
                    }
                }
                ctx.sync();
                let mut order = Vec::new();
                while let Some((tag, payload)) = ctx.move_message::<[u32; 2], u8>() {
                    assert_eq!(payload, [tag[1] as u8]);
                    order.push(tag);
                }
                order
            });
            let want: Vec<[u32; 2]> = (0..p as u32).flat_map(|q| (0..3).map(move |s| [q, s])).collect();
            for order in got {
                assert_eq!(order, want);
            }
        }
    }
}

/// §4.2: a process can send to itself; tag and payload are copied at the call.
#[test]
fn a_process_can_send_to_itself() {
    for p in PS {
        let got = run_ok(p, |ctx| {
            let pid = ctx.pid();
            ctx.set_tagsize(3);
            ctx.sync();
            let mut tag = [pid as u8, 1, 2];
            let mut payload = vec![pid as u8; 4];
            ctx.send_bytes(pid, &tag, &payload);
            tag[0] = 0xFF;
            payload.fill(0xFF);
            ctx.sync();
            let mut got_tag = [0u8; 3];
            let len = ctx.get_tag_bytes(&mut got_tag);
            let (t, body) = ctx.hpmove_bytes().unwrap();
            (len, got_tag, t.to_vec(), body.to_vec(), ctx.qsize(), tag[0])
        });
        for (pid, g) in got.into_iter().enumerate() {
            let pid = pid as u8;
            assert_eq!(g, (Some(4), [pid, 1, 2], vec![pid, 1, 2], vec![pid; 4], (0, 0), 0xFF));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// D14: a process's panic is contained to its own run
// ---------------------------------------------------------------------------------------------

/// D13, D14: a failing nested run is reported to the process that started it, which carries
/// on with its own run.
#[test]
fn a_failing_nested_run_is_reported_to_its_caller_only() {
    for p in [1, 2, 3] {
        let got = run_ok(p, |ctx| {
            let inner = bsp_runtime::run(2, |ictx| {
                if ictx.pid() == 1 {
                    ictx.abort("inner failure");
                }
                ictx.sync();
            });
            let err = inner.unwrap_err();
            ctx.sync();
            (err.pid(), err.is_abort(), err.message().to_string(), ctx.step())
        });
        for g in got {
            assert_eq!(g, (Some(1), true, "inner failure".to_string(), 1));
        }
    }
}

/// A panic caught by user code outside a `superstep` leaves the process able to communicate.
#[test]
fn a_caught_panic_outside_a_superstep_does_not_break_the_process() {
    let got = run_ok(2, |ctx| {
        let caught = catch_unwind(AssertUnwindSafe(|| {
            if ctx.pid() == 1 {
                panic!("handled by the program");
            }
        }));
        let x = ctx.push_reg([ctx.pid() as u8]);
        ctx.sync();
        let mut other = 0;
        ctx.superstep(|s| s.get(1 - s.pid(), &x, 0, &mut other));
        (caught.is_err(), other)
    });
    assert_eq!(got, [(false, 1), (true, 0)]);
}
