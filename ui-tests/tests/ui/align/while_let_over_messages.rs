// A `while let` over the received messages, syncing once per message.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    ctx.send_bytes(0, &[], &[1, 2, 3]);
    ctx.sync();
    let mut buf = [0u8; 4];
    while let Some(len) = ctx.move_bytes(&mut buf) {
        println!("{:?}", &buf[..len]);
        ctx.sync();
    }
}
