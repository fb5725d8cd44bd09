//! Checkpoint and restart on the threads engine, with `examples/checkpoint.rs`: the job is
//! killed (SIGKILL) at ten different iterations and restarted with `BSP_RESTART`, and every restart
//! prints exactly what the uninterrupted run prints; a corrupt or torn newest checkpoint gives
//! way to the one before; a restart with another number of processes is refused.
//! (`scripts/mpi-check` kills one MPI rank of the same example, on the MPI and hybrid engines.)

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const P: usize = 3;

/// `target/<profile>/examples/checkpoint`, which `cargo test` builds before running this test.
fn example() -> PathBuf {
    let mut dir = std::env::current_exe().expect("test binary path");
    dir.pop();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir.join("examples").join("checkpoint")
}

/// A fresh directory for one test's checkpoints.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bsp-checkpoint-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the example to the end on `p` processes with `vars`; returns (success, sorted stdout,
/// stderr).
fn run(p: usize, vars: &[(&str, &Path)]) -> (bool, Vec<String>, String) {
    let mut cmd = Command::new(example());
    cmd.env("BSP_NPROCS", p.to_string()).env_remove("BSP_CHECKPOINT").env_remove("BSP_RESTART");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("the example runs");
    let mut lines: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(String::from).collect();
    lines.sort();
    (out.status.success(), lines, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Starts the example checkpointing into `dir`, and kills it (SIGKILL) once process 0 has
/// reported iteration `k`.
fn run_and_kill_at(dir: &Path, k: u64) {
    let mut child = Command::new(example())
        .args(["--pause-ms", "15"])
        .env("BSP_NPROCS", P.to_string())
        .env("BSP_CHECKPOINT", dir)
        .env_remove("BSP_RESTART")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the example starts");
    let stderr = BufReader::new(child.stderr.take().expect("piped"));
    let want = format!("iteration {k}");
    let mut reached = false;
    for line in stderr.lines() {
        if line.expect("stderr is text") == want {
            reached = true;
            break;
        }
    }
    assert!(reached, "the run ended before iteration {k}");
    child.kill().expect("SIGKILL");
    let status = child.wait().expect("the killed run is reaped");
    assert!(!status.success(), "the run was killed, not finished");
}

/// The message of the run's error in `stderr` (`error: process N failed: MESSAGE`; every process
/// finds these failures alike, and any of them may be the one named).
fn run_error(stderr: &str) -> &str {
    let line = stderr.lines().find(|l| l.starts_with("error: ")).unwrap_or_else(|| panic!("no error in:\n{stderr}"));
    line.split_once(" failed: ").map_or(line, |(_, m)| m)
}

/// The newest complete checkpoint directory in `dir`.
fn newest(dir: &Path) -> PathBuf {
    let mut steps: Vec<PathBuf> =
        std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).filter(|p| p.join("MANIFEST").is_file()).collect();
    steps.sort();
    steps.pop().expect("a complete checkpoint")
}

#[test]
fn every_restart_after_a_kill_prints_the_uninterrupted_output() {
    let (ok, want, err) = run(P, &[]);
    assert!(ok, "{err}");
    assert_eq!(want.len(), P);
    for k in [1, 3, 5, 8, 12, 16, 21, 27, 33, 38] {
        let dir = scratch(&format!("kill-{k}"));
        run_and_kill_at(&dir, k);
        let (ok, got, err) = run(P, &[("BSP_RESTART", &dir)]);
        assert!(ok, "restart after a kill at iteration {k} failed: {err}");
        assert_eq!(got, want, "restart after a kill at iteration {k}");
        let resumed = err.lines().next().unwrap_or_default();
        let resumed_at: u64 =
            resumed.strip_prefix("iteration ").and_then(|r| r.parse().ok()).expect("iteration N first");
        assert!(resumed_at >= k, "resumed at {resumed_at}, before the kill at {k}: {err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_corrupt_newest_checkpoint_gives_way_to_the_one_before() {
    let (_, want, _) = run(P, &[]);
    let dir = scratch("corrupt");
    run_and_kill_at(&dir, 10);
    let newest = newest(&dir);
    let file = newest.join("p1");
    let mut bytes = std::fs::read(&file).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    std::fs::write(&file, bytes).unwrap();
    let (ok, got, err) = run(P, &[("BSP_RESTART", &dir)]);
    assert!(ok, "{err}");
    assert_eq!(got, want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_torn_checkpoint_without_its_manifest_is_not_used() {
    let (_, want, _) = run(P, &[]);
    let dir = scratch("torn");
    run_and_kill_at(&dir, 10);
    let newest = newest(&dir);
    std::fs::remove_file(newest.join("MANIFEST")).unwrap();
    let (ok, got, err) = run(P, &[("BSP_RESTART", &dir)]);
    assert!(ok, "{err}");
    assert_eq!(got, want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_restart_with_another_number_of_processes_is_refused() {
    let dir = scratch("other-p");
    run_and_kill_at(&dir, 6);
    let (ok, _, err) = run(2, &[("BSP_RESTART", &dir)]);
    assert!(!ok);
    let newest = newest(&dir);
    let want = format!(
        "checkpoint: {} was written by 3 processes but this run has 2: restart with 3 processes",
        newest.display()
    );
    assert_eq!(run_error(&err), want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_restart_from_an_empty_directory_is_refused() {
    let dir = scratch("empty");
    let (ok, _, err) = run(P, &[("BSP_RESTART", &dir)]);
    assert!(!ok);
    let want = format!("checkpoint: no complete checkpoint in {} that every process can read (0 found)", dir.display());
    assert_eq!(run_error(&err), want);
    let _ = std::fs::remove_dir_all(&dir);
}
