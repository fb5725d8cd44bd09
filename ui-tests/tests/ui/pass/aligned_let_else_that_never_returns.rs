// A `let ... else` on a value computed from the pid whose `else` never runs (`checked_add(0)`
// is `Some` on every process): whether it matches may be the same everywhere, so the macro
// does not reject it; a process that did return would be reported by the runtime at the next
// sync the others make.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let src = (ctx.pid() + 1) % ctx.nprocs();
    let Some(q) = src.checked_add(0) else {
        return;
    };
    ctx.sync();
    assert_eq!(q, src);
}
