// Scoped registration of memory the caller owns: a routine with a `&mut [f64]` argument
// registers it on every call (and a part of an array), with `superstep!` and the local views
// inside; `with_regs` batches two; `put` takes `&Reg`, `&mut Reg` and `&Registered` alike.

fn shift_right(ctx: &mut bsp::Ctx, v: &mut [f64]) {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    ctx.with_reg(v, |ctx, mut v| {
        let mut left = 0.0;
        bsp::superstep!(ctx, {
            ctx.get((pid + p - 1) % p, &v, 0, &mut left);
        });
        v.local_mut(ctx)[0] = left;
        let _sum: f64 = v.local(ctx).iter().sum();
    });
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let pid = ctx.pid();
    let mut data = vec![pid as f64; 6];
    for _ in 0..10 {
        shift_right(ctx, &mut data[2..4]);
    }
    assert_eq!(data, [pid as f64, pid as f64, pid as f64, pid as f64, pid as f64, pid as f64]);

    let mut x = ctx.register([0u32; 3]);
    let (mut a, mut b) = (vec![0u32; 2], [0u8; 2]);
    ctx.with_regs((&mut a, &mut b[..]), |ctx, (a, b)| {
        let other = 1 - ctx.pid();
        ctx.put(other, &1, &x, 0);
        ctx.put(other, &2, &mut x, 1);
        ctx.put(other, &3, &a, 1);
        ctx.put(other, &4, &b, 0);
        ctx.sync();
    });
    assert_eq!(x.local(ctx), [1, 2, 0]);
    assert_eq!((a, b), (vec![0, 3], [4, 0]));
}
