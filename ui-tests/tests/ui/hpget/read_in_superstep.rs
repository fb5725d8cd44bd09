// An `hpget` destination read in the superstep that fetches it: the unbuffered get also
// writes it only at the sync.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32]);
    let mut left = 0;
    bsp::superstep!(ctx, {
        ctx.hpget(1 - ctx.pid(), &x, 0, &mut left);
        let doubled = 2 * left;
    });
}
