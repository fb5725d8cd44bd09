// The buffer of a `Dest` must outlive the superstep, whose sync writes it.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32; 4]);
    ctx.superstep(|s| {
        let mut row = [0; 4];
        let d = s.dest(&mut row);
        s.get(0, &x, 0, d.at(0));
    });
}
