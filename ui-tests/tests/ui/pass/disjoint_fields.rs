// A `get` into one field of a tuple leaves the other field free to use in the superstep.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32]);
    let mut pair = (0, 0);
    bsp::superstep!(ctx, {
        ctx.get(1 - ctx.pid(), &x, 0, &mut pair.0);
        pair.1 = 5;
        println!("{}", pair.1);
    });
    assert_eq!(pair, (1 - ctx.pid() as i32, 5));
}
