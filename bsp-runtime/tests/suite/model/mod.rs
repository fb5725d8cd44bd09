//! The model of the BSP semantics that random programs are checked against (`property.rs` on
//! every engine, `threads/model.rs` with shrinking on threads):
//!
//! - `program.rs`: a program as data, and the events a process observes;
//! - `generator.rs`: random valid programs (collectives matching, transfers in extent, borrows
//!   respected, unbuffered transfers only where BSPlib defines them);
//! - `reference.rs`: the reference model, with the rules it implements;
//! - `interp.rs`: each process interpreting its part on the runtime;
//! - `rng.rs`: the generator's random numbers.
//!
//! The proptest strategy that shrinks a failing program and the counts of what the generator
//! produces are threads-only, beside the test that uses them (`threads/model/`).

pub mod generator;
pub mod interp;
pub mod program;
pub mod reference;
pub mod rng;
