//! Compile-fail and compile-pass tests of `bsp` (see `tests/ui.rs`).
