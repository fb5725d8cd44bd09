// A test on the pid that no process passes on the program's 2 processes: with `procs = 2`
// written as a number, the macro decides `pid == 999` for each pid, finds it false everywhere,
// and accepts the early `return`.

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let pid = ctx.pid();
    if pid == 999 {
        return;
    }
    ctx.sync();
    assert!(pid < 2);
}
