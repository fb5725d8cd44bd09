// A string literal compared by `assert_eq!` is not a format string: its `{left}` names nothing,
// so it does not read the pending destination `left`.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as u32]);
    let mut left = 9u32;
    bsp::superstep!(ctx, {
        ctx.get(1 - ctx.pid(), &x, 0, &mut left);
        let s = String::from("{left}");
        assert_eq!(s, "{left}");
        assert_ne!("{left}", "left");
    });
    assert_eq!(left as usize, 1 - ctx.pid());
}
