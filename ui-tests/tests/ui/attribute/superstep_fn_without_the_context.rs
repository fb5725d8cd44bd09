// `#[bsp::superstep_fn]` on a function whose first parameter is not the context.

#[bsp::superstep_fn]
fn double(x: u64) -> u64 {
    2 * x
}

fn main() {
    println!("{}", double(2));
}
