// The local part that `put_batch_with_local` gives cannot be read after the sync: the batch's
// puts land in that memory at the sync, so the view ends before it.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut x = ctx.register([0u32; 4]);
    let other = 1 - ctx.pid();
    let (mut batch, local) = ctx.put_batch_with_local(&mut x);
    batch.put(other, &local[1..], 0);
    drop(batch);
    ctx.sync();
    println!("{}", local[0]);
}
