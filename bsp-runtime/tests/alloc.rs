//! No allocation per sync in steady state: a counting global allocator shows that, after a
//! warm-up, supersteps with a fixed communication pattern allocate nothing, on any process.
//!
//! The counter is per thread (each process is a thread), so tests running in parallel in this
//! binary do not disturb each other. What is counted is every call of `alloc`, `alloc_zeroed`
//! and `realloc` made by a process between the end of its warm-up and the end of the measured
//! supersteps; the test asserts the count is zero on every process.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    // `const` and `Cell<u64>` (no destructor): usable from inside the allocator.
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: a thread being torn down may allocate after its locals are gone.
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: forwards every call to `System` unchanged; counting has no effect on the memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which we pass on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCS.with(Cell::get)
}

const WARM_UP: usize = 8;
const MEASURED: usize = 200;

/// Runs `superstep` (which ends with a sync) `WARM_UP` times, then `MEASURED` times counting
/// this process's allocations; returns the count of each process.
fn allocations_in_steady_state(p: usize, superstep: impl Fn(&mut bsp_runtime::Ctx, usize) + Sync) -> Vec<u64> {
    bsp_runtime::run(p, |ctx| {
        for i in 0..WARM_UP {
            superstep(ctx, i);
        }
        let before = allocations();
        for i in WARM_UP..WARM_UP + MEASURED {
            superstep(ctx, i);
        }
        allocations() - before
    })
    .unwrap()
}

#[test]
fn empty_syncs_do_not_allocate() {
    for p in [1, 2, 3, 8] {
        let counts = allocations_in_steady_state(p, |ctx, _| ctx.sync());
        assert_eq!(counts, vec![0; p], "p = {p}: allocations per process in {MEASURED} empty syncs");
    }
}

#[test]
fn syncs_with_puts_do_not_allocate() {
    for p in [2, 3, 4] {
        let counts = bsp_runtime::run(p, |ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let x = ctx.register(vec![0u64; 64 * p]);
            let src: Vec<u64> = (0..64).map(|i| (pid * 1000 + i) as u64).collect();
            let step = |ctx: &mut bsp_runtime::Ctx, i: usize| {
                for q in 0..p {
                    // a block, and single words, to every process (itself included)
                    ctx.put(q, &src[..16], &x, pid * 64);
                    for k in 0..8 {
                        ctx.put(q, &src[16 + k], &x, pid * 64 + 16 + (k + i) % 48);
                    }
                }
                ctx.sync();
            };
            for i in 0..WARM_UP {
                step(ctx, i);
            }
            let before = allocations();
            for i in WARM_UP..WARM_UP + MEASURED {
                step(ctx, i);
            }
            let n = allocations() - before;
            assert_eq!(x.local(ctx)[64 * ((pid + 1) % p)], ((pid + 1) % p * 1000) as u64);
            n
        })
        .unwrap();
        assert_eq!(counts, vec![0; p], "p = {p}: allocations per process in {MEASURED} syncs with puts");
    }
}

#[test]
fn syncs_with_gets_and_hp_operations_do_not_allocate() {
    let p = 3;
    let counts = bsp_runtime::run(p, |ctx| {
        let (pid, p) = (ctx.pid(), ctx.nprocs());
        let (x, y) = ctx.register((vec![pid as u32; 256], vec![0u32; 256 * p]));
        let block = vec![7u32; 256];
        let mut got = vec![0u32; 256];
        let mut word = 0u32;
        let mut step = |ctx: &mut bsp_runtime::Ctx| {
            let (left, right) = ((pid + p - 1) % p, (pid + 1) % p);
            ctx.superstep(|s| {
                s.get(left, &x, 0, &mut got[..]);
                s.hpget(right, &x, 3, &mut word);
                s.hpput(right, &block[..], &y, 256 * pid);
            });
        };
        for _ in 0..WARM_UP {
            step(ctx);
        }
        let before = allocations();
        for _ in 0..MEASURED {
            step(ctx);
        }
        let n = allocations() - before;
        assert_eq!((got[0], word), (((pid + p - 1) % p) as u32, ((pid + 1) % p) as u32));
        n
    })
    .unwrap();
    assert_eq!(counts, vec![0; p], "allocations per process in {MEASURED} syncs with get, hpget and hpput");
}

#[test]
fn syncs_with_messages_do_not_allocate() {
    let p = 3;
    let counts = bsp_runtime::run(p, |ctx| {
        let (pid, p) = (ctx.pid(), ctx.nprocs());
        ctx.set_tag::<u32>();
        ctx.sync();
        let mut payload = [0u64; 4];
        let step = |ctx: &mut bsp_runtime::Ctx, payload: &mut [u64; 4]| {
            for q in 0..p {
                for k in 0..5u32 {
                    ctx.send(q, &k, &[pid as u64, k as u64][..]);
                }
            }
            ctx.sync();
            let mut seen = 0;
            while let Some(n) = ctx.move_into(payload) {
                assert_eq!(n, 2);
                seen += 1;
            }
            assert_eq!(seen, 5 * p);
        };
        for _ in 0..WARM_UP {
            step(ctx, &mut payload);
        }
        let before = allocations();
        for _ in 0..MEASURED {
            step(ctx, &mut payload);
        }
        allocations() - before
    })
    .unwrap();
    assert_eq!(counts, vec![0; p], "allocations per process in {MEASURED} syncs with sends");
}

#[test]
fn the_counter_sees_allocations() {
    // The harness itself: a superstep that allocates is caught.
    let counts = allocations_in_steady_state(2, |ctx, i| {
        std::hint::black_box(vec![i; 4]);
        ctx.sync();
    });
    assert_eq!(counts, vec![MEASURED as u64; 2]);
}
