//! The C interface judged from C: the programs of `tests/c/` (written from the BSPlib manual
//! pages) compiled against `include/bsp.h` with warnings as errors, linked with the library
//! cargo built for this test, and run on several process counts.
//!
//! - the header against the manual and the library: every function of the manual is declared,
//!   and exported by `libbspc.so`, and nothing else named `bsp_*` is (`api.c` also checks each
//!   signature, by assignment to a pointer of the manual's type);
//! - the rules of DRMA, registration and BSMP (`drma.c`, `reg.c`, `bsmp.c`), each program
//!   checking its results with `CHECK` (which calls `bsp_abort`) and printing what it checked;
//! - the launch forms (`launch_main.c`, `launch_init.c`);
//! - every misuse (`misuse.c CASE`): exit status 1 and the exact message;
//! - Fortran programs (`tests/fortran/`) through the modules `fortran/bsp.f90` and
//!   `fortran/bsp_gp.f90`, with gfortran.
//!
//! Run directly, processes are threads and `BSP_NPROCS` gives their number. With
//! `BSPC_TEST_MPIRUN=mpirun` (and the library built with the `mpi` feature: `scripts/c-check`)
//! each run is `mpirun -n P`, and with `BSPC_TEST_THREADS=T` also `BSP_THREADS=T` on P / T ranks
//! (the hybrid engine).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// The functions of the BSPlib manual pages.
const MANUAL: [&str; 20] = [
    "bsp_begin",
    "bsp_end",
    "bsp_init",
    "bsp_abort",
    "bsp_nprocs",
    "bsp_pid",
    "bsp_time",
    "bsp_sync",
    "bsp_push_reg",
    "bsp_pop_reg",
    "bsp_put",
    "bsp_hpput",
    "bsp_get",
    "bsp_hpget",
    "bsp_set_tagsize",
    "bsp_send",
    "bsp_qsize",
    "bsp_get_tag",
    "bsp_move",
    "bsp_hpmove",
];

const PROGRAMS: [&str; 10] =
    ["api", "drma", "reg", "bsmp", "gp", "launch_main", "launch_init", "misuse", "lpf_compat", "example-hello"];

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Where cargo put the library this test was built with: beside the test, in `deps/` (the
/// copies in `target/<profile>/` are refreshed by `cargo build` only).
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    exe.parent().expect("target/<profile>/deps/<test>").to_path_buf()
}

fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".to_string())
}

/// The C file of a program: `tests/c/<name>.c`, or the example `examples/c/<name>.c` of the
/// workspace.
fn source(name: &str) -> PathBuf {
    match name.strip_prefix("example-") {
        Some(example) => crate_dir().join("../examples/c").join(format!("{example}.c")),
        None => crate_dir().join("tests/c").join(format!("{name}.c")),
    }
}

/// Compiles the program `name` (see [`source`]) against the header, linked with `libbspc.so` (or, `statically`,
/// with `libbspc.a`).
fn compile(name: &str, statically: bool) -> PathBuf {
    let out =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("bspc-{name}{}", if statically { "-static" } else { "" }));
    let lib = lib_dir();
    let mut cmd = Command::new(cc());
    cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O1", "-I"])
        .arg(crate_dir().join("include"))
        .arg("-I")
        .arg(crate_dir().join("compat"))
        .arg(source(name))
        .arg("-o")
        .arg(&out);
    if statically {
        cmd.arg(lib.join("libbspc.a")).args(["-lgcc_s", "-lutil", "-lrt", "-lpthread", "-lm", "-ldl"]);
        if cfg!(feature = "mpi") {
            // The library's MPI calls: what Open MPI's compiler wrapper links with.
            let link = Command::new("mpicc").arg("--showme:link").output().expect("mpicc (Open MPI)");
            cmd.args(text(&link.stdout).split_whitespace());
        }
    } else {
        cmd.arg("-L").arg(&lib).arg("-lbspc").arg(format!("-Wl,-rpath,{}", lib.display()));
    }
    let status = cmd.status().expect("a C compiler (cc)");
    assert!(status.success(), "compiling {name}.c failed: {cmd:?}");
    out
}

/// Whether gfortran is here; without it the Fortran tests say so and pass, unless
/// `BSPC_REQUIRE_FORTRAN` is set (scripts/c-check sets it; scripts/setup-c installs gfortran).
fn have_gfortran() -> bool {
    let found = Command::new("gfortran").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        assert!(std::env::var_os("BSPC_REQUIRE_FORTRAN").is_none(), "gfortran is needed (scripts/setup-c)");
        eprintln!("gfortran not found: the Fortran tests are skipped (scripts/setup-c installs it)");
    }
    found
}

/// The Fortran modules (`fortran/bsp.f90`, `fortran/bsp_gp.f90`) compiled once: the directory
/// of their `.mod` files and their objects.
fn fortran_modules() -> &'static (PathBuf, Vec<PathBuf>) {
    static BUILT: OnceLock<(PathBuf, Vec<PathBuf>)> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bspc-fortran");
        std::fs::create_dir_all(&dir).expect("a directory for the modules");
        let objects = ["bsp", "bsp_gp"]
            .iter()
            .map(|module| {
                let object = dir.join(format!("{module}.o"));
                let status = Command::new("gfortran")
                    .args(["-c", "-Wall", "-Wextra", "-Werror", "-J"])
                    .arg(&dir)
                    .arg(crate_dir().join(format!("fortran/{module}.f90")))
                    .arg("-o")
                    .arg(&object)
                    .status()
                    .expect("gfortran");
                assert!(status.success(), "compiling fortran/{module}.f90 failed");
                object
            })
            .collect();
        (dir, objects)
    })
}

/// Compiles the Fortran program `tests/fortran/<name>.f90` with the modules, linked with the
/// library.
fn compile_fortran(name: &str) -> PathBuf {
    let (dir, objects) = fortran_modules();
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("bspf-{name}"));
    let lib = lib_dir();
    let mut cmd = Command::new("gfortran");
    cmd.args(["-Wall", "-Wextra", "-Werror", "-I"])
        .arg(dir)
        .arg(crate_dir().join("tests/fortran").join(format!("{name}.f90")))
        .args(objects)
        .arg("-o")
        .arg(&out)
        .arg("-L")
        .arg(&lib)
        .arg("-lbspc")
        .arg(format!("-Wl,-rpath,{}", lib.display()));
    let status = cmd.status().expect("gfortran");
    assert!(status.success(), "compiling {name}.f90 failed: {cmd:?}");
    out
}

/// Runs the compiled program at `path` with `args` on `p` processes, with `input`.
fn run_path(path: &Path, args: &[&str], p: usize, input: &str) -> Option<Output> {
    let mut cmd = command(path, p)?;
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("start a test program");
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().expect("piped");
        stdin.write_all(input.as_bytes()).expect("write the input");
    }
    Some(child.wait_with_output().expect("wait for a test program"))
}

/// Every program, compiled once.
fn program(name: &str) -> &'static Path {
    static BUILT: OnceLock<Vec<(String, PathBuf)>> = OnceLock::new();
    let built = BUILT.get_or_init(|| PROGRAMS.iter().map(|n| (n.to_string(), compile(n, false))).collect());
    &built.iter().find(|(n, _)| n == name).expect("a program of tests/c").1
}

/// The threads per rank of the hybrid engine, when the tests run on it.
fn hybrid() -> Option<usize> {
    std::env::var_os("BSPC_TEST_MPIRUN")?;
    std::env::var("BSPC_TEST_THREADS").ok()?.parse().ok().filter(|&t| t > 1)
}

/// How a program is started on `p` processes: directly (threads), or by mpirun.
fn command(path: &Path, p: usize) -> Option<Command> {
    match std::env::var("BSPC_TEST_MPIRUN") {
        Ok(mpirun) => {
            let threads: usize = std::env::var("BSPC_TEST_THREADS").ok().and_then(|t| t.parse().ok()).unwrap_or(1);
            if p % threads != 0 {
                return None;
            }
            let mut cmd = Command::new(mpirun);
            cmd.arg("-n").arg((p / threads).to_string());
            if threads > 1 {
                cmd.env("BSP_THREADS", threads.to_string());
            }
            cmd.arg(path);
            cmd.env_remove("BSP_NPROCS");
            Some(cmd)
        }
        Err(_) => {
            let mut cmd = Command::new(path);
            cmd.env("BSP_NPROCS", p.to_string()).env_remove("BSP_THREADS");
            Some(cmd)
        }
    }
}

/// Runs `name` with `args` on `p` processes, with `input` on its standard input.
fn run(name: &str, args: &[&str], p: usize, input: &str) -> Option<Output> {
    run_path(program(name), args, p, input)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The lines of `s`, sorted (processes print in any order).
fn sorted_lines(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.lines().map(str::to_string).collect();
    v.sort();
    v
}

/// `s` with addresses (`0x` and hex digits) written `0x…`: they differ from run to run.
fn mask_addresses(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find("0x") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 2..];
        let digits = tail.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(tail.len());
        out.push_str(if digits > 0 { "0x…" } else { "0x" });
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

fn assert_ok(name: &str, p: usize, out: &Output) {
    assert!(
        out.status.success(),
        "{name} on {p} processes failed ({}):\nstdout:\n{}\nstderr:\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
}

#[test]
fn the_header_declares_the_manual_and_the_library_exports_it() {
    let header = std::fs::read_to_string(crate_dir().join("include/bsp.h")).expect("bsp.h");
    let declared: BTreeSet<String> = header
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with('#') && !l.starts_with('/') && !l.starts_with('*'))
        .flat_map(|l| {
            l.match_indices("bsp_").filter_map(|(at, _)| {
                let name: String = l[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                l[at + name.len()..].starts_with('(').then_some(name)
            })
        })
        .collect();
    let manual: BTreeSet<String> = MANUAL.iter().map(|s| s.to_string()).collect();
    assert_eq!(declared, manual, "bsp.h declares exactly the manual's functions");
    let nm = Command::new("nm")
        .args(["-D", "--defined-only", "--format=posix"])
        .arg(lib_dir().join("libbspc.so"))
        .output()
        .expect("nm (binutils)");
    assert!(nm.status.success());
    let exported: BTreeSet<String> = text(&nm.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|s| s.starts_with("bsp_"))
        .map(str::to_string)
        .collect();
    assert_eq!(exported, manual, "libbspc.so exports exactly the manual's functions under `bsp_`");
}

#[test]
fn every_function_links_with_the_manual_signature() {
    for p in [1, 2, 3] {
        let Some(out) = run("api", &[], p, "") else { continue };
        assert_ok("api", p, &out);
        assert_eq!(text(&out.stdout), format!("api: {p} processes\n"));
    }
}

#[test]
fn the_static_library_links_too() {
    let path = compile("api", true);
    let Some(mut cmd) = command(&path, 2) else { return };
    let out = cmd.output().expect("run");
    assert_ok("api (static)", 2, &out);
    assert_eq!(text(&out.stdout), "api: 2 processes\n");
}

/// Runs a rules program on 1 to 4 processes and checks the rules it reports.
fn rules(name: &str, expected: &[&str]) {
    for p in 1..=4 {
        let Some(out) = run(name, &[], p, "") else { continue };
        assert_ok(name, p, &out);
        let lines: Vec<String> = expected.iter().map(|r| format!("ok: {r}")).collect();
        assert_eq!(text(&out.stdout).lines().collect::<Vec<_>>(), lines, "{name} on {p} processes");
        assert_eq!(text(&out.stderr), "", "{name} on {p} processes");
    }
}

#[test]
fn drma_rules() {
    rules(
        "drma",
        &[
            "put copies its source at the call",
            "puts to one element land in ascending pid, then issue order",
            "gets read before puts land; the destination is stale until the sync",
            "a put wins over a get into the same memory",
            "the later of overlapping gets wins",
            "hpput and hpget",
            "zero-length transfers move nothing",
            "a get into registered memory",
            "runs of gets from one registration, into plain and into registered memory",
        ],
    );
}

#[test]
fn registration_rules() {
    rules(
        "reg",
        &[
            "registrations are matched by order, each with its own extents",
            "a newer registration replaces an older one until its pop takes effect",
            "bsp_push_reg is not a sync",
            "a process registers NULL to take no part",
            "a registration pushed and popped in one superstep never takes effect",
        ],
    );
}

#[test]
fn bsmp_rules() {
    rules(
        "bsmp",
        &[
            "the tag size takes effect at the next sync; bsp_set_tagsize returns the size in force",
            "bsp_qsize counts messages and payload bytes; unread messages go at the next sync",
            "messages arrive in ascending source pid, then send order",
            "bsp_move copies at most reception_nbytes",
            "bsp_hpmove",
        ],
    );
}

#[test]
fn gp_rules() {
    rules(
        "gp",
        &[
            "GP_Distribution splits the array among the processes",
            "GP_Assign_local_element makes GP_Malloc memory an element",
            "GP_Get and GP_Get_size give the patch at the sync, in GA's layout",
            "GP_Get with setbuf copies into the caller's elements",
            "GP_Gather and GP_Gather_size",
            "GP_Put and GP_Scatter land at the sync, the highest pid last",
            "GP_Memzero",
            "GP_Free_local_element, GP_Free and GP_Destroy",
        ],
    );
}

#[test]
fn lpf_bsplib_compat_rules() {
    rules(
        "lpf_compat",
        &[
            "lpf_exec runs the SPMD function on every process, with its pid, the count and the arguments",
            "bsplib_put, bsplib_get, bsplib_hpput and bsplib_hpget land at the sync",
            "bsplib_send, bsplib_hpsend, bsplib_qsize, bsplib_get_tag, bsplib_move and bsplib_hpmove",
            "lpf_exec returns LPF_SUCCESS once the run has ended",
        ],
    );
}

#[test]
fn bsp_gp_h_declares_what_the_library_exports() {
    let header = std::fs::read_to_string(crate_dir().join("include/bsp_gp.h")).expect("bsp_gp.h");
    let declared: BTreeSet<String> = header
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with('/') && !l.starts_with('*'))
        .flat_map(|l| {
            l.match_indices("GP_").filter_map(|(at, _)| {
                let name: String = l[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                l[at + name.len()..].starts_with('(').then_some(name)
            })
        })
        .collect();
    // The calls of Global Arrays' gp_api.
    let api: BTreeSet<String> = [
        "GP_Access_element",
        "GP_Allocate",
        "GP_Assign_local_element",
        "GP_Create_handle",
        "GP_Destroy",
        "GP_Distribution",
        "GP_Free",
        "GP_Free_local_element",
        "GP_Gather_size",
        "GP_Gather",
        "GP_Get_size",
        "GP_Get",
        "GP_Initialize",
        "GP_Malloc",
        "GP_Memzero",
        "GP_Put",
        "GP_Release_element",
        "GP_Release_update_element",
        "GP_Scatter",
        "GP_Set_chunk",
        "GP_Set_dimensions",
        "GP_Set_irreg_distr",
        "GP_Sync",
        "GP_Terminate",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(declared, api, "bsp_gp.h declares exactly the GP API");
    let nm = Command::new("nm")
        .args(["-D", "--defined-only", "--format=posix"])
        .arg(lib_dir().join("libbspc.so"))
        .output()
        .expect("nm (binutils)");
    let exported: BTreeSet<String> = text(&nm.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|s| s.starts_with("GP_"))
        .map(str::to_string)
        .collect();
    assert_eq!(exported, api, "libbspc.so exports exactly the GP API under `GP_`");
}

#[test]
fn bsp_begin_first_in_main_runs_main_on_every_process() {
    for p in [1, 2, 4] {
        let Some(out) = run("launch_main", &["arg"], p, "") else { continue };
        assert_ok("launch_main", p, &out);
        let mut expected: Vec<String> =
            (0..p).map(|s| format!("process {s} of {p}: right neighbour {}", (s + 1) % p)).collect();
        expected.push("after bsp_end: once".to_string());
        expected.sort();
        assert_eq!(sorted_lines(&text(&out.stdout)), expected, "launch_main on {p} processes");
    }
}

#[test]
fn bsp_init_with_the_process_count_read_from_the_input() {
    // The number of processes asked for on the input, whatever `BSP_NPROCS` says (on MPI, at
    // most the number of ranks).
    for (p, asked) in [(1, 1), (3, 2), (4, 4)] {
        if hybrid().is_some() && asked != p {
            continue; // on the hybrid engine the count must be ranks × threads, as in Rust
        }
        let Some(out) = run("launch_init", &[], p, &format!("{asked}\n")) else { continue };
        assert_ok("launch_init", p, &out);
        let mut expected: Vec<String> = (0..asked).map(|s| format!("process {s} of {asked}")).collect();
        expected.push("How many processes? ".to_string());
        expected.push(format!("done on {asked} processes"));
        expected.sort();
        assert_eq!(sorted_lines(&text(&out.stdout)), expected, "launch_init on {p} processes, {asked} asked");
    }
}

/// The misuse cases on 3 processes (the last one, 2, makes the mistake where one process
/// does), with the message each must end the program with. A mismatch found at a sync is found
/// by every process, and whichever reports it first is named: `process *`.
const MISUSE: &[(&str, &str)] = &[
    ("outside", "error: bsp_pid: called outside the SPMD part (before bsp_begin or after bsp_end)"),
    ("abort-outside", "error: aborted: stopped before bsp_begin: no input"),
    ("begin-zero", "error: bsp_begin: cannot run an SPMD program on 0 processes"),
    ("end-without-begin", "error: bsp_end: called without bsp_begin"),
    (
        "put-unregistered",
        "error: process 2 failed: bsp_put with process 0: address 0x… is not registered on this process (never pushed, or popped by an earlier sync)",
    ),
    (
        "get-unregistered",
        "error: process 2 failed: bsp_get with process 0: address 0x… is not registered on this process (never pushed, or popped by an earlier sync)",
    ),
    (
        "put-past-extent",
        "error: process 2 failed: bsp_put with process 0: registration #1 (address 0x…): offset 14 + length 4 bytes is past the extent of 16 bytes that process 0 registered",
    ),
    (
        "put-past-extent-after-puts",
        "error: process 2 failed: bsp_put with process 0: registration #1 (address 0x…): offset 14 + length 4 bytes is past the extent of 16 bytes that process 0 registered",
    ),
    ("put-negative-offset-after-puts", "error: process 2 failed: bsp_put: the offset -4 is negative"),
    ("put-bad-pid-after-puts", "error: process 2 failed: bsp_put: pid -1 is out of range (nprocs = 3)"),
    (
        "get-past-extent",
        "error: process 2 failed: bsp_get with process 0: registration #1 (address 0x…): offset 16 + length 1 bytes is past the extent of 16 bytes that process 0 registered",
    ),
    (
        "get-past-extent-after-gets",
        "error: process 2 failed: bsp_get with process 0: registration #1 (address 0x…): offset 13 + length 4 bytes is past the extent of 16 bytes that process 0 registered",
    ),
    ("get-negative-offset-after-gets", "error: process 2 failed: bsp_get: the offset -4 is negative"),
    (
        "put-before-effective",
        "error: process 2 failed: bsp_put with process 0: address 0x… (registration #1) was pushed in this superstep (0) and takes effect only at the next sync",
    ),
    (
        "put-after-pop",
        "error: process 2 failed: bsp_put with process 0: address 0x… is not registered on this process (never pushed, or popped by an earlier sync)",
    ),
    ("pop-unregistered", "error: process 2 failed: bsp_pop_reg: address 0x… is not registered on this process"),
    (
        "pop-twice",
        "error: process 2 failed: bsp_pop_reg: address 0x… (registration #1) was already popped in superstep 1",
    ),
    (
        "pop-different",
        "error: process * failed: deregistration mismatch at the sync ending superstep 1: every process must pop the same registrations with `bsp_pop_reg` in the same order, but process 0 popped [#1], process 1 popped [#1], process 2 popped [#2]",
    ),
    (
        "push-count",
        "error: process * failed: registration mismatch at the sync ending superstep 0: the processes made different numbers of registrations (`bsp_push_reg`, GP arrays; per process: [1, 1, 2])",
    ),
    ("push-negative", "error: process 2 failed: bsp_push_reg: the size -4 is negative"),
    (
        "push-null-size",
        "error: process 2 failed: bsp_push_reg: a null address with size 4 (a process that takes no part registers NULL with size 0)",
    ),
    ("put-negative-size", "error: process 2 failed: bsp_put: the length -1 is negative"),
    ("get-negative-offset", "error: process 2 failed: bsp_get: the offset -4 is negative"),
    ("put-bad-pid", "error: process 2 failed: bsp_put: pid 3 is out of range (nprocs = 3)"),
    (
        "put-null-registration",
        "error: process 2 failed: bsp_put with process 0: registration #1 (address 0x…): offset 0 + length 4 bytes is past the extent of 0 bytes that process 0 registered",
    ),
    ("tagsize-negative", "error: process 2 failed: bsp_set_tagsize: the tag size -1 is negative"),
    (
        "tagsize-different",
        "error: process * failed: tag size mismatch at the sync ending superstep 0: the processes requested different tag sizes (per process: [4, 4, 8])",
    ),
    ("send-negative", "error: process 2 failed: bsp_send: the payload length -2 is negative"),
    (
        "move-empty",
        "error: process 2 failed: bsp_move: the message queue is empty (bsp_qsize says how many messages are left)",
    ),
    ("move-negative", "error: process 2 failed: bsp_move: the reception size -1 is negative"),
    (
        "pending-at-end",
        "error: process * failed: communication queued after the last sync would never happen: process 2 has 3 puts queued at `bsp_end` in superstep 1; call `bsp_sync` before `bsp_end`",
    ),
    (
        "sync-and-end",
        "error: process * failed: process 2 reached `bsp_end` while processes 0, 1 called `bsp_sync` (superstep 0): every process must make the same number of syncs",
    ),
    (
        "begin-twice",
        "error: process 2 aborted: bsp_begin: called twice; a program has one SPMD part, from bsp_begin to bsp_end",
    ),
    (
        "gp-not-malloc",
        "error: process 2 failed: GP_Assign_local_element: address 0x… is not memory from GP_Malloc of this process (or it was freed, or it is an element's)",
    ),
    (
        "gp-not-local",
        "error: process 2 failed: GP_Access_element: element [0] of GP array -1000 is not held by process 2, which holds [2] to [2]",
    ),
    ("abort", "error: process 2 aborted: stopping: 42 is not enough"),
    (
        "gp-put-unassigned",
        "error: process 0 failed: GP array -1000: put from process 2 into element [0] (owned by process 0): the element is unassigned; assign it on its owner with `GP_Assign_local_element` before putting into it (a put writes into an existing element)",
    ),
    (
        "gp-put-too-long",
        "error: process 0 failed: GP array -1000: put from process 2 into element [0] (owned by process 0): the data has 8 bytes but the array element holds only 4; a put writes into the existing element and cannot grow it (reassign it with `GP_Assign_local_element`, or send at most 4)",
    ),
];

/// `error: process N failed: …` as `error: process * failed: …`.
fn any_pid(line: &str) -> String {
    match line.strip_prefix("error: process ").and_then(|r| r.split_once(' ')) {
        Some((pid, rest)) if pid.parse::<usize>().is_ok() => format!("error: process * {rest}"),
        _ => line.to_string(),
    }
}

#[test]
fn misuse_ends_the_program_with_the_runtime_message() {
    let mut failures = Vec::new();
    for (case, expected) in MISUSE {
        let Some(out) = run("misuse", &[case], 3, "") else { continue };
        let stderr = mask_addresses(&text(&out.stderr));
        let message: Vec<String> = stderr
            .lines()
            .filter(|l| l.starts_with("error: "))
            .map(|l| if expected.contains("process * failed") { any_pid(l) } else { l.to_string() })
            .collect();
        // Under mpirun, a mistake made outside the SPMD part is found by every rank alone, and
        // each prints it; a failure of the run is printed once for the whole job.
        let mut message = message;
        if !expected.starts_with("error: process ") {
            message.dedup();
        }
        if out.status.code() != Some(1) || message != [*expected] {
            failures.push(format!("{case}: status {}, stderr:\n{stderr}", out.status));
        }
    }
    assert!(failures.is_empty(), "misuse cases that did not end as expected:\n{}", failures.join("\n"));
}

#[test]
fn more_processes_than_ranks_is_an_error_under_mpirun() {
    let Some(out) = run("misuse", &["begin-too-many"], 3, "") else { return };
    let stderr = text(&out.stderr);
    let mut message: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error: ")).collect();
    if std::env::var_os("BSPC_TEST_MPIRUN").is_none() {
        // On threads any number of processes runs.
        assert_ok("misuse begin-too-many", 3, &out);
        return;
    }
    message.dedup();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let expected = match hybrid() {
        Some(t) => format!(
            "error: 4 processes were requested but mpirun started {} MPI {} with {t} threads each (BSP_THREADS={t}), 3 processes: ask for 3, or start ranks and threads whose product is 4",
            3 / t,
            if 3 / t == 1 { "rank" } else { "ranks" }
        ),
        None => "error: 4 processes were requested but mpirun started only 3 MPI ranks: start more ranks (`mpirun -n 4`) or ask for fewer".to_string(),
    };
    assert_eq!(message, [expected]);
}

#[test]
fn the_example_of_the_readme_runs() {
    for p in [1, 3] {
        let Some(out) = run("example-hello", &[], p, "") else { continue };
        assert_ok("examples/c/hello.c", p, &out);
        let expected: Vec<String> =
            (0..p).map(|s| format!("Hello from process {s} of {p}; my right neighbour is {}", (s + 1) % p)).collect();
        assert_eq!(sorted_lines(&text(&out.stdout)), expected);
    }
}

#[test]
fn fortran_programs_through_the_module() {
    if !have_gfortran() {
        return;
    }
    // bspbegin first in the program: registration, put and get, messages.
    let drma = compile_fortran("drma");
    for p in [1, 2, 4] {
        let Some(out) = run_path(&drma, &[], p, "") else { continue };
        assert_ok("drma.f90", p, &out);
        let mut expected: Vec<String> = (0..p)
            .map(|s| {
                let left = (s + p - 1) % p;
                format!("process {s} of {p}: got {}", 10 * left + 1)
            })
            .collect();
        expected.push("after bspend".to_string());
        expected.sort();
        assert_eq!(sorted_lines(&text(&out.stdout)), expected, "drma.f90 on {p} processes");
    }
    // bspinit with the count read from the input.
    let init = compile_fortran("init");
    for (p, asked) in [(1, 1), (3, 2), (4, 4)] {
        if hybrid().is_some() && asked != p {
            continue;
        }
        let Some(out) = run_path(&init, &[], p, &format!("{asked}\n")) else { continue };
        assert_ok("init.f90", p, &out);
        let mut expected: Vec<String> = (0..asked).map(|s| format!("process {s} of {asked}")).collect();
        expected.push(format!("done on {asked} processes"));
        expected.sort();
        assert_eq!(sorted_lines(&text(&out.stdout)), expected, "init.f90 on {p} processes");
    }
    // bspabort: status 1 and the message.
    let abort = compile_fortran("abort");
    if let Some(out) = run_path(&abort, &[], 3, "") {
        assert_eq!(out.status.code(), Some(1));
        let stderr = text(&out.stderr);
        let mut message: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error: ")).collect();
        message.dedup();
        assert_eq!(message, ["error: process 2 aborted: stopping here"]);
    }
}

#[test]
fn fortran_gp_through_the_module() {
    if !have_gfortran() {
        return;
    }
    // gp.f90 checks every result itself (bspabort otherwise); each process reports its two
    // elements and the array's total size, 4 (1 + 2 + ... + 2p) bytes.
    let gp = compile_fortran("gp");
    for p in [1, 2, 3, 4] {
        let Some(out) = run_path(&gp, &[], p, "") else { continue };
        assert_ok("gp.f90", p, &out);
        let total = 4 * (2 * p) * (2 * p + 1) / 2;
        let mut expected: Vec<String> =
            (0..p).map(|s| format!("process {s} of {p}: 2 elements, {total} bytes in all")).collect();
        expected.sort();
        assert_eq!(sorted_lines(&text(&out.stdout)), expected, "gp.f90 on {p} processes");
    }
}

#[test]
fn the_trace_works_for_c_programs() {
    // `BSP_TRACE` as for a Rust program: one track per process, the supersteps of the run.
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("bspc-trace-{}.json", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let Some(mut cmd) = command(program("example-hello"), 2) else { return };
    let out = cmd.env("BSP_TRACE", &path).output().expect("run");
    assert_ok("examples/c/hello.c with BSP_TRACE", 2, &out);
    let trace = std::fs::read_to_string(&path).expect("the trace file");
    assert!(trace.starts_with("{\"displayTimeUnit\""), "{trace}");
    for pid in 0..2 {
        assert!(trace.contains(&format!("\"name\":\"bsp process {pid}\"")), "process {pid} in {trace}");
    }
}

#[test]
fn a_misspelt_variable_is_warned_about_once_for_c_programs() {
    // As for a Rust program: a name one edit from a variable bsp reads changes nothing, and
    // the run says so once (under mpirun, by rank 0 alone).
    let Some(mut cmd) = command(program("example-hello"), 2) else { return };
    let out = cmd.env("BSP_TRACE_SUMARY", "1").output().expect("run");
    assert_ok("examples/c/hello.c with BSP_TRACE_SUMARY", 2, &out);
    let warning =
        "warning: BSP_TRACE_SUMARY is not a variable bsp reads (it changes nothing): did you mean BSP_TRACE_SUMMARY?";
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().filter(|l| *l == warning).count(), 1, "{stderr}");
}

#[test]
fn a_mismatch_every_process_finds_is_printed_once() {
    // Four processes, so that under mpirun with two threads per rank two ranks find it.
    let Some(out) = run("misuse", &["tagsize-different"], 4, "") else { return };
    let stderr = text(&out.stderr);
    let errors: Vec<String> = stderr.lines().filter(|l| l.starts_with("error: ")).map(any_pid).collect();
    let expected = "error: process * failed: tag size mismatch at the sync ending superstep 0: the processes requested different tag sizes (per process: [4, 4, 4, 8])";
    assert_eq!((out.status.code(), errors), (Some(1), vec![expected.to_string()]), "{stderr}");
}

#[test]
fn a_hang_report_names_the_c_call_and_no_line_of_the_library() {
    // On threads, where one report covers every process (under mpirun each rank reports its own).
    if std::env::var_os("BSPC_TEST_MPIRUN").is_some() {
        return;
    }
    let Some(mut cmd) = command(program("misuse"), 3) else { return };
    let out = cmd.arg("never-syncs").env("BSP_WATCHDOG", "1").output().expect("run");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    for pid in 0..2 {
        let waiting = format!("process {pid}: waiting in `bsp_sync` (superstep 0");
        assert!(stderr.contains(&waiting), "{waiting:?} in:\n{stderr}");
    }
    assert!(stderr.contains("process 2: computing in superstep 0"), "{stderr}");
    assert!(!stderr.contains(".rs:"), "a line of the library in:\n{stderr}");
}
