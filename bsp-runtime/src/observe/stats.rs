//! BSP statistics: what each superstep cost this process, as the BSP model counts it.
//!
//! A superstep costs `w + h·g + l`: `w` is the local computation, `h` the h-relation (the most
//! data any process sends or receives), `g` the cost per word and `l` the cost of a barrier.
//! Every process measures its part of these figures at each sync, and the program reads them
//! with [`Ctx::stats`]: the last superstep's [`StepStats`] and running [`Totals`].
//!
//! # What is measured
//! - **compute** (`w`): from the end of the previous sync (or the start of the process) to the
//!   start of this sync;
//! - **wait**: time inside the sync's barriers (on the MPI engine: the flag reduction that
//!   starts every sync), i.e. waiting for the other processes;
//! - **data**: the rest of the sync: checking, moving and applying the communication.
//!
//! Traffic is counted in the direction the data moves, by kind, leaving out what a process
//! sends to itself (counted apart, in [`StepStats::local`]):
//!
//! - a `put` or `hpput` of `n` bytes from A to B: sent by A, received by B;
//! - a `get` or `hpget` of `n` bytes that A reads from B: sent by B, received by A;
//! - a message (`send`): its tag and payload bytes, sent by the sender, received by the
//!   receiver;
//! - a record for a global pointer array (a GP put or update): sent and received like a put.
//!   (The requests and replies of GP reads are not counted.)
//! - a collective (on every process or on a team): the elements it moves from one process to
//!   another, sent by the one and received by the other, as its [cost table](crate::collective#cost)
//!   gives them (an `allreduce` of `n` words: `(p−1)·n` sent and received by each process);
//!   not its headers.
//!
//! The process's h is `max(bytes sent, bytes received)`. The superstep's h, the maximum over
//! the processes, needs every process's figure: it is not computed during the run (that would
//! cost a reduction at every sync) but by the trace summary (`BSP_TRACE`, `BSP_TRACE_SUMMARY`)
//! afterwards, or by the program itself (see `examples/cost.rs`). A word is 8 bytes, the unit
//! of `g` as `bspbench` measures it.
//!
//! # Cost
//! Counting reads only the lengths of the queues the sync walks anyway: nothing for an empty
//! sync, a few loads per destination otherwise. Timing reads the clock twice per sync (at its
//! start and when its barrier returns) and twice more per extra barrier (a sync with gets or
//! hpputs); a clock read costs about 20 ns, which an empty sync between two cores (~0.1 µs)
//! shows. Nothing allocates. [`StatsMode`] chooses: `Counts` (the default: no clock at all),
//! `Timed` or `Off`, with [`Ctx::set_stats`] or `BSP_STATS=timed|counts|0` in the environment;
//! a trace turns `Timed` on.
//!
//! ```
//! let h = bsp_runtime::run(3, |ctx| {
//!     let x = ctx.register([0u64; 3]);
//!     // Everyone puts one word into everyone else: h = 2 words on every process.
//!     for q in 0..ctx.nprocs() {
//!         ctx.put(q, &[7u64], &x, ctx.pid());
//!     }
//!     ctx.sync();
//!     let last = &ctx.stats().last;
//!     assert_eq!((last.sent.puts, last.received.puts, last.local.puts), (2, 2, 1));
//!     last.h_bytes
//! })
//! .unwrap();
//! assert_eq!(h, vec![16, 16, 16]);
//!
//! // An allreduce of 1000 words at p = 4: each process sends its 1000 to the 3 others.
//! let h = bsp_runtime::run(4, |ctx| {
//!     ctx.allreduce(&vec![1.0f64; 1000], bsp_runtime::ops::sum);
//!     let last = &ctx.stats().last;
//!     assert_eq!((last.sent.collectives, last.received.collective_bytes), (3, 3 * 8000));
//!     last.h_words()
//! })
//! .unwrap();
//! assert_eq!(h, vec![3000; 4]);
//! ```

use std::time::Duration;

use crate::outbox::flags;
// For the links of the docs: the statistics are read through `Ctx` (`recorder.rs`).
#[cfg(doc)]
use crate::Ctx;

/// Bytes in a word, the unit of `g` and of h in words.
pub const WORD: usize = 8;

/// Communication of one process in one direction, by kind: operation counts and bytes.
///
/// ```
/// let sent = bsp_runtime::run(2, |ctx| {
///     ctx.set_tag::<u8>();
///     let x = ctx.register([0u32; 8]);
///     let other = 1 - ctx.pid();
///     ctx.put(other, &[1u32, 2, 3], &x, 0); // 12 bytes
///     ctx.send(other, &7u8, &[0u16; 4]); // a 1-byte tag and 8 bytes of payload
///     ctx.sync();
///     ctx.stats().last.sent
/// })
/// .unwrap();
/// assert_eq!((sent[0].puts, sent[0].put_bytes, sent[0].messages, sent[0].message_bytes), (1, 12, 1, 9));
/// assert_eq!((sent[0].count(), sent[0].bytes()), (2, 21));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// `put`s and `hpput`s.
    pub puts: usize,
    /// Their bytes.
    pub put_bytes: usize,
    /// `get`s and `hpget`s (on the sent side: those served from this process's memory).
    pub gets: usize,
    /// Their bytes.
    pub get_bytes: usize,
    /// BSMP messages.
    pub messages: usize,
    /// Their tag and payload bytes.
    pub message_bytes: usize,
    /// Records for global pointer arrays (GP puts and updates).
    pub records: usize,
    /// Their bytes.
    pub record_bytes: usize,
    /// Collectives' messages that carry data (one per pair of processes that the collective
    /// moves elements between: see [`collective`](crate::collective#cost)).
    pub collectives: usize,
    /// Their elements' bytes.
    pub collective_bytes: usize,
}

impl Traffic {
    /// All bytes, every kind.
    pub fn bytes(&self) -> usize {
        self.put_bytes + self.get_bytes + self.message_bytes + self.record_bytes + self.collective_bytes
    }

    /// All operations, every kind.
    pub fn count(&self) -> usize {
        self.puts + self.gets + self.messages + self.records + self.collectives
    }

    /// The figures of `self` less those of `o`, which are not larger.
    pub(crate) fn minus(&self, o: &Traffic) -> Traffic {
        Traffic {
            puts: self.puts - o.puts,
            put_bytes: self.put_bytes - o.put_bytes,
            gets: self.gets - o.gets,
            get_bytes: self.get_bytes - o.get_bytes,
            messages: self.messages - o.messages,
            message_bytes: self.message_bytes - o.message_bytes,
            records: self.records - o.records,
            record_bytes: self.record_bytes - o.record_bytes,
            collectives: self.collectives - o.collectives,
            collective_bytes: self.collective_bytes - o.collective_bytes,
        }
    }

    /// Adds the figures of `o` of the kinds in `kinds` (the outbox flags `PUT`, `GET`, `MSG`
    /// and `EXT`; a collective travels as a message).
    #[inline]
    pub(crate) fn add_kinds(&mut self, o: &Traffic, kinds: u64) {
        if kinds & flags::PUT != 0 {
            self.puts += o.puts;
            self.put_bytes += o.put_bytes;
        }
        if kinds & flags::GET != 0 {
            self.gets += o.gets;
            self.get_bytes += o.get_bytes;
        }
        if kinds & flags::MSG != 0 {
            self.messages += o.messages;
            self.message_bytes += o.message_bytes;
            self.collectives += o.collectives;
            self.collective_bytes += o.collective_bytes;
        }
        if kinds & flags::EXT != 0 {
            self.records += o.records;
            self.record_bytes += o.record_bytes;
        }
    }

    /// Copies the figures of `o` of the kinds in `kinds` (as in [`add_kinds`](Traffic::add_kinds)).
    #[inline]
    pub(crate) fn copy_kinds(&mut self, o: &Traffic, kinds: u64) {
        if kinds & flags::PUT != 0 {
            (self.puts, self.put_bytes) = (o.puts, o.put_bytes);
        }
        if kinds & flags::GET != 0 {
            (self.gets, self.get_bytes) = (o.gets, o.get_bytes);
        }
        if kinds & flags::MSG != 0 {
            (self.messages, self.message_bytes) = (o.messages, o.message_bytes);
            (self.collectives, self.collective_bytes) = (o.collectives, o.collective_bytes);
        }
        if kinds & flags::EXT != 0 {
            (self.records, self.record_bytes) = (o.records, o.record_bytes);
        }
    }
}

/// The figures of one superstep of one process (see the [module docs](self)).
///
/// ```
/// use std::time::Duration;
/// let last = bsp_runtime::run(2, |ctx| {
///     ctx.set_stats(bsp_runtime::stats::StatsMode::Timed); // by default, only counts
///     std::thread::sleep(Duration::from_millis(5)); // computation
///     ctx.sync();
///     ctx.stats().last
/// })
/// .unwrap();
/// for s in last {
///     assert_eq!(s.step, 0);
///     assert!(s.compute >= Duration::from_millis(5));
///     assert_eq!(s.time(), s.compute + s.sync());
///     assert_eq!(s.h_bytes, 0); // nothing was sent
/// }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepStats {
    /// The superstep's index: the value of [`Ctx::step`] during it.
    pub step: usize,
    /// Local computation, `w`: from the end of the previous sync to the start of this one.
    pub compute: Duration,
    /// Time in the sync waiting for the other processes.
    pub wait: Duration,
    /// Time in the sync checking, moving and applying communication.
    pub data: Duration,
    /// What this process sent to the others.
    pub sent: Traffic,
    /// What this process received from the others.
    pub received: Traffic,
    /// What this process sent to itself (in neither `sent` nor `received`).
    pub local: Traffic,
    /// This process's h in bytes: `max(sent.bytes(), received.bytes())`.
    pub h_bytes: usize,
    /// Messages this process's engine sent to other OS processes in the sync: 0 on threads; on
    /// MPI, point-to-point messages, with a collective counted as the messages its usual
    /// algorithm sends (p − 1 for an all-to-all, ⌈log₂ p⌉ for an all-reduce or a barrier).
    pub engine_messages: u64,
}

impl StepStats {
    /// This process's h in words of [`WORD`] bytes (rounded up).
    pub fn h_words(&self) -> usize {
        self.h_bytes.div_ceil(WORD)
    }

    /// The time of the sync: `wait + data`.
    pub fn sync(&self) -> Duration {
        self.wait + self.data
    }

    /// The whole superstep: `compute + wait + data`.
    pub fn time(&self) -> Duration {
        self.compute + self.wait + self.data
    }
}

/// Sums over the supersteps this process measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Supersteps measured (syncs while statistics were on).
    pub supersteps: usize,
    /// Sum of `compute`.
    pub compute: Duration,
    /// Sum of `wait`.
    pub wait: Duration,
    /// Sum of `data`.
    pub data: Duration,
    /// Sum of `sent`.
    pub sent: Traffic,
    /// Sum of `received`.
    pub received: Traffic,
    /// Sum of `local`.
    pub local: Traffic,
    /// Sum of this process's h over the supersteps, in bytes.
    pub h_bytes: usize,
    /// Sum of `engine_messages`.
    pub engine_messages: u64,
}

/// What [`Ctx::stats`] returns: the last superstep's figures and the running totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// The superstep ended by the last sync (all zero before the first sync).
    pub last: StepStats,
    /// Every superstep so far.
    pub total: Totals,
}

/// A few lines: the times, h, and a table of what was sent, received and sent to itself, by
/// kind (kinds with nothing in any column are left out).
///
/// ```
/// let last = bsp_runtime::run(2, |ctx| {
///     let x = ctx.register([0u64; 2]); // superstep 0 ends with the registration
///     ctx.put(1 - ctx.pid(), &[1u64, 2], &x, 0);
///     ctx.sync();
///     ctx.stats().last
/// })
/// .unwrap();
/// assert_eq!(
///     last[0].to_string(),
///     "superstep 1: times not measured (BSP_STATS=timed measures them); h = 16 bytes (2 words)
///        sent         received     local
/// puts   1 (16 B)     1 (16 B)     0
/// all    1 (16 B)     1 (16 B)     0
/// "
/// );
/// ```
impl std::fmt::Display for StepStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "superstep {}: ", self.step)?;
        times(f, self.compute, self.wait, self.data)?;
        write!(f, "; h = {} bytes ({} words)", self.h_bytes, self.h_words())?;
        if self.engine_messages > 0 {
            write!(f, "; {} engine messages", self.engine_messages)?;
        }
        writeln!(f)?;
        traffic_table(f, &self.sent, &self.received, &self.local)
    }
}

/// As [`StepStats`]'s: the sums over the supersteps.
///
/// ```
/// let total = bsp_runtime::run(2, |ctx| {
///     ctx.set_tag::<u8>(); // in force from the next superstep
///     ctx.sync();
///     for _ in 0..3 {
///         ctx.send(1 - ctx.pid(), &1u8, &[0u32; 2]);
///         ctx.sync();
///     }
///     ctx.stats().total
/// })
/// .unwrap();
/// assert_eq!(
///     total[1].to_string(),
///     "4 supersteps: times not measured (BSP_STATS=timed measures them); sum of h = 27 bytes
///            sent         received     local
/// messages   3 (27 B)     3 (27 B)     0
/// all        3 (27 B)     3 (27 B)     0
/// "
/// );
/// ```
impl std::fmt::Display for Totals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} supersteps: ", self.supersteps)?;
        times(f, self.compute, self.wait, self.data)?;
        write!(f, "; sum of h = {} bytes", self.h_bytes)?;
        if self.engine_messages > 0 {
            write!(f, "; {} engine messages", self.engine_messages)?;
        }
        writeln!(f)?;
        traffic_table(f, &self.sent, &self.received, &self.local)
    }
}

/// `compute …, wait …, data …`, or that times were not measured (all zero).
fn times(f: &mut std::fmt::Formatter<'_>, compute: Duration, wait: Duration, data: Duration) -> std::fmt::Result {
    if compute.is_zero() && wait.is_zero() && data.is_zero() {
        write!(f, "times not measured (BSP_STATS=timed measures them)")
    } else {
        write!(f, "compute {}, wait {}, data {}", short(compute), short(wait), short(data))
    }
}

/// A duration in the unit that suits it, to three significant figures or so.
fn short(d: Duration) -> String {
    let ns = d.as_nanos();
    match ns {
        0..1_000 => format!("{ns} ns"),
        1_000..1_000_000 => format!("{:.1} \u{b5}s", ns as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} ms", ns as f64 / 1e6),
        _ => format!("{:.2} s", d.as_secs_f64()),
    }
}

/// The table of [`StepStats`]'s and [`Totals`]'s `Display`: a row per kind with something in
/// it, then all kinds; a cell is `count (bytes B)`, or `0`.
fn traffic_table(
    f: &mut std::fmt::Formatter<'_>,
    sent: &Traffic,
    received: &Traffic,
    local: &Traffic,
) -> std::fmt::Result {
    let kinds = |t: &Traffic| {
        [
            (t.puts, t.put_bytes),
            (t.gets, t.get_bytes),
            (t.messages, t.message_bytes),
            (t.records, t.record_bytes),
            (t.collectives, t.collective_bytes),
            (t.count(), t.bytes()),
        ]
    };
    let names = ["puts", "gets", "messages", "records", "collectives", "all"];
    let columns = [kinds(sent), kinds(received), kinds(local)];
    let cell = |(n, b): (usize, usize)| if n == 0 && b == 0 { "0".to_string() } else { format!("{n} ({b} B)") };
    let rows: Vec<usize> =
        (0..names.len()).filter(|&k| k == names.len() - 1 || columns.iter().any(|c| c[k] != (0, 0))).collect();
    let first = rows.iter().map(|&k| names[k].len()).max().unwrap_or(0) + 3;
    let width = columns.iter().flat_map(|c| rows.iter().map(|&k| cell(c[k]).len())).max().unwrap_or(0).max(8) + 5;
    writeln!(f, "{:first$}{:width$}{:width$}local", "", "sent", "received")?;
    for k in rows {
        writeln!(
            f,
            "{:first$}{:width$}{:width$}{}",
            names[k],
            cell(columns[0][k]),
            cell(columns[1][k]),
            cell(columns[2][k])
        )?;
    }
    Ok(())
}

/// What the statistics of a process collect (see [`Ctx::set_stats`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatsMode {
    /// Nothing: a sync reads no clock and counts nothing; the figures stay as they were.
    Off,
    /// Operations and bytes, no times (they stay zero). Counting reads only the lengths of the
    /// queues that a sync walks anyway, and nothing at all for an empty sync.
    Counts,
    /// Operations, bytes and times: besides counting, a sync reads the clock
    /// twice, and twice more for each extra barrier (a sync with gets or hpputs).
    Timed,
}

impl StatsMode {
    /// The mode the environment asks for: `BSP_STATS=0` (or `off`) is `Off`, `BSP_STATS=timed`
    /// (or `1`) is `Timed`, anything else or nothing is `Counts`. Counting costs nothing
    /// measurable; timing reads the clock twice per sync, which an empty sync notices (a trace
    /// turns it on).
    pub fn from_env() -> StatsMode {
        match std::env::var("BSP_STATS").as_deref() {
            Ok("0" | "off") => StatsMode::Off,
            Ok("timed" | "1") => StatsMode::Timed,
            _ => StatsMode::Counts,
        }
    }
}

/// The BSP parameters of a machine, as `bspbench --json PATH` saves them, for predicting
/// the cost of supersteps.
///
/// ```
/// use std::time::Duration;
/// use bsp_runtime::stats::Machine;
/// let m = Machine::from_json(r#"{"p":2,"r_mflops":1000.0,"g_ns":20.0,"l_us":0.5}"#).unwrap();
/// assert_eq!(m.p, 2);
/// // w + h·g + l: 10 µs of computation and a 100-word h-relation
/// let t = m.predict(Duration::from_micros(10), 100 * 8);
/// assert_eq!(t, Duration::from_nanos(10_000 + 2_000 + 500));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Machine {
    /// The number of processes it was measured with.
    pub p: usize,
    /// Computing rate, flop/s.
    pub r: f64,
    /// Seconds per word ([`WORD`] bytes) of an h-relation.
    pub g: f64,
    /// Seconds per superstep (the synchronisation).
    pub l: f64,
}

impl Machine {
    /// Reads the figures `p`, `r_mflops`, `g_ns` and `l_us` from the JSON object that
    /// `bspbench --json` writes.
    ///
    /// # Errors
    /// If one of them is missing or not a number.
    pub fn from_json(text: &str) -> Result<Machine, MachineError> {
        let fail = |key: &'static str, problem| MachineError { path: None, key: Some(key), problem };
        let num = |key: &'static str| -> Result<f64, MachineError> {
            let pat = format!("\"{key}\"");
            let at = text.find(&pat).ok_or_else(|| fail(key, Problem::Missing))?;
            let rest = text[at + pat.len()..].trim_start();
            let rest = rest.strip_prefix(':').ok_or_else(|| fail(key, Problem::NoColon))?.trim_start();
            let end = rest
                .find(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E')))
                .unwrap_or(rest.len());
            rest[..end].parse::<f64>().map_err(|_| fail(key, Problem::NotANumber(rest[..end].to_string())))
        };
        Ok(Machine { p: num("p")? as usize, r: num("r_mflops")? * 1e6, g: num("g_ns")? * 1e-9, l: num("l_us")? * 1e-6 })
    }

    /// Reads a file written by `bspbench --json PATH`.
    ///
    /// ```
    /// use bsp_runtime::stats::Machine;
    /// let e = Machine::load("/no/such/machine.json").unwrap_err();
    /// assert_eq!(e.path(), Some(std::path::Path::new("/no/such/machine.json")));
    /// assert!(e.to_string().starts_with("cannot read /no/such/machine.json: "));
    /// assert!(std::error::Error::source(&e).is_some()); // the I/O error
    /// ```
    ///
    /// # Errors
    /// If the file cannot be read or lacks a figure.
    pub fn load(path: impl AsRef<std::path::Path>) -> Result<Machine, MachineError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| MachineError {
            path: Some(path.to_path_buf()),
            key: None,
            problem: Problem::Read(e),
        })?;
        Machine::from_json(&text).map_err(|e| MachineError { path: Some(path.to_path_buf()), ..e })
    }

    /// The BSP cost of a superstep: `w + h·g + l`, with h in bytes (counted in words of
    /// [`WORD`] bytes, rounded up).
    pub fn predict(&self, w: Duration, h_bytes: usize) -> Duration {
        let comm = h_bytes.div_ceil(WORD) as f64 * self.g + self.l;
        w + Duration::from_secs_f64(comm.max(0.0))
    }
}

/// Why [`Machine::load`] or [`Machine::from_json`] failed: the file could not be read, or a
/// figure is missing or not a number. `Display` says which, naming the file and the figure.
#[derive(Debug)]
pub struct MachineError {
    path: Option<std::path::PathBuf>,
    key: Option<&'static str>,
    problem: Problem,
}

#[derive(Debug)]
enum Problem {
    Read(std::io::Error),
    Missing,
    NoColon,
    NotANumber(String),
}

impl MachineError {
    /// The file, for an error of [`Machine::load`].
    pub fn path(&self) -> Option<&std::path::Path> {
        self.path.as_deref()
    }

    /// The figure that is missing or not a number (`p`, `r_mflops`, `g_ns`, `l_us`); `None`
    /// if the file could not be read.
    pub fn figure(&self) -> Option<&str> {
        self.key
    }
}

impl std::fmt::Display for MachineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = self.path.as_deref().map(std::path::Path::display);
        let key = self.key.unwrap_or("");
        match (&self.problem, path) {
            (Problem::Read(e), Some(path)) => return write!(f, "cannot read {path}: {e}"),
            (Problem::Read(e), None) => return write!(f, "cannot read the machine file: {e}"),
            (_, Some(path)) => write!(f, "{path}: ")?,
            (_, None) => {}
        }
        match &self.problem {
            Problem::Read(_) => Ok(()),
            Problem::Missing => write!(f, "the machine file has no `{key}`"),
            Problem::NoColon => write!(f, "`{key}` is not followed by `:`"),
            Problem::NotANumber(text) => write!(f, "`{key}` is not a number: {text:?}"),
        }
    }
}

impl std::error::Error for MachineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.problem {
            Problem::Read(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_machine_reads_bspbench_json_and_names_what_is_missing() {
        let m = Machine::from_json(
            r#"{"p":3,"maxh":256,"r_mflops":1.5e3,"g_flops":30.0,"l_flops":900.0,"g_ns":20.5,"l_us":0.25,"t_secs":[1e-6]}"#,
        )
        .expect("a bspbench file");
        assert_eq!(m, Machine { p: 3, r: 1.5e9, g: 20.5e-9, l: 0.25e-6 });
        let e = Machine::from_json(r#"{"p":3,"r_mflops":1.0,"g_ns":2.0}"#).unwrap_err();
        assert_eq!(e.to_string(), "the machine file has no `l_us`");
        assert_eq!((e.figure(), e.path()), (Some("l_us"), None));
        let e = Machine::from_json(r#"{"p":3,"r_mflops":1.0,"g_ns":"x","l_us":1}"#).unwrap_err();
        assert_eq!(e.to_string(), "`g_ns` is not a number: \"\"");
        let e = Machine::from_json(r#"{"p" 3}"#).unwrap_err();
        assert_eq!(e.to_string(), "`p` is not followed by `:`");
        // h is counted in whole words: 9 bytes are 2 words.
        let t = m.predict(Duration::ZERO, 9);
        assert_eq!(t, Duration::from_secs_f64(2.0 * 20.5e-9 + 0.25e-6));
    }

    #[test]
    #[cfg_attr(miri, ignore = "writes and reads a file, which Miri isolates")]
    fn a_machine_file_error_names_the_file() {
        let path = std::env::temp_dir().join(format!("bsp-machine-{}.json", std::process::id()));
        std::fs::write(&path, r#"{"p":2,"r_mflops":10.0,"l_us":1.0}"#).unwrap();
        let e = Machine::load(&path).unwrap_err();
        assert_eq!(e.to_string(), format!("{}: the machine file has no `g_ns`", path.display()));
        assert_eq!((e.path(), e.figure()), (Some(path.as_path()), Some("g_ns")));
        assert!(std::error::Error::source(&e).is_none());
        std::fs::remove_file(&path).unwrap();
        let e = Machine::load(&path).unwrap_err();
        assert!(e.to_string().starts_with(&format!("cannot read {}: ", path.display())), "{e}");
        assert_eq!(e.figure(), None);
    }

    /// The tables of `Display`: the kinds with traffic, then all; times when measured.
    #[test]
    fn step_stats_and_totals_display_as_a_table() {
        let s = StepStats {
            step: 4,
            compute: Duration::from_micros(1500),
            wait: Duration::from_nanos(300),
            data: Duration::from_nanos(2500),
            sent: Traffic { puts: 2, put_bytes: 16, collectives: 3, collective_bytes: 2400, ..Traffic::default() },
            received: Traffic { gets: 1, get_bytes: 40, ..Traffic::default() },
            local: Traffic::default(),
            h_bytes: 2416,
            engine_messages: 5,
        };
        assert_eq!(
            s.to_string(),
            "superstep 4: compute 1.5 ms, wait 300 ns, data 2.5 \u{b5}s; h = 2416 bytes (302 words); 5 engine messages
              sent           received       local
puts          2 (16 B)       0              0
gets          0              1 (40 B)       0
collectives   3 (2400 B)     0              0
all           5 (2416 B)     1 (40 B)       0
"
        );
        let t = Totals { supersteps: 2, h_bytes: 0, ..Totals::default() };
        assert_eq!(
            t.to_string(),
            "2 supersteps: times not measured (BSP_STATS=timed measures them); sum of h = 0 bytes
      sent         received     local
all   0            0            0
"
        );
    }
}
