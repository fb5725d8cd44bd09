// A user macro that gives a registration back; the registration is used after it.

macro_rules! done {
    ($ctx:ident, $r:ident) => {
        $ctx.unregister($r)
    };
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let r = ctx.register([0u32; 2]);
    let _data = done!(ctx, r);
    ctx.put(1 - ctx.pid(), &[7u32], &r, 0);
    ctx.sync();
}
