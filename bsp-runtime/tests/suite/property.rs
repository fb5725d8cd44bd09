//! The model-based property test as an engine-neutral check, inside one run: every process
//! generates the same random programs from the same seeds (`model/generator.rs`, on as many processes
//! as the run has), runs its own part of each on the runtime (`model/interp.rs`), computes the
//! whole reference model sequentially (`model/reference.rs`) and compares its own log with the
//! model's log for its pid. Programs run one after the other; between two of them `reset` brings
//! back what a fresh run starts with (tag size 0, empty queue).
//!
//! There is no shrinking here (proptest's runner cannot drive an SPMD run; `threads/model.rs` runs
//! proptest with shrinking on threads); a failure prints the seed, and
//! `generator::generate(seed, p, steps)` rebuilds the program for `threads/model.rs` or a debugger, where
//! `interp::run` runs it on threads.
//!
//! `BSP_MODEL_CASES` sets the number of programs per run (64 by default), `BSP_MODEL_SEED` the
//! base seed.

use bsp_runtime::Ctx;

use super::check::{Outcome, checks, reset};
use crate::model::program::Event;
use crate::model::{generator, interp, reference};

/// Random programs per rank count (`BSP_MODEL_CASES`).
const CASES: u64 = 64;
/// Base seed (`BSP_MODEL_SEED`): the programs on p processes use `seed(base, p, i)`.
const SEED: u64 = 0x6d70_695f_6d6f_6465; // "mpi_mode"
/// Longest program, in supersteps (as `model.rs`'s default).
const MAX_STEPS: usize = 6;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| {
            let v = v.trim();
            v.strip_prefix("0x").map_or_else(|| v.parse().ok(), |hex| u64::from_str_radix(hex, 16).ok())
        })
        .unwrap_or(default)
}

/// The seed of program `i` on `p` processes (SplitMix64's finaliser of a distinct input).
fn seed(base: u64, p: usize, i: u64) -> u64 {
    let mut z = base ^ ((p as u64) << 40) ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The first observation where `got` differs from `want`, described with a little context.
fn first_difference(want: &[Event], got: &[Event]) -> Option<String> {
    let i = (0..want.len().max(got.len())).find(|&i| want.get(i) != got.get(i))?;
    let context: Vec<String> =
        want[i.saturating_sub(4)..i.min(want.len())].iter().map(|e| format!("      {e:?}")).collect();
    Some(format!(
        "observation {i}:\n    model:   {:?}\n    runtime: {:?}\n    after (both):\n{}",
        want.get(i),
        got.get(i),
        context.join("\n")
    ))
}

/// `model.rs`'s property, with `BSP_MODEL_CASES` programs (64 by default) of 1 to 6
/// supersteps on every rank count.
pub fn random_programs_match_the_model(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let cases = env_u64("BSP_MODEL_CASES", CASES);
    let base = env_u64("BSP_MODEL_SEED", SEED);
    let mut failed = Vec::new();
    for i in 0..cases {
        let seed = seed(base, p, i);
        let steps = 1 + (i as usize % MAX_STEPS);
        let prog = generator::generate(seed, p, steps);
        let got = interp::process(&prog, ctx);
        reset(ctx);
        let want = reference::run(&prog).swap_remove(pid);
        if let Some(diff) = first_difference(&want, &got) {
            failed.push((seed, steps, diff, prog));
        }
    }
    let Some((seed, steps, diff, prog)) = failed.first() else {
        return Ok(());
    };
    Err(format!(
        "{} of {cases} random programs differ from the model on process {pid}; the first is \
         `generator::generate({seed:#x}, {p}, {steps})`, at {diff}\n{prog}",
        failed.len()
    ))
}

checks! {
    random_programs_match_the_model,
}
