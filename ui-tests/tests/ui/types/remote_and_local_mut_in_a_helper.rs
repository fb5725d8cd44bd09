// `x.remote()` kept while `x.local_mut(..)` writes the same handle, in a helper the macros do not
// see: the name borrows the handle, so the two borrows conflict (rustc's E0502). The types cannot
// split one handle between two method calls; `let (name, local) = x.split_mut(s)` gives both at
// once (the docs of `Reg::remote` and `Reg::local_mut` say so). The name must borrow the handle:
// that borrow is what keeps a name from outliving `unregister`.

fn bump_and_send(ctx: &mut bsp::Ctx, x: &mut bsp::Reg<i32>) {
    ctx.superstep(|s| {
        let name = x.remote();
        x.local_mut(s)[0] += 1;
        s.put((s.pid() + 1) % s.nprocs(), &7, name, 1);
    });
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut x = ctx.register([ctx.pid() as i32, 0]);
    bump_and_send(ctx, &mut x);
}
