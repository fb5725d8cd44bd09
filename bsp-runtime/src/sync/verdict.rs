//! The collective verdict of a sync: every process compares everyone's bookkeeping
//! (registrations pushed and popped, tag sizes requested) from the same data, so all reach the
//! same verdict and a mismatch fails the run identically on every process, naming the superstep.

use crate::Ctx;
use crate::engine::Peers;

impl Ctx {
    /// Compares the collective bookkeeping of every process; every process reaches the same
    /// verdict from the same data. Engine-neutral; allocates only to report a mismatch.
    pub(crate) fn check_collectives(&self, peers: &dyn Peers) {
        let p = self.nprocs;
        let step = self.step;
        let first = peers.meta(0);
        let pushes_differ = (1..p).any(|q| peers.meta(q).pushes.len() != first.pushes.len());
        if pushes_differ {
            let counts: Vec<usize> = (0..p).map(|q| peers.meta(q).pushes.len()).collect();
            let made = crate::calls::calls().registrations;
            self.fail_collective(format!(
                "registration mismatch at the sync ending superstep {step}: the processes made different numbers of registrations ({made}; per process: {counts:?})"
            ));
        }
        for (i, mine) in first.pushes.iter().enumerate() {
            for q in 1..p {
                let other = &peers.meta(q).pushes[i];
                if other.elem_size != mine.elem_size || other.type_name != mine.type_name {
                    self.fail_collective(format!(
                        "registration mismatch at the sync ending superstep {step}: registration #{} holds `{}` ({} bytes) on process 0 but `{}` ({} bytes) on process {q}",
                        mine.serial, mine.type_name, mine.elem_size, other.type_name, other.elem_size
                    ));
                }
            }
        }
        if (1..p).any(|q| peers.meta(q).pops != first.pops) {
            let pops: Vec<String> = (0..p)
                .map(|q| {
                    let ids: Vec<String> = peers.meta(q).pops.iter().map(|s| format!("#{s}")).collect();
                    format!("process {q} popped [{}]", ids.join(", "))
                })
                .collect();
            self.fail_collective(format!(
                "deregistration mismatch at the sync ending superstep {step}: every process must {}, but {}",
                crate::calls::calls().pop,
                pops.join(", ")
            ));
        }
        if (1..p).any(|q| peers.meta(q).tag_request != first.tag_request) {
            let tags: Vec<usize> = (0..p).map(|q| peers.meta(q).tag_request).collect();
            self.fail_collective(format!(
                "tag size mismatch at the sync ending superstep {step}: the processes requested different tag sizes (per process: {tags:?})"
            ));
        }
    }
}
