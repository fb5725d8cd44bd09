// An `hpmove` payload returned by a helper as the value of a superstep: the macro cannot see
// that the helper's result is a message; the types reject it (the message borrows the
// superstep, which ends with the block).

fn first_payload<'a>(s: &'a bsp::Superstep<'_, '_>) -> &'a [u64] {
    s.hpmove::<u32, u64>().map_or(&[], |(_, payload)| payload)
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    ctx.set_tag::<u32>();
    ctx.sync();
    ctx.send(1 - ctx.pid(), &0u32, &[1u64, 2, 3][..]);
    ctx.sync();
    let received = bsp::superstep!(ctx, { first_payload(ctx) });
    println!("received {received:?}");
}
