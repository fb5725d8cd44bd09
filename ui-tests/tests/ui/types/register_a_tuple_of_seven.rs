// Seven pieces registered as one tuple: tuples go up to 6; `register_each` takes any number.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let regs = ctx.register(([0u8; 1], [0u8; 2], [0u8; 3], [0u8; 4], [0u8; 5], [0u8; 6], [0u8; 7]));
    let _ = regs;
}
