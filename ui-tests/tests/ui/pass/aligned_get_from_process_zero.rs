// A loop bound every process fetches from process 0 (a broadcast): aligned.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let n = ctx.register([if ctx.pid() == 0 { 3usize } else { 0 }]);
    let mut rounds = 0;
    bsp::superstep!(ctx, {
        ctx.get(0, &n, 0, &mut rounds);
    });
    for _ in 0..rounds {
        bsp::superstep!(ctx, {});
    }
    assert_eq!(rounds, 3);
}
