//! Registration without a width limit and helpers generic over registrations, as
//! engine-neutral checks: any number of pieces registered (`register`, `with_regs`) and
//! deregistered in one sync, by nesting tuples; one helper that takes a `Reg` or a `Registered`
//! (`RegHandle`).

use bsp_runtime::{Ctx, RegHandle};

use super::check::{Complaints, Outcome, checks, ring};

/// Puts this process's first element into element `pid` of its right neighbour's registration,
/// through any handle.
fn pass_right(ctx: &mut Ctx, x: &mut impl RegHandle<u64>) {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let first = x.local(ctx)[0];
    ctx.put(ring(pid, p).1, &first, x.remote(), pid);
    ctx.sync();
}

/// Thirteen pieces (a 12-tuple and one more, nested) registered by one sync, used, and
/// deregistered by one sync.
pub fn thirteen_registrations_in_one_sync(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let left = ring(pid, p).0;
    let piece = |k: usize| vec![(100 * k + pid) as u64; p];
    let before = ctx.step();
    let ((mut a, b, c, d, e, f, g, h, i, j, k, l), mut m) = ctx.register((
        (
            piece(0),
            piece(1),
            piece(2),
            piece(3),
            piece(4),
            piece(5),
            piece(6),
            piece(7),
            piece(8),
            piece(9),
            piece(10),
            piece(11),
        ),
        piece(12),
    ));
    let register_syncs = ctx.step() - before;
    pass_right(ctx, &mut a);
    pass_right(ctx, &mut m);
    let (got_a, got_m) = (a.local(ctx)[left], m.local(ctx)[left]);
    let ids: Vec<u64> = [&a, &b, &c, &d, &e, &f, &g, &h, &i, &j, &k, &l, &m].iter().map(|r| r.id()).collect();
    let before = ctx.step();
    let ((a, _, _, _, _, _, _, _, _, _, _, l), m) = ctx.unregister(((a, b, c, d, e, f, g, h, i, j, k, l), m));
    let mut want_a = piece(0);
    want_a[left] = left as u64;
    let mut c = Complaints::default();
    c.expect("syncs of register", register_syncs, 1);
    c.expect("syncs of unregister", ctx.step() - before, 1);
    c.expect("the puts landed", (got_a, got_m), (left as u64, 1200 + left as u64));
    c.expect("registration ids in order", ids.windows(2).all(|w| w[1] == w[0] + 1), true);
    c.expect("data of the first piece", a, want_a);
    c.expect("data of the 12th piece", l, piece(11));
    c.expect("data of the 13th piece", m[pid], 1200 + pid as u64);
    c.outcome()
}

/// Seven pieces of the caller's memory registered in place by one sync each way (nested
/// tuples), and a generic helper used on them and on a `Reg`.
pub fn seven_pieces_in_place(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let left = ring(pid, p).0;
    let mut v: Vec<Vec<u64>> = (0..7).map(|k| vec![(10 * k + pid) as u64; p]).collect();
    let before = ctx.step();
    let [v0, v1, v2, v3, v4, v5, v6] = &mut v[..] else { unreachable!("seven pieces") };
    let syncs = ctx.with_regs(((v0, v1, v2, v3), (v4, v5, v6)), |ctx, ((mut a, ..), (.., mut g))| {
        let before = ctx.step();
        pass_right(ctx, &mut a);
        pass_right(ctx, &mut g);
        ctx.step() - before
    });
    let with_regs_syncs = ctx.step() - before - syncs;
    let mut c = Complaints::default();
    c.expect("syncs of with_regs", with_regs_syncs, 2);
    c.expect("piece 0", v[0][left], left as u64);
    c.expect("piece 6", v[6][left], 60 + left as u64);
    c.expect("piece 3, untouched", v[3][left], 30 + pid as u64);
    c.outcome()
}

checks! {
    thirteen_registrations_in_one_sync,
    seven_pieces_in_place,
}
