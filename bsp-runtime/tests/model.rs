#[test]
fn probe_unread_discard_after_empty_superstep() {
    let r = bsp_runtime::run(2, |ctx| {
        ctx.send_bytes(1 - ctx.pid(), &[], &[1, 2, 3]);
        ctx.sync();
        let a = ctx.qsize();
        ctx.sync(); // nobody communicates: unread messages must still be discarded (D10)
        let b = ctx.qsize();
        (a, b)
    })
    .unwrap();
    assert_eq!(r, vec![((1, 3), (0, 0)); 2]);
}
