// A get destination read in the second closure of `superstep_then`, before the collective's
// sync that completes the get.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as u64]);
    let mut other = 0;
    ctx.superstep_then(
        |s| s.get(1 - s.pid(), &x, 0, &mut other),
        |ctx| ctx.allreduce_one(other, bsp::ops::sum),
    );
    ctx.unregister(x);
}
