// A `while v != 7` where `v` walks a table that every process holds alike, read from the
// neighbour: every process makes the same rounds. Accepted, with the run-time check of the
// loop's condition (debug builds).

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let src = (ctx.pid() + 1) % ctx.nprocs();
    let next = ctx.register([2usize, 4, 5, 1, 7, 3, 0, 7]);
    let mut v = 0usize;
    let mut path = vec![v];
    while v != 7 {
        let mut fetched = 0usize;
        bsp::superstep!(ctx, {
            ctx.get(src, &next, v, &mut fetched);
        });
        v = fetched;
        path.push(v);
    }
    assert_eq!(path, [0, 2, 5, 3, 1, 4, 7]);
}
