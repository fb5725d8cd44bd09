//! The names a message gives the calls a program makes: those of the Rust API, or those of
//! BSPlib's C functions (and GP's) when the C interface drives the runtime. Every message that
//! names a call takes the name from here, so a C or Fortran program reads `bsp_sync` where a
//! Rust program reads `sync`.

use std::sync::atomic::{AtomicBool, Ordering};

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
