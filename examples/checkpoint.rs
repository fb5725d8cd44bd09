//! A long run that survives a lost process: `ctx.checkpoint` at the top of its loop saves the
//! registered cells, the messages in flight and the iteration number; a rerun with `BSP_RESTART`
//! goes on from the last checkpoint and prints what the uninterrupted run prints.
//!
//! Each of 40 iterations mixes every process's 8 cells, puts its last cell into its right
//! neighbour's second cell, and sends its fourth cell to its left neighbour, which adds it into
//! its first cell in the next iteration (so a message crosses every checkpoint). At the end each
//! process prints its cells' checksum, checked against the same iterations computed sequentially:
//!
//! ```text
//! BSP_NPROCS=3 BSP_CHECKPOINT=/tmp/ck cargo run --release --example checkpoint -- --pause-ms 50
//! # stop it with Ctrl-C (or kill -9) after a few iterations, then:
//! BSP_NPROCS=3 BSP_RESTART=/tmp/ck cargo run --release --example checkpoint
//! ```
//!
//! `--pause-ms N` makes each iteration last N ms more (to watch it, or stop it half-way); process 0
//! reports each iteration on standard error.

use bsp::Ctx;

const ITERATIONS: u64 = 40;
const CELLS: usize = 8;

/// One iteration's work on one process's cells, given the payload of the message it received.
fn mix(cells: &mut [u64], received: u64, iteration: u64) {
    cells[0] = cells[0].wrapping_add(received);
    for (i, c) in cells.iter_mut().enumerate() {
        *c = c.wrapping_mul(31).wrapping_add(i as u64 + iteration);
    }
}

/// The initial cells of process `pid`.
fn initial(pid: usize) -> [u64; CELLS] {
    std::array::from_fn(|i| (pid * CELLS + i) as u64)
}

fn checksum(cells: &[u64]) -> u64 {
    cells.iter().fold(17, |h, &c| h.wrapping_mul(1_000_003) ^ c)
}

/// The cells of every process after all iterations, computed on one process.
fn sequential(p: usize) -> Vec<[u64; CELLS]> {
    let mut cells: Vec<[u64; CELLS]> = (0..p).map(initial).collect();
    let mut inbox = vec![0u64; p];
    for iteration in 0..ITERATIONS {
        for (q, c) in cells.iter_mut().enumerate() {
            mix(c, inbox[q], iteration);
        }
        let (last, fourth): (Vec<u64>, Vec<u64>) = cells.iter().map(|c| (c[CELLS - 1], c[3])).unzip();
        for q in 0..p {
            cells[(q + 1) % p][1] = last[q]; // the put lands at the sync
            inbox[(q + p - 1) % p] = fourth[q]; // the message is read next iteration
        }
    }
    cells
}

fn pause_ms() -> u64 {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == "--pause-ms") {
        Some(i) => args.get(i + 1).and_then(|v| v.parse().ok()).expect("--pause-ms takes a number of milliseconds"),
        None => 0,
    }
}

#[bsp::program]
fn main(ctx: &mut Ctx) {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let pause = std::time::Duration::from_millis(pause_ms());
    // The set-up: the same registrations, in the same order, in a restarted run.
    let mut cells = ctx.register(initial(pid));
    let mut iteration = 0u64;
    loop {
        iteration = ctx.checkpoint(iteration);
        if pid == 0 {
            eprintln!("iteration {iteration}");
        }
        if iteration == ITERATIONS {
            break;
        }
        let received = ctx.move_message::<(), u64>().map_or(0, |(_, v)| v[0]);
        mix(cells.local_mut(ctx), received, iteration);
        let local = cells.local(ctx);
        ctx.put((pid + 1) % p, &local[CELLS - 1], &cells, 1);
        ctx.send((pid + p - 1) % p, &(), &[local[3]]);
        std::thread::sleep(pause);
        iteration += 1;
    }
    let got = checksum(cells.local(ctx));
    let want = checksum(&sequential(p)[pid]);
    let verdict =
        if got == want { "matches the sequential iterations" } else { "DIFFERS from the sequential iterations" };
    println!("pid {pid}: checksum {got:016x} ({verdict})");
    assert_eq!(got, want, "process {pid}: the cells differ from the sequential computation");
}
