// A `get` destination moved into a closure before the `get`, and read by the closure before the
// sync that fills it (the buffer is not `Copy`, so the closure takes the variable itself).

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32; 2]);
    let mut buf = vec![0i32; 2];
    bsp::superstep!(ctx, {
        let show = move || buf[0];
        ctx.get(1 - ctx.pid(), &x, 0, &mut buf[..]);
        println!("{}", show());
    });
}
