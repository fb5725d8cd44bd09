// Branches on the pid that make no sync point, around and inside supersteps: aligned.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([0i32; 2]);
    if ctx.pid() == 0 {
        println!("process 0 of {}", ctx.nprocs());
    }
    bsp::superstep!(ctx, {
        if ctx.pid() == 0 {
            ctx.put(1, &[5], &x, 0);
        } else {
            ctx.put(0, &[6], &x, 1);
        }
    });
    let got = x.local(ctx).to_vec();
    assert_eq!(got, if ctx.pid() == 0 { [0, 6] } else { [5, 0] });
}
