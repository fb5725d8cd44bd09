// A helper given the superstep calls a collective: the macros do not see into the helper, the
// types reject the call.

fn total(s: &bsp::Superstep<'_, '_>) -> u64 {
    s.allreduce_one(s.pid() as u64, bsp::ops::sum)
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let sum = ctx.superstep(|s| total(s));
    println!("{sum}");
}
