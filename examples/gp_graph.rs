//! `gp_graph`: a distributed graph stored the way a Global Arrays user stores it, as adjacency
//! lists in a 1-D global pointer array (element `[v]` holds the out-neighbours of vertex `v`),
//! followed by a level-synchronous breadth-first search over it.
//!
//! 1. **Input.** Process q "reads" the adjacency lists of the vertices `v ≡ q (mod p)` (a
//!    deterministic generator stands in for a file), which are mostly *not* the vertices it
//!    owns under GA's block distribution.
//! 2. **Allocation.** Each reader tells the owner of `v` its degree (a BSMP message); the
//!    owner allocates the element (`GP_Malloc` + `GP_Assign_local_element`: `assign_local`).
//! 3. **Scatter.** In the same superstep the readers scatter the lists into the array, with
//!    `checksize`: the records land at the sync, after the owners' allocations of the superstep.
//! 4. **BFS from vertex 0.** The frontier is known to every process; at each level process q
//!    takes the frontier vertices at positions `i ≡ q (mod p)`, wherever they are stored, and
//!    gathers their adjacency lists (`gather_size` + `gather`: one superstep); it then sends
//!    the vertices it discovered to everyone (one superstep), and every process merges them
//!    into the same next frontier.
//! 5. **Check.** Every process compares the levels with a sequential BFS of the same graph,
//!    and the processes add up their counts (one more superstep), so that process 0 can print
//!    the totals on any engine (on MPI, each rank's `main` has only its own report); the
//!    program exits with status 1 on a mismatch.
//!
//! ```text
//! cargo run --release --example gp_graph          # p from BSP_NPROCS, else 4
//! BSP_NPROCS=8 cargo run --release --example gp_graph
//! ```
//! The output does not depend on p.

use std::collections::VecDeque;
use std::process::ExitCode;

use bsp::gp::{GpArray, GpBuf};
use bsp::{Ctx, Launch};

/// Number of vertices.
const N: usize = 3000;
/// Largest out-degree.
const MAX_DEGREE: u64 = 5;
/// An unvisited vertex's level.
const UNSEEN: u32 = u32::MAX;

/// A 64-bit mixing function (splitmix64's finaliser): the graph's only source of randomness.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The out-neighbours of `v`: 1 to `MAX_DEGREE` pseudo-random vertices.
fn neighbours(v: usize) -> Vec<u32> {
    let degree = 1 + mix(v as u64) % MAX_DEGREE;
    (0..degree).map(|k| (mix((v as u64) << 8 | k) % N as u64) as u32).collect()
}

/// The levels of a sequential BFS from vertex 0 (`UNSEEN` if unreachable).
fn sequential_bfs() -> Vec<u32> {
    let mut level = vec![UNSEEN; N];
    level[0] = 0;
    let mut queue = VecDeque::from([0usize]);
    while let Some(v) = queue.pop_front() {
        for w in neighbours(v) {
            let w = w as usize;
            if level[w] == UNSEEN {
                level[w] = level[v] + 1;
                queue.push_back(w);
            }
        }
    }
    level
}

/// What each process reports: whether its levels match, and totals over every process.
struct Report {
    pid: usize,
    levels_match: bool,
    edges: u64,
    gathered: u64,
    mismatches: u64,
    supersteps: usize,
}

/// The sums over every process of each process's `mine` (one superstep).
fn sum_over_processes<const K: usize>(ctx: &mut Ctx, mine: [u64; K]) -> [u64; K] {
    for q in 0..ctx.nprocs() {
        ctx.send(q, &(), &mine[..]);
    }
    ctx.sync();
    let mut total = [0; K];
    while let Some(((), theirs)) = ctx.move_message::<(), u64>() {
        for (t, x) in total.iter_mut().zip(theirs) {
            *t += x;
        }
    }
    total
}

/// Steps 1-3: the graph in a GP array, built by scatter.
fn build_graph(ctx: &mut Ctx) -> (GpArray<u32>, usize) {
    let (me, p) = (ctx.pid(), ctx.nprocs());
    let mut graph = GpArray::<u32>::builder(&[N]).name("adjacency").build(ctx);

    // 1. This process's share of the input, and 2. the sizes for the owners.
    let mine: Vec<usize> = (me..N).step_by(p).collect();
    let lists: Vec<Vec<u32>> = mine.iter().map(|&v| neighbours(v)).collect();
    for (&v, list) in mine.iter().zip(&lists) {
        let owner = graph.dist().owner(&[v]).expect("v < N");
        ctx.send(owner, &(), &[v as u32, list.len() as u32][..]);
    }
    ctx.sync(); // the array is now known everywhere, and the sizes are delivered

    while let Some(((), msg)) = ctx.move_message::<(), u32>() {
        let (v, degree) = (msg[0] as usize, msg[1] as usize);
        graph.assign_local(ctx, &[v], vec![0; degree]);
    }
    // 3. The lists, into the elements just allocated (they exist when the records land).
    let subs: Vec<[usize; 1]> = mine.iter().map(|&v| [v]).collect();
    let edges = graph.scatter(ctx, &subs, &lists, true);
    ctx.sync();
    (graph, edges)
}

/// Step 4: breadth-first search from vertex 0 over the GP array.
fn bfs(ctx: &mut Ctx, graph: &GpArray<u32>) -> (Vec<u32>, usize) {
    let (me, p) = (ctx.pid(), ctx.nprocs());
    let mut level = vec![UNSEEN; N];
    level[0] = 0;
    let mut frontier = vec![0u32];
    let mut gathered = 0;
    let mut depth = 0;
    while !frontier.is_empty() {
        // My share of the frontier, wherever its lists are stored.
        let share: Vec<[usize; 1]> = frontier.iter().skip(me).step_by(p).map(|&v| [v as usize]).collect();
        let mut lists = GpBuf::new();
        let mut size = 0;
        ctx.superstep(|s| {
            graph.gather_size(s, &share, &mut size);
            graph.gather(s, &share, &mut lists);
        });
        assert_eq!(size, lists.total(), "gather_size and gather agree");
        gathered += size;

        // Newly seen vertices, sent to everyone (duplicates are merged below).
        let mut found: Vec<u32> = lists.data().iter().copied().filter(|&w| level[w as usize] == UNSEEN).collect();
        found.sort_unstable();
        found.dedup();
        for q in 0..p {
            ctx.send(q, &(), &found[..]);
        }
        ctx.sync();

        depth += 1;
        let mut next = Vec::new();
        while let Some(((), found)) = ctx.move_message::<(), u32>() {
            for w in found {
                if level[w as usize] == UNSEEN {
                    level[w as usize] = depth;
                    next.push(w);
                }
            }
        }
        next.sort_unstable(); // the same frontier, in the same order, everywhere
        frontier = next;
    }
    (level, gathered)
}

fn main() -> ExitCode {
    let want = sequential_bfs();
    let reports = bsp::exit_on_error(Launch::new().default_procs(4).run(|ctx| {
        let start = ctx.step();
        let (graph, edges) = build_graph(ctx);
        let (levels, gathered) = bfs(ctx, &graph);
        let supersteps = ctx.step() - start;
        let levels_match = levels == want;
        let [edges, gathered, mismatches] =
            sum_over_processes(ctx, [edges as u64, gathered as u64, u64::from(!levels_match)]);
        // GP_Free_local_element + GP_Free + GP_Destroy: every owned list comes back.
        let owned = graph.dist().local_len(ctx.pid());
        let freed = graph.destroy(ctx);
        assert_eq!(freed.len(), owned, "every vertex has a list");
        Report { pid: ctx.pid(), levels_match, edges, gathered, mismatches, supersteps }
    }));

    // Every process's levels were checked where they were computed.
    for r in reports.iter().filter(|r| !r.levels_match) {
        eprintln!("error: the levels of process {} differ from the sequential bfs", r.pid);
    }
    // Process 0 prints the totals (on MPI, the other ranks have only their own report).
    let Some(report) = reports.iter().find(|r| r.pid == 0) else {
        return if reports.iter().all(|r| r.mismatches == 0) { ExitCode::SUCCESS } else { ExitCode::FAILURE };
    };
    let (edges, gathered) = (report.edges, report.gathered);
    let reached = want.iter().filter(|&&l| l != UNSEEN).count();
    let depth = want.iter().filter(|&&l| l != UNSEEN).max().copied().unwrap_or(0);
    let mut sizes = vec![0usize; depth as usize + 1];
    for &l in want.iter().filter(|&&l| l != UNSEEN) {
        sizes[l as usize] += 1;
    }
    println!("graph: {N} vertices, {edges} edges, adjacency lists scattered into a gp array");
    println!("bfs from vertex 0: {} levels, {reached} vertices reached, level sizes {sizes:?}", depth + 1);
    println!("bfs gathered {gathered} adjacency entries in {} supersteps", report.supersteps);
    if report.mismatches == 0 {
        println!("levels match the sequential bfs");
        ExitCode::SUCCESS
    } else {
        eprintln!("error: the levels of {} processes differ from the sequential bfs", report.mismatches);
        ExitCode::FAILURE
    }
}
