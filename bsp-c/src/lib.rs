//! BSPlib's C interface (`include/bsp.h`) on the `bsp` runtime: every function of the BSPlib
//! manual pages, exported with the manual's C signatures from `libbspc.a` and `libbspc.so`, and
//! Global Arrays' GP C API (`include/bsp_gp.h`, `gp.rs`).
//!
//! Each function finds the calling thread's process (set by `bsp_begin`), and calls the
//! runtime: its registration table, outbox and sync through `bsp_runtime::foreign`, which adds
//! what C needs (registration by address with BSPlib's timing, launch without a closure). A
//! misuse, a failed collective check or `bsp_abort` ends the program: the run's first failure
//! is printed as `error: process P failed: …` (or `aborted: …`) and the program exits with
//! status 1.
//!
//! The launch follows BSPlib: `bsp_begin(P)` on the thread that calls it starts the run and
//! goes on as process 0; the other processes run the function given to `bsp_init`, or `main`
//! again, from the start, where their own `bsp_begin` joins the run; their `bsp_end` leaves
//! that function (`csrc/shim.c`). Under `mpirun` every rank runs `main` itself.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;
use std::sync::{Arc, Mutex, Once};

use bsp_runtime::Ctx;
use bsp_runtime::foreign::{self, GpTable, Registry, Session};

/// An SPMD function as `bsp_init` receives it.
type SpmdFn = extern "C" fn();

unsafe extern "C" {
    /// Runs `spmd` (or `main` again if it is `None`) until it returns or calls `bsp_end`;
    /// returns 0 if there was nothing to run.
    fn bspc_run_spmd(spmd: Option<SpmdFn>) -> c_int;
    /// Back to `bspc_run_spmd`, leaving the SPMD function (`bsp_end` on a process that does not
    /// go on).
    fn bspc_leave() -> !;
    /// The arguments `main` is run again with.
    fn bspc_set_arguments(argc: c_int, argv: *mut *mut c_char);
    /// The calling thread's process, as [`bspc_set_current`] left it (null at first): what
    /// [`current`] reads inline on x86-64 Linux.
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    fn bspc_current() -> *mut c_void;
    /// Its context, as [`bspc_set_current`] left it (null at first): what [`current_ctx`]
    /// reads inline on x86-64 Linux.
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    fn bspc_current_context() -> *mut c_void;
    /// Sets the calling thread's process and its context.
    fn bspc_set_current(proc: *mut c_void, ctx: *mut c_void);
}

mod gp;

/// The process of the calling thread, between `bsp_begin` and `bsp_end`.
struct Proc {
    ctx: *mut Ctx,
    regs: Registry,
    /// Its GP arrays (`bsp_gp.h`).
    gp: GpTable,
    /// On the thread that started the run: its process, which `bsp_end` ends.
    session: Option<Box<Session>>,
    /// Whether this thread's `bsp_begin` was made (the processes started by the run are set
    /// up before their SPMD function calls it).
    begun: bool,
}

/// Reads the shim's initial-exec thread-local variable `$name` (a pointer) with one load from
/// the thread pointer: its offset from %fs is in the GOT entry `@GOTTPOFF` names, so this works
/// in `libbspc.so` and in `libbspc.a` alike.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
macro_rules! thread_local_of_the_shim {
    ($name:literal) => {{
        let p: *mut c_void;
        // SAFETY: reads the calling thread's own copy of a pointer-sized `__thread` variable of
        // the shim, of the initial-exec model. Nothing is written, and the stack is not touched.
        unsafe {
            std::arch::asm!(
                concat!("mov {p}, qword ptr [rip + ", $name, "@GOTTPOFF]"),
                "mov {p}, qword ptr fs:[{p}]",
                p = out(reg) p,
                options(pure, readonly, nostack, preserves_flags),
            );
        }
        p
    }};
}

/// The calling thread's process (null outside `bsp_begin` .. `bsp_end`): a thread-local
/// variable of the C shim (`csrc/shim.c`), read inline on x86-64 Linux, elsewhere through the
/// shim.
#[inline(always)]
fn current() -> *mut Proc {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    let p = thread_local_of_the_shim!("bspc_current_proc");
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    // SAFETY: reads the calling thread's own variable.
    let p = unsafe { bspc_current() };
    p.cast()
}

/// The context of the calling thread's process (`(*current()).ctx`, or null), which the shim
/// keeps beside it: the quick path of `bsp_put` needs nothing else.
#[inline(always)]
fn current_ctx() -> *const Ctx {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    let c = thread_local_of_the_shim!("bspc_current_ctx");
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    // SAFETY: reads the calling thread's own variable.
    let c = unsafe { bspc_current_context() };
    c.cast_const().cast()
}

/// Sets the calling thread's process (and its context, `proc.ctx`, which is set first and
/// does not change while the process is current).
fn set_current(proc: *mut Proc) {
    // SAFETY: `proc` is null or a live `Proc` (the callers').
    let ctx = if proc.is_null() { ptr::null_mut() } else { unsafe { (*proc).ctx } };
    // SAFETY: writes the calling thread's own variables.
    unsafe { bspc_set_current(proc.cast(), ctx.cast()) }
}

/// The SPMD function given to `bsp_init`.
static SPMD: Mutex<Option<SpmdFn>> = Mutex::new(None);

/// Serialises the end of the program after a failure: the first process to report it exits.
static REPORT: Mutex<bool> = Mutex::new(false);

/// Prints `message` as the runtime prints a failed run (unless it was printed already) and
/// exits with status 1; a second caller waits for the first one's exit.
fn exit_with(message: Option<&str>) -> ! {
    let mut reported = REPORT.lock().unwrap_or_else(|e| e.into_inner());
    if *reported {
        drop(reported);
        loop {
            std::thread::park();
        }
    }
    *reported = true;
    if let Some(message) = message {
        // One write: under mpirun the ranks' stderr lines are merged, and `eprintln!` may write
        // a line in pieces that another rank's line would split.
        use std::io::Write as _;
        let _ = std::io::stderr().write_all(format!("error: {message}\n").as_bytes());
    }
    std::process::exit(1)
}

/// Ends the program after `proc`'s process unwound with `payload`: the run's first failure is
/// printed once, and the program exits with status 1 (on MPI, as the engine reports failures:
/// `Session::failed`).
fn fail(proc: &mut Proc, payload: Box<dyn std::any::Any + Send>) -> ! {
    // SAFETY: as in `with_proc`; the reference of the failed call is gone.
    let error = foreign::failure(unsafe { &*proc.ctx }, payload);
    let error = match proc.session.as_mut() {
        Some(session) => session.failed(error),
        None if foreign::on_mpi() => {
            // A process of a hybrid rank other than its first. Its failure is recorded, which
            // wakes the rank's first process if it waits in the runtime; that process reports
            // the failure for the whole job (once, by rank 0, when every rank found it alike:
            // `Session::failed`) and ends the program. This thread waits for that, for a
            // second at most: if the first process computes, this one reports it.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
            while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
                std::thread::park_timeout(left);
            }
            error
        }
        None => error,
    };
    if foreign::is_quiet(&error) { exit_with(None) } else { exit_with(Some(&error.to_string())) }
}

/// Runs `f` on the calling thread's process; a failure ends the program (`fail`).
fn with_proc<R>(op: &str, f: impl FnOnce(&mut Ctx, &mut Registry) -> R) -> R {
    with_all(op, |ctx, regs, _| f(ctx, regs))
}

/// [`with_proc`] with the process's GP arrays too.
fn with_all<R>(op: &str, f: impl FnOnce(&mut Ctx, &mut Registry, &mut GpTable) -> R) -> R {
    let p = current();
    if p.is_null() {
        exit_with(Some(&format!("{op}: called outside the SPMD part (before bsp_begin or after bsp_end)")));
    }
    // SAFETY: `current()` points to this thread's live `Proc` (set by `bsp_begin` or by the run for
    // a process it starts, cleared before it is dropped), used by this thread only, and no
    // other reference to it is alive: the library's functions do not call each other.
    let proc = unsafe { &mut *p };
    // SAFETY: `proc.ctx` is the process's context, alive while `proc` is (owned by its session,
    // or by the runtime's frame that runs this thread's SPMD function).
    let ctx = unsafe { &mut *proc.ctx };
    match catch_unwind(AssertUnwindSafe(|| f(ctx, &mut proc.regs, &mut proc.gp))) {
        Ok(r) => r,
        Err(payload) => fail(proc, payload),
    }
}

/// Misuse messages are printed once, as the run's error, by `fail`: the default panic hook
/// would print them a second time.
fn quiet_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|_| {})));
}

/// The SPMD function of a process the run starts on a thread of its own: the C function, with
/// this thread's `Proc` set for its duration.
fn run_started(ctx: &mut Ctx, spmd: Option<SpmdFn>) {
    let mut proc = Proc { ctx, regs: Registry::default(), gp: GpTable::default(), session: None, begun: false };
    set_current(&mut proc);
    // SAFETY: the shim runs the C function on this thread and returns when it returns or calls
    // `bsp_end` (whose longjmp crosses only C frames and `bsp_end`'s, which holds nothing).
    let ran = unsafe { bspc_run_spmd(spmd) };
    set_current(ptr::null_mut());
    if ran == 0 {
        ctx.abort(
            "bsp_begin: the SPMD function is `main`, which this program does not have in C; name it with bsp_init",
        );
    }
}

/// `void bsp_init(void (*spmd)(void), int argc, char **argv)`
///
/// # Safety
/// `argv` must be `main`'s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bsp_init(spmd: Option<SpmdFn>, argc: c_int, argv: *mut *mut c_char) {
    *SPMD.lock().unwrap_or_else(|e| e.into_inner()) = spmd;
    // SAFETY: plain stores of the arguments the shim keeps for running `main` again.
    unsafe { bspc_set_arguments(argc, argv) };
    // Under mpirun every rank runs `main`; the sequential part before the SPMD function (which
    // may read the input, as BSPedupack's programs read the number of processes) is rank 0's
    // alone: the other ranks go straight to the SPMD function, where `bsp_begin` learns rank 0's
    // number of processes, and end with it.
    if let (Some(rank), Some(spmd)) = (foreign::mpi_rank(), spmd)
        && rank != 0
    {
        spmd();
        std::process::exit(0);
    }
}

/// `void bsp_begin(int maxprocs)`
#[unsafe(no_mangle)]
pub extern "C" fn bsp_begin(maxprocs: c_int) {
    let p = current();
    if !p.is_null() {
        // SAFETY: as in `with_proc`.
        let proc = unsafe { &mut *p };
        if proc.begun {
            with_proc("bsp_begin", |ctx, _| -> () {
                ctx.abort("bsp_begin: called twice; a program has one SPMD part, from bsp_begin to bsp_end")
            });
        }
        proc.begun = true;
        return;
    }
    quiet_panics();
    foreign::driven_from_c();
    let spmd = *SPMD.lock().unwrap_or_else(|e| e.into_inner());
    let started: foreign::Spmd = Arc::new(move |ctx: &mut Ctx| run_started(ctx, spmd));
    let session = match foreign::begin(i64::from(maxprocs), started) {
        Ok(s) => Box::new(s),
        Err(e) => exit_with((!foreign::is_quiet(&e)).then(|| e.to_string()).as_deref()),
    };
    let proc = Box::new(Proc {
        ctx: ptr::null_mut(),
        regs: Registry::default(),
        gp: GpTable::default(),
        session: Some(session),
        begun: true,
    });
    let proc = Box::into_raw(proc);
    // SAFETY: just allocated; the context lives in the boxed session, whose address is stable.
    unsafe { (*proc).ctx = (*proc).session.as_mut().expect("set above").ctx() };
    set_current(proc);
}

/// `void bsp_end(void)`
#[unsafe(no_mangle)]
pub extern "C" fn bsp_end() {
    let p = current();
    if p.is_null() {
        exit_with(Some("bsp_end: called without bsp_begin"));
    }
    // SAFETY: as in `with_proc`.
    if unsafe { (*p).session.is_none() } {
        // A process the run started: leave its SPMD function; the runtime ends the process.
        // SAFETY: this thread is inside `bspc_run_spmd` (`run_started`); nothing in this frame
        // needs dropping.
        unsafe { bspc_leave() }
    }
    set_current(ptr::null_mut());
    // SAFETY: `p` came from `Box::into_raw` in `bsp_begin` and is no longer reachable.
    let mut proc = unsafe { Box::from_raw(p) };
    let session = proc.session.take().expect("checked above");
    if let Err(e) = session.end() {
        exit_with((!foreign::is_quiet(&e)).then(|| e.to_string()).as_deref());
    }
}

/// The message of `bsp_abort`, formatted by the shim.
///
/// # Safety
/// `message` must be a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bspc_abort_message(message: *const c_char) -> ! {
    // SAFETY: the caller's contract.
    let text = unsafe { CStr::from_ptr(message) }.to_string_lossy().into_owned();
    let text = text.trim_end_matches('\n');
    if current().is_null() {
        // Outside the SPMD part (BSPlib allows bsp_abort anywhere): this program alone stops.
        exit_with(Some(&format!("aborted: {text}")));
    }
    with_proc("bsp_abort", |ctx, _| ctx.abort(text))
}

/// `void bsp_abort(const char *format, ...)`: a jump to the shim's `bspc_abort_format` with
/// the arguments untouched (a variadic function cannot be written in stable Rust, and the C
/// shim's own symbols are not exported from the shared library).
#[cfg(target_arch = "x86_64")]
#[unsafe(naked)]
#[unsafe(no_mangle)]
pub extern "C" fn bsp_abort() {
    std::arch::naked_asm!("jmp {f}", f = sym bspc_abort_format)
}

/// `void bsp_abort(const char *format, ...)` (see the x86-64 version).
#[cfg(target_arch = "aarch64")]
#[unsafe(naked)]
#[unsafe(no_mangle)]
pub extern "C" fn bsp_abort() {
    std::arch::naked_asm!("b {f}", f = sym bspc_abort_format)
}

unsafe extern "C" {
    /// The shim's body of `bsp_abort` (declared here without its variadic part: it is only
    /// jumped to).
    fn bspc_abort_format();
}

/// `int bsp_nprocs(void)`: before `bsp_begin`, the number of processes available.
#[unsafe(no_mangle)]
pub extern "C" fn bsp_nprocs() -> c_int {
    if current().is_null() {
        return match foreign::procs_available() {
            Ok(p) => c_int::try_from(p).unwrap_or(c_int::MAX),
            Err(e) => exit_with(Some(&e.to_string())),
        };
    }
    with_proc("bsp_nprocs", |ctx, _| ctx.nprocs() as c_int)
}

/// `int bsp_pid(void)`
#[unsafe(no_mangle)]
pub extern "C" fn bsp_pid() -> c_int {
    with_proc("bsp_pid", |ctx, _| ctx.pid() as c_int)
}

/// `double bsp_time(void)`
#[unsafe(no_mangle)]
pub extern "C" fn bsp_time() -> f64 {
    with_proc("bsp_time", |ctx, _| ctx.time())
}

/// `void bsp_sync(void)`
#[unsafe(no_mangle)]
pub extern "C" fn bsp_sync() {
    with_all("bsp_sync", |ctx, _, gp| {
        ctx.sync();
        gp.complete(ctx);
    })
}

/// `void bsp_push_reg(const void *ident, int size)`
///
/// # Safety
/// `ident` must point to `size` bytes that stay valid until the registration ends.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bsp_push_reg(ident: *const c_void, size: c_int) {
    // SAFETY: the caller's contract.
    with_proc("bsp_push_reg", |ctx, regs| unsafe { regs.push(ctx, ident.cast(), i64::from(size)) })
}

/// `void bsp_pop_reg(const void *ident)`
#[unsafe(no_mangle)]
pub extern "C" fn bsp_pop_reg(ident: *const c_void) {
    with_proc("bsp_pop_reg", |ctx, regs| regs.pop(ctx, ident.cast()))
}

/// `void bsp_put(int pid, const void *src, void *dst, int offset, int nbytes)`
///
/// # Safety
/// `src` must point to `nbytes` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bsp_put(pid: c_int, src: *const c_void, dst: *mut c_void, offset: c_int, nbytes: c_int) {
    // The quick path makes no call and never panics, so it needs no unwinding guard.
    // SAFETY: the caller's contract.
    if unsafe { quick_put::<true>(pid, src, dst, offset, nbytes) } {
        return;
    }
    // SAFETY: the caller's contract.
    unsafe { put_more(pid, src, dst, offset, nbytes) }
}

/// The runtime's quick path of a put (`Registry::quick_put`, `IN_PLACE`: only where the queue
/// has room, with no call) for this thread's process, if it has one; whether it queued it.
///
/// # Safety
/// As [`bsp_put`].
#[inline(always)]
unsafe fn quick_put<const IN_PLACE: bool>(
    pid: c_int,
    src: *const c_void,
    dst: *mut c_void,
    offset: c_int,
    nbytes: c_int,
) -> bool {
    let ctx = current_ctx();
    if ctx.is_null() {
        return false;
    }
    // SAFETY: the context of this thread's live `Proc` (as in `with_all`), only read here; no
    // other reference to it is alive (the library's functions do not call each other). The
    // rest is the caller's contract.
    unsafe {
        Registry::quick_put::<IN_PLACE>(
            &*ctx,
            pid.into(),
            src.cast(),
            dst.cast_const().cast(),
            offset.into(),
            nbytes.into(),
        )
    }
}

/// The rest of [`bsp_put`]: the quick path where the queue must be looked up or grow, or the put
/// goes to another process, else the checked path.
///
/// # Safety
/// As [`bsp_put`].
#[inline(never)]
unsafe fn put_more(pid: c_int, src: *const c_void, dst: *mut c_void, offset: c_int, nbytes: c_int) {
    // SAFETY: the caller's contract; this path never panics either.
    if unsafe { quick_put::<false>(pid, src, dst, offset, nbytes) } {
        return;
    }
    with_proc("bsp_put", |ctx, regs| {
        // SAFETY: the caller's contract.
        unsafe { regs.put(ctx, pid.into(), src.cast(), dst.cast_const().cast(), offset.into(), nbytes.into()) }
    })
}

/// `void bsp_hpput(int pid, const void *src, void *dst, int offset, int nbytes)`
///
/// # Safety
/// `src` must point to `nbytes` bytes that stay readable and unchanged until the end of the
/// next sync.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bsp_hpput(pid: c_int, src: *const c_void, dst: *mut c_void, offset: c_int, nbytes: c_int) {
    with_proc("bsp_hpput", |ctx, regs| {
        // SAFETY: the caller's contract.
        unsafe { regs.hpput(ctx, pid.into(), src.cast(), dst.cast_const().cast(), offset.into(), nbytes.into()) }
    })
}

/// `void bsp_get(int pid, const void *src, int offset, void *dst, int nbytes)`
///
/// # Safety
/// `dst` must point to `nbytes` bytes that stay writable, and untouched by the program, until
/// the end of the next sync.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bsp_get(pid: c_int, src: *const c_void, offset: c_int, dst: *mut c_void, nbytes: c_int) {
    // SAFETY: the caller's contract.
    if unsafe { quick_get(pid, src, offset, dst, nbytes) } {
        return;
    }
    with_proc("bsp_get", |ctx, regs| {
        // SAFETY: the caller's contract.
        unsafe { regs.get(ctx, "bsp_get", pid.into(), src.cast(), offset.into(), dst.cast(), nbytes.into()) }
    })
}

/// `void bsp_hpget(int pid, const void *src, int offset, void *dst, int nbytes)`
///
/// # Safety
/// As [`bsp_get`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bsp_hpget(pid: c_int, src: *const c_void, offset: c_int, dst: *mut c_void, nbytes: c_int) {
    // SAFETY: the caller's contract.
    if unsafe { quick_get(pid, src, offset, dst, nbytes) } {
        return;
    }
    with_proc("bsp_hpget", |ctx, regs| {
        // SAFETY: the caller's contract.
        unsafe { regs.get(ctx, "bsp_hpget", pid.into(), src.cast(), offset.into(), dst.cast(), nbytes.into()) }
    })
}

/// The quick path of a get (`Registry::quick_get`: one from the address and process of the last
/// get checked in full) for this thread's process, if it has one; whether it queued it. It
/// makes no call and never panics, so it needs no unwinding guard.
///
/// # Safety
/// As [`bsp_get`].
#[inline(always)]
unsafe fn quick_get(pid: c_int, src: *const c_void, offset: c_int, dst: *mut c_void, nbytes: c_int) -> bool {
    let p = current();
    if p.is_null() {
        return false;
    }
    // SAFETY: as in `with_all`: this thread's live `Proc` and its context, only read here.
    let (regs, ctx) = unsafe { (&(*p).regs, &*(*p).ctx) };
    // SAFETY: the caller's contract.
    unsafe { regs.quick_get(ctx, pid.into(), src.cast(), offset.into(), dst.cast(), nbytes.into()) }
}

/// `void bsp_set_tagsize(int *tag_nbytes)`
///
/// # Safety
/// `tag_nbytes` must point to an `int`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bsp_set_tagsize(tag_nbytes: *mut c_int) {
    with_proc("bsp_set_tagsize", |ctx, _| {
        if tag_nbytes.is_null() {
            ctx.abort("bsp_set_tagsize: the argument is NULL");
        }
        // SAFETY: the caller's contract (not null, checked above).
        let asked = unsafe { *tag_nbytes };
        let old = foreign::set_tagsize(ctx, asked.into());
        // SAFETY: as above.
        unsafe { *tag_nbytes = old as c_int };
    })
}

/// `void bsp_send(int pid, const void *tag, const void *payload, int payload_nbytes)`
///
/// # Safety
/// `tag` must point to as many bytes as the tag size in force, `payload` to `payload_nbytes`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bsp_send(pid: c_int, tag: *const c_void, payload: *const c_void, payload_nbytes: c_int) {
    with_proc("bsp_send", |ctx, _| {
        // SAFETY: the caller's contract.
        unsafe { foreign::send(ctx, pid.into(), tag.cast(), payload.cast(), payload_nbytes.into()) }
    })
}

/// `void bsp_qsize(int *nmessages, int *accum_nbytes)`; either may be NULL.
///
/// # Safety
/// Each argument must be NULL or point to an `int`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bsp_qsize(nmessages: *mut c_int, accum_nbytes: *mut c_int) {
    let (n, bytes) = with_proc("bsp_qsize", |ctx, _| foreign::qsize(ctx));
    // SAFETY: the caller's contract; NULL is skipped.
    unsafe {
        if let Some(out) = nmessages.as_mut() {
            *out = c_int::try_from(n).unwrap_or(c_int::MAX);
        }
        if let Some(out) = accum_nbytes.as_mut() {
            *out = c_int::try_from(bytes).unwrap_or(c_int::MAX);
        }
    }
}

/// `void bsp_get_tag(int *status, void *tag)`
///
/// # Safety
/// `status` must point to an `int`, `tag` to as many bytes as the queue's tag size.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bsp_get_tag(status: *mut c_int, tag: *mut c_void) {
    with_proc("bsp_get_tag", |ctx, _| {
        if status.is_null() {
            ctx.abort("bsp_get_tag: the status argument is NULL");
        }
        // SAFETY: the caller's contract.
        let len = unsafe { foreign::get_tag(ctx, tag.cast()) };
        let value = len.map_or(-1, |n| c_int::try_from(n).unwrap_or(c_int::MAX));
        // SAFETY: the caller's contract (not null, checked above).
        unsafe { *status = value };
    })
}

/// `void bsp_move(void *payload, int reception_nbytes)`
///
/// # Safety
/// `payload` must point to `reception_nbytes` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bsp_move(payload: *mut c_void, reception_nbytes: c_int) {
    with_proc("bsp_move", |ctx, _| {
        // SAFETY: the caller's contract.
        unsafe { foreign::move_message(ctx, payload.cast(), reception_nbytes.into()) }
    })
}

/// `int bsp_hpmove(void **tag_ptr_buf, void **payload_ptr_buf)`
///
/// # Safety
/// Both arguments must point to a `void *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bsp_hpmove(tag_ptr_buf: *mut *mut c_void, payload_ptr_buf: *mut *mut c_void) -> c_int {
    with_proc("bsp_hpmove", |ctx, _| {
        if tag_ptr_buf.is_null() || payload_ptr_buf.is_null() {
            ctx.abort("bsp_hpmove: an argument is NULL");
        }
        match foreign::hpmove(ctx) {
            None => -1,
            Some((tag, payload, len)) => {
                // SAFETY: the caller's contract (not null, checked above).
                unsafe {
                    *tag_ptr_buf = tag.cast_mut().cast();
                    *payload_ptr_buf = payload.cast_mut().cast();
                }
                c_int::try_from(len).unwrap_or(c_int::MAX)
            }
        }
    })
}
