// `#[bsp::program]` goes on a function.

#[bsp::program]
struct Program;

fn main() {}
