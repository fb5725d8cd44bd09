//! Sparse matrix–vector multiplication `u = A·v` with arbitrary distributions of the matrix and
//! the vectors, as in Bisseling's book (*Parallel Scientific Computation*, 2nd ed., chapter 4):
//! the book version beside the tutorial `matvec.rs`, which fetches runs of a cyclic vector and
//! has no fan-in.
//!
//! Each nonzero a_ij, each v_j and each u_i has an owner, given by a distribution that the
//! algorithm only asks "is it mine?". Here the matrix is distributed Cartesian on an M × N grid,
//! the most square with M ≥ N (a_ij on `P(i mod M, j mod N)`, `pid = s + t·M`; by rows at
//! p = 2), v_j on a process of processor column `j mod N` and u_i on one of processor row
//! `i mod M`, but any other would do. A product has the book's four supersteps, 2 syncs:
//!
//! 0. **fan-out**: every process gets each v_j its nonzeros need from the owner of v_j, one
//!    single-element get per component (the own ones are read in place), all through one get
//!    batch (`get_batch`, `get_each`: the checks that do not depend on the get made once);
//! 1. **local multiply**: a partial sum `Σ a_ij v_j` for each local row i, one pass over
//!    slices of the local nonzeros, written straight into u for the rows of own u_i;
//! 2. **fan-in**: the partial sum goes to the owner of u_i with a combining put (`put_combine`
//!    with `+`, through a put batch), one per row;
//! 3. **sum up**: the combining puts add up at the sync, so this superstep is empty.
//!
//! The fan-out list is ordered by owner and local index, and so are the fan-in rows, so runs of
//! consecutive components travel as one record each (the runtime merges consecutive one-element
//! gets, and consecutive combining puts, that continue each other).
//!
//! The **init** phase (the book's `bspmv_init`) learns where the components it needs live,
//! with no process knowing the distribution of another: the owner of v_j (and of u_i) puts its
//! pid and local index into a directory entry on process `j / ⌈n/p⌉`; then each process gets the
//! entries of its columns and rows (2 syncs, single-element puts and gets). It lays out the
//! fan-out buffer after the own part of v, so that the local multiply reads one array, and
//! renumbers the columns of its nonzeros into that buffer (compressed sparse rows, `u32`). The
//! own u_i that some local row writes come first in u, in the order of those rows, so that the
//! multiply writes them in order, with no list of indices.
//!
//! A is pseudo-random (a hash of the position, the same for every p): row i has a_ii = 8 and
//! `OFF_DIAGONAL` more nonzeros in pseudo-random columns, small integers, and v_j = 1 + j mod 5,
//! so every sum is exact in any order. After `PRODUCTS` products (timed), each process compares
//! its own u_i with the row sums computed from A itself; the run fails on any difference.
//! Process 0 prints the same line for every p on stdout, and on stderr the time of the products
//! and the number of single-element gets and puts per product (over all processes):
//!
//! ```text
//! cargo run --release --example book_bspmv              # n = 1000
//! BSP_NPROCS=2 cargo run --release --example book_bspmv -- 100000
//! ```

use bsp::{ops, Combiner, Ctx, Launch, Reg};

/// Order of the matrix unless given as the first argument.
const DEFAULT_N: usize = 1000;
/// Nonzeros per row besides the diagonal.
pub const OFF_DIAGONAL: usize = 6;
/// Products timed.
pub const PRODUCTS: usize = 20;

/// A pseudo-random 64-bit hash of `x`.
fn hash(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The nonzeros of row i, as (column, value): the diagonal, then `OFF_DIAGONAL` more, with
/// values in ±1..=±3 (a column may repeat: its values add up).
pub fn row(n: usize, i: usize) -> impl Iterator<Item = (usize, f64)> {
    let off = (1..=OFF_DIAGONAL as u64).map(move |k| {
        let h = hash(((i as u64) << 8) + k);
        ((h >> 8) as usize % n, [-3.0, -2.0, -1.0, 1.0, 2.0, 3.0][(h & 0xff) as usize % 6])
    });
    std::iter::once((i, 8.0)).chain(off)
}

/// Component j of v.
pub fn v(j: usize) -> f64 {
    (1 + j % 5) as f64
}

/// The distribution: who owns each nonzero and each vector component.
#[derive(Clone, Copy, Debug)]
struct Distribution {
    m: usize,
    nn: usize,
}

impl Distribution {
    fn new(p: usize) -> Distribution {
        let nn = (1..=p).filter(|d| p % d == 0 && d * d <= p).max().unwrap_or(1);
        Distribution { m: p / nn, nn }
    }
    fn nonzero(&self, i: usize, j: usize) -> usize {
        i % self.m + (j % self.nn) * self.m
    }
    fn v(&self, j: usize) -> usize {
        (j / self.nn) % self.m + (j % self.nn) * self.m
    }
    fn u(&self, i: usize) -> usize {
        i % self.m + ((i / self.m) % self.nn) * self.m
    }
}

/// One process's part of the product, made by [`init`].
#[derive(Debug)]
pub struct Local {
    /// Nonzeros by local row, rows with an own u_i first: row r is `starts[r]..starts[r + 1]`
    /// of `values` and `columns` (positions in the fan-out buffer).
    starts: Vec<usize>,
    columns: Vec<u32>,
    values: Vec<f64>,
    /// The number of rows with an own u_i: row r < `own_rows` writes local u component r (the
    /// own u components no local row writes come after them, and are set to 0).
    own_rows: usize,
    /// For the other rows: the owner of their u_i and its local index there.
    fan_in: Vec<(usize, usize)>,
    /// The fan-out: (owner of v_j, its local index there); entry k goes to position k after the
    /// own v part.
    fan_out: Vec<(u32, u32)>,
    /// The number of own v components: the fan-out buffer starts with them.
    own_v: usize,
}

/// Builds this process's part of the product (the book's `bspmv_init`): the nonzeros and vector
/// components `mine` says are this process's, ascending, and where the others it needs live.
/// Returns it with the own v and u indices. Collective; 4 syncs (2 of them registrations).
fn init(ctx: &mut Ctx, n: usize, mine: Distribution) -> (Local, Vec<usize>, Vec<usize>) {
    let (me, p) = (ctx.pid(), ctx.nprocs());
    let nonzeros: Vec<(usize, usize, f64)> = (0..n)
        .flat_map(|i| row(n, i).map(move |(j, a)| (i, j, a)))
        .filter(|&(i, j, _)| mine.nonzero(i, j) == me)
        .collect();
    let mut rows: Vec<usize> = nonzeros.iter().map(|e| e.0).collect();
    rows.dedup(); // ascending already
    let own_v: Vec<usize> = (0..n).filter(|&j| mine.v(j) == me).collect();
    // The own u_i with a local row first, so that those rows write the start of u in order.
    let (mut own_u, without): (Vec<usize>, Vec<usize>) =
        (0..n).filter(|&i| mine.u(i) == me).partition(|i| rows.binary_search(i).is_ok());
    own_u.extend(without);

    // The directory: entry j of v (and i of u) on process j / b, as pid << 32 | local index.
    let b = n.div_ceil(p).max(1);
    let dir = ctx.register(vec![0u64; 2 * b]);
    for (l, &j) in own_v.iter().enumerate() {
        ctx.put(j / b, &((me as u64) << 32 | l as u64), &dir, j % b);
    }
    for (l, &i) in own_u.iter().enumerate() {
        ctx.put(i / b, &((me as u64) << 32 | l as u64), &dir, b + i % b);
    }
    ctx.sync();
    let mut columns: Vec<usize> = nonzeros.iter().map(|e| e.1).collect();
    columns.sort_unstable();
    columns.dedup();
    let (mut col_at, mut row_at) = (vec![0u64; columns.len()], vec![0u64; rows.len()]);
    ctx.superstep(|s| {
        let (c, r) = (s.dest(&mut col_at), s.dest(&mut row_at));
        for (k, &j) in columns.iter().enumerate() {
            s.get(j / b, &dir, j % b, c.at(k));
        }
        for (k, &i) in rows.iter().enumerate() {
            s.get(i / b, &dir, b + i % b, r.at(k));
        }
    });
    ctx.unregister(dir);
    let split = |e: u64| ((e >> 32) as usize, (e & 0xffff_ffff) as usize);

    // The fan-out buffer: the own v components, then the others by owner and index there.
    let places: Vec<(usize, usize)> = col_at.iter().map(|&e| split(e)).collect();
    let mut remote: Vec<usize> = (0..columns.len()).filter(|&k| places[k].0 != me).collect();
    remote.sort_unstable_by_key(|&k| places[k]);
    let mut position: Vec<u32> = places.iter().map(|&(_, l)| l as u32).collect();
    let mut fan_out = Vec::with_capacity(remote.len());
    for (to, &k) in remote.iter().enumerate() {
        position[k] = (own_v.len() + to) as u32;
        fan_out.push((places[k].0 as u32, places[k].1 as u32));
    }

    // Rows with an own u_i first, then the others, each by owner and index there.
    let owner: Vec<(usize, usize)> = row_at.iter().map(|&e| split(e)).collect();
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&k| (owner[k].0 != me, owner[k]));
    let mut local = Local {
        starts: vec![0],
        columns: Vec::with_capacity(nonzeros.len()),
        values: Vec::with_capacity(nonzeros.len()),
        own_rows: 0,
        fan_in: Vec::new(),
        fan_out,
        own_v: own_v.len(),
    };
    for k in order {
        let i = rows[k];
        let first = nonzeros.partition_point(|e| e.0 < i);
        for &(_, j, a) in nonzeros[first..].iter().take_while(|e| e.0 == i) {
            local.columns.push(position[columns.binary_search(&j).expect("a local column")]);
            local.values.push(a);
        }
        local.starts.push(local.values.len());
        match owner[k] {
            (q, l) if q == me => {
                debug_assert_eq!(l, local.own_rows, "own rows write u in order");
                local.own_rows += 1;
            }
            other => local.fan_in.push(other),
        }
    }
    (local, own_v, own_u)
}

/// The partial sums `Σ a_ij x_j` of the local rows `rows` into `out`, in order: one pass over
/// their nonzeros, as slices (the matrix's slices taken once, so that the loop keeps them in
/// registers; `columns` cut to the length of `values`, so that one check per row covers both).
fn row_sums(a: &Local, x: &[f64], rows: std::ops::Range<usize>, out: &mut [f64]) {
    let (starts, values) = (&a.starts[rows.start..=rows.end], &a.values[..]);
    let columns = &a.columns[..values.len()];
    for (sum, r) in out.iter_mut().zip(starts.windows(2)) {
        *sum = values[r[0]..r[1]].iter().zip(&columns[r[0]..r[1]]).map(|(&a, &c)| a * x[c as usize]).sum();
    }
}

/// `u = A·v`: `xv` holds the own part of v followed by room for the fan-out, `u` the own part of
/// u; `sums` is scratch space. Collective; 2 syncs.
fn product(ctx: &mut Ctx, a: &Local, xv: &mut Reg<f64>, u: &mut Reg<f64>, add: Combiner<f64>, sums: &mut [f64]) {
    // Superstep 0: the fan-out, one get per needed component of another process, into the
    // buffer after the own part of v.
    ctx.superstep(|s| {
        let (name, local) = xv.split_mut(s);
        s.get_batch(name, &mut local[a.own_v..])
            .get_each(a.fan_out.iter().enumerate().map(|(to, &(q, from))| (q as usize, from as usize, to)));
    });
    // Superstep 1: the local multiply; the sums of own u_i are written in place.
    let (x, own) = (xv.local(ctx), a.own_rows);
    row_sums(a, x, own..own + a.fan_in.len(), sums);
    let (written, untouched) = u.local_mut(ctx).split_at_mut(own);
    row_sums(a, x, 0..own, written);
    untouched.fill(0.0);
    // Superstep 2: the fan-in, one combining put per row of another process's u_i; superstep 3,
    // the sums, happens at the sync.
    let mut batch = ctx.put_batch(&*u);
    for (&(q, l), sum) in a.fan_in.iter().zip(&*sums) {
        batch.put_combine(q, sum, l, add);
    }
    ctx.sync();
}

fn main() {
    bsp::exit_on_error(Launch::new().run(program));
}

/// The SPMD function: init, `PRODUCTS` timed products, the check.
fn program(ctx: &mut Ctx) {
    let n: usize = match std::env::args().nth(1) {
        Some(arg) => arg.parse().unwrap_or_else(|_| panic!("book_bspmv: the argument `{arg}` is not a matrix order")),
        None => DEFAULT_N,
    };
    let p = ctx.nprocs();
    let (a, own_v, own_u) = init(ctx, n, Distribution::new(p));
    let add = ctx.combiner(|x: f64, y: f64| x + y);
    let mut buffer: Vec<f64> = own_v.iter().map(|&j| v(j)).collect();
    buffer.resize(a.own_v + a.fan_out.len(), 0.0);
    let (mut xv, mut u) = ctx.register((buffer, vec![0.0; own_u.len()]));

    let mut sums = vec![0.0; a.fan_in.len()];
    let start = ctx.time();
    for _ in 0..PRODUCTS {
        product(ctx, &a, &mut xv, &mut u, add, &mut sums);
    }
    if ctx.pid() == 0 {
        eprintln!("book_bspmv: n={n} p={p} time {:.6} s", ctx.time() - start);
    }

    // The check: every own u_i against its row of A, exactly (all sums are of small integers).
    let got = u.local(ctx);
    let wrong = own_u.iter().zip(got).filter(|&(&i, &ui)| row(n, i).map(|(j, a)| a * v(j)).sum::<f64>() != ui).count();
    let weighted: f64 = own_u.iter().zip(got).map(|(&i, &ui)| ui * (1 + i % 7) as f64).sum();
    let nonzeros = a.values.len() as f64;
    let totals = ctx.allreduce(&[wrong as f64, nonzeros, got.iter().sum(), weighted], ops::sum);
    let traffic = ctx.allreduce(&[a.fan_out.len(), a.fan_in.len()], ops::sum);
    if totals[0] != 0.0 {
        ctx.abort(format!("book_bspmv: {} components of u differ from the sequential product", totals[0]));
    }
    if ctx.pid() == 0 {
        println!(
            "book_bspmv ok, n = {n}, {} nonzeros, {PRODUCTS} products, sum of u = {}, checksum {}",
            totals[1], totals[2], totals[3]
        );
        eprintln!("book_bspmv: {} single-element gets and {} puts per product", traffic[0], traffic[1]);
    }
}
