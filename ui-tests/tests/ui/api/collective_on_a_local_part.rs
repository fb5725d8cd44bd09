// A collective given `x.local(ctx)`: the argument borrows the context the collective syncs.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([ctx.pid() as u64; 2]);
    let sums = ctx.allreduce(x.local(ctx), bsp::ops::sum);
    println!("{sums:?}");
}
