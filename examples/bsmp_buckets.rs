//! Bulk-synchronous message passing: a bucket exchange (the first step of a sample sort).
//!
//! Every process draws 20 numbers in 0..100 and sends each to the process that owns its bucket
//! (`value * p / 100`), tagged with the sender's pid. In the next superstep each process drains
//! its queue with `move_message` and prints how many numbers it received, their range and
//! from how many processes: `pid 1: 21 values in [50, 99] from 2 processes` (p = 2).

use bsp::Ctx;

/// The numbers process `pid` draws (deterministic, so the test can check the result).
pub fn draws(pid: usize) -> Vec<u32> {
    (0..20u32).map(|k| (pid as u32 * 37 + k * 13 + k * k) % 100).collect()
}

#[bsp::program]
fn main(ctx: &mut Ctx) {
    let p = ctx.nprocs();
    ctx.set_tag::<u32>(); // the tag: the sender's pid
    ctx.sync();

    for v in draws(ctx.pid()) {
        let owner = v as usize * p / 100;
        ctx.send(owner, &(ctx.pid() as u32), &[v]);
    }
    ctx.sync();

    let (messages, bytes) = ctx.qsize();
    assert_eq!(bytes, messages * std::mem::size_of::<u32>());
    let mut values = Vec::new();
    let mut senders = std::collections::BTreeSet::new();
    while let Some((from, payload)) = ctx.move_message::<u32, u32>() {
        senders.insert(from);
        values.extend(payload);
    }
    match (values.iter().min(), values.iter().max()) {
        (Some(lo), Some(hi)) => {
            println!("pid {}: {} values in [{lo}, {hi}] from {} processes", ctx.pid(), values.len(), senders.len())
        }
        _ => println!("pid {}: 0 values", ctx.pid()),
    }
}
