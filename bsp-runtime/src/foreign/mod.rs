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

pub use crate::calls::driven_from_c;
pub use bsmp::{get_tag, hpmove, move_message, qsize, send, set_tagsize};
pub use gp::{Elements, GpTable, Packed};
pub use launch::{Session, Spmd, begin, failure, is_quiet, mpi_rank, on_mpi, procs_available};
pub use regs::Registry;

use crate::Ctx;

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
