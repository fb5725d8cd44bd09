// A helper that syncs, called inside a superstep: the macro cannot see that it syncs; the
// types reject it (inside the block `ctx` is the superstep in progress, not a `&mut Ctx`).

fn finish(ctx: &mut bsp::Ctx) {
    ctx.sync();
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    bsp::superstep!(ctx, {
        finish(ctx);
    });
}
