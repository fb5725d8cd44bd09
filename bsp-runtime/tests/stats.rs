//! The statistics of `ctx.stats()` against communication patterns whose counts are known:
//! exact operation counts, bytes and h at p = 1..8.
//!
//! Each pattern is an SPMD function that asserts its own process's figures, so the same
//! functions can run on any engine.

mod common;

/// The suite's types, which `common` refers to.
#[path = "suite/check.rs"]
mod check;

use std::time::Duration;

use bsp_runtime::stats::{StatsMode, StepStats, Traffic};
use bsp_runtime::Ctx;
use common::run_ok;

const PS: std::ops::RangeInclusive<usize> = 1..=8;

fn on_every_p(f: fn(&mut Ctx)) {
    for p in PS {
        run_ok(p, f);
    }
}

/// Puts of `q + 1` words from every process to every other process `q`, and 3 words to itself.
fn all_to_all_puts(ctx: &mut Ctx) {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    let x = ctx.push_reg(vec![0u64; p * (p + 3)]);
    ctx.sync();
    for q in 0..p {
        let n = if q == s { 3 } else { q + 1 };
        ctx.put(q, &vec![s as u64; n][..], &x, s * (p + 3));
    }
    ctx.sync();
    let last = ctx.stats().last;
    let others = p - 1;
    let sent_bytes: usize = (0..p).filter(|&q| q != s).map(|q| 8 * (q + 1)).sum();
    let want_sent = Traffic { puts: others, put_bytes: sent_bytes, ..Traffic::default() };
    let want_received = Traffic { puts: others, put_bytes: 8 * (s + 1) * others, ..Traffic::default() };
    assert_eq!(last.step, 1, "pid {s}");
    assert_eq!(last.sent, want_sent, "pid {s} of {p}");
    assert_eq!(last.received, want_received, "pid {s} of {p}");
    assert_eq!(last.local, Traffic { puts: 1, put_bytes: 24, ..Traffic::default() }, "pid {s} of {p}");
    assert_eq!(last.h_bytes, sent_bytes.max(8 * (s + 1) * others), "pid {s} of {p}");
    assert_eq!(last.h_words(), last.h_bytes / 8);
    ctx.pop_reg(&x);
    ctx.sync();
}

#[test]
fn puts_are_counted_by_sender_and_receiver() {
    on_every_p(all_to_all_puts);
}

/// Every process gets 5 `u32` from process 0 (process 0 from itself), and process 0 also
/// gets 2 from the last process.
fn gets_from_zero(ctx: &mut Ctx) {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    let x = ctx.push_reg(vec![s as u32; 5]);
    ctx.sync();
    let mut a = [0u32; 5];
    let mut b = [0u32; 2];
    ctx.superstep(|st| {
        st.get(0, &x, 0, &mut a);
        if s == 0 {
            st.get(p - 1, &x, 0, &mut b);
        }
    });
    assert_eq!(a, [0; 5]);
    let last = ctx.stats().last;
    let others = p - 1;
    if s == 0 {
        // Serves 5 words to each other process; receives 2 from the last one (if it is not itself).
        let want_sent = Traffic { gets: others, get_bytes: 20 * others, ..Traffic::default() };
        let want_received =
            Traffic { gets: usize::from(p > 1), get_bytes: if p > 1 { 8 } else { 0 }, ..Traffic::default() };
        let local_gets = if p > 1 { 1 } else { 2 };
        let local_bytes = if p > 1 { 20 } else { 28 };
        assert_eq!(last.sent, want_sent, "pid 0 of {p}");
        assert_eq!(last.received, want_received, "pid 0 of {p}");
        assert_eq!(
            last.local,
            Traffic { gets: local_gets, get_bytes: local_bytes, ..Traffic::default() },
            "pid 0 of {p}"
        );
        assert_eq!(last.h_bytes, (20 * others).max(want_received.get_bytes));
    } else {
        let served =
            if s == p - 1 { Traffic { gets: 1, get_bytes: 8, ..Traffic::default() } } else { Traffic::default() };
        assert_eq!(last.sent, served, "pid {s} of {p}");
        assert_eq!(last.received, Traffic { gets: 1, get_bytes: 20, ..Traffic::default() }, "pid {s} of {p}");
        assert_eq!(last.local, Traffic::default(), "pid {s} of {p}");
        assert_eq!(last.h_bytes, 20, "pid {s} of {p}");
    }
    ctx.pop_reg(&x);
    ctx.sync();
}

#[test]
fn gets_are_counted_as_data_from_the_owner() {
    on_every_p(gets_from_zero);
}

/// Each process sends two messages with a 4-byte tag to its right neighbour: `s + 1` and one
/// `f64` of payload.
fn messages_to_the_right(ctx: &mut Ctx) {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    ctx.set_tag::<u32>();
    ctx.sync();
    let right = (s + 1) % p;
    ctx.send(right, &7u32, &vec![1.0f64; s + 1]);
    ctx.send(right, &8u32, &[2.0f64]);
    ctx.sync();
    let last = ctx.stats().last;
    let left = (s + p - 1) % p;
    let out = Traffic { messages: 2, message_bytes: 4 + 8 * (s + 1) + 12, ..Traffic::default() };
    let inc = Traffic { messages: 2, message_bytes: 4 + 8 * (left + 1) + 12, ..Traffic::default() };
    if p == 1 {
        assert_eq!((last.sent, last.received, last.local), (Traffic::default(), Traffic::default(), out));
        assert_eq!(last.h_bytes, 0);
    } else {
        assert_eq!(last.sent, out, "pid {s} of {p}");
        assert_eq!(last.received, inc, "pid {s} of {p}");
        assert_eq!(last.h_bytes, out.message_bytes.max(inc.message_bytes), "pid {s} of {p}");
    }
    assert_eq!(ctx.qsize().0, 2);
    ctx.sync();
}

#[test]
fn messages_count_tag_and_payload() {
    on_every_p(messages_to_the_right);
}

/// An hpput of 16 `u16` and a put of 1 `u16` to the right neighbour, in one superstep.
fn hpput_and_put(ctx: &mut Ctx) {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    let x = ctx.push_reg(vec![0u16; 17]);
    ctx.sync();
    let block = [s as u16; 16];
    let right = (s + 1) % p;
    ctx.superstep(|st| {
        st.hpput(right, &block[..], &x, 0);
        st.put(right, &[9u16], &x, 16);
    });
    assert_eq!(x.local(ctx)[16], 9);
    let last = ctx.stats().last;
    let t = Traffic { puts: 2, put_bytes: 34, ..Traffic::default() };
    if p == 1 {
        assert_eq!((last.sent, last.received, last.local), (Traffic::default(), Traffic::default(), t));
    } else {
        assert_eq!((last.sent, last.received, last.local), (t, t, Traffic::default()), "pid {s} of {p}");
        assert_eq!(last.h_bytes, 34);
    }
    ctx.pop_reg(&x);
    ctx.sync();
}

#[test]
fn hpputs_count_their_bytes() {
    on_every_p(hpput_and_put);
}

/// Empty supersteps count nothing; totals add up over supersteps.
fn totals_add_up(ctx: &mut Ctx) {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    let x = ctx.push_reg(vec![0u8; p]);
    ctx.sync();
    let mut steps: Vec<StepStats> = vec![ctx.stats().last];
    for round in 0..6 {
        if round % 2 == 0 {
            for q in 0..p {
                ctx.put(q, &[1u8], &x, s);
            }
        }
        ctx.sync();
        steps.push(ctx.stats().last);
        if round % 2 == 1 {
            let last = ctx.stats().last;
            assert_eq!((last.sent, last.received, last.local, last.h_bytes), Default::default(), "an empty superstep");
        }
    }
    let total = ctx.stats().total;
    assert_eq!(total.supersteps, 7);
    assert_eq!(total.supersteps, ctx.step());
    assert_eq!(steps.iter().map(|st| st.step).collect::<Vec<_>>(), (0..7).collect::<Vec<_>>());
    assert_eq!(total.sent.puts, 3 * (p - 1));
    assert_eq!(total.received.put_bytes, 3 * (p - 1));
    assert_eq!(total.local.puts, 3);
    assert_eq!(total.h_bytes, steps.iter().map(|st| st.h_bytes).sum::<usize>());
    assert_eq!(total.compute, steps.iter().map(|st| st.compute).sum::<Duration>());
    assert_eq!(total.wait + total.data, steps.iter().map(StepStats::sync).sum::<Duration>());
    ctx.pop_reg(&x);
    ctx.sync();
}

#[test]
fn totals_are_the_sums_of_the_supersteps() {
    on_every_p(totals_add_up);
}

#[test]
fn turned_off_the_figures_stay_and_counts_need_no_clock() {
    run_ok(3, |ctx| {
        let x = ctx.push_reg([0u32; 3]);
        ctx.sync();
        ctx.put((ctx.pid() + 1) % 3, &[1u32], &x, 0);
        ctx.sync();
        let before = *ctx.stats();
        ctx.set_stats(StatsMode::Off);
        ctx.put((ctx.pid() + 1) % 3, &[1u32, 2], &x, 0);
        ctx.sync();
        ctx.sync();
        assert_eq!(*ctx.stats(), before);
        ctx.set_stats(StatsMode::Counts);
        ctx.put((ctx.pid() + 1) % 3, &[1u32, 2, 3], &x, 0);
        ctx.sync();
        let last = ctx.stats().last;
        assert_eq!((last.step, last.sent.put_bytes, last.received.puts), (4, 12, 1));
        assert_eq!((last.compute, last.wait, last.data), (Duration::ZERO, Duration::ZERO, Duration::ZERO));
        assert_eq!(ctx.stats().total.compute, before.total.compute);
        ctx.set_stats(StatsMode::Timed);
        std::thread::sleep(Duration::from_millis(2));
        ctx.sync();
        assert_eq!(ctx.stats().last.step, 5);
        assert!(ctx.stats().last.compute >= Duration::from_millis(2));
        assert_eq!(ctx.stats().total.supersteps, before.total.supersteps + 2);
    });
}

#[test]
fn compute_and_waiting_are_told_apart() {
    // Process 0 computes (sleeps) 60 ms in superstep 1; the others wait for it in the sync.
    let figures = run_ok(3, |ctx| {
        ctx.set_stats(StatsMode::Timed); // times are not kept by default
        ctx.sync();
        if ctx.pid() == 0 {
            std::thread::sleep(Duration::from_millis(60));
        }
        ctx.sync();
        ctx.stats().last
    });
    assert!(figures[0].compute >= Duration::from_millis(60), "{:?}", figures[0]);
    for f in &figures[1..] {
        assert!(f.compute < Duration::from_millis(30), "{f:?}");
        assert!(f.wait >= Duration::from_millis(30), "{f:?}");
    }
}

#[test]
fn gp_records_count_like_puts() {
    use bsp_runtime::gp::GpArray;
    for p in PS {
        // Every process writes its pid into element (pid + 1) mod p, owned by its right neighbour.
        let figures = run_ok(p, |ctx| {
            let me = ctx.pid();
            let p = ctx.nprocs();
            let mut g = GpArray::<u32>::builder(&[p]).build(ctx);
            g.assign_local(ctx, &[me], [0]);
            ctx.sync();
            g.scatter(ctx, &[[(me + 1) % p]], &[[me as u32]], true);
            ctx.sync();
            assert_eq!(g.access(ctx, &[me]).expect("assigned")[0] as usize, (me + p - 1) % p);
            let last = ctx.stats().last;
            g.destroy(ctx);
            last
        });
        for (s, f) in figures.iter().enumerate() {
            let (moved, quiet) = if p == 1 { (&f.local, &f.sent) } else { (&f.sent, &f.local) };
            assert_eq!(moved.records, 1, "p = {p}, pid {s}: {f:?}");
            assert!(moved.record_bytes >= 4, "p = {p}, pid {s}: {f:?}");
            assert_eq!((moved.puts, moved.gets, moved.messages), (0, 0, 0));
            assert_eq!(*quiet, Traffic::default());
            if p > 1 {
                let right = &figures[(s + 1) % p];
                assert_eq!(right.received, f.sent, "p = {p}: what {s} sent is what {} received", (s + 1) % p);
                assert_eq!(f.h_bytes, f.sent.record_bytes);
            }
        }
    }
}
