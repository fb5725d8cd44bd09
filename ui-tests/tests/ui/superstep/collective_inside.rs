// A collective inside a `superstep!` block: a collective ends with syncs of its own.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([0u64]);
    bsp::superstep!(ctx, {
        ctx.put(1 - ctx.pid(), &[1], &x, 0);
        let total = ctx.allreduce_one(ctx.pid() as u64, bsp::ops::sum);
        println!("{total}");
    });
}
