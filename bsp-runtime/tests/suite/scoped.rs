//! Scoped registration of memory the caller owns (`Ctx::with_reg`, `Ctx::with_regs`, D21) as
//! engine-neutral checks: in place (no copy), whole or part of an array, batched, nested, with
//! every access form, and the failures it must report. MPI sends the pushed address as 0 and
//! resolves a scoped registration by its slot, so these run there too.

use std::panic::{AssertUnwindSafe, catch_unwind};

use bsp_runtime::{Ctx, ops};

use super::check::{Complaints, Outcome, Probe, Procs, cases, checks, ring};

/// A library routine with a plain `&mut [f64]` argument: registers it, receives the left
/// neighbour's first element into element 0, adds it to the other elements, and returns the
/// address of the registered memory it saw.
fn add_from_left(ctx: &mut Ctx, v: &mut [f64]) -> usize {
    let right = ring(ctx.pid(), ctx.nprocs()).1;
    let first = v.first().copied().unwrap_or(0.0);
    ctx.with_reg(v, |ctx, mut r| {
        ctx.put(right, &first, &r, 0);
        ctx.sync();
        let local = r.local_mut(ctx);
        let got = local[0];
        local.iter_mut().skip(1).for_each(|x| *x += got);
        r.local(ctx).as_ptr() as usize
    })
}

/// How many times `a_routine_registers_its_argument_in_place` calls the routine.
const CALLS: usize = if cfg!(miri) { 20 } else { 1000 };

/// A routine registers its argument in place, a thousand times over: the registered memory is
/// the caller's, and the caller's vector keeps its data and its address.
pub fn a_routine_registers_its_argument_in_place(ctx: &mut Ctx) -> Outcome {
    let mut v = vec![1.0f64; 4];
    let addr = v.as_ptr() as usize;
    let mut same = true;
    for _ in 0..CALLS {
        same &= add_from_left(ctx, &mut v) == addr;
    }
    let mut c = Complaints::default();
    c.expect("the registered memory is the caller's, every time", same, true);
    c.expect("the vector kept its address", v.as_ptr() as usize, addr);
    // Element 0 is overwritten by the left neighbour's element 0 (always 1.0); the others grow
    // by 1.0 per call.
    let grown = CALLS as f64 + 1.0;
    c.expect("the vector", v, vec![1.0, grown, grown, grown]);
    c.outcome()
}

/// Process q registers elements 1..1+q of its array; everyone writes its pid + 10 into every
/// element of every other process's part (except where `(i + pid) % p == q`).
pub fn part_of_an_array_and_variable_lengths(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let mut a = vec![-1i64; p + 2];
    let mut len = usize::MAX;
    ctx.with_reg(&mut a[1..1 + pid], |ctx, r| {
        len = r.len();
        for q in 0..p {
            for i in 0..q {
                if (i + pid) % p == q {
                    continue;
                }
                ctx.put(q, &(pid as i64 + 10), &r, i);
            }
        }
        ctx.sync();
    });
    let mut c = Complaints::default();
    c.expect("the length of the registered part", len, pid);
    for (j, &x) in a.iter().enumerate() {
        if j == 0 || j > pid {
            c.expect(format!("element {j}, outside the registered part"), x, -1);
        } else {
            // Element i = j - 1 is written by every pid s with (i + s) % p != pid, the highest of
            // them last (puts apply in ascending source pid).
            let i = j - 1;
            let last = (0..p).rev().find(|&s| (i + s) % p != pid).expect("a writer");
            c.expect(format!("element {j}"), x, last as i64 + 10);
        }
    }
    c.outcome()
}

/// `with_regs` of two, three and four pieces: one sync to register them all and one to
/// deregister them, parts of arrays and empty pieces among them.
pub fn batched_registrations_take_one_sync_each_way(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(pid, p);
    let (mut a, mut b, mut c, mut d) = ([0u8; 2], vec![0u32; 3], vec![0.0f32; 1], [0u64; 4]);
    let start = ctx.step();
    ctx.with_regs((&mut a, &mut b), |ctx, (a, b)| {
        ctx.put(right, &[pid as u8; 2], &a, 0);
        ctx.put(right, &(pid as u32), &b, 2);
        ctx.sync();
    });
    let two = ctx.step() - start;
    ctx.with_regs((&mut b[..2], &mut c, &mut d[1..]), |ctx, (b, c, d)| {
        ctx.put(right, &[7u32, 8], &b, 0);
        ctx.put(right, &0.5f32, &c, 0);
        ctx.put(right, &[1u64, 2, 3], &d, 0);
        ctx.sync();
    });
    let mut e = [0i16; 2];
    let mut empty = false;
    ctx.with_regs((&mut a[..1], &mut c[..0], &mut d, &mut e), |ctx, (_, c, d, mut e)| {
        empty = c.is_empty();
        ctx.put(right, &9i16, &e, 1);
        ctx.put(right, &5u64, &d, 0);
        ctx.sync();
        e.local_mut(ctx)[0] = -1;
    });
    let mut k = Complaints::default();
    k.expect("syncs of two pieces: a push sync, the closure's sync and a pop sync", two, 3);
    k.expect("the empty piece is empty", empty, true);
    k.expect("a", a, [left as u8; 2]);
    k.expect("b", b, vec![7, 8, left as u32]);
    k.expect("c", c, vec![0.5]);
    k.expect("d", d, [5, 1, 2, 3]);
    k.expect("e", e, [-1, 9]);
    k.outcome()
}

/// Element q of `dst` := element pid of process q's `src`, by gets into this process's own
/// scoped registration (so staged) inside a nested scope; and the total by a collective there.
pub fn gets_from_and_into_scoped_registrations_and_nesting(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let mut src: Vec<u32> = (0..p as u32).map(|i| 100 * pid as u32 + i).collect();
    let mut dst = vec![0u32; p];
    let mut sum = 0u32;
    ctx.with_reg(&mut src, |ctx, src| {
        ctx.with_reg(&mut dst, |ctx, mut dst| {
            ctx.superstep(|s| {
                let d = s.dest(dst.local_mut(s));
                for q in 0..p {
                    s.get(q, &src, pid, d.at(q));
                }
            });
            sum = ctx.allreduce_one(dst.local(ctx).iter().sum::<u32>(), ops::sum);
        });
    });
    let total: u32 = (0..p as u32).flat_map(|q| (0..p as u32).map(move |i| 100 * q + i)).sum();
    let mut c = Complaints::default();
    c.expect("dst", dst, (0..p as u32).map(|q| 100 * q + pid as u32).collect());
    c.expect("the total", sum, total);
    c.outcome()
}

checks! {
    a_routine_registers_its_argument_in_place => Procs::ALL.on(&[1, 2, 4]),
    part_of_an_array_and_variable_lengths,
    batched_registrations_take_one_sync_each_way,
    gets_from_and_into_scoped_registrations_and_nesting,
}

// ---------------------------------------------------------------------------------------------
// Failure cases
// ---------------------------------------------------------------------------------------------

/// Process 1 opens a scope (two syncs), the others make two plain syncs.
fn a_scope_on_some_processes_only(ctx: &mut Ctx, probe: &Probe) {
    let mut v = [0u8; 2];
    if ctx.pid() == 1 {
        ctx.with_reg(&mut v, |_, _| ());
    } else {
        ctx.sync();
        ctx.sync();
    }
    probe.reached("past a registration mismatch");
}

/// Process 0 registers `u32`s in a scope, process 1 `f32`s.
fn scopes_of_different_element_types(ctx: &mut Ctx, probe: &Probe) {
    if ctx.pid() == 0 {
        ctx.with_reg(&mut [0u32; 2], |_, _| ());
    } else {
        ctx.with_reg(&mut [0f32; 2], |_, _| ());
    }
    probe.reached("past a registration mismatch");
}

/// Every process puts 2 elements into process 0's scoped registration of 1.
fn a_put_past_the_extent_of_a_scoped_registration(ctx: &mut Ctx, probe: &Probe) {
    let mut v = vec![0u16; 1 + ctx.pid()];
    ctx.with_reg(&mut v, |ctx, r| {
        ctx.put(0, &[1u16, 2], &r, 0);
        probe.reached("past a put beyond the extent");
    });
}

/// The last process panics inside its scope.
fn a_panic_in_the_scope(ctx: &mut Ctx, probe: &Probe) {
    let last = ctx.nprocs() - 1;
    let mut v = [0u8; 4];
    ctx.with_reg(&mut v, |ctx, _| {
        if ctx.pid() == last {
            panic!("boom in the scope");
        }
        ctx.sync();
    });
    probe.reached("past the scope in which a process panicked");
}

/// The program catches a panic of its scope's closure, then syncs.
fn communicating_after_a_scope_unwound(ctx: &mut Ctx, probe: &Probe) {
    let mut v = [0u8; 4];
    let caught = catch_unwind(AssertUnwindSafe(|| {
        ctx.with_reg(&mut v, |_, _| panic!("caught by the program"));
    }));
    if caught.is_ok() {
        probe.reached("the scope's closure did not unwind");
    }
    ctx.sync();
    probe.reached("past a sync of a broken process");
}

cases! {
    a_scope_on_some_processes_only: [3] => |f| {
        f.not_an_abort()?;
        f.mentions(&["registration mismatch", "per process: [0, 1, 0]"])
    },
    scopes_of_different_element_types: [2] => |f| {
        f.not_an_abort()?;
        f.mentions(&["registration mismatch", "`u32`", "`f32`"])
    },
    #[several]
    a_put_past_the_extent_of_a_scoped_registration: [2] => |f| {
        f.not_an_abort()?;
        f.mentions(&["put with process 0", "offset 0 + length 2 is past the extent 1"])
    },
    a_panic_in_the_scope: [1, 2, 4] => |f| {
        f.failed_on(f.p - 1)?;
        f.message_is("boom in the scope")
    },
    communicating_after_a_scope_unwound: [1] => |f| {
        f.failed_on(0)?;
        f.mentions(&["sync", "cannot communicate any more"])
    },
}
