// A loop bound every process computes alike, promised with `ctx.same` (checked at the next
// sync in debug builds) so that the macro accepts it: aligned.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let local = ctx.pid() / 8; // 0 on every process of this run
    let rounds = ctx.same(local + 2);
    for _ in 0..rounds {
        ctx.sync();
    }
    assert_eq!(rounds, 2);
}
