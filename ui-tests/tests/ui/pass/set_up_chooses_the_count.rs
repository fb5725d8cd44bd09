// `set_up`: a function run once before the processes start chooses their number and hands every
// process a value; its count wins over `BSP_NPROCS` (3 while the pass cases run).

fn set_up() -> (usize, u32) {
    (2, 7)
}

#[bsp::program(set_up = set_up)]
fn main(ctx: &mut bsp::Ctx, &seven: &u32) {
    assert_eq!((ctx.nprocs(), seven), (2, 7));
    let total = ctx.allreduce_one(seven, bsp::ops::sum);
    assert_eq!(total, 14);
}
