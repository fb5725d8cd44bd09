//! `ctx.stats()` against communication patterns whose counts are known, as engine-neutral
//! checks: exact operation counts, bytes and h of this process, on every engine. Supersteps
//! are counted from the check's start (on MPI every check runs inside one long run).

use bsp_runtime::Ctx;
use bsp_runtime::stats::{StepStats, Traffic};

use super::check::{Complaints, Outcome, checks, ring};

/// Puts of `q + 1` words from every process to every other process `q`, and 3 words to itself.
pub fn puts_are_counted_by_sender_and_receiver(ctx: &mut Ctx) -> Outcome {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    let x = ctx.register(vec![0u64; p * (p + 3)]);
    let step = ctx.step();
    for q in 0..p {
        let n = if q == s { 3 } else { q + 1 };
        ctx.put(q, &vec![s as u64; n][..], &x, s * (p + 3));
    }
    ctx.sync();
    let last = ctx.stats().last;
    ctx.unregister(x);
    let others = p - 1;
    let sent_bytes: usize = (0..p).filter(|&q| q != s).map(|q| 8 * (q + 1)).sum();
    let mut c = Complaints::default();
    c.expect("step", last.step, step);
    c.expect("sent", last.sent, Traffic { puts: others, put_bytes: sent_bytes, ..Traffic::default() });
    c.expect(
        "received",
        last.received,
        Traffic { puts: others, put_bytes: 8 * (s + 1) * others, ..Traffic::default() },
    );
    c.expect("local", last.local, Traffic { puts: 1, put_bytes: 24, ..Traffic::default() });
    c.expect("h", last.h_bytes, sent_bytes.max(8 * (s + 1) * others));
    c.expect("h in words", last.h_words(), last.h_bytes / 8);
    c.outcome()
}

/// Every process gets 5 `u32` from process 0 (process 0 from itself), and process 0 also gets 2
/// from the last process: a get counts as data sent by the owner.
pub fn gets_are_counted_as_data_from_the_owner(ctx: &mut Ctx) -> Outcome {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    let x = ctx.register(vec![s as u32; 5]);
    let mut a = [0u32; 5];
    let mut b = [0u32; 2];
    ctx.superstep(|st| {
        st.get(0, &x, 0, &mut a);
        if s == 0 {
            st.get(p - 1, &x, 0, &mut b);
        }
    });
    let last = ctx.stats().last;
    ctx.unregister(x);
    let others = p - 1;
    let mut c = Complaints::default();
    c.expect("a", a, [0; 5]);
    if s == 0 {
        let received = Traffic { gets: usize::from(p > 1), get_bytes: if p > 1 { 8 } else { 0 }, ..Traffic::default() };
        let local = if p > 1 { (1, 20) } else { (2, 28) };
        c.expect("sent", last.sent, Traffic { gets: others, get_bytes: 20 * others, ..Traffic::default() });
        c.expect("received", last.received, received);
        c.expect("local", last.local, Traffic { gets: local.0, get_bytes: local.1, ..Traffic::default() });
        c.expect("h", last.h_bytes, (20 * others).max(received.get_bytes));
    } else {
        let served =
            if s == p - 1 { Traffic { gets: 1, get_bytes: 8, ..Traffic::default() } } else { Traffic::default() };
        c.expect("sent", last.sent, served);
        c.expect("received", last.received, Traffic { gets: 1, get_bytes: 20, ..Traffic::default() });
        c.expect("local", last.local, Traffic::default());
        c.expect("h", last.h_bytes, 20);
    }
    c.outcome()
}

/// Each process sends two messages with a 4-byte tag to its right neighbour: `s + 1` `f64`s and
/// one `f64` of payload; messages count tag and payload.
pub fn messages_count_tag_and_payload(ctx: &mut Ctx) -> Outcome {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(s, p);
    ctx.set_tag::<u32>();
    ctx.sync();
    ctx.send(right, &7u32, &vec![1.0f64; s + 1]);
    ctx.send(right, &8u32, &[2.0f64]);
    ctx.sync();
    let last = ctx.stats().last;
    let queued = ctx.qsize().0;
    ctx.set_tagsize(0);
    ctx.sync();
    let out = Traffic { messages: 2, message_bytes: 4 + 8 * (s + 1) + 12, ..Traffic::default() };
    let inc = Traffic { messages: 2, message_bytes: 4 + 8 * (left + 1) + 12, ..Traffic::default() };
    let mut c = Complaints::default();
    c.expect("queued", queued, 2);
    if p == 1 {
        c.expect(
            "(sent, received, local)",
            (last.sent, last.received, last.local),
            (Traffic::default(), Traffic::default(), out),
        );
        c.expect("h", last.h_bytes, 0);
    } else {
        c.expect("sent", last.sent, out);
        c.expect("received", last.received, inc);
        c.expect("h", last.h_bytes, out.message_bytes.max(inc.message_bytes));
    }
    c.outcome()
}

/// An hpput of 16 `u16` and a put of 1 `u16` to the right neighbour, in one superstep.
pub fn hpputs_count_their_bytes(ctx: &mut Ctx) -> Outcome {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    let x = ctx.register(vec![0u16; 17]);
    let block = [s as u16; 16];
    let right = ring(s, p).1;
    ctx.superstep(|st| {
        st.hpput(right, &block[..], &x, 0);
        st.put(right, &[9u16], &x, 16);
    });
    let (last, nine) = (ctx.stats().last, x.local(ctx)[16]);
    ctx.unregister(x);
    let t = Traffic { puts: 2, put_bytes: 34, ..Traffic::default() };
    let mut c = Complaints::default();
    c.expect("x[16]", nine, 9);
    if p == 1 {
        c.expect(
            "(sent, received, local)",
            (last.sent, last.received, last.local),
            (Traffic::default(), Traffic::default(), t),
        );
    } else {
        c.expect("(sent, received, local)", (last.sent, last.received, last.local), (t, t, Traffic::default()));
        c.expect("h", last.h_bytes, 34);
    }
    c.outcome()
}

/// Empty supersteps count nothing; the totals grow by the figures of each superstep.
pub fn totals_are_the_sums_of_the_supersteps(ctx: &mut Ctx) -> Outcome {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    let x = ctx.register(vec![0u8; p]);
    let before = ctx.stats().total;
    let first = ctx.step();
    let mut steps: Vec<StepStats> = Vec::new();
    for round in 0..6 {
        if round % 2 == 0 {
            for q in 0..p {
                ctx.put(q, &[1u8], &x, s);
            }
        }
        ctx.sync();
        steps.push(ctx.stats().last);
    }
    let total = ctx.stats().total;
    ctx.unregister(x);
    let mut c = Complaints::default();
    for (i, st) in steps.iter().enumerate().filter(|(i, _)| i % 2 == 1) {
        c.expect(format!("superstep {i} (empty)"), (st.sent, st.received, st.local, st.h_bytes), Default::default());
    }
    c.expect("supersteps", total.supersteps - before.supersteps, 6);
    c.expect("steps", steps.iter().map(|st| st.step).collect::<Vec<_>>(), (first..first + 6).collect());
    c.expect("puts sent", total.sent.puts - before.sent.puts, 3 * (p - 1));
    c.expect("put bytes received", total.received.put_bytes - before.received.put_bytes, 3 * (p - 1));
    c.expect("local puts", total.local.puts - before.local.puts, 3);
    c.expect("h", total.h_bytes - before.h_bytes, steps.iter().map(|st| st.h_bytes).sum::<usize>());
    c.outcome()
}

checks! {
    puts_are_counted_by_sender_and_receiver,
    gets_are_counted_as_data_from_the_owner,
    messages_count_tag_and_payload,
    hpputs_count_their_bytes,
    totals_are_the_sums_of_the_supersteps,
}
