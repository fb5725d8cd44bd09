// The buffer of a `get_batch` is lent to the batch until the sync: a plain `get` into it in the
// same superstep is reported, with the batch as the way to get into it.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as i32; 4]);
    let mut row = [0; 4];
    ctx.superstep(|s| {
        let mut batch = s.get_batch(&x, &mut row);
        batch.get(1 - s.pid(), 0, 0);
        s.get(1 - s.pid(), &x, 1, &mut row[1]);
    });
}
