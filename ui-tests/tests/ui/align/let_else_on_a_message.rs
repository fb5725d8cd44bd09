// `let ... else` on a received message: the processes without one leave before the sync.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    ctx.send_bytes(0, &[], &[1]);
    ctx.sync();
    let mut buf = [0u8; 4];
    let Some(len) = ctx.move_bytes(&mut buf) else {
        return;
    };
    ctx.sync();
    println!("{:?}", &buf[..len]);
}
