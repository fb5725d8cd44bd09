// A superstep that only process 0 makes: the others never reach its sync.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([0i32]);
    if ctx.pid() == 0 {
        bsp::superstep!(ctx, {
            ctx.put(1, &[7], &x, 0);
        });
    }
    println!("{}", x.local(ctx)[0]);
}
