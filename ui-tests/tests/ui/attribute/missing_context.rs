// A `#[bsp::program]` function takes the process context as its first parameter.

#[bsp::program(procs = 2)]
fn main() {
    println!("hello");
}
