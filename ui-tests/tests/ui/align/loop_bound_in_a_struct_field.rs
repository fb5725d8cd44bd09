// A loop bound computed from the pid and kept in a struct's field: read back, it still differs.

struct Plan {
    rounds: usize,
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let plan = Plan { rounds: ctx.pid() % 2 + 1 };
    for _ in 0..plan.rounds {
        ctx.sync();
    }
}
