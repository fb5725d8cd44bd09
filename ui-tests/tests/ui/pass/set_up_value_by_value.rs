// The set-up's value taken by value: a copy on every process (it is plain data), which the
// process may change; a closure as the set-up.

#[bsp::program(set_up = || (2, [3u32, 4]))]
fn main(ctx: &mut bsp::Ctx, mut pair: [u32; 2]) {
    pair[0] += ctx.pid() as u32;
    let sums = ctx.allreduce(&pair, bsp::ops::sum);
    assert_eq!(sums, [7, 8]);
}
