//! Traces of a run: `BSP_TRACE=path` writes a Chrome trace-event file (Perfetto,
//! `chrome://tracing`) and an SVG timeline beside it; `BSP_TRACE_SUMMARY=1` prints a table of
//! the supersteps to stderr, with predicted costs if `BSP_MACHINE` names a file written by
//! `bspbench --json PATH`.
//!
//! Each process records its supersteps in memory (`Buffer`, in its statistics recorder): the
//! span of its computation, the wait and data spans of its sync in order, and its figures.
//! Nothing is written before the run ends, when [`finish`] collects the processes' records:
//!
//! - threads engine: each process hands its records to a table shared by the run (keyed by the
//!   run's id); the last one to arrive writes the files;
//! - MPI engine: each rank writes its records to `path.rankN`, the ranks meet at a barrier,
//!   and rank 0 reads the parts, deletes them and writes the files (the ranks must share a
//!   file system; across machines, clocks are aligned by the wall clock only).
//!
//! The part files are in `part.rs`; the rendering, the same for both engines, in `render.rs`.

mod part;
mod render;

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use crate::Ctx;
use crate::observe::stats::{Machine, StepStats};
use part::{read_part, write_part};
use render::Run;

/// Which part of a sync a span of time belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Wait,
    Data,
}

/// The environment variable naming the trace file.
pub const TRACE_VAR: &str = "BSP_TRACE";
/// The environment variable asking for the summary table (any value but `0`).
pub const SUMMARY_VAR: &str = "BSP_TRACE_SUMMARY";
/// The environment variable naming a machine file (from `bspbench --json PATH`) for predictions.
pub const MACHINE_VAR: &str = "BSP_MACHINE";

/// One span of a sync: its phase and its end (ns since the process's origin).
#[derive(Clone, Copy, Debug)]
struct Mark {
    phase: Phase,
    end: u64,
}

/// One superstep of one process: its figures and times (ns since the process's origin).
#[derive(Clone, Debug)]
struct Step {
    stats: StepStats,
    start: u64,
    /// When the computation ended and the sync started.
    enter: u64,
    end: u64,
    marks: Range<usize>,
}

/// One process's records, kept during the run, in a [`Live`] that the watchdog can also reach:
/// a run that hangs writes its trace as far as it went (`observe/watch.rs`).
#[derive(Debug)]
pub(crate) struct Buffer {
    live: Arc<Live>,
}

/// What a process has recorded so far, and what it needs to render it. Only the process writes
/// it; the lock is for the watchdog, which reads it once, when the run hangs.
#[derive(Debug)]
pub(crate) struct Live {
    pid: usize,
    nprocs: usize,
    origin: Instant,
    /// Wall-clock time of `origin`, ns since the Unix epoch (aligns processes and ranks).
    wall: u64,
    path: Option<PathBuf>,
    summary: bool,
    records: Mutex<Records>,
}

#[derive(Debug, Default)]
struct Records {
    marks: Vec<Mark>,
    steps: Vec<Step>,
    /// When the current computation ended (set at the start of a sync or of the final barrier).
    enter: Option<u64>,
    first_mark: usize,
}

impl Buffer {
    /// A buffer if the environment asks for a trace or a summary.
    pub(crate) fn wanted(pid: usize, nprocs: usize) -> Option<Buffer> {
        let path = std::env::var_os(TRACE_VAR).filter(|v| !v.is_empty()).map(PathBuf::from);
        let summary = std::env::var_os(SUMMARY_VAR).is_some_and(|v| !v.is_empty() && v != "0");
        if path.is_none() && !summary {
            return None;
        }
        // The two clocks read back to back: the wall clock aligns processes without a common
        // monotonic clock (MPI ranks).
        let origin = Instant::now();
        let wall = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        let records = Records { marks: Vec::with_capacity(1024), steps: Vec::with_capacity(256), ..Records::default() };
        Some(Buffer { live: Arc::new(Live { pid, nprocs, origin, wall, path, summary, records: Mutex::new(records) }) })
    }

    /// The records, for the watchdog.
    pub(crate) fn live(&self) -> Arc<Live> {
        self.live.clone()
    }

    fn records(&self) -> std::sync::MutexGuard<'_, Records> {
        self.live.records.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn ns(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.live.origin).as_nanos() as u64
    }

    pub(crate) fn end_compute(&self, now: Instant) {
        let t = self.ns(now);
        self.records().enter = Some(t);
    }

    pub(crate) fn mark(&self, phase: Phase, now: Instant) {
        let end = self.ns(now);
        self.records().marks.push(Mark { phase, end });
    }

    pub(crate) fn end_step(&mut self, stats: &StepStats, start: Instant, end: Instant) {
        let (start, end) = (self.ns(start), self.ns(end));
        let mut r = self.records();
        let n = r.marks.len();
        let enter = r.enter.take().unwrap_or(start);
        let marks = r.first_mark..n;
        r.steps.push(Step { stats: *stats, start, enter, end, marks });
        r.first_mark = n;
    }

    /// The records as plain data; `now` ends the last computation if no final barrier did.
    fn into_proc(self, now: Instant) -> Proc {
        let records = std::mem::take(&mut *self.records());
        self.live.proc(&records, now)
    }
}

impl Live {
    pub(crate) fn pid(&self) -> usize {
        self.pid
    }

    /// `records` as plain data; `now` ends the last computation if no final barrier did.
    fn proc(&self, records: &Records, now: Instant) -> Proc {
        let now = now.saturating_duration_since(self.origin).as_nanos() as u64;
        let marks = &records.marks;
        let last_end = records.steps.last().map_or(0, |s| s.end);
        let tail_enter = records.enter.unwrap_or(now).max(last_end);
        let tail_marks = marks[records.first_mark..].to_vec();
        let tail_end = tail_marks.last().map_or(tail_enter, |m| m.end);
        Proc {
            pid: self.pid,
            nprocs: self.nprocs,
            wall: self.wall,
            origin: Some(self.origin),
            offset: 0,
            steps: records
                .steps
                .iter()
                .map(|s| ProcStep {
                    stats: s.stats,
                    start: s.start,
                    enter: s.enter,
                    end: s.end,
                    marks: marks[s.marks.clone()].to_vec(),
                })
                .collect(),
            tail: ProcStep {
                stats: StepStats::default(),
                start: last_end,
                enter: tail_enter,
                end: tail_end,
                marks: tail_marks,
            },
        }
    }
}

/// Writes what the processes of a hung run recorded so far (`observe/watch.rs`): the trace, the
/// timeline and the summary, as at the end of a run, when every process lives in this OS process
/// (threads); otherwise each process's part file (`path.rankN`, as the MPI engine writes them).
/// Returns what was written, for the report.
pub(crate) fn write_hung(lives: &[Arc<Live>], now: Instant) -> Option<String> {
    let first = lives.first()?;
    let procs: Vec<Proc> = lives
        .iter()
        .map(|l| {
            let records = l.records.lock().unwrap_or_else(|e| e.into_inner());
            l.proc(&records, now)
        })
        .collect();
    if procs.len() == first.nprocs {
        write_outputs(procs, first.path.as_deref(), first.summary);
        return first.path.as_ref().map(|p| format!("the trace of the supersteps so far is in {}", p.display()));
    }
    let base = first.path.clone().unwrap_or_else(|| PathBuf::from("bsp-summary.json"));
    let mut written = Vec::new();
    for proc in &procs {
        let part = part_path(&base, proc.pid);
        match std::fs::write(&part, write_part(proc)) {
            Ok(()) => written.push(part.display().to_string()),
            Err(e) => eprintln!("warning: bsp trace: cannot write {}: {e}", part.display()),
        }
    }
    (!written.is_empty()).then(|| format!("this rank's trace parts of the supersteps so far: {}", written.join(", ")))
}

/// A superstep of a finished process (or its final stretch, `Proc::tail`).
#[derive(Clone, Debug)]
struct ProcStep {
    stats: StepStats,
    start: u64,
    enter: u64,
    end: u64,
    marks: Vec<Mark>,
}

impl ProcStep {
    /// The spans of the superstep, in order: (phase name, start, end).
    fn spans(&self) -> impl Iterator<Item = (&'static str, u64, u64)> + '_ {
        let compute = std::iter::once(("compute", self.start, self.enter));
        let mut at = self.enter;
        compute.chain(self.marks.iter().map(move |m| {
            let s = at;
            at = m.end.max(s);
            (phase_name(m.phase), s, at)
        }))
    }
}

fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Wait => "sync wait",
        Phase::Data => "data movement",
    }
}

/// A finished process's records.
#[derive(Clone, Debug)]
struct Proc {
    pid: usize,
    nprocs: usize,
    wall: u64,
    /// The monotonic origin, when the process ran in this OS process (threads engine).
    origin: Option<Instant>,
    /// Where its origin lies on the run's axis, ns (set by `Run::new`).
    offset: u64,
    steps: Vec<ProcStep>,
    tail: ProcStep,
}

/// Records of finished processes of runs in progress (threads engine), by run id.
static RUNS: Mutex<Vec<(u64, Vec<Proc>)>> = Mutex::new(Vec::new());

/// Called for each process at the end of the run (whether it succeeded or not): hands its
/// records over; the last process of the run writes the trace. `rank_barrier` is the MPI
/// engine's barrier among the ranks (each rank then holds only its own process).
pub(crate) fn finish(ctx: &mut Ctx, rank_barrier: Option<&dyn Fn(&mut Ctx)>) {
    let Some(buf) = ctx.stats.trace.take() else {
        // Ranks meet even without a trace, in case the environment differs between them.
        if let Some(barrier) = rank_barrier {
            barrier(ctx);
        }
        return;
    };
    let (path, summary) = (buf.live.path.clone(), buf.live.summary);
    let proc = buf.into_proc(Instant::now());
    match rank_barrier {
        None => {
            let run = ctx.run_id();
            let done = {
                let mut runs = RUNS.lock().unwrap_or_else(|e| e.into_inner());
                let at = match runs.iter().position(|(id, _)| *id == run) {
                    Some(at) => at,
                    None => {
                        runs.push((run, Vec::new()));
                        runs.len() - 1
                    }
                };
                runs[at].1.push(proc);
                (runs[at].1.len() == ctx.nprocs).then(|| runs.swap_remove(at).1)
            };
            if let Some(procs) = done {
                write_outputs(procs, path.as_deref(), summary);
            }
        }
        Some(barrier) => {
            let base = path.clone().unwrap_or_else(|| PathBuf::from("bsp-summary.json"));
            let part = part_path(&base, proc.pid);
            if let Err(e) = std::fs::write(&part, write_part(&proc)) {
                eprintln!("warning: bsp trace: cannot write {}: {e}", part.display());
            }
            barrier(ctx);
            if proc.pid == 0 {
                let mut procs = Vec::with_capacity(proc.nprocs);
                for q in 0..proc.nprocs {
                    let part = part_path(&base, q);
                    match std::fs::read_to_string(&part).map_err(|e| e.to_string()).and_then(|t| read_part(&t)) {
                        Ok(p) => procs.push(p),
                        Err(e) => {
                            eprintln!("warning: bsp trace: the part of rank {q} ({}) is missing: {e}", part.display())
                        }
                    }
                    let _ = std::fs::remove_file(&part);
                }
                write_outputs(procs, path.as_deref(), summary);
            }
        }
    }
}

fn part_path(base: &Path, rank: usize) -> PathBuf {
    let mut s = base.as_os_str().to_owned();
    s.push(format!(".rank{rank}"));
    PathBuf::from(s)
}

/// Writes the trace and the timeline, prints the summary. A failure here (it would be a bug) is
/// reported as a warning: it must not fail the run, which has finished.
fn write_outputs(procs: Vec<Proc>, path: Option<&Path>, summary: bool) {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| render_outputs(procs, path, summary)));
    if outcome.is_err() {
        eprintln!("warning: bsp trace: the trace could not be written (a bug in `bsp`'s trace code)");
    }
}

fn render_outputs(mut procs: Vec<Proc>, path: Option<&Path>, summary: bool) {
    procs.sort_by_key(|p| p.pid);
    let run = Run::new(procs);
    if let Some(path) = path {
        if let Err(e) = std::fs::write(path, run.chrome_json()) {
            eprintln!("warning: bsp trace: cannot write {}: {e}", path.display());
        }
        let svg = path.with_extension("svg");
        if let Err(e) = std::fs::write(&svg, run.svg()) {
            eprintln!("warning: bsp trace: cannot write {}: {e}", svg.display());
        }
    }
    if summary {
        let machine = std::env::var_os(MACHINE_VAR).map(|p| Machine::load(&p));
        let machine = match machine {
            Some(Ok(m)) => Some(m),
            Some(Err(e)) => {
                eprintln!("warning: bsp trace: {MACHINE_VAR}: {e}");
                None
            }
            None => None,
        };
        eprint!("{}", run.table(machine.as_ref()));
    }
}

/// A process with one superstep and its final stretch (for the tests of `part` and `render`).
#[cfg(test)]
fn sample(pid: usize) -> Proc {
    use crate::observe::stats::Traffic;
    use std::time::Duration;
    let stats = StepStats {
        step: 0,
        compute: Duration::from_nanos(1500),
        wait: Duration::from_nanos(300),
        data: Duration::from_nanos(200),
        sent: Traffic { puts: 2, put_bytes: 16, messages: 1, message_bytes: 12, ..Traffic::default() },
        received: Traffic { gets: 1, get_bytes: 40, collectives: 1, collective_bytes: 24, ..Traffic::default() },
        local: Traffic { records: 3, record_bytes: 9, ..Traffic::default() },
        h_bytes: 64,
        engine_messages: 0,
    };
    let marks = vec![
        Mark { phase: Phase::Wait, end: 1800 },
        Mark { phase: Phase::Data, end: 1900 },
        Mark { phase: Phase::Wait, end: 1950 },
        Mark { phase: Phase::Data, end: 2000 },
    ];
    let step = ProcStep { stats, start: 0, enter: 1500, end: 2000, marks };
    let tail = ProcStep {
        stats: StepStats::default(),
        start: 2000,
        enter: 2600,
        end: 2700,
        marks: vec![Mark { phase: Phase::Wait, end: 2700 }],
    };
    Proc { pid, nprocs: 2, wall: 1_000_000 + pid as u64 * 50, origin: None, offset: 0, steps: vec![step], tail }
}
