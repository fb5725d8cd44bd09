// A loop of `get`s, each into its own element (from `iter_mut`), read after the superstep.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32]);
    let mut all = vec![-1; ctx.nprocs()];
    bsp::superstep!(ctx, {
        for (q, slot) in all.iter_mut().enumerate() {
            ctx.get(q, &x, 0, slot);
        }
    });
    assert_eq!(all, [0, 1]);
}
