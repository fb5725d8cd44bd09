// A helper that registers, given only `&Ctx`: registering includes a sync, which needs
// `&mut Ctx`, so the helper cannot hand out a registration that is not in force yet.

fn make_counter(ctx: &bsp::Ctx) -> bsp::Reg<u64> {
    ctx.register([0u64])
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let counter = make_counter(ctx);
    ctx.put(1 - ctx.pid(), &1u64, &counter, 0);
    ctx.sync();
}
