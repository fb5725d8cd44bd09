// A `get` destination read in a loop in the superstep that fetches it.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([0u64; 4]);
    let mut block = [0u64; 4];
    let mut total = 0;
    bsp::superstep!(ctx, {
        ctx.get(1 - ctx.pid(), &x, 0, &mut block);
        for i in 0..4 {
            total += block[i];
        }
    });
}
