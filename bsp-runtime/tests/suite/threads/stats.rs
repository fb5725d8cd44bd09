//! The statistics of `ctx.stats()` where only threads can show them (modes, times, GP records
//! at p = 1..8); the counts of known communication patterns are the checks of `stats.rs`.

use std::time::Duration;

use crate::runner::run_ok;
use bsp_runtime::stats::{StatsMode, Traffic};

/// The process counts of these tests.
const ONE_TO_EIGHT: std::ops::RangeInclusive<usize> = 1..=8;

#[test]
fn turned_off_the_figures_stay_and_counts_need_no_clock() {
    run_ok(3, |ctx| {
        let x = ctx.register([0u32; 3]);
        ctx.put((ctx.pid() + 1) % 3, &[1u32], &x, 0);
        ctx.sync();
        let before = ctx.stats();
        ctx.set_stats(StatsMode::Off);
        ctx.put((ctx.pid() + 1) % 3, &[1u32, 2], &x, 0);
        ctx.sync();
        ctx.sync();
        assert_eq!(ctx.stats(), before);
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
    for p in ONE_TO_EIGHT {
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
