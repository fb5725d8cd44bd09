//! The example of LPF's DRMA page: the maximum of a value computed on every process, gathered
//! on process 0 with one `put` each. Prints `The maximum is 5(p-1)`.

use bsp::Ctx;

/// A number that depends on the process.
fn f(ctx: &Ctx) -> i32 {
    5 * ctx.pid() as i32
}

#[bsp::program]
fn main(ctx: &mut Ctx) {
    let root = 0;
    let (s, p) = (ctx.pid(), ctx.nprocs());

    // an array that anyone can reach, one slot per process
    let b = ctx.register(vec![0i32; p]);

    // gather the value of `a` from every process on the root
    let a = f(ctx);
    ctx.put(root, &a, &b, s);
    ctx.sync();

    if s == root {
        let max_a = b.local(ctx).iter().copied().max().unwrap_or(-1);
        println!("The maximum is {max_a}");
    }
    ctx.unregister(b);
}
