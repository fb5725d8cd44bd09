//! Robustness as engine-neutral checks: defects found by Miri, adversarial programs and fault
//! injection, each with the program that showed it.

use std::panic::{AssertUnwindSafe, catch_unwind};

use bsp_runtime::gp::GpArray;
use bsp_runtime::{Ctx, Remote};

use super::check::{Complaints, Outcome, Probe, Procs, cases, checks, ring};

// ---------------------------------------------------------------------------------------------
// 1. GP size queries into registered memory (Stacked Borrows)
// ---------------------------------------------------------------------------------------------

/// A GP size query whose destination is registered memory that gets of the same superstep read:
/// the gets see the old value, the query's result lands after them. The reply path holds the
/// destination as a raw pointer, so the reads do not invalidate it (Miri checks this check).
pub fn gp_size_queries_into_registered_memory(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let right = ring(pid, p).1;
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
    g.destroy(ctx);
    let sizes = ctx.unregister(xs);
    let mut c = Complaints::default();
    c.expect("the gets read the values from before the sync", (seen, seen_too), (7, 8));
    c.expect("the size queries landed after the gets read", sizes, vec![pid + 3, 2 * (right + 3) + pid + 3]);
    c.outcome()
}

// ---------------------------------------------------------------------------------------------
// 2. Registration from a vector with spare capacity
// ---------------------------------------------------------------------------------------------

/// A registration made from a vector with spare capacity is used in place (no shrinking copy):
/// its data round-trips through puts and `unregister`.
pub fn a_registration_keeps_the_vector_it_was_given(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(pid, p);
    let mut data = Vec::with_capacity(64);
    data.extend((0..p as u64).map(|i| i * 100));
    let xs = ctx.register(data);
    ctx.put(right, &(pid as u64 + 1), &xs, pid);
    let got = ctx.unregister(xs);
    let want: Vec<u64> = (0..p as u64).map(|i| if i as usize == left { i + 1 } else { i * 100 }).collect();
    let mut c = Complaints::default();
    c.expect("the data", got, want);
    c.outcome()
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

/// The text of a caught misuse panic.
fn misuse_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload.downcast_ref::<String>().cloned().unwrap_or_else(|| "a panic without a message".to_string())
}

/// `hpmove` of a type aligned beyond the receive buffer's 64 bytes is refused every time, with
/// a message that says why, wherever the buffer happens to land; `move_message` copies it. Four
/// rounds: before the fix the outcome depended on where the buffer was allocated.
pub fn hpmove_refuses_alignments_beyond_the_receive_buffer_every_time(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let mut c = Complaints::default();
    for round in 0..4 {
        for q in 0..p {
            ctx.send(q, &(), &[Wide([pid as u8; 128]), Wide([q as u8; 128])]);
        }
        ctx.sync();
        let mut from = Vec::new();
        while ctx.qsize().0 > 0 {
            let refused = catch_unwind(AssertUnwindSafe(|| ctx.hpmove::<(), Wide>().map(|(_, w)| w.len())));
            match refused {
                Ok(_) => {
                    c.ensure(false, || format!("round {round}: hpmove of a 128-byte aligned type was not refused"))
                }
                Err(payload) => {
                    let msg = misuse_message(&*payload);
                    for part in ["hpmove", "needs 128-byte alignment", "(64 bytes)", "move_message"] {
                        c.ensure(msg.contains(part), || format!("round {round}: {msg:?} should mention {part:?}"));
                    }
                    c.ensure(!msg.contains("untyped"), || {
                        format!("round {round}: the message was sent typed: {msg:?}")
                    });
                }
            }
            match ctx.move_message::<(), Wide>() {
                Some((_, ws)) => {
                    c.expect(format!("round {round}: the second element"), ws[1], Wide([pid as u8; 128]));
                    from.push(ws[0].0[0] as usize);
                }
                None => {
                    c.ensure(false, || format!("round {round}: the refused message is no longer queued"));
                    break;
                }
            }
        }
        c.expect(format!("round {round}: the senders"), from, (0..p).collect());
    }
    c.outcome()
}

/// A 32-byte aligned type sent with typed `send` is read in place by `hpmove`; the same bytes
/// sent with `send_bytes` (16-byte placement) are refused with a message naming both
/// alignments, not a claim about where the buffer landed.
pub fn hpmove_reads_in_place_what_a_typed_send_aligned(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (from, to) = ring(pid, p);
    let lane = Lane([pid as u64, 1, 2, 3]);
    ctx.send(to, &(), &[lane, lane]);
    ctx.send_bytes(to, &[], bytemuck::bytes_of(&lane));
    ctx.sync();
    let mut c = Complaints::default();
    match ctx.hpmove::<(), Lane>() {
        Some((_, lanes)) => {
            c.expect("the typed message", lanes, &[Lane([from as u64, 1, 2, 3]); 2][..]);
            c.expect("its address modulo 32", lanes.as_ptr() as usize % 32, 0);
        }
        None => c.ensure(false, || "the typed message did not arrive".to_string()),
    }
    let refused = catch_unwind(AssertUnwindSafe(|| ctx.hpmove::<(), Lane>().is_some()));
    match refused {
        Ok(_) => c.ensure(false, || "a 16-byte placed message was read as `Lane` in place".to_string()),
        Err(payload) => {
            let msg = misuse_message(&*payload);
            for part in ["needs 32-byte alignment", "placed at 16-byte alignment", "send_bytes", "move_message"] {
                c.ensure(msg.contains(part), || format!("{msg:?} should mention {part:?}"));
            }
        }
    }
    let copied = ctx.move_message::<(), Lane>().map(|(_, l)| l);
    c.expect("the untyped message, copied", copied, Some(vec![Lane([from as u64, 1, 2, 3])]));
    c.outcome()
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
        let right = ring(self.ctx.pid(), self.ctx.nprocs()).1;
        let (xs, out) = (self.xs, &mut *self.out);
        self.ctx.superstep(|s| s.get(right, xs, 0, out));
    }
}

/// A superstep run by a destructor while an unrelated panic unwinds is an ordinary superstep:
/// its closure returned, so it syncs, its get lands, and the process goes on communicating.
pub fn a_superstep_run_by_a_destructor_during_unwinding_completes(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(pid, p);
    let xs = ctx.register([10 * pid as u64]);
    let name = xs.remote();
    let mut got = 0;
    let unwound = catch_unwind(AssertUnwindSafe(|| {
        let _guard = SuperstepOnDrop { ctx: &mut *ctx, xs: name, out: &mut got };
        std::panic::resume_unwind(Box::new("an unrelated failure, caught by the program"));
    }));
    let mut again = 0;
    ctx.superstep(|s| s.get(left, name, 0, &mut again));
    ctx.unregister(xs);
    let mut c = Complaints::default();
    c.expect("the panic unwound", unwound.is_err(), true);
    c.expect("the destructor's superstep completed", got, 10 * right as u64);
    c.expect("a later superstep", again, 10 * left as u64);
    c.outcome()
}

// ---------------------------------------------------------------------------------------------
// 5. Types derived through the re-export of bytemuck
// ---------------------------------------------------------------------------------------------

/// `bytemuck` comes with the runtime: a plain-data type derived through the re-export is a
/// `Value` and crosses processes.
pub fn a_type_derived_through_the_bytemuck_reexport_is_a_value(ctx: &mut Ctx) -> Outcome {
    use bsp_runtime::bytemuck;

    #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
    #[bytemuck(crate = "bsp_runtime::bytemuck")]
    #[repr(C)]
    struct Pair {
        a: u32,
        b: f32,
    }

    let right = ring(ctx.pid(), ctx.nprocs()).1;
    let xs = ctx.register([Pair { a: ctx.pid() as u32, b: 0.5 }]);
    let mut got = Pair { a: 0, b: 0.0 };
    ctx.superstep(|s| s.get(right, &xs, 0, &mut got));
    ctx.unregister(xs);
    let mut c = Complaints::default();
    c.expect("the pair", got, Pair { a: right as u32, b: 0.5 });
    c.outcome()
}

// ---------------------------------------------------------------------------------------------
// 7. One-element puts of large elements (a stack overflow)
// ---------------------------------------------------------------------------------------------

/// An element of 4 MiB, twice the stack of a spawned thread.
type Huge = [u64; 1 << 19];

/// The element of the put check: [`Huge`], or 8 KiB under Miri (whose stacks do not overflow the
/// same way, and which would take minutes to check every word of 4 MiB).
#[cfg(not(miri))]
type Big = Huge;
#[cfg(miri)]
type Big = [u64; 1 << 10];

/// `n` elements of [`Big`] made on the heap, zeroed: `vec![[0; N]; n]` would build one on the
/// stack first.
fn big_vec(n: usize) -> Vec<Big> {
    let layout = std::alloc::Layout::array::<Big>(n).expect("a few elements");
    assert!(layout.size() > 0);
    // SAFETY: the layout has a non-zero size (checked above).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<Big>();
    if ptr.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    // SAFETY: `ptr` was allocated by the global allocator with the layout of `n` elements of
    // `Big`, which is `Vec`'s layout for capacity `n`; its bytes are zero, a valid `Big`.
    unsafe { Vec::from_raw_parts(ptr, n, n) }
}

/// A put (and an hpput) whose source is one element of 4 MiB: the one-element fast path of `put`
/// copied its element to the caller's stack and overflowed it (`fatal runtime error: stack
/// overflow`), even where the put was not reached. A large element is passed by reference.
pub fn one_element_puts_of_4_mib_elements_arrive(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(pid, p);
    let x = ctx.register(big_vec(2));
    let mut src = big_vec(1);
    src[0].iter_mut().enumerate().for_each(|(i, w)| *w = (pid << 32 | i) as u64);
    ctx.put(right, &src[..], &x, 0);
    ctx.superstep(|s| s.hpput(right, &src[..], &x, 1));
    let mut c = Complaints::default();
    for at in 0..2 {
        let wrong = x.local(ctx)[at].iter().enumerate().find(|&(i, &w)| w != (left << 32 | i) as u64);
        c.ensure(wrong.is_none(), || format!("element {at}: word {wrong:?} is not from process {left}"));
    }
    c.outcome()
}

checks! {
    one_element_puts_of_4_mib_elements_arrive => Procs::ALL.on(&[1, 2]),
    gp_size_queries_into_registered_memory,
    a_registration_keeps_the_vector_it_was_given,
    hpmove_refuses_alignments_beyond_the_receive_buffer_every_time,
    hpmove_reads_in_place_what_a_typed_send_aligned,
    a_superstep_run_by_a_destructor_during_unwinding_completes,
    a_type_derived_through_the_bytemuck_reexport_is_a_value,
}

// ---------------------------------------------------------------------------------------------
// Failure cases
// ---------------------------------------------------------------------------------------------

/// 2^40 elements: far more slots than this machine (or any test machine) can allocate, but a
/// valid GA distribution.
const HUGE: usize = 1 << 40;

/// Creating a GP array whose share cannot be allocated fails the run with a message naming the
/// array, its dimensions and the size asked for, instead of aborting the OS process.
fn a_gp_array_too_large_to_allocate(ctx: &mut Ctx, probe: &Probe) {
    let _g = GpArray::<u64>::builder(&[HUGE]).name("huge").build(ctx);
    probe.reached("past building an array that cannot be allocated");
}

/// A superstep whose own closure unwinds marks the process broken, even if the program catches
/// the panic: its next communication fails the run.
fn communicating_after_a_superstep_closure_unwound(ctx: &mut Ctx, probe: &Probe) {
    let xs = ctx.register([0u8]);
    let caught = catch_unwind(AssertUnwindSafe(|| {
        ctx.superstep(|_| std::panic::resume_unwind(Box::new("the closure fails")));
    }));
    if caught.is_ok() {
        probe.reached("the superstep's closure did not unwind");
    }
    ctx.put(0, &1u8, &xs, 0);
    probe.reached("past a put of a broken process");
}

/// A combiner of 4 MiB elements: its function would take two of them by value on the stack.
fn a_combiner_of_4_mib_elements(ctx: &mut Ctx, probe: &Probe) {
    fn first(a: Huge, _: Huge) -> Huge {
        a
    }
    let _ = ctx.combiner(first);
    probe.reached("past making a combiner of 4 MiB elements");
}

cases! {
    a_combiner_of_4_mib_elements: [1] => |f| {
        f.failed_on(0)?;
        f.message_is(
            "combiner: an element of `[u64; 524288]` is 4194304 bytes; a combiner takes elements of at most 65536 bytes (its function takes them by value, on the stack)",
        )
    },
    #[several]
    a_gp_array_too_large_to_allocate: [1, 2] => |f| {
        f.not_an_abort()?;
        let share = format!("the {} elements", HUGE / f.p);
        f.mentions(&["gp array `huge`", "[1099511627776]", "cannot allocate", &share, "bytes"])
    },
    communicating_after_a_superstep_closure_unwound: [1] => |f| {
        f.failed_on(0)?;
        f.mentions(&["put", "a `superstep` of this process panicked earlier"])
    },
}
