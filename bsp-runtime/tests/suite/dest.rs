//! Many gets into one buffer (`Superstep::dest`, D20) as engine-neutral checks: elements,
//! ranges, overlaps (the later get wins), registered memory as the buffer (its results are
//! staged), and the messages for indices out of range. MPI takes its own path for staged and
//! overlapping gets, so these run there too.

use bsp_runtime::{Ctx, Dest, Reg, Superstep};

use super::check::{Complaints, Outcome, Probe, cases, checks, expect, ring};

/// Element `i` of process `q`'s registration in these checks.
fn value(q: usize, i: usize) -> u64 {
    (q * 1000 + i) as u64
}

/// Registers `n` elements `value(pid, i)` (a sync).
fn register(ctx: &mut Ctx, n: usize) -> Reg<u64> {
    ctx.register((0..n).map(|i| value(ctx.pid(), i)).collect::<Vec<_>>())
}

/// Element `i` of the buffer comes from process `i % p`, element `(i * 7) % (3p)`.
pub fn one_get_per_element_from_every_process(ctx: &mut Ctx) -> Outcome {
    let p = ctx.nprocs();
    let x = register(ctx, 3 * p);
    let mut buf = vec![0u64; 3 * p];
    ctx.superstep(|s| {
        let d = s.dest(&mut buf);
        for i in 0..3 * p {
            s.get(i % p, &x, (i * 7) % (3 * p), d.at(i));
        }
    });
    let want: Vec<u64> = (0..3 * p).map(|i| value(i % p, (i * 7) % (3 * p))).collect();
    ctx.unregister(x);
    expect("the buffer", buf, want)
}

/// Row q of a p×4 block: elements 1..4 of process q at columns 0..3, by `hpget`; then column 3
/// from element 0 of process q, by `get`.
pub fn ranges_with_hpget_and_get(ctx: &mut Ctx) -> Outcome {
    let p = ctx.nprocs();
    let x = register(ctx, 4);
    let mut block = vec![u64::MAX; 4 * p];
    ctx.superstep(|s| {
        let d = s.dest(&mut block);
        for q in 0..p {
            s.hpget(q, &x, 1, d.range(4 * q..4 * q + 3));
            s.get(q, &x, 0, d.range(4 * q + 3..=4 * q + 3));
        }
    });
    let want: Vec<u64> = (0..p).flat_map(|q| [value(q, 1), value(q, 2), value(q, 3), value(q, 0)]).collect();
    ctx.unregister(x);
    expect("the block", block, want)
}

/// The buffer after [`overlapping_gets`], computed in issue order.
fn overlapping_want(p: usize) -> [u64; 6] {
    let mut want = [7; 6];
    for q in (0..p).rev() {
        for j in 0..4 {
            want[q % 3 + j] = value(q, j);
        }
    }
    want[5] = value(p - 1, 3);
    want
}

/// Gets into overlapping parts of `d`, from the highest pid down (so that issue order and pid
/// order disagree).
fn overlapping_gets<'s>(s: &Superstep<'s, '_>, x: &Reg<u64>, d: Dest<'s, u64>) {
    let p = s.nprocs();
    for q in (0..p).rev() {
        s.get(q, x, 0, d.range(q % 3..q % 3 + 4));
    }
    s.get(p - 1, x, 3, d.at(5));
}

/// Overlapping gets into one buffer: the later get wins, whatever the source pids.
pub fn overlapping_gets_the_later_wins(ctx: &mut Ctx) -> Outcome {
    let x = register(ctx, 4);
    let mut buf = [7u64; 6];
    ctx.superstep(|s| overlapping_gets(s, &x, s.dest(&mut buf)));
    ctx.unregister(x);
    expect("the buffer", buf, overlapping_want(ctx.nprocs()))
}

/// The same into this process's own registered memory, whose get results are staged and
/// written after the get phase: also in issue order. A put into the same memory wins (D1).
pub fn overlapping_gets_into_registered_memory(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let x = register(ctx, 4);
    let mut y = ctx.register([7u64; 6]);
    let mut plain = [7u64; 6];
    ctx.superstep(|s| {
        overlapping_gets(s, &x, s.dest(y.local_mut(s)));
        overlapping_gets(s, &x, s.dest(&mut plain));
    });
    let staged = y.local(ctx).to_vec();
    // Now the same with a put from the left neighbour into element 2 of `y`.
    ctx.put(ring(pid, p).1, &99u64, &y, 2);
    ctx.superstep(|s| overlapping_gets(s, &x, s.dest(y.local_mut(s))));
    let (y, _) = ctx.unregister((y, x));
    let want = overlapping_want(p);
    let mut with_put = want;
    with_put[2] = 99;
    let mut c = Complaints::default();
    c.expect("staged", staged, want.to_vec());
    c.expect("direct", plain, want);
    c.expect("with a put", y, with_put.to_vec());
    c.outcome()
}

/// A `dest` of a whole buffer as one get's destination, and a `dest` of an empty buffer that a
/// get of zero elements at the end of the extent uses.
pub fn a_dest_of_a_whole_buffer_and_of_nothing(ctx: &mut Ctx) -> Outcome {
    let right = ring(ctx.pid(), ctx.nprocs()).1;
    let x = register(ctx, 3);
    let mut all = [0u64; 3];
    let mut none: [u64; 0] = [];
    let mut empty = (false, usize::MAX);
    ctx.superstep(|s| {
        s.get(right, &x, 0, s.dest(&mut all));
        let d = s.dest(&mut none);
        s.get(right, &x, 3, d.range(..));
        empty = (d.is_empty(), d.len());
    });
    ctx.unregister(x);
    let mut c = Complaints::default();
    c.expect("the whole buffer", all, [value(right, 0), value(right, 1), value(right, 2)]);
    c.expect("the empty dest (is_empty, len)", empty, (true, 0));
    c.outcome()
}

checks! {
    one_get_per_element_from_every_process,
    ranges_with_hpget_and_get,
    overlapping_gets_the_later_wins,
    overlapping_gets_into_registered_memory,
    a_dest_of_a_whole_buffer_and_of_nothing,
}

// ---------------------------------------------------------------------------------------------
// Failure cases
// ---------------------------------------------------------------------------------------------

/// Every process asks for element 4 of a `dest` of 4 elements.
fn dest_index_out_of_range(ctx: &mut Ctx, probe: &Probe) {
    let x = register(ctx, 3);
    let mut buf = [0u64; 4];
    ctx.superstep(|s| {
        let part = s.dest(&mut buf).at(4);
        probe.reached("an element past the end of a dest");
        s.get(0, &x, 0, part);
    });
}

/// A range that ends past the buffer.
fn dest_range_past_the_end(ctx: &mut Ctx, probe: &Probe) {
    let x = register(ctx, 3);
    let mut buf = [0u64; 4];
    ctx.superstep(|s| {
        let part = s.dest(&mut buf).range(2..5);
        probe.reached("a range past the end of a dest");
        s.get(0, &x, 0, part);
    });
}

/// A range whose start is past its end.
fn dest_range_reversed(ctx: &mut Ctx, probe: &Probe) {
    let mut buf = [0u64; 4];
    let (from, to) = (3, 2);
    ctx.superstep(|s| {
        let _ = s.dest(&mut buf).range(from..to);
        probe.reached("a reversed range of a dest");
    });
}

/// A get of 3 elements from offset 1 of a registration of 3, through a `dest`.
fn get_into_a_dest_past_the_extent(ctx: &mut Ctx, probe: &Probe) {
    let x = register(ctx, 3);
    let mut buf = [0u64; 4];
    ctx.superstep(|s| {
        s.get(1, &x, 1, s.dest(&mut buf).range(..3));
        probe.reached("a get past the extent");
    });
}

cases! {
    #[several]
    dest_index_out_of_range: [1, 2] => |f| {
        f.not_an_abort()?;
        f.message_is("dest: index 4 is out of range for a buffer of length 4")
    },
    dest_range_past_the_end: [1] => |f| {
        f.failed_on(0)?;
        f.message_is("dest: range 2..5 is out of range for a buffer of length 4")
    },
    dest_range_reversed: [1] => |f| {
        f.failed_on(0)?;
        f.message_is("dest: range 3..2 is out of range for a buffer of length 4")
    },
    #[several]
    get_into_a_dest_past_the_extent: [2] => |f| {
        f.not_an_abort()?;
        f.mentions(&["get with process 1", "offset 1 + length 3 is past the extent 3"])
    },
}
