// Two gets into elements of one buffer without `dest`, in a `#[bsp::program]`: the macro sees
// that the second `get` writes a buffer that the first one keeps borrowed until the sync.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32; 4]);
    let mut buf = [0; 4];
    ctx.superstep(|s| {
        s.get(0, &x, 0, &mut buf[0]);
        s.get(1, &x, 0, &mut buf[1]);
    });
}
