//! The launcher: starts this executable under `mpirun`, once per rank count for the checks and
//! once per failure case, each with a time limit, and judges what comes back.

use std::collections::BTreeMap;
use std::io::Read;
use std::process::{Child, Command, ExitCode, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::{failures, report, CHECKS};

/// Whether this OS process was started by `mpirun` (the variables the engine looks at).
pub fn under_mpirun() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"].iter().any(|v| std::env::var_os(v).is_some())
}

/// Open MPI settings for running every rank on this machine, added to a job's environment when
/// not set already (the ones `scripts/setup-mpi` suggests):
/// - more ranks than cores (`-n 4` on a 2-core machine) needs oversubscription;
/// - shared memory between ranks, and mpirun's control channel on loopback only;
/// - Debian's Open MPI leaves no one-sided component without `osc = ^ucx` (harmless otherwise);
/// - as root, Open MPI refuses to start unless both `OMPI_ALLOW_RUN_AS_ROOT*` are set.
pub fn defaults() -> Vec<(&'static str, &'static str)> {
    let mut vars = vec![
        ("OMPI_MCA_rmaps_base_oversubscribe", "1"),
        ("OMPI_MCA_btl", "self,vader"),
        ("OMPI_MCA_oob_tcp_if_include", "lo"),
        ("OMPI_MCA_osc", "^ucx"),
    ];
    if is_root() {
        vars.extend([("OMPI_ALLOW_RUN_AS_ROOT", "1"), ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")]);
    }
    vars
}

fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    // `/proc/self` belongs to the effective user of the process that looks at it.
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// What one `mpirun` job did.
#[derive(Debug)]
pub struct Job {
    /// `None` if it was killed for taking longer than its limit.
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Job {
    pub fn succeeded(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    /// How it ended, for messages.
    pub fn ending(&self) -> String {
        match self.status {
            None => format!("killed after {:.0?}: it hangs", self.elapsed),
            Some(s) => format!("{s} after {:.1?}", self.elapsed),
        }
    }

    /// The last `n` lines of stderr, indented, for failure reports.
    pub fn stderr_tail(&self, n: usize) -> String {
        let lines: Vec<&str> = self.stderr.lines().collect();
        let tail = &lines[lines.len().saturating_sub(n)..];
        tail.iter().map(|l| format!("      | {l}\n")).collect()
    }
}

/// The longest a job may take (`BSP_MPI_TIMEOUT`, in seconds).
fn limit() -> Duration {
    let secs = std::env::var("BSP_MPI_TIMEOUT").ok().and_then(|v| v.parse().ok()).unwrap_or(120);
    Duration::from_secs(secs)
}

/// Runs `mpirun -n <ranks> <this executable> <args>` with `env` added (and `BSP_NPROCS` removed
/// unless `env` sets it), capturing stdout and stderr. A job that outlives `limit` is stopped:
/// SIGTERM to its process group (mpirun passes it on to the ranks), SIGKILL 5 s later.
pub fn mpirun(ranks: usize, args: &[&str], env: &[(&str, &str)], limit: Duration) -> Result<Job, String> {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this test's executable: {e}"))?;
    let mut cmd = Command::new("mpirun");
    cmd.arg("-n").arg(ranks.to_string()).arg(&exe).args(args);
    cmd.env_remove(bsp_runtime::NPROCS_VAR);
    for (name, value) in defaults() {
        if std::env::var_os(name).is_none() {
            cmd.env(name, value);
        }
    }
    cmd.envs(env.iter().copied());
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    // A group of its own, so that a hung job can be stopped with all its ranks.
    cmd.process_group(0);
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|e| {
        format!("cannot start `mpirun`: {e}; install Open MPI with `bash scripts/setup-mpi` (or put `mpirun` on PATH)")
    })?;
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    let status = wait_until(&mut child, start + limit)?;
    let elapsed = start.elapsed();
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    Ok(Job { status, stdout, stderr, elapsed })
}

/// Reads a pipe to its end on a thread of its own (so that neither pipe can fill up and block).
fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut p) = pipe {
            // A read error only shortens what the report shows.
            let _ = p.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Waits for `child` until `deadline`; past it, stops its process group and returns `None`.
fn wait_until(child: &mut Child, deadline: Instant) -> Result<Option<ExitStatus>, String> {
    let poll = |child: &mut Child| child.try_wait().map_err(|e| format!("waiting for mpirun: {e}"));
    while Instant::now() < deadline {
        if let Some(status) = poll(child)? {
            return Ok(Some(status));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let group = format!("-{}", child.id());
    for (signal, grace) in [("-TERM", Duration::from_secs(5)), ("-KILL", Duration::from_secs(5))] {
        // If `kill` cannot run, the wait below tells.
        let _ = Command::new("kill").args([signal, "--", &group]).status();
        let until = Instant::now() + grace;
        while Instant::now() < until {
            if poll(child)?.is_some() {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    Err(format!("mpirun (pid {}) survived SIGKILL", child.id()))
}

/// What the ranks of one checks job reported, per check.
#[derive(Debug, Default)]
struct Reports {
    ok: BTreeMap<String, Vec<usize>>,
    failed: BTreeMap<String, Vec<(usize, String)>>,
    done: Vec<usize>,
}

fn parse(stdout: &str) -> Reports {
    let mut r = Reports::default();
    for line in stdout.lines() {
        if let Some(rank) = line.strip_prefix(report::DONE) {
            r.done.extend(rank.trim().parse::<usize>());
            continue;
        }
        let Some(rest) = line.strip_prefix(report::CHECK) else { continue };
        let Some((name, rest)) = rest.split_once(" rank ") else { continue };
        let Some((rank, status)) = rest.split_once(": ") else { continue };
        let Ok(rank) = rank.parse::<usize>() else { continue };
        if status == "ok" {
            r.ok.entry(name.to_string()).or_default().push(rank);
        } else {
            let why = status.strip_prefix("FAILED: ").unwrap_or(status).to_string();
            r.failed.entry(name.to_string()).or_default().push((rank, why));
        }
    }
    r
}

/// Tallies and prints results.
#[derive(Debug, Default)]
struct Tally {
    passed: usize,
    failed: usize,
}

impl Tally {
    fn pass(&mut self) {
        self.passed += 1;
    }

    fn fail(&mut self, what: &str, why: &str) {
        self.failed += 1;
        println!("FAILED  {what}\n        {}", why.replace('\n', "\n        "));
    }
}

/// The rank counts to run the checks on (`BSP_MPI_RANKS`, e.g. `1 2 4`).
fn rank_counts() -> Vec<usize> {
    let parsed: Vec<usize> = std::env::var("BSP_MPI_RANKS")
        .unwrap_or_default()
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter_map(|s| s.parse().ok())
        .filter(|&n| n > 0)
        .collect();
    if parsed.is_empty() {
        vec![1, 2, 4]
    } else {
        parsed
    }
}

/// The checks on `ranks` ranks: one job, one result per check, plus whether the job ended well.
fn checks_job(ranks: usize, tally: &mut Tally) -> Result<(), String> {
    let job = mpirun(ranks, &[], &[], limit())?;
    let reports = parse(&job.stdout);
    let before = tally.failed;
    let mut silent = Vec::new();
    for check in CHECKS {
        let what = format!("mpirun -n {ranks}: {}", check.name);
        let ok = reports.ok.get(check.name).map_or(0, Vec::len);
        if let Some(failures) = reports.failed.get(check.name) {
            let why: Vec<String> = failures.iter().map(|(r, m)| format!("rank {r}: {m}")).collect();
            tally.fail(&what, &why.join("\n"));
        } else if ok == ranks {
            tally.pass();
        } else {
            silent.push(check.name);
            tally.fail(&what, &format!("{} of {ranks} ranks reported; the job ended: {}", ok, job.ending()));
        }
    }
    let what = format!("mpirun -n {ranks}: the run ends cleanly on every rank");
    if job.succeeded() && reports.done.len() == ranks {
        tally.pass();
    } else {
        tally
            .fail(&what, &format!("{} of {ranks} ranks returned; the job ended: {}", reports.done.len(), job.ending()));
    }
    let failed = tally.failed - before;
    println!("mpirun -n {ranks}: {} checks passed, {failed} failed ({:.1?})", CHECKS.len() + 1 - failed, job.elapsed);
    if failed > 0 {
        if let Some(first) = silent.first() {
            println!("    the job stopped during `{first}` (or before it reported); its stderr ends with:");
        } else {
            println!("    stderr (the whole messages of the failed checks) ends with:");
        }
        print!("{}", job.stderr_tail(60));
    }
    Ok(())
}

/// The launcher's `main`.
pub fn main() -> ExitCode {
    let start = Instant::now();
    let mut tally = Tally::default();
    println!(
        "running {} checks on the MPI engine with mpirun -n {:?}, then {} failure cases",
        CHECKS.len(),
        rank_counts(),
        failures::CASES.len()
    );
    for ranks in rank_counts() {
        if let Err(e) = checks_job(ranks, &mut tally) {
            println!("error: {e}");
            println!("0 passed, 1 failed");
            return ExitCode::FAILURE;
        }
    }
    for case in failures::CASES {
        let what = format!("failure case `{}` (mpirun -n {})", case.name, case.ranks);
        let mut env = vec![("RUST_BACKTRACE", "0")];
        env.extend(case.env.iter().copied());
        match mpirun(case.ranks, &["--case", case.name], &env, limit()) {
            Err(e) => tally.fail(&what, &e),
            Ok(job) => match (case.judge)(&job) {
                Ok(()) => {
                    tally.pass();
                    println!("ok      {what}: {} ({:.1?})", case.summary, job.elapsed);
                }
                Err(why) => tally.fail(
                    &what,
                    &format!("{why}\n  stdout:\n{}  stderr:\n{}", indent(&job.stdout), job.stderr_tail(40)),
                ),
            },
        }
    }
    println!("\nall jobs took {:.1?}", start.elapsed());
    println!("{} passed, {} failed", tally.passed, tally.failed);
    if tally.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("      | {l}\n")).collect()
}
