//! Where each process is, for a run that looks hung: the watchdog (`BSP_WATCHDOG`) and the
//! report on SIGINT and SIGTERM.
//!
//! Every process keeps a [`Slot`] up to date at no more cost than a few relaxed stores per sync
//! (no clock read): whether it computes or waits, in which superstep, and where it waits (the
//! `#[track_caller]` location of the `sync`, registration or collective it called, and which of
//! them). The monitor dates each change it sees, so the times in a report are its own, to a
//! tick (0.1 s), and known only when the watchdog has it watching. One monitor thread per OS process, started with the first run, reads the slots of
//! every live run (each engine's [`Fate`](crate::engine::Fate) owns one [`RunWatch`]) ten times
//! a second. It prints a report of every process of this OS process and ends the program
//! with a non-zero status (the signal handler wakes the monitor at once through a socket, so
//! a report is out within milliseconds even where `mpirun` follows its SIGTERM with a SIGKILL
//! soon after):
//! - when the program receives SIGINT or SIGTERM (exit status 128 + the signal, as a shell
//!   reports a process the signal ended), if the program had not set a handler of its own;
//! - when `BSP_WATCHDOG=<seconds>` is set and no process of a run has finished a sync for that
//!   long (exit status 1). Off by default: a superstep may rightly compute for hours, and only
//!   the user knows how long is too long.
//!
//! On MPI and hybrid runs each rank reports its own processes (`mpirun` ends the others when the
//! first rank exits). The slots are diagnostics that nothing else reads, so every access is
//! `Relaxed`: a report may show a process one step behind, never anything wrong about the data.

use std::fmt::Write as _;
use std::panic::Location;
use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

/// The variable that turns the watchdog on: a number of seconds.
pub(crate) const WATCHDOG_VAR: &str = "BSP_WATCHDOG";

/// How often the monitor looks.
const TICK: Duration = Duration::from_millis(100);

pub(crate) use crate::ctx::Wait;

/// Computing, when a slot's `wait` is this.
const COMPUTING: u8 = 0;
/// Returned from the SPMD function, the last wait over.
const FINISHED: u8 = 6;

/// One process's state, written by it and read by the monitor. A sync writes it twice (a few
/// relaxed stores to this process's own cache line, and no clock read): the monitor tells the
/// time of each change itself, by watching.
#[derive(Debug)]
#[repr(align(64))]
pub(crate) struct Slot {
    pid: usize,
    /// `COMPUTING`, `FINISHED`, or a [`Wait`].
    wait: AtomicU8,
    step: AtomicUsize,
    /// Where it waits: a `&'static Location` (null while computing).
    at: AtomicPtr<Location<'static>>,
}

impl Slot {
    /// Marks the start of a wait of kind `wait` at `at`, in the superstep the slot holds (the
    /// process's own: `computing` stored it when the superstep began).
    #[inline]
    pub(crate) fn waiting(&self, wait: Wait, at: Option<&'static Location<'static>>) {
        self.at.store(at.map_or(std::ptr::null_mut(), |at| std::ptr::from_ref(at).cast_mut()), Relaxed);
        self.wait.store(wait as u8, Relaxed);
    }

    /// Marks the end of a sync: the process computes superstep `step`.
    #[inline]
    pub(crate) fn computing(&self, step: usize) {
        self.step.store(step, Relaxed);
        self.wait.store(COMPUTING, Relaxed);
    }

    /// Marks the process as returned from the SPMD function.
    pub(crate) fn finished(&self) {
        self.wait.store(FINISHED, Relaxed);
    }

    fn read(&self) -> (u8, usize, Option<&'static Location<'static>>) {
        let at = self.at.load(Relaxed);
        // SAFETY: `at` is null or was made from a `&'static Location` (`waiting`).
        (self.wait.load(Relaxed), self.step.load(Relaxed), unsafe { at.as_ref() })
    }
}

/// What the monitor saw of one slot: its state, and since when it saw that state.
#[derive(Clone, Copy, Debug)]
struct Seen {
    wait: u8,
    step: usize,
    since: Instant,
}

/// The slots of the processes of one run that live in this OS process, and what the monitor
/// saw of them.
#[derive(Debug)]
pub(crate) struct RunWatch {
    slots: Mutex<Vec<Arc<Slot>>>,
    nprocs: AtomicUsize,
    /// The monitor's view (only the monitor writes it): each slot as last seen, and when the
    /// monitor last saw some process finish a sync (or first saw the run).
    seen: Mutex<(Vec<Seen>, Option<Instant>)>,
    /// The trace records of the processes that keep one (`BSP_TRACE`, `BSP_TRACE_SUMMARY`),
    /// written as far as they go if the run hangs.
    traces: Mutex<Vec<Arc<crate::observe::trace::Live>>>,
}

impl RunWatch {
    /// A run's watch, seen by the monitor for as long as the run lives.
    pub(crate) fn new() -> Arc<RunWatch> {
        let run = Arc::new(RunWatch {
            slots: Mutex::default(),
            nprocs: AtomicUsize::new(0),
            seen: Mutex::new((Vec::new(), None)),
            traces: Mutex::default(),
        });
        let mut runs = RUNS.lock().unwrap_or_else(|e| e.into_inner());
        runs.retain(|r| r.strong_count() > 0);
        runs.push(Arc::downgrade(&run));
        run
    }

    /// The slot of process `pid` of `nprocs`, which starts computing superstep 0.
    pub(crate) fn join(self: &Arc<Self>, pid: usize, nprocs: usize) -> Arc<Slot> {
        start_monitor();
        let slot = Arc::new(Slot {
            pid,
            wait: AtomicU8::new(COMPUTING),
            step: AtomicUsize::new(0),
            at: AtomicPtr::new(std::ptr::null_mut()),
        });
        self.nprocs.store(nprocs, Relaxed);
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let at = slots.partition_point(|s| s.pid < pid);
        slots.insert(at, slot.clone());
        slot
    }

    /// Adds a process's trace records, to be written if the run hangs.
    pub(crate) fn add_trace(&self, live: Arc<crate::observe::trace::Live>) {
        self.traces.lock().unwrap_or_else(|e| e.into_inner()).push(live);
    }

    /// Writes the trace records of this run as far as they go; returns a line for the report.
    fn write_trace(&self, now: Instant) -> String {
        let mut traces = self.traces.lock().unwrap_or_else(|e| e.into_inner()).clone();
        traces.sort_by_key(|l| l.pid());
        crate::observe::trace::write_hung(&traces, now).map(|w| format!("  ({w})\n")).unwrap_or_default()
    }

    /// Looks at every slot at time `now`: a changed state is dated `now`; a step that moved on
    /// is a finished sync.
    fn observe(&self, now: Instant) {
        let slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        let (views, progress) = &mut *seen;
        progress.get_or_insert(now);
        views.resize(slots.len(), Seen { wait: COMPUTING, step: 0, since: now });
        for (slot, view) in slots.iter().zip(views.iter_mut()) {
            let (wait, step, _) = slot.read();
            if step != view.step {
                *progress = Some(now);
            }
            if (wait, step) != (view.wait, view.step) {
                *view = Seen { wait, step, since: now };
            }
        }
    }

    /// The report of this run's processes at time `now`: what each does, and, if `timed` (the
    /// monitor has been watching), for how long the monitor has seen it do so.
    fn report(&self, now: Instant, timed: bool) -> String {
        let slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        // (pid, wait, step, where, seconds in that state)
        type Row = (usize, u8, usize, Option<&'static Location<'static>>, Option<f64>);
        let state: Vec<Row> = slots
            .iter()
            .enumerate()
            .map(|(i, slot)| {
                let (wait, step, at) = slot.read();
                let since = seen.0.get(i).filter(|v| (v.wait, v.step) == (wait, step)).map(|v| v.since);
                let secs = since.filter(|_| timed).map(|t| now.saturating_duration_since(t).as_secs_f64());
                (slot.pid, wait, step, at, secs)
            })
            .collect();
        let nprocs = self.nprocs.load(Relaxed);
        // Those that keep the waiting ones waiting: every process here that computes, and the
        // processes of other OS processes (ranks), whose state this one cannot see.
        let busy: Vec<String> = state.iter().filter(|s| s.1 == COMPUTING).map(|s| s.0.to_string()).collect();
        let elsewhere = nprocs > state.len();
        let mut out = String::new();
        for &(pid, wait, step, at, secs) in &state {
            let kind = Wait::ALL.into_iter().find(|w| *w as u8 == wait);
            let _ = match (wait, kind) {
                (FINISHED, _) => writeln!(out, "  process {pid}: returned from the SPMD function"),
                (_, None) => {
                    let secs = secs.map(|s| format!(" for {s:.1} s")).unwrap_or_default();
                    writeln!(out, "  process {pid}: computing in superstep {step}{secs}")
                }
                (_, Some(w)) => {
                    let at = at
                        .filter(|_| crate::calls::calls().lines)
                        .map(|l| format!(" at {}:{}:{}", l.file(), l.line(), l.column()))
                        .unwrap_or_default();
                    let secs = secs.map(|s| format!(", for {s:.1} s")).unwrap_or_default();
                    let mut who = String::new();
                    if !busy.is_empty() {
                        let plural = if busy.len() == 1 { "" } else { "es" };
                        who = format!(", for process{plural} {}", busy.join(", "));
                    }
                    if elsewhere {
                        who += if who.is_empty() {
                            ", for processes of other ranks"
                        } else {
                            " and processes of other ranks"
                        };
                    }
                    writeln!(out, "  process {pid}: waiting in {}{at} (superstep {step}{secs}){who}", w.name())
                }
            };
        }
        out
    }

    /// How long the monitor has seen no process of this run finish a sync, if some process
    /// still runs.
    fn stalled(&self, now: Instant) -> Option<Duration> {
        let live =
            self.slots.lock().unwrap_or_else(|e| e.into_inner()).iter().any(|s| s.wait.load(Relaxed) != FINISHED);
        let progress = self.seen.lock().unwrap_or_else(|e| e.into_inner()).1?;
        live.then(|| now.saturating_duration_since(progress))
    }
}

/// The runs the monitor watches (dead ones are dropped when a new one starts).
static RUNS: Mutex<Vec<Weak<RunWatch>>> = Mutex::new(Vec::new());

/// The signal received (0: none), set by the handler.
static SIGNALLED: AtomicI32 = AtomicI32::new(0);

/// `BSP_WATCHDOG` in seconds, if set to a positive number (an invalid value is refused when the
/// run starts, `env.rs`).
pub(crate) fn watchdog() -> Option<Duration> {
    static LIMIT: OnceLock<Option<Duration>> = OnceLock::new();
    *LIMIT.get_or_init(|| parse_watchdog(std::env::var(WATCHDOG_VAR).ok().as_deref()).ok().flatten())
}

/// The value of `BSP_WATCHDOG`: `None` if unset, else a positive number of seconds.
pub(crate) fn parse_watchdog(value: Option<&str>) -> Result<Option<Duration>, String> {
    let Some(v) = value else { return Ok(None) };
    match v.trim().parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() && s < 1e9 => Ok(Some(Duration::from_secs_f64(s))),
        _ => Err(format!(
            "{WATCHDOG_VAR}={v:?} is not a number of seconds (expected a positive number, such as 30 or 0.5)"
        )),
    }
}

/// Starts the monitor thread once per OS process, and installs the signal handlers.
fn start_monitor() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        // Miri cannot install signal handlers, and a thread that never ends would outlive its
        // tests: there the monitor runs only for the watchdog.
        if cfg!(miri) && watchdog().is_none() {
            return;
        }
        let wake = signals::install();
        let spawned = std::thread::Builder::new().name("bsp watchdog".into()).spawn(move || monitor(wake));
        // Without the thread a hang is not reported, and nothing else changes.
        drop(spawned);
    });
}

/// The monitor's loop: reports and exits on a signal, or on a run stalled past the watchdog.
/// It sleeps on `wake` (written by the signal handler) for a tick when the watchdog is on, and
/// until a signal when it is off; without `wake`, it looks every tick.
fn monitor(wake: Option<signals::Wake>) {
    let limit = watchdog();
    let mut wake = wake.filter(|w| signals::set_timeout(w, limit.map(|_| TICK)));
    loop {
        match wake.as_mut() {
            Some(w) => signals::sleep(w),
            None => std::thread::sleep(TICK),
        }
        let sig = SIGNALLED.load(Relaxed);
        let runs: Vec<Arc<RunWatch>> =
            RUNS.lock().unwrap_or_else(|e| e.into_inner()).iter().filter_map(Weak::upgrade).collect();
        let t = Instant::now();
        runs.iter().for_each(|r| r.observe(t));
        if sig != 0 {
            // How long each has been in its state is known only if the monitor was watching.
            // Not an `error:` line: under `mpirun` the signal is also how the other ranks are
            // stopped after one failed, whose own error line is the run's error.
            let mut out = format!("bsp: {} received; where each process was:\n", signals::name(sig));
            runs.iter().for_each(|r| out += &r.report(t, limit.is_some()));
            exit_with(&out, 128 + sig, &runs, t);
        }
        if let Some(limit) = limit
            && let Some(run) = runs.iter().find(|r| r.stalled(t).is_some_and(|d| d >= limit))
        {
            let out = format!(
                "error: no process has finished a sync for {:.1} s ({WATCHDOG_VAR}={}); where each process is:\n{}",
                limit.as_secs_f64(),
                std::env::var(WATCHDOG_VAR).unwrap_or_default(),
                run.report(t, true)
            );
            exit_with(&out, 1, std::slice::from_ref(run), t);
        }
    }
}

/// Prints `report` in one write, then writes the trace records of `runs` as far as they go (a
/// line for each, and the summary table when one was asked for), and ends the OS process with
/// `status`.
fn exit_with(report: &str, status: i32, runs: &[Arc<RunWatch>], now: Instant) -> ! {
    use std::io::Write as _;
    let _ = std::io::stderr().lock().write_all(report.as_bytes());
    for run in runs {
        let _ = std::io::stderr().lock().write_all(run.write_trace(now).as_bytes());
    }
    std::process::exit(status)
}

#[cfg(all(unix, not(miri)))]
mod signals {
    use std::ffi::{c_int, c_void};
    use std::os::fd::IntoRawFd as _;
    use std::os::unix::net::UnixStream;
    use std::sync::atomic::AtomicI32;
    use std::sync::atomic::Ordering::Relaxed;

    const SIGINT: c_int = 2;
    const SIGTERM: c_int = 15;
    const SIG_DFL: usize = 0;

    /// What the monitor sleeps on: the read end of a socket pair.
    pub(super) type Wake = UnixStream;

    /// Makes `sleep` return after `timeout` at the latest (`None`: only on a signal).
    pub(super) fn set_timeout(wake: &Wake, timeout: Option<std::time::Duration>) -> bool {
        wake.set_read_timeout(timeout).is_ok()
    }

    /// Sleeps until a signal arrives or the timeout passes.
    pub(super) fn sleep(wake: &mut Wake) {
        use std::io::Read as _;
        let _ = wake.read(&mut [0u8; 16]);
    }

    /// The socket end the handler writes a byte to, to wake the monitor (-1: none).
    static WAKE: AtomicI32 = AtomicI32::new(-1);

    unsafe extern "C" {
        /// `signal(2)`: sets the disposition of `signum`, returns the previous one.
        fn signal(signum: c_int, handler: usize) -> usize;
        /// `write(2)`, which is async-signal-safe.
        fn write(fd: c_int, buf: *const c_void, count: usize) -> isize;
    }

    /// Async-signal-safe: an atomic store, an atomic load and `write`.
    extern "C" fn on_signal(sig: c_int) {
        super::SIGNALLED.store(sig, Relaxed);
        let fd = WAKE.load(Relaxed);
        if fd >= 0 {
            // SAFETY: `fd` is the write end of the socket pair made by `install`, never closed;
            // the buffer is one valid byte.
            let _ = unsafe { write(fd, [1u8].as_ptr().cast(), 1) };
        }
    }

    /// Handles SIGINT and SIGTERM, unless the program handles (or ignores) them itself, and
    /// returns the socket end the monitor sleeps on.
    pub(super) fn install() -> Option<UnixStream> {
        let (reader, writer) = UnixStream::pair().ok()?;
        // The write end lives as long as the OS process: the handler may run at any time.
        WAKE.store(writer.into_raw_fd(), Relaxed);
        for sig in [SIGINT, SIGTERM] {
            let handler = on_signal as extern "C" fn(c_int) as usize;
            // SAFETY: `signal` is the C library's; `on_signal` only stores to an atomic, which
            // is async-signal-safe.
            let previous = unsafe { signal(sig, handler) };
            if previous != SIG_DFL {
                // SAFETY: as above; restores the program's own disposition.
                unsafe { signal(sig, previous) };
            }
        }
        Some(reader)
    }

    pub(super) fn name(sig: c_int) -> String {
        match sig {
            SIGINT => "SIGINT".to_owned(),
            SIGTERM => "SIGTERM".to_owned(),
            _ => format!("signal {sig}"),
        }
    }
}

#[cfg(not(all(unix, not(miri))))]
mod signals {
    /// Nothing to sleep on: the monitor looks every tick.
    pub(super) enum Wake {}

    pub(super) fn install() -> Option<Wake> {
        None
    }

    pub(super) fn set_timeout(wake: &Wake, _: Option<std::time::Duration>) -> bool {
        match *wake {}
    }

    pub(super) fn sleep(wake: &mut Wake) {
        match *wake {}
    }

    pub(super) fn name(sig: i32) -> String {
        format!("signal {sig}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watchdog_takes_positive_seconds() {
        assert_eq!(parse_watchdog(None), Ok(None));
        assert_eq!(parse_watchdog(Some("2")), Ok(Some(Duration::from_secs(2))));
        assert_eq!(parse_watchdog(Some("0.5")), Ok(Some(Duration::from_millis(500))));
        for bad in ["0", "-1", "soon", "inf", ""] {
            assert_eq!(
                parse_watchdog(Some(bad)),
                Err(format!(
                    "BSP_WATCHDOG={bad:?} is not a number of seconds (expected a positive number, such as 30 or 0.5)"
                ))
            );
        }
    }

    #[test]
    fn a_report_says_who_waits_where_and_for_whom() {
        let run = RunWatch::new();
        let (a, b, c) = (run.join(0, 4), run.join(1, 4), run.join(2, 4));
        let here = Location::caller();
        let t0 = Instant::now();
        run.observe(t0);
        // Each enters superstep 3 (a sync's end), then two of them wait in it.
        for s in [&a, &b, &c] {
            s.computing(3);
        }
        a.waiting(Wait::Sync, Some(here));
        c.waiting(Wait::Collective, Some(here));
        let t1 = t0 + Duration::from_millis(500);
        run.observe(t1);
        let t2 = t1 + Duration::from_secs(2);
        run.observe(t2);
        let report = run.report(t2, true);
        let at = format!("{}:{}:{}", here.file(), here.line(), here.column());
        let lines: Vec<&str> = report.lines().collect();
        assert_eq!(lines.len(), 3, "{report}");
        assert_eq!(
            lines[0],
            format!(
                "  process 0: waiting in `sync` at {at} (superstep 3, for 2.0 s), for process 1 and processes of other ranks"
            )
        );
        assert_eq!(lines[1], "  process 1: computing in superstep 3 for 2.0 s");
        assert_eq!(
            lines[2],
            format!(
                "  process 2: waiting in a collective at {at} (superstep 3, for 2.0 s), for process 1 and processes of other ranks"
            )
        );
        assert_eq!(run.stalled(t2), Some(Duration::from_secs(2)), "the last step seen to move was at t1");
        let untimed = run.report(t2, false);
        assert!(untimed.lines().nth(1) == Some("  process 1: computing in superstep 3"), "{untimed}");
        for s in [&a, &b, &c] {
            s.finished();
        }
        assert_eq!(run.stalled(t2), None, "a run whose processes all returned is not stalled");
    }
}
