//! The compile-fail and compile-pass cases of `bsp`'s macros and types.
//!
//! Each compile-fail case is one file with one mistake and its expected `.stderr` beside it;
//! `README.md` says how to regenerate them. Every folder of `tests/ui/` is a topic of
//! compile-fail cases (`get`, `hpget`, `hpput`, `hpmove`: the macros' checks;
//! `align`: processes that would make different sync points; `superstep`, `attribute`: misused
//! macros; `api`: misused operations the macros see; `types`: what the macros cannot see and the
//! runtime's types reject), except `pass`, which holds programs that must compile and run: the
//! cases where a check must stay silent.

use std::path::Path;

#[test]
fn ui() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    let mut topics: Vec<String> = std::fs::read_dir(&root)
        .expect("the tests/ui directory")
        .filter_map(|entry| {
            let entry = entry.ok()?;
            entry.file_type().ok()?.is_dir().then(|| entry.file_name().into_string().ok())?
        })
        .collect();
    topics.sort();
    // The pass cases run, and are written for the 2 processes of their `procs = 2`, which wins
    // over `BSP_NPROCS` (D28): with 3 in the environment, every pass case checks that rule.
    // (This test is alone in its binary: no other thread reads the environment.)
    std::env::set_var("BSP_NPROCS", "3");
    let t = trybuild::TestCases::new();
    for topic in topics {
        if topic == "pass" {
            t.pass("tests/ui/pass/*.rs");
        } else {
            t.compile_fail(format!("tests/ui/{topic}/*.rs"));
        }
    }
}
