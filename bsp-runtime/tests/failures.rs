//! `bsp-runtime` failures: every misuse, collective mismatch, panic and abort ends the run
//! promptly (D14, D16: never a hang) with an `Error` whose message carries the values that
//! explain it (pid, operation, registration, offset, length, extent, superstep).
//!
//! Every run goes through `common::within`, which fails the test instead of hanging after 20 s.

mod common;

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bsp_runtime::{Error, Launch, Reg, Remote, NPROCS_VAR};
use common::{assert_mentions, ring, run_err, run_ok, within};

/// Asserts that the run failed on process `pid` with a misuse (not an abort).
#[track_caller]
fn assert_misuse_on(err: &Error, pid: usize) {
    assert_eq!(err.pid(), Some(pid), "failed on the wrong process: {err}");
    assert!(!err.is_abort(), "a misuse is not an abort: {err}");
}

// ---------------------------------------------------------------------------------------------
// D14: panics and aborts stop every process promptly
// ---------------------------------------------------------------------------------------------

/// D14: a panic in one process wakes the others waiting in a sync; the error has its pid and
/// its message.
#[test]
fn a_panic_in_one_process_stops_the_others_waiting_in_sync() {
    for p in [2, 4] {
        let culprit = p / 2;
        let started = Instant::now();
        let err = run_err(p, move |ctx| {
            ctx.sync();
            if ctx.pid() == culprit {
                std::thread::sleep(Duration::from_millis(20)); // the others are in the sync by now
                panic!("boom in superstep {}", ctx.step());
            }
            ctx.sync();
            ctx.sync();
        });
        assert_eq!(err.pid(), Some(culprit));
        assert_eq!(err.message(), "boom in superstep 1");
        assert!(!err.is_abort());
        assert_eq!(err.to_string(), format!("process {culprit} failed: boom in superstep 1"));
        assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    }
}

/// D14: a panic whose payload is not a string is still reported, with its pid.
#[test]
fn a_panic_with_a_non_string_payload_is_reported() {
    let err = run_err(2, |ctx| {
        if ctx.pid() == 1 {
            std::panic::panic_any(42u32);
        }
        ctx.sync();
    });
    assert_eq!(err.pid(), Some(1));
    assert_mentions(&err, &["process 1 failed", "non-string payload"]);
}

/// D12, D14: the same with many more processes than cores.
#[test]
fn a_panic_among_sixteen_processes_stops_them_all() {
    let err = run_err(16, |ctx| {
        let x = ctx.push_reg([0u8]);
        ctx.sync();
        for _ in 0..5 {
            if ctx.pid() == 11 && ctx.step() == 3 {
                panic!("process eleven gives up");
            }
            ctx.put(ring(ctx.pid(), ctx.nprocs()).1, &1u8, &x, 0);
            ctx.sync();
        }
    });
    assert_eq!(err.pid(), Some(11));
    assert_eq!(err.message(), "process eleven gives up");
}

/// D14: processes that are computing when another one fails stop at their next communication
/// call (or at the end of the SPMD function), without reporting anything of their own.
#[test]
fn processes_computing_when_another_fails_stop_at_their_next_call() {
    for p in [2, 4] {
        let err = run_err(p, |ctx| {
            let x = ctx.push_reg([0u32]);
            ctx.sync();
            if ctx.pid() == 0 {
                panic!("early failure");
            }
            std::thread::sleep(Duration::from_millis(30));
            ctx.put(0, &1u32, &x, 0);
            ctx.send(0, &(), &[1u8][..]);
            ctx.sync();
        });
        assert_eq!((err.pid(), err.message()), (Some(0), "early failure"));
    }
}

/// D14: when several processes fail, the error is one of their failures, consistent in pid and
/// message.
#[test]
fn when_several_processes_fail_one_failure_is_reported_whole() {
    for p in [2, 3, 8] {
        let err = run_err(p, |ctx| {
            ctx.sync();
            panic!("failure of process {}", ctx.pid());
        });
        let pid = err.pid().expect("a process failed");
        assert!(pid < p);
        assert_eq!(err.message(), format!("failure of process {pid}"));
    }
}

/// §2.7 NOTES i: when several processes abort in the same superstep, one of the aborts is
/// reported, whole.
#[test]
fn when_several_processes_abort_one_abort_is_reported_whole() {
    let err = run_err(4, |ctx| {
        ctx.sync();
        ctx.abort(format!("abort of process {}", ctx.pid()));
    });
    let pid = err.pid().expect("a process aborted");
    assert!(err.is_abort());
    assert_eq!(err.to_string(), format!("process {pid} aborted: abort of process {pid}"));
}

/// §2.7, D14: `abort` stops every process; the error is an abort with the pid and message.
#[test]
fn abort_stops_every_process_and_is_reported_as_an_abort() {
    for (p, culprit) in [(1, 0), (3, 1), (8, 0), (8, 7)] {
        let err = run_err(p, move |ctx| {
            ctx.sync();
            if ctx.pid() == culprit {
                ctx.abort(format!("input {} is bad", 42));
            }
            ctx.sync();
            ctx.sync();
        });
        assert!(err.is_abort());
        assert_eq!(err.pid(), Some(culprit));
        assert_eq!(err.message(), "input 42 is bad");
        assert_eq!(err.to_string(), format!("process {culprit} aborted: input 42 is bad"));
    }
}

/// D14: an abort inside a `superstep` closure, while the others wait at its sync.
#[test]
fn abort_inside_a_superstep_stops_every_process() {
    let err = run_err(3, |ctx| {
        let x = ctx.push_reg([ctx.pid() as u64]);
        ctx.sync();
        let mut v = 0;
        ctx.superstep(|s| {
            s.get(0, &x, 0, &mut v);
            if s.pid() == 2 {
                s.abort("no more input");
            }
        });
        v
    });
    assert!(err.is_abort());
    assert_eq!(err.to_string(), "process 2 aborted: no more input");
}

// ---------------------------------------------------------------------------------------------
// D16: a process ends while others sync
// ---------------------------------------------------------------------------------------------

/// D16, §2.2: process 0 returns from the SPMD function while the others call sync; the message
/// names both sides and the superstep, and nobody gets past that sync.
#[test]
fn process_zero_returning_early_is_reported_with_both_sides_and_the_superstep() {
    let passed = Arc::new(AtomicUsize::new(0));
    let seen = passed.clone();
    let err = run_err(3, move |ctx| {
        ctx.sync();
        if ctx.pid() == 0 {
            return;
        }
        ctx.sync();
        seen.fetch_add(1, Ordering::SeqCst);
        ctx.sync();
    });
    assert_mentions(
        &err,
        &["process 0 returned from the SPMD function", "processes 1, 2 called `sync`", "superstep 1"],
    );
    assert!(!err.is_abort());
    assert_eq!(passed.load(Ordering::SeqCst), 0, "a process got past the mismatched sync");
}

/// D16: a process other than 0 returns early (at superstep 0).
#[test]
fn a_later_process_returning_early_is_reported_with_both_sides_and_the_superstep() {
    let err = run_err(4, |ctx| {
        if ctx.pid() == 3 {
            return;
        }
        ctx.sync();
    });
    assert_mentions(
        &err,
        &["process 3 returned from the SPMD function", "processes 0, 1, 2 called `sync`", "superstep 0"],
    );
    let err = run_err(2, |ctx| {
        if ctx.pid() == 1 {
            return;
        }
        ctx.sync();
    });
    assert_mentions(&err, &["process 1 returned from the SPMD function", "process 0 called `sync`", "superstep 0"]);
}

/// D16: several processes on each side.
#[test]
fn several_processes_returning_early_are_all_named() {
    let err = run_err(4, |ctx| {
        ctx.sync();
        ctx.sync();
        if ctx.pid() == 1 || ctx.pid() == 2 {
            return;
        }
        ctx.sync();
    });
    assert_mentions(&err, &["processes 1, 2 returned", "processes 0, 3 called `sync`", "superstep 2"]);
}

// ---------------------------------------------------------------------------------------------
// D16, §2.8: collective mismatches found at the sync, on every process
// ---------------------------------------------------------------------------------------------

/// Runs `f` on `p` processes, expecting a collective failure at the sync it calls through
/// `mismatch`; checks that no process got past that sync.
fn collective_failure(p: usize, f: impl Fn(&mut bsp_runtime::Ctx) + Sync + Send + 'static) -> Error {
    let passed = Arc::new(AtomicUsize::new(0));
    let seen = passed.clone();
    let err = run_err(p, move |ctx| {
        f(ctx);
        seen.fetch_add(1, Ordering::SeqCst);
        ctx.sync();
    });
    assert_eq!(passed.load(Ordering::SeqCst), 0, "a process got past the mismatched sync: {err}");
    assert!(!err.is_abort());
    err
}

/// §2.8 "push count differs".
#[test]
fn processes_pushing_different_numbers_of_registrations_fail_at_the_sync() {
    let err = collective_failure(3, |ctx| {
        let _a = ctx.push_reg([0u32]);
        if ctx.pid() == 1 {
            let _b = ctx.push_reg([0u32]);
        }
        ctx.sync();
    });
    assert_mentions(
        &err,
        &["registration mismatch at the sync ending superstep 0", "`push_reg`", "per process: [1, 2, 1]"],
    );
}

/// §3.1: the processes register different element types at the same registration.
#[test]
fn registrations_of_different_element_types_fail_at_the_sync() {
    let err = collective_failure(2, |ctx| {
        ctx.sync();
        let _a = ctx.push_reg([0u16]);
        if ctx.pid() == 0 {
            let _b = ctx.push_reg([0u8]);
        } else {
            let _b = ctx.push_reg([0u64]);
        }
        ctx.sync();
    });
    assert_mentions(
        &err,
        &["registration mismatch at the sync ending superstep 1", "registration #2", "`u8`", "`u64`", "process 1"],
    );
}

/// §3.1: different element types of the same size are a mismatch too.
#[test]
fn registrations_of_different_element_types_of_the_same_size_fail_at_the_sync() {
    let err = collective_failure(2, |ctx| {
        if ctx.pid() == 0 {
            let _x = ctx.push_reg([0u32]);
        } else {
            let _x = ctx.push_reg([0f32]);
        }
        ctx.sync();
    });
    assert_mentions(&err, &["registration mismatch", "registration #1", "`u32`", "`f32`"]);
}

/// §2.8, §3.2 "different registration popped".
#[test]
fn pops_of_different_registrations_fail_at_the_sync() {
    let err = collective_failure(2, |ctx| {
        let a = ctx.push_reg([0u32]);
        let b = ctx.push_reg([0u32]);
        ctx.sync();
        ctx.pop_reg(if ctx.pid() == 0 { &a } else { &b });
        ctx.sync();
    });
    assert_mentions(
        &err,
        &["deregistration mismatch at the sync ending superstep 1", "process 0 popped [#1]", "process 1 popped [#2]"],
    );
}

/// §3.2 "pop on one process only" (LPF `func_bsplib_pushpopreg_pop_on_one_process`).
#[test]
fn a_pop_on_one_process_only_fails_at_the_sync() {
    let err = collective_failure(3, |ctx| {
        let a = ctx.push_reg([0u32]);
        ctx.sync();
        if ctx.pid() == 2 {
            ctx.pop_reg(&a);
        }
        ctx.sync();
    });
    assert_mentions(&err, &["deregistration mismatch", "superstep 1", "process 0 popped []", "process 2 popped [#1]"]);
}

/// D8, §4.1: the processes end a superstep with different tag-size requests.
#[test]
fn different_tag_size_requests_fail_at_the_sync() {
    let err = collective_failure(3, |ctx| {
        ctx.set_tagsize(4);
        if ctx.pid() == 2 {
            ctx.set_tagsize(8);
        }
        ctx.sync();
    });
    assert_mentions(&err, &["tag size mismatch at the sync ending superstep 0", "per process: [4, 4, 8]"]);
}

// ---------------------------------------------------------------------------------------------
// D15: communication pending when the SPMD function returns
// ---------------------------------------------------------------------------------------------

/// D15: a put queued after the last sync.
#[test]
fn a_put_pending_at_the_end_is_an_error_naming_the_process_and_count() {
    let err = run_err(3, |ctx| {
        let x = ctx.push_reg([0u32]);
        ctx.sync();
        if ctx.pid() == 1 {
            ctx.put(0, &1u32, &x, 0);
        }
    });
    assert_mentions(&err, &["queued after the last sync", "process 1 has 1 put queued", "superstep 1"]);
    assert!(!err.to_string().contains("process 0 has"), "{err}");
}

/// D15: messages sent after the last sync, on several processes.
#[test]
fn sends_pending_at_the_end_are_an_error_naming_every_process_and_count() {
    let err = run_err(3, |ctx| {
        if ctx.pid() != 1 {
            for _ in 0..=ctx.pid() {
                ctx.send(1, &(), &[0u8][..]);
            }
        }
    });
    assert_mentions(&err, &["process 0 has 1 send", "process 2 has 3 send", "superstep 0"]);
}

/// D15 as the runtime documents it: a registration change left pending (BSPlib programs often
/// end with `bsp_pop_reg` right before `bsp_end`) loses nothing and is not an error.
#[test]
fn a_registration_change_pending_at_the_end_is_not_an_error() {
    let got = run_ok(3, |ctx| {
        let x = ctx.push_reg([1u8]);
        ctx.sync();
        ctx.pop_reg(&x);
        let _y = ctx.push_reg([2u8]);
        ctx.step()
    });
    assert_eq!(got, [1, 1, 1]);
}

// ---------------------------------------------------------------------------------------------
// §3.3, §3.4, §4.2: bad arguments, reported at the call
// ---------------------------------------------------------------------------------------------

/// §3.3, §3.4, §4.2 "pid ≥ p": for every operation that names a process.
#[test]
fn a_pid_out_of_range_is_reported_at_the_call() {
    type Op = fn(&mut bsp_runtime::Ctx, &Reg<u32>);
    let ops: [(&str, Op); 6] = [
        ("put", |ctx, x| ctx.put(7, &1u32, x, 0)),
        ("get", |ctx, x| {
            let mut v = 0;
            ctx.superstep(|s| s.get(7, x, 0, &mut v))
        }),
        ("hpput", |ctx, x| ctx.superstep(|s| s.hpput(7, &1u32, x, 0))),
        ("hpget", |ctx, x| {
            let mut v = 0;
            ctx.superstep(|s| s.hpget(7, x, 0, &mut v))
        }),
        ("send", |ctx, _| ctx.send(7, &(), &[1u8][..])),
        ("send_bytes", |ctx, _| ctx.send_bytes(7, &[], &[1])),
    ];
    for (name, op) in ops {
        let err = run_err(2, move |ctx| {
            let x = ctx.push_reg([0u32]);
            ctx.sync();
            if ctx.pid() == 1 {
                op(ctx, &x);
            }
            ctx.sync();
        });
        assert_misuse_on(&err, 1);
        assert_mentions(&err, &[name, "pid 7", "out of range", "nprocs = 2"]);
    }
}

/// §3.3, §3.4, §6.1: bounds are those of the target: an access within the caller's extent but
/// past the target's fails, naming operation, process, registration, offset, length, extent.
#[test]
fn an_access_past_the_targets_extent_is_reported_with_all_its_values() {
    type Op = fn(&mut bsp_runtime::Ctx, &Reg<u32>);
    // process q registers q + 1 elements; process 3 accesses process 1 (extent 2)
    let ops: [(&str, Op); 4] = [
        ("put with process 1", |ctx, x| ctx.put(1, &[5u32, 5], x, 1)),
        ("get with process 1", |ctx, x| {
            let mut v = [0u32; 2];
            ctx.superstep(|s| s.get(1, x, 1, &mut v))
        }),
        ("hpput with process 1", |ctx, x| ctx.superstep(|s| s.hpput(1, &[5u32, 5], x, 1))),
        ("hpget with process 1", |ctx, x| {
            let mut v = [0u32; 2];
            ctx.superstep(|s| s.hpget(1, x, 1, &mut v))
        }),
    ];
    for (name, op) in ops {
        let err = run_err(4, move |ctx| {
            let x = ctx.push_reg(vec![0u32; ctx.pid() + 1]);
            ctx.sync();
            if ctx.pid() == 3 {
                op(ctx, &x);
            }
            ctx.sync();
        });
        assert_misuse_on(&err, 3);
        assert_mentions(&err, &[name, "registration #1", "offset 1", "length 2", "extent 2", "`u32`"]);
    }
}

/// §3.3: process 0 (extent 1) may write past its own extent into process 3's part (extent 4),
/// up to process 3's extent and no further.
#[test]
fn the_callers_own_extent_does_not_limit_an_access() {
    let err = run_err(4, |ctx| {
        let x = ctx.push_reg(vec![0u32; ctx.pid() + 1]);
        ctx.sync();
        if ctx.pid() == 0 {
            ctx.put(3, &[1u32, 2, 3], &x, 1); // fine: 1 + 3 <= 4
        }
        ctx.sync();
        if ctx.pid() == 0 {
            let mut v = [0u32; 3];
            ctx.superstep(|s| s.get(3, &x, 2, &mut v)); // 2 + 3 > 4
        }
        ctx.sync();
    });
    assert_misuse_on(&err, 0);
    assert_mentions(&err, &["get with process 3", "registration #1", "offset 2", "length 3", "extent 4"]);
}

/// An offset so large that offset + length overflows is out of range, not a wrap-around.
#[test]
fn an_overflowing_offset_is_out_of_range() {
    let err = run_err(2, |ctx| {
        let x = ctx.push_reg([0u8; 4]);
        ctx.sync();
        if ctx.pid() == 0 {
            ctx.put(1, &[1u8, 2], &x, usize::MAX);
        }
        ctx.sync();
    });
    assert_misuse_on(&err, 0);
    assert_mentions(&err, &["put with process 1", "registration #1", &format!("offset {}", usize::MAX), "length 2"]);
}

/// D4, §3.1: a registration used in the superstep it was pushed in fails at the call, naming
/// it; for a put and for a get.
#[test]
fn a_registration_used_before_it_takes_effect_is_reported_at_the_call() {
    let err = run_err(2, |ctx| {
        let x = ctx.push_reg([0u32]);
        if ctx.pid() == 1 {
            ctx.put(0, &1u32, &x, 0);
        }
        ctx.sync();
    });
    assert_misuse_on(&err, 1);
    assert_mentions(&err, &["put with process 0", "registration #1", "pushed in this superstep (0)", "next sync"]);

    let err = run_err(2, |ctx| {
        ctx.sync();
        let _a = ctx.push_reg([0u32]);
        let b = ctx.push_reg([0u32]);
        let mut v = 0;
        ctx.superstep(|s| s.get(1 - s.pid(), &b, 0, &mut v));
    });
    assert_mentions(&err, &["get with process", "registration #2", "pushed in this superstep (1)"]);
}

/// §3.2: after the sync that applies its pop, a registration is gone: put, get and pop fail.
#[test]
fn a_deregistered_registration_is_reported_at_the_call() {
    type Op = fn(&mut bsp_runtime::Ctx, &Reg<u32>);
    let ops: [(&str, Op); 3] = [
        ("put with process 1", |ctx, x| ctx.put(1, &1u32, x, 0)),
        ("get with process 1", |ctx, x| {
            let mut v = 0;
            ctx.superstep(|s| s.get(1, x, 0, &mut v))
        }),
        ("pop_reg", |ctx, x| ctx.pop_reg(x)),
    ];
    for (name, op) in ops {
        let err = run_err(2, move |ctx| {
            let x = ctx.push_reg([0u32]);
            ctx.sync();
            ctx.pop_reg(&x);
            ctx.sync();
            if ctx.pid() == 0 {
                op(ctx, &x);
            }
            ctx.sync();
        });
        assert_misuse_on(&err, 0);
        assert_mentions(&err, &[name, "registration #1", "not registered"]);
    }
}

/// §3.2: a handle whose registration is gone never reaches the registration that took over its
/// slot, whatever the operation.
#[test]
fn a_stale_handle_never_reaches_the_registration_that_reuses_its_slot() {
    for use_remote in [false, true] {
        let err = run_err(2, move |ctx| {
            let x = ctx.push_reg([1u32]);
            ctx.sync();
            let stale = x.remote();
            ctx.pop_reg(&x);
            ctx.sync();
            let y = ctx.push_reg([2u32]); // takes x's slot
            ctx.sync();
            if ctx.pid() == 1 {
                if use_remote {
                    ctx.put(0, &9u32, stale, 0);
                } else {
                    ctx.put(0, &9u32, &x, 0);
                }
            }
            ctx.sync();
            *y.value(ctx)
        });
        assert_misuse_on(&err, 1);
        assert_mentions(&err, &["put with process 0", "registration #1", "not registered"]);
    }
}

/// `value` of a registration with no local elements names the registration.
#[test]
fn the_value_of_an_empty_registration_is_reported() {
    let err = run_err(2, |ctx| {
        let x = ctx.push_reg(vec![7u64; ctx.pid()]);
        ctx.sync();
        *x.value(ctx)
    });
    assert_misuse_on(&err, 0);
    assert_mentions(&err, &["value", "registration #1", "no elements"]);
}

/// D5: popping a registration in the superstep it was pushed in fails at the call.
#[test]
fn popping_a_registration_in_the_superstep_it_was_pushed_is_reported_at_the_call() {
    let err = run_err(2, |ctx| {
        let x = ctx.push_reg([0u32]);
        if ctx.pid() == 1 {
            ctx.pop_reg(&x);
        }
        ctx.sync();
    });
    assert_misuse_on(&err, 1);
    assert_mentions(&err, &["pop_reg", "registration #1", "pushed in this superstep (0)"]);
}

/// §3.2: popping the same registration twice in one superstep fails at the second call.
#[test]
fn popping_a_registration_twice_is_reported_at_the_call() {
    let err = run_err(2, |ctx| {
        let x = ctx.push_reg([0u32]);
        ctx.sync();
        ctx.pop_reg(&x);
        if ctx.pid() == 0 {
            ctx.pop_reg(&x);
        }
        ctx.sync();
    });
    assert_misuse_on(&err, 0);
    assert_mentions(&err, &["pop_reg", "registration #1", "already popped in superstep 1"]);
}

/// `into_vec` before the pop has taken effect fails: the memory is still registered.
#[test]
fn into_vec_of_a_registered_variable_is_reported() {
    for pop_first in [false, true] {
        let err = run_err(2, move |ctx| {
            let x = ctx.push_reg([0u32]);
            ctx.sync();
            if pop_first {
                ctx.pop_reg(&x);
            }
            if ctx.pid() == 1 {
                drop(x.into_vec(ctx));
            }
            ctx.sync();
        });
        assert_misuse_on(&err, 1);
        assert_mentions(&err, &["into_vec", "registration #1", "still registered"]);
    }
}

thread_local! {
    static STASH: RefCell<Option<Reg<u32>>> = const { RefCell::new(None) };
}

/// A registration handle of an earlier run, used in a later run on the same thread.
#[test]
fn a_registration_of_another_run_is_reported_at_the_call() {
    let err = within("two runs", || {
        bsp_runtime::run(1, |ctx| {
            let x = ctx.push_reg([1u32]);
            ctx.sync();
            STASH.with(|s| *s.borrow_mut() = Some(x));
        })
        .unwrap();
        bsp_runtime::run(2, |ctx| {
            if ctx.pid() == 0 {
                let x = STASH.with(|s| s.borrow_mut().take()).expect("stashed by the first run");
                ctx.put(1, &5u32, &x, 0);
            }
            ctx.sync();
        })
        .unwrap_err()
    });
    assert_misuse_on(&err, 0);
    assert_mentions(&err, &["put", "registration #1", "another run"]);
}

/// A `Remote` name of an earlier run, used in a later run.
#[test]
fn a_remote_name_of_another_run_is_reported_at_the_call() {
    let names = run_ok(2, |ctx| {
        let x = ctx.push_reg([1u32]);
        ctx.sync();
        x.remote()
    });
    let err = run_err(2, move |ctx| {
        let _x = ctx.push_reg([1u32]);
        ctx.sync();
        let mut v = 0;
        ctx.superstep(|s| s.get(0, names[s.pid()], 0, &mut v));
    });
    assert_mentions(&err, &["get", "registration #1", "another run"]);
}

/// A `Remote` name is this process's: another process of the same run may not use it.
#[test]
fn a_remote_name_of_another_process_is_reported_at_the_call() {
    let shared: Arc<Mutex<Option<Remote<u32>>>> = Arc::new(Mutex::new(None));
    let err = run_err(2, move |ctx| {
        let x = ctx.push_reg([1u32]);
        ctx.sync();
        if ctx.pid() == 0 {
            *shared.lock().unwrap() = Some(x.remote());
        }
        ctx.sync();
        if ctx.pid() == 1 {
            let name = shared.lock().unwrap().expect("stored by process 0");
            ctx.put(0, &5u32, name, 0);
        }
        ctx.sync();
    });
    assert_misuse_on(&err, 1);
    assert_mentions(&err, &["put", "registration #1", "belongs to process 0"]);
}

// ---------------------------------------------------------------------------------------------
// §4: BSMP misuse
// ---------------------------------------------------------------------------------------------

/// §4.1, §4.2: a tag whose size is not the one in force, including in the superstep that
/// requests a new size (it takes effect only at the next sync).
#[test]
fn a_tag_of_the_wrong_size_is_reported_at_the_send() {
    let err = run_err(2, |ctx| {
        ctx.set_tag::<u32>();
        ctx.sync();
        if ctx.pid() == 0 {
            ctx.send(1, &0u64, &[1u8][..]);
        }
        ctx.sync();
    });
    assert_misuse_on(&err, 0);
    assert_mentions(&err, &["send to process 1", "the tag has 8 bytes", "tag size in force is 4"]);

    let err = run_err(2, |ctx| {
        ctx.set_tagsize(4);
        if ctx.pid() == 1 {
            ctx.send_bytes(0, &[1, 2, 3, 4], &[]);
        }
        ctx.sync();
    });
    assert_misuse_on(&err, 1);
    assert_mentions(&err, &["send_bytes to process 0", "the tag has 4 bytes", "tag size in force is 0"]);
}

/// §4.4–§4.6: typed reception with a tag type whose size is not the queue's tag size.
#[test]
fn a_typed_reception_with_the_wrong_tag_type_is_reported() {
    type Op = fn(&bsp_runtime::Ctx);
    let ops: [(&str, Op); 3] = [
        ("get_tag", |ctx| {
            let _ = ctx.get_tag::<u64>();
        }),
        ("move_message", |ctx| {
            let _ = ctx.move_message::<u16, u8>();
        }),
        ("hpmove", |ctx| {
            let _ = ctx.hpmove::<u8, u8>();
        }),
    ];
    for (name, op) in ops {
        let err = run_err(2, move |ctx| {
            ctx.set_tag::<u32>();
            ctx.sync();
            ctx.send(1 - ctx.pid(), &7u32, &[1u8][..]);
            ctx.sync();
            if ctx.pid() == 1 {
                op(ctx);
            }
            ctx.sync();
        });
        assert_misuse_on(&err, 1);
        assert_mentions(&err, &[name, "4-byte tags"]);
    }
}

/// §4.5: a payload that is not a whole number of the requested element type.
#[test]
fn a_payload_that_is_not_a_whole_number_of_elements_is_reported() {
    let err = run_err(2, |ctx| {
        ctx.send_bytes(1 - ctx.pid(), &[], &[1, 2, 3]);
        ctx.sync();
        if ctx.pid() == 0 {
            let _ = ctx.move_message::<(), u16>();
        }
        ctx.sync();
    });
    assert_misuse_on(&err, 0);
    assert_mentions(&err, &["move_message", "3 bytes", "`u16`"]);
}

// ---------------------------------------------------------------------------------------------
// Launch errors (§2.1 "maxprocs < 1")
// ---------------------------------------------------------------------------------------------

/// `BSP_NPROCS` that is 0 or not a number, and `run(0, ..)`, are launch errors without a pid.
/// Only this test of this file touches the environment.
#[test]
fn a_bad_process_count_is_a_launch_error() {
    within("launch errors", || {
        for bad in ["0", "abc", "-3", "", "2.5"] {
            std::env::set_var(NPROCS_VAR, bad);
            let err = Launch::new().run(|ctx| ctx.pid()).unwrap_err();
            assert_eq!(err.pid(), None);
            assert!(!err.is_abort());
            assert!(err.to_string().contains("BSP_NPROCS") || bad == "0", "{bad:?}: {err}");
            if bad == "0" {
                assert_mentions(&err, &["0 processes"]);
            } else {
                assert_mentions(&err, &[&format!("{bad:?}"), "positive integer"]);
            }
            assert_eq!(Launch::new().default_procs(2).nprocs().unwrap_err(), err);
            // an explicit count does not look at the variable
            assert_eq!(Launch::new().procs(2).run(|ctx| ctx.nprocs()).unwrap(), [2, 2]);
        }
        std::env::remove_var(NPROCS_VAR);
        let err = bsp_runtime::run(0, |ctx| ctx.pid()).unwrap_err();
        assert_eq!(err.pid(), None);
        assert_eq!(err.to_string(), "cannot run an SPMD program on 0 processes");
    });
}

// ---------------------------------------------------------------------------------------------
// Panics inside a `superstep`; a process that catches them cannot communicate
// ---------------------------------------------------------------------------------------------

/// D14: a panic inside a `superstep` closure, with a get and an hpput queued, stops the run.
#[test]
fn a_panic_inside_a_superstep_stops_every_process() {
    let err = run_err(3, |ctx| {
        let x = ctx.push_reg([ctx.pid() as u32]);
        ctx.sync();
        let mut v = 0;
        let block = [9u32];
        ctx.superstep(|s| {
            s.get(0, &x, 0, &mut v);
            s.hpput(0, &block, &x, 0);
            if s.pid() == 1 {
                panic!("inside the superstep");
            }
        });
        v
    });
    assert_eq!((err.pid(), err.message()), (Some(1), "inside the superstep"));
}

/// A process that catches the panic of its `superstep` closure can no longer communicate:
/// its next sync, communication call or the end of its SPMD function fails with a clear message
/// (the addresses it queued in that superstep must never be used), and nobody hangs.
#[test]
fn a_process_that_caught_a_superstep_panic_cannot_communicate() {
    type Then = fn(&mut bsp_runtime::Ctx, &Reg<u32>);
    let continuations: [(&str, Then); 5] = [
        ("sync", |ctx, _| ctx.sync()),
        ("put", |ctx, x| ctx.put(0, &1u32, x, 0)),
        ("send", |ctx, _| ctx.send(0, &(), &[1u8][..])),
        ("the end of the SPMD function", |_, _| {}),
        ("sync", |ctx, _| ctx.superstep(|_| {})),
    ];
    for (name, then) in continuations {
        let err = run_err(3, move |ctx| {
            let x = ctx.push_reg([ctx.pid() as u32]);
            ctx.sync();
            let mut v = 0;
            let block = [9u32];
            let caught = catch_unwind(AssertUnwindSafe(|| {
                ctx.superstep(|s| {
                    s.get(0, &x, 0, &mut v);
                    s.hpput(2, &block, &x, 0);
                    if s.pid() == 1 {
                        panic!("caught below");
                    }
                })
            }));
            if caught.is_err() {
                then(ctx, &x);
                return;
            }
            ctx.sync();
        });
        assert_misuse_on(&err, 1);
        assert_mentions(&err, &[name, "a `superstep` of this process panicked earlier", "cannot communicate"]);
    }
}

/// `Error::message` is documented as "the failure's message, without the process prefix";
/// `Display` adds the prefix once.
#[test]
fn a_misuse_error_names_its_process_once() {
    let err = run_err(2, |ctx| {
        if ctx.pid() == 1 {
            ctx.send(5, &(), &[0u8][..]);
        }
        ctx.sync();
    });
    assert!(!err.message().starts_with("process"), "message(): {}", err.message());
    assert_eq!(err.to_string().matches("process 1").count(), 1, "{err}");
}
