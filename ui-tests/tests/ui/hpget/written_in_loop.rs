// An `hpget` destination written in a loop in the superstep that fetches it.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([0u8; 8]);
    let mut bytes = [0u8; 8];
    bsp::superstep!(ctx, {
        ctx.hpget(1 - ctx.pid(), &x, 0, &mut bytes);
        for i in 0..8 {
            bytes[i] = 1;
        }
    });
}
