//! Global pointer arrays: Global Arrays' GP API on the BSP runtime (work in progress).

pub mod distribution;

pub use distribution::Distribution;
