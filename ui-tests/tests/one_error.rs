//! One mistake, one error: every compile-fail case of `tests/ui/` expects exactly one `error`
//! line. (A binary of its own: `tests/ui.rs` sets an environment variable while it runs.)

use std::path::{Path, PathBuf};

/// The `.stderr` files under `dir`, recursively, sorted.
fn stderr_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable directory").flatten() {
        let path = entry.path();
        if path.is_dir() {
            stderr_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "stderr") {
            found.push(path);
        }
    }
    found.sort();
}

/// One mistake, one error: every compile-fail case's expected output has exactly one `error`
/// line (the macros fold the pointer to the cause into the error's message instead of a second
/// `error: note: ...`, and a case of the runtime's types makes rustc say one thing).
#[test]
fn every_compile_fail_case_prints_one_error() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    let mut files = Vec::new();
    stderr_files(&root, &mut files);
    assert!(files.len() >= 50, "only {} .stderr files under {}", files.len(), root.display());
    let is_error = |line: &str| {
        line.strip_prefix("error")
            .is_some_and(|rest| rest.starts_with(':') || (rest.starts_with("[E") && rest.split_once("]:").is_some()))
    };
    let wrong: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(path).expect("a readable .stderr");
            let errors = text.lines().filter(|line| is_error(line)).count();
            let shown = path.strip_prefix(&root).unwrap_or(path).display();
            (errors != 1).then(|| format!("{shown}: {errors} `error` lines"))
        })
        .collect();
    assert!(wrong.is_empty(), "every compile-fail case must print exactly one error:\n{}", wrong.join("\n"));
}
