//! Where the processes run: one per core, when there are enough cores (what MulticoreBSP does).
//!
//! Linux starts a new thread on the core of the thread that created it and, on virtual machines
//! especially (an idle virtual CPU counts as unavailable), may keep both there for tens of ms,
//! and puts a woken thread back beside its waker. Two processes on one core make every sync cost
//! a context switch (~3–10 µs instead of ~0.1 µs). So when a run has at most as many processes
//! as the calling thread may use cores, process `pid` pins itself to the `pid`-th of those cores
//! for the run, and restores its affinity when its SPMD function returns (process 0 is the
//! caller's thread). A nested run inherits a single-core affinity and so pins nothing. Set
//! `BSP_PIN=0` to leave placement to the OS.
//!
//! Linux only; elsewhere, and when a call fails, processes run where the OS puts them.

#[cfg(target_os = "linux")]
mod linux {
    /// `cpu_set_t` of glibc and musl: 1024 bits.
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub(super) struct CpuSet([u64; 16]);

    unsafe extern "C" {
        fn sched_getaffinity(pid: i32, size: usize, mask: *mut CpuSet) -> i32;
        fn sched_setaffinity(pid: i32, size: usize, mask: *const CpuSet) -> i32;
    }

    pub(super) fn get() -> Option<CpuSet> {
        let mut set = CpuSet([0; 16]);
        // SAFETY: `set` is a writable `cpu_set_t` of the size passed; pid 0 is this thread.
        let rc = unsafe { sched_getaffinity(0, std::mem::size_of::<CpuSet>(), &mut set) };
        (rc == 0).then_some(set)
    }

    pub(super) fn set(set: &CpuSet) -> bool {
        // SAFETY: `set` is a readable `cpu_set_t` of the size passed; pid 0 is this thread.
        unsafe { sched_setaffinity(0, std::mem::size_of::<CpuSet>(), set) == 0 }
    }

    impl CpuSet {
        pub(super) fn cpus(&self) -> impl Iterator<Item = usize> + '_ {
            (0..1024).filter(|&c| self.0[c / 64] & (1 << (c % 64)) != 0)
        }

        pub(super) fn only(cpu: usize) -> Self {
            let mut s = CpuSet([0; 16]);
            s.0[cpu / 64] |= 1 << (cpu % 64);
            s
        }
    }
}

/// The affinity to restore when a process leaves its core (`None`, the default: nothing to
/// restore).
#[derive(Default)]
pub(crate) struct Placed(#[cfg(target_os = "linux")] Option<linux::CpuSet>);

/// Pins the calling thread (process `pid` of `nprocs`) to a core of its own, if the cores this
/// thread may use are at least `nprocs`. Returns what `release` needs to undo it.
pub(crate) fn pin(pid: usize, nprocs: usize) -> Placed {
    #[cfg(target_os = "linux")]
    {
        if std::env::var_os("BSP_PIN").is_some_and(|v| v == "0") {
            return Placed(None);
        }
        let Some(allowed) = linux::get() else { return Placed(None) };
        let cpus: Vec<usize> = allowed.cpus().collect();
        if nprocs < 2 || nprocs > cpus.len() {
            return Placed(None);
        }
        Placed(linux::set(&linux::CpuSet::only(cpus[pid])).then_some(allowed))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pid, nprocs);
        Placed()
    }
}

/// Gives the calling thread its affinity back.
pub(crate) fn release(placed: Placed) {
    #[cfg(target_os = "linux")]
    if let Some(allowed) = placed.0 {
        linux::set(&allowed);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = placed;
}
