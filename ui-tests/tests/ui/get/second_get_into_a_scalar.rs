// Two `get`s into the same variable in one superstep: the first one borrows it until the sync,
// and one variable can receive only one value.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32]);
    let mut value = 0;
    bsp::superstep!(ctx, {
        ctx.get(0, &x, 0, &mut value);
        ctx.get(1, &x, 0, &mut value);
    });
    println!("{value}");
}
