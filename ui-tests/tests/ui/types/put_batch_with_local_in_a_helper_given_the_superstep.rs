// A helper given the superstep starts a `put_batch_with_local`: the batch needs the context
// mutably.

fn shift(s: &bsp::Superstep<'_, '_>, x: &mut bsp::Reg<u32>) {
    let (mut batch, local) = s.put_batch_with_local(x);
    batch.put(0, &local[0], 1);
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut x = ctx.register([0u32; 2]);
    ctx.superstep(|s| shift(s, &mut x));
}
