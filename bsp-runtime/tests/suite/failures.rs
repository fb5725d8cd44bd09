//! Runs that must fail, as engine-neutral failure cases: every misuse, collective mismatch,
//! panic and abort ends the run promptly (D14, D16: never a hang) with an error whose message
//! carries the values that explain it (pid, operation, registration, offset, length, extent,
//! superstep). Each case is an SPMD function and a judge of the failure; `cases!` at the end
//! lists them with their process counts (threads: `failures.rs`; MPI: one job per case and
//! count, `mpi.rs`).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use bsp_runtime::{Ctx, Reg};

use super::check::{Failure, Outcome, Probe, cases, ensure, expect, ring};

/// Long enough for the other processes to be waiting in their sync.
const SETTLE: Duration = Duration::from_millis(100);

// ---------------------------------------------------------------------------------------------
// D14: panics and aborts stop every process promptly
// ---------------------------------------------------------------------------------------------

/// D14: a panic in one process (p / 2) wakes the others waiting in a sync; the error has its
/// pid and its message.
fn a_panic_in_one_process_stops_the_others_waiting_in_sync(ctx: &mut Ctx, probe: &Probe) {
    ctx.sync();
    if ctx.pid() == ctx.nprocs() / 2 {
        std::thread::sleep(SETTLE);
        panic!("boom in superstep {}", ctx.step());
    }
    ctx.sync();
    probe.reached("past the sync the culprit never reached");
    ctx.sync();
}

/// D14: a panic whose payload is not a string is still reported, with its pid.
fn a_panic_with_a_non_string_payload_is_reported(ctx: &mut Ctx, _: &Probe) {
    if ctx.pid() == 1 {
        std::panic::panic_any(42u32);
    }
    ctx.sync();
}

/// D12, D14: a panic of process 11 among sixteen processes.
fn a_panic_among_sixteen_processes_stops_them_all(ctx: &mut Ctx, _: &Probe) {
    let x = ctx.register([0u8]);
    for _ in 0..5 {
        if ctx.pid() == 11 && ctx.step() == 3 {
            panic!("process eleven gives up");
        }
        ctx.put(ring(ctx.pid(), ctx.nprocs()).1, &1u8, &x, 0);
        ctx.sync();
    }
}

/// D14: processes that are computing when another one fails stop at their next communication
/// call (or at the end of the SPMD function), without reporting anything of their own.
fn processes_computing_when_another_fails_stop_at_their_next_call(ctx: &mut Ctx, _: &Probe) {
    let x = ctx.register([0u32]);
    if ctx.pid() == 0 {
        panic!("early failure");
    }
    std::thread::sleep(Duration::from_millis(30));
    ctx.put(0, &1u32, &x, 0);
    ctx.send(0, &(), &[1u8][..]);
    ctx.sync();
}

/// D14: when several processes fail, the error is one of their failures, consistent in pid and
/// message.
fn when_several_processes_fail_one_failure_is_reported_whole(ctx: &mut Ctx, _: &Probe) {
    ctx.sync();
    panic!("failure of process {}", ctx.pid());
}

/// §2.7 NOTES i: when several processes abort in the same superstep, one of the aborts is
/// reported, whole.
fn when_several_processes_abort_one_abort_is_reported_whole(ctx: &mut Ctx, _: &Probe) {
    ctx.sync();
    ctx.abort(format!("abort of process {}", ctx.pid()));
}

/// The process that aborts in [`abort_stops_every_process_and_is_reported_as_an_abort`].
fn abort_culprit(p: usize) -> usize {
    if p == 3 { 1 } else { p - 1 }
}

/// §2.7, D14: `abort` stops every process; the error is an abort with the pid and message.
fn abort_stops_every_process_and_is_reported_as_an_abort(ctx: &mut Ctx, probe: &Probe) {
    ctx.sync();
    if ctx.pid() == abort_culprit(ctx.nprocs()) {
        std::thread::sleep(SETTLE);
        ctx.abort(format!("input {} is bad", 42));
    }
    ctx.sync();
    probe.reached("past the sync after the abort");
    ctx.sync();
}

/// §2.7, D14: the same by process 0.
fn an_abort_by_process_0_stops_every_process(ctx: &mut Ctx, _: &Probe) {
    ctx.sync();
    if ctx.pid() == 0 {
        ctx.abort(format!("input {} is bad", 42));
    }
    ctx.sync();
    ctx.sync();
}

/// D14: an abort inside a `superstep` closure, while the others wait at its sync.
fn abort_inside_a_superstep_stops_every_process(ctx: &mut Ctx, _: &Probe) {
    let x = ctx.register([ctx.pid() as u64]);
    let mut v = 0;
    ctx.superstep(|s| {
        s.get(0, &x, 0, &mut v);
        if s.pid() == 2 {
            s.abort("no more input");
        }
    });
}

/// D14: a panic inside a `superstep` closure, with a get and an hpput queued, stops the run.
fn a_panic_inside_a_superstep_stops_every_process(ctx: &mut Ctx, _: &Probe) {
    let x = ctx.register([ctx.pid() as u32]);
    let mut v = 0;
    let block = [9u32];
    ctx.superstep(|s| {
        s.get(0, &x, 0, &mut v);
        s.hpput(0, &block, &x, 0);
        if s.pid() == 1 {
            panic!("inside the superstep");
        }
    });
}

/// A process that catches the panic of its `superstep` closure can no longer communicate: its
/// next sync, communication call or the end of its SPMD function fails with a clear message (the
/// addresses it queued in that superstep must never be used), and nobody hangs. `then` is what
/// process 1 does after catching.
fn after_a_caught_superstep_panic(ctx: &mut Ctx, then: fn(&mut Ctx, &Reg<u32>)) {
    let x = ctx.register([ctx.pid() as u32]);
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
}

fn a_process_that_caught_a_superstep_panic_cannot_sync(ctx: &mut Ctx, _: &Probe) {
    after_a_caught_superstep_panic(ctx, |ctx, _| ctx.sync());
}

fn a_process_that_caught_a_superstep_panic_cannot_put(ctx: &mut Ctx, _: &Probe) {
    after_a_caught_superstep_panic(ctx, |ctx, x| ctx.put(0, &1u32, x, 0));
}

fn a_process_that_caught_a_superstep_panic_cannot_send(ctx: &mut Ctx, _: &Probe) {
    after_a_caught_superstep_panic(ctx, |ctx, _| ctx.send(0, &(), &[1u8][..]));
}

fn a_process_that_caught_a_superstep_panic_cannot_end_its_function(ctx: &mut Ctx, _: &Probe) {
    after_a_caught_superstep_panic(ctx, |_, _| {});
}

fn a_process_that_caught_a_superstep_panic_cannot_start_a_superstep(ctx: &mut Ctx, _: &Probe) {
    after_a_caught_superstep_panic(ctx, |ctx, _| ctx.superstep(|_| {}));
}

/// The judge of the `a_process_that_caught_a_superstep_panic_*` cases: `what` is the call
/// that failed.
fn cannot_communicate(f: &Failure, what: &str) -> Outcome {
    f.failed_on(1)?;
    f.mentions(&[what, "a `superstep` of this process panicked earlier", "cannot communicate"])
}

// ---------------------------------------------------------------------------------------------
// D16: a process ends while others sync
// ---------------------------------------------------------------------------------------------

/// D16, §2.2: process 0 returns from the SPMD function while the others call sync; the message
/// names both sides and the superstep, and nobody gets past that sync.
fn process_zero_returning_early_is_reported_with_both_sides_and_the_superstep(ctx: &mut Ctx, probe: &Probe) {
    ctx.sync();
    if ctx.pid() == 0 {
        return;
    }
    ctx.sync();
    probe.reached("past the mismatched sync");
    ctx.sync();
}

/// D16: the last process returns early, at superstep 0.
fn a_later_process_returning_early_is_reported_with_both_sides_and_the_superstep(ctx: &mut Ctx, _: &Probe) {
    if ctx.pid() == ctx.nprocs() - 1 {
        return;
    }
    ctx.sync();
}

/// D16: several processes on each side.
fn several_processes_returning_early_are_all_named(ctx: &mut Ctx, _: &Probe) {
    ctx.sync();
    ctx.sync();
    if ctx.pid() == 1 || ctx.pid() == 2 {
        return;
    }
    ctx.sync();
}

// ---------------------------------------------------------------------------------------------
// D16, §2.8: collective mismatches found at the sync, on every process
// ---------------------------------------------------------------------------------------------

/// Runs `f`, which must fail at a sync with a collective mismatch; no process may get past it.
fn collective(ctx: &mut Ctx, probe: &Probe, f: impl FnOnce(&mut Ctx)) {
    f(ctx);
    probe.reached("past the mismatched sync");
    ctx.sync();
}

/// §2.8 "push count differs".
fn processes_pushing_different_numbers_of_registrations_fail_at_the_sync(ctx: &mut Ctx, probe: &Probe) {
    collective(ctx, probe, |ctx| {
        if ctx.pid() == 1 {
            drop(ctx.register(([0u32], [0u32])));
        } else {
            drop(ctx.register([0u32]));
        }
    });
}

/// §3.1: the processes register different element types at the same registration.
fn registrations_of_different_element_types_fail_at_the_sync(ctx: &mut Ctx, probe: &Probe) {
    collective(ctx, probe, |ctx| {
        ctx.sync();
        if ctx.pid() == 0 {
            drop(ctx.register(([0u16], [0u8])));
        } else {
            drop(ctx.register(([0u16], [0u64])));
        }
    });
}

/// §3.1: different element types of the same size are a mismatch too (element types cross the
/// wire on MPI).
fn registrations_of_different_element_types_of_the_same_size_fail_at_the_sync(ctx: &mut Ctx, probe: &Probe) {
    collective(ctx, probe, |ctx| {
        if ctx.pid() == 0 {
            drop(ctx.register([0u32]));
        } else {
            drop(ctx.register([0f32]));
        }
    });
}

/// §2.8, §3.2 "different registration popped".
fn pops_of_different_registrations_fail_at_the_sync(ctx: &mut Ctx, probe: &Probe) {
    collective(ctx, probe, |ctx| {
        let (a, b) = ctx.register(([0u32], [0u32]));
        ctx.unregister(if ctx.pid() == 0 { a } else { b });
    });
}

/// §3.2 "pop on one process only".
fn a_pop_on_one_process_only_fails_at_the_sync(ctx: &mut Ctx, probe: &Probe) {
    collective(ctx, probe, |ctx| {
        let a = ctx.register([0u32]);
        if ctx.pid() == 2 {
            ctx.unregister(a);
        } else {
            ctx.sync();
        }
    });
}

/// D8, §4.1: the processes end a superstep with different tag-size requests.
fn different_tag_size_requests_fail_at_the_sync(ctx: &mut Ctx, probe: &Probe) {
    collective(ctx, probe, |ctx| {
        ctx.set_tagsize(4);
        if ctx.pid() == 2 {
            ctx.set_tagsize(8);
        }
        ctx.sync();
    });
}

// ---------------------------------------------------------------------------------------------
// D15: communication pending when the SPMD function returns
// ---------------------------------------------------------------------------------------------

/// D15: puts queued after the last sync (the first checked in full, the next two by the quick
/// path, all counted).
fn a_put_pending_at_the_end_is_an_error_naming_the_process_and_count(ctx: &mut Ctx, _: &Probe) {
    let x = ctx.register([0u32; 2]);
    if ctx.pid() == 1 {
        ctx.put(0, &1u32, &x, 0);
        ctx.put(0, &2u32, &x, 1);
        ctx.put(0, &[3u32][..], &x, 0);
    }
}

/// D15: messages sent after the last sync, on several processes.
fn sends_pending_at_the_end_are_an_error_naming_every_process_and_count(ctx: &mut Ctx, _: &Probe) {
    if ctx.pid() != 1 {
        for _ in 0..=ctx.pid() {
            ctx.send(1, &(), &[0u8][..]);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// §3.3, §3.4, §4.2: bad arguments, reported at the call
// ---------------------------------------------------------------------------------------------

/// §3.3, §3.4, §4.2 "pid ≥ p": process 1 of 2 calls `op` naming process 7.
fn with_pid_7(ctx: &mut Ctx, op: fn(&mut Ctx, &Reg<u32>)) {
    let x = ctx.register([0u32]);
    if ctx.pid() == 1 {
        op(ctx, &x);
    }
    ctx.sync();
}

fn a_pid_out_of_range_in_put(ctx: &mut Ctx, _: &Probe) {
    with_pid_7(ctx, |ctx, x| ctx.put(7, &1u32, x, 0));
}

/// The same after puts into the registration (so that the put's registration is the one the
/// last checked put went into, which is then checked only for its process and extent).
fn a_pid_out_of_range_in_put_after_others(ctx: &mut Ctx, _: &Probe) {
    with_pid_7(ctx, |ctx, x| {
        ctx.put(0, &1u32, x, 0);
        ctx.put(1, &1u32, x, 0);
        ctx.put(7, &1u32, x, 0);
    });
}

fn a_pid_out_of_range_in_a_put_batch(ctx: &mut Ctx, _: &Probe) {
    with_pid_7(ctx, |ctx, x| {
        let mut batch = ctx.put_batch(x);
        batch.put(0, &1u32, 0);
        batch.put(7, &1u32, 0);
    });
}

fn a_pid_out_of_range_in_a_get_batch(ctx: &mut Ctx, _: &Probe) {
    with_pid_7(ctx, |ctx, x| {
        let mut v = [0u32; 2];
        ctx.superstep(|s| {
            let mut batch = s.get_batch(x, &mut v);
            batch.get(0, 0, 0);
            batch.get(7, 0, 1);
        });
    });
}

fn a_pid_out_of_range_in_get_each(ctx: &mut Ctx, _: &Probe) {
    with_pid_7(ctx, |ctx, x| {
        let mut v = [0u32; 2];
        ctx.superstep(|s| s.get_batch(x, &mut v).get_each([(0, 0, 0), (7, 0, 1)]));
    });
}

fn a_pid_out_of_range_in_get(ctx: &mut Ctx, _: &Probe) {
    with_pid_7(ctx, |ctx, x| {
        let mut v = 0;
        ctx.superstep(|s| s.get(7, x, 0, &mut v));
    });
}

fn a_pid_out_of_range_in_hpput(ctx: &mut Ctx, _: &Probe) {
    with_pid_7(ctx, |ctx, x| ctx.superstep(|s| s.hpput(7, &1u32, x, 0)));
}

fn a_pid_out_of_range_in_hpget(ctx: &mut Ctx, _: &Probe) {
    with_pid_7(ctx, |ctx, x| {
        let mut v = 0;
        ctx.superstep(|s| s.hpget(7, x, 0, &mut v));
    });
}

fn a_pid_out_of_range_in_send(ctx: &mut Ctx, _: &Probe) {
    with_pid_7(ctx, |ctx, _| ctx.send(7, &(), &[1u8][..]));
}

fn a_pid_out_of_range_in_send_bytes(ctx: &mut Ctx, _: &Probe) {
    with_pid_7(ctx, |ctx, _| ctx.send_bytes(7, &[], &[1]));
}

/// The judge of the `a_pid_out_of_range_in_*` cases.
fn pid_out_of_range(f: &Failure, op: &str) -> Outcome {
    f.failed_on(1)?;
    f.mentions(&[op, "pid 7", "out of range", "nprocs = 2"])
}

/// §3.3, §3.4, §6.1: bounds are those of the target: process q registers q + 1 elements, and
/// process 3 accesses process 1 (extent 2) within its own extent but past the target's; the
/// error names operation, process, registration, offset, length, extent.
fn past_the_extent_of_process_1(ctx: &mut Ctx, op: fn(&mut Ctx, &Reg<u32>)) {
    let x = ctx.register(vec![0u32; ctx.pid() + 1]);
    if ctx.pid() == 3 {
        op(ctx, &x);
    }
    ctx.sync();
}

fn a_put_past_the_targets_extent(ctx: &mut Ctx, _: &Probe) {
    past_the_extent_of_process_1(ctx, |ctx, x| ctx.put(1, &[5u32, 5], x, 1));
}

/// The same with one-word puts after others into the registration, within the extents of
/// processes 3, 2 and 1 (the put's registration is then the one the last checked put went into,
/// which is checked only for its process and extent).
fn a_one_word_put_past_the_targets_extent_after_others(ctx: &mut Ctx, _: &Probe) {
    past_the_extent_of_process_1(ctx, |ctx, x| {
        ctx.put(3, &5u32, x, 3);
        ctx.put(3, &5u32, x, 2);
        ctx.put(2, &5u32, x, 2);
        ctx.put(1, &5u32, x, 1);
        ctx.put(1, &5u32, x, 2);
    });
}

fn a_get_past_the_targets_extent(ctx: &mut Ctx, _: &Probe) {
    past_the_extent_of_process_1(ctx, |ctx, x| {
        let mut v = [0u32; 2];
        ctx.superstep(|s| s.get(1, x, 1, &mut v));
    });
}

fn an_hpput_past_the_targets_extent(ctx: &mut Ctx, _: &Probe) {
    past_the_extent_of_process_1(ctx, |ctx, x| ctx.superstep(|s| s.hpput(1, &[5u32, 5], x, 1)));
}

fn an_hpget_past_the_targets_extent(ctx: &mut Ctx, _: &Probe) {
    past_the_extent_of_process_1(ctx, |ctx, x| {
        let mut v = [0u32; 2];
        ctx.superstep(|s| s.hpget(1, x, 1, &mut v));
    });
}

/// The judge of the `*_past_the_targets_extent` cases.
fn past_the_extent(f: &Failure, op: &str) -> Outcome {
    f.failed_on(3)?;
    f.mentions(&[op, "registration #1", "offset 1", "length 2", "extent 2", "`u32`"])
}

/// A put past the extent, for the message as a whole.
fn a_put_past_the_extent_is_reported_with_every_value(ctx: &mut Ctx, _: &Probe) {
    let x = ctx.register([0u32; 2]);
    if ctx.pid() == 1 {
        ctx.put(0, &[1u32, 2], &x, 1);
    }
    ctx.sync();
}

/// The same through a batch: the same message.
fn a_put_batch_past_the_extent_is_reported_with_every_value(ctx: &mut Ctx, _: &Probe) {
    let x = ctx.register([0u32; 2]);
    if ctx.pid() == 1 {
        let mut batch = ctx.put_batch(&x);
        batch.put(0, &[1u32], 0);
        batch.put(0, &[1u32, 2], 1);
    }
    ctx.sync();
}

/// A run of `get_each` gets that continues past the end of the buffer (not of the extent).
fn a_run_of_get_each_past_its_buffer_is_reported_with_the_index_and_length(ctx: &mut Ctx, _: &Probe) {
    let x = ctx.register([0u32; 8]);
    if ctx.pid() == 1 {
        let mut v = [0u32; 3];
        ctx.superstep(|s| s.get_batch(&x, &mut v[1..]).get_each((0..3).map(|i| (0, 4 + i, i))));
    }
    ctx.sync();
}

/// A get batch past the extent: the message of `get`.
fn a_get_batch_past_the_extent_is_reported_with_every_value(ctx: &mut Ctx, _: &Probe) {
    let x = ctx.register([0u32; 2]);
    if ctx.pid() == 1 {
        let mut v = [0u32; 3];
        ctx.superstep(|s| s.get_batch(&x, &mut v).get_each([(0, 0, 0), (0, 1, 1), (0, 2, 2)]));
    }
    ctx.sync();
}

/// A get batch into a place past the end of its buffer.
fn a_get_batch_past_its_buffer_is_reported_with_the_index_and_length(ctx: &mut Ctx, _: &Probe) {
    let x = ctx.register([0u32; 4]);
    if ctx.pid() == 1 {
        let mut v = [0u32; 3];
        ctx.superstep(|s| {
            let mut batch = s.get_batch(&x, &mut v);
            batch.get(0, 0, 2);
            batch.get(0, 1, 3);
        });
    }
    ctx.sync();
}

/// The same through a batch beside the local part: the same message.
fn a_put_batch_with_local_past_the_extent_is_reported_with_every_value(ctx: &mut Ctx, _: &Probe) {
    let mut x = ctx.register([0u32; 2]);
    if ctx.pid() == 1 {
        let (mut batch, local) = ctx.put_batch_with_local(&mut x);
        batch.put(0, &local[..1], 0);
        batch.put(0, &local[..], 1);
    }
    ctx.sync();
}

/// §3.3: process 0 (extent 1) may write past its own extent into process 3's part (extent 4),
/// up to process 3's extent and no further.
fn the_callers_own_extent_does_not_limit_an_access(ctx: &mut Ctx, _: &Probe) {
    let x = ctx.register(vec![0u32; ctx.pid() + 1]);
    if ctx.pid() == 0 {
        ctx.put(3, &[1u32, 2, 3], &x, 1); // fine: 1 + 3 <= 4
    }
    ctx.sync();
    if ctx.pid() == 0 {
        let mut v = [0u32; 3];
        ctx.superstep(|s| s.get(3, &x, 2, &mut v)); // 2 + 3 > 4
    }
    ctx.sync();
}

/// An offset so large that offset + length overflows is out of range, not a wrap-around.
fn an_overflowing_offset_is_out_of_range(ctx: &mut Ctx, _: &Probe) {
    let x = ctx.register([0u8; 4]);
    if ctx.pid() == 0 {
        ctx.put(1, &[1u8, 2], &x, usize::MAX);
    }
    ctx.sync();
}

/// `value` of a registration with no local elements names the registration.
fn the_value_of_an_empty_registration_is_reported(ctx: &mut Ctx, _: &Probe) {
    let x = ctx.register(vec![7u64; ctx.pid()]);
    let _ = *x.value(ctx);
}

// ---------------------------------------------------------------------------------------------
// §4: BSMP misuse
// ---------------------------------------------------------------------------------------------

/// §4.1, §4.2: a tag whose size is not the one in force.
fn a_tag_of_the_wrong_size_is_reported_at_the_send(ctx: &mut Ctx, _: &Probe) {
    ctx.set_tag::<u32>();
    ctx.sync();
    if ctx.pid() == 0 {
        ctx.send(1, &0u64, &[1u8][..]);
    }
    ctx.sync();
}

/// §4.1: in the superstep that requests a new size, the old one is in force.
fn a_tag_of_the_requested_size_is_refused_before_the_sync(ctx: &mut Ctx, _: &Probe) {
    ctx.set_tagsize(4);
    if ctx.pid() == 1 {
        ctx.send_bytes(0, &[1, 2, 3, 4], &[]);
    }
    ctx.sync();
}

/// §4.4–§4.6: typed reception with a tag type whose size is not the queue's tag size: process 1
/// calls `op` on a queue of 4-byte tags.
fn with_4_byte_tags(ctx: &mut Ctx, op: fn(&Ctx)) {
    ctx.set_tag::<u32>();
    ctx.sync();
    ctx.send(1 - ctx.pid(), &7u32, &[1u8][..]);
    ctx.sync();
    if ctx.pid() == 1 {
        op(ctx);
    }
    ctx.sync();
}

fn get_tag_with_the_wrong_tag_type_is_reported(ctx: &mut Ctx, _: &Probe) {
    with_4_byte_tags(ctx, |ctx| {
        let _ = ctx.get_tag::<u64>();
    });
}

fn move_message_with_the_wrong_tag_type_is_reported(ctx: &mut Ctx, _: &Probe) {
    with_4_byte_tags(ctx, |ctx| {
        let _ = ctx.move_message::<u16, u8>();
    });
}

fn hpmove_with_the_wrong_tag_type_is_reported(ctx: &mut Ctx, _: &Probe) {
    with_4_byte_tags(ctx, |ctx| {
        let _ = ctx.hpmove::<u8, u8>();
    });
}

/// The judge of the `*_with_the_wrong_tag_type_is_reported` cases.
fn wrong_tag_type(f: &Failure, op: &str) -> Outcome {
    f.failed_on(1)?;
    f.mentions(&[op, "4-byte tags"])
}

/// §4.5: a payload that is not a whole number of the requested element type.
fn a_payload_that_is_not_a_whole_number_of_elements_is_reported(ctx: &mut Ctx, _: &Probe) {
    ctx.send_bytes(1 - ctx.pid(), &[], &[1, 2, 3]);
    ctx.sync();
    if ctx.pid() == 0 {
        let _ = ctx.move_message::<(), u16>();
    }
    ctx.sync();
}

/// `Error::message` is "the failure's message, without the process prefix"; `Display` adds
/// the prefix once.
fn a_misuse_error_names_its_process_once(ctx: &mut Ctx, _: &Probe) {
    if ctx.pid() == 1 {
        ctx.send(5, &(), &[0u8][..]);
    }
    ctx.sync();
}

cases! {
    a_panic_in_one_process_stops_the_others_waiting_in_sync: [2, 4] => |f| {
        let culprit = f.p / 2;
        f.failed_on(culprit)?;
        f.message_is("boom in superstep 1")?;
        expect("the error", f.text.clone(), format!("process {culprit} failed: boom in superstep 1"))
    },
    a_panic_with_a_non_string_payload_is_reported: [2] => |f| {
        f.failed_on(1)?;
        f.mentions(&["process 1 failed", "non-string payload"])
    },
    a_panic_among_sixteen_processes_stops_them_all: [16] => |f| {
        f.failed_on(11)?;
        f.message_is("process eleven gives up")
    },
    processes_computing_when_another_fails_stop_at_their_next_call: [2, 4] => |f| {
        f.failed_on(0)?;
        f.message_is("early failure")
    },
    #[several]
    when_several_processes_fail_one_failure_is_reported_whole: [2, 3, 8] => |f| {
        let pid = f.pid.ok_or_else(|| format!("no process named: {}", f.text))?;
        f.failed_on(pid)?;
        ensure(pid < f.p, || format!("pid {pid} of {} processes", f.p))?;
        f.message_is(&format!("failure of process {pid}"))
    },
    #[several]
    when_several_processes_abort_one_abort_is_reported_whole: [4] => |f| {
        let pid = f.pid.ok_or_else(|| format!("no process named: {}", f.text))?;
        f.aborted_on(pid)?;
        expect("the error", f.text.clone(), format!("process {pid} aborted: abort of process {pid}"))
    },
    abort_stops_every_process_and_is_reported_as_an_abort: [1, 3, 8] => |f| {
        let culprit = abort_culprit(f.p);
        f.aborted_on(culprit)?;
        f.message_is("input 42 is bad")?;
        expect("the error", f.text.clone(), format!("process {culprit} aborted: input 42 is bad"))
    },
    an_abort_by_process_0_stops_every_process: [8] => |f| {
        f.aborted_on(0)?;
        expect("the error", f.text.as_str(), "process 0 aborted: input 42 is bad")
    },
    abort_inside_a_superstep_stops_every_process: [3] => |f| {
        expect("the error", f.text.as_str(), "process 2 aborted: no more input")
    },
    a_panic_inside_a_superstep_stops_every_process: [3] => |f| {
        f.failed_on(1)?;
        f.message_is("inside the superstep")
    },
    a_process_that_caught_a_superstep_panic_cannot_sync: [3] => |f| cannot_communicate(f, "sync"),
    a_process_that_caught_a_superstep_panic_cannot_put: [3] => |f| cannot_communicate(f, "put"),
    a_process_that_caught_a_superstep_panic_cannot_send: [3] => |f| cannot_communicate(f, "send"),
    a_process_that_caught_a_superstep_panic_cannot_end_its_function: [3] =>
        |f| cannot_communicate(f, "the end of the SPMD function"),
    a_process_that_caught_a_superstep_panic_cannot_start_a_superstep: [3] => |f| cannot_communicate(f, "sync"),
    process_zero_returning_early_is_reported_with_both_sides_and_the_superstep: [3] => |f| {
        f.not_an_abort()?;
        f.mentions(&[
            "process 0 returned from the SPMD function while processes 1, 2 called `sync` (superstep 1): \
             every process must make the same number of syncs",
        ])
    },
    a_later_process_returning_early_is_reported_with_both_sides_and_the_superstep: [2, 4] => |f| {
        let others = if f.p == 2 { "process 0".to_string() } else { "processes 0, 1, 2".to_string() };
        f.mentions(&[
            &format!("process {} returned from the SPMD function", f.p - 1),
            &format!("{others} called `sync`"),
            "superstep 0",
        ])
    },
    several_processes_returning_early_are_all_named: [4] => |f| {
        f.mentions(&["processes 1, 2 returned", "processes 0, 3 called `sync`", "superstep 2"])
    },
    processes_pushing_different_numbers_of_registrations_fail_at_the_sync: [3] => |f| {
        f.not_an_abort()?;
        f.mentions(&[
            "registration mismatch at the sync ending superstep 0: the processes made different numbers \
             of registrations (`register`, `with_reg`, gp arrays; per process: [1, 2, 1])",
        ])
    },
    registrations_of_different_element_types_fail_at_the_sync: [2] => |f| {
        f.not_an_abort()?;
        f.mentions(&["registration mismatch at the sync ending superstep 1", "registration #2", "`u8`", "`u64`", "process 1"])
    },
    registrations_of_different_element_types_of_the_same_size_fail_at_the_sync: [2] => |f| {
        f.not_an_abort()?;
        f.mentions(&[
            "registration mismatch at the sync ending superstep 0: registration #1 holds `u32` (4 bytes) \
             on process 0 but `f32` (4 bytes) on process 1",
        ])
    },
    pops_of_different_registrations_fail_at_the_sync: [2] => |f| {
        f.not_an_abort()?;
        f.mentions(&["deregistration mismatch at the sync ending superstep 1", "process 0 popped [#1]", "process 1 popped [#2]"])
    },
    a_pop_on_one_process_only_fails_at_the_sync: [3] => |f| {
        f.not_an_abort()?;
        f.mentions(&["deregistration mismatch", "superstep 1", "process 0 popped []", "process 2 popped [#1]"])
    },
    different_tag_size_requests_fail_at_the_sync: [3] => |f| {
        f.not_an_abort()?;
        f.mentions(&[
            "tag size mismatch at the sync ending superstep 0: the processes requested different tag sizes \
             (per process: [4, 4, 8])",
        ])
    },
    a_put_pending_at_the_end_is_an_error_naming_the_process_and_count: [3] => |f| {
        f.mentions(&["queued after the last sync", "process 1 has 3 puts queued when the SPMD function returned in superstep 1"])?;
        ensure(!f.text.contains("process 0 has"), || f.text.clone())
    },
    sends_pending_at_the_end_are_an_error_naming_every_process_and_count: [3] => |f| {
        f.mentions(&["process 0 has 1 send", "process 2 has 3 send", "superstep 0"])
    },
    a_pid_out_of_range_in_put: [2] => |f| pid_out_of_range(f, "put"),
    a_pid_out_of_range_in_put_after_others: [2] => |f| pid_out_of_range(f, "put"),
    a_pid_out_of_range_in_a_put_batch: [2] => |f| {
        f.mentions(&["process 1 failed: put with process 7 (registration #1, offset 0, length 1): pid 7 is out of range (nprocs = 2)"])
    },
    a_pid_out_of_range_in_a_get_batch: [2] => |f| {
        f.mentions(&["process 1 failed: get with process 7 (registration #1, offset 0, length 1): pid 7 is out of range (nprocs = 2)"])
    },
    a_pid_out_of_range_in_get_each: [2] => |f| {
        f.mentions(&["process 1 failed: get with process 7 (registration #1, offset 0, length 1): pid 7 is out of range (nprocs = 2)"])
    },
    a_pid_out_of_range_in_get: [2] => |f| pid_out_of_range(f, "get"),
    a_pid_out_of_range_in_hpput: [2] => |f| pid_out_of_range(f, "hpput"),
    a_pid_out_of_range_in_hpget: [2] => |f| pid_out_of_range(f, "hpget"),
    a_pid_out_of_range_in_send: [2] => |f| pid_out_of_range(f, "send"),
    a_pid_out_of_range_in_send_bytes: [2] => |f| pid_out_of_range(f, "send_bytes"),
    a_put_past_the_targets_extent: [4] => |f| past_the_extent(f, "put with process 1"),
    a_one_word_put_past_the_targets_extent_after_others: [4] => |f| {
        f.failed_on(3)?;
        f.mentions(&[
            "put with process 1: registration #1: offset 2 + length 1 is past the extent 2 that process 1 registered (elements of `u32`)",
        ])
    },
    a_get_past_the_targets_extent: [4] => |f| past_the_extent(f, "get with process 1"),
    an_hpput_past_the_targets_extent: [4] => |f| past_the_extent(f, "hpput with process 1"),
    an_hpget_past_the_targets_extent: [4] => |f| past_the_extent(f, "hpget with process 1"),
    a_put_past_the_extent_is_reported_with_every_value: [2] => |f| {
        f.mentions(&["process 1 failed: put with process 0: registration #1: offset 1 + length 2 is past the extent 2"])
    },
    a_put_batch_past_the_extent_is_reported_with_every_value: [2] => |f| {
        f.mentions(&["process 1 failed: put with process 0: registration #1: offset 1 + length 2 is past the extent 2 that process 0 registered (elements of `u32`)"])
    },
    a_run_of_get_each_past_its_buffer_is_reported_with_the_index_and_length: [2] => |f| {
        f.mentions(&["process 1 failed: get_batch: destination index 2 is out of range for a buffer of length 2"])
    },
    a_get_batch_past_the_extent_is_reported_with_every_value: [2] => |f| {
        f.mentions(&["process 1 failed: get with process 0: registration #1: offset 2 + length 1 is past the extent 2 that process 0 registered (elements of `u32`)"])
    },
    a_get_batch_past_its_buffer_is_reported_with_the_index_and_length: [2] => |f| {
        f.mentions(&["process 1 failed: get_batch: destination index 3 is out of range for a buffer of length 3"])
    },
    a_put_batch_with_local_past_the_extent_is_reported_with_every_value: [2] => |f| {
        f.mentions(&["process 1 failed: put with process 0: registration #1: offset 1 + length 2 is past the extent 2 that process 0 registered (elements of `u32`)"])
    },
    the_callers_own_extent_does_not_limit_an_access: [4] => |f| {
        f.failed_on(0)?;
        f.mentions(&["get with process 3", "registration #1", "offset 2", "length 3", "extent 4"])
    },
    an_overflowing_offset_is_out_of_range: [2] => |f| {
        f.failed_on(0)?;
        f.mentions(&["put with process 1", "registration #1", &format!("offset {}", usize::MAX), "length 2"])
    },
    the_value_of_an_empty_registration_is_reported: [2] => |f| {
        f.failed_on(0)?;
        f.mentions(&["value", "registration #1", "no elements"])
    },
    a_tag_of_the_wrong_size_is_reported_at_the_send: [2] => |f| {
        f.failed_on(0)?;
        f.mentions(&["send to process 1", "the tag has 8 bytes", "tag size in force is 4"])
    },
    a_tag_of_the_requested_size_is_refused_before_the_sync: [2] => |f| {
        f.failed_on(1)?;
        f.mentions(&["send_bytes to process 0", "the tag has 4 bytes", "tag size in force is 0"])
    },
    get_tag_with_the_wrong_tag_type_is_reported: [2] => |f| wrong_tag_type(f, "get_tag"),
    move_message_with_the_wrong_tag_type_is_reported: [2] => |f| wrong_tag_type(f, "move_message"),
    hpmove_with_the_wrong_tag_type_is_reported: [2] => |f| wrong_tag_type(f, "hpmove"),
    a_payload_that_is_not_a_whole_number_of_elements_is_reported: [2] => |f| {
        f.failed_on(0)?;
        f.mentions(&["move_message", "3 bytes", "`u16`"])
    },
    a_misuse_error_names_its_process_once: [2] => |f| {
        f.failed_on(1)?;
        ensure(!f.message.starts_with("process"), || format!("message(): {}", f.message))?;
        expect("mentions of `process 1`", f.text.matches("process 1").count(), 1)
    },
}
