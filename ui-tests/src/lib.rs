//! Compile-fail and compile-pass tests of `bsp` (`tests/ui.rs`) and the expansion snapshots of
//! the examples (`expand/`, checked by `tests/expand.rs`); see `README.md`.
