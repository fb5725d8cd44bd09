// `procs = 2` wins over `BSP_NPROCS`, which `tests/ui.rs` sets to 3: explicit code wins over the
// environment (D27), on `main` and on a launcher function alike.

#[bsp::program(procs = 2)]
fn count(ctx: &mut bsp::Ctx) -> usize {
    ctx.nprocs()
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    assert_eq!(std::env::var("BSP_NPROCS").as_deref(), Ok("3"));
    assert_eq!(ctx.nprocs(), 2);
    if ctx.pid() == 0 {
        // A nested run from process 0 only: the launcher starts its own two processes.
        assert_eq!(count().unwrap(), [2, 2]);
    }
}
