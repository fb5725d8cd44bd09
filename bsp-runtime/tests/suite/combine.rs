//! Combining puts (`Ctx::put_combine`, D18) and the MPI engine's large transfers, as
//! engine-neutral checks and failure cases: the operator applies in the order of D2 (ascending
//! source pid, then issue order), interleaved with plain puts, after get results; errors name
//! the processes and the combiner; transfers past the MPI engine's point-to-point threshold
//! keep every rule (overlaps, D1, staging, combining).

use bsp_runtime::Ctx;

use super::check::{Outcome, Probe, cases, checks, expect, ring};

/// Every process adds `pid + 1` into one element of every process.
pub fn fan_in_sums_into_one_element_of_every_process(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let add = ctx.combiner(|a: u64, b: u64| a + b);
    let total = ctx.register([1000u64]);
    for q in 0..p {
        ctx.put_combine(q, &(pid as u64 + 1), &total, 0, add);
    }
    ctx.sync();
    let got = *total.value(ctx);
    ctx.unregister(total);
    expect("total", got, 1000 + (p * (p + 1) / 2) as u64)
}

/// A closure that captures a value (by copy) is an operator, and so is a function pointer: a
/// sum modulo the run's `p + 2` through a batch run (one record), and the same sum through a
/// `fn` value, into two elements of process 0.
pub fn closures_that_capture_and_function_pointers_are_operators(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let m = p as u64 + 2;
    let add_mod = ctx.combiner(move |a: u64, b: u64| (a + b) % m);
    fn add(a: u64, b: u64) -> u64 {
        a + b
    }
    let pointer: fn(u64, u64) -> u64 = add;
    let plain = ctx.combiner(pointer);
    let x = ctx.register([1u64, 1]);
    let mut batch = ctx.put_batch(&x);
    batch.put_combine(0, &(pid as u64 + 1), 0, add_mod);
    batch.put_combine(0, &(pid as u64 + 1), 1, plain);
    ctx.sync();
    let got = x.local(ctx).to_vec();
    ctx.unregister(x);
    let want = if pid == 0 {
        vec![(1..=p as u64).fold(1, |acc, v| (acc + v) % m), 1 + (p * (p + 1) / 2) as u64]
    } else {
        vec![1, 1]
    };
    expect("x", got, want)
}

/// A non-commutative operator (x := 10 x + digit, wrapping: at any p it records the order of
/// the last 19 digits exactly) records the order: ascending source pid, then issue order.
pub fn combining_order_is_ascending_source_pid_then_issue_order(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let append = ctx.combiner(|a: u64, b: u64| a.wrapping_mul(10).wrapping_add(b));
    let log = ctx.register([0u64]);
    ctx.put_combine(0, &((pid as u64 + 1) % 10), &log, 0, append);
    ctx.put_combine(0, &((pid as u64 + 2) % 10), &log, 0, append);
    ctx.sync();
    let got = *log.value(ctx);
    ctx.unregister(log);
    let digit = |x: u64, d: u64| x.wrapping_mul(10).wrapping_add(d);
    let want = if pid == 0 { (0..p as u64).fold(0u64, |x, q| digit(digit(x, (q + 1) % 10), (q + 2) % 10)) } else { 0 };
    expect("log", got, want)
}

/// A plain put overwrites, a later combining put combines with what it wrote, and a plain put of
/// the same process after a combining one wins.
pub fn plain_and_combining_puts_interleave_in_that_order(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let add = ctx.combiner(|a: i64, b: i64| a + b);
    let x = ctx.register([5i64; 3]);
    if pid == 1 {
        ctx.put(0, &100i64, &x, 0);
    }
    ctx.put_combine(0, &1i64, &x, 0, add);
    ctx.put_combine(0, &7i64, &x, 1, add);
    ctx.put(0, &(-(pid as i64)), &x, 1);
    ctx.sync();
    let got = x.local(ctx).to_vec();
    ctx.unregister(x);
    let want = if pid == 0 {
        let e0 = if p == 1 { 5 + 1 } else { 100 + (p as i64 - 1) };
        vec![e0, -(p as i64 - 1), 5]
    } else {
        vec![5; 3]
    };
    expect("x", got, want)
}

/// D1: a get's result lands first, and the combining puts of the same superstep combine with it.
pub fn combining_puts_combine_with_a_get_result_of_the_same_superstep(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let add = ctx.combiner(|a: u32, b: u32| a + b);
    let mut x = ctx.register([pid as u32 * 10]);
    ctx.superstep(|s| {
        let (name, local) = x.split_mut(s);
        s.get(ring(pid, p).1, name, 0, local);
        for q in 0..p {
            s.put_combine(q, &1u32, name, 0, add);
        }
    });
    let got = *x.value(ctx);
    ctx.unregister(x);
    expect("x", got, ring(pid, p).1 as u32 * 10 + p as u32)
}

/// Floating-point sums come out as the sequential sum in pid order, to the bit.
pub fn floating_point_sums_are_the_sequential_sum_in_pid_order(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let term = |q: usize, i: usize| 1.0 / (1.0 + (q * 64 + i) as f64).sqrt();
    let add = ctx.combiner(|a: f64, b: f64| a + b);
    let v = ctx.register(vec![0.0f64; 64]);
    let mine: Vec<f64> = (0..64).map(|i| term(pid, i)).collect();
    ctx.put_combine(0, &mine[..], &v, 0, add);
    ctx.sync();
    let got: Vec<u64> = v.local(ctx).iter().map(|x| x.to_bits()).collect();
    ctx.unregister(v);
    let want: Vec<u64> = if pid == 0 {
        (0..64).map(|i| (0..p).fold(0.0f64, |s, q| s + term(q, i)).to_bits()).collect()
    } else {
        vec![0.0f64.to_bits(); 64]
    };
    expect("bits", got, want)
}

/// A combining put into the middle of a long array touches exactly its range.
pub fn a_combining_put_into_a_range_of_a_long_array(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let value = |from: usize, i: usize| ((i * 7 + from * 13) % 97) as i32;
    let max = ctx.combiner(|a: i32, b: i32| a.max(b));
    let v = ctx.register(vec![-1i32; 1000]);
    let mine: Vec<i32> = (0..500).map(|i| value(pid, i)).collect();
    ctx.put_combine(ring(pid, p).1, &mine[..], &v, 250, max);
    ctx.sync();
    let got = v.local(ctx).to_vec();
    ctx.unregister(v);
    let from = ring(pid, p).0;
    let want: Vec<i32> = (0..1000).map(|i| if (250..750).contains(&i) { value(from, i - 250) } else { -1 }).collect();
    expect("v", got, want)
}

/// One-word combining puts to consecutive elements (which the sender queues as one record)
/// combine each element once; a change of operator, a gap, or a plain put between them keeps
/// each put's own rule.
pub fn consecutive_one_word_combining_puts_combine_each_element_once(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let add = ctx.combiner(|a: i64, b: i64| a + b);
    let max = ctx.combiner(|a: i64, b: i64| a.max(b));
    let x = ctx.register(vec![1i64; 12]);
    let (from, to) = ring(pid, p);
    let term = |q: usize, i: usize| 10 * i as i64 + q as i64;
    let high = |q: usize, i: usize| 3 * q as i64 - 2 + i as i64;
    for i in 0..4 {
        ctx.put_combine(to, &term(pid, i), &x, i, add);
    }
    for i in 4..8 {
        ctx.put_combine(to, &high(pid, i), &x, i, max);
    }
    ctx.put_combine(to, &100i64, &x, 9, add);
    ctx.put(to, &7i64, &x, 10);
    ctx.put_combine(to, &3i64, &x, 11, add);
    ctx.sync();
    let got = x.local(ctx).to_vec();
    ctx.unregister(x);
    let mut want: Vec<i64> = (0..4).map(|i| 1 + term(from, i)).collect();
    want.extend((4..8).map(|i| high(from, i).max(1)));
    want.extend([1, 101, 7, 4]);
    expect("x", got, want)
}

/// One-element combining puts that continue a run, and those that only look as if they do: a
/// non-commutative operator into one element again and again (each combines in issue order), two
/// registrations alternating, two destinations alternating, and a run after plain puts into the
/// same registration.
pub fn one_element_combining_runs_keep_their_targets_and_order(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let append = ctx.combiner(|a: u64, b: u64| a.wrapping_mul(10).wrapping_add(b));
    let x = ctx.register(vec![0u64; 8]);
    let y = ctx.register(vec![0u64; 8]);
    let (from, to) = ring(pid, p);
    for d in 1..=4u64 {
        ctx.put_combine(to, &d, &x, 0, append); // x[0] = 1234
    }
    for i in 1..4 {
        ctx.put_combine(to, &(i as u64), &x, i, append); // x[1..4] = 1, 2, 3
        ctx.put_combine(to, &(i as u64 + 5), &y, i, append); // y[1..4] = 6, 7, 8
    }
    for i in 4..6 {
        ctx.put(to, &9u64, &x, i); // x[4..6] = 9, then combined below
    }
    for i in 4..7 {
        ctx.put_combine(to, &(i as u64), &x, i, append); // x[4] = 94, x[5] = 95, x[6] = 6
    }
    for i in 0..4 {
        ctx.put_combine(pid, &(i as u64 + 1), &y, 4 + i, append); // my own y[4..8] = 1, 2, 3, 4
        ctx.put_combine(to, &7u64, &y, 4 + i, append); // y[4..8] on `to`: 7 more
    }
    ctx.sync();
    let (gx, gy) = (x.local(ctx).to_vec(), y.local(ctx).to_vec());
    ctx.unregister(y);
    ctx.unregister(x);
    let (want_x, want_y) = if p == 1 {
        // `to` is this process: its own digits first, then the 7s, in issue order.
        (vec![1234, 1, 2, 3, 94, 95, 6, 0], vec![0, 6, 7, 8, 17, 27, 37, 47])
    } else {
        // From `from` (a 7 per element of y[4..8]), and from this process itself (its digit),
        // in ascending source pid.
        let mine_then_from = |d: u64| if pid < from { d * 10 + 7 } else { 70 + d };
        (vec![1234, 1, 2, 3, 94, 95, 6, 0], vec![0, 6, 7, 8].into_iter().chain((1..=4).map(mine_then_from)).collect())
    };
    expect("x and y", (gx, gy), (want_x, want_y))
}

/// A batch's combining puts are `put_combine`: the same sums, merged with the plain puts of the
/// batch in issue order.
pub fn a_batch_combines_as_put_combine_does(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let add = ctx.combiner(|a: f64, b: f64| a + b);
    let y = ctx.register(vec![0.5f64; 6]);
    let mut batch = ctx.put_batch(&y);
    for i in 0..4 {
        batch.put_combine(0, &((pid * 10 + i) as f64), i, add);
    }
    batch.put(0, &[-1.0f64], 4);
    batch.put_combine(0, &[1.0f64], 4, add);
    ctx.sync();
    let got = y.local(ctx).to_vec();
    ctx.unregister(y);
    let tens = (p * (p - 1) / 2 * 10) as f64;
    let want = if pid == 0 {
        vec![0.5 + tens, 0.5 + tens + p as f64, 0.5 + tens + 2.0 * p as f64, 0.5 + tens + 3.0 * p as f64, 0.0, 0.5]
    } else {
        vec![0.5; 6]
    };
    expect("y", got, want)
}

/// One-word combining puts of a batch that continue each other (one record, extended at the
/// call) keep every rule: each put's operator, the order against plain puts to the same
/// element, and a put to another process in between.
pub fn a_batch_run_of_one_word_combining_puts_keeps_operators_and_order(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let next = (pid + 1) % p;
    let append = ctx.combiner(|a: u64, b: u64| a.wrapping_mul(10).wrapping_add(b));
    let add = ctx.combiner(|a: u64, b: u64| a + b);
    let y = ctx.register(vec![1u64; 8]);
    let mut batch = ctx.put_batch(&y);
    for i in 0..3 {
        batch.put_combine(next, &(i as u64 + 1), i, append); // one run: 11, 12, 13
    }
    batch.put_combine(next, &5u64, 3, add); // another operator, next element: 6
    batch.put_combine(next, &6u64, 4, append); // back to the first: 16
    batch.put_combine(pid, &7u64, 6, add); // this process in between: 8
    batch.put_combine(next, &8u64, 5, append); // continues element 4's put, after the one above
    batch.put(next, &100u64, 5); // a plain put overwrites...
    batch.put_combine(next, &9u64, 5, append); // ...and the next one combines with it: 1009
    ctx.sync();
    let got = y.local(ctx).to_vec();
    ctx.unregister(y);
    expect("y", got, vec![11, 12, 13, 6, 16, 1009, 8, 1])
}

/// Long runs of one-word puts and combining puts through batches, to consecutive elements (each
/// run one record, extended at the call while the outbox's buffers grow under it), land every
/// word once.
pub fn long_batch_runs_of_one_word_puts_land_every_word(ctx: &mut Ctx) -> Outcome {
    const N: usize = 5000;
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (next, prev) = ((pid + 1) % p, (pid + p - 1) % p);
    let add = ctx.combiner(|a: u64, b: u64| a + b);
    let (x, y) = ctx.register((vec![0u64; N], vec![1u64; N]));
    let mut batch = ctx.put_batch(&x);
    for i in 0..N {
        batch.put(next, &(i as u64 * 3 + pid as u64), i);
    }
    let mut batch = ctx.put_batch(&y);
    for i in 0..N {
        batch.put_combine(next, &(i as u64 + pid as u64), i, add);
    }
    ctx.sync();
    let got = (x.local(ctx).to_vec(), y.local(ctx).to_vec());
    ctx.unregister((x, y));
    let want_x: Vec<u64> = (0..N as u64).map(|i| i * 3 + prev as u64).collect();
    let want_y: Vec<u64> = (0..N as u64).map(|i| 1 + i + prev as u64).collect();
    expect("x and y", got, (want_x, want_y))
}

/// Large transfers (past the MPI engine's point-to-point threshold) keep the rules: overlapping
/// large puts from every process (the highest pid wins, D2), a large hpput over part of them,
/// a large get into the registration it reads (staged, D1), and a large combining put.
pub fn large_transfers_keep_the_order_rules(ctx: &mut Ctx) -> Outcome {
    const N: usize = 300_000; // 2.4 MB of u64
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(pid, p);
    let mut errors = Vec::new();
    let (mut x, y) = ctx.register((vec![0u64; N], vec![0u64; N]));
    // Everyone puts N words into process 0, and hpputs half of them again at offset 10.
    let mine = vec![pid as u64 + 1; N];
    ctx.put(0, &mine[..], &y, 0);
    ctx.sync();
    ctx.superstep(|s| s.hpput(0, &mine[..N / 2], &y, 10));
    if pid == 0 && y.local(ctx).iter().any(|&v| v != p as u64) {
        errors.push(format!("overlapping large puts: {:?}", &y.local(ctx)[..4]));
    }
    // x := pattern; then x := x of the right neighbour, a large get into x itself.
    let pattern = |q: usize| -> Vec<u64> { (0..N as u64).map(|i| i * 3 + q as u64).collect() };
    x.local_mut(ctx).copy_from_slice(&pattern(pid));
    ctx.superstep(|s| {
        let (name, local) = x.split_mut(s);
        s.get(right, name, 0, local);
    });
    if x.local(ctx) != &pattern(right)[..] {
        errors.push("a large get into its own registration".to_string());
    }
    // A large get and a large put on the same bytes in one superstep: the put wins (D1).
    let mut got = vec![0u64; N];
    ctx.superstep(|s| {
        s.get(left, &x, 0, &mut got[..]);
        s.put(right, &mine[..], &x, 0);
    });
    if got != pattern(ring(left, p).1) {
        errors.push("a large get reads its source before the puts of its superstep".to_string());
    }
    if x.local(ctx).iter().any(|&v| v != left as u64 + 1) {
        errors.push("a large put after a large get on the same bytes".to_string());
    }
    // A large combining put from every process into process 0.
    let add = ctx.combiner(|a: u64, b: u64| a + b);
    ctx.put_combine(0, &vec![pid as u64; N][..], &y, 0, add);
    ctx.sync();
    if pid == 0 && y.local(ctx).iter().any(|&v| v != p as u64 + (p * (p - 1) / 2) as u64) {
        errors.push(format!("a large combining put: {:?}", &y.local(ctx)[..4]));
    }
    ctx.unregister((x, y));
    expect("large transfers that broke a rule", errors, vec![])
}

checks! {
    fan_in_sums_into_one_element_of_every_process,
    closures_that_capture_and_function_pointers_are_operators,
    combining_order_is_ascending_source_pid_then_issue_order,
    plain_and_combining_puts_interleave_in_that_order,
    combining_puts_combine_with_a_get_result_of_the_same_superstep,
    floating_point_sums_are_the_sequential_sum_in_pid_order,
    a_combining_put_into_a_range_of_a_long_array,
    consecutive_one_word_combining_puts_combine_each_element_once,
    one_element_combining_runs_keep_their_targets_and_order,
    a_batch_combines_as_put_combine_does,
    a_batch_run_of_one_word_combining_puts_keeps_operators_and_order,
    long_batch_runs_of_one_word_puts_land_every_word,
    large_transfers_keep_the_order_rules,
}

fn combiners_of_different_types_on_different_processes(ctx: &mut Ctx, _: &Probe) {
    let x = ctx.register([0u64]);
    if ctx.pid() == 0 {
        let _ = ctx.combiner(|a: u32, b: u32| a + b);
        ctx.sync();
    } else {
        let add = ctx.combiner(|a: u64, b: u64| a + b);
        ctx.sync();
        ctx.put_combine(0, &1u64, &x, 0, add);
    }
    ctx.sync();
}

fn a_combiner_missing_on_the_receiver(ctx: &mut Ctx, _: &Probe) {
    let x = ctx.register([0u64]);
    let _ = ctx.combiner(|a: u64, b: u64| a + b);
    ctx.sync();
    if ctx.pid() == 2 {
        let max = ctx.combiner(|a: u64, b: u64| a.max(b)); // #1 on process 2 only
        ctx.put_combine(1, &1u64, &x, 0, max);
    }
    ctx.sync();
}

fn a_combining_put_past_the_extent(ctx: &mut Ctx, _: &Probe) {
    let add = ctx.combiner(|a: u8, b: u8| a.wrapping_add(b));
    let x = ctx.register(vec![0u8; 4 + ctx.pid()]);
    if ctx.pid() == 0 {
        ctx.put_combine(1, &[1u8; 3], &x, 2, add); // fits: process 1 has 5
        ctx.put_combine(1, &[1u8; 3], &x, 3, add); // 3 + 3 > 5
    }
    ctx.sync();
}

fn a_batch_combining_put_past_the_extent(ctx: &mut Ctx, _: &Probe) {
    let add = ctx.combiner(|a: u16, b: u16| a.wrapping_add(b));
    let x = ctx.register(vec![0u16; 4 + ctx.pid()]);
    if ctx.pid() == 1 {
        let mut batch = ctx.put_batch(&x);
        batch.put_combine(0, &[1u16; 2], 2, add); // fits: process 0 has 4
        batch.put_combine(0, &[1u16; 2], 3, add); // 3 + 2 > 4
    }
    ctx.sync();
}

/// The third put continues the run of the first two (the record the batch extends at the call),
/// and is past the extent: it fails as any other put does.
fn a_batch_run_of_one_word_combining_puts_past_the_extent(ctx: &mut Ctx, _: &Probe) {
    let add = ctx.combiner(|a: u32, b: u32| a.wrapping_add(b));
    let x = ctx.register(vec![0u32; 2 + ctx.pid()]);
    if ctx.pid() == 1 {
        let mut batch = ctx.put_batch(&x);
        for i in 0..3 {
            batch.put_combine(0, &1u32, i, add); // process 0 has 2
        }
    }
    ctx.sync();
}

fn a_batch_run_of_one_word_puts_past_the_extent(ctx: &mut Ctx, _: &Probe) {
    let x = ctx.register(vec![0u32; 2 + ctx.pid()]);
    if ctx.pid() == 1 {
        let mut batch = ctx.put_batch(&x);
        for i in 0..3 {
            batch.put(0, &7u32, i); // process 0 has 2
        }
    }
    ctx.sync();
}

cases! {
    a_batch_run_of_one_word_combining_puts_past_the_extent: [2] => |f| {
        f.failed_on(1)?;
        f.mentions(&["process 1 failed: put_combine with process 0: registration #1: offset 2 + length 1 is past the extent 2 that process 0 registered (elements of `u32`)"])
    },
    a_batch_run_of_one_word_puts_past_the_extent: [2] => |f| {
        f.failed_on(1)?;
        f.mentions(&["process 1 failed: put with process 0: registration #1: offset 2 + length 1 is past the extent 2 that process 0 registered (elements of `u32`)"])
    },
    combiners_of_different_types_on_different_processes: [2] => |f| {
        f.failed_on(0)?;
        f.message_is("put_combine from process 1: combiner #0 is for `u32` (4 bytes) on this process but for 8-byte elements on process 1: every process must make the same combiners in the same order")
    },
    a_combiner_missing_on_the_receiver: [3] => |f| {
        f.failed_on(1)?;
        f.message_is("put_combine from process 2: combiner #1 does not exist on this process (1 made): every process must make the same combiners in the same order")
    },
    a_batch_combining_put_past_the_extent: [2] => |f| {
        f.failed_on(1)?;
        f.mentions(&["process 1 failed: put_combine with process 0: registration #1: offset 3 + length 2 is past the extent 4 that process 0 registered (elements of `u16`)"])
    },
    a_combining_put_past_the_extent: [2] => |f| {
        f.failed_on(0)?;
        f.message_is("put_combine with process 1: registration #1: offset 3 + length 3 is past the extent 5 that process 1 registered (elements of `u8`)")
    },
}
