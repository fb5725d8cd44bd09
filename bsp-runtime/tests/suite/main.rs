//! The suite of `bsp-runtime` on the threads engine: one binary, `cargo test -p bsp-runtime
//! --test suite`.
//!
//! The rules of `docs/semantics.md` are written once, engine-neutrally, as tables of checks and
//! failure cases (`check.rs` says what they are made of), one file per subject:
//!
//! | file | what it checks |
//! |---|---|
//! | `spmd.rs` | process ids and counts, `step`, `time`, `superstep`, nested runs (§1, §2) |
//! | `drma.rs`, `combine.rs`, `dest.rs` | put and get (§3, D1–D7), combining puts (D18), many gets into one buffer (D20) |
//! | `bsmp.rs` | tagged messages (§4, D8–D11) |
//! | `registration.rs`, `scoped.rs` | registration of any width, `RegHandle`; scoped registration of the caller's memory (D21) |
//! | `collectives.rs`, `teams.rs` | collectives (D19), teams and grids |
//! | `gp.rs` | global pointer arrays (§7, D17) |
//! | `same.rs` | `ctx.same`: promises kept, and broken ones found at the next sync |
//! | `stats.rs`, `stress.rs`, `robustness.rs` | the statistics' counts; long mixed runs; defects found by Miri and fault injection |
//! | `failures.rs` | failures: every process stops promptly with the first failure |
//! | `property.rs` | random programs against the reference model (`model/`) |
//!
//! Each table becomes one `#[test]` per entry here (`<file>::on_threads::<check>`,
//! `<file>::fails_on_threads::<case>`), run at the entry's process counts by the runner
//! (`runner.rs`, with the one hang guard), and one more on groups of threads joined by the
//! in-process transport, the hybrid engine's driver and wire format without MPI
//! (`<file>::in_groups::<check>` at the layouts of `runner::LAYOUTS`,
//! `<file>::fails_in_groups::<case>`); the same tables run under `mpirun` and on the hybrid
//! engine in `mpi.rs` (`cargo test -p bsp-runtime --features mpi --test mpi`). What only a
//! threads run can show (results returned by `run`, handles carried between runs, the
//! model-based test with shrinking, the long stress runs) is in `threads/`.
//!
//! A new rule gets its check or failure case in the table of its subject, so that it runs on
//! every engine.

mod check;
mod runner;

mod bsmp;
mod collectives;
mod combine;
mod dest;
mod drma;
mod failures;
mod gp;
mod model;
mod property;
mod registration;
mod robustness;
mod same;
mod scoped;
mod spmd;
mod stats;
mod stress;
mod teams;

/// What only the threads engine shows.
mod threads {
    mod collectives;
    mod errors;
    mod failures;
    mod model;
    mod run;
    mod stats;
    mod stress;
}
