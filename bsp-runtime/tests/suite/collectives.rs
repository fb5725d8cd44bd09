//! The collectives (`bsp_runtime::collective`) as engine-neutral checks and failure cases:
//! every check makes all of its syncs (each collective is one or two), then compares what this
//! process got with what it must get for its pid. They run at any process count on either
//! engine (`collectives.rs` runs them on threads at p = 1..8). The cases are the misuse each
//! collective must reject and the mismatches between processes, with their messages.

use std::fmt::Debug;

use bsp_runtime::collective::Parts;
use bsp_runtime::{Ctx, ops};

use super::check::{Outcome, Probe, Procs, cases, checks};

/// Every count from 1 to 8 on threads (and every rank count on MPI).
const ONE_TO_EIGHT: Procs = Procs::ALL.on(&[1, 2, 3, 4, 5, 6, 7, 8]);

/// Collects the differences found by one check.
#[derive(Default)]
struct Found(Vec<String>);

impl Found {
    fn eq<T: PartialEq + Debug>(&mut self, what: impl std::fmt::Display, got: T, want: T) {
        if got != want {
            self.0.push(format!("{what}: got {got:?}, want {want:?}"));
        }
    }

    fn outcome(self, ctx: &Ctx) -> Outcome {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(format!("process {} of {}: {}", ctx.pid(), ctx.nprocs(), self.0.join("; ")))
        }
    }
}

/// An order-sensitive operator: `op(op(a, b), c) != op(a, op(b, c))` and `op(a, b) != op(b, a)`
/// in general, so a result shows the order of combination.
fn mix(a: u64, b: u64) -> u64 {
    a.wrapping_mul(31).wrapping_add(b ^ 0x5555)
}

/// Process `q`'s data for the reductions: two elements that depend on `q`.
fn reduction_data(q: usize) -> [u64; 2] {
    [q as u64 + 1, 1000 - 7 * q as u64]
}

/// The elementwise fold of processes `0..=last`'s data in ascending pid order.
fn fold(last: usize, op: impl Fn(u64, u64) -> u64) -> Vec<u64> {
    let mut acc = reduction_data(0).to_vec();
    for q in 1..=last {
        for (a, b) in acc.iter_mut().zip(reduction_data(q)) {
            *a = op(*a, b);
        }
    }
    acc
}

/// Root `root`'s data for the broadcasts: `n` elements that depend on the root.
fn root_data(root: usize, n: usize) -> Vec<u64> {
    (0..n as u64).map(|i| root as u64 * 1_000_000 + i * i).collect()
}

/// `broadcast` from every root, with lengths 0, 1 and 17; non-roots pass other data, which must
/// be ignored.
pub fn broadcast_from_every_root(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let mut got = Vec::new();
    for root in 0..p {
        for n in [0, 1, 17] {
            let mine = if pid == root { root_data(root, n) } else { vec![u64::MAX; pid] };
            got.push((root, n, ctx.broadcast(root, &mine)));
        }
    }
    let one = ctx.broadcast_one(p - 1, pid as f32 + 0.5);
    let mut f = Found::default();
    for (root, n, v) in got {
        f.eq(format_args!("broadcast from {root} of {n}"), v, root_data(root, n));
    }
    f.eq("broadcast_one", one, (p - 1) as f32 + 0.5);
    f.outcome(ctx)
}

/// `broadcast_large` from every root, with lengths around multiples of p (pieces of unequal
/// and zero length), in exactly two syncs.
pub fn broadcast_large_from_every_root(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let mut got = Vec::new();
    for root in 0..p {
        for n in [0, 1, p - 1, p, 3 * p + 1, 1000] {
            let mine = if pid == root { root_data(root, n) } else { Vec::new() };
            let before = ctx.step();
            let v = ctx.broadcast_large(root, &mine);
            got.push((root, n, v, ctx.step() - before));
        }
    }
    let mut f = Found::default();
    for (root, n, v, syncs) in got {
        f.eq(format_args!("broadcast_large from {root} of {n}"), v, root_data(root, n));
        f.eq(format_args!("syncs of broadcast_large from {root} of {n}"), syncs, 2);
    }
    f.outcome(ctx)
}

/// `reduce` to every root and `allreduce`, with an order-sensitive operator: the result is the
/// fold in ascending pid order; `allreduce` and `reduce` take one sync.
pub fn reductions_fold_in_pid_order(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let data = reduction_data(pid);
    let mut reduced = Vec::new();
    for root in 0..p {
        reduced.push(ctx.reduce(root, &data, mix));
    }
    let before = ctx.step();
    let all = ctx.allreduce(&data, mix);
    let syncs = ctx.step() - before;
    let sum = ctx.allreduce_one(pid as u64 + 1, ops::sum);
    let lo = ctx.allreduce_one(pid as i32 - 3, ops::min);
    let hi = ctx.allreduce_one(pid as i32 - 3, ops::max);
    let empty = ctx.allreduce::<u64>(&[], mix);
    let mut f = Found::default();
    for (root, r) in reduced.into_iter().enumerate() {
        f.eq(format_args!("reduce to {root}"), r, (pid == root).then(|| fold(p - 1, mix)));
    }
    f.eq("allreduce", all, fold(p - 1, mix));
    f.eq("syncs of allreduce", syncs, 1);
    f.eq("allreduce_one sum", sum, (p * (p + 1) / 2) as u64);
    f.eq("allreduce_one min", lo, -3);
    f.eq("allreduce_one max", hi, p as i32 - 4);
    f.eq("allreduce of nothing", empty, Vec::new());
    f.outcome(ctx)
}

/// `allreduce` of floating-point numbers is bit-identical on every process, and equals the
/// sequential sum in ascending pid order.
pub fn allreduce_is_bit_identical(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let x = |q: usize| [0.1 * (q as f64 + 1.0).powi(7), 1.0 / (q as f64 + 3.0), 1e16 * (q % 2) as f64 + 1.0];
    let sum = ctx.allreduce(&x(pid), ops::sum);
    let bits: Vec<u64> = sum.iter().map(|v| v.to_bits()).collect();
    let everyone = ctx.allgather(&bits);
    let mut want = x(0).to_vec();
    for q in 1..p {
        for (a, b) in want.iter_mut().zip(x(q)) {
            *a += b;
        }
    }
    let mut f = Found::default();
    f.eq("allreduce bits", bits, want.iter().map(|v| v.to_bits()).collect());
    for (q, other) in everyone.iter().enumerate() {
        f.eq(format_args!("allreduce bits of process {q}"), other, &everyone[0]);
    }
    f.outcome(ctx)
}

/// `scan` is the inclusive prefix in ascending pid order, in one sync.
pub fn scan_is_inclusive_prefix(ctx: &mut Ctx) -> Outcome {
    let pid = ctx.pid();
    let before = ctx.step();
    let s = ctx.scan(&reduction_data(pid), mix);
    let syncs = ctx.step() - before;
    let count = 10 * (pid as u64 + 1);
    let start = ctx.scan_one(count, ops::sum) - count;
    let empty = ctx.scan::<u8>(&[], |a, b| a ^ b);
    let mut f = Found::default();
    f.eq("scan", s, fold(pid, mix));
    f.eq("syncs of scan", syncs, 1);
    f.eq("exclusive prefix from scan_one", start, 5 * pid as u64 * (pid as u64 + 1));
    f.eq("scan of nothing", empty, Vec::new());
    f.outcome(ctx)
}

/// Process `q`'s data for the gathers: `q % 3` elements (so some are empty).
fn gather_data(q: usize) -> Vec<u32> {
    (0..(q % 3) as u32).map(|i| 100 * q as u32 + i).collect()
}

/// `gather` to every root and `allgather`, with variable and empty sizes, indexed by pid.
pub fn gathers_keep_sizes(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let mut gathered = Vec::new();
    for root in 0..p {
        gathered.push(ctx.gather(root, &gather_data(pid)));
    }
    let all = ctx.allgather(&gather_data(pid));
    let want: Vec<Vec<u32>> = (0..p).map(gather_data).collect();
    let mut f = Found::default();
    for (root, g) in gathered.into_iter().enumerate() {
        f.eq(format_args!("gather to {root}"), g, (pid == root).then(|| want.clone()));
    }
    f.eq("allgather", all, want);
    f.outcome(ctx)
}

/// Root `root`'s part for process `q` in `scatter`: `(q + root) % 4` elements.
fn scatter_part(root: usize, q: usize) -> Vec<i16> {
    (0..((q + root) % 4) as i16).map(|i| (root * 100 + q * 10) as i16 + i).collect()
}

/// `scatter` from every root, with variable and empty parts; non-roots pass nothing.
pub fn scatter_from_every_root(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let mut got = Vec::new();
    for root in 0..p {
        let parts: Vec<Vec<i16>> =
            if pid == root { (0..p).map(|q| scatter_part(root, q)).collect() } else { Vec::new() };
        got.push(ctx.scatter(root, &parts));
    }
    let mut f = Found::default();
    for (root, v) in got.into_iter().enumerate() {
        f.eq(format_args!("scatter from {root}"), v, scatter_part(root, pid));
    }
    f.outcome(ctx)
}

/// `alltoall` with blocks of 0, 1 and 3 elements, and `alltoallv` with variable and empty parts.
pub fn alltoall_transposes(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let value = |from: usize, to: usize, j: usize| (from * 1000 + to * 10 + j) as u64;
    let mut fixed = Vec::new();
    for k in [0, 1, 3] {
        let data: Vec<u64> = (0..p).flat_map(|q| (0..k).map(move |j| value(pid, q, j))).collect();
        fixed.push((k, ctx.alltoall(&data)));
    }
    let parts: Vec<Vec<u64>> = (0..p).map(|q| (0..(pid + q) % 3).map(|j| value(pid, q, j)).collect()).collect();
    let var = ctx.alltoallv(&parts);
    let mut f = Found::default();
    for (k, v) in fixed {
        let want: Vec<u64> = (0..p).flat_map(|q| (0..k).map(move |j| value(q, pid, j))).collect();
        f.eq(format_args!("alltoall with blocks of {k}"), v, want);
    }
    let want: Vec<Vec<u64>> = (0..p).map(|q| (0..(q + pid) % 3).map(|j| value(q, pid, j)).collect()).collect();
    f.eq("alltoallv", var, want);
    f.outcome(ctx)
}

/// Element types of other sizes and alignments (payloads arrive at any byte offset), and a
/// zero-sized one.
pub fn element_types(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let bytes = ctx.allgather(&vec![pid as u8; pid + 1]);
    let wide = ctx.allreduce(&[pid as u128 + (1u128 << 100)], ops::sum);
    let triples = ctx.broadcast(0, &[[1u16, 2, 3], [4, 5, 6]]);
    let units = ctx.allgather(&vec![(); pid]);
    let mut f = Found::default();
    f.eq("allgather of u8", bytes, (0..p).map(|q| vec![q as u8; q + 1]).collect());
    f.eq("allreduce of u128", wide, vec![(p * (p - 1) / 2) as u128 + p as u128 * (1u128 << 100)]);
    f.eq("broadcast of [u16; 3]", triples, vec![[1, 2, 3], [4, 5, 6]]);
    f.eq("allgather of ()", units.iter().map(Vec::len).collect::<Vec<_>>(), (0..p).collect());
    f.outcome(ctx)
}

/// A collective ends the superstep: puts and messages queued before it are completed by its
/// sync, and the user's message queue is untouched by its data.
pub fn collective_ends_the_superstep(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let mut x = ctx.register(vec![0u32; p]);
    for q in 0..p {
        ctx.put(q, &(pid as u32 + 1), &x, pid);
        ctx.send(q, &(), &[pid as u32][..]);
    }
    let sum = ctx.allreduce_one(1u32, ops::sum);
    let landed = x.local_mut(ctx).to_vec();
    let (count, _) = ctx.qsize();
    ctx.unregister(x);
    let mut f = Found::default();
    f.eq("allreduce", sum, p as u32);
    f.eq("puts completed by the collective's sync", landed, (1..=p as u32).collect());
    f.eq("user messages after the collective", count, p);
    f.outcome(ctx)
}

/// Gets queued in a superstep that ends in a collective (`superstep_then`) complete in the
/// collective's sync: one sync in all. A get reads its source before the superstep's puts land
/// (a put to the same place still wins there afterwards), and the collective's result is as
/// without the gets. When `then` makes two collectives, both run and the gets land; when it
/// makes none, one plain sync ends the superstep.
pub fn gets_complete_in_a_collectives_sync(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (next, prev) = ((pid + 1) % p, (pid + p - 1) % p);
    let x = ctx.register(vec![pid as u32 * 10, pid as u32 * 10 + 1]);
    let (mut got, mut hp) = ([0u32; 2], 0u32);
    let before = ctx.step();
    let ((), total) = ctx.superstep_then(
        |s| {
            s.get(next, &x, 0, &mut got);
            s.hpget(prev, &x, 1, &mut hp);
            s.put(next, &[999u32], &x, 0);
        },
        |ctx| ctx.allreduce_one(pid as u64, ops::sum),
    );
    let syncs = ctx.step() - before;
    let after_put = x.local(ctx).to_vec();

    let mut first = 0u32;
    let before = ctx.step();
    let ((), (landed_at_first, second)) = ctx.superstep_then(
        |s| s.get(prev, &x, 1, &mut first),
        |ctx| (ctx.broadcast_one(0, 5u8), ctx.allgather(&[ctx.pid() as u32])),
    );
    let syncs_two = ctx.step() - before;

    let mut plain = 0u32;
    let before = ctx.step();
    let ((), n) = ctx.superstep_then(|s| s.get(next, &x, 1, &mut plain), |ctx| ctx.nprocs());
    let syncs_plain = ctx.step() - before;
    ctx.unregister(x);

    let mut f = Found::default();
    f.eq("syncs of gets + allreduce", syncs, 1);
    f.eq("allreduce beside gets", total, (p * (p - 1) / 2) as u64);
    f.eq("get (read before the put landed)", got, [next as u32 * 10, next as u32 * 10 + 1]);
    f.eq("hpget", hp, prev as u32 * 10 + 1);
    f.eq("the put landed after the gets read", after_put, vec![999, pid as u32 * 10 + 1]);
    f.eq("syncs of gets + broadcast + allgather", syncs_two, 2);
    f.eq("get completed by the first of two collectives", first, prev as u32 * 10 + 1);
    f.eq("broadcast beside a get", landed_at_first, 5);
    f.eq("allgather after it", second, (0..p as u32).map(|q| vec![q]).collect());
    f.eq("syncs when `then` makes none", syncs_plain, 1);
    f.eq("get completed by the plain sync", (plain, n), (next as u32 * 10 + 1, p));
    f.outcome(ctx)
}

/// Collectives take a registration (`&Reg`, `&Registered`) and read its local part at the call:
/// puts that land in it at the collective's own sync do not change what the process contributes.
pub fn collectives_read_registrations(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let next = (pid + 1) % p;
    let (x, row) = ctx.register((reduction_data(pid), (0..p).map(|q| (pid * p + q) as u64).collect::<Vec<_>>()));
    // Overwrite the next process's part of `x` in the superstep the allreduce ends.
    ctx.put(next, &[7u64, 7], &x, 0);
    let mixed = ctx.allreduce(&x, mix);
    let after_put = x.local(ctx).to_vec();
    ctx.put(next, &reduction_data(next), &x, 0); // back to the data
    ctx.sync();
    let sums = ctx.reduce(p - 1, &x, ops::sum);
    let prefix = ctx.scan(&x, mix);
    let from_last = ctx.broadcast(p - 1, &x);
    let large = ctx.broadcast_large(0, &row);
    let gathered = ctx.gather(0, &x);
    let everyone = ctx.allgather(&row);
    let column = ctx.alltoall(&row);
    let mut scoped = [pid as u32, 1];
    let scoped_sum = ctx.with_reg(&mut scoped, |ctx, r| ctx.allreduce(&r, ops::sum));
    let mut f = Found::default();
    f.eq("allreduce of &Reg (read before the put landed)", mixed, fold(p - 1, mix));
    f.eq("the put landed", after_put, vec![7, 7]);
    f.eq("reduce of &Reg", sums, (pid == p - 1).then(|| fold(p - 1, ops::sum)));
    f.eq("scan of &Reg", prefix, fold(pid, mix));
    f.eq("broadcast of &Reg", from_last, reduction_data(p - 1).to_vec());
    f.eq("broadcast_large of &Reg", large, (0..p as u64).collect());
    f.eq("gather of &Reg", gathered, (pid == 0).then(|| (0..p).map(|q| reduction_data(q).to_vec()).collect()));
    let rows: Vec<Vec<u64>> = (0..p).map(|q| (0..p).map(|c| (q * p + c) as u64).collect()).collect();
    f.eq("allgather of &Reg", everyone, rows);
    f.eq("alltoall of &Reg", column, (0..p).map(|q| (q * p + pid) as u64).collect());
    f.eq("allreduce of &Registered", scoped_sum, vec![(p * (p - 1) / 2) as u32, p as u32]);
    f.outcome(ctx)
}

/// The `_into` forms give what the allocating forms give, refill the caller's `Parts` (keeping
/// its memory once it is large enough), and mix with the allocating forms across processes.
pub fn into_forms_refill_the_buffer(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let sizes = [3usize, 0, 2];
    let mut f = Found::default();
    let mut out = Parts::new();
    let mut first_buffer = None;
    for (round, &n) in sizes.iter().enumerate() {
        // Part q: n + q + pid elements (round 0 is the largest, so later rounds fit in its memory).
        let parts: Vec<Vec<u32>> = (0..p).map(|q| vec![(round * 100 + pid * 10 + q) as u32; n + q + pid]).collect();
        let want: Vec<Vec<u32>> = (0..p).map(|q| vec![(round * 100 + q * 10 + pid) as u32; n + pid + q]).collect();
        if pid == p - 1 {
            // The last process uses the allocating form: the two forms are one collective.
            f.eq(format_args!("alltoallv in round {round}"), ctx.alltoallv(&parts), want);
        } else {
            ctx.alltoallv_into(&parts, &mut out);
            f.eq(format_args!("alltoallv_into in round {round}"), out.to_vecs(), want);
            f.eq(format_args!("parts after alltoallv_into in round {round}"), out.len(), p);
            let at = out.flat().as_ptr();
            if *first_buffer.get_or_insert(at) != at {
                f.0.push(format!("alltoallv_into in round {round} moved the buffer (it should reuse it)"));
            }
        }
    }
    let mine = vec![pid as u16; pid + 1];
    let all: Vec<Vec<u16>> = (0..p).map(|q| vec![q as u16; q + 1]).collect();
    let mut gathered = Parts::new();
    ctx.allgather_into(&mine, &mut gathered);
    f.eq("allgather_into", gathered.to_vecs(), all.clone());
    f.eq("allgather_into, flat", gathered.flat().to_vec(), all.concat());
    ctx.gather_into(p - 1, &mine, &mut gathered);
    let want = if pid == p - 1 { all } else { Vec::new() };
    f.eq("gather_into", gathered.to_vecs(), want);
    f.outcome(ctx)
}

checks! {
    broadcast_from_every_root => ONE_TO_EIGHT,
    broadcast_large_from_every_root => ONE_TO_EIGHT,
    reductions_fold_in_pid_order => ONE_TO_EIGHT,
    allreduce_is_bit_identical => ONE_TO_EIGHT,
    scan_is_inclusive_prefix => ONE_TO_EIGHT,
    gathers_keep_sizes => ONE_TO_EIGHT,
    scatter_from_every_root => ONE_TO_EIGHT,
    alltoall_transposes => ONE_TO_EIGHT,
    element_types => ONE_TO_EIGHT,
    collective_ends_the_superstep => ONE_TO_EIGHT,
    gets_complete_in_a_collectives_sync => ONE_TO_EIGHT,
    collectives_read_registrations => ONE_TO_EIGHT,
    into_forms_refill_the_buffer => ONE_TO_EIGHT,
    collective_traffic_is_the_cost_table => ONE_TO_EIGHT,
}

// ---------------------------------------------------------------------------------------------
// Failure cases
// ---------------------------------------------------------------------------------------------

/// Every process passes a root out of range.
fn broadcast_root_out_of_range(ctx: &mut Ctx, probe: &Probe) {
    let p = ctx.nprocs();
    ctx.broadcast(p + 2, &[1u8]);
    probe.reached("past a broadcast with a root out of range");
}

fn reduce_root_out_of_range(ctx: &mut Ctx, probe: &Probe) {
    let p = ctx.nprocs();
    ctx.reduce(p, &[1u8], ops::sum);
    probe.reached("past a reduce with a root out of range");
}

fn gather_root_out_of_range(ctx: &mut Ctx, probe: &Probe) {
    let p = ctx.nprocs();
    ctx.gather(p, &[1u8]);
    probe.reached("past a gather with a root out of range");
}

fn broadcast_large_root_out_of_range(ctx: &mut Ctx, probe: &Probe) {
    let p = ctx.nprocs();
    ctx.broadcast_large(p, &[1u8]);
    probe.reached("past a broadcast_large with a root out of range");
}

fn scatter_root_out_of_range(ctx: &mut Ctx, probe: &Probe) {
    let p = ctx.nprocs();
    ctx.scatter(p, &vec![[1u8]; p]);
    probe.reached("past a scatter with a root out of range");
}

/// The root of a scatter (process 1) passes p - 1 parts.
fn scatter_needs_one_part_per_process(ctx: &mut Ctx, probe: &Probe) {
    let p = ctx.nprocs();
    let parts = if ctx.pid() == 1 { vec![vec![1u8]; p - 1] } else { Vec::new() };
    ctx.scatter(1, &parts);
    probe.reached("past a scatter with too few parts");
}

/// Every process passes one part too many.
fn alltoallv_needs_one_part_per_process(ctx: &mut Ctx, probe: &Probe) {
    let p = ctx.nprocs();
    ctx.alltoallv(&vec![[1u8]; p + 1]);
    probe.reached("past an alltoallv with too many parts");
}

/// Every process passes one part too few to the `_into` form, which names itself.
fn alltoallv_into_needs_one_part_per_process(ctx: &mut Ctx, probe: &Probe) {
    let p = ctx.nprocs();
    ctx.alltoallv_into(&vec![[1u8]; p - 1], &mut Parts::new());
    probe.reached("past an alltoallv_into with too few parts");
}

/// Every process passes p + 1 elements.
fn alltoall_needs_a_multiple_of_p(ctx: &mut Ctx, probe: &Probe) {
    let p = ctx.nprocs();
    ctx.alltoall(&vec![1u8; p + 1]);
    probe.reached("past an alltoall of p + 1 elements");
}

/// Process 1 passes 3 elements, the others 2.
fn allreduce_with_different_lengths(ctx: &mut Ctx, probe: &Probe) {
    let n = if ctx.pid() == 1 { 3 } else { 2 };
    ctx.allreduce(&vec![1.0f64; n], ops::sum);
    probe.reached("past an allreduce with different lengths");
}

/// Process q passes q elements.
fn reduce_with_different_lengths(ctx: &mut Ctx, probe: &Probe) {
    ctx.reduce(0, &vec![1u32; ctx.pid()], ops::sum);
    probe.reached("past a reduce with different lengths");
}

fn scan_with_different_lengths(ctx: &mut Ctx, probe: &Probe) {
    ctx.scan(&vec![1u32; ctx.pid()], ops::sum);
    probe.reached("past a scan with different lengths");
}

/// Process q passes blocks of q + 1 elements.
fn alltoall_with_different_lengths(ctx: &mut Ctx, probe: &Probe) {
    let p = ctx.nprocs();
    ctx.alltoall(&vec![1u32; p * (ctx.pid() + 1)]);
    probe.reached("past an alltoall with different lengths");
}

/// The last process calls `allreduce`, the others `broadcast`.
fn different_collectives(ctx: &mut Ctx, probe: &Probe) {
    if ctx.pid() == ctx.nprocs() - 1 {
        ctx.allreduce(&[1u64], ops::sum);
    } else {
        ctx.broadcast(0, &[1u64]);
    }
    probe.reached("past different collectives");
}

/// Each process names itself the root.
fn different_roots(ctx: &mut Ctx, probe: &Probe) {
    ctx.broadcast(ctx.pid(), &[1u8]);
    probe.reached("past a broadcast with different roots");
}

/// Process 0 gathers `u32`, the others `i32`.
fn different_element_types(ctx: &mut Ctx, probe: &Probe) {
    if ctx.pid() == 0 {
        ctx.allgather(&[1u32]);
    } else {
        ctx.allgather(&[1i32]);
    }
    probe.reached("past an allgather of different element types");
}

/// Process 1 calls plain `sync` where the others call `allreduce`: it checks nothing itself, so
/// the others must stop it.
fn a_plain_sync_beside_a_collective(ctx: &mut Ctx, probe: &Probe) {
    if ctx.pid() == 1 {
        ctx.sync();
    } else {
        ctx.allreduce_one(1u8, ops::sum);
    }
    ctx.sync();
    ctx.sync();
    probe.reached("past a plain sync beside an allreduce");
}

/// Lengths `n` everywhere except `m` on process 1, as the mismatch message lists them.
fn lengths(p: usize, n: usize, m: usize) -> String {
    let mut lens = vec![n; p];
    lens[1] = m;
    format!("per process: {lens:?}")
}

cases! {
    #[several]
    broadcast_root_out_of_range: [1, 3] => |f| {
        f.not_an_abort()?;
        f.mentions(&[&format!("broadcast: root {} is out of range (nprocs = {})", f.p + 2, f.p)])
    },
    #[several]
    reduce_root_out_of_range: [2] => |f| f.mentions(&["reduce: root 2 is out of range (nprocs = 2)"]),
    #[several]
    gather_root_out_of_range: [2] => |f| f.mentions(&["gather: root 2 is out of range"]),
    #[several]
    broadcast_large_root_out_of_range: [2] => |f| f.mentions(&["broadcast_large: root 2 is out of range"]),
    #[several]
    scatter_root_out_of_range: [2] => |f| f.mentions(&["scatter: root 2 is out of range"]),
    scatter_needs_one_part_per_process: [2, 4] => |f| {
        f.failed_on(1)?;
        f.mentions(&[&format!("scatter: the root must pass one part per process, but it passed {} parts (nprocs = {})", f.p - 1, f.p)])
    },
    #[several]
    alltoallv_needs_one_part_per_process: [1, 3] => |f| {
        f.mentions(&[&format!("alltoallv: pass one part per process, but there are {} parts (nprocs = {})", f.p + 1, f.p)])
    },
    #[several]
    alltoallv_into_needs_one_part_per_process: [1, 3] => |f| {
        f.mentions(&[&format!("alltoallv_into: pass one part per process, but there are {} parts (nprocs = {})", f.p - 1, f.p)])
    },
    #[several]
    alltoall_needs_a_multiple_of_p: [2, 3] => |f| {
        f.mentions(&[&format!("alltoall: the length {} is not a multiple of nprocs = {}", f.p + 1, f.p), "alltoallv"])
    },
    allreduce_with_different_lengths: [2, 3, 5] => |f| {
        f.not_an_abort()?;
        f.mentions(&["`allreduce` at the sync ending superstep", "of the same length", &lengths(f.p, 2, 3)])
    },
    reduce_with_different_lengths: [2] => |f| f.mentions(&["`reduce`", "per process: [0, 1]"]),
    scan_with_different_lengths: [3] => |f| f.mentions(&["`scan`", "per process: [0, 1, 2]"]),
    alltoall_with_different_lengths: [2] => |f| f.mentions(&["`alltoall`", "per process: [2, 4]"]),
    different_collectives: [3] => |f| f.mentions(&[
        "collective mismatch at the sync ending superstep",
        "process 0 called `broadcast` with root 0 on `u64`",
        "process 2 called `allreduce` on `u64`",
    ]),
    different_roots: [2] => |f| f.mentions(&[
        "process 0 called `broadcast` with root 0",
        "process 1 called `broadcast` with root 1",
    ]),
    different_element_types: [2] => |f| f.mentions(&["`allgather` on `u32`", "`allgather` on `i32`"]),
    #[several]
    a_plain_sync_beside_a_collective: [2, 3] => |f| f.mentions(&["collective mismatch", "process 1 called no collective"]),
}

// ---------------------------------------------------------------------------------------------
// Traffic
// ---------------------------------------------------------------------------------------------

/// What one collective's superstep counted on this process: (data messages, bytes) sent, the
/// same received, the bytes sent to itself, and h in bytes.
type Counted = ((usize, usize), (usize, usize), usize, usize);

fn counted(ctx: &Ctx) -> Counted {
    let last = ctx.stats().last;
    (
        (last.sent.collectives, last.sent.collective_bytes),
        (last.received.collectives, last.received.collective_bytes),
        last.local.bytes(),
        last.h_bytes,
    )
}

/// The counts of `ctx.stats()` for each collective are those of the cost table
/// (`bsp_runtime::collective`): the elements sent to and received from the other processes, in
/// one message per pair that exchanges data, h = max(sent, received). An `allreduce` of 1000
/// words at p = 4 is h = 3000 words.
pub fn collective_traffic_is_the_cost_table(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let others = p - 1;
    let mut f = Found::default();
    let (w, n) = (8, 1000);
    ctx.allreduce(&vec![pid as u64; n], ops::sum);
    let sent = (others, others * n * w);
    f.eq("allreduce of 1000 words", counted(ctx), (sent, sent, 0, others * n * w));
    f.eq("allreduce of 1000 words: h in words", ctx.stats().last.h_words(), others * n);

    let root = p - 1;
    ctx.broadcast(root, &[1u64; 100]);
    let want = if pid == root { ((others, others * 800), (0, 0), 0, others * 800) } else { ((0, 0), (1, 800), 0, 800) };
    f.eq("broadcast of 100 words", counted(ctx), want);

    ctx.reduce(0, &[1u32; 10], ops::sum);
    let want = if pid == 0 { ((0, 0), (others, others * 40), 0, others * 40) } else { ((1, 40), (0, 0), 0, 40) };
    f.eq("reduce of 10 u32", counted(ctx), want);

    ctx.scan(&[1u64; 5], ops::sum);
    let (to, from) = (p - 1 - pid, pid);
    f.eq("scan of 5 words", counted(ctx), ((to, to * 40), (from, from * 40), 0, to.max(from) * 40));

    // Process q contributes q + 1 `u16`s; N - n_root arrive at the root.
    let n_of = |q: usize| 2 * (q + 1);
    let total: usize = (0..p).map(n_of).sum();
    ctx.gather(0, &vec![1u16; pid + 1]);
    let want = if pid == 0 {
        ((0, 0), (others, total - n_of(0)), 0, total - n_of(0))
    } else {
        ((1, n_of(pid)), (0, 0), 0, n_of(pid))
    };
    f.eq("gather", counted(ctx), want);
    ctx.allgather(&vec![1u16; pid + 1]);
    let (s, r) = (others * n_of(pid), total - n_of(pid));
    f.eq("allgather", counted(ctx), ((others, s), (others, r), 0, s.max(r)));

    let parts: Vec<Vec<u8>> = if pid == 0 { (0..p).map(|q| vec![1u8; q + 1]).collect() } else { Vec::new() };
    ctx.scatter(0, &parts);
    let scattered = p * (p + 1) / 2 - 1;
    let want = if pid == 0 { ((others, scattered), (0, 0), 0, scattered) } else { ((0, 0), (1, pid + 1), 0, pid + 1) };
    f.eq("scatter", counted(ctx), want);

    ctx.alltoall(&vec![1u32; 3 * p]);
    f.eq("alltoall of blocks of 3 u32", counted(ctx), ((others, others * 12), (others, others * 12), 0, others * 12));

    // Part q of process s has (s + q) % 3 words; those of size 0 carry no data.
    let len = |s: usize, q: usize| (s + q) % 3;
    let parts: Vec<Vec<u64>> = (0..p).map(|q| vec![1u64; len(pid, q)]).collect();
    ctx.alltoallv(&parts);
    let sent: Vec<usize> = (0..p).filter(|&q| q != pid).map(|q| len(pid, q)).filter(|&k| k > 0).collect();
    let got: Vec<usize> = (0..p).filter(|&q| q != pid).map(|q| len(q, pid)).filter(|&k| k > 0).collect();
    let (sb, rb) = (8 * sent.iter().sum::<usize>(), 8 * got.iter().sum::<usize>());
    f.eq("alltoallv", counted(ctx), ((sent.len(), sb), (got.len(), rb), 0, sb.max(rb)));

    // With a put in the same superstep, h covers both.
    let x = ctx.register(vec![0u64; 4]);
    ctx.put((pid + 1) % p, &[1u64; 4], &x, 0);
    ctx.allreduce(&[1u64; 10], ops::sum);
    let last = ctx.stats().last;
    ctx.unregister(x);
    let put = if p > 1 { 32 } else { 0 };
    f.eq("put and allreduce: h", last.h_bytes, put + others * 80);
    f.outcome(ctx)
}
