//! The SPMD framework (§1, §2, D12–D14) as engine-neutral checks: process ids and
//! counts, `step`, `time`, `superstep`, long runs of mixed supersteps, nested runs, and panics
//! that the program catches.

use std::panic::{AssertUnwindSafe, catch_unwind};

use bsp_runtime::Ctx;

use super::check::{Outcome, Procs, checks, ensure, expect, ring};

// ---------------------------------------------------------------------------------------------
// §2 SPMD framework, D13
// ---------------------------------------------------------------------------------------------

/// The run is really on MPI: `nprocs` and `pid` are mpirun's size and rank, and every process is
/// an OS process of its own (else every other check could pass on threads); with threads per
/// rank (`BSP_THREADS=t`, the hybrid engine), `nprocs` is size · t, rank r holds pids r·t ..
/// r·t + t, and every rank is an OS process of its own.
pub fn processes_are_mpi_ranks(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<usize>().ok());
    let (size, rank) = (env("OMPI_COMM_WORLD_SIZE"), env("OMPI_COMM_WORLD_RANK"));
    let me = std::process::id();
    for q in 0..p {
        ctx.send(q, &(), &[me][..]);
    }
    ctx.sync();
    let mut ids = Vec::new();
    while let Some(((), v)) = ctx.move_message::<(), u32>() {
        ids.extend(v);
    }
    ids.sort_unstable();
    ids.dedup();
    // With threads per rank (the hybrid engine), rank r holds pids r·t .. r·t + t.
    let t = env("BSP_THREADS").unwrap_or(1);
    expect(
        "(nprocs, pid / threads per rank) vs mpirun's (size · threads, rank)",
        (Some(p), Some(pid / t)),
        (size.map(|s| s * t), rank),
    )?;
    expect("distinct OS processes among the processes", ids.len(), p / t)
}

/// `step` counts the syncs done so far (a `superstep` is one sync).
pub fn step_counts_the_syncs(ctx: &mut Ctx) -> Outcome {
    let s0 = ctx.step();
    let mut seen = vec![ctx.step() - s0];
    ctx.sync();
    seen.push(ctx.step() - s0);
    let inside = ctx.superstep(|s| s.step());
    seen.push(inside - s0);
    seen.push(ctx.step() - s0);
    let x = ctx.register([0u8]);
    seen.push(ctx.step() - s0);
    ctx.unregister(x);
    seen.push(ctx.step() - s0);
    expect("steps since the start of the check", seen, vec![0, 1, 1, 2, 3, 4])
}

/// `superstep` returns what its closure returns, after the sync.
pub fn superstep_returns_what_its_closure_returns(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let x = ctx.register([pid as u32 * 3]);
    let s0 = ctx.step();
    let mut v = 0;
    let (inner_pid, step) = ctx.superstep(|s| {
        s.get(s.nprocs() - 1, &x, 0, &mut v);
        (s.pid(), s.step())
    });
    expect(
        "(pid, step inside, value, step after)",
        (inner_pid, step - s0, v, ctx.step() - s0),
        (pid, 0, 3 * (p as u32 - 1), 1),
    )
}

/// §1: many supersteps in a row, alternating empty ones, puts, gets, hpputs and messages, stay
/// in step.
pub fn many_supersteps_of_every_kind_stay_in_step(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(pid, p);
    let s0 = ctx.step();
    let mut x = ctx.register([pid as u64]);
    let mut errors = Vec::new();
    for round in 0..200u64 {
        let want_left = 1000 * round + left as u64;
        *x.value_mut(ctx) = 1000 * round + pid as u64;
        let got = match round % 5 {
            0 => {
                ctx.sync();
                want_left
            }
            1 => {
                let mut v = 0;
                ctx.superstep(|s| s.get(left, &x, 0, &mut v));
                v
            }
            2 => {
                let v = *x.value(ctx);
                ctx.put(right, &v, &x, 0);
                ctx.sync();
                *x.value(ctx)
            }
            3 => {
                let v = [*x.value(ctx)];
                ctx.superstep(|s| s.hpput(right, &v, &x, 0));
                *x.value(ctx)
            }
            _ => {
                ctx.send(right, &(), &[*x.value(ctx)][..]);
                ctx.sync();
                ctx.move_message::<(), u64>().map_or(u64::MAX, |m| m.1.first().copied().unwrap_or(u64::MAX))
            }
        };
        if got != want_left {
            errors.push((round, got, want_left));
        }
    }
    expect("rounds that went wrong (round, got, expected)", errors, vec![])?;
    expect("syncs", ctx.step() - s0, 201)
}

/// §2.6: `time` is positive, strictly increasing between two calls, and measures seconds.
pub fn time_is_positive_strictly_increasing_and_in_seconds(ctx: &mut Ctx) -> Outcome {
    let t0 = ctx.time();
    let t1 = ctx.time();
    ctx.sync();
    let t2 = ctx.time();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let t3 = ctx.time();
    let ok = 0.0 < t0 && t0 < t1 && t1 < t2 && t3 - t2 >= 0.019 && t3 - t2 < 10.0;
    expect(&format!("times {t0}, {t1}, (sync) {t2}, (20 ms sleep) {t3} are sane"), ok, true)
}

/// D13: a process may start a nested SPMD run (on threads, inside an MPI run), an independent
/// group with its own pids, and carry on with its own run afterwards.
pub fn a_process_can_start_a_nested_run(ctx: &mut Ctx) -> Outcome {
    let (outer, p) = (ctx.pid(), ctx.nprocs());
    let x = ctx.register([outer as u32]);
    let inner = bsp_runtime::run(2, move |ictx| {
        let y = ictx.register([100 * outer as u32 + ictx.pid() as u32]);
        let mut other = 0;
        ictx.superstep(|s| s.get(1 - s.pid(), &y, 0, &mut other));
        (ictx.pid(), ictx.nprocs(), other)
    })
    .map_err(|e| e.to_string());
    let mut left = 0;
    ctx.superstep(|s| s.get(ring(outer, p).0, &x, 0, &mut left));
    let base = 100 * outer as u32;
    expect("the nested run", inner, Ok(vec![(0, 2, base + 1), (1, 2, base)]))?;
    expect("the outer run's get afterwards", left as usize, ring(outer, p).0)
}

/// A panic caught by user code outside a `superstep` leaves the process able to communicate (on
/// MPI: no `MPI_Abort`).
pub fn a_caught_panic_outside_a_superstep_does_not_break_the_process(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let culprit = 1 % p;
    // The panic is expected: keep it off stderr, which the launcher shows when something fails.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let caught = catch_unwind(AssertUnwindSafe(|| {
        if pid == culprit {
            panic!("handled by the program");
        }
    }));
    std::panic::set_hook(hook);
    let x = ctx.register([pid as u8]);
    let mut other = u8::MAX;
    ctx.superstep(|s| s.get(ring(pid, p).0, &x, 0, &mut other));
    expect("(caught, left's value)", (caught.is_err(), other), (pid == culprit, ring(pid, p).0 as u8))
}

/// D12: more processes than cores start exactly as requested and still synchronise quickly (on
/// threads at p = 48; on MPI with as many ranks as mpirun started).
pub fn more_processes_than_cores_run_as_requested(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (_, right) = ring(pid, p);
    let x = ctx.register([pid as u64]);
    for _ in 0..20 {
        let v = *x.value(ctx);
        ctx.put(right, &v, &x, 0);
        ctx.sync();
    }
    // after 20 shifts to the right, process pid holds the value of pid - 20
    expect("the value after 20 shifts", *x.value(ctx) as usize, (pid + p * 20 - 20) % p)
}

/// D13, D14: a failing nested run is reported to the process that started it, which carries
/// on with its own run.
pub fn a_failing_nested_run_is_reported_to_its_caller_only(ctx: &mut Ctx) -> Outcome {
    let s0 = ctx.step();
    let inner = bsp_runtime::run(2, |ictx| {
        if ictx.pid() == 1 {
            ictx.abort("inner failure");
        }
        ictx.sync();
    });
    ctx.sync();
    let got = inner.map_err(|e| (e.pid(), e.is_abort(), e.message().to_string()));
    expect("the nested run's result", got, Err((Some(1), true, "inner failure".to_string())))?;
    expect("syncs of the outer run", ctx.step() - s0, 1)
}

/// §2.4, §2.5: `pid` is in `0..nprocs`, and the processes have distinct pids (each tells every
/// other its pid; every process must hear each pid once).
pub fn pids_are_distinct_and_below_nprocs(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    for q in 0..p {
        ctx.send(q, &(), &[pid as u64][..]);
    }
    ctx.sync();
    let mut heard = Vec::new();
    while let Some(((), v)) = ctx.move_message::<(), u64>() {
        heard.extend(v);
    }
    ensure(pid < p, || format!("pid {pid} is not below nprocs {p}"))?;
    expect("the pids heard, in dequeue order (ascending source pid)", heard, (0..p as u64).collect())
}

checks! {
    #[mpi]
    processes_are_mpi_ranks,
    pids_are_distinct_and_below_nprocs,
    step_counts_the_syncs,
    superstep_returns_what_its_closure_returns,
    many_supersteps_of_every_kind_stay_in_step => Procs::ALL.on(&[2, 3, 5]),
    time_is_positive_strictly_increasing_and_in_seconds => Procs::ALL.on(&[1, 4]),
    more_processes_than_cores_run_as_requested => Procs::ALL.on(&[48]),
    a_process_can_start_a_nested_run => Procs::ALL.on(&[1, 2, 3]),
    a_failing_nested_run_is_reported_to_its_caller_only => Procs::ALL.on(&[1, 2, 3]),
    a_caught_panic_outside_a_superstep_does_not_break_the_process => Procs::ALL.on(&[2, 3]),
}
