// A buffer lent to the gets of a superstep by `dest`, read before the sync that fills it.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32; 2]);
    let mut row = [0i32; 2];
    bsp::superstep!(ctx, {
        let d = ctx.dest(&mut row);
        ctx.get(1 - ctx.pid(), &x, 0, d.at(0));
        println!("{}", row[0]);
    });
}
