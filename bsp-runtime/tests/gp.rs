//! Global pointer arrays (§7, D17) on the threads engine: every check and failure case
//! of `suite/gp.rs` (the same run on MPI in `mpi.rs`), each a `#[test]` at its process counts
//! (`gp::on_threads::<check>`, `gp::fails_on_threads::<case>`).

mod common;

/// The engine-neutral suite, as modules of this crate (`#[path]`: a crate root would look for
/// `mod x;` beside itself).
#[path = "suite/check.rs"]
mod check;
#[path = "suite/gp.rs"]
mod gp;
