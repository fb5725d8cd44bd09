//! The rules about `run` and `Launch` themselves, which only the threads engine has in this
//! form: results of every process, the calling thread, several runs in one program, the process
//! count from the call, `BSP_NPROCS` or the default.

use crate::check::PS;
use crate::runner::{run_ok, within};

/// §2.4, §2.5: `nprocs` is the number actually running, pids are `0..p`; results come back
/// indexed by pid.
#[test]
fn run_returns_one_result_per_process_indexed_by_pid() {
    for &p in PS {
        let got = run_ok(p, |ctx| (ctx.pid(), ctx.nprocs()));
        assert_eq!(got, (0..p).map(|q| (q, p)).collect::<Vec<_>>());
    }
}

/// §2.1: process 0 continues the caller's thread of control; the others get threads of their own.
#[test]
fn process_zero_runs_on_the_calling_thread() {
    within("process 0 thread", || {
        let me = std::thread::current().id();
        let ids = bsp_runtime::run(3, |_| std::thread::current().id()).unwrap();
        assert_eq!(ids[0], me);
        assert!(ids[1] != me && ids[2] != me && ids[1] != ids[2]);
    });
}

/// The SPMD function may borrow from the caller (no `'static` bound).
#[test]
fn the_spmd_function_may_borrow_from_the_caller() {
    within("borrowing run", || {
        let data: Vec<u64> = (0..8).map(|i| i * i).collect();
        let got = bsp_runtime::run(8, |ctx| data[ctx.pid()]).unwrap();
        assert_eq!(got, data);
    });
}

/// D13: SPMD runs may follow each other in one program; nothing global carries over.
#[test]
fn runs_may_follow_each_other() {
    within("runs in sequence", || {
        for round in 0..4u32 {
            for &p in PS {
                let got = bsp_runtime::run(p, move |ctx| {
                    let x = ctx.register([ctx.pid() as u32 + round]);
                    let mut v = 0;
                    ctx.superstep(|s| s.get(0, &x, 0, &mut v));
                    (x.id(), v, ctx.step())
                })
                .unwrap();
                // registrations are numbered per run: the first push is #1 every time
                assert!(got.iter().all(|&g| g == (1, round, 2)), "round {round}, p {p}: {got:?}");
            }
        }
    });
}
