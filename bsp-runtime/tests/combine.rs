//! Combining puts (`Ctx::put_combine`): the operator applies in the order of D2 (ascending source
//! pid, then issue order), interleaved with plain puts, after get results; errors name the
//! processes and the combiner.

mod common;

use bsp_runtime::{run, Ctx};
use common::{within, PS};

/// Runs `check` on `p` processes under the hang guard; each process asserts for itself.
fn on_all(what: &'static str, check: fn(&mut Ctx)) {
    for p in PS {
        within(what, move || run(p, check)).unwrap_or_else(|e| panic!("{what}, p = {p}: {e}"));
    }
}

#[test]
fn fan_in_sums_into_one_element_of_every_process() {
    on_all("fan-in", |ctx| {
        let (pid, p) = (ctx.pid(), ctx.nprocs());
        let add = ctx.combiner(|a: u64, b: u64| a + b);
        let total = ctx.push_reg([1000u64]);
        ctx.sync();
        for q in 0..p {
            ctx.put_combine(q, &(pid as u64 + 1), &total, 0, add);
        }
        ctx.sync();
        assert_eq!(*total.value(ctx), 1000 + (p * (p + 1) / 2) as u64, "pid {pid}");
    });
}

#[test]
fn combining_order_is_ascending_source_pid_then_issue_order() {
    // A non-commutative operator records the order: x := 10 x + digit.
    on_all("order", |ctx| {
        let (pid, p) = (ctx.pid(), ctx.nprocs());
        let append = ctx.combiner(|a: u64, b: u64| a * 10 + b);
        let log = ctx.push_reg([0u64]);
        ctx.sync();
        // Every process sends two digits to process 0: pid+1 then pid+2 (mod 10).
        ctx.put_combine(0, &((pid as u64 + 1) % 10), &log, 0, append);
        ctx.put_combine(0, &((pid as u64 + 2) % 10), &log, 0, append);
        ctx.sync();
        if pid == 0 {
            let want = (0..p as u64).fold(0u64, |x, q| (x * 10 + (q + 1) % 10) * 10 + (q + 2) % 10);
            assert_eq!(*log.value(ctx), want, "p = {p}");
        }
    });
}

#[test]
fn plain_and_combining_puts_interleave_in_that_order() {
    on_all("interleave", |ctx| {
        let (pid, p) = (ctx.pid(), ctx.nprocs());
        let add = ctx.combiner(|a: i64, b: i64| a + b);
        let x = ctx.push_reg([5i64; 3]);
        ctx.sync();
        // Element 0: every process combines +1, but process 1 (if any) overwrites with 100 first
        // and then combines: so 100 + (its +1) + one for each later process.
        if pid == 1 {
            ctx.put(0, &100i64, &x, 0);
        }
        ctx.put_combine(0, &1i64, &x, 0, add);
        // Element 1: combine, then a plain put of the same process wins over it.
        ctx.put_combine(0, &7i64, &x, 1, add);
        ctx.put(0, &(-(pid as i64)), &x, 1);
        ctx.sync();
        if pid == 0 {
            let e0 = if p == 1 { 5 + 1 } else { 100 + (p as i64 - 1) };
            assert_eq!(x.local(ctx)[0], e0, "p = {p}");
            assert_eq!(x.local(ctx)[1], -(p as i64 - 1), "p = {p}: the last plain put wins");
            assert_eq!(x.local(ctx)[2], 5, "p = {p}: untouched");
        }
    });
}

#[test]
fn combining_puts_combine_with_a_get_result_of_the_same_superstep() {
    on_all("after get", |ctx| {
        let (pid, p) = (ctx.pid(), ctx.nprocs());
        let add = ctx.combiner(|a: u32, b: u32| a + b);
        let mut x = ctx.push_reg([pid as u32 * 10]);
        ctx.sync();
        let name = x.remote();
        ctx.superstep(|s| {
            // x := x of the right neighbour (a get, landing first) ...
            s.get((pid + 1) % p, name, 0, x.local_mut(s));
            // ... then + 1 from every process.
            for q in 0..p {
                s.put_combine(q, &1u32, name, 0, add);
            }
        });
        assert_eq!(*x.value(ctx), ((pid + 1) % p) as u32 * 10 + p as u32, "pid {pid}");
    });
}

#[test]
fn floating_point_sums_are_the_sequential_sum_in_pid_order() {
    on_all("f64", |ctx| {
        let (pid, p) = (ctx.pid(), ctx.nprocs());
        let add = ctx.combiner(|a: f64, b: f64| a + b);
        let v = ctx.push_reg(vec![0.0f64; 64]);
        ctx.sync();
        let mine: Vec<f64> = (0..64).map(|i| 1.0 / (1.0 + (pid * 64 + i) as f64).sqrt()).collect();
        ctx.put_combine(0, &mine[..], &v, 0, add);
        ctx.sync();
        if pid == 0 {
            for i in 0..64 {
                let want = (0..p).fold(0.0f64, |s, q| s + 1.0 / (1.0 + (q * 64 + i) as f64).sqrt());
                assert_eq!(v.local(ctx)[i].to_bits(), want.to_bits(), "element {i}, p = {p}");
            }
        }
    });
}

#[test]
fn a_combining_put_into_a_range_of_a_long_array() {
    on_all("range", |ctx| {
        let (pid, p) = (ctx.pid(), ctx.nprocs());
        let max = ctx.combiner(|a: i32, b: i32| a.max(b));
        let v = ctx.push_reg(vec![-1i32; 1000]);
        ctx.sync();
        let mine: Vec<i32> = (0..500).map(|i| ((i * 7 + pid * 13) % 97) as i32).collect();
        ctx.put_combine((pid + 1) % p, &mine[..], &v, 250, max);
        ctx.sync();
        let from = (pid + p - 1) % p;
        for (i, &x) in v.local(ctx).iter().enumerate() {
            // Only process `from` wrote here, into an array of -1: max(-1, value) = value.
            let want = if (250..750).contains(&i) { (((i - 250) * 7 + from * 13) % 97) as i32 } else { -1 };
            assert_eq!(x, want, "pid {pid} element {i}");
        }
    });
}

#[test]
fn combiners_of_different_types_on_different_processes_are_an_error_naming_them() {
    let err = within("type mismatch", || {
        run(2, |ctx| {
            let x = ctx.push_reg([0u64]);
            if ctx.pid() == 0 {
                let _ = ctx.combiner(|a: u32, b: u32| a + b);
                ctx.sync();
            } else {
                let add = ctx.combiner(|a: u64, b: u64| a + b);
                ctx.sync();
                ctx.put_combine(0, &1u64, &x, 0, add);
            }
            ctx.sync();
        })
    })
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "process 0 failed: put_combine from process 1: combiner #0 is for `u32` (4 bytes) on this process but for 8-byte elements on process 1: every process must make the same combiners in the same order"
    );
}

#[test]
fn a_combiner_missing_on_the_receiver_is_an_error_naming_it() {
    let err = within("missing", || {
        run(3, |ctx| {
            let x = ctx.push_reg([0u64]);
            let _ = ctx.combiner(|a: u64, b: u64| a + b);
            ctx.sync();
            if ctx.pid() == 2 {
                let max = ctx.combiner(|a: u64, b: u64| a.max(b)); // #1 on process 2 only
                ctx.put_combine(1, &1u64, &x, 0, max);
            }
            ctx.sync();
        })
    })
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "process 1 failed: put_combine from process 2: combiner #1 does not exist on this process (1 made): every process must make the same combiners in the same order"
    );
}

#[test]
fn a_combining_put_past_the_extent_names_every_value() {
    let err = within("extent", || {
        run(2, |ctx| {
            let add = ctx.combiner(|a: u8, b: u8| a.wrapping_add(b));
            let x = ctx.push_reg(vec![0u8; 4 + ctx.pid()]);
            ctx.sync();
            if ctx.pid() == 0 {
                ctx.put_combine(1, &[1u8; 3], &x, 2, add); // fits: process 1 has 5
                ctx.put_combine(1, &[1u8; 3], &x, 4, add); // 4 + 3 > 5
            }
            ctx.sync();
        })
    })
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "process 0 failed: put_combine with process 1: registration #1: offset 4 + length 3 is past the extent 5 that process 1 registered (elements of `u8`)"
    );
}
