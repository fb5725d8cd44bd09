// Collectives in a `#[bsp::program]`, with the operators of `bsp::ops` and a closure: each ends
// the superstep, and a get before one is complete after it.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let x = ctx.register([pid as u64 + 1]);
    let total = ctx.allreduce(&[pid as u64 + 1], bsp::ops::sum);
    let largest = ctx.allreduce_one(pid as f64, bsp::ops::max);
    let offsets = ctx.scan_one(10u32, |a, b| a + b);
    let parts: Vec<Vec<u64>> = (0..p).map(|q| vec![q as u64; q]).collect();
    let mine = ctx.alltoallv(&parts);
    let root = ctx.broadcast_one(1, pid);
    assert_eq!((total, largest, offsets, root), (vec![3], 1.0, 10 * (pid as u32 + 1), 1));
    assert_eq!(mine, vec![vec![pid as u64; pid]; p]);
    let mut other = 0;
    bsp::superstep!(ctx, {
        ctx.get(1 - pid, &x, 0, &mut other);
    });
    let everyone = ctx.allgather(&[other]);
    assert_eq!(everyone, [[2], [1]]);
}
