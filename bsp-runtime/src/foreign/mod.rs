//! The runtime as foreign callers see it: BSPlib's C interface (the `bsplib-c` crate) is built
//! on this module. Not a Rust API: no stability promise, hidden from the docs.
//!
//! C names memory by address and has no borrows, so three things differ from the Rust API, and
//! each is built on the runtime's own machinery rather than beside it:
//!
//! - **Registration by address** ([`Registry`], `foreign/regs.rs`): `bsp_push_reg(addr, n)`
//!   pushes the byte range `[addr, addr + n)` into the process's registration table exactly as
//!   `register` pushes its memory, but without the sync: it takes effect at the next sync, as
//!   BSPlib says, and `bsp_pop_reg(addr)` likewise. The table's verdict at the sync compares the
//!   pushes and pops of every process, as for Rust programs. Communication names a registration
//!   by the address its process registered; the newest effective registration of that address
//!   is the one used.
//! - **Byte offsets and lengths, in C `int`s**: negative values are refused with a message, and
//!   every transfer is checked against the extent the target process registered before
//!   anything is queued.
//! - **GP arrays by handle** ([`GpTable`], `foreign/gp.rs`): Global Arrays' GP C API on the
//!   runtime's GP arrays, reads completed into the caller's buffers after the sync.
//! - **Launch without a closure** ([`Session`], `foreign/launch.rs`): `bsp_begin` returns to its
//!   caller, which goes on as process 0, and `bsp_end` ends the run later.
//!
//! What C can do and Rust cannot: read a get's destination or change an `hpput` source before
//! the sync. The C interface leaves them as BSPlib does: the destination holds its old value
//! until the sync, and an `hpput` source is read during the sync.

mod bsmp;
mod gp;
mod launch;
mod regs;

pub use bsmp::{get_tag, hpmove, move_message, qsize, send, set_tagsize};
pub use gp::{Elements, GpTable, Packed};
pub use launch::{Session, Spmd, begin, failure, is_quiet, mpi_rank, on_mpi, procs_available};
pub use regs::Registry;

use std::sync::atomic::{AtomicBool, Ordering};

use crate::Ctx;

/// Whether BSPlib's C interface drives the runtime in this OS process ([`driven_from_c`]).
static FROM_C: AtomicBool = AtomicBool::new(false);

/// Says that BSPlib's C interface drives the runtime in this OS process: `bsp_begin` calls it
/// before the run starts. From then on, the runtime's messages name the C functions a C or
/// Fortran program calls (`bsp_sync`, `bsp_push_reg`, `bsp_pop_reg`, `bsp_end`) where they
/// would name the Rust API's.
pub fn driven_from_c() {
    // Relaxed: set before the run starts the threads that read it (spawning a thread orders
    // what its parent did before); under mpirun each rank sets its own before its run.
    FROM_C.store(true, Ordering::Relaxed);
}

/// The names the runtime's messages give the calls a program makes: those of the Rust API, or
/// of BSPlib's C functions when the C interface drives the runtime ([`driven_from_c`]).
#[derive(Debug)]
pub(crate) struct Calls {
    /// The sync: "`sync`" or "`bsp_sync`".
    pub sync: &'static str,
    /// What makes a registration, for a count that differs between processes.
    pub registrations: &'static str,
    /// How a process pops a registration, for a pop that differs.
    pub pop: &'static str,
    /// How a process ends its SPMD part: "returned from the SPMD function" or "reached `bsp_end`".
    pub ended: &'static str,
    /// When communication left queued is found: "when the SPMD function returned" or "at `bsp_end`".
    pub at_end: &'static str,
    /// What to do about communication left queued at the end.
    pub end_advice: &'static str,
    /// Where a process waits at the end of its SPMD part, in a hang report.
    pub end: &'static str,
    /// Whether a hang report gives the line of the call a process waits in: a Rust program's
    /// line, but not the C library's own (a C or Fortran program sees the call's name alone).
    pub lines: bool,
}

const RUST_CALLS: Calls = Calls {
    sync: "`sync`",
    registrations: "`register`, `with_reg`, gp arrays",
    pop: "pop the same registrations in the same order",
    ended: "returned from the SPMD function",
    at_end: "when the SPMD function returned",
    end_advice: "end the function with `sync()`",
    end: "the end of the SPMD function",
    lines: true,
};

const C_CALLS: Calls = Calls {
    sync: "`bsp_sync`",
    registrations: "`bsp_push_reg`, GP arrays",
    pop: "pop the same registrations with `bsp_pop_reg` in the same order",
    ended: "reached `bsp_end`",
    at_end: "at `bsp_end`",
    end_advice: "call `bsp_sync` before `bsp_end`",
    end: "`bsp_end`",
    lines: false,
};

/// The names of the calls, as the program that drives the runtime knows them.
pub(crate) fn calls() -> &'static Calls {
    if FROM_C.load(Ordering::Relaxed) { &C_CALLS } else { &RUST_CALLS }
}

/// Whether BSPlib's C interface drives the runtime ([`driven_from_c`]).
pub(crate) fn from_c() -> bool {
    FROM_C.load(Ordering::Relaxed)
}

/// The name a message gives the GP operation the runtime calls `op`: the Rust method's, or
/// the C function's of `bsp_gp.h` that calls it when the C interface drives the runtime.
pub(crate) fn gp_call(op: &str) -> &str {
    if !from_c() {
        return op;
    }
    match op {
        "put" => "GP_Put",
        "get" | "get_into" => "GP_Get",
        "gather" => "GP_Gather",
        "scatter" => "GP_Scatter",
        "assign_local" => "GP_Assign_local_element",
        "access_local" => "GP_Access_element",
        _ => op,
    }
}

/// How a message writes the patch from `lo` to `hi`, both included: Rust's `lo..=hi`, or
/// `lo to hi` for a C program.
pub(crate) fn patch_text(lo: &[usize], hi: &[usize]) -> String {
    if from_c() { format!("{lo:?} to {hi:?}") } else { format!("{lo:?}..={hi:?}") }
}

/// Fails `ctx`'s process with a misuse message (`process {pid}: {msg}`), as the runtime's
/// primitives do.
#[track_caller]
fn misuse(ctx: &Ctx, msg: String) -> ! {
    ctx.fail_misuse(msg)
}

/// A C `int` size or offset as a `usize`, or a misuse naming what it is.
#[track_caller]
fn non_negative(ctx: &Ctx, op: &str, what: &str, n: i64) -> usize {
    match usize::try_from(n) {
        Ok(n) => n,
        Err(_) => misuse(ctx, format!("{op}: the {what} {n} is negative")),
    }
}
