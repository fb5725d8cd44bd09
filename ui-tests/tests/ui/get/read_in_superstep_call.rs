// The check also covers `ctx.superstep(|s| ..)`, what `superstep!` lowers to: a `get`
// destination read in the closure.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32]);
    let mut left = 0;
    ctx.superstep(|s| {
        s.get(1 - s.pid(), &x, 0, &mut left);
        s.put(0, &left, &x, 0);
    });
}
