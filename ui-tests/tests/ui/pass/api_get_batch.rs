// A fan-out through `get_batch`, in `superstep!` and in a superstep closure: the buffer is read
// after the superstep, and gets from the batch and from `get` into other buffers interleave.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let x = ctx.register([10 * pid as i32, 10 * pid as i32 + 1]);
    let mut fan = vec![0; 2 * p];
    let mut one = 0;
    bsp::superstep!(ctx, {
        let mut batch = ctx.get_batch(&x, &mut fan);
        for q in 0..p {
            batch.get(q, 1, 2 * q);
            batch.get(q, 0, 2 * q + 1);
        }
        ctx.get(1 - pid, &x, 0, &mut one);
    });
    assert_eq!(fan, [1, 0, 11, 10]);
    assert_eq!(one, 10 * (1 - pid) as i32);
    let mut row = [0; 2];
    ctx.superstep(|s| {
        s.get_batch(&x, &mut row).get_each([(1 - pid, 0, 0), (1 - pid, 1, 1)]);
    });
    assert_eq!(row, [10 * (1 - pid) as i32, 10 * (1 - pid) as i32 + 1]);
}
