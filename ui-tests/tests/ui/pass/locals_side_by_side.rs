// `ctx.locals((&mut a, &b))` lends several registrations' local parts at once, in a
// `#[bsp::program]`: read one while writing another, and take them again after a sync.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let pid = ctx.pid();
    let (mut acc, step) = ctx.register((vec![0u64; 4], vec![pid as u64 + 1; 4]));
    for _ in 0..3 {
        let (acc_v, step_v) = ctx.locals((&mut acc, &step));
        for (a, s) in acc_v.iter_mut().zip(step_v) {
            *a += s;
        }
        ctx.put(1 - pid, &[pid as u64], &acc, 3);
        ctx.sync();
    }
    let (acc_v,) = ctx.locals((&acc,));
    assert_eq!(acc_v, [3 * (pid as u64 + 1), 3 * (pid as u64 + 1), 3 * (pid as u64 + 1), 1 - pid as u64]);
}
