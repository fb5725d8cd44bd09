//! The rules that read the process count from the environment (`BSP_NPROCS`), in a binary of
//! their own without a test harness: setting an environment variable is sound only while no
//! other thread may read the environment, and every launch reads it. Here `main` runs the
//! checks one after the other on its own thread, and each sets the variable only between runs,
//! when every thread of the previous run has been joined.

use bsp_runtime::{ErrorKind, Launch, MAX_LOCAL_PROCS, NPROCS_VAR, THREADS_VAR};

fn main() {
    launch_takes_the_process_count_from_the_call_then_bsp_nprocs_then_the_default();
    a_bad_process_count_is_a_launch_error();
    a_count_that_cannot_be_served_is_a_launch_error_before_allocating();
    the_set_up_chooses_the_count_and_the_value();
    println!("environment: 4 checks passed");
}

/// Sets `name` to `value` (or removes it).
fn set(name: &str, value: Option<&str>) {
    // SAFETY: as in `set_nprocs`.
    unsafe {
        match value {
            Some(v) => std::env::set_var(name, v),
            None => std::env::remove_var(name),
        }
    }
}

/// Sets `BSP_NPROCS` to `value` (or removes it).
fn set_nprocs(value: Option<&str>) {
    // SAFETY: this program has one thread between runs (no test harness, and every run has
    // joined its threads before returning), so nothing reads the environment meanwhile.
    unsafe {
        match value {
            Some(v) => std::env::set_var(NPROCS_VAR, v),
            None => std::env::remove_var(NPROCS_VAR),
        }
    }
}

/// §2.1 (number of processes): the call wins over `BSP_NPROCS`, which wins over the default;
/// with neither, the number of cores.
fn launch_takes_the_process_count_from_the_call_then_bsp_nprocs_then_the_default() {
    let nprocs = |l: Launch| l.run(|ctx| ctx.nprocs()).unwrap();
    set_nprocs(Some("3"));
    assert_eq!(nprocs(Launch::new()), [3, 3, 3]);
    assert_eq!(nprocs(Launch::new().default_procs(5)), [3, 3, 3]);
    assert_eq!(nprocs(Launch::new().procs(2)), [2, 2]);
    assert_eq!(nprocs(Launch::new().procs(2).default_procs(5)), [2, 2]);
    assert_eq!(bsp_runtime::run(2, |ctx| ctx.nprocs()).unwrap(), [2, 2]);
    assert_eq!(Launch::new().nprocs().unwrap(), 3);
    set_nprocs(None);
    assert_eq!(nprocs(Launch::new().default_procs(5)), [5; 5]);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(Launch::new().nprocs().unwrap(), cores);
    assert_eq!(nprocs(Launch::new()).len(), cores);
}

/// `BSP_NPROCS` that is 0 or not a number, and `run(0, ..)`, are launch errors without a pid.
fn a_bad_process_count_is_a_launch_error() {
    for bad in ["0", "abc", "-3", "", "2.5"] {
        set_nprocs(Some(bad));
        let err = Launch::new().run(|ctx| ctx.pid()).unwrap_err();
        assert_eq!(err.pid(), None);
        assert!(!err.is_abort());
        let text = err.to_string();
        assert!(text.contains("BSP_NPROCS") || bad == "0", "{bad:?}: {err}");
        let parts = if bad == "0" {
            vec!["0 processes".to_string()]
        } else {
            vec![format!("{bad:?}"), "positive integer".to_string()]
        };
        for part in &parts {
            assert!(text.contains(part.as_str()), "the error should mention {part:?}, but it is:\n  {text}");
        }
        assert_eq!(Launch::new().default_procs(2).nprocs().unwrap_err(), err);
        // an explicit count does not look at the variable
        assert_eq!(Launch::new().procs(2).run(|ctx| ctx.nprocs()).unwrap(), [2, 2]);
    }
    set_nprocs(None);
    let err = bsp_runtime::run(0, |ctx| ctx.pid()).unwrap_err();
    assert_eq!(err.pid(), None);
    assert_eq!(err.to_string(), "cannot run an SPMD program on 0 processes");
}

/// A count above `MAX_LOCAL_PROCS` (from `BSP_NPROCS`, `BSP_THREADS` or the code) fails the
/// launch with a message that states the limit, before the runtime allocates anything for it:
/// these counts used to abort on an allocation ("capacity overflow", or out of memory).
fn a_count_that_cannot_be_served_is_a_launch_error_before_allocating() {
    assert_eq!(MAX_LOCAL_PROCS, 8192);
    let limit = "cannot run more than 8192 processes in one OS process (one thread each); more processes run as MPI ranks (the `mpi` feature, started by mpirun)";
    let ran = std::sync::atomic::AtomicUsize::new(0);
    let count = |l: Launch| l.run(|_| ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    for big in ["18446744073709551615", "18446744073709551616", "1000000000000", "8193"] {
        set_nprocs(Some(big));
        let err = count(Launch::new()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Launch);
        assert_eq!(err.pid(), None);
        assert_eq!(err.to_string(), format!("BSP_NPROCS=\"{big}\": {limit}"));
        assert_eq!(Launch::new().default_procs(2).nprocs().unwrap_err(), err);
    }
    set_nprocs(None);
    for (launch, from) in [
        (Launch::new().procs(usize::MAX), "18446744073709551615 processes"),
        (Launch::new().procs(MAX_LOCAL_PROCS + 1), "8193 processes"),
        (Launch::new().default_procs(1 << 40), "default_procs(1099511627776)"),
    ] {
        assert_eq!(launch.nprocs().unwrap_err().to_string(), format!("{from}: {limit}"));
        assert_eq!(count(launch).unwrap_err().to_string(), format!("{from}: {limit}"));
    }
    let err = bsp_runtime::run(usize::MAX, |ctx| ctx.pid()).unwrap_err();
    assert_eq!(err.to_string(), format!("18446744073709551615 processes: {limit}"));
    // Threads per rank: refused on any engine (without mpirun they would change nothing, but
    // such a count is a mistake wherever it is written).
    let threads = "cannot run more than 8192 threads per rank (one process each); start more ranks instead";
    for big in ["99999999999", "1000000"] {
        set(THREADS_VAR, Some(big));
        let err = count(Launch::new().procs(2)).unwrap_err();
        assert_eq!(err.to_string(), format!("BSP_THREADS=\"{big}\": {threads}"));
    }
    set(THREADS_VAR, None);
    let err = count(Launch::new().procs(2).threads_per_rank(usize::MAX)).unwrap_err();
    assert_eq!(err.to_string(), format!("threads_per_rank(18446744073709551615): {threads}"));
    assert_eq!(ran.load(std::sync::atomic::Ordering::Relaxed), 0, "no process may start");
    // The limit itself is served (counted, not started: 8,192 threads are too many for a test).
    assert_eq!(Launch::new().procs(MAX_LOCAL_PROCS).nprocs().unwrap(), MAX_LOCAL_PROCS);
    assert_eq!(count(Launch::new().procs(2)).unwrap().len(), 2);
}

/// `run_set_up`: the set-up's count wins over `procs`, `default_procs` and `BSP_NPROCS`, every
/// process gets its value, and a count of 0, one above the limit or a panic in the set-up is a
/// launch error without a process started.
fn the_set_up_chooses_the_count_and_the_value() {
    set_nprocs(Some("5"));
    let got = Launch::new()
        .procs(4)
        .default_procs(6)
        .run_set_up(|| (3, [7u32, 8]), |ctx, v| (ctx.pid(), ctx.nprocs(), *v))
        .unwrap();
    assert_eq!(got, [(0, 3, [7, 8]), (1, 3, [7, 8]), (2, 3, [7, 8])]);
    // A bad BSP_NPROCS is not read either; the other variables still are.
    set_nprocs(Some("abc"));
    assert_eq!(Launch::new().run_set_up(|| (2, ()), |ctx, _| ctx.nprocs()).unwrap(), [2, 2]);
    set_nprocs(None);
    set("BSP_STATS", Some("bogus"));
    let err = Launch::new().run_set_up(|| (2, ()), |ctx, _| ctx.nprocs()).unwrap_err();
    assert!(err.message().starts_with("BSP_STATS=\"bogus\""), "{err}");
    set("BSP_STATS", None);

    let ran = std::sync::atomic::AtomicUsize::new(0);
    let count =
        |p: usize| Launch::new().run_set_up(|| (p, 0u8), |_, _| ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    assert_eq!(
        count(0).unwrap_err().to_string(),
        "the set-up asked for 0 processes: cannot run an SPMD program on 0 processes"
    );
    assert_eq!(
        count(MAX_LOCAL_PROCS + 1).unwrap_err().to_string(),
        "the set-up asked for 8193 processes: cannot run more than 8192 processes in one OS process (one thread each); more processes run as MPI ranks (the `mpi` feature, started by mpirun)"
    );
    let err = Launch::new()
        .run_set_up(
            || -> (usize, u8) { panic!("no input") },
            |_, _| ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        )
        .unwrap_err();
    assert_eq!((err.kind(), err.to_string().as_str()), (ErrorKind::Panic, "process 0 failed: no input"));
    assert_eq!(ran.load(std::sync::atomic::Ordering::Relaxed), 0, "no process may start");
}
