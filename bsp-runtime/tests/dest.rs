//! Many gets into one buffer (`Superstep::dest`): elements, ranges, overlaps (the later get
//! wins), registered memory as the buffer, and the messages for indices out of range.

mod common;

#[path = "suite/check.rs"]
mod check;

use bsp_runtime::Ctx;
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

/// Element `i` of process `q`'s registration in these tests.
fn value(q: usize, i: usize) -> u64 {
    (q * 1000 + i) as u64
}

/// Registers `n` elements `value(pid, i)` and syncs.
fn register(ctx: &mut Ctx, n: usize) -> bsp_runtime::Reg<u64> {
    ctx.register((0..n).map(|i| value(ctx.pid(), i)).collect::<Vec<_>>())
}

#[test]
fn one_get_per_element_from_every_process() {
    for &p in process_counts() {
        let out = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let x = register(ctx, 3 * p);
            // Element i of the buffer comes from process i % p, element (i * 7) % (3p).
            let mut buf = vec![0u64; 3 * p];
            ctx.superstep(|s| {
                let d = s.dest(&mut buf);
                for i in 0..3 * p {
                    s.get(i % p, &x, (i * 7) % (3 * p), d.at(i));
                }
            });
            let want: Vec<u64> = (0..3 * p).map(|i| value(i % p, (i * 7) % (3 * p))).collect();
            (pid, buf == want, buf)
        });
        for (pid, ok, buf) in out {
            assert!(ok, "p = {p}, process {pid}: {buf:?}");
        }
    }
}

#[test]
fn ranges_with_hpget_and_get() {
    for &p in process_counts() {
        let out = run_ok(p, |ctx| {
            let p = ctx.nprocs();
            let x = register(ctx, 4);
            // Row q of a p×4 block: elements 1..4 of process q at columns 0..3, by hpget; then
            // column 3 from element 0 of process q, by get.
            let mut block = vec![u64::MAX; 4 * p];
            ctx.superstep(|s| {
                let d = s.dest(&mut block);
                for q in 0..p {
                    s.hpget(q, &x, 1, d.range(4 * q..4 * q + 3));
                    s.get(q, &x, 0, d.range(4 * q + 3..=4 * q + 3));
                }
            });
            let want: Vec<u64> = (0..p).flat_map(|q| [value(q, 1), value(q, 2), value(q, 3), value(q, 0)]).collect();
            block == want
        });
        assert!(out.iter().all(|&ok| ok), "p = {p}: {out:?}");
    }
}

/// The buffer after the gets of `overlapping_gets`, computed in issue order.
fn overlapping_want(p: usize) -> [u64; 6] {
    let mut want = [7; 6];
    for q in (0..p).rev() {
        for j in 0..4 {
            want[q % 3 + j] = value(q, j);
        }
    }
    want[5] = value(p - 1, 3);
    want
}

/// Gets into overlapping parts of `d`, from the highest pid down (so that issue order and pid
/// order disagree).
fn overlapping_gets<'s>(s: &bsp_runtime::Superstep<'s, '_>, x: &bsp_runtime::Reg<u64>, d: bsp_runtime::Dest<'s, u64>) {
    let p = s.nprocs();
    for q in (0..p).rev() {
        s.get(q, x, 0, d.range(q % 3..q % 3 + 4));
    }
    s.get(p - 1, x, 3, d.at(5));
}

#[test]
fn overlapping_gets_the_later_wins() {
    for &p in process_counts() {
        let out = run_ok(p, |ctx| {
            let x = register(ctx, 4);
            let mut buf = [7u64; 6];
            ctx.superstep(|s| overlapping_gets(s, &x, s.dest(&mut buf)));
            buf
        });
        for (pid, buf) in out.iter().enumerate() {
            assert_eq!(*buf, overlapping_want(p), "p = {p}, process {pid}");
        }
    }
}

/// The same into this process's own registered memory, whose get results are staged and
/// written after the get phase: also in issue order. A put into the same memory wins (D1).
#[test]
fn overlapping_gets_into_registered_memory() {
    for &p in process_counts() {
        let out = run_ok(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let x = register(ctx, 4);
            let mut y = ctx.register([7u64; 6]);
            let mut plain = [7u64; 6];
            ctx.superstep(|s| {
                overlapping_gets(s, &x, s.dest(y.local_mut(s)));
                overlapping_gets(s, &x, s.dest(&mut plain));
            });
            let (staged, direct) = (y.local(ctx).to_vec(), plain);
            // Now the same with a put from the next process into element 2 of `y`.
            let name = y.remote();
            ctx.put((pid + 1) % p, &99u64, name, 2);
            ctx.superstep(|s| overlapping_gets(s, &x, s.dest(y.local_mut(s))));
            (staged, direct, y.local(ctx).to_vec())
        });
        let want = overlapping_want(p);
        let mut with_put = want;
        with_put[2] = 99;
        for (pid, (staged, direct, put)) in out.into_iter().enumerate() {
            assert_eq!(staged, want, "p = {p}, process {pid}: staged");
            assert_eq!(direct, want, "p = {p}, process {pid}: direct");
            assert_eq!(put, with_put, "p = {p}, process {pid}: with a put");
        }
    }
}

#[test]
fn a_dest_of_a_whole_buffer_and_of_nothing() {
    let out = run_ok(2, |ctx| {
        let x = register(ctx, 3);
        let mut all = [0u64; 3];
        let mut none: [u64; 0] = [];
        ctx.superstep(|s| {
            s.get(1, &x, 0, s.dest(&mut all));
            let d = s.dest(&mut none);
            s.get(1, &x, 3, d.range(..)); // zero elements, at the end of the extent
            assert!(d.is_empty());
            assert_eq!(d.len(), 0);
        });
        all
    });
    assert_eq!(out[0], [value(1, 0), value(1, 1), value(1, 2)]);
}

#[test]
fn index_out_of_range_is_named() {
    let err = run_err(2, |ctx| {
        let x = register(ctx, 3);
        let mut buf = [0u64; 4];
        ctx.superstep(|s| s.get(0, &x, 0, s.dest(&mut buf).at(4)));
    });
    assert_mentions(&err, &["failed: dest: index 4 is out of range for a buffer of length 4"]);
    let err = run_err(1, |ctx| {
        let x = register(ctx, 3);
        let mut buf = [0u64; 4];
        ctx.superstep(|s| s.get(0, &x, 0, s.dest(&mut buf).range(2..5)));
    });
    assert_mentions(&err, &["process 0 failed: dest: range 2..5 is out of range for a buffer of length 4"]);
    let err = run_err(1, |ctx| {
        let mut buf = [0u64; 4];
        #[allow(clippy::reversed_empty_ranges, reason = "the point of the test")]
        ctx.superstep(|s| {
            let _ = s.dest(&mut buf).range(3..2);
        });
    });
    assert_mentions(&err, &["range 3..2 is out of range"]);
}

#[test]
fn a_get_past_the_extent_names_the_registration() {
    let err = run_err(2, |ctx| {
        let x = register(ctx, 3);
        let mut buf = [0u64; 4];
        ctx.superstep(|s| s.get(1, &x, 1, s.dest(&mut buf).range(..3)));
    });
    assert_mentions(&err, &["get with process 1", "offset 1 + length 3 is past the extent 3"]);
}
