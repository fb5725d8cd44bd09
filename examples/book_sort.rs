//! Sample sort as Bisseling's *Parallel Scientific Computation* (2nd ed., ch. 1) describes it:
//! the book version beside the tutorial `sample_sort`.
//!
//! n 64-bit keys are distributed in blocks (process s holds keys `s·n/p .. (s+1)·n/p` of one
//! pseudo-random sequence). Afterwards process s holds the s-th part of the sorted sequence.
//! The algorithm sorts by regular sampling, in the book's supersteps:
//!
//! 0. Each process sorts its keys (a fast sequential sort) and takes p regular samples, at
//!    local positions `i·nloc/p`; all processes get all p² samples (`allgather`: the book's
//!    puts of the samples into every process, and their sync).
//! 1. Each process sorts the samples and takes the same p - 1 splitters, every p-th one. It
//!    cuts its sorted keys at the splitters (piece q: the keys above splitter q - 1 and at most
//!    splitter q) and sends piece q to process q (keeping its own). The book sends the piece sizes first, then the
//!    pieces (two supersteps); `alltoallv` carries both in one sync.
//! 2. Each process merges the p sorted runs it received, two by two (⌈log₂ p⌉ passes).
//!
//! Regular samples bound the imbalance: no process receives more than about 2n/p keys.
//!
//! The check needs one `gather`: every process sends process 0 its input's and its output's
//! count and wrapping checksums (sum of the keys, sum of a hash of each key), its first and
//! last key, and whether its part is sorted; process 0 checks that the parts are sorted and in
//! order and that the output is a permutation of the input (same count and checksums), and
//! exits with status 1 otherwise.
//!
//! ```text
//! cargo run --release --example book_sort          # n = 100000
//! BSP_NPROCS=4 cargo run --release --example book_sort -- 10000000
//! echo 3 1000000 | cargo run --release --example book_sort    # P = 3, n = 10^6
//! echo 4 10 | mpirun -n 4 target/release/examples/book_sort   # P = 3 (P·P ≤ n), rank 3 idle
//! ```
//!
//! As BSPedupack's programs do, P can come from the input: without an argument, process 0 reads
//! P and n from the standard input before the processes start (`#[bsp::program(set_up = ..)]`,
//! BSPlib's `bsp_init`), and lowers that P until P·P ≤ n.
//!
//! Process 0 prints `book_sort ok, n = 100000, sorted, a permutation of the input (checksums
//! 0x…/0x…)` on stdout, the same for every p, and the time of the sort on stderr
//! (`book_sort: n=… p=… time … s`). Syncs: 4 (one to start the clock together, two for the
//! sort, one for the check). Time against a sequential sort: `bash scripts/book`. Lines of code:
//! 154 without comments and blank lines (BSPedupack's C sort: 235).

use bsp::Ctx;

#[path = "shared/input.rs"]
mod input;

/// Number of keys unless given as the first argument.
const DEFAULT_N: usize = 100_000;
const SEED: u64 = 0x5027_5eed;

/// Element `index` of a seeded pseudo-random sequence (a 64-bit linear congruential generator
/// `x ← a x + c mod 2^64`), reached in O(log index) steps, so that every process generates its
/// own elements of one global sequence, whatever p is.
fn lcg(seed: u64, index: u64) -> u64 {
    const A: u64 = 6364136223846793005;
    const C: u64 = 1442695040888963407;
    // The map after k steps is x ↦ mul·x + add; build it by squaring (a, c) ↦ (a², (a + 1)c).
    let (mut a, mut c, mut mul, mut add) = (A, C, 1u64, 0u64);
    let mut k = index + 1;
    while k > 0 {
        if k & 1 == 1 {
            mul = mul.wrapping_mul(a);
            add = add.wrapping_mul(a).wrapping_add(c);
        }
        c = c.wrapping_mul(a.wrapping_add(1));
        a = a.wrapping_mul(a);
        k >>= 1;
    }
    mul.wrapping_mul(seed).wrapping_add(add)
}

/// The keys process `pid` of `p` starts with: its block of the global sequence, keeping the
/// high 40 bits of each draw (so that some keys repeat when n is large).
pub fn local_keys(n: usize, pid: usize, p: usize) -> Vec<u64> {
    (pid * n / p..(pid + 1) * n / p).map(|i| lcg(SEED, i as u64) >> 24).collect()
}

/// The book's `bspsort`: sorts the keys distributed over all processes and returns this
/// process's part of the sorted sequence. Two syncs.
pub fn bspsort(ctx: &mut Ctx, mut keys: Vec<u64>) -> Vec<u64> {
    let p = ctx.nprocs();
    // Superstep 0: local sort, regular samples to everyone.
    keys.sort_unstable();
    let samples: Vec<u64> = (0..p).filter_map(|i| keys.get(i * keys.len() / p).copied()).collect();
    let mut all = ctx.allgather(&samples).concat();

    // Superstep 1: the same splitters everywhere; piece q goes to process q.
    all.sort_unstable();
    let splitter = |q: usize| all.get((q + 1) * all.len() / p).copied().unwrap_or(u64::MAX);
    let bound = |q: usize| match q {
        0 => 0,
        q if q == p => keys.len(),
        q => keys.partition_point(|&k| k <= splitter(q - 1)),
    };
    // This process's own piece stays where it is.
    let (s, lo, hi) = (ctx.pid(), bound(ctx.pid()), bound(ctx.pid() + 1));
    let pieces: Vec<&[u64]> = (0..p).map(|q| if q == s { &[] } else { &keys[bound(q)..bound(q + 1)] }).collect();
    let mut runs = ctx.alltoallv(&pieces);
    keys.truncate(hi);
    keys.drain(..lo);
    runs[s] = keys;

    // Superstep 2: merge the p sorted runs, two by two.
    while runs.len() > 1 {
        let mut pairs = runs.into_iter();
        runs = std::iter::from_fn(|| {
            let a = pairs.next()?;
            Some(match pairs.next() {
                Some(b) => merge(&a, &b),
                None => a,
            })
        })
        .collect();
    }
    runs.pop().unwrap_or_default()
}

/// The merge of two sorted lists.
fn merge(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let take_b = b[j] < a[i];
        out.push(if take_b { b[j] } else { a[i] });
        j += take_b as usize;
        i += !take_b as usize;
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// Count and wrapping checksums of a list of keys: equal for a list and any permutation of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Checksum {
    count: u64,
    sum: u64,
    hashed: u64,
}

impl Checksum {
    fn of(keys: &[u64]) -> Checksum {
        let hashed = keys.iter().fold(0u64, |h, &k| h.wrapping_add(mix(k)));
        Checksum { count: keys.len() as u64, sum: keys.iter().fold(0, |s, &k| s.wrapping_add(k)), hashed }
    }

    fn add(self, o: Checksum) -> Checksum {
        Checksum {
            count: self.count + o.count,
            sum: self.sum.wrapping_add(o.sum),
            hashed: self.hashed.wrapping_add(o.hashed),
        }
    }
}

/// A 64-bit mixing function (splitmix64's finaliser), so that the hashed sum of a list tells
/// apart lists with the same count and sum.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What each process tells process 0 for the check.
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Summary {
    input: Checksum,
    output: Checksum,
    first: u64,
    last: u64,
    /// 1 if the output part is in order.
    sorted: u64,
}

/// Checks the parts of the sorted sequence, given the summaries of all processes in pid order.
fn check(summaries: &[Summary], n: usize) -> Result<Checksum, String> {
    let total = |f: fn(&Summary) -> Checksum| summaries.iter().map(f).fold(Checksum::default(), Checksum::add);
    let (input, output) = (total(|s| s.input), total(|s| s.output));
    if let Some(q) = summaries.iter().position(|s| s.sorted != 1) {
        return Err(format!("the part on process {q} is not sorted"));
    }
    let nonempty: Vec<(usize, &Summary)> = summaries.iter().enumerate().filter(|(_, s)| s.output.count > 0).collect();
    for pair in nonempty.windows(2) {
        let ((q, a), (r, b)) = (pair[0], pair[1]);
        if a.last > b.first {
            return Err(format!("process {q} ends with {} but process {r} starts with {}", a.last, b.first));
        }
    }
    if input.count != n as u64 || output != input {
        return Err(format!("the output {output:?} is not a permutation of the input {input:?} of {n} keys"));
    }
    Ok(output)
}

/// The set-up, on process 0 before the processes start (BSPlib's `bsp_init`): the number of
/// processes and of keys.
///
/// `book_sort N` takes n from its argument, and P from `BSP_NPROCS` (else one per core, or under
/// `mpirun` one per rank). Without an argument, the standard input may give both, P first, as
/// BSPedupack's programs ask for them; a terminal is asked, and an empty or closed input keeps
/// the defaults. A P read from the input is lowered until P·P ≤ n, as BSPedupack's sort does, so
/// that every block holds at least P keys to take its P samples from; under `mpirun -n R` a P
/// below R leaves the other ranks idle.
fn set_up() -> (usize, u64) {
    const ME: &str = "book_sort";
    if let Some(arg) = std::env::args().nth(1) {
        return (input::default_procs(ME), input::number(ME, Some(&arg), DEFAULT_N, "a number of keys", 0) as u64);
    }
    let words = input::words(&["How many processes?", "How many keys?"]);
    let p = input::number(ME, words.first(), input::default_procs(ME), "a number of processes", 1);
    let n = input::number(ME, words.get(1), DEFAULT_N, "a number of keys", 0);
    let mut fit = p;
    while fit > 1 && fit * fit > n {
        fit -= 1;
    }
    if fit < p {
        eprintln!("book_sort: sorting {n} keys needs p·p ≤ n: using {fit} processes, not {p}");
    }
    (fit, n as u64)
}

#[bsp::program(set_up = set_up)]
fn main(ctx: &mut Ctx, &n: &u64) {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    let n = n as usize;
    let keys = local_keys(n, s, p);
    let input = Checksum::of(&keys);

    ctx.sync();
    let start = ctx.time();
    let sorted = bspsort(ctx, keys);
    let time = ctx.time() - start;

    let summary = Summary {
        input,
        output: Checksum::of(&sorted),
        first: sorted.first().copied().unwrap_or(0),
        last: sorted.last().copied().unwrap_or(0),
        sorted: sorted.is_sorted() as u64,
    };
    if let Some(summaries) = ctx.gather(0, &[summary]) {
        match check(&summaries.concat(), n) {
            Ok(sum) => {
                println!(
                    "book_sort ok, n = {n}, sorted, a permutation of the input (checksums {:#x}/{:#x})",
                    sum.sum, sum.hashed
                );
                eprintln!("book_sort: n={n} p={p} time {time:.6} s");
            }
            Err(why) => ctx.abort(format!("book_sort: {why}")),
        }
    }
}
