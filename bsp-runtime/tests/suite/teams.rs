//! Teams (`bsp_runtime::Team`, `Grid`): the collectives on a subset of the processes, as
//! engine-neutral checks and failure cases. Every check makes all of its syncs, then compares
//! what this process got with what it must get for its pid and team. Each team collective is one
//! sync for every process at once, whatever the teams do in it. The cases are the misuse a team
//! must reject and members that disagree, with their exact messages.

use bsp_runtime::collective::Parts;
use bsp_runtime::ops::{self, Loc};
use bsp_runtime::stats::{StatsMode, StepStats};
use bsp_runtime::{Ctx, Grid, Team};

use super::check::{Complaints, Failure, Outcome, Probe, Procs, cases, checks};

/// An order-sensitive operator: the result shows the order of combination.
fn mix(a: u64, b: u64) -> u64 {
    a.wrapping_mul(31).wrapping_add(b ^ 0x5555)
}

/// Every `m` that divides `p` (the `m × p/m` grids of `p` processes).
fn divisors(p: usize) -> Vec<usize> {
    (1..=p).filter(|m| p % m == 0).collect()
}

/// The team every process makes in most checks: the processes with the same pid parity when
/// there are at least 2, else the one process.
fn parity(ctx: &Ctx) -> Team {
    Team::by_key(ctx, |q| q % 2)
}

/// A grid of every shape: the coordinates, the row and column teams, and one collective on each
/// (a row broadcast from every `t`, a column allreduce), each a single sync for all teams.
pub fn grids_of_every_shape(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let mut c = Complaints::default();
    for m in divisors(p) {
        let n = p / m;
        let grid = Grid::new(ctx, m, n);
        let (s, t) = (pid % m, pid / m);
        c.expect(format!("{m}×{n}: (s, t)"), (grid.s(), grid.t(), grid.rows(), grid.cols()), (s, t, m, n));
        c.expect(format!("{m}×{n}: pid(s, t)"), grid.pid(s, t), pid);
        c.expect(format!("{m}×{n}: row"), grid.row().members().to_vec(), (0..n).map(|t| s + t * m).collect());
        c.expect(format!("{m}×{n}: column"), grid.col().members().to_vec(), (0..m).map(|s| s + t * m).collect());
        for root in 0..n {
            let before = ctx.step();
            let got = grid.row().broadcast(ctx, root, &[pid as u64, 7]);
            c.expect(format!("{m}×{n}: syncs of a row broadcast"), ctx.step() - before, 1);
            c.expect(format!("{m}×{n}: row broadcast from t = {root}"), got, vec![(s + root * m) as u64, 7]);
        }
        let before = ctx.step();
        let sum = grid.col().allreduce(ctx, &[1u32, pid as u32], ops::sum);
        c.expect(format!("{m}×{n}: syncs of a column allreduce"), ctx.step() - before, 1);
        let col_sum: usize = (0..m).map(|s| s + t * m).sum();
        c.expect(format!("{m}×{n}: column allreduce"), sum, vec![m as u32, col_sum as u32]);
    }
    c.outcome()
}

/// Every collective on the parity teams: results by rank, combined in rank order.
pub fn every_collective_on_teams(ctx: &mut Ctx) -> Outcome {
    let pid = ctx.pid();
    let team = parity(ctx);
    let (r, size, members) = (team.rank(), team.size(), team.members().to_vec());
    let data = |q: usize| [q as u64 + 1, 1000 - 7 * q as u64];
    let fold = |last: usize, op: fn(u64, u64) -> u64| {
        let mut acc = data(members[0]).to_vec();
        for &q in &members[1..=last] {
            acc.iter_mut().zip(data(q)).for_each(|(a, b)| *a = op(*a, b));
        }
        acc
    };
    let mut c = Complaints::default();
    // Every process makes the same number of syncs, whatever its team's size (at p = 3 the
    // teams are [0, 2] and [1]): two rounds, each from a root of its team.
    for round in 0..2 {
        let root = round % size;
        let b = team.broadcast(ctx, root, &data(pid));
        c.expect(format!("broadcast from rank {root}"), b, data(members[root]).to_vec());
        let big: Vec<u32> = (0..10).map(|i| (pid * 100 + i) as u32).collect();
        let large = team.broadcast_large(ctx, root, &big);
        c.expect(
            format!("broadcast_large from rank {root}"),
            large,
            (0..10).map(|i| (members[root] * 100 + i) as u32).collect(),
        );
        let red = team.reduce(ctx, root, &data(pid), mix);
        c.expect(format!("reduce to rank {root}"), red, (r == root).then(|| fold(size - 1, mix)));
        let g = team.gather(ctx, root, &vec![pid as u8; r]);
        let want: Vec<Vec<u8>> = members.iter().enumerate().map(|(i, &q)| vec![q as u8; i]).collect();
        c.expect(format!("gather to rank {root}"), g, (r == root).then_some(want));
        let parts: Vec<Vec<i16>> =
            if r == root { (0..size).map(|i| vec![(pid * 10 + i) as i16; i + 1]).collect() } else { Vec::new() };
        let sc = team.scatter(ctx, root, &parts);
        c.expect(format!("scatter from rank {root}"), sc, vec![(members[root] * 10 + r) as i16; r + 1]);
    }
    c.expect("allreduce", team.allreduce(ctx, &data(pid), mix), fold(size - 1, mix));
    c.expect("allreduce_one", team.allreduce_one(ctx, pid as u32, ops::sum), members.iter().sum::<usize>() as u32);
    c.expect("scan", team.scan(ctx, &data(pid), mix), fold(r, mix));
    c.expect("scan_one", team.scan_one(ctx, 1u8, ops::sum), r as u8 + 1);
    c.expect("broadcast_one", team.broadcast_one(ctx, size - 1, pid), members[size - 1]);
    let all = team.allgather(ctx, &vec![pid as u16; r + 1]);
    c.expect("allgather", all, members.iter().enumerate().map(|(i, &q)| vec![q as u16; i + 1]).collect());
    let value = |from: usize, to: usize| (from * 100 + to) as u64;
    let blocks: Vec<u64> = (0..size).flat_map(|i| [value(pid, i), value(pid, i) + 1]).collect();
    let t = team.alltoall(ctx, &blocks);
    c.expect("alltoall", t, members.iter().flat_map(|&q| [value(q, r), value(q, r) + 1]).collect());
    let parts: Vec<Vec<u64>> = (0..size).map(|i| vec![value(pid, i); i]).collect();
    c.expect("alltoallv", team.alltoallv(ctx, &parts), members.iter().map(|&q| vec![value(q, r); r]).collect());
    let mut out = Parts::new();
    team.alltoallv_into(ctx, &parts, &mut out);
    c.expect("alltoallv_into", out.to_vecs(), members.iter().map(|&q| vec![value(q, r); r]).collect());
    let mut gathered = Parts::new();
    team.allgather_into(ctx, &[pid as u32], &mut gathered);
    c.expect("allgather_into", gathered.flat().to_vec(), members.iter().map(|&q| q as u32).collect());
    team.gather_into(ctx, 0, &[pid as u32], &mut gathered);
    c.expect(
        "gather_into",
        gathered.flat().to_vec(),
        if r == 0 { members.iter().map(|&q| q as u32).collect() } else { Vec::new() },
    );
    c.outcome()
}

/// The pivot search of an LU decomposition: the largest absolute value in each processor column
/// and its index, with `max_loc` (ties go to the smaller index).
pub fn pivot_search_with_max_loc(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let m = if p % 2 == 0 { 2 } else { 1 };
    let grid = Grid::new(ctx, m, p / m);
    // Each process's candidate: |value| with its global row index; the two of a column tie when
    // pid % 3 == 0 gives the same magnitude.
    let candidate = |q: usize| Loc::new(((q * 7) % 5) as f64 - 2.5, 10 * q as u64);
    let mine = candidate(pid);
    let best = grid.col().allreduce_one(ctx, Loc::new(mine.value().abs(), mine.index()), ops::max_loc);
    let mut want = Loc::new(f64::NEG_INFINITY, u64::MAX);
    for &q in grid.col().members() {
        let x = candidate(q);
        want = ops::max_loc(want, Loc::new(x.value().abs(), x.index()));
    }
    let low = grid.row().allreduce_one(ctx, Loc::new(pid as i32 % 2, 100 - pid as u64), ops::min_loc);
    let row_low = grid.row().members().iter().map(|&q| Loc::new(q as i32 % 2, 100 - q as u64)).reduce(ops::min_loc);
    let mut c = Complaints::default();
    c.expect("max_loc over the column", best, want);
    c.expect("min_loc over the row", Some(low), row_low);
    c.outcome()
}

/// Teams whose members are listed out of pid order: ranks follow the list, and reductions,
/// scans and gathers go by rank.
pub fn ranks_follow_the_list(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let team = Team::new(ctx, (0..p).rev());
    let r = team.rank();
    let mut c = Complaints::default();
    c.expect("rank", r, p - 1 - pid);
    c.expect("pid_of", (0..p).map(|i| team.pid_of(i)).collect::<Vec<_>>(), (0..p).rev().collect());
    c.expect("rank_of", team.rank_of(pid), Some(r));
    let x = pid as u64 + 1;
    let mut want = p as u64;
    for q in (0..p - 1).rev() {
        want = mix(want, q as u64 + 1);
    }
    c.expect("allreduce in rank order", team.allreduce_one(ctx, x, mix), want);
    let prefix = team.scan_one(ctx, pid as u64, |a, b| a * 10 + b);
    let want_prefix = (pid..p).rev().fold(0, |acc, q| acc * 10 + q as u64);
    c.expect("scan in rank order", prefix, want_prefix);
    let all = team.allgather(ctx, &[pid as u8]).concat();
    c.expect("allgather by rank", all, (0..p as u8).rev().collect());
    c.outcome()
}

/// Different teams call different collectives in the same superstep (one sync for all), and
/// puts of the superstep complete at it.
pub fn teams_do_different_collectives_in_one_sync(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let team = parity(ctx);
    let x = ctx.register(vec![0u32; p]);
    ctx.put((pid + 1) % p, &[pid as u32 + 1], &x, pid);
    let before = ctx.step();
    let got = if pid % 2 == 0 {
        team.allreduce(ctx, &[pid as u64], ops::sum)
    } else {
        team.broadcast(ctx, team.size() - 1, &[pid as u64, 1])
    };
    let syncs = ctx.step() - before;
    let landed = x.local(ctx)[(pid + p - 1) % p];
    ctx.unregister(x);
    let members = parity(ctx).members().to_vec();
    let mut c = Complaints::default();
    c.expect("syncs", syncs, 1);
    let want = if pid % 2 == 0 {
        vec![members.iter().sum::<usize>() as u64]
    } else {
        vec![*members.last().expect("a member") as u64, 1]
    };
    c.expect("result", got, want);
    c.expect("the put landed at the collective's sync", landed, ((pid + p - 1) % p) as u32 + 1);
    c.outcome()
}

/// Processes outside the teams that run a collective may call plain `sync`: in stage k only
/// processor column k mod N of a 2×(p/2) grid (p/2 for odd p: 1×p) runs an allreduce (the
/// pivot search of an LU), the other columns sync plainly, and the superstep's puts land. Then
/// the same with gets: the column broadcasts while every process fetches from its right-hand
/// neighbour in one `superstep_then`, one sync per stage.
pub fn processes_outside_the_teams_sync_plainly(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let m = if p % 2 == 0 { 2 } else { 1 };
    let grid = Grid::new(ctx, m, p / m);
    let x = ctx.register(vec![0u32; p]);
    let mut c = Complaints::default();
    for k in 0..grid.cols() {
        let before = ctx.step();
        ctx.put((pid + 1) % p, &[(k * 100 + pid) as u32], &x, pid);
        let sum = if grid.t() == k {
            Some(grid.col().allreduce_one(ctx, pid as u64, ops::sum))
        } else {
            ctx.sync();
            None
        };
        c.expect("syncs of the stage", ctx.step() - before, 1);
        let want = (grid.t() == k).then(|| grid.col().members().iter().map(|&q| q as u64).sum());
        c.expect("the column's allreduce", sum, want);
        let prev = (pid + p - 1) % p;
        c.expect("the put landed", x.local(ctx)[prev], (k * 100 + prev) as u32);
    }
    for k in 0..grid.cols() {
        let mut right = 0u32;
        let before = ctx.step();
        let ((), got) = ctx.superstep_then(
            |s| s.get((pid + 1) % p, &x, pid, &mut right),
            |ctx| (grid.t() == k).then(|| grid.col().broadcast_one(ctx, 0, k as u64 + 7)),
        );
        c.expect("syncs of the stage with gets", ctx.step() - before, 1);
        c.expect("the column's broadcast", got, (grid.t() == k).then_some(k as u64 + 7));
        let last = grid.cols() - 1;
        c.expect("the get landed", right, (last * 100 + pid) as u32);
    }
    ctx.unregister(x);
    c.outcome()
}

/// A team collective's data is counted in `ctx.stats()` as the cost table gives it: a row
/// allreduce of `n` words on a team of `size` is h = `(size−1)·n`, and processes outside the
/// team see none of it.
pub fn team_traffic_is_counted(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let n = 100;
    let m = if p % 2 == 0 { 2 } else { 1 };
    let grid = Grid::new(ctx, m, p / m);
    let size = grid.row().size();
    grid.row().allreduce(ctx, &vec![pid as u64; n], ops::sum);
    let last = ctx.stats().last;
    let root = 0;
    grid.col().broadcast(ctx, root, &vec![1.0f32; n]);
    let bcast = ctx.stats().last;
    let mut c = Complaints::default();
    let others = size - 1;
    c.expect("allreduce: collectives sent", last.sent.collectives, others);
    c.expect("allreduce: bytes sent", last.sent.collective_bytes, others * n * 8);
    c.expect("allreduce: bytes received", last.received.collective_bytes, others * n * 8);
    c.expect("allreduce: h in words", last.h_words(), others * n);
    c.expect("allreduce: nothing else", (last.sent.bytes(), last.local.bytes()), (others * n * 8, 0));
    let col_others = grid.col().size() - 1;
    let (sent, received) = if grid.s() == root { (col_others * n * 4, 0) } else { (0, n * 4) };
    c.expect(
        "column broadcast: (sent, received) bytes",
        (bcast.sent.bytes(), bcast.received.bytes()),
        (sent, received),
    );
    c.expect("column broadcast: h", bcast.h_bytes, sent.max(received));
    c.outcome()
}

/// A collective on a team of one sends nothing: when every team has one member (the columns of
/// a 1×p grid), its sync is an empty one, as cheap as a plain `sync` — no data phase, no
/// traffic, no more engine messages — and each process gets what the collective gives a team
/// of one.
pub fn teams_of_one_cost_an_empty_sync(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    ctx.set_stats(StatsMode::Timed);
    let column = Grid::new(ctx, 1, p).col().clone();
    ctx.sync();
    let empty = ctx.stats().last;
    let mut c = Complaints::default();
    let mut like_an_empty_sync = |what: &str, last: StepStats| {
        let bytes = last.sent.bytes() + last.received.bytes() + last.local.bytes();
        c.expect(
            format!("{what}: (data phase, bytes moved, engine messages), as in an empty sync"),
            (last.data, bytes, last.engine_messages),
            (empty.data, 0, empty.engine_messages),
        );
    };
    let before = ctx.step();
    let best = column.allreduce_one(ctx, Loc::new(-(pid as f64), pid as u64), ops::max_loc);
    like_an_empty_sync("allreduce_one", ctx.stats().last);
    let got = column.broadcast(ctx, 0, &[pid as u32; 3]);
    like_an_empty_sync("broadcast", ctx.stats().last);
    let scanned = column.scan(ctx, &[pid as u64, 1], ops::sum);
    like_an_empty_sync("scan", ctx.stats().last);
    let gathered = column.gather(ctx, 0, &vec![pid as u8; pid]);
    like_an_empty_sync("gather", ctx.stats().last);
    let exchanged = column.alltoallv(ctx, &[vec![pid as u16; 2]]);
    like_an_empty_sync("alltoallv", ctx.stats().last);
    let syncs = ctx.step() - before;
    ctx.set_stats(StatsMode::from_env());
    c.expect("data of an empty sync", empty.data, std::time::Duration::ZERO);
    c.expect("syncs", syncs, 5);
    c.expect("allreduce_one", (best.value(), best.index()), (-(pid as f64), pid as u64));
    c.expect("broadcast", got, vec![pid as u32; 3]);
    c.expect("scan", scanned, vec![pid as u64, 1]);
    c.expect("gather", gathered, Some(vec![vec![pid as u8; pid]]));
    c.expect("alltoallv", exchanged, vec![vec![pid as u16; 2]]);
    c.outcome()
}

checks! {
    grids_of_every_shape => Procs::ALL.on(&[1, 2, 3, 4, 6, 8]),
    every_collective_on_teams => Procs::ALL.on(&[1, 2, 3, 4, 5, 8]),
    pivot_search_with_max_loc,
    ranks_follow_the_list,
    teams_do_different_collectives_in_one_sync,
    processes_outside_the_teams_sync_plainly => Procs::ALL.on(&[1, 2, 3, 4, 6, 8]),
    team_traffic_is_counted,
    teams_of_one_cost_an_empty_sync,
}

// ---------------------------------------------------------------------------------------------
// Failure cases
// ---------------------------------------------------------------------------------------------

/// The row of `pid` in a 2×(p/2) grid, as messages list it.
fn row_of(pid: usize, p: usize) -> Vec<usize> {
    (0..p / 2).map(|t| pid % 2 + 2 * t).collect()
}

/// Every process passes a root out of range for its row of a 2×2 grid.
fn team_root_out_of_range(ctx: &mut Ctx, probe: &Probe) {
    let grid = Grid::new(ctx, 2, 2);
    grid.row().broadcast(ctx, 5, &[1u8]);
    probe.reached("past a row broadcast with a root out of range");
}

/// A grid whose shape does not fit the processes.
fn grid_of_the_wrong_size(ctx: &mut Ctx, probe: &Probe) {
    Grid::new(ctx, 3, 2);
    probe.reached("past a 3×2 grid");
    ctx.sync();
}

/// Process 1 makes a team without itself.
fn team_without_this_process(ctx: &mut Ctx, probe: &Probe) {
    let members = if ctx.pid() == 1 { vec![0] } else { vec![ctx.pid()] };
    let team = Team::new(ctx, members);
    team.allreduce_one(ctx, 1u8, ops::sum);
    ctx.sync(); // process 0 stops here
    probe.reached("past a team without this process");
}

/// Process 0 lists a member twice.
fn team_with_a_member_twice(ctx: &mut Ctx, probe: &Probe) {
    let members = if ctx.pid() == 0 { vec![0, 1, 0] } else { vec![ctx.pid()] };
    Team::new(ctx, members);
    ctx.sync();
    probe.reached("past a team with a member twice");
}

/// In the rows of a 2×2 grid, process 2 passes 3 elements to an allreduce, process 0 passes 2.
fn team_lengths_differ(ctx: &mut Ctx, probe: &Probe) {
    let grid = Grid::new(ctx, 2, 2);
    let n = if ctx.pid() == 2 { 3 } else { 2 };
    grid.row().allreduce(ctx, &vec![1.0f64; n], ops::sum);
    ctx.sync(); // the other row stops here
    probe.reached("past a row allreduce with different lengths");
}

/// In the columns of a 2×2 grid, each process names itself the root.
fn team_roots_differ(ctx: &mut Ctx, probe: &Probe) {
    let grid = Grid::new(ctx, 2, 2);
    grid.col().broadcast(ctx, grid.s(), &[1u16]);
    probe.reached("past a column broadcast with different roots");
}

/// Process 3 calls plain `sync` while the rest of its row ([1, 3]) calls `allreduce`, and the
/// row [0, 2] too.
fn plain_sync_beside_a_team_collective(ctx: &mut Ctx, probe: &Probe) {
    let grid = Grid::new(ctx, 2, 2);
    if ctx.pid() == 3 {
        ctx.sync();
    } else {
        grid.row().allreduce_one(ctx, 1u8, ops::sum);
    }
    ctx.sync();
    ctx.sync();
    probe.reached("past a plain sync beside a row allreduce");
}

/// Members disagree on the team: processes 0, 2, 3 split by `pid / 2` ([0, 1] and [2, 3]), but
/// process 1 makes the team [1, 3].
fn members_disagree_on_the_team(ctx: &mut Ctx, probe: &Probe) {
    let team = if ctx.pid() == 1 { Team::new(ctx, [1, 3]) } else { Team::by_key(ctx, |q| q / 2) };
    team.allreduce_one(ctx, 1u64, ops::sum);
    ctx.sync();
    probe.reached("past an allreduce on teams that disagree");
}

/// Process 0 makes the team [0] of itself alone, but process 1 makes [0, 1]: the team of one
/// sends nothing, yet both see the disagreement.
fn a_team_of_one_that_another_process_joins(ctx: &mut Ctx, probe: &Probe) {
    let team = if ctx.pid() == 0 { Team::new(ctx, [0]) } else { Team::new(ctx, [0, 1]) };
    team.allreduce_one(ctx, 1u8, ops::sum);
    ctx.sync();
    probe.reached("past an allreduce on a team of one that another process joins");
}

/// Process 0 of a 2×2 grid calls a row collective, the others a collective on every process.
fn team_collective_beside_a_collective_on_all(ctx: &mut Ctx, probe: &Probe) {
    let grid = Grid::new(ctx, 2, 2);
    if ctx.pid() == 0 {
        grid.row().broadcast_one(ctx, 0, 1u32);
    } else {
        ctx.broadcast_one(0, 1u32);
    }
    ctx.sync();
    probe.reached("past a row broadcast beside a broadcast on every process");
}

/// On a team of 2, an alltoall of 3 elements.
fn team_alltoall_needs_a_multiple_of_the_size(ctx: &mut Ctx, probe: &Probe) {
    let team = Team::by_key(ctx, |q| q / 2);
    team.alltoall(ctx, &[1u8, 2, 3]);
    probe.reached("past an alltoall of 3 on a team of 2");
}

/// The root of a team scatter passes one part per process instead of one per member.
fn team_scatter_needs_one_part_per_member(ctx: &mut Ctx, probe: &Probe) {
    let team = Team::by_key(ctx, |q| q / 2);
    let parts = vec![vec![1u8]; ctx.nprocs()];
    team.scatter(ctx, 0, &parts);
    probe.reached("past a team scatter with a part per process");
}

/// `message` is exactly one of `wants` (several processes may report, each its own).
fn one_of(f: &Failure, wants: &[String]) -> Outcome {
    if wants.contains(&f.message) {
        Ok(())
    } else {
        Err(format!("the error should be one of {wants:#?}, but it is:\n  {}", f.text))
    }
}

/// The mismatch message of a team, as its members report it.
fn team_mismatch(team: &[usize], calls: &str) -> String {
    format!(
        "collective mismatch at the sync ending superstep 0 in the team {team:?}: every member of the team must call the same collective, with the same root, element type and team, but {calls}"
    )
}

cases! {
    #[several]
    team_root_out_of_range: [4] => |f| {
        let pid = f.pid.ok_or("no pid")?;
        one_of(f, &[format!("broadcast: root 5 is out of range (team size = 2, members {:?})", row_of(pid, 4))])
    },
    #[several]
    grid_of_the_wrong_size: [4] => |f| f.message_is("Grid::new: a 3×2 grid has 6 processes, but nprocs = 4"),
    team_without_this_process: [2] => |f| {
        f.failed_on(1)?;
        f.message_is("Team::new: process 1 is not among the members [0] (a process makes only the teams it belongs to)")
    },
    team_with_a_member_twice: [2] => |f| {
        f.failed_on(0)?;
        f.message_is("Team::new: process 0 is listed twice in the members [0, 1, 0]")
    },
    #[several]
    team_lengths_differ: [4] => |f| f.message_is(
        "`allreduce` at the sync ending superstep 0 in the team [0, 2]: every member of the team must pass data of the same length, but the lengths differ (per member: [2, 3])",
    ),
    #[several]
    team_roots_differ: [4] => |f| {
        let pid = f.pid.ok_or("no pid")?;
        let col = [pid / 2 * 2, pid / 2 * 2 + 1];
        one_of(f, &[team_mismatch(&col, &format!(
            "process {} called `broadcast` with root 0 on `u16` in the team {col:?}, process {} called `broadcast` with root 1 on `u16` in the team {col:?}",
            col[0], col[1]
        ))])
    },
    plain_sync_beside_a_team_collective: [4] => |f| {
        f.failed_on(1)?;
        f.message_is(&team_mismatch(&[1, 3], "process 1 called `allreduce` on `u8` in the team [1, 3], process 3 called no collective"))
    },
    #[several]
    members_disagree_on_the_team: [4] => |f| one_of(f, &[
        // Process 0: its member 1 sent it nothing.
        team_mismatch(&[0, 1], "process 0 called `allreduce` on `u64` in the team [0, 1], process 1 called no collective"),
        // Process 1: 3 sent it nothing, 0 (not a member) sent it its call.
        team_mismatch(&[1, 3], "process 1 called `allreduce` on `u64` in the team [1, 3], process 3 called no collective, process 0, not a member, called `allreduce` on `u64` in the team [0, 1] with this process"),
        // Process 3: 1 (not a member) sent it its call.
        team_mismatch(&[2, 3], "process 2 called `allreduce` on `u64` in the team [2, 3], process 3 called `allreduce` on `u64` in the team [2, 3], process 1, not a member, called `allreduce` on `u64` in the team [1, 3] with this process"),
    ]),
    #[several]
    a_team_of_one_that_another_process_joins: [2] => |f| one_of(f, &[
        // Process 0: process 1, not a member, sent it its call.
        team_mismatch(&[0], "process 0 called `allreduce` on `u8` in the team [0], process 1, not a member, called `allreduce` on `u8` in the team [0, 1] with this process"),
        // Process 1: its member 0 sent it nothing.
        team_mismatch(&[0, 1], "process 0 called no collective, process 1 called `allreduce` on `u8` in the team [0, 1]"),
    ]),
    #[several]
    team_collective_beside_a_collective_on_all: [4] => |f| one_of(f, &[
        // Process 0 (row [0, 2]): 2 called a collective on every process.
        team_mismatch(&[0, 2], "process 0 called `broadcast` with root 0 on `u32` in the team [0, 2], process 2 called `broadcast` with root 0 on `u32`, process 1, not a member, called `broadcast` with root 0 on `u32` with this process, process 3, not a member, called `broadcast` with root 0 on `u32` with this process"),
        // Processes 1, 2, 3: 0 sent nothing to 1 and 3, and a team call to 2.
        "collective mismatch at the sync ending superstep 0: every process must call the same collective, with the same root, element type and team, but process 0 called no collective, process 1 called `broadcast` with root 0 on `u32`, process 2 called `broadcast` with root 0 on `u32`, process 3 called `broadcast` with root 0 on `u32`".to_string(),
        "collective mismatch at the sync ending superstep 0: every process must call the same collective, with the same root, element type and team, but process 0 called `broadcast` with root 0 on `u32` in the team [0, 2], process 1 called `broadcast` with root 0 on `u32`, process 2 called `broadcast` with root 0 on `u32`, process 3 called `broadcast` with root 0 on `u32`".to_string(),
    ]),
    #[several]
    team_alltoall_needs_a_multiple_of_the_size: [4] => |f| {
        let pid = f.pid.ok_or("no pid")?;
        one_of(f, &[format!(
            "alltoall: the length 3 is not a multiple of team size = 2, members {:?} (block q of the data goes to rank q, so it needs 2 blocks of equal length; for blocks of different lengths use `alltoallv`)",
            [pid / 2 * 2, pid / 2 * 2 + 1]
        )])
    },
    #[several]
    team_scatter_needs_one_part_per_member: [4] => |f| {
        let pid = f.pid.ok_or("no pid")?;
        one_of(f, &[format!(
            "scatter: the root must pass one part per member of the team, but it passed 4 parts (team size = 2, members {:?})",
            [pid, pid + 1]
        )])
    },
}
