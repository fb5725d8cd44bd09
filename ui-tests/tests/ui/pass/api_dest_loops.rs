// Many gets into one buffer with `dest`: single elements in a loop, ranges with `hpget`, and
// overlapping destinations (the later get wins); the buffer is read after the superstep.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let x = ctx.register([10 * pid as i32, 10 * pid as i32 + 1]);
    let mut block = vec![0; 2 * p];
    bsp::superstep!(ctx, {
        let d = ctx.dest(&mut block);
        for q in 0..p {
            ctx.get(q, &x, 1, d.at(2 * q));
        }
        for q in 0..p {
            ctx.hpget(q, &x, 0, d.range(2 * q + 1..2 * q + 2));
        }
    });
    assert_eq!(block, [1, 0, 11, 10]);
    let mut row = [0; 3];
    ctx.superstep(|s| {
        let d = s.dest(&mut row);
        s.get(0, &x, 0, d.range(..2));
        s.get(1, &x, 0, d.range(1..)); // overlaps element 1: this later get wins
    });
    assert_eq!(row, [0, 10, 11]);
}
