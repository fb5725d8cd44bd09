// A `Vec` of registrations used after `unregister_each` gave them back.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let rows = ctx.register_each((0..3).map(|_| vec![0u32; 4]));
    let _data = ctx.unregister_each(rows);
    ctx.put(1 - ctx.pid(), &[7u32], &rows[0], 0);
    ctx.sync();
}
