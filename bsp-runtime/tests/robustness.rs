//! Robustness: defects found by Miri, adversarial programs and fault injection, each
//! with the program that showed it.
//!
//! Each check is an SPMD function that asserts inside the run (`fn(&mut Ctx)`), so that the
//! same function can run on any engine; the `#[test]`s run them on threads at several process
//! counts. Under Miri the counts are smaller and the hang guard is left out (Miri's clock runs
//! slower than the guard assumes).

mod common;

/// The suite's types, which `common` refers to.
#[path = "suite/check.rs"]
mod check;

use std::panic::{catch_unwind, AssertUnwindSafe};

use bsp_runtime::gp::{Distribution, GpArray};
use bsp_runtime::{Ctx, Error, ErrorKind, Remote};

/// The process counts of these tests.
#[cfg(not(miri))]
const PS: &[usize] = &[1, 2, 3, 4, 8];
#[cfg(miri)]
const PS: &[usize] = &[1, 2, 3];

/// Runs `f` on `p` processes and returns the run's outcome, guarded against hangs (except
/// under Miri).
fn run<R, F>(p: usize, f: F) -> Result<Vec<R>, Error>
where
    R: Send + 'static,
    F: Fn(&mut Ctx) -> R + Sync + Send + 'static,
{
    #[cfg(not(miri))]
    {
        common::within(&format!("run on {p} processes"), move || bsp_runtime::run(p, f))
    }
    #[cfg(miri)]
    {
        bsp_runtime::run(p, f)
    }
}

/// Runs the SPMD check `f` at every count of [`PS`]; every run must succeed.
#[track_caller]
fn check_everywhere(f: fn(&mut Ctx)) {
    for &p in PS {
        if let Err(e) = run(p, f) {
            panic!("run on {p} processes failed: {e}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 1. GP size queries into registered memory (Stacked Borrows)
// ---------------------------------------------------------------------------------------------

/// A GP size query whose destination is registered memory that gets of the same superstep read:
/// the gets see the old value, the query's result lands after them. The reply path holds the
/// destination as a raw pointer, so the reads do not invalidate it (Miri checks this test).
fn gp_size_queries_into_registered_memory(ctx: &mut Ctx) {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let right = (pid + 1) % p;
    let mut xs = ctx.register([7usize, 8]);
    let mut g = GpArray::<u32>::builder(&[p]).build(ctx);
    g.assign_local(ctx, &[pid], vec![1; pid + 3]);
    ctx.sync();
    let (mut seen, mut seen_too) = (0usize, 0usize);
    ctx.superstep(|s| {
        let (name, local) = xs.split_mut(s);
        let [size, gathered] = local else { unreachable!("two elements were registered") };
        g.get_size(s, &[pid], &[pid], size);
        g.gather_size(s, &[[right], [pid], [right]], gathered);
        s.get(right, name, 0, &mut seen);
        s.get(pid, name, 1, &mut seen_too);
    });
    assert_eq!((seen, seen_too), (7, 8), "process {pid}: the gets read the values from before the sync");
    let want = [pid + 3, 2 * (right + 3) + pid + 3];
    assert_eq!(xs.local(ctx), want, "process {pid}: the size queries landed after the gets read");
}

#[test]
fn a_gp_size_query_into_registered_memory_lands_after_the_gets_that_read_it() {
    check_everywhere(gp_size_queries_into_registered_memory);
}

// ---------------------------------------------------------------------------------------------
// 2. Allocation failures for user-sized requests
// ---------------------------------------------------------------------------------------------

/// 2^40 elements: far more slots than this machine (or any test machine) can allocate, but a
/// valid GA distribution.
const HUGE: usize = 1 << 40;

/// Creating a GP array whose share cannot be allocated fails the run with a message naming
/// the array, its dimensions and the size asked for, instead of aborting the OS process.
fn gp_array_too_large(ctx: &mut Ctx) {
    let _g = GpArray::<u64>::builder(&[HUGE]).name("huge").build(ctx);
    unreachable!("building the array must fail");
}

#[test]
#[cfg_attr(miri, ignore = "Miri models allocation failure differently (it stops the interpreter)")]
fn a_gp_array_too_large_to_allocate_is_an_error_naming_its_size() {
    for p in [1, 2] {
        let err = run(p, gp_array_too_large).expect_err("the array cannot be allocated");
        assert_eq!(err.kind(), ErrorKind::Panic, "{err}");
        let share = HUGE / p;
        common::assert_mentions(
            &err,
            &["gp array `huge`", "[1099511627776]", "cannot allocate", &format!("the {share} elements"), "bytes"],
        );
    }
}

/// A registration made from a vector with spare capacity is used in place (no shrinking copy):
/// its data round-trips through puts and `unregister`.
fn registration_from_a_vector_with_spare_capacity(ctx: &mut Ctx) {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let mut data = Vec::with_capacity(64);
    data.extend((0..p as u64).map(|i| i * 100));
    let xs = ctx.register(data);
    ctx.put((pid + 1) % p, &(pid as u64 + 1), &xs, pid);
    let got = ctx.unregister(xs);
    let left = (pid + p - 1) % p;
    let want: Vec<u64> = (0..p as u64).map(|i| if i as usize == left { i + 1 } else { i * 100 }).collect();
    assert_eq!(got, want, "process {pid}");
}

#[test]
fn a_registration_keeps_the_vector_it_was_given() {
    check_everywhere(registration_from_a_vector_with_spare_capacity);
}

// ---------------------------------------------------------------------------------------------
// 3. hpmove and alignment
// ---------------------------------------------------------------------------------------------

/// A type that needs more alignment than the receive buffer gives (64 bytes).
#[derive(Clone, Copy, PartialEq, Debug)]
#[repr(C, align(128))]
struct Wide([u8; 128]);

// SAFETY: `Wide` is `repr(C)` around a byte array of exactly its alignment: no padding, every
// bit pattern valid, no pointers or interior mutability.
unsafe impl bytemuck::Zeroable for Wide {}
// SAFETY: as above.
unsafe impl bytemuck::Pod for Wide {}

/// A type that needs 32-byte alignment, within what the receive buffer gives.
#[derive(Clone, Copy, PartialEq, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(32))]
struct Lane([u64; 4]);

/// `hpmove` of a type aligned beyond the receive buffer's 64 bytes is refused every time,
/// with a message that says why, wherever the buffer happens to land; `move_message` copies it.
fn hpmove_of_an_over_aligned_type_is_always_refused(ctx: &mut Ctx) {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    for q in 0..p {
        ctx.send(q, &(), &[Wide([pid as u8; 128]), Wide([q as u8; 128])]);
    }
    ctx.sync();
    let mut from = Vec::new();
    while ctx.qsize().0 > 0 {
        let refused = catch_unwind(AssertUnwindSafe(|| ctx.hpmove::<(), Wide>().map(|(_, w)| w.len())));
        let payload = refused.expect_err("hpmove of a 128-byte aligned type must be refused");
        let msg = payload.downcast_ref::<String>().expect("a misuse message");
        for part in ["hpmove", "needs 128-byte alignment", "(64 bytes)", "move_message"] {
            assert!(msg.contains(part), "process {pid}: {msg:?} should mention {part:?}");
        }
        assert!(!msg.contains("untyped"), "process {pid}: the message was sent typed: {msg:?}");
        let (_, ws) = ctx.move_message::<(), Wide>().expect("the refused message is still queued");
        assert_eq!(ws[1], Wide([pid as u8; 128]));
        from.push(ws[0].0[0] as usize);
    }
    assert_eq!(from, (0..p).collect::<Vec<_>>(), "process {pid}");
}

#[test]
fn hpmove_refuses_alignments_beyond_the_receive_buffer_every_time() {
    // Several runs: before the fix the outcome depended on where the buffer was allocated.
    for _ in 0..4 {
        check_everywhere(hpmove_of_an_over_aligned_type_is_always_refused);
    }
}

/// A 32-byte aligned type sent with typed `send` is read in place by `hpmove`; the same bytes
/// sent with `send_bytes` (16-byte placement) are refused with a message naming both
/// alignments, not a claim about where the buffer landed.
fn hpmove_within_the_buffer_alignment(ctx: &mut Ctx) {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let to = (pid + 1) % p;
    let lane = Lane([pid as u64, 1, 2, 3]);
    ctx.send(to, &(), &[lane, lane]);
    ctx.send_bytes(to, &[], bytemuck::bytes_of(&lane));
    ctx.sync();
    let from = (pid + p - 1) % p;
    let (_, lanes) = ctx.hpmove::<(), Lane>().expect("the typed message");
    assert_eq!(lanes, [Lane([from as u64, 1, 2, 3]); 2], "process {pid}");
    assert_eq!(lanes.as_ptr() as usize % 32, 0);
    let refused = catch_unwind(AssertUnwindSafe(|| ctx.hpmove::<(), Lane>().is_some()));
    let payload = refused.expect_err("a 16-byte placed message cannot be read as `Lane` in place");
    let msg = payload.downcast_ref::<String>().expect("a misuse message");
    for part in ["needs 32-byte alignment", "placed at 16-byte alignment", "send_bytes", "move_message"] {
        assert!(msg.contains(part), "process {pid}: {msg:?} should mention {part:?}");
    }
    let (_, copied) = ctx.move_message::<(), Lane>().expect("the untyped message");
    assert_eq!(copied, [Lane([from as u64, 1, 2, 3])]);
}

#[test]
fn hpmove_reads_in_place_what_a_typed_send_aligned() {
    check_everywhere(hpmove_within_the_buffer_alignment);
}

// ---------------------------------------------------------------------------------------------
// 4. Exact unwinding detection in `superstep`
// ---------------------------------------------------------------------------------------------

/// Runs a superstep (a get from the right neighbour) when dropped.
struct SuperstepOnDrop<'a> {
    ctx: &'a mut Ctx,
    xs: Remote<'a, u64>,
    out: &'a mut u64,
}

impl Drop for SuperstepOnDrop<'_> {
    fn drop(&mut self) {
        let (pid, p) = (self.ctx.pid(), self.ctx.nprocs());
        let (xs, out) = (self.xs, &mut *self.out);
        self.ctx.superstep(|s| s.get((pid + 1) % p, xs, 0, out));
    }
}

/// A superstep run by a destructor while an unrelated panic unwinds is an ordinary superstep:
/// its closure returned, so it syncs, its get lands, and the process goes on communicating.
fn superstep_in_a_destructor_during_unwinding(ctx: &mut Ctx) {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let xs = ctx.register([10 * pid as u64]);
    let name = xs.remote();
    let mut got = 0;
    let unwound = catch_unwind(AssertUnwindSafe(|| {
        let _guard = SuperstepOnDrop { ctx: &mut *ctx, xs: name, out: &mut got };
        std::panic::resume_unwind(Box::new("an unrelated failure, caught by the program"));
    }));
    assert!(unwound.is_err());
    assert_eq!(got, 10 * ((pid + 1) % p) as u64, "process {pid}: the destructor's superstep completed");
    let mut again = 0;
    ctx.superstep(|s| s.get((pid + p - 1) % p, name, 0, &mut again));
    assert_eq!(again, 10 * ((pid + p - 1) % p) as u64, "process {pid}: later supersteps work");
}

#[test]
fn a_superstep_run_by_a_destructor_during_unwinding_completes() {
    check_everywhere(superstep_in_a_destructor_during_unwinding);
}

/// A superstep whose own closure unwinds still marks the process broken, even if the program
/// catches the panic: its next communication fails the run.
fn communicating_after_a_superstep_closure_unwound(ctx: &mut Ctx) {
    let xs = ctx.register([0u8]);
    let caught = catch_unwind(AssertUnwindSafe(|| {
        ctx.superstep(|_| std::panic::resume_unwind(Box::new("the closure fails")));
    }));
    assert!(caught.is_err());
    ctx.put(0, &1u8, &xs, 0);
    unreachable!("a broken process cannot communicate");
}

#[test]
fn a_superstep_whose_closure_unwound_leaves_the_process_broken() {
    let err = run(1, communicating_after_a_superstep_closure_unwound).expect_err("the put must be refused");
    assert_eq!(err.pid(), Some(0));
    common::assert_mentions(&err, &["put", "a `superstep` of this process panicked earlier"]);
}

// ---------------------------------------------------------------------------------------------
// 5. Matchable errors
// ---------------------------------------------------------------------------------------------

#[test]
fn every_kind_of_failure_has_its_error_kind() {
    let launch = run(0, |_| ()).expect_err("no processes");
    assert_eq!((launch.kind(), launch.pid()), (ErrorKind::Launch, None));

    let abort = run(2, |ctx| {
        if ctx.pid() == 1 {
            ctx.abort("enough");
        }
        ctx.sync();
    })
    .expect_err("process 1 aborts");
    assert_eq!((abort.kind(), abort.pid()), (ErrorKind::Abort, Some(1)));
    assert!(abort.is_abort());

    let panic = run(2, |ctx| {
        if ctx.pid() == 0 {
            panic!("a bug");
        }
        ctx.sync();
    })
    .expect_err("process 0 panics");
    assert_eq!((panic.kind(), panic.pid()), (ErrorKind::Panic, Some(0)));
    assert!(!panic.is_abort());

    let misuse = run(2, |ctx| ctx.send(5, &(), &[1u8])).expect_err("pid 5 is out of range");
    assert_eq!(misuse.kind(), ErrorKind::Panic, "{misuse}");

    let collective = run(2, |ctx| {
        ctx.set_tagsize(ctx.pid());
        ctx.sync();
    })
    .expect_err("the processes ask for different tag sizes");
    assert_eq!(collective.kind(), ErrorKind::Collective, "{collective}");
}

#[test]
fn distribution_errors_are_standard_errors() {
    let err: Box<dyn std::error::Error + Send + Sync> =
        Distribution::regular(&[4, 0], 2, None).expect_err("extent 0").into();
    assert!(err.to_string().contains("axis 1 has extent 0"), "{err}");
    let dist = Distribution::irregular(&[4, 4], 2, &[0, 0, 2], &[1, 2]).expect("valid");
    let err = dist.local_index(&[4, 0]).expect_err("row 4 is out of range");
    assert!(err.message().contains("[4, 0]") && err.message().contains("[4, 4]"), "{err}");
}

/// `bytemuck` comes with the runtime: a plain-data type derived through the re-export is a
/// `Value` and crosses processes.
fn derived_through_the_reexport(ctx: &mut Ctx) {
    use bsp_runtime::bytemuck;

    #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
    #[bytemuck(crate = "bsp_runtime::bytemuck")]
    #[repr(C)]
    struct Pair {
        a: u32,
        b: f32,
    }

    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let xs = ctx.register([Pair { a: pid as u32, b: 0.5 }]);
    let mut got = Pair { a: 0, b: 0.0 };
    ctx.superstep(|s| s.get((pid + 1) % p, &xs, 0, &mut got));
    assert_eq!(got, Pair { a: ((pid + 1) % p) as u32, b: 0.5 });
}

#[test]
fn a_type_derived_through_the_bytemuck_reexport_is_a_value() {
    check_everywhere(derived_through_the_reexport);
}
