// Two gets into elements of one buffer without `dest`, and no macro to explain: each `get`
// borrows the whole buffer until the sync, so the second is a plain E0499. The fix is
// `let d = s.dest(&mut buf);` and `d.at(i)`, which `get`'s docs show.

fn main() {
    bsp::run(2, |ctx| {
        let x = ctx.register([ctx.pid() as i32; 4]);
        let mut buf = [0; 4];
        ctx.superstep(|s| {
            s.get(0, &x, 0, &mut buf[0]);
            s.get(1, &x, 0, &mut buf[1]);
        });
    })
    .unwrap();
}
