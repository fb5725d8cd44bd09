// A helper given the superstep starts a `put_batch`: the batch needs the context mutably.

fn fill(s: &bsp::Superstep<'_, '_>, x: &bsp::Reg<u32>) {
    let mut batch = s.put_batch(x);
    batch.put(0, &1, 0);
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.register([0u32; 2]);
    ctx.superstep(|s| fill(s, &x));
}
