// Plain `bsp::run`, no macro: a registration made inside a superstep closure, to be used in the
// same superstep. Registering is a sync, which the closure's `&Superstep` cannot make.

fn main() {
    bsp::run(2, |ctx| {
        ctx.superstep(|s| {
            let r = s.register([0u32]);
            s.put(1 - s.pid(), &1u32, &r, 0);
        });
    })
    .unwrap();
}
