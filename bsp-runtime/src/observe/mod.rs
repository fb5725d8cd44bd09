//! What a run can tell about itself: the public figures of each superstep (`stats.rs`, public
//! as `bsp_runtime::stats`), the recorder that counts and times them at every sync
//! (`recorder.rs`, also home of `Ctx::stats`), and the traces written from its records
//! (`trace/`: `BSP_TRACE`, `BSP_TRACE_SUMMARY`). The figures import neither of the others, and
//! the trace reads only the figures, so the three do not import each other in a circle.

pub(crate) mod recorder;
pub mod stats;
pub(crate) mod trace;
pub(crate) mod watch;
