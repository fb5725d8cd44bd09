//! What the benchmark binaries share (each includes this file as `mod common;`). `scripts/peers`
//! copies it, with `peers.rs`, into the base revision it measures: keep it to the standard
//! library.
//!
//! Not shared: `bsp-runtime/benches/mpi.rs` belongs to the `bsp-runtime` package, which is
//! published with its benches and cannot reach outside its directory; `examples/bspbench.rs` is
//! an example, a program a reader copies whole.

/// The median of `v` (the mean of the two middle values for an even count).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}
