// A fan-out through `get_batch`: the buffer stays lent to the batch until the sync, so reading
// it inside the superstep is reported (the macro follows `get_batch` as it follows `dest`).

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32; 4]);
    let mut row = [0; 4];
    ctx.superstep(|s| {
        let mut batch = s.get_batch(&x, &mut row);
        for i in 0..4 {
            batch.get(1 - s.pid(), i, i);
        }
        let _early = row[0];
    });
}
