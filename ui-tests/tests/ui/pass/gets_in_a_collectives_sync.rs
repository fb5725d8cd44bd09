// Gets that complete in a collective's sync (`superstep_then`): the destination is read after
// the call, and a branch that syncs through `superstep_then` lines up with one that syncs
// plainly (processes outside the team of a collective).

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let pid = ctx.pid();
    let x = ctx.register([10 * pid as u64]);
    let mut other = 0;
    let ((), total) = ctx.superstep_then(
        |s| s.get(1 - s.pid(), &x, 0, &mut other),
        |ctx| ctx.allreduce_one(1u32, bsp::ops::sum),
    );
    assert_eq!((other, total), (10 * (1 - pid as u64), 2));
    let team = bsp::Team::new(ctx, [pid]); // each process alone
    let mut mine = 0;
    if pid == 0 {
        let ((), one) = ctx.superstep_then(|ctx| ctx.get(0, &x, 0, &mut mine), |ctx| team.allreduce_one(ctx, 5u8, bsp::ops::sum));
        assert_eq!(one, 5);
    } else {
        ctx.sync();
    }
    println!("{mine}");
    let mut last = 0;
    ctx.superstep_then(|s| s.get(0, &x, 0, &mut last), |ctx| ctx.pid());
    assert_eq!(last, 0);
    ctx.unregister(x);
}
