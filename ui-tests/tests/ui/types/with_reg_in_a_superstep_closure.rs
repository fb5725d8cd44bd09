// `with_reg` inside a superstep in plain `bsp::run` code (no macro): registering includes syncs.

fn main() {
    bsp::run(2, |ctx| {
        let mut data = [0u32; 2];
        ctx.superstep(|s| {
            s.with_reg(&mut data, |ctx, r| ctx.put(0, &[1], &r, 0));
        });
    })
    .unwrap();
}
