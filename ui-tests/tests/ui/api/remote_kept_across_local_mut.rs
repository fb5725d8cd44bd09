// A name taken by `x.remote()` and kept while `x.local_mut(ctx)` writes the same handle, then used
// by a `put`: the name borrows the handle, which `local_mut` needs alone.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut x = ctx.register([ctx.pid() as i32, 0]);
    bsp::superstep!(ctx, {
        let name = x.remote();
        x.local_mut(ctx)[0] += 1;
        ctx.put((ctx.pid() + 1) % ctx.nprocs(), &7, name, 1);
    });
}
