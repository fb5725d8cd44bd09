//! Scoped registration of memory the caller owns (`Ctx::with_reg`, `Ctx::with_regs`): in place
//! (no copy), whole or part of an array, batched, nested, with every access form, and the
//! failures it must report; and the checks of `suite/registration.rs`
//! (`registration::on_threads::<check>`: any number of pieces in one sync, `RegHandle`).

mod common;

#[path = "suite/check.rs"]
mod check;
#[path = "suite/registration.rs"]
mod registration;

use bsp_runtime::{ops, Ctx};
use common::{assert_mentions, run_err, run_ok, PS};

/// The process counts of these tests: fewer under Miri, which runs them slowly (they are
/// checked there for undefined behaviour: `cargo +nightly miri test --test NAME`).
fn process_counts() -> &'static [usize] {
    if cfg!(miri) {
        &[1, 3]
    } else {
        &PS
    }
}

/// A library routine with a plain `&mut [f64]` argument: registers it, receives the left
/// neighbour's first element into element 0, adds it to the other elements, and returns the
/// address of the registered memory it saw.
fn add_from_left(ctx: &mut Ctx, v: &mut [f64]) -> usize {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let first = v.first().copied().unwrap_or(0.0);
    ctx.with_reg(v, |ctx, mut r| {
        ctx.put((pid + 1) % p, &first, &r, 0);
        ctx.sync();
        let local = r.local_mut(ctx);
        let got = local[0];
        local.iter_mut().skip(1).for_each(|x| *x += got);
        r.local(ctx).as_ptr() as usize
    })
}

/// How many times `a_routine_registers_its_argument_in_place` calls the routine.
const CALLS: usize = if cfg!(miri) { 20 } else { 1000 };

#[test]
fn a_routine_registers_its_argument_in_place() {
    for p in [1, 2, 4] {
        let out = run_ok(p, |ctx| {
            let mut v = vec![1.0f64; 4];
            let addr = v.as_ptr() as usize;
            let mut same = true;
            for _ in 0..CALLS {
                same &= add_from_left(ctx, &mut v) == addr;
            }
            (same, v.as_ptr() as usize == addr, v)
        });
        for (pid, (same, kept, v)) in out.into_iter().enumerate() {
            assert!(same && kept, "p = {p}, process {pid}: the registered memory is not the caller's");
            // Element 0 is overwritten by the left neighbour's element 0 (always 1.0); the others
            // grow by 1.0 per call.
            let grown = CALLS as f64 + 1.0;
            assert_eq!(v, [1.0, grown, grown, grown], "p = {p}, process {pid}");
        }
    }
}

#[test]
fn part_of_an_array_and_variable_lengths() {
    for &p in process_counts() {
        let out = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            // Process q registers elements 1..1+q of its array; everyone writes its pid + 10 into
            // every element of every other process's part.
            let mut a = vec![-1i64; p + 2];
            ctx.with_reg(&mut a[1..1 + pid], |ctx, r| {
                assert_eq!(r.len(), pid);
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
            a
        });
        for (q, a) in out.into_iter().enumerate() {
            for (j, &x) in a.iter().enumerate() {
                if j == 0 || j > q {
                    assert_eq!(x, -1, "p = {p}, process {q}: element {j} is outside the registered part");
                } else {
                    // Element i = j - 1 is written by every pid with (i + pid) % p != q, the
                    // highest of them last (puts apply in ascending source pid).
                    let i = j - 1;
                    let last = (0..p).rev().find(|&s| (i + s) % p != q).unwrap();
                    assert_eq!(x, last as i64 + 10, "p = {p}, process {q}: element {j}");
                }
            }
        }
    }
}

#[test]
fn batched_registrations_take_one_sync_each_way() {
    let out = run_ok(3, |ctx| {
        let (pid, p) = (ctx.pid(), ctx.nprocs());
        let right = (pid + 1) % p;
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
        ctx.with_regs((&mut a[..1], &mut c[..0], &mut d, &mut e), |ctx, (_, c, d, mut e)| {
            assert!(c.is_empty());
            ctx.put(right, &9i16, &e, 1);
            ctx.put(right, &5u64, &d, 0);
            ctx.sync();
            e.local_mut(ctx)[0] = -1;
        });
        (two, a, b, c, d, e)
    });
    for (pid, (two, a, b, c, d, e)) in out.into_iter().enumerate() {
        let left = (pid + 2) % 3;
        assert_eq!(two, 3, "a push sync, the closure's sync and a pop sync");
        assert_eq!(a, [left as u8; 2]);
        assert_eq!(b, [7, 8, left as u32]);
        assert_eq!(c, [0.5]);
        assert_eq!(d, [5, 1, 2, 3]);
        assert_eq!(e, [-1, 9]);
    }
}

#[test]
fn gets_from_and_into_scoped_registrations_and_nesting() {
    for &p in process_counts() {
        let out = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let mut src: Vec<u32> = (0..p as u32).map(|i| 100 * pid as u32 + i).collect();
            let mut dst = vec![0u32; p];
            let mut sum = [0u32];
            ctx.with_reg(&mut src, |ctx, src| {
                ctx.with_reg(&mut dst, |ctx, mut dst| {
                    // Element q of `dst` := element pid of process q's `src` (a get into this
                    // process's own scoped registration, so staged).
                    ctx.superstep(|s| {
                        let d = s.dest(dst.local_mut(s));
                        for q in 0..p {
                            s.get(q, &src, pid, d.at(q));
                        }
                    });
                    // And the total, by a collective inside the scope.
                    sum[0] = ctx.allreduce_one(dst.local(ctx).iter().sum::<u32>(), ops::sum);
                });
            });
            (dst, sum[0])
        });
        let total: u32 = (0..p as u32).flat_map(|q| (0..p as u32).map(move |i| 100 * q + i)).sum();
        for (pid, (dst, sum)) in out.into_iter().enumerate() {
            let want: Vec<u32> = (0..p as u32).map(|q| 100 * q + pid as u32).collect();
            assert_eq!(dst, want, "p = {p}, process {pid}");
            assert_eq!(sum, total, "p = {p}, process {pid}");
        }
    }
}

#[test]
fn a_scope_on_some_processes_only_is_a_registration_mismatch() {
    let err = run_err(3, |ctx| {
        let mut v = [0u8; 2];
        if ctx.pid() == 1 {
            ctx.with_reg(&mut v, |_, _| ());
        } else {
            ctx.sync();
            ctx.sync();
        }
    });
    assert_mentions(&err, &["registration mismatch", "per process: [0, 1, 0]"]);
}

#[test]
fn different_element_types_are_a_registration_mismatch() {
    let err = run_err(2, |ctx| {
        if ctx.pid() == 0 {
            ctx.with_reg(&mut [0u32; 2], |_, _| ());
        } else {
            ctx.with_reg(&mut [0f32; 2], |_, _| ());
        }
    });
    assert_mentions(&err, &["registration mismatch", "`u32`", "`f32`"]);
}

#[test]
fn a_put_past_the_extent_names_the_registration() {
    let err = run_err(2, |ctx| {
        let mut v = vec![0u16; 1 + ctx.pid()];
        ctx.with_reg(&mut v, |ctx, r| {
            let id = r.id();
            ctx.put(0, &[1u16, 2], &r, 0);
            id
        })
    });
    assert_mentions(&err, &["put with process 0", "offset 0 + length 2 is past the extent 1"]);
}

#[test]
fn a_panic_in_the_scope_breaks_the_process_and_fails_the_run() {
    for p in [1, 2, 4] {
        let err = run_err(p, move |ctx| {
            let mut v = [0u8; 4];
            ctx.with_reg(&mut v, |ctx, _| {
                if ctx.pid() == p - 1 {
                    panic!("boom in the scope");
                }
                ctx.sync();
            });
        });
        assert_mentions(&err, &["boom in the scope"]);
    }
}

#[test]
fn a_process_whose_scope_unwound_cannot_communicate() {
    let err = run_err(1, |ctx| {
        let mut v = [0u8; 4];
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ctx.with_reg(&mut v, |_, _| panic!("caught by the program"));
        }));
        assert!(caught.is_err());
        ctx.sync();
    });
    assert_mentions(&err, &["sync", "cannot communicate any more"]);
}
