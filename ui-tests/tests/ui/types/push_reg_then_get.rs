// BSPlib-style: a registration used by `get` in a `superstep!` that comes right after the
// `push_reg`, with no sync between them. (ported as is: there is no `push_reg`; `ctx.register`
// includes the sync.)

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let x = ctx.push_reg([ctx.pid() as i32]);
    let mut left = 0;
    bsp::superstep!(ctx, {
        ctx.get(1 - ctx.pid(), &x, 0, &mut left);
    });
    println!("{left}");
}
