//! A prologue that runs once: input and setup on process 0, its result on every process.

use bsp_runtime::{Ctx, Value};

/// Runs `f` on process 0 only and returns its result on every process.
///
/// This is how a program reads its parameters: under `mpirun` only rank 0 has the standard
/// input (the other ranks' stdin is closed), and a file or a prompt should be read once, not
/// once per process. Call it from the SPMD function, as every process does (it is collective):
/// process 0 runs `f`, the others wait, and a [`broadcast`](Ctx::broadcast) hands the value to
/// all of them. It works the same on the threads engine and on MPI.
///
/// The value is plain data ([`Value`]): a number, an array, or a `#[repr(C)]` struct that derives
/// `bytemuck::Pod`; for a list, see [`prologue_vec`].
///
/// **Cost:** `f` on process 0, then 1 sync; h = `(p−1)·size_of::<T>()` bytes, sent by
/// process 0. Communication queued before it completes in the same sync.
///
/// ```
/// // On process 0: parse the parameters (here a string; a program reads its standard input).
/// let got = bsp::run(3, |ctx| {
///     let [n, reps] = bsp::prologue(ctx, || {
///         let input = "1000 5";
///         let mut words = input.split_whitespace().map(|w| w.parse::<u64>().unwrap());
///         [words.next().unwrap(), words.next().unwrap()]
///     });
///     n * reps
/// })
/// .unwrap();
/// assert_eq!(got, vec![5000; 3]);
/// ```
///
/// `examples/prologue.rs` reads its parameters from standard input this way, and runs the same
/// under `mpirun -n 2` with input on its standard input.
///
/// The processes have started when it runs, so the input cannot choose how many there are: for
/// that, read it in a set-up that runs before they start, `#[bsp::program(set_up = f)]` or
/// [`Launch::run_set_up`](crate::Launch::run_set_up) (BSPlib's `bsp_init`).
///
/// # Panics
/// If `f` panics on process 0, the run fails with its message, on every process. As
/// [`broadcast`](Ctx::broadcast) if the processes do not all call it.
#[track_caller]
pub fn prologue<T: Value>(ctx: &mut Ctx, f: impl FnOnce() -> T) -> T {
    let mine = if ctx.pid() == 0 { vec![f()] } else { Vec::new() };
    ctx.broadcast(0, &mine)[0]
}

/// Runs `f` on process 0 only and returns the elements it makes on every process (as
/// [`prologue`], for a list whose length only process 0 knows, such as a file's numbers).
///
/// **Cost:** `f` on process 0, then 1 sync; h = `(p−1)·n` elements, sent by process 0.
///
/// ```
/// let got = bsp::run(2, |ctx| bsp::prologue_vec(ctx, || "3 1 4 1 5".split(' ').map(|w| w.parse::<u32>().unwrap()).collect()))
///     .unwrap();
/// assert_eq!(got, vec![vec![3, 1, 4, 1, 5]; 2]);
/// ```
///
/// # Panics
/// As [`prologue`].
#[track_caller]
pub fn prologue_vec<T: Value>(ctx: &mut Ctx, f: impl FnOnce() -> Vec<T>) -> Vec<T> {
    let mine = if ctx.pid() == 0 { f() } else { Vec::new() };
    ctx.broadcast(0, &mine)
}
