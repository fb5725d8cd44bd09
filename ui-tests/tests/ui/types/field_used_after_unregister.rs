// A registration kept in a struct field, used after the field was given to `unregister`.

struct Grid {
    cells: bsp::Reg<u32>,
    width: usize,
}

#[bsp::program(procs = 2)]
fn main(ctx: &mut bsp::Ctx) {
    let grid = Grid { cells: ctx.register(vec![0u32; 4]), width: 2 };
    let _cells = ctx.unregister(grid.cells);
    ctx.put(1 - ctx.pid(), &[7u32], &grid.cells, grid.width);
    ctx.sync();
}
