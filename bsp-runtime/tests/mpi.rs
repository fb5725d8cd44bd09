//! The runtime on the MPI engine: the rules of `semantics.rs`, the model-based property test of
//! `model.rs` and the failure behaviour of `failures.rs`, with MPI ranks as BSP processes.
//!
//! ```text
//! cargo test -p bsp-runtime --features mpi --test mpi      # needs Open MPI: scripts/setup-mpi
//! ```
//!
//! libtest's harness does not fit MPI: under `mpirun` every rank would run the whole harness, and
//! MPI can be started only once per OS process, so one process cannot do one SPMD run per test.
//! So this file is a plain program (`harness = false`) with three roles:
//!
//! - **launcher** (started by cargo, not by `mpirun`): starts this same executable with
//!   `mpirun -n N` for N in 1, 2 and 4, then once per failure case, each with a time limit;
//!   reads what the ranks report, prints every failure and a closing line `N passed, M failed`,
//!   and exits non-zero if anything failed (`mpi/launcher.rs`);
//! - **ranks** (started by `mpirun`): ONE `Launch::run` over every rank runs all the checks in
//!   sequence. A check is an SPMD function that makes all of its syncs first, then compares what
//!   this process saw with what it must see for its pid, so a failed comparison never leaves the
//!   processes out of step; every rank prints one line per check (`mpi/drma.rs`, `mpi/bsmp.rs`,
//!   `mpi/property.rs`). A failure that the runtime detects (a panic) stops the job instead;
//!   the launcher then names the checks that did not report;
//! - **failure cases** (`mpirun -n N <this> --case NAME`): runs that must fail (a panic, an
//!   abort, a collective mismatch, ...), one job each since a failure ends the job; the launcher
//!   checks the exit status, the time and the messages on stderr (`mpi/failures.rs`).
//!
//! Environment: `BSP_MPI_RANKS` (default `1 2 4`), `BSP_MPI_MODEL_CASES` (random programs per
//! rank count, default 64), `BSP_MPI_MODEL_SEED`, `BSP_MPI_TIMEOUT` (seconds per job, default
//! 120). Open MPI settings for one machine are added when unset (see `launcher::defaults`).

use std::io::Write as _;
use std::process::ExitCode;

use bsp_runtime::{Ctx, Launch};

#[path = "mpi/bsmp.rs"]
mod bsmp;
#[path = "mpi/drma.rs"]
mod drma;
#[path = "mpi/failures.rs"]
mod failures;
#[path = "mpi/launcher.rs"]
mod launcher;
#[path = "mpi/property.rs"]
mod property;

// The files of `tests/model/` that the property check reuses, as siblings at the crate root (so
// that their `super::program` paths resolve). They also serve `model.rs`, which uses more of them.
#[allow(dead_code, reason = "shared with `model.rs`")]
#[path = "model/gen.rs"]
mod gen;
#[allow(dead_code, reason = "shared with `model.rs`")]
#[path = "model/interp.rs"]
mod interp;
#[allow(dead_code, reason = "shared with `model.rs`")]
#[path = "model/program.rs"]
mod program;
#[allow(dead_code, reason = "shared with `model.rs`")]
#[path = "model/reference.rs"]
mod reference;
#[allow(dead_code, reason = "shared with `model.rs`")]
#[path = "model/rng.rs"]
mod rng;

/// What a check found on this process: `Err` says what differs.
pub type Outcome = Result<(), String>;

/// One check: an SPMD function run by every process, inside the one MPI run.
#[derive(Debug)]
pub struct Check {
    pub name: &'static str,
    pub run: fn(&mut Ctx) -> Outcome,
}

macro_rules! checks {
    ($($module:ident :: $f:ident),* $(,)?) => {
        &[$(Check { name: stringify!($f), run: $module::$f }),*]
    };
}

/// Every check, in the order the ranks run them. The names are those of the tests of
/// `semantics.rs` (and `model.rs`) that they port.
pub const CHECKS: &[Check] = checks![
    // SPMD framework, §2, D13
    drma::processes_are_mpi_ranks,
    drma::step_counts_the_syncs,
    drma::superstep_returns_what_its_closure_returns,
    drma::many_supersteps_of_every_kind_stay_in_step,
    drma::time_is_positive_strictly_increasing_and_in_seconds,
    drma::a_process_can_start_a_nested_run,
    drma::a_caught_panic_outside_a_superstep_does_not_break_the_process,
    // registration, §3.1, §3.2, D4–D6
    drma::registration_takes_effect_at_the_next_sync,
    drma::registration_extents_may_differ_per_process,
    drma::bsp_push_reg_example_2,
    drma::zero_size_registrations_allow_half_duplex_communication,
    drma::a_popped_registration_is_usable_until_the_sync_then_into_vec_returns_its_data,
    drma::registration_slots_are_reused_after_pops,
    drma::pops_need_not_follow_stack_order,
    // DRMA, §3.3, §3.4, §5, D1–D3, D7
    drma::put_copies_its_source_at_the_call,
    drma::put_to_self_is_deferred_to_the_sync,
    drma::get_reads_its_source_at_the_sync_after_local_writes,
    drma::get_source_is_read_before_any_put_lands,
    drma::a_put_wins_over_a_get_on_the_same_local_destination,
    drma::overlapping_puts_from_different_sources_highest_pid_wins,
    drma::overlapping_puts_from_one_source_last_issued_wins,
    drma::zero_length_transfers_move_nothing,
    drma::hpput_from_unregistered_memory_behaves_like_put,
    drma::hpput_from_registered_memory_behaves_like_put,
    drma::hpput_from_an_hpmove_payload_behaves_like_put,
    drma::gets_into_the_registration_they_read_see_pre_superstep_values,
    drma::transfers_of_8_mib_arrive_intact,
    drma::bsp_get_example_1_get_array,
    drma::bsp_get_example_2_bsp_sum_with_hpget,
    drma::bsp_get_example_3_cyclic_shift_with_get,
    drma::bsp_get_example_4_cyclic_shift_with_hpget,
    drma::bsp_get_example_5_allsums,
    // BSMP, §4, D8–D11
    bsmp::set_tagsize_returns_the_size_in_force,
    bsmp::only_the_last_tagsize_request_of_a_superstep_counts,
    bsmp::queued_messages_keep_the_tag_size_they_were_sent_with,
    bsmp::qsize_counts_messages_and_payload_bytes_not_tags,
    bsmp::qsize_shrinks_after_each_move,
    bsmp::get_tag_does_not_dequeue,
    bsmp::an_empty_queue_reports_none_and_leaves_buffers_untouched,
    bsmp::move_into_and_move_bytes_truncate_and_return_the_full_length,
    bsmp::empty_messages_still_count,
    bsmp::hpmove_references_are_aligned_for_any_value,
    bsmp::hpmove_and_move_message_accept_32_byte_aligned_values,
    bsmp::messages_are_readable_only_in_the_next_superstep,
    bsmp::unread_messages_are_discarded_at_the_next_sync_even_if_nobody_communicates,
    bsmp::dequeue_order_is_ascending_source_pid_then_send_order,
    bsmp::a_process_can_send_to_itself,
    // the model-based property test
    property::random_programs_match_the_model,
];

/// What a rank prints on stdout, one line per check, for the launcher to read.
pub mod report {
    /// `check <name> rank <r>: ok` or `check <name> rank <r>: FAILED: <first line>`.
    pub const CHECK: &str = "check ";
    /// `done rank <r>`: the run returned on this rank.
    pub const DONE: &str = "done rank ";
}

/// `Ok` if `got == want`, else a message naming `what` and both values.
pub fn expect<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Outcome {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, expected {want:?}"))
    }
}

/// The left and right neighbours of `pid` on a ring of `p` processes.
pub fn ring(pid: usize, p: usize) -> (usize, usize) {
    ((pid + p - 1) % p, (pid + 1) % p)
}

/// Brings every process back to the state a run starts in, as far as the checks can tell: tag
/// size 0 in force and requested, and an empty queue (the first sync discards unread messages
/// and makes 0 the size in force; the second makes it the size of the queue, D8, D10).
pub fn reset(ctx: &mut Ctx) {
    ctx.set_tagsize(0);
    ctx.sync();
    ctx.sync();
}

fn main() -> ExitCode {
    if !launcher::under_mpirun() {
        return launcher::main();
    }
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--case") {
        return failures::run_case(args.get(at + 1).map_or("", String::as_str));
    }
    run_checks()
}

/// A rank's part: every check, in one SPMD run over all ranks.
fn run_checks() -> ExitCode {
    let result = Launch::new().run(|ctx| {
        let pid = ctx.pid();
        for check in CHECKS {
            let outcome = (check.run)(ctx);
            reset(ctx);
            let line = match &outcome {
                Ok(()) => format!("{}{} rank {pid}: ok", report::CHECK, check.name),
                Err(why) => {
                    // The whole message on stderr (it may span lines), its first line here.
                    eprintln!("[rank {pid}] {}: {why}", check.name);
                    let first = why.lines().next().unwrap_or("");
                    format!("{}{} rank {pid}: FAILED: {first}", report::CHECK, check.name)
                }
            };
            let mut out = std::io::stdout().lock();
            // A failed write only loses a report line, which the launcher counts as a failure.
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
        pid
    });
    match result {
        Ok(pids) => {
            for pid in pids {
                println!("{}{pid}", report::DONE);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
