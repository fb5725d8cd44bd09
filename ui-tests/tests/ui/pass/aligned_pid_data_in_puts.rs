// Data, offsets and destinations computed from the pid, given to puts: aligned (the number of
// sync points does not depend on them).

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let all = ctx.register([0usize; 2]);
    let me = ctx.pid();
    let value = me * 10 + 1;
    let right = (me + 1) % ctx.nprocs();
    bsp::superstep!(ctx, {
        ctx.put(right, &[value], &all, me);
    });
    let left = (me + ctx.nprocs() - 1) % ctx.nprocs();
    assert_eq!(all.local(ctx)[left], left * 10 + 1);
}
