// A get destination must be writable: a shared reference is not a destination.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32; 4]);
    let buf = [0; 4];
    ctx.superstep(|s| s.get(0, &x, 0, &buf));
}
