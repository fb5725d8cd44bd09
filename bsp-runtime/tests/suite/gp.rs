//! Global pointer arrays (§7, D17) as engine-neutral checks and failure cases: every call of
//! GA's GP API through the public `bsp_runtime::gp` API; the distribution test vectors of §7.3;
//! ordering within a superstep; every error message; and a model check of random supersteps.
//! `gp.rs` runs them on threads, `mpi.rs` on MPI ranks.

use bsp_runtime::Ctx;
use bsp_runtime::gp::{GpArray, GpBuf, subscripts};

use super::check::{Complaints, Outcome, Probe, Procs, all_gather, cases, checks, ensure, expect};

// ---------------------------------------------------------------------------------------------
// Test data: a deterministic content for every subscript
// ---------------------------------------------------------------------------------------------

/// Row-major rank of `sub` in `dims`.
fn rank(sub: &[usize], dims: &[usize]) -> usize {
    sub.iter().zip(dims).fold(0, |acc, (&i, &d)| acc * d + i)
}

/// The content of element `sub`: `None` (unassigned) for every fifth element, otherwise
/// `rank % 4` values (so some are assigned but empty) derived from the rank.
fn content(sub: &[usize], dims: &[usize]) -> Option<Vec<u32>> {
    let r = rank(sub, dims);
    (r % 5 != 3).then(|| (0..r % 4).map(|k| (r * 100 + k) as u32).collect())
}

/// What a get of `sub` returns for [`content`]: unassigned reads as empty.
fn read(sub: &[usize], dims: &[usize]) -> Vec<u32> {
    content(sub, dims).unwrap_or_default()
}

/// Every process assigns its elements according to [`content`].
fn fill(g: &mut GpArray<u32>, ctx: &Ctx) {
    let dims = g.dims().to_vec();
    if let Some((lo, hi)) = g.distribution(ctx.pid()) {
        for sub in subscripts(&lo, &hi) {
            if let Some(v) = content(&sub, &dims) {
                g.assign_local(ctx, &sub, v);
            }
        }
    }
}

/// A small deterministic generator (xorshift), for choosing patches and operations.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// A random patch of `dims`.
    fn patch(&mut self, dims: &[usize]) -> (Vec<usize>, Vec<usize>) {
        let (mut lo, mut hi) = (Vec::new(), Vec::new());
        for &d in dims {
            let (a, b) = (self.below(d), self.below(d));
            lo.push(a.min(b));
            hi.push(a.max(b));
        }
        (lo, hi)
    }
}

/// The blocks of a distribution from per-axis inclusive ranges, the last axis fastest, padded
/// with `None` to `p` processes.
type Block = Option<(Vec<usize>, Vec<usize>)>;
fn blocks(axes: &[&[(usize, usize)]], p: usize) -> Vec<Block> {
    let mut out = vec![(Vec::new(), Vec::new())];
    for axis in axes {
        out = out
            .iter()
            .flat_map(|(lo, hi): &(Vec<usize>, Vec<usize>)| {
                axis.iter().map(move |&(l, h)| {
                    let (mut lo, mut hi) = (lo.clone(), hi.clone());
                    lo.push(l);
                    hi.push(h);
                    (lo, hi)
                })
            })
            .collect();
    }
    let mut out: Vec<Block> = out.into_iter().map(Some).collect();
    out.resize(p, None);
    out
}

/// A 2-D processor grid `[a, p / a]` with `a` the largest divisor of `p` up to its root.
fn grid2(p: usize) -> [usize; 2] {
    let a = (1..=p).filter(|a| p % a == 0 && a * a <= p).max().unwrap_or(1);
    [a, p / a]
}

/// Uneven block starts `0, 1, 3, 6, ...` for `n` blocks.
fn uneven_starts(n: usize) -> Vec<usize> {
    (0..n).map(|i| i * (i + 1) / 2).collect()
}

/// Every element of a `[5, 4]` array holding three zeros.
fn zeros3(ctx: &mut Ctx) -> GpArray<u32> {
    let mut g = GpArray::<u32>::builder(&[5, 4]).name("z").build(ctx);
    if let Some((lo, hi)) = g.distribution(ctx.pid()) {
        for sub in subscripts(&lo, &hi) {
            g.assign_local(ctx, &sub, [0, 0, 0]);
        }
    }
    g
}

/// One write: `put` of a patch (given by its subscripts) or `scatter` of a list.
struct Write {
    subs: Vec<Vec<usize>>,
    data: Vec<Vec<u32>>,
    patch: bool,
    checksize: bool,
}

/// One process's operations in one superstep, derived from a seed so every process can
/// compute every other's.
struct Step {
    writes: Vec<Write>,
    /// Patches read with `get`.
    reads: Vec<(Vec<usize>, Vec<usize>)>,
}

/// Every element `[i, j]` of the model array has `(i + j) % 3 + 1` values.
fn model_len(sub: &[usize]) -> usize {
    (sub[0] + sub[1]) % 3 + 1
}

fn model_step(seed: u64, step: usize, pid: usize, dims: &[usize]) -> Step {
    let mut rng = Rng::new(seed ^ (step as u64) << 20 ^ (pid as u64) << 40);
    let mut writes = Vec::new();
    for _ in 0..rng.below(4) {
        let use_patch = rng.below(2) == 0;
        let subs: Vec<Vec<usize>> = if use_patch {
            let (lo, hi) = rng.patch(dims);
            subscripts(&lo, &hi).collect()
        } else {
            (0..1 + rng.below(5)).map(|_| vec![rng.below(dims[0]), rng.below(dims[1])]).collect()
        };
        let checksize = rng.below(2) == 0;
        let data = subs
            .iter()
            .map(|s| {
                let len = if checksize { model_len(s) } else { rng.below(model_len(s) + 1) };
                (0..len).map(|_| rng.next() as u32).collect()
            })
            .collect();
        writes.push(Write { subs, data, patch: use_patch, checksize });
    }
    let reads = (0..1 + rng.below(3)).map(|_| rng.patch(dims)).collect();
    Step { writes, reads }
}

fn fill_u8(g: &mut GpArray<u8>, ctx: &Ctx) {
    if let Some((lo, hi)) = g.distribution(ctx.pid()) {
        for sub in subscripts(&lo, &hi) {
            let r = rank(&sub, g.dims());
            g.assign_local(ctx, &sub, [r as u8]);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// GP_Create_handle, GP_Set_dimensions, GP_Set_chunk, GP_Set_irreg_distr, GP_Allocate,
// GP_Distribution
// ---------------------------------------------------------------------------------------------

/// The worked examples of §7.3: dims, P, chunk, and the block of every process.
#[allow(clippy::type_complexity)]
fn ga_test_vectors() -> Vec<(&'static [usize], usize, Option<&'static [i64]>, Vec<Block>)> {
    vec![
        (&[8, 8], 4, None, blocks(&[&[(0, 3), (4, 7)], &[(0, 3), (4, 7)]], 4)),
        (&[10], 3, None, blocks(&[&[(0, 3), (4, 6), (7, 9)]], 3)),
        (&[16], 6, None, blocks(&[&[(0, 2), (3, 5), (6, 8), (9, 11), (12, 13), (14, 15)]], 6)),
        (&[5], 8, None, blocks(&[&[(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)]], 8)),
        (&[7, 5], 6, None, blocks(&[&[(0, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6)], &[(0, 4)]], 6)),
        (&[12, 4], 4, None, blocks(&[&[(0, 5), (6, 11)], &[(0, 1), (2, 3)]], 4)),
        (&[9, 9], 6, None, blocks(&[&[(0, 4), (5, 8)], &[(0, 2), (3, 5), (6, 8)]], 6)),
        (&[100, 50], 12, None, blocks(&[&[(0, 33), (34, 66), (67, 99)], &[(0, 12), (13, 25), (26, 37), (38, 49)]], 12)),
        (&[4, 6, 8], 8, None, blocks(&[&[(0, 1), (2, 3)], &[(0, 2), (3, 5)], &[(0, 3), (4, 7)]], 8)),
        (&[3, 3], 4, None, blocks(&[&[(0, 1), (2, 2)], &[(0, 1), (2, 2)]], 4)),
        (&[1, 10], 4, None, blocks(&[&[(0, 0)], &[(0, 2), (3, 5), (6, 7), (8, 9)]], 4)),
        (&[6, 6], 4, Some(&[6, -1]), blocks(&[&[(0, 5)], &[(0, 1), (2, 3), (4, 4), (5, 5)]], 4)),
        (&[10], 4, Some(&[3]), blocks(&[&[(0, 2), (3, 5), (6, 8), (9, 9)]], 4)),
        // The quirk of §7.3 step 5: a last chunk entry of 0 is ignored for the grid but still
        // scales the blocks; processes 2 and 3 own nothing.
        (&[8, 8], 4, Some(&[4, 0]), blocks(&[&[(0, 7)], &[(0, 3), (4, 7)]], 4)),
    ]
}

/// §7.3: the worked examples whose P is this run's, through `GpArray::distribution` on every
/// process (threads: every P of the examples; MPI: the examples for P = 4).
pub fn distribution_matches_the_ga_test_vectors(ctx: &mut Ctx) -> Outcome {
    let p = ctx.nprocs();
    let mut c = Complaints::default();
    let mut tried = 0;
    for (dims, _, chunk, want) in ga_test_vectors().into_iter().filter(|v| v.1 == p) {
        let mut b = GpArray::<u8>::builder(dims);
        if let Some(chunk) = chunk {
            b = b.chunk(chunk);
        }
        let g = b.build(ctx);
        let seen: Vec<Block> = (0..p).map(|q| g.distribution(q)).collect();
        c.expect(format_args!("dims {dims:?} P={p} chunk {chunk:?}"), seen, want);
        tried += 1;
    }
    ctx.sync();
    c.ensure(tried > 0, || format!("no test vector has P = {p}"));
    c.outcome()
}

/// `GP_Set_chunk`: `chunk[d] = dims[d]` keeps axis d whole, and a chunk makes the blocks of its
/// axis multiples of it (but the last); data reads back everywhere.
pub fn chunk_at_every_p(ctx: &mut Ctx) -> Outcome {
    let dims = [12, 6];
    let mut g = GpArray::<u32>::builder(&dims).chunk(&[3, 6]).build(ctx);
    let blocks: Vec<_> = (0..ctx.nprocs()).map(|q| g.distribution(q)).collect();
    fill(&mut g, ctx);
    ctx.sync();
    let mut buf = GpBuf::new();
    ctx.superstep(|s| g.get(s, &[0, 0], &[11, 5], &mut buf));
    let want: Vec<Vec<u32>> = subscripts(&[0, 0], &[11, 5]).map(|s| read(&s, &dims)).collect();
    let mut c = Complaints::default();
    c.expect("the whole array", buf.into_elements(), want);
    let owned: Vec<_> = blocks.into_iter().flatten().collect();
    c.ensure(!owned.is_empty(), || "nobody owns anything".to_string());
    for (lo, hi) in &owned {
        c.expect(format_args!("axis 1 of block {lo:?}..={hi:?} is kept whole"), (lo[1], hi[1]), (0, 5));
        c.expect(format_args!("row block {lo:?} starts at a multiple of the chunk"), lo[0] % 3, 0);
    }
    c.expect("rows owned", owned.iter().map(|(lo, hi)| hi[0] - lo[0] + 1).sum::<usize>(), 12);
    c.outcome()
}

/// `GP_Set_irreg_distr`: block `(k0, k1)` belongs to process `k0 * nblock[1] + k1`, its bounds
/// are the given starts; data assigned by the owners reads back everywhere.
pub fn irregular_distribution_at_every_p(ctx: &mut Ctx) -> Outcome {
    let p = ctx.nprocs();
    let nblock = grid2(p);
    let dims = [9usize, 10];
    let starts = [uneven_starts(nblock[0]), uneven_starts(nblock[1])];
    let mapc: Vec<usize> = starts.concat();
    let want: Vec<Block> = (0..p)
        .map(|q| {
            let k = [q / nblock[1], q % nblock[1]];
            let bound = |d: usize| -> (usize, usize) {
                let lo = starts[d][k[d]];
                let hi = starts[d].get(k[d] + 1).map_or(dims[d], |&s| s) - 1;
                (lo, hi)
            };
            let ((l0, h0), (l1, h1)) = (bound(0), bound(1));
            Some((vec![l0, l1], vec![h0, h1]))
        })
        .collect();
    let mut g = GpArray::<u32>::builder(&dims).irregular(&mapc, &nblock).name("irr").build(ctx);
    let blocks: Vec<_> = (0..p).map(|q| g.distribution(q)).collect();
    fill(&mut g, ctx);
    ctx.sync();
    let mut buf = GpBuf::new();
    ctx.superstep(|s| g.get(s, &[0, 0], &[8, 9], &mut buf));
    let all: Vec<Vec<u32>> = subscripts(&[0, 0], &[8, 9]).map(|s| read(&s, &dims)).collect();
    expect("the blocks", blocks, want)?;
    expect("the whole array", buf.into_elements(), all)
}

/// The builder's accessors and the handle's description.
pub fn builder_name_dims_and_debug(ctx: &mut Ctx) -> Outcome {
    let g = GpArray::<f32>::builder(&[3, 4]).name("grid").build(ctx);
    let unnamed = GpArray::<f32>::builder(&[3]).build(ctx);
    ctx.sync();
    expect("name", g.name(), "gp array `grid`")?;
    expect("dims", g.dims(), &[3, 4][..])?;
    expect("processes of the grid", g.dist().grid().iter().product::<usize>(), ctx.nprocs())?;
    ensure(unnamed.name().starts_with("gp array #"), || format!("unnamed: {}", unnamed.name()))?;
    ensure(format!("{g:?}").contains("grid"), || format!("{g:?}"))
}

// ---------------------------------------------------------------------------------------------
// GP_Assign_local_element, GP_Access_element, GP_Release_(update_)element,
// GP_Free_local_element
// ---------------------------------------------------------------------------------------------

/// Local element operations on every owned element; every element is owned exactly once.
pub fn local_element_operations_at_every_p(ctx: &mut Ctx) -> Outcome {
    let mut g = GpArray::<u64>::builder(&[5, 3]).build(ctx);
    let mut c = Complaints::default();
    let mut count = 0;
    if let Some((lo, hi)) = g.distribution(ctx.pid()) {
        for sub in subscripts(&lo, &hi) {
            let s = format!("element {sub:?}");
            c.expect(format_args!("{s} unassigned at first"), g.access(ctx, &sub), None);
            let v = vec![sub[0] as u64, sub[1] as u64];
            c.expect(format_args!("{s}: first assign"), g.assign_local(ctx, &sub, v.clone()), None);
            c.expect(format_args!("{s}: access"), g.access(ctx, &sub), Some(&v[..]));
            g.access_mut(ctx, &sub).unwrap()[1] += 10; // GP_Release_update_element
            let updated = vec![sub[0] as u64, sub[1] as u64 + 10];
            c.expect(format_args!("{s}: after access_mut"), g.access(ctx, &sub), Some(&updated[..]));
            c.expect(format_args!("{s}: second assign"), g.assign_local(ctx, &sub, [7]), Some(updated));
            c.expect(format_args!("{s}: free"), g.free_local(ctx, &sub), Some(vec![7]));
            c.expect(format_args!("{s}: access after free"), g.access(ctx, &sub), None);
            c.expect(format_args!("{s}: second free"), g.free_local(ctx, &sub), None);
            c.ensure(g.access_mut(ctx, &sub).is_none(), || format!("{s}: access_mut after free"));
            count += 1;
        }
    }
    let counts = all_gather(ctx, count);
    c.expect("elements owned, over all processes", counts.iter().sum::<u64>(), 15);
    c.outcome()
}

// ---------------------------------------------------------------------------------------------
// GP_Get, GP_Get_size (setbuf = 0 and 1)
// ---------------------------------------------------------------------------------------------

/// `GP_Get` (setbuf = 0) and `GP_Get_size`: whole arrays and random patches in 1, 2 and 3
/// dimensions, packed in row-major order with offsets, sizes and total.
pub fn get_packs_patches_in_row_major_order_at_every_p(ctx: &mut Ctx) -> Outcome {
    let mut c = Complaints::default();
    for dims in [vec![13], vec![7, 5], vec![3, 4, 5]] {
        let mut g = GpArray::<u32>::builder(&dims).build(ctx);
        fill(&mut g, ctx);
        ctx.sync();
        let mut rng = Rng::new(ctx.pid() as u64 + 1);
        for round in 0..4 {
            let (lo, hi) =
                if round == 0 { (vec![0; dims.len()], dims.iter().map(|x| x - 1).collect()) } else { rng.patch(&dims) };
            let mut buf = GpBuf::new();
            let mut size = usize::MAX;
            ctx.superstep(|s| {
                g.get(s, &lo, &hi, &mut buf);
                g.get_size(s, &lo, &hi, &mut size);
            });
            let want: Vec<Vec<u32>> = subscripts(&lo, &hi).map(|s| read(&s, &dims)).collect();
            let what = format!("dims {dims:?} patch {lo:?}..={hi:?}");
            c.expect(format_args!("{what}: len"), buf.len(), want.len());
            c.expect(
                format_args!("{what}: shape"),
                buf.shape().to_vec(),
                lo.iter().zip(&hi).map(|(l, h)| h - l + 1).collect::<Vec<_>>(),
            );
            c.expect(format_args!("{what}: packed data"), buf.data().to_vec(), want.concat());
            c.expect(
                format_args!("{what}: sizes"),
                buf.sizes().collect::<Vec<_>>(),
                want.iter().map(Vec::len).collect::<Vec<_>>(),
            );
            let mut at = 0;
            for (i, w) in want.iter().enumerate() {
                c.expect(format_args!("{what}: offset of element {i}"), buf.offsets().get(i).copied(), Some(at));
                if i < buf.len() {
                    c.expect(format_args!("{what}: element {i}"), buf.element(i), &w[..]);
                }
                at += w.len();
            }
            c.expect(format_args!("{what}: total"), buf.total(), at);
            c.expect(format_args!("{what}: get_size"), size, at);
        }
    }
    c.outcome()
}

/// `GP_Get` with setbuf = 1: into caller-provided elements, replacing their contents.
pub fn get_into_caller_buffers_at_every_p(ctx: &mut Ctx) -> Outcome {
    let dims = [6usize, 6];
    let mut g = GpArray::<u32>::builder(&dims).build(ctx);
    fill(&mut g, ctx);
    ctx.sync();
    let (lo, hi) = (vec![1, 0], vec![4, 5]);
    // Stale contents and spare capacity: both must be replaced.
    let mut dst = vec![vec![99u32; 5]; 24];
    ctx.superstep(|s| g.get_into(s, &lo, &hi, &mut dst));
    let want: Vec<Vec<u32>> = subscripts(&lo, &hi).map(|s| read(&s, &dims)).collect();
    expect("the elements", dst, want)
}

// ---------------------------------------------------------------------------------------------
// GP_Gather, GP_Gather_size (setbuf = 0 and 1)
// ---------------------------------------------------------------------------------------------

/// Gather in list order, duplicates copied each time, sizes counted each time.
pub fn gather_with_duplicates_at_every_p(ctx: &mut Ctx) -> Outcome {
    let dims = [4usize, 5];
    let mut g = GpArray::<u32>::builder(&dims).build(ctx);
    fill(&mut g, ctx);
    ctx.sync();
    let mut rng = Rng::new(7 + ctx.pid() as u64);
    let mut subs: Vec<[usize; 2]> = (0..12).map(|_| [rng.below(4), rng.below(5)]).collect();
    subs.push(subs[0]);
    subs.push(subs[3]);
    let mut buf = GpBuf::new();
    let mut into = vec![Vec::new(); subs.len()];
    let mut size = 0;
    ctx.superstep(|s| {
        g.gather(s, &subs, &mut buf);
        g.gather_into(s, &subs, &mut into);
        g.gather_size(s, &subs, &mut size);
    });
    let want: Vec<Vec<u32>> = subs.iter().map(|s| read(s, &dims)).collect();
    expect("shape", buf.shape().to_vec(), vec![subs.len()])?;
    expect("total", buf.total(), size)?;
    expect("gather", buf.into_elements(), want.clone())?;
    expect("gather_into", into, want.clone())?;
    expect("gather_size", size, want.iter().map(Vec::len).sum::<usize>())
}

/// A GpBuf is reusable: a second get replaces the first result entirely.
pub fn a_buffer_is_refilled_not_appended(ctx: &mut Ctx) -> Outcome {
    let mut g = GpArray::<u32>::builder(&[9]).build(ctx);
    fill(&mut g, ctx);
    ctx.sync();
    let mut buf = GpBuf::new();
    ctx.superstep(|s| g.get(s, &[0], &[8], &mut buf));
    ctx.superstep(|s| g.gather(s, &[[2]], &mut buf));
    expect("len", buf.len(), 1)?;
    expect("shape", buf.shape(), &[1][..])?;
    expect("element 0", buf.element(0), &read(&[2], &[9])[..])
}

// ---------------------------------------------------------------------------------------------
// GP_Put, GP_Scatter, GP_Sync
// ---------------------------------------------------------------------------------------------

/// `GP_Put` with checksize: process q writes row `q % 5`; rows written by several processes
/// end with the highest pid's data (D2).
pub fn put_rows_highest_pid_wins_at_every_p(ctx: &mut Ctx) -> Outcome {
    let p = ctx.nprocs();
    let g = zeros3(ctx);
    ctx.sync();
    let q = ctx.pid();
    let row = q % 5;
    let data: Vec<[u32; 3]> = (0..4).map(|j| [q as u32, row as u32, j]).collect();
    let sent = g.put(ctx, &[row, 0], &[row, 3], &data, true);
    g.sync(ctx); // GP_Sync
    let mut buf = GpBuf::new();
    ctx.superstep(|s| g.get(s, &[0, 0], &[4, 3], &mut buf));
    let mut c = Complaints::default();
    c.expect("values sent", sent, 12);
    for (i, e) in buf.into_elements().iter().enumerate() {
        let (row, col) = (i / 4, i % 4);
        let want = match (0..p).filter(|q| q % 5 == row).max() {
            Some(q) => vec![q as u32, row as u32, col as u32],
            None => vec![0, 0, 0],
        };
        c.expect(format_args!("element [{row}, {col}]"), e, &want);
    }
    c.outcome()
}

/// `GP_Put` without checksize: shorter data overwrites a prefix (GA copies `buf_size` bytes);
/// empty data writes nothing, even to an unassigned element.
pub fn put_without_checksize_writes_a_prefix(ctx: &mut Ctx) -> Outcome {
    let mut g = GpArray::<u16>::builder(&[4]).build(ctx);
    if let Some((lo, hi)) = g.distribution(ctx.pid()) {
        for i in lo[0]..=hi[0] {
            if i != 3 {
                g.assign_local(ctx, &[i], [1, 2, 3]);
            }
        }
    }
    ctx.sync();
    let mut sent = 3;
    if ctx.pid() == ctx.nprocs() - 1 {
        sent = g.put(ctx, &[0], &[3], &[&[9u16][..], &[8, 8], &[], &[]], false);
    }
    ctx.sync();
    let mut buf = GpBuf::new();
    ctx.superstep(|s| g.get(s, &[0], &[3], &mut buf));
    expect("values sent", sent, 3)?;
    expect("the array", buf.into_elements(), vec![vec![9, 2, 3], vec![8, 8, 3], vec![1, 2, 3], vec![]])
}

/// `GP_Scatter`: duplicates within one process apply in issue order, across processes in
/// ascending pid: the last applied wins.
pub fn scatter_duplicates_last_applied_wins_at_every_p(ctx: &mut Ctx) -> Outcome {
    let p = ctx.nprocs();
    // Elements 1..=p get one value each; the last two, one from every process.
    let n = (p + 3).max(11);
    let mut g = GpArray::<u32>::builder(&[n]).build(ctx);
    if let Some((lo, hi)) = g.distribution(ctx.pid()) {
        for i in lo[0]..=hi[0] {
            g.assign_local(ctx, &[i], [0, 0]);
        }
    }
    ctx.sync();
    let q = ctx.pid() as u32;
    let subs = [[0], [n - 2], [0], [n - 1], [1 + q as usize]];
    let data = [[q, 1], [q, 2], [q, 3], [q, 4], [q, 5]];
    let sent = g.scatter(ctx, &subs, &data, true);
    ctx.sync();
    let mut buf = GpBuf::new();
    ctx.superstep(|s| g.get(s, &[0], &[n - 1], &mut buf));
    let got = buf.into_elements();
    let last = (p - 1) as u32;
    let mut c = Complaints::default();
    c.expect("values sent", sent, 10);
    c.expect("element 0 (written twice by every process)", &got[0], &vec![last, 3]);
    c.expect(format_args!("element {}", n - 2), &got[n - 2], &vec![last, 2]);
    c.expect(format_args!("element {}", n - 1), &got[n - 1], &vec![last, 4]);
    for (i, e) in got.iter().enumerate().take(n - 2).skip(1) {
        let want = if i <= p { vec![i as u32 - 1, 5] } else { vec![0, 0] };
        c.expect(format_args!("element {i}"), e, &want);
    }
    c.outcome()
}

/// D1/D17: a get reads the elements as they are at the end of the superstep, before the puts
/// of that superstep land; the owner's local writes of the superstep are seen.
pub fn get_sees_the_superstep_end_before_its_puts(ctx: &mut Ctx) -> Outcome {
    let mut g = GpArray::<i32>::builder(&[2]).build(ctx);
    let owner0 = g.dist().owner(&[0]).unwrap();
    if ctx.pid() == owner0 {
        g.assign_local(ctx, &[0], [1, 2, 3]);
    }
    let owner1 = g.dist().owner(&[1]).unwrap();
    if ctx.pid() == owner1 {
        g.assign_local(ctx, &[1], [5]);
    }
    ctx.sync();
    let (mut before, mut after) = (GpBuf::new(), GpBuf::new());
    let last = ctx.nprocs() - 1;
    ctx.superstep(|s| {
        if s.pid() == last {
            g.put(s, &[0], &[0], &[[9, 9, 9]], true);
        }
        g.get(s, &[0], &[1], &mut before);
    });
    // The owner changes element 1 locally; a get in the same superstep sees it.
    if ctx.pid() == owner1 {
        g.access_mut(ctx, &[1]).unwrap()[0] = 6;
    }
    ctx.superstep(|s| g.get(s, &[0], &[1], &mut after));
    expect("before the put", before.into_elements(), vec![vec![1, 2, 3], vec![5]])?;
    expect("after", after.into_elements(), vec![vec![9, 9, 9], vec![6]])
}

// ---------------------------------------------------------------------------------------------
// GP_Memzero, GP_Destroy, drop
// ---------------------------------------------------------------------------------------------

/// `GP_Memzero`: every value of every element becomes zero, sizes stay; a put queued before it
/// lands first (it syncs first, as GA does).
pub fn memzero_zeroes_every_element_at_every_p(ctx: &mut Ctx) -> Outcome {
    let dims = [6, 3];
    let mut g = GpArray::<u32>::builder(&dims).build(ctx);
    fill(&mut g, ctx);
    ctx.sync();
    g.put(ctx, &[0, 1], &[0, 1], &[[5u32]], true); // element [0, 1] holds 1 value
    g.memzero(ctx);
    let mut buf = GpBuf::new();
    ctx.superstep(|s| g.get(s, &[0, 0], &[5, 2], &mut buf));
    let want: Vec<usize> = subscripts(&[0, 0], &[5, 2]).map(|s| read(&s, &dims).len()).collect();
    expect("sizes", buf.sizes().collect::<Vec<_>>(), want)?;
    ensure(buf.data().iter().all(|&v| v == 0), || format!("not all zero: {buf:?}"))
}

/// `GP_Destroy`: collective; returns the elements each process still had assigned, with
/// their subscripts; a put queued before it lands first.
pub fn destroy_returns_the_local_elements_at_every_p(ctx: &mut Ctx) -> Outcome {
    let dims = [4usize, 4];
    let mut g = GpArray::<u32>::builder(&dims).build(ctx);
    fill(&mut g, ctx);
    ctx.sync();
    // [0, 1] holds 1 value
    g.put(ctx, &[0, 1], &[0, 1], &[[42u32]], true);
    let mine = g.distribution(ctx.pid());
    let left = g.destroy(ctx);
    let counts = all_gather(ctx, left.len() as u64);
    let want: Vec<(Vec<usize>, Vec<u32>)> = match mine {
        None => Vec::new(),
        Some((lo, hi)) => subscripts(&lo, &hi)
            .filter_map(|s| {
                let v = if s == [0, 1] { Some(vec![42]) } else { content(&s, &dims) };
                v.map(|v| (s, v))
            })
            .collect(),
    };
    expect("the elements left", left, want)?;
    expect("elements left over all processes (16, 3 never assigned)", counts.iter().sum::<u64>(), 13)
}

/// Arrays can be created and destroyed repeatedly, interleaved with other registrations.
pub fn create_destroy_cycles_with_other_registrations(ctx: &mut Ctx) -> Outcome {
    let mut c = Complaints::default();
    for round in 0..5u32 {
        let r = ctx.register([round]);
        let mut g = GpArray::<u32>::builder(&[7]).build(ctx);
        fill(&mut g, ctx);
        let mut buf = GpBuf::new();
        let mut x = 0;
        ctx.superstep(|s| {
            g.get(s, &[0], &[6], &mut buf);
            s.get(0, &r, 0, &mut x);
        });
        c.expect(format_args!("round {round}: the registration"), x, round);
        c.expect(format_args!("round {round}: element 6"), buf.element(6), &read(&[6], &[7])[..]);
        g.destroy(ctx);
        ctx.unregister(r);
    }
    c.outcome()
}

/// Dropping a handle without destroying it is safe, and the array stays usable by the
/// processes that kept theirs.
pub fn drop_without_destroy_is_safe(ctx: &mut Ctx) -> Outcome {
    let mut g = GpArray::<u32>::builder(&[8]).build(ctx);
    fill(&mut g, ctx);
    ctx.sync();
    if ctx.pid() == 0 {
        drop(g);
        ctx.sync();
        ctx.sync();
        return Ok(());
    }
    let mut buf = GpBuf::new();
    ctx.superstep(|s| g.get(s, &[0], &[7], &mut buf));
    ctx.superstep(|s| g.get(s, &[0], &[7], &mut buf));
    let want: Vec<Vec<u32>> = (0..8).map(|i| read(&[i], &[8])).collect();
    expect("the array", buf.into_elements(), want)
}

/// Every handle dropped in the same superstep, with a put of nothing queued.
pub fn every_handle_dropped_in_one_superstep_is_safe(ctx: &mut Ctx) -> Outcome {
    let mut g = GpArray::<u32>::builder(&[8]).build(ctx);
    let s0 = ctx.step();
    fill(&mut g, ctx);
    ctx.sync();
    g.put(ctx, &[0], &[0], &[[1u32; 0]], false);
    drop(g);
    ctx.sync();
    expect("syncs after the creation", ctx.step() - s0, 2)
}

/// Seven dimensions are fine.
pub fn seven_dimensions_are_fine(ctx: &mut Ctx) -> Outcome {
    let mut g = GpArray::<u8>::builder(&[2, 1, 1, 1, 1, 1, 2]).build(ctx);
    fill_u8(&mut g, ctx);
    ctx.sync();
    let mut buf = GpBuf::new();
    ctx.superstep(|s| g.get(s, &[0; 7], &[1, 0, 0, 0, 0, 0, 1], &mut buf));
    expect("the array", buf.into_elements(), vec![vec![0], vec![1], vec![2], vec![3]])
}

/// D1 with GP reads: a GP read whose destination is registered memory lands after every get
/// source of the superstep has been read (found by review: it used to land in the get phase).
pub fn a_gp_read_into_registered_memory_lands_after_the_get_sources_are_read(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let mut xs = ctx.register([7usize]);
    let mut g = GpArray::<u64>::builder(&[p]).build(ctx);
    g.assign_local(ctx, &[pid], vec![0u64; 5]);
    ctx.sync();
    let mut seen = 0usize;
    ctx.superstep(|s| {
        let (name, local) = xs.split_mut(s);
        g.get_size(s, &[pid], &[pid], &mut local[0]); // lands in this process's `xs`
        s.get((pid + 1) % p, name, 0, &mut seen); // reads a neighbour's `xs`
    });
    expect("(the neighbour's xs as read, own xs after the sync)", (seen, *xs.value(ctx)), (7, 5))
}

// ---------------------------------------------------------------------------------------------
// A model check: random supersteps of gets, gathers, puts and scatters against a sequential
// model of the rules (reads see the superstep's start plus the owner's local writes; writes
// land in ascending pid and issue order).
// ---------------------------------------------------------------------------------------------

/// Every process computes every process's random supersteps and the whole model, and compares
/// its own reads with the model's (seed `10 + p`).
pub fn random_supersteps_match_the_sequential_model(ctx: &mut Ctx) -> Outcome {
    let dims = [5usize, 6];
    let steps = 6;
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let seed = 10 + p as u64;
    let mut g = GpArray::<u32>::builder(&dims).build(ctx);
    if let Some((lo, hi)) = g.distribution(pid) {
        for sub in subscripts(&lo, &hi) {
            g.assign_local(ctx, &sub, vec![0; model_len(&sub)]);
        }
    }
    ctx.sync();
    let mut seen = Vec::new();
    for step in 0..steps {
        let me = model_step(seed, step, pid, &dims);
        let mut bufs: Vec<GpBuf<u32>> = me.reads.iter().map(|_| GpBuf::new()).collect();
        ctx.superstep(|s| {
            for w in &me.writes {
                if w.patch {
                    g.put(s, &w.subs[0], w.subs.last().unwrap(), &w.data, w.checksize);
                } else {
                    g.scatter(s, &w.subs, &w.data, w.checksize);
                }
            }
            for ((lo, hi), buf) in me.reads.iter().zip(bufs.iter_mut()) {
                g.get(s, lo, hi, buf);
            }
        });
        seen.push(bufs.into_iter().map(GpBuf::into_elements).collect::<Vec<_>>());
    }
    // The model.
    let mut c = Complaints::default();
    let mut model: Vec<Vec<u32>> = subscripts(&[0, 0], &[4, 5]).map(|s| vec![0; model_len(&s)]).collect();
    for (step, seen) in seen.iter().enumerate() {
        let all: Vec<Step> = (0..p).map(|q| model_step(seed, step, q, &dims)).collect();
        c.expect(format_args!("step {step}: reads"), seen.len(), all[pid].reads.len());
        for (k, ((lo, hi), got)) in all[pid].reads.iter().zip(seen).enumerate() {
            let want: Vec<Vec<u32>> = subscripts(lo, hi).map(|s| model[rank(&s, &dims)].clone()).collect();
            c.expect(format_args!("seed {seed} step {step} read {k}"), got, &want);
        }
        for st in &all {
            for w in &st.writes {
                for (s, d) in w.subs.iter().zip(&w.data) {
                    model[rank(s, &dims)][..d.len()].copy_from_slice(d);
                }
            }
        }
    }
    c.outcome()
}

checks! {
    distribution_matches_the_ga_test_vectors => Procs::at_least(3).on(&[3, 4, 6, 8, 12]),
    chunk_at_every_p,
    irregular_distribution_at_every_p,
    builder_name_dims_and_debug => Procs::ALL.on(&[2]),
    local_element_operations_at_every_p,
    get_packs_patches_in_row_major_order_at_every_p,
    get_into_caller_buffers_at_every_p,
    gather_with_duplicates_at_every_p,
    a_buffer_is_refilled_not_appended => Procs::ALL.on(&[3]),
    put_rows_highest_pid_wins_at_every_p,
    put_without_checksize_writes_a_prefix,
    scatter_duplicates_last_applied_wins_at_every_p,
    get_sees_the_superstep_end_before_its_puts,
    memzero_zeroes_every_element_at_every_p,
    destroy_returns_the_local_elements_at_every_p,
    create_destroy_cycles_with_other_registrations => Procs::ALL.on(&[2, 3]),
    drop_without_destroy_is_safe,
    every_handle_dropped_in_one_superstep_is_safe,
    seven_dimensions_are_fine => Procs::ALL.on(&[2]),
    a_gp_read_into_registered_memory_lands_after_the_get_sources_are_read,
    random_supersteps_match_the_sequential_model,
}

// ---------------------------------------------------------------------------------------------
// Errors: each names the array, the operation, the subscript and the process
// ---------------------------------------------------------------------------------------------

fn error_access_out_of_range(ctx: &mut Ctx, _: &Probe) {
    let g = GpArray::<u8>::builder(&[10]).name("e").build(ctx);
    if ctx.pid() == 1 {
        g.access(ctx, &[10]);
    }
}

fn error_gather_out_of_range(ctx: &mut Ctx, _: &Probe) {
    let g = GpArray::<u8>::builder(&[3, 4]).name("e").build(ctx);
    ctx.sync();
    let mut buf = GpBuf::new();
    ctx.superstep(|s| g.gather(s, &[[0, 0], [2, 9]], &mut buf));
}

fn error_scatter_out_of_range(ctx: &mut Ctx, _: &Probe) {
    let g = GpArray::<u8>::builder(&[4]).name("e").build(ctx);
    ctx.sync();
    g.scatter(ctx, &[[4]], &[[1u8]], false);
}

fn error_subscript_with_the_wrong_number_of_indices(ctx: &mut Ctx, _: &Probe) {
    let mut g = GpArray::<u8>::builder(&[10]).name("e").build(ctx);
    g.assign_local(ctx, &[1, 2], [0]);
}

fn error_access_of_a_remote_element(ctx: &mut Ctx, _: &Probe) {
    let g = GpArray::<u8>::builder(&[10]).name("e").build(ctx);
    if ctx.pid() == 0 {
        g.access(ctx, &[9]);
    }
}

fn error_assign_local_of_a_remote_element(ctx: &mut Ctx, _: &Probe) {
    let mut g = GpArray::<u8>::builder(&[10]).name("e").build(ctx);
    if ctx.pid() == 1 {
        g.assign_local(ctx, &[0], [1]);
    }
}

fn error_free_local_of_a_remote_element(ctx: &mut Ctx, _: &Probe) {
    let mut g = GpArray::<u8>::builder(&[10]).name("e").build(ctx);
    if ctx.pid() == 1 {
        g.free_local(ctx, &[0]);
    }
}

fn error_access_mut_on_a_process_that_owns_nothing(ctx: &mut Ctx, _: &Probe) {
    let mut g = GpArray::<u8>::builder(&[5]).name("e").build(ctx);
    if ctx.pid() == 7 {
        g.access_mut(ctx, &[0]);
    }
}

fn error_put_into_an_unassigned_element(ctx: &mut Ctx, _: &Probe) {
    let g = GpArray::<u32>::builder(&[10]).name("e").build(ctx);
    ctx.sync();
    if ctx.pid() == 0 {
        g.put(ctx, &[7], &[7], &[[1u32, 2]], false);
    }
    ctx.sync();
}

fn error_checksize_mismatch(ctx: &mut Ctx, _: &Probe) {
    let mut g = GpArray::<u32>::builder(&[6]).name("e").build(ctx);
    let (lo, hi) = g.distribution(ctx.pid()).unwrap();
    for i in lo[0]..=hi[0] {
        g.assign_local(ctx, &[i], [0, 0, 0]);
    }
    ctx.sync();
    if ctx.pid() == 2 {
        g.scatter(ctx, &[[1]], &[[1u32, 2]], true);
    }
    ctx.sync();
}

fn error_put_longer_than_the_element(ctx: &mut Ctx, _: &Probe) {
    let mut g = GpArray::<u8>::builder(&[2]).name("e").build(ctx);
    let me = ctx.pid();
    g.assign_local(ctx, &[me], [0, 0, 0]);
    ctx.sync();
    if me == 1 {
        g.put(ctx, &[0], &[0], &[[1u8, 2, 3, 4]], false);
    }
    ctx.sync();
}

/// An owner-side error stops every process, even those that carry on syncing.
fn error_at_the_sync_stops_every_process(ctx: &mut Ctx, _: &Probe) {
    let g = GpArray::<u32>::builder(&[1]).name("e").build(ctx);
    ctx.sync();
    if ctx.pid() == ctx.nprocs() - 1 {
        g.put(ctx, &[0], &[0], &[[1u32]], false);
    }
    let mut buf = GpBuf::new();
    ctx.superstep(|s| g.get(s, &[0], &[0], &mut buf));
    loop {
        ctx.sync();
    }
}

fn error_get_of_a_patch_with_lo_above_hi(ctx: &mut Ctx, _: &Probe) {
    let g = GpArray::<u8>::builder(&[4]).name("e").build(ctx);
    ctx.sync();
    let mut buf = GpBuf::new();
    ctx.superstep(|s| g.get(s, &[3], &[2], &mut buf));
}

fn error_get_size_of_a_patch_out_of_range(ctx: &mut Ctx, _: &Probe) {
    let g = GpArray::<u8>::builder(&[2, 4]).name("e").build(ctx);
    ctx.sync();
    let mut n = 0;
    ctx.superstep(|s| g.get_size(s, &[0, 0], &[1, 4], &mut n));
}

fn error_put_of_a_patch_with_too_few_indices(ctx: &mut Ctx, _: &Probe) {
    let g = GpArray::<u8>::builder(&[2, 4]).name("e").build(ctx);
    ctx.sync();
    g.put(ctx, &[0], &[1], &[[0u8]], false);
}

fn error_put_of_fewer_elements_than_the_patch(ctx: &mut Ctx, _: &Probe) {
    let g = GpArray::<u8>::builder(&[4]).name("e").build(ctx);
    ctx.sync();
    g.put(ctx, &[0], &[2], &[[0u8], [0]], false);
}

fn error_scatter_of_fewer_elements_than_subscripts(ctx: &mut Ctx, _: &Probe) {
    let g = GpArray::<u8>::builder(&[4]).name("e").build(ctx);
    ctx.sync();
    g.scatter(ctx, &[[0], [1]], &[[0u8]], false);
}

fn error_get_into_a_destination_of_the_wrong_length(ctx: &mut Ctx, _: &Probe) {
    let g = GpArray::<u8>::builder(&[4]).name("e").build(ctx);
    ctx.sync();
    let mut dst = vec![Vec::new(); 2];
    ctx.superstep(|s| g.get_into(s, &[0], &[3], &mut dst));
}

fn error_gather_into_a_destination_of_the_wrong_length(ctx: &mut Ctx, _: &Probe) {
    let g = GpArray::<u8>::builder(&[4]).name("e").build(ctx);
    ctx.sync();
    let mut dst = vec![Vec::new(); 1];
    ctx.superstep(|s| g.gather_into(s, &[[0], [1]], &mut dst));
}

fn error_zero_dimensions(ctx: &mut Ctx, _: &Probe) {
    GpArray::<u8>::builder(&[]).name("e").build(ctx);
}

fn error_eight_dimensions(ctx: &mut Ctx, _: &Probe) {
    GpArray::<u8>::builder(&[1; 8]).build(ctx);
}

fn error_an_axis_of_extent_0(ctx: &mut Ctx, _: &Probe) {
    GpArray::<u8>::builder(&[3, 0]).name("e").build(ctx);
}

fn error_a_chunk_of_the_wrong_length(ctx: &mut Ctx, _: &Probe) {
    GpArray::<u8>::builder(&[3, 3]).chunk(&[1]).name("e").build(ctx);
}

fn error_more_blocks_than_processes(ctx: &mut Ctx, _: &Probe) {
    GpArray::<u8>::builder(&[8, 8]).irregular(&[0, 4, 0, 2, 5], &[2, 3]).name("e").build(ctx);
}

fn error_a_first_block_not_at_0(ctx: &mut Ctx, _: &Probe) {
    GpArray::<u8>::builder(&[8]).irregular(&[1, 4], &[2]).name("e").build(ctx);
}

fn error_both_chunk_and_irregular(ctx: &mut Ctx, _: &Probe) {
    GpArray::<u8>::builder(&[8]).chunk(&[2]).irregular(&[0, 4], &[2]).name("e").build(ctx);
}

fn error_a_zero_sized_element_type(ctx: &mut Ctx, _: &Probe) {
    GpArray::<()>::builder(&[8]).name("e").build(ctx);
}

/// Processes that create arrays of different types or shapes fail together at the sync, before
/// anyone reads the other's elements.
fn error_processes_disagree_on_the_element_type(ctx: &mut Ctx, probe: &Probe) {
    if ctx.pid() == 0 {
        drop(GpArray::<u32>::builder(&[4]).build(ctx));
    } else {
        drop(GpArray::<f32>::builder(&[4]).build(ctx));
    }
    probe.reached("past the mismatched sync");
}

fn error_processes_disagree_on_the_shape(ctx: &mut Ctx, probe: &Probe) {
    let n = if ctx.pid() == 2 { 5 } else { 4 };
    drop(GpArray::<u32>::builder(&[n]).build(ctx));
    probe.reached("past the mismatched sync");
}

/// A GP array where another process registers memory of the same element size.
fn error_a_gp_array_against_a_registration(ctx: &mut Ctx, probe: &Probe) {
    if ctx.pid() == 0 {
        drop(GpArray::<u32>::builder(&[4]).build(ctx));
    } else {
        drop(ctx.register([0u32]));
    }
    probe.reached("past the mismatched sync");
}

cases! {
    error_access_out_of_range: [2] => |f| f.mentions(&[
        "process 1",
        "gp array `e`: access: subscript [10] is out of range for dims [10]",
        "index 10 on axis 0",
    ]),
    #[several]
    error_gather_out_of_range: [3] =>
        |f| f.mentions(&["gp array `e`: gather: subscript [2, 9] is out of range for dims [3, 4]"]),
    #[several]
    error_scatter_out_of_range: [2] => |f| f.mentions(&["gp array `e`: scatter: subscript [4] is out of range"]),
    #[several]
    error_subscript_with_the_wrong_number_of_indices: [2] => |f| f.mentions(&[
        "gp array `e`: assign_local: subscript [1, 2] has 2 indices but the array has 1 dimensions",
    ]),
    error_access_of_a_remote_element: [2] => |f| f.mentions(&[
        "process 0",
        "gp array `e`: access: subscript [9] is owned by process 1, not by this process",
        "this process owns [0]..=[4]",
        "local operations take local subscripts only",
    ]),
    error_assign_local_of_a_remote_element: [2] =>
        |f| f.mentions(&["gp array `e`: assign_local: subscript [0] is owned by process 0"]),
    error_free_local_of_a_remote_element: [2] =>
        |f| f.mentions(&["gp array `e`: free_local: subscript [0] is owned by process 0"]),
    error_access_mut_on_a_process_that_owns_nothing: [8] => |f| f.mentions(&[
        "gp array `e`: access_mut: subscript [0] is owned by process 0",
        "this process owns no element",
    ]),
    error_put_into_an_unassigned_element: [2] => |f| f.mentions(&[
        "process 1",
        "gp array `e`: put from process 0 into element [7] (owned by process 1): the element is unassigned",
        "assign_local",
    ]),
    error_checksize_mismatch: [3] => |f| f.mentions(&[
        "process 0",
        "gp array `e`: scatter from process 2 into element [1] (owned by process 0)",
        "checksize: the data has 2 elements of `u32` but the array element holds 3",
    ]),
    error_put_longer_than_the_element: [2] => |f| f.mentions(&[
        "gp array `e`: put from process 1 into element [0]",
        "the data has 4 elements of `u8` but the array element holds only 3",
    ]),
    error_at_the_sync_stops_every_process: [1, 2, 3, 4, 8] => |f| f.mentions(&["the element is unassigned"]),
    #[several]
    error_get_of_a_patch_with_lo_above_hi: [2] =>
        |f| f.mentions(&["gp array `e`: get of patch [3]..=[2]: `lo` is above `hi` on axis 0"]),
    #[several]
    error_get_size_of_a_patch_out_of_range: [2] => |f| f.mentions(&[
        "gp array `e`: get_size of patch [0, 0]..=[1, 4]: index 4 on axis 1 is out of range for dims [2, 4]",
    ]),
    #[several]
    error_put_of_a_patch_with_too_few_indices: [2] =>
        |f| f.mentions(&["gp array `e`: put of patch [0]..=[1]: `lo` and `hi` need one index per axis"]),
    #[several]
    error_put_of_fewer_elements_than_the_patch: [2] =>
        |f| f.mentions(&["gp array `e`: put of patch [0]..=[2]: 2 elements were given but the patch has 3"]),
    #[several]
    error_scatter_of_fewer_elements_than_subscripts: [2] =>
        |f| f.mentions(&["gp array `e`: scatter: 1 elements were given for 2 subscripts"]),
    #[several]
    error_get_into_a_destination_of_the_wrong_length: [2] =>
        |f| f.mentions(&["gp array `e`: get_into of patch [0]..=[3]: `dst` has 2 elements but the patch has 4"]),
    #[several]
    error_gather_into_a_destination_of_the_wrong_length: [2] =>
        |f| f.mentions(&["gp array `e`: gather_into: `dst` has 1 elements but 2 subscripts were given"]),
    #[several]
    error_zero_dimensions: [2] =>
        |f| f.mentions(&["gp array `e`: create: a GP array needs 1 to 7 dimensions, found 0"]),
    #[several]
    error_eight_dimensions: [2] =>
        |f| f.mentions(&["a gp array of `u8`: create: a GP array needs 1 to 7 dimensions, found 8"]),
    #[several]
    error_an_axis_of_extent_0: [2] => |f| f.mentions(&["gp array `e`: create: axis 1 has extent 0"]),
    #[several]
    error_a_chunk_of_the_wrong_length: [2] => |f| f.mentions(&["gp array `e`: create: `chunk` has 1 values"]),
    #[several]
    error_more_blocks_than_processes: [4] => |f| f.mentions(&[
        "gp array `e`: create: `nblock` [2, 3] makes 6 blocks but there are 4 processes",
    ]),
    #[several]
    error_a_first_block_not_at_0: [2] =>
        |f| f.mentions(&["gp array `e`: create: the first block of axis 0 starts at 1"]),
    #[several]
    error_both_chunk_and_irregular: [2] => |f| f.mentions(&["gp array `e`: both `chunk` and `irregular` were given"]),
    error_a_zero_sized_element_type: [1] => |f| f.mentions(&["gp array `e`: the element type `()` has size 0"]),
    #[several]
    error_processes_disagree_on_the_element_type: [2] => |f| f.mentions(&[
        "registration mismatch at the sync ending superstep 0",
        "GpShared<u32>",
        "GpShared<f32>",
    ]),
    error_processes_disagree_on_the_shape: [3] =>
        |f| f.mentions(&["registration mismatch at the sync ending superstep 0"]),
    error_a_gp_array_against_a_registration: [2] =>
        |f| f.mentions(&["registration mismatch at the sync ending superstep 0"]),
}
