//! Runs that must fail, and launch rules, on the MPI engine (`failures.rs`'s D14–D16 and D12).
//!
//! A failure ends the MPI job (a panic or an abort calls `MPI_Abort`; a collective mismatch makes
//! every rank return it), so each case is a job of its own: `mpirun -n N <this> --case NAME`
//! runs [`run_case`] on every rank, and the launcher hands the finished job to the case's
//! `judge`, which looks at the exit status, the time, stdout and stderr.

use std::process::ExitCode;
use std::time::Duration;

use bsp_runtime::{exit_on_error, Ctx, Launch};

use super::launcher::Job;
use super::Outcome;

/// One case: how to start it and how to judge the job.
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

/// A failing job must end within this (mpirun's own start and stop take about a second).
const PROMPTLY: Duration = Duration::from_secs(20);

pub const CASES: &[Case] = &[
    Case {
        name: "panic",
        ranks: 4,
        env: &[],
        summary: "a panic on rank 2 while the others wait in a sync ends the job, naming pid 2",
        judge: |job| {
            fails_promptly(job)?;
            mentions_once(job, "error: process 2 failed: boom in superstep 1")
        },
    },
    Case {
        name: "abort",
        ranks: 3,
        env: &[],
        summary: "`abort` on rank 1 ends the job with its message",
        judge: |job| {
            fails_promptly(job)?;
            mentions_once(job, "error: process 1 aborted: input 42 is bad")
        },
    },
    Case {
        name: "misuse",
        ranks: 2,
        env: &[],
        summary: "a put past the target's extent ends the job with every value",
        judge: |job| {
            fails_promptly(job)?;
            mentions_once(
                job,
                "error: process 1 failed: put with process 0: registration #1: offset 1 + length 2 is past the extent 2",
            )
        },
    },
    Case {
        name: "push-mismatch",
        ranks: 4,
        env: &[],
        summary: "different push counts fail every rank; rank 0 prints the message, once",
        judge: |job| {
            fails_promptly(job)?;
            mentions_once(
                job,
                "error: process 0 failed: registration mismatch at the sync ending superstep 1: the processes called `push_reg` different numbers of times (per process: [1, 2, 1, 1])",
            )?;
            count_is(job, "registration mismatch", 1)
        },
    },
    Case {
        name: "type-mismatch",
        ranks: 2,
        env: &[],
        summary: "registrations of `u32` and `f32` (same size) are a mismatch: element types cross the wire",
        judge: |job| {
            fails_promptly(job)?;
            mentions_once(
                job,
                "error: process 0 failed: registration mismatch at the sync ending superstep 0: registration #1 holds `u32` (4 bytes) on process 0 but `f32` (4 bytes) on process 1",
            )
        },
    },
    Case {
        name: "tag-mismatch",
        ranks: 3,
        env: &[],
        summary: "different tag size requests fail every rank; rank 0 prints the message, once",
        judge: |job| {
            fails_promptly(job)?;
            mentions_once(
                job,
                "error: process 0 failed: tag size mismatch at the sync ending superstep 0: the processes requested different tag sizes (per process: [4, 4, 8])",
            )?;
            count_is(job, "tag size mismatch", 1)
        },
    },
    Case {
        name: "early-return",
        ranks: 3,
        env: &[],
        summary: "rank 0 returning while ranks 1, 2 sync is reported once, and nobody passes that sync",
        judge: |job| {
            fails_promptly(job)?;
            mentions_once(
                job,
                "process 0 returned from the SPMD function while processes 1, 2 called `sync` (superstep 1): every process must make the same number of syncs",
            )?;
            count_is(job, "returned from the SPMD function", 1)?;
            if job.stdout.contains("passed the mismatched sync") {
                return Err("a rank got past the mismatched sync".to_string());
            }
            Ok(())
        },
    },
    Case {
        name: "pending-at-end",
        ranks: 3,
        env: &[],
        summary: "a put left queued at the end is reported once, naming the rank and count",
        judge: |job| {
            fails_promptly(job)?;
            mentions_once(job, "process 1 has 1 put queued when the SPMD function returned in superstep 1")
        },
    },
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
            for line in ["rank 0: Ok([(0, 2)])", "rank 1: Ok([(1, 2)])", "rank 2: Ok([])", "rank 3: Ok([])"] {
                if !job.stdout.lines().any(|l| l == line) {
                    return Err(format!("stdout lacks the line {line:?}"));
                }
            }
            Ok(())
        },
    },
    Case {
        name: "second-run",
        ranks: 2,
        env: &[],
        summary: "a second `Launch::run` under mpirun is refused with a launch error, not a hang",
        judge: |job| {
            succeeds(job)?;
            for rank in 0..2 {
                let line = format!(
                    "rank {rank}: first Ok([{rank}]), second Err(\"MPI can be started only once per program, and an earlier SPMD run already used it\")"
                );
                if !job.stdout.lines().any(|l| l == line) {
                    return Err(format!("stdout lacks the line {line:?}"));
                }
            }
            Ok(())
        },
    },
];

fn fails_promptly(job: &Job) -> Outcome {
    match job.status {
        Some(s) if !s.success() && job.elapsed < PROMPTLY => Ok(()),
        Some(s) if !s.success() => Err(format!("the job failed, but only after {:.1?}", job.elapsed)),
        _ => Err(format!("the job should fail; it {}", job.ending())),
    }
}

fn succeeds(job: &Job) -> Outcome {
    if job.succeeded() {
        Ok(())
    } else {
        Err(format!("the job should succeed; it {}", job.ending()))
    }
}

fn mentions_once(job: &Job, text: &str) -> Outcome {
    count_is(job, text, 1)
}

fn count_is(job: &Job, text: &str, n: usize) -> Outcome {
    let found = job.stderr.matches(text).count();
    if found == n {
        return Ok(());
    }
    let mut why = format!("stderr mentions {text:?} {found} times, expected {n}");
    if found == 0 && job.stderr.contains("non-zero exit code") {
        why.push_str(
            "\n(mpirun stops the job as soon as one rank exits with a non-zero status: a message that rank 0 \
             prints only after returning from the run can be cut off)",
        );
    }
    Err(why)
}

/// This rank's number in the job (for cases that print per rank).
fn world_rank() -> usize {
    std::env::var("OMPI_COMM_WORLD_RANK").ok().and_then(|v| v.parse().ok()).unwrap_or(usize::MAX)
}

/// One SPMD run over the ranks; a failure ends the program as a `#[bsp::program]` does.
fn spmd(f: impl Fn(&mut Ctx) + Sync) {
    exit_on_error(Launch::new().run(f));
}

/// A rank's part of case `name`.
pub fn run_case(name: &str) -> ExitCode {
    match name {
        "panic" => spmd(|ctx| {
            ctx.sync();
            if ctx.pid() == 2 {
                std::thread::sleep(Duration::from_millis(200)); // the others are in the sync by now
                panic!("boom in superstep {}", ctx.step());
            }
            ctx.sync();
            ctx.sync();
        }),
        "abort" => spmd(|ctx| {
            ctx.sync();
            if ctx.pid() == 1 {
                std::thread::sleep(Duration::from_millis(200));
                ctx.abort(format!("input {} is bad", 42));
            }
            ctx.sync();
        }),
        "misuse" => spmd(|ctx| {
            let x = ctx.push_reg([0u32; 2]);
            ctx.sync();
            if ctx.pid() == 1 {
                ctx.put(0, &[1u32, 2], &x, 1);
            }
            ctx.sync();
        }),
        "push-mismatch" => spmd(|ctx| {
            ctx.sync();
            let _a = ctx.push_reg([0u8]);
            if ctx.pid() == 1 {
                let _b = ctx.push_reg([0u8]);
            }
            ctx.sync();
        }),
        "type-mismatch" => spmd(|ctx| {
            if ctx.pid() == 0 {
                ctx.push_reg([0u32]);
            } else {
                ctx.push_reg([0f32]);
            }
            ctx.sync();
        }),
        "tag-mismatch" => spmd(|ctx| {
            ctx.set_tagsize(4);
            if ctx.pid() == 2 {
                ctx.set_tagsize(8);
            }
            ctx.sync();
        }),
        "early-return" => spmd(|ctx| {
            ctx.sync();
            if ctx.pid() == 0 {
                return;
            }
            ctx.sync();
            println!("rank {} passed the mismatched sync", ctx.pid());
            ctx.sync();
        }),
        "pending-at-end" => spmd(|ctx| {
            let x = ctx.push_reg([0u32]);
            ctx.sync();
            if ctx.pid() == 1 {
                ctx.put(0, &1u32, &x, 0);
            }
        }),
        "too-many-processes" => spmd(|ctx| ctx.sync()),
        "fewer-processes" => {
            let results = Launch::new().run(|ctx| (ctx.pid(), ctx.nprocs()));
            println!("rank {}: {results:?}", world_rank());
            exit_on_error(results);
        }
        "second-run" => {
            let first = Launch::new().run(|ctx| ctx.pid());
            let second = Launch::new().run(|ctx| ctx.pid()).map_err(|e| e.to_string());
            println!("rank {}: first {first:?}, second {second:?}", world_rank());
        }
        other => {
            eprintln!("error: no failure case named {other:?}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
