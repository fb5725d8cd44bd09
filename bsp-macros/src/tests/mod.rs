//! Unit tests on token streams: knobs, analysis, expansions.

mod analysis;
mod expansion;
mod knobs;
mod snapshots;
