// A `Copy` destination captured by a `move` closure before the `get`: the closure holds a copy
// from before the `get`, and the `get` fills the variable itself at the sync.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32 + 1; 2]);
    let mut buf = [0i32; 2];
    bsp::superstep!(ctx, {
        let before = move || buf[0];
        ctx.get(1 - ctx.pid(), &x, 0, &mut buf[..]);
        assert_eq!(before(), 0);
    });
    assert_eq!(buf, [2 - ctx.pid() as i32; 2]);
}
