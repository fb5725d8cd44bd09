// A loop bounded by the number of messages received, with a collective in its body.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    ctx.send_bytes(0, &[], &[1]);
    ctx.sync();
    let (messages, _) = ctx.qsize();
    for _ in 0..messages {
        let sum = ctx.allreduce_one(1u32, bsp::ops::sum);
        println!("{sum}");
    }
}
