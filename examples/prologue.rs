//! A program that reads its parameters: process 0 reads them from standard input, every
//! process gets them (`bsp::prologue`), and they compute an inner product of that length.
//!
//! Under `mpirun` only rank 0 has the standard input: reading it on every process would fail
//! on the others. `bsp::prologue` runs its closure on process 0 alone and broadcasts the result,
//! so the same program runs on threads and on MPI ranks:
//!
//! ```text
//! echo 5000 | BSP_NPROCS=4 cargo run --release --example prologue
//! cargo build --release --features mpi --example prologue
//! echo 5000 | mpirun -n 2 target/release/examples/prologue
//! ```
//!
//! The input is the vector length n, a positive integer. With no input at all (standard input
//! empty or closed, as under `cargo test`) n is 1000; on a terminal the program asks for it.
//! Anything else stops the run with a message (process 0 panics, and with it every process).
//!
//! Every process prints the parameter it received, and process 0 the result, checked against
//! the closed form `Σ (i + 1)(n − i) = n (n + 1) (n + 2) / 6`:
//!
//! ```text
//! pid 0: n = 5000
//! pid 1: n = 5000
//! x·y = 20845835000 for n = 5000 (matches the closed form)
//! ```

use std::io::{IsTerminal, Read, Write};

use bsp::{ops, Ctx};

/// The vector length when standard input has nothing to say.
const DEFAULT_N: u64 = 1000;

/// What process 0 reads: the whole of standard input, parsed as one positive integer.
fn read_n() -> u64 {
    let mut stdin = std::io::stdin();
    if stdin.is_terminal() {
        eprint!("vector length n (empty for {DEFAULT_N}): ");
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        stdin.read_line(&mut line).expect("cannot read standard input");
        return parse_n(&line);
    }
    let mut input = String::new();
    // A closed standard input (the other ranks', or `</dev/null`) reads as empty.
    let _ = stdin.read_to_string(&mut input);
    parse_n(&input)
}

fn parse_n(input: &str) -> u64 {
    let word = input.trim();
    if word.is_empty() {
        return DEFAULT_N;
    }
    match word.parse::<u64>() {
        Ok(n) if n > 0 => n,
        _ => panic!("standard input: expected the vector length n, a positive integer; found {word:?}"),
    }
}

#[bsp::program]
fn main(ctx: &mut Ctx) {
    let n = bsp::prologue(ctx, read_n);
    println!("pid {}: n = {n}", ctx.pid());

    // Cyclic distribution: element i on process i mod p, x_i = i + 1, y_i = n − i.
    let (pid, p) = (ctx.pid() as u64, ctx.nprocs() as u64);
    let mine: u64 = (pid..n).step_by(p as usize).map(|i| (i + 1) * (n - i)).sum();
    let dot = ctx.allreduce_one(mine, ops::sum);
    if ctx.pid() == 0 {
        let closed = n * (n + 1) * (n + 2) / 6;
        assert_eq!(dot, closed, "x·y for n = {n}");
        println!("x·y = {dot} for n = {n} (matches the closed form)");
    }
}
