//! The launcher: starts this executable under `mpirun`, once per rank count for the checks and
//! once per failure case and process count, each with a time limit, and judges what comes back.

use std::collections::BTreeMap;
use std::io::Read;
use std::process::{Child, Command, ExitCode, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::check::{Case, Failure, Probe};
use crate::{cases, checks, launch, report};

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
    /// Each rank's own stdout and stderr, by rank: unlike the job's, never interleaved with other
    /// ranks' output or mpirun's messages.
    pub ranks: Vec<(String, String)>,
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

/// Runs `mpirun -n <ranks> <this executable> <args>` with `env` added (and `BSP_NPROCS`,
/// `BSP_THREADS` removed unless `env` sets it), capturing stdout and stderr, and keeping each
/// rank's output apart (`mpirun --output-filename`, into a directory of its own that is removed
/// afterwards): [`Job::ranks`]. A job that outlives `limit` is stopped: SIGTERM to its process
/// group (mpirun passes it on to the ranks), SIGKILL 5 s later.
pub fn mpirun_per_rank(ranks: usize, args: &[&str], env: &[(&str, &str)], limit: Duration) -> Result<Job, String> {
    static JOBS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    // Relaxed: only a unique number is needed.
    let n = JOBS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("bsp-mpi-test-{}-{n}", std::process::id()));
    let mut job = start_job(ranks, args, env, limit, &dir);
    if let Ok(job) = &mut job {
        // Open MPI writes `<dir>/1/rank.<r>/{stdout,stderr}`, with `r` zero-padded to the width
        // of the highest rank (`rank.07` of 12); a rank that printed nothing may have no file.
        let width = (ranks.max(1) - 1).to_string().len();
        let read = |r: usize, name: &str| {
            std::fs::read_to_string(dir.join("1").join(format!("rank.{r:0width$}")).join(name)).unwrap_or_default()
        };
        job.ranks = (0..ranks).map(|r| (read(r, "stdout"), read(r, "stderr"))).collect();
    }
    // Only a leftover temporary directory if it fails.
    let _ = std::fs::remove_dir_all(&dir);
    job
}

fn start_job(
    ranks: usize,
    args: &[&str],
    env: &[(&str, &str)],
    limit: Duration,
    dir: &std::path::Path,
) -> Result<Job, String> {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this test's executable: {e}"))?;
    let mut cmd = Command::new("mpirun");
    cmd.arg("-n").arg(ranks.to_string());
    cmd.arg("--output-filename").arg(dir);
    cmd.arg(&exe).args(args);
    cmd.env_remove(bsp_runtime::NPROCS_VAR);
    cmd.env_remove(bsp_runtime::THREADS_VAR);
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
    Ok(Job { status, stdout, stderr, ranks: Vec::new(), elapsed })
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
    skipped: BTreeMap<String, Vec<usize>>,
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
        } else if status == report::SKIPPED {
            r.skipped.entry(name.to_string()).or_default().push(rank);
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
    /// Checks whose process counts exclude this number of ranks.
    skipped: usize,
    /// Known defects that still fail (`launch::KNOWN_DEFECTS`).
    known: usize,
}

impl Tally {
    fn pass(&mut self) {
        self.passed += 1;
    }

    fn skip(&mut self) {
        self.skipped += 1;
    }

    fn fail(&mut self, what: &str, why: &str) {
        self.failed += 1;
        println!("FAILED  {what}\n        {}", why.replace('\n', "\n        "));
    }
}

/// How many failure-case jobs run at once (`BSP_MPI_JOBS`, default 2).
fn parallel_jobs() -> usize {
    std::env::var("BSP_MPI_JOBS").ok().and_then(|v| v.parse().ok()).filter(|&n| n > 0).unwrap_or(2)
}

/// The rank counts to run the checks on (`BSP_MPI_RANKS`, e.g. `1 2 4`).
fn rank_counts() -> Vec<usize> {
    let parsed: Vec<usize> = std::env::var("BSP_MPI_RANKS")
        .unwrap_or_default()
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter_map(|s| s.parse().ok())
        .filter(|&n| n > 0)
        .collect();
    if parsed.is_empty() { vec![1, 2, 4] } else { parsed }
}

/// The exchanges the checks run on besides each count's default (`BSP_MPI_EXCHANGE`): the
/// sparse one forced on a few ranks, and the default beyond 8 ranks (12: a count the GP test
/// vectors have), where it chooses the sparse exchange for the supersteps in which every rank
/// talks to at most a quarter of the others, on a machine with a core per rank, and the dense
/// one on a machine with fewer cores than ranks (as CI's).
const EXCHANGE_JOBS: &[(usize, &str)] = &[(3, "sparse"), (4, "sparse"), (12, "auto")];

/// The (ranks, threads per rank) the checks run on with the hybrid engine (`BSP_THREADS`).
const HYBRID_JOBS: &[(usize, usize)] = &[(1, 2), (2, 1), (2, 2), (2, 3)];

/// The (ranks, threads per rank) the checks run on with the hybrid engine and the sparse
/// exchange forced (`BSP_THREADS`, `BSP_MPI_EXCHANGE=sparse`).
const HYBRID_SPARSE_JOBS: &[(usize, usize)] = &[(3, 2)];

/// What a job of the checks sets besides the rank count.
#[derive(Clone, Copy, Debug)]
enum Setting {
    Default,
    Exchange(&'static str),
    Threads(usize),
    ThreadsSparse(usize),
}

impl Setting {
    fn env(self, threads: &str) -> Vec<(&'static str, String)> {
        match self {
            Setting::Default => Vec::new(),
            Setting::Exchange(e) => vec![("BSP_MPI_EXCHANGE", e.to_string())],
            Setting::Threads(_) => vec![("BSP_THREADS", threads.to_string())],
            Setting::ThreadsSparse(_) => {
                vec![("BSP_THREADS", threads.to_string()), ("BSP_MPI_EXCHANGE", "sparse".to_string())]
            }
        }
    }
}

/// The checks on `ranks` ranks with `setting`: one job, one result per check, plus whether the
/// job ended well.
fn checks_job(ranks: usize, setting: Setting, tally: &mut Tally) -> Result<(), String> {
    let threads = match setting {
        Setting::Threads(t) | Setting::ThreadsSparse(t) => t,
        _ => 1,
    };
    let owned = setting.env(&threads.to_string());
    let env: Vec<(&str, &str)> = owned.iter().map(|(k, v)| (*k, v.as_str())).collect();
    // Each rank's report lines are read from its own output: mpirun's merged stdout may cut one
    // rank's line by another's when the machine is busy.
    let job = mpirun_per_rank(ranks, &[], &env, limit())?;
    let label = match setting {
        Setting::Exchange(e) => format!("mpirun -n {ranks}, BSP_MPI_EXCHANGE={e}"),
        Setting::Threads(t) => format!("mpirun -n {ranks}, BSP_THREADS={t}"),
        Setting::ThreadsSparse(t) => format!("mpirun -n {ranks}, BSP_THREADS={t}, BSP_MPI_EXCHANGE=sparse"),
        Setting::Default => format!("mpirun -n {ranks}"),
    };
    // The processes of the run (and so the reports expected of each check).
    let ranks = ranks * threads;
    let reports = parse(&job.ranks.iter().map(|(out, _)| out.as_str()).collect::<Vec<_>>().join("\n"));
    let (before_passed, before_failed, before_skipped) = (tally.passed, tally.failed, tally.skipped);
    let mut silent = Vec::new();
    for check in checks() {
        let what = format!("{label}: {}", check.name);
        let ok = reports.ok.get(check.name).map_or(0, Vec::len);
        let skipped = reports.skipped.get(check.name).map_or(0, Vec::len);
        if let Some(failures) = reports.failed.get(check.name) {
            let why: Vec<String> = failures.iter().map(|(r, m)| format!("rank {r}: {m}")).collect();
            tally.fail(&what, &why.join("\n"));
        } else if ok == ranks && check.procs.on_mpi(ranks) {
            tally.pass();
        } else if skipped == ranks && !check.procs.on_mpi(ranks) {
            tally.skip();
        } else {
            silent.push(check.name);
            tally.fail(
                &what,
                &format!("{ok} of {ranks} ranks reported ok, {skipped} skipped; the job ended: {}", job.ending()),
            );
        }
    }
    let what = format!("{label}: the run ends cleanly on every rank");
    if job.succeeded() && reports.done.len() == ranks {
        tally.pass();
    } else {
        tally
            .fail(&what, &format!("{} of {ranks} ranks returned; the job ended: {}", reports.done.len(), job.ending()));
    }
    let failed = tally.failed - before_failed;
    println!(
        "{label}: {} checks passed, {failed} failed, {} skipped (not for {ranks} ranks) ({:.1?})",
        tally.passed - before_passed,
        tally.skipped - before_skipped,
        job.elapsed
    );
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

/// A failing job must end within this (mpirun's own start and stop take about a second).
const PROMPTLY: Duration = Duration::from_secs(20);

/// `Ok` if the job failed, and within [`PROMPTLY`].
pub fn fails_promptly(job: &Job) -> Result<(), String> {
    match job.status {
        Some(s) if !s.success() && job.elapsed < PROMPTLY => Ok(()),
        Some(s) if !s.success() => Err(format!("the job failed, but only after {:.1?}", job.elapsed)),
        _ => Err(format!("the job should fail; it {}", job.ending())),
    }
}

/// `Ok` if the job succeeded.
pub fn succeeds(job: &Job) -> Result<(), String> {
    if job.succeeded() { Ok(()) } else { Err(format!("the job should succeed; it {}", job.ending())) }
}

/// `Ok` if stderr mentions `text` exactly once.
pub fn mentions_once(job: &Job, text: &str) -> Result<(), String> {
    count_is(job, text, 1)
}

/// `Ok` if stderr mentions `text` exactly `n` times.
pub fn count_is(job: &Job, text: &str, n: usize) -> Result<(), String> {
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

/// Judges a failure case of the suite on `p` ranks from each rank's own output: the job fails
/// promptly, no rank reached a probe, one rank printed the error line (`error: ...`, as
/// `exit_on_error` prints it; for a case where several processes fail at once, at least one
/// rank), and the case's judge accepts every such line.
fn judge_case(case: &Case, p: usize, job: &Job) -> Result<(), String> {
    fails_promptly(job)?;
    let outs = job.ranks.iter().flat_map(|(out, _)| out.lines());
    if let Some(line) = outs.clone().find(|l| l.starts_with(Probe::LINE)) {
        return Err(format!("a rank got past the point where it must stop: {line}"));
    }
    let errors: Vec<&str> =
        job.ranks.iter().flat_map(|(_, err)| err.lines()).filter_map(|l| l.strip_prefix("error: ")).collect();
    match (errors.len(), case.several) {
        (0, _) => return Err("no rank printed an `error: ...` line".to_string()),
        (1, _) | (_, true) => {}
        (n, false) => return Err(format!("the ranks printed {n} `error: ...` lines, expected one: {errors:#?}")),
    }
    for line in errors {
        (case.judge)(&Failure::parse(p, line)).map_err(|why| format!("{why}\n  (from the line `error: {line}`)"))?;
    }
    Ok(())
}

/// The launcher's `main`.
pub fn main() -> ExitCode {
    let start = Instant::now();
    let mut tally = Tally::default();
    let known = launch::KNOWN_DEFECTS;
    println!(
        "running {} checks on the MPI engine with mpirun -n {:?}, then {} failure cases and {} launch cases \
         ({} of them known defects)",
        checks().count(),
        rank_counts(),
        cases().count(),
        launch::CASES.len(),
        known.len(),
    );
    let jobs = rank_counts()
        .into_iter()
        .map(|r| (r, Setting::Default))
        .chain(EXCHANGE_JOBS.iter().map(|&(r, e)| (r, Setting::Exchange(e))))
        .chain(HYBRID_JOBS.iter().map(|&(r, t)| (r, Setting::Threads(t))))
        .chain(HYBRID_SPARSE_JOBS.iter().map(|&(r, t)| (r, Setting::ThreadsSparse(t))));
    for (ranks, setting) in jobs {
        if let Err(e) = checks_job(ranks, setting, &mut tally) {
            println!("error: {e}");
            println!("0 passed, 1 failed");
            return ExitCode::FAILURE;
        }
    }
    // One job per case and process count, on the MPI engine, and again on the hybrid engine
    // (p/2 ranks of 2 threads for an even p, p ranks of 1 otherwise), `parallel_jobs()` at a
    // time (a job mostly waits for mpirun to start and stop its ranks); results are reported in
    // the order of the list.
    let jobs: Vec<(&Case, usize, Option<usize>)> = cases()
        .flat_map(|c| c.ps.iter().map(move |&p| (c, p, None)))
        .chain(cases().flat_map(|c| c.ps.iter().map(move |&p| (c, p, Some(if p % 2 == 0 { 2 } else { 1 })))))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let verdicts = std::sync::Mutex::new(vec![None; jobs.len()]);
    std::thread::scope(|scope| {
        for _ in 0..parallel_jobs() {
            scope.spawn(|| {
                loop {
                    // Relaxed: only a unique index is needed; the results go through the mutex.
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&(case, p, threads)) = jobs.get(i) else { break };
                    let t = threads.map(|t| t.to_string());
                    let mut env = vec![("RUST_BACKTRACE", "0")];
                    env.extend(t.as_deref().map(|t| ("BSP_THREADS", t)));
                    let ranks = p / threads.unwrap_or(1);
                    let verdict = match mpirun_per_rank(ranks, &["--case", case.name], &env, limit()) {
                        Err(e) => Err(e),
                        Ok(job) => judge_case(case, p, &job).map_err(|why| {
                            format!("{why}\n  stdout:\n{}  stderr:\n{}", indent(&job.stdout), job.stderr_tail(40))
                        }),
                    };
                    verdicts.lock().expect("no job thread panics holding the lock")[i] = Some(verdict);
                }
            });
        }
    });
    let verdicts = verdicts.into_inner().expect("no job thread panicked holding the lock");
    for ((case, p, threads), verdict) in jobs.iter().zip(verdicts) {
        let what = match threads {
            None => format!("failure case `{}` (mpirun -n {p})", case.name),
            Some(t) => format!("failure case `{}` (BSP_THREADS={t} mpirun -n {})", case.name, p / t),
        };
        match verdict {
            Some(Ok(())) => tally.pass(),
            Some(Err(why)) => tally.fail(&what, &why),
            None => tally.fail(&what, "the job never ran"),
        }
    }
    println!("failure cases of the suite: done ({:.1?} so far)", start.elapsed());
    for case in launch::CASES {
        let what = format!("launch case `{}` (mpirun -n {})", case.name, case.ranks);
        let mut env = vec![("RUST_BACKTRACE", "0")];
        env.extend(case.env.iter().copied());
        let is_known = known.contains(&case.name);
        // The judges read stdout line by line: each rank's own, one after the other, so that no
        // line is cut by another rank's (mpirun's merged stdout may do that on a busy machine).
        let job = mpirun_per_rank(case.ranks, &["--case", case.name], &env, limit()).map(|mut job| {
            job.stdout = job.ranks.iter().map(|(out, _)| out.as_str()).collect();
            job
        });
        match job {
            Err(e) => tally.fail(&what, &e),
            Ok(job) => match (case.judge)(&job) {
                Ok(()) if is_known => {
                    tally.pass();
                    println!(
                        "PASSES  {what}: {} -- a known defect no longer shows: take it off `KNOWN_DEFECTS`",
                        case.summary
                    );
                }
                Ok(()) => {
                    tally.pass();
                    println!("ok      {what}: {} ({:.1?})", case.summary, job.elapsed);
                }
                Err(why) if is_known => {
                    tally.known += 1;
                    println!(
                        "known   {what}: {}: still fails (known defect): {}",
                        case.summary,
                        why.replace('\n', " ")
                    );
                }
                Err(why) => tally.fail(
                    &what,
                    &format!("{why}\n  stdout:\n{}  stderr:\n{}", indent(&job.stdout), job.stderr_tail(40)),
                ),
            },
        }
    }
    println!("\nall jobs took {:.1?}", start.elapsed());
    println!(
        "{} checks skipped (not for that number of ranks), {} known defects still failing",
        tally.skipped, tally.known
    );
    println!("{} passed, {} failed", tally.passed, tally.failed);
    if tally.failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("      | {l}\n")).collect()
}
