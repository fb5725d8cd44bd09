// Collectives take a registration and read its local part: `ctx.allreduce(&x, op)` compiles where
// `ctx.allreduce(x.local(ctx), op)` cannot (the argument would borrow `ctx`, which the collective
// syncs). Owned registrations, scoped ones, and `&mut` handles reborrowed as `&`.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let mut x = ctx.register(vec![pid as u64 + 1; 2]);
    let total = ctx.allreduce(&x, bsp::ops::sum);
    let prefix = ctx.scan(&x, bsp::ops::sum);
    let everyone = ctx.allgather(&x);
    let first = ctx.broadcast(0, &x);
    x.local_mut(ctx)[0] = 10; // the handle stays usable between collectives
    let on_root = ctx.reduce(1, &mut x, bsp::ops::max);
    let swapped = ctx.alltoall(&x);
    assert_eq!(total, [3, 3]);
    assert_eq!(prefix, vec![(pid as u64 + 1) * (pid as u64 + 2) / 2; 2]);
    assert_eq!(everyone, [[1, 1], [2, 2]]);
    assert_eq!(first, [1, 1]);
    assert_eq!(on_root, (pid == 1).then(|| vec![10, 2]));
    assert_eq!(swapped, if pid == 0 { [10, 10] } else { [1, 2] });
    let mut v = [pid as u32; 3];
    let sums = ctx.with_reg(&mut v, |ctx, r| ctx.allreduce(&r, bsp::ops::sum));
    assert_eq!(sums, vec![(p * (p - 1) / 2) as u32; 3]);
    let gathered = ctx.gather(0, &v);
    assert_eq!(gathered.map(|g| g.len()), (pid == 0).then_some(2));
}
