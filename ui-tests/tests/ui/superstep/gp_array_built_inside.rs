// A GP array created inside a superstep, to be used in the same superstep: creating it includes
// the sync that makes it known to every process, which a superstep's `&Superstep` cannot make.

use bsp::gp::{GpArray, GpBuf};

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut buf = GpBuf::new();
    ctx.superstep(|s| {
        let g = GpArray::<u32>::builder(&[4]).build(s);
        g.get(s, &[0], &[3], &mut buf);
    });
}
