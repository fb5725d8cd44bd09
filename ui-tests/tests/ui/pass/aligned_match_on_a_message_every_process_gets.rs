// A `match` on a received message whose arms sync differently, where every process receives
// the same message: accepted (the macro cannot know what arrives), with a run-time check that
// every process takes the same arm (debug builds).

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    for q in 0..ctx.nprocs() {
        ctx.send_bytes(q, &[], &[2]);
    }
    ctx.sync();
    let mut buf = [0u8; 1];
    let rounds = match ctx.move_bytes(&mut buf) {
        Some(_) => {
            for _ in 0..2 {
                ctx.sync();
            }
            2
        }
        None => 0,
    };
    assert_eq!(rounds, 2);
}
