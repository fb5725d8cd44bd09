// A registration's name used before `local_mut` and taken again after it, or given to a `put` in
// the same superstep as a `split_mut`: no borrow of the handle overlaps another.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut x = ctx.register([ctx.pid() as i32, 0]);
    let right = (ctx.pid() + 1) % ctx.nprocs();
    bsp::superstep!(ctx, {
        let mut name = x.remote();
        ctx.put(right, &7, name, 1);
        x.local_mut(ctx)[0] += 1;
        name = x.remote();
        ctx.put(right, &8, name, 1);
        let (name, local) = x.split_mut(ctx);
        local[0] += 1;
        ctx.put(right, &9, name, 1);
    });
    assert_eq!(x.local(ctx), [ctx.pid() as i32 + 2, 9]);
}
