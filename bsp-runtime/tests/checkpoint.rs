//! Checkpoints of what `examples/checkpoint.rs` does not hold: GP arrays (whose elements are
//! assigned, reassigned and left unassigned), a registration taken with `with_reg`, and a tag
//! size; and a restarted set-up that registers differently.
//!
//! Each case runs `checkpointed_program` (ignored, so that a plain `cargo test` does not start
//! it) in a child process of this test binary: the checkpoint and restart directories are read
//! once per OS process. `CK_STOP=k` makes process 0 end the OS process right after the
//! checkpoint of round k, as a crash there would.

use std::path::{Path, PathBuf};
use std::process::Command;

use bsp_runtime::Ctx;
use bsp_runtime::gp::GpArray;

const ROUNDS: u32 = 12;
const N: usize = 10;

fn program(ctx: &mut Ctx) -> String {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let stop: Option<u32> = std::env::var("CK_STOP").ok().map(|v| v.parse().unwrap());
    let extra = std::env::var("CK_EXTRA").is_ok();
    let mut g = GpArray::<u32>::builder(&[N]).name("g").build(ctx);
    let x = ctx.register([0u64; 3]);
    let _y = extra.then(|| ctx.register([0u8; 5]));
    ctx.set_tag::<u16>();
    ctx.sync();
    let mut round = 0u32;
    loop {
        round = ctx.checkpoint(round);
        if stop == Some(round) && pid == 0 {
            std::process::exit(9);
        }
        if round == ROUNDS {
            break;
        }
        // A message whose tag and payload cross the checkpoint.
        let got: u64 = std::iter::from_fn(|| ctx.move_message::<u16, u64>()).map(|(t, v)| u64::from(t) + v[0]).sum();
        // Elements of the GP array: this process's are (re)assigned with lengths that change,
        // a third of them left unassigned in turn; then a put into an assigned one anywhere.
        let (lo, hi) = g.distribution(pid).map_or((1, 0), |(lo, hi)| (lo[0], hi[0]));
        let assigned = |i: usize| (i as u32 + round) % 3 != 0;
        for i in lo..=hi {
            if assigned(i) {
                g.assign_local(ctx, &[i], vec![round * 100 + i as u32; 1 + (i + round as usize) % 3]);
            } else {
                g.free_local(ctx, &[i]);
            }
        }
        ctx.sync();
        let target = (0..N).map(|k| (pid * 3 + round as usize + k) % N).find(|&i| assigned(i)).unwrap();
        g.put(ctx, &[target], &[target], &[[round + pid as u32]], false);
        let mut v: [u64; 3] = x.local(ctx).try_into().unwrap();
        v[0] = v[0].wrapping_mul(7).wrapping_add(got + round as u64);
        v[2] = v[2].wrapping_add(v[1]);
        ctx.put((pid + 1) % p, &v[..], &x, 0);
        ctx.send((pid + p - 1) % p, &(round as u16), &[v[0]]);
        round += 1;
    }
    let (lo, hi) = g.distribution(pid).map_or((1, 0), |(lo, hi)| (lo[0], hi[0]));
    let mine: Vec<Option<Vec<u32>>> = (lo..=hi).map(|i| g.access(ctx, &[i]).map(<[u32]>::to_vec)).collect();
    format!("pid {pid}: x = {:?}, g = {mine:?}", x.local(ctx))
}

#[test]
#[ignore = "a child process of the cases below"]
fn checkpointed_program() {
    let p: usize = std::env::var("CK_P").unwrap().parse().unwrap();
    match bsp_runtime::run(p, program) {
        Ok(lines) => lines.iter().for_each(|l| println!("{l}")),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

/// Runs the program on `p` processes with `vars`: (exit code, stdout, stderr).
fn run(p: usize, vars: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(std::env::current_exe().expect("the test binary"));
    cmd.args(["--exact", "checkpointed_program", "--ignored", "--nocapture", "--test-threads=1", "-q"]);
    cmd.env("CK_P", p.to_string()).env("RUST_BACKTRACE", "0");
    for v in ["BSP_CHECKPOINT", "BSP_RESTART", "CK_STOP", "CK_EXTRA"] {
        cmd.env_remove(v);
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("the test binary runs");
    let stdout =
        String::from_utf8_lossy(&out.stdout).lines().filter(|l| l.starts_with("pid ")).collect::<Vec<_>>().join("\n");
    (out.status.code(), stdout, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bsp-rt-checkpoint-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn gp_arrays_registrations_and_messages_come_back_after_a_crash() {
    for p in [1, 3] {
        let (code, want, err) = run(p, &[]);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(want.lines().count(), p);
        for stop in [0, 4, 7, 11] {
            let dir = scratch(&format!("gp-{p}-{stop}"));
            let (code, _, err) = run(p, &[("BSP_CHECKPOINT", s(&dir)), ("CK_STOP", &stop.to_string())]);
            assert_eq!(code, Some(9), "p = {p}, stop at {stop}: {err}");
            let (code, got, err) = run(p, &[("BSP_RESTART", s(&dir))]);
            assert_eq!(code, Some(0), "p = {p}, restart after {stop}: {err}");
            assert_eq!(got, want, "p = {p}, restart after a crash at round {stop}");
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

#[test]
fn a_restart_whose_set_up_registers_differently_is_refused() {
    let dir = scratch("extra");
    let (code, _, err) = run(2, &[("BSP_CHECKPOINT", s(&dir)), ("CK_STOP", "3")]);
    assert_eq!(code, Some(9), "{err}");
    let (code, _, err) = run(2, &[("BSP_RESTART", s(&dir)), ("CK_EXTRA", "1")]);
    assert_eq!(code, Some(1), "{err}");
    let mut steps: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    steps.sort();
    let newest = steps.pop().expect("a checkpoint");
    // Every process finds it; whichever fails first is the run's error.
    let ok = (0..2).any(|q| {
        let want = format!(
            "error: process {q} failed: checkpoint: cannot restore {}: 2 registrations were saved but this process has 3: the set-up must make the same registrations in the same order",
            newest.join(format!("p{q}")).display()
        );
        err.lines().any(|l| l == want)
    });
    assert!(ok, "expected the registrations' difference in:\n{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
