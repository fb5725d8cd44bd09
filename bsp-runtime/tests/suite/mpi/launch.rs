//! Launch rules that only the MPI engine has (how `mpirun`'s ranks become BSP processes, D12),
//! each a job of its own: `mpirun -n N <this> --case NAME` runs [`run_case`] on every rank, and
//! the launcher hands the finished job to the case's `judge`, which looks at the exit status,
//! the time, stdout and stderr. The failure cases of the suite (`suite/failures.rs`,
//! `suite/gp.rs`) are judged by the launcher itself.
//!
//! [`KNOWN_DEFECTS`] lists cases that fail now because of defects of the MPI engine that are
//! being fixed; the launcher runs them, reports them apart, and does not count them as failures
//! (when one starts to pass it says so, and it should leave the list).

use std::process::ExitCode;

use bsp_runtime::{Launch, exit_on_error};

use super::launcher::{Job, fails_promptly, mentions_once, succeeds};

/// What a judge found: `Err` says what is wrong.
pub type Outcome = Result<(), String>;

/// One launch case: how to start it and how to judge the job.
#[derive(Debug)]
pub struct Case {
    pub name: &'static str,
    pub ranks: usize,
    /// Added to the job's environment.
    pub env: &'static [(&'static str, &'static str)],
    /// What a pass shows, for the launcher's report.
    pub summary: &'static str,
    pub judge: fn(&Job) -> Outcome,
}

/// Cases that fail now because of known defects of the MPI engine; enable them by removing them
/// from this list once fixed.
pub const KNOWN_DEFECTS: &[&str] = &[];

pub const CASES: &[Case] = &[
    Case {
        name: "too-many-processes",
        ranks: 2,
        env: &[("BSP_NPROCS", "4")],
        summary: "BSP_NPROCS=4 on 2 ranks is a clear launch error (D12), printed once",
        judge: |job| {
            fails_promptly(job)?;
            mentions_once(
                job,
                "error: 4 processes were requested but mpirun started only 2 MPI ranks: start more ranks (`mpirun -n 4`) or ask for fewer",
            )
        },
    },
    Case {
        name: "fewer-processes",
        ranks: 4,
        env: &[("BSP_NPROCS", "2")],
        summary: "BSP_NPROCS=2 on 4 ranks runs on ranks 0 and 1; ranks 2 and 3 take no part",
        judge: |job| {
            succeeds(job)?;
            has_lines(job, &["in the run: pid 0 of 2", "in the run: pid 1 of 2", "rank 0: Ok([(0, 2)])"])?;
            expect_count(job, "in the run: ", 2)?;
            lacks_rank_lines(job, 1..4)
        },
    },
    Case {
        name: "explicit-count-over-the-environment",
        ranks: 2,
        env: &[("BSP_NPROCS", "4")],
        summary: "`Launch::procs(2)` with BSP_NPROCS=4 on 2 ranks runs on 2: explicit code wins over the environment (D27)",
        judge: |job| {
            succeeds(job)?;
            has_lines(job, &["in the run: pid 0 of 2", "in the run: pid 1 of 2", "rank 0: Ok([(0, 2)])"])?;
            lacks_rank_lines(job, 1..2)
        },
    },
    Case {
        name: "explicit-count-above-the-ranks",
        ranks: 2,
        env: &[],
        summary: "`bsp::run(3, f)` (as `#[bsp::program(procs = 3)]`) on 2 ranks is a clear launch error on every rank, printed once, never running `f`",
        judge: |job| {
            fails_promptly(job)?;
            mentions_once(
                job,
                "error: 3 processes were requested but mpirun started only 2 MPI ranks: start more ranks (`mpirun -n 3`) or ask for fewer",
            )?;
            expect_count(job, "in the run: ", 0)
        },
    },
    Case {
        name: "second-run",
        ranks: 2,
        env: &[],
        summary: "a second `Launch::run` under mpirun (on process 0, the only rank that goes on) is refused with a launch error, not a hang",
        judge: |job| {
            succeeds(job)?;
            has_lines(
                job,
                &[
                    "rank 0: first Ok([0]), second Err(\"MPI can be started only once per program, and an earlier SPMD run already used it\")",
                ],
            )?;
            lacks_rank_lines(job, 1..2)
        },
    },
    Case {
        name: "code-after-the-run",
        ranks: 3,
        env: &[],
        summary: "the code after the run continues on process 0 only; the other ranks leave with status 0 (D22)",
        judge: |job| {
            succeeds(job)?;
            has_lines(job, &["rank 0: before", "rank 1: before", "rank 2: before", "rank 0: after Ok([0])"])?;
            lacks_rank_lines(job, 1..3)
        },
    },
    Case {
        name: "nprocs-is-the-rank-count",
        ranks: 3,
        env: &[],
        summary: "`Launch::nprocs()` under `mpirun -n 3` is 3 on every rank, before and during the run",
        judge: |job| {
            succeeds(job)?;
            has_lines(
                job,
                &["rank 0: nprocs Ok(3)", "rank 1: nprocs Ok(3)", "rank 2: nprocs Ok(3)", "rank 0: run Ok([3])"],
            )
        },
    },
    Case {
        name: "nprocs-with-a-default",
        ranks: 2,
        env: &[],
        summary: "`Launch::new().default_procs(4).nprocs()` under `mpirun -n 2` is 2, the count the run uses",
        judge: |job| {
            succeeds(job)?;
            has_lines(job, &["rank 0: nprocs Ok(2)", "rank 1: nprocs Ok(2)", "rank 0: run Ok([2])"])
        },
    },
    Case {
        name: "zero-processes",
        ranks: 2,
        // The case looks at what rank 0 prints after the run returns its error, while rank 1
        // exits with status 1 at once: without this, mpirun may stop rank 0 before it prints.
        env: &[("OMPI_MCA_orte_abort_on_non_zero_status", "0")],
        summary: "`bsp::run(0, f)` under mpirun is the launch error it is on threads, and never runs `f`",
        judge: |job| {
            has_lines(job, &["rank 0: Err(\"cannot run an SPMD program on 0 processes\"), f ran 0 times"])?;
            lacks_rank_lines(job, 1..2)
        },
    },
    Case {
        name: "hybrid-layout",
        ranks: 2,
        env: &[("BSP_THREADS", "2")],
        summary: "BSP_THREADS=2 on 2 ranks runs 4 processes, rank-major (rank 0 holds pids 0 and 1), and process 0's rank returns its processes' results",
        judge: |job| {
            succeeds(job)?;
            has_lines(
                job,
                &[
                    "in the run: pid 0 of 4 on rank 0",
                    "in the run: pid 1 of 4 on rank 0",
                    "in the run: pid 2 of 4 on rank 1",
                    "in the run: pid 3 of 4 on rank 1",
                    "rank 0: Ok([0, 1])",
                ],
            )?;
            lacks_rank_lines(job, 1..2)
        },
    },
    Case {
        name: "hybrid-explicit-threads",
        ranks: 2,
        env: &[("BSP_THREADS", "3")],
        summary: "`Launch::threads_per_rank(2)` with BSP_THREADS=3 on 2 ranks runs 4 processes: explicit code wins over the environment",
        judge: |job| {
            succeeds(job)?;
            has_lines(job, &["rank 0: Ok([4, 4])"])
        },
    },
    Case {
        name: "hybrid-zero-threads",
        ranks: 2,
        env: &[("BSP_THREADS", "0")],
        summary: "BSP_THREADS=0 is a clear launch error on every rank, printed once",
        judge: |job| {
            fails_promptly(job)?;
            mentions_once(
                job,
                "error: cannot run 0 threads per rank (BSP_THREADS or `Launch::threads_per_rank`): ask for at least 1",
            )
        },
    },
    Case {
        name: "hybrid-count-mismatch",
        ranks: 2,
        env: &[("BSP_THREADS", "2"), ("BSP_NPROCS", "3")],
        summary: "BSP_NPROCS=3 with 2 ranks of BSP_THREADS=2 is a clear launch error on every rank, printed once",
        judge: |job| {
            fails_promptly(job)?;
            mentions_once(
                job,
                "error: 3 processes were requested but mpirun started 2 MPI ranks with 2 threads each (BSP_THREADS=2), 4 processes: ask for 4, or start ranks and threads whose product is 3",
            )
        },
    },
    Case {
        name: "hang-never-syncs",
        ranks: 2,
        env: &[("BSP_WATCHDOG", "1")],
        summary: "a rank that never reaches the sync: with BSP_WATCHDOG=1 each rank reports its process (waiting in `sync` at its line, for the other ranks; computing) and the job ends non-zero",
        judge: |job| {
            fails_promptly(job)?;
            rank_says(
                job,
                0,
                "error: no process has finished a sync for 1.0 s (BSP_WATCHDOG=1); where each process is:",
            )?;
            rank_says(job, 0, "  process 0: waiting in `sync` at bsp-runtime/tests/suite/mpi/launch.rs:")?;
            rank_says(job, 0, "for processes of other ranks")?;
            rank_says(job, 1, "  process 1: computing in superstep 0")
        },
    },
    Case {
        name: "hang-hybrid-thread-loops",
        ranks: 2,
        env: &[("BSP_THREADS", "2"), ("BSP_WATCHDOG", "1")],
        summary: "on 2 ranks of 2 threads, one thread of rank 0 that never syncs: rank 0 names it (computing) and the process waiting for it and for the other rank; rank 1's processes wait in `sync`",
        judge: |job| {
            fails_promptly(job)?;
            rank_says(job, 0, "  process 0: waiting in `sync` at bsp-runtime/tests/suite/mpi/launch.rs:")?;
            rank_says(job, 0, "for process 1 and processes of other ranks")?;
            rank_says(job, 0, "  process 1: computing in superstep 0")?;
            rank_says(job, 1, "  process 2: waiting in `sync` at bsp-runtime/tests/suite/mpi/launch.rs:")?;
            rank_says(job, 1, "  process 3: waiting in `sync` at bsp-runtime/tests/suite/mpi/launch.rs:")
        },
    },
    Case {
        name: "hang-rank-killed",
        ranks: 2,
        env: &[],
        summary: "a rank killed (SIGKILL) while the other waits in a sync: mpirun ends the job, and the rank left says where its process waited",
        judge: |job| {
            fails_promptly(job)?;
            rank_says(job, 0, "bsp: SIGTERM received; where each process was:")?;
            rank_says(job, 0, "  process 0: waiting in `sync` at bsp-runtime/tests/suite/mpi/launch.rs:")
        },
    },
    Case {
        name: "hybrid-zero-processes",
        ranks: 2,
        env: &[("BSP_THREADS", "2"), ("OMPI_MCA_orte_abort_on_non_zero_status", "0")],
        summary: "`bsp::run(0, f)` on the hybrid engine is the launch error it is on the other engines",
        judge: |job| {
            has_lines(job, &["rank 0: Err(\"cannot run an SPMD program on 0 processes\"), f ran 0 times"])?;
            lacks_rank_lines(job, 1..2)
        },
    },
    Case {
        name: "threads-beyond-the-limit",
        ranks: 2,
        env: &[("BSP_THREADS", "99999999999")],
        summary: "BSP_THREADS=99999999999 is a launch error stating the limit, printed once, before anything is allocated",
        judge: |job| {
            fails_promptly(job)?;
            mentions_once(
                job,
                "error: BSP_THREADS=\"99999999999\": cannot run more than 8192 threads per rank (one process each); start more ranks instead",
            )
        },
    },
    Case {
        name: "environment-error-once",
        ranks: 4,
        env: &[("BSP_STATS", "bogus")],
        summary: "a bad BSP_STATS under mpirun -n 4 is printed once, by rank 0",
        judge: |job| {
            fails_promptly(job)?;
            mentions_once(job, "error: BSP_STATS=\"bogus\" is not one of `counts`, `timed`, `1`, `off`, `0`")
        },
    },
    Case {
        name: "misspelt-variable-warns-once",
        ranks: 2,
        env: &[("BSP_NPROC", "4")],
        summary: "BSP_NPROC=4 under mpirun -n 2 warns once, naming BSP_NPROCS, and the run goes on",
        judge: |job| {
            succeeds(job)?;
            mentions_once(
                job,
                "warning: BSP_NPROC is not a variable bsp reads (it changes nothing): did you mean BSP_NPROCS?",
            )?;
            has_lines(job, &["rank 0: Ok([0])"])
        },
    },
    Case {
        name: "set-up-fewer-processes",
        ranks: 4,
        env: &[("BSP_NPROCS", "4")],
        summary: "`run_set_up` whose set-up (on rank 0) asks for 3 processes under mpirun -n 4 runs 3 with its value; rank 3 ends quietly",
        judge: |job| {
            succeeds(job)?;
            has_lines(
                job,
                &[
                    "in the run: pid 0 of 3, value 42",
                    "in the run: pid 1 of 3, value 42",
                    "in the run: pid 2 of 3, value 42",
                    "rank 0: Ok([0])",
                ],
            )?;
            expect_count(job, "in the run: ", 3)?;
            expect_count(job, "set-up on rank ", 1)?;
            has_lines(job, &["set-up on rank 0"])?;
            lacks_rank_lines(job, 1..4)
        },
    },
    Case {
        name: "set-up-more-than-ranks",
        ranks: 2,
        env: &[],
        summary: "a set-up asking for 3 processes under mpirun -n 2 is a launch error, printed once",
        judge: |job| {
            fails_promptly(job)?;
            mentions_once(
                job,
                "error: 3 processes were requested but mpirun started only 2 MPI ranks: start more ranks (`mpirun -n 3`) or ask for fewer",
            )?;
            expect_count(job, "in the run: ", 0)
        },
    },
    Case {
        name: "set-up-hybrid",
        ranks: 2,
        env: &[("BSP_THREADS", "2")],
        summary: "a set-up asking for `Launch::nprocs()` processes on 2 ranks of 2 threads sees 4 (as before a run) and runs them all, with its value",
        judge: |job| {
            succeeds(job)?;
            expect_count(job, "in the run: ", 4)?;
            has_lines(job, &["the set-up sees 4 processes", "in the run: pid 3 of 4, value 42", "rank 0: Ok([0, 1])"])
        },
    },
];

/// Fails unless rank `rank`'s stderr contains `text`.
fn rank_says(job: &Job, rank: usize, text: &str) -> Outcome {
    let stderr = job.ranks.get(rank).map_or("", |r| r.1.as_str());
    if stderr.contains(text) { Ok(()) } else { Err(format!("rank {rank}'s stderr lacks {text:?}; it is:\n{stderr}")) }
}

/// Fails unless exactly `n` lines of stdout start with `prefix`.
fn expect_count(job: &Job, prefix: &str, n: usize) -> Outcome {
    let got = job.stdout.lines().filter(|l| l.starts_with(prefix)).count();
    if got == n { Ok(()) } else { Err(format!("{got} lines start with {prefix:?}, expected {n}")) }
}

/// Fails if a rank in `ranks` printed a line: they leave after the run (D22).
fn lacks_rank_lines(job: &Job, ranks: std::ops::Range<usize>) -> Outcome {
    for rank in ranks {
        let prefix = format!("rank {rank}: ");
        if let Some(line) = job.stdout.lines().find(|l| l.starts_with(&prefix) && !l.ends_with(": before")) {
            return Err(format!("rank {rank} printed {line:?} after the run, which only process 0 continues"));
        }
    }
    Ok(())
}

fn has_lines(job: &Job, lines: &[&str]) -> Outcome {
    match lines.iter().find(|line| !job.stdout.lines().any(|l| l == **line)) {
        None => Ok(()),
        Some(line) => {
            Err(format!("stdout lacks the line {line:?}; it has {:?}", job.stdout.lines().collect::<Vec<_>>()))
        }
    }
}

/// This rank's number in the job (for cases that print per rank).
fn world_rank() -> usize {
    std::env::var("OMPI_COMM_WORLD_RANK").ok().and_then(|v| v.parse().ok()).unwrap_or(usize::MAX)
}

/// A rank's part of launch case `name`.
pub fn run_case(name: &str) -> ExitCode {
    match name {
        "too-many-processes" => {
            exit_on_error(Launch::new().run(|ctx| ctx.sync()));
        }
        "fewer-processes" => {
            let results = Launch::new().run(|ctx| {
                crate::say!("in the run: pid {} of {}", ctx.pid(), ctx.nprocs());
                (ctx.pid(), ctx.nprocs())
            });
            crate::say!("rank {}: {results:?}", world_rank());
            exit_on_error(results);
        }
        "explicit-count-over-the-environment" => {
            let results = Launch::new().procs(2).run(|ctx| {
                crate::say!("in the run: pid {} of {}", ctx.pid(), ctx.nprocs());
                (ctx.pid(), ctx.nprocs())
            });
            crate::say!("rank {}: {results:?}", world_rank());
            exit_on_error(results);
        }
        "explicit-count-above-the-ranks" => {
            exit_on_error(bsp_runtime::run(3, |ctx| crate::say!("in the run: pid {}", ctx.pid())));
        }
        "code-after-the-run" => {
            crate::say!("rank {}: before", world_rank());
            let results = Launch::new().run(|ctx| {
                ctx.sync();
                ctx.pid()
            });
            crate::say!("rank {}: after {results:?}", world_rank());
        }
        "second-run" => {
            let first = Launch::new().run(|ctx| ctx.pid());
            let second = Launch::new().run(|ctx| ctx.pid()).map_err(|e| e.to_string());
            crate::say!("rank {}: first {first:?}, second {second:?}", world_rank());
        }
        "nprocs-is-the-rank-count" | "nprocs-with-a-default" => {
            let launch = if name == "nprocs-with-a-default" { Launch::new().default_procs(4) } else { Launch::new() };
            let nprocs = launch.nprocs().map_err(|e| e.to_string());
            crate::say!("rank {}: nprocs {nprocs:?}", world_rank());
            let run = launch.run(|ctx| ctx.nprocs()).map_err(|e| e.to_string());
            crate::say!("rank {}: run {run:?}", world_rank());
        }
        "zero-processes" | "hybrid-zero-processes" => {
            let ran = std::sync::atomic::AtomicUsize::new(0);
            let result = bsp_runtime::run(0, |_| {
                // Relaxed: read after the run returned.
                ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            })
            .map_err(|e| e.to_string());
            crate::say!("rank {}: {result:?}, f ran {} times", world_rank(), ran.into_inner());
        }
        "misspelt-variable-warns-once" => {
            let results = Launch::new().run(|ctx| ctx.pid());
            crate::say!("rank {}: {results:?}", world_rank());
            exit_on_error(results);
        }
        "set-up-fewer-processes" | "set-up-more-than-ranks" | "set-up-hybrid" => {
            let results = Launch::new().run_set_up(
                || {
                    crate::say!("set-up on rank {}", world_rank());
                    // The hybrid case asks for the count a launch would run (as a set-up's
                    // default): the set-up runs before the run, with MPI already started.
                    let p = match name {
                        "set-up-hybrid" => Launch::new().nprocs().expect("the count of the layout"),
                        _ => 3,
                    };
                    crate::say!("the set-up sees {p} processes");
                    (p, 42u64)
                },
                |ctx, &v| {
                    crate::say!("in the run: pid {} of {}, value {v}", ctx.pid(), ctx.nprocs());
                    ctx.sync();
                    ctx.pid()
                },
            );
            crate::say!("rank {}: {results:?}", world_rank());
            exit_on_error(results);
        }
        "hybrid-layout" => {
            let results = Launch::new().run(|ctx| {
                crate::say!("in the run: pid {} of {} on rank {}", ctx.pid(), ctx.nprocs(), world_rank());
                ctx.sync();
                ctx.pid()
            });
            crate::say!("rank {}: {results:?}", world_rank());
            exit_on_error(results);
        }
        "hybrid-explicit-threads" => {
            let results = Launch::new().threads_per_rank(2).run(|ctx| ctx.nprocs());
            crate::say!("rank {}: {results:?}", world_rank());
            exit_on_error(results);
        }
        "hybrid-zero-threads" | "hybrid-count-mismatch" | "threads-beyond-the-limit" | "environment-error-once" => {
            exit_on_error(Launch::new().run(|ctx| ctx.sync()));
        }
        "hang-never-syncs" | "hang-hybrid-thread-loops" | "hang-rank-killed" => {
            exit_on_error(Launch::new().run(|ctx| {
                if ctx.pid() == 1 {
                    if name == "hang-rank-killed" {
                        // As an outside `kill -9` would: no handler runs, no word is said.
                        let me = std::process::id().to_string();
                        let _ = std::process::Command::new("kill").args(["-KILL", &me]).status();
                    }
                    loop {
                        std::thread::sleep(std::time::Duration::from_millis(5));
                    }
                }
                ctx.sync();
            }));
        }
        other => {
            eprintln!("error: no failure case named {other:?}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
