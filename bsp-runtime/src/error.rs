//! The error a failed SPMD run returns.

use std::fmt;

/// Why an SPMD run failed: the first failure, with the process it happened on.
///
/// Returned by [`run`](crate::run) and [`Launch::run`](crate::Launch::run). Misuse (a pid out of
/// range, an access past a registration's extent, a collective mismatch, ...) and panics or
/// [`Ctx::abort`](crate::Ctx::abort) calls in user code all end up here.
///
/// ```
/// let err = bsp_runtime::run(2, |ctx| {
///     if ctx.pid() == 1 {
///         ctx.abort("no data");
///     }
///     ctx.sync();
/// })
/// .unwrap_err();
/// assert_eq!(err.pid(), Some(1));
/// assert!(err.to_string().contains("no data"));
/// ```
///
/// Its `Debug` is its message, so that `fn main() -> Result<(), bsp::Error>` prints what went
/// wrong (`Error: process 1 aborted: no data`); `{:#?}` shows the fields.
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    pid: Option<usize>,
    kind: Kind,
    message: String,
    /// Found identically by every process (at a sync): on an engine where each OS process
    /// reports for itself, only one of them needs to print it.
    collective: bool,
    /// Another OS process prints this error (MPI ranks other than 0).
    quiet: bool,
}

/// What kind of failure ended a run: see [`Error::kind`].
///
/// More kinds may be added, so a `match` needs a `_` arm.
///
/// ```
/// use bsp_runtime::ErrorKind;
/// let err = bsp_runtime::run(2, |ctx| {
///     if ctx.pid() == 0 {
///         ctx.set_tagsize(4); // collective: every process must ask for the same size
///     }
///     ctx.sync();
/// })
/// .unwrap_err();
/// match err.kind() {
///     ErrorKind::Collective => println!("the processes disagreed: {err}"),
///     ErrorKind::Panic | ErrorKind::Abort => println!("a process failed: {err}"),
///     _ => println!("{err}"),
/// }
/// assert_eq!(err.kind(), ErrorKind::Collective);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A process panicked: a panic in user code, or misuse that the runtime found at a call
    /// (a pid out of range, an access past a registration's extent, ...) or in that process's
    /// part of a sync.
    Panic,
    /// A process called [`Ctx::abort`](crate::Ctx::abort).
    Abort,
    /// The processes disagreed about something collective (registrations, tag sizes, the
    /// number of syncs), found at a sync by every process; the message names the superstep.
    Collective,
    /// The run could not start: zero processes, more than one OS process can run
    /// ([`MAX_LOCAL_PROCS`](crate::MAX_LOCAL_PROCS)), a bad `BSP_*` variable, more processes
    /// than `mpirun` started ranks, or a program built without the `mpi` feature started by
    /// `mpirun` on several ranks.
    Launch,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A process panicked (including misuse detected by the runtime).
    Panic,
    /// A process called `abort`.
    Abort,
    /// The launch itself was wrong (zero processes, bad `BSP_NPROCS`).
    Launch,
}

impl Error {
    pub(crate) fn panic(pid: usize, message: String) -> Self {
        Error { pid: Some(pid), kind: Kind::Panic, message, collective: false, quiet: false }
    }

    pub(crate) fn collective(pid: usize, message: String) -> Self {
        Error { pid: Some(pid), kind: Kind::Panic, message, collective: true, quiet: false }
    }

    #[cfg_attr(not(feature = "mpi"), allow(dead_code, reason = "only the MPI engine has several OS processes"))]
    pub(crate) fn is_collective(&self) -> bool {
        self.collective
    }

    /// Marks the error as printed by another OS process (see `exit_on_error`).
    pub(crate) fn quieted(mut self) -> Self {
        self.quiet = true;
        self
    }

    pub(crate) fn is_quiet(&self) -> bool {
        self.quiet
    }

    pub(crate) fn abort(pid: usize, message: String) -> Self {
        Error { pid: Some(pid), kind: Kind::Abort, message, collective: false, quiet: false }
    }

    pub(crate) fn launch(message: String) -> Self {
        Error { pid: None, kind: Kind::Launch, message, collective: false, quiet: false }
    }

    /// The process the failure happened on (`None` for a launch error).
    pub fn pid(&self) -> Option<usize> {
        self.pid
    }

    /// The failure's message, without the process prefix.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether the run failed because a process called [`Ctx::abort`](crate::Ctx::abort).
    pub fn is_abort(&self) -> bool {
        self.kind == Kind::Abort
    }

    /// What kind of failure this is, to match on.
    ///
    /// ```
    /// use bsp_runtime::ErrorKind;
    /// let err = bsp_runtime::run(0, |_ctx| ()).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Launch);
    /// assert_eq!(err.pid(), None);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        match self.kind {
            Kind::Panic if self.collective => ErrorKind::Collective,
            Kind::Panic => ErrorKind::Panic,
            Kind::Abort => ErrorKind::Abort,
            Kind::Launch => ErrorKind::Launch,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.kind, self.pid) {
            (Kind::Abort, Some(pid)) => write!(f, "process {pid} aborted: {}", self.message),
            (_, Some(pid)) => write!(f, "process {pid} failed: {}", self.message),
            (_, None) => write!(f, "{}", self.message),
        }
    }
}

/// The message, as `Display` writes it; with `{:#?}`, the fields.
///
/// ```
/// let err = bsp_runtime::run(2, |ctx| {
///     if ctx.pid() == 1 {
///         ctx.abort("no data");
///     }
///     ctx.sync();
/// })
/// .unwrap_err();
/// assert_eq!(format!("{err:?}"), "process 1 aborted: no data");
/// assert!(format!("{err:#?}").contains("kind: Abort"));
/// ```
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            f.debug_struct("Error")
                .field("pid", &self.pid)
                .field("kind", &self.kind())
                .field("message", &self.message)
                .finish_non_exhaustive()
        } else {
            fmt::Display::fmt(self, f)
        }
    }
}

impl std::error::Error for Error {}

/// Prints `error: {error}` on standard error with one `write` call, so that the lines of
/// processes that fail at once (MPI ranks sharing `mpirun`'s stderr) do not interleave.
pub(crate) fn print_error(error: &impl std::fmt::Display) {
    use std::io::Write as _;
    let line = format!("error: {error}\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}
