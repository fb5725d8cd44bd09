// `{left}` in a format string with a named argument `left = ..` formats the argument, not the
// pending destination `left`.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as u32]);
    let mut left = 9u32;
    bsp::superstep!(ctx, {
        ctx.get(1 - ctx.pid(), &x, 0, &mut left);
        let s = format!("{left}", left = 5);
        assert_eq!(s, "5");
    });
    assert_eq!(left as usize, 1 - ctx.pid());
}
