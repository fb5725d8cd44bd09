// A GP array used after `destroy`, which takes it by value.

use bsp::gp::GpArray;

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let g = GpArray::<u32>::builder(&[4]).build(ctx);
    let _left = g.destroy(ctx);
    g.put(ctx, &[0], &[0], &[[1u32]], false);
    ctx.sync();
}
