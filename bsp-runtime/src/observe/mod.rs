//! What a run can tell about itself: the statistics of each superstep (`stats`, public as
//! `bsp_runtime::stats`) and the traces written from them (`trace`: `BSP_TRACE`,
//! `BSP_TRACE_SUMMARY`).

pub mod stats;
pub(crate) mod trace;
