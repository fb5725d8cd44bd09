// `?` inside `superstep!`: it cannot return from the function around the block.

#[bsp::program(procs = 2)]
fn parse_all(ctx: &mut bsp::Ctx, text: &str) -> Result<i32, std::num::ParseIntError> {
    let n = bsp::superstep!(ctx, {
        let n: i32 = text.parse()?;
        n
    });
    Ok(n)
}

fn main() {
    let _ = parse_all("1");
}
