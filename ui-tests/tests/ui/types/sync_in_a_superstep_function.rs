// A superstep whose body is a function that calls `sync`: the macro does not see inside the
// function; the types reject it (the superstep lends the context shared, and only the end of
// the superstep syncs).

fn exchange(s: &bsp::Superstep<'_, '_>) {
    let _ = s.pid();
    s.sync();
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    ctx.superstep(exchange);
}
