// Thirteen pieces registered as one flat tuple: tuples go up to 12 (nest them for more);
// `register_each` takes any number.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let regs = ctx.register((
        [0u8; 1], [0u8; 2], [0u8; 3], [0u8; 4], [0u8; 5], [0u8; 6], [0u8; 7], [0u8; 8], [0u8; 9], [0u8; 10], [0u8; 11],
        [0u8; 12], [0u8; 13],
    ));
    let _ = regs;
}
