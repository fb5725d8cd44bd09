// A `Dest` cannot leave its superstep: its buffer is written by the sync that ends it.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let mut row = [0i32; 4];
    let d = ctx.superstep(|s| s.dest(&mut row));
    let _ = d.len();
}
