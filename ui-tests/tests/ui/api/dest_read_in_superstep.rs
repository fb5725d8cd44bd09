// Many gets into one buffer through `dest`: the buffer stays lent until the sync, so reading it
// inside the superstep is reported (the macro follows `dest` as it follows a `get` destination).

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32; 4]);
    let mut row = [0; 4];
    ctx.superstep(|s| {
        let d = s.dest(&mut row);
        for i in 0..4 {
            s.get(1 - s.pid(), &x, i, d.at(i));
        }
        let _early = row[0];
    });
}
