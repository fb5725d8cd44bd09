//! Teams: the collectives on a subset of the processes ([`Team`]), and the row and column teams
//! of a 2-D grid of processes ([`Grid`]).

use super::wire::Group;
use super::{CollectiveData, Parts};
use crate::{Ctx, Value};

/// A subset of the processes with the collectives of [`Ctx`] on it, such as a processor row or
/// column of a 2-D [`Grid`].
///
/// A team is a list of processes, its *members*, numbered by *rank* `0..size()`; each process
/// makes its own team, with no communication ([`Team::new`], [`Team::by_key`], [`Grid`]), and
/// every member must make the same one. A team has the collectives of [`Ctx`] (see
/// [`collective`](crate::collective)), with the same typing, checks and costs, on its members
/// only: `root` and the parts of `scatter` and `alltoallv` are numbered by rank, and results are
/// combined and listed in rank order.
///
/// A team collective ends the superstep like any collective, and **every process** syncs in it:
/// the processes split into teams, and each calls the same collective (or another one) on its
/// own team, all in one sync. A process whose team runs no collective in that superstep calls
/// plain `sync` (in an LU decomposition, the processor columns that do not search for the pivot
/// just sync). A member that calls plain `sync` while its team's other members call a
/// collective, members that disagree on the team, or on the collective, its root, element type
/// or lengths, make the run fail with a message naming each member's call.
///
/// ```
/// use bsp_runtime::{ops, Grid};
///
/// let out = bsp_runtime::run(6, |ctx| {
///     let grid = Grid::new(ctx, 2, 3); // 2 processor rows of 3, pid = s + 2·t
///     let (s, t) = (grid.s(), grid.t());
///     // One sync: each processor row sums its pids, each in its own team.
///     let row_sum = grid.row().allreduce_one(ctx, ctx.pid(), ops::sum);
///     // One sync: the process in processor row 0 of each column sends the others its t.
///     let from_top = grid.col().broadcast_one(ctx, 0, 10 * t);
///     (s, t, row_sum, from_top)
/// })
/// .unwrap();
/// assert_eq!(out[3], (1, 1, 1 + 3 + 5, 10)); // pid 3 = P(1, 1)
/// assert_eq!(out[4], (0, 2, 0 + 2 + 4, 20));
/// ```
///
/// Another example, with a split by a key:
///
/// ```
/// use bsp_runtime::Team;
///
/// let out = bsp_runtime::run(4, |ctx| {
///     let parity = Team::by_key(ctx, |pid| pid % 2); // [0, 2] and [1, 3]
///     let mine = parity.allgather(ctx, &[ctx.pid() as u8]);
///     (parity.rank(), parity.members().to_vec(), mine.concat())
/// })
/// .unwrap();
/// assert_eq!(out[3], (1, vec![1, 3], vec![1, 3]));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Team {
    /// The members' pids, by rank.
    members: Vec<usize>,
    /// Each process's rank, by pid (`u32::MAX` if not a member).
    ranks: Vec<u32>,
    /// The members as headers carry them (`u32` each, little-endian).
    wire: Vec<u8>,
    /// The process that made the team, and its rank.
    pid: usize,
    rank: usize,
}

impl std::fmt::Debug for Team {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Team").field("members", &self.members).field("rank", &self.rank).finish()
    }
}

impl Team {
    /// The team of `members`, in this order (member `i` has rank `i`); this process must be
    /// one of them. Every member must make the same team.
    ///
    /// ```
    /// let out = bsp_runtime::run(4, |ctx| {
    ///     // Processes 3 and 1 form a team in which 3 has rank 0; 0 and 2 another.
    ///     let team = if ctx.pid() % 2 == 1 {
    ///         bsp_runtime::Team::new(ctx, [3, 1])
    ///     } else {
    ///         bsp_runtime::Team::new(ctx, [0, 2])
    ///     };
    ///     team.broadcast_one(ctx, 0, ctx.pid())
    /// })
    /// .unwrap();
    /// assert_eq!(out, vec![0, 3, 0, 3]);
    /// ```
    ///
    /// # Panics
    /// If a member is out of range or listed twice, or if this process is not a member.
    #[track_caller]
    pub fn new(ctx: &Ctx, members: impl IntoIterator<Item = usize>) -> Team {
        let members: Vec<usize> = members.into_iter().collect();
        let (me, p) = (ctx.pid(), ctx.nprocs());
        let mut ranks = vec![u32::MAX; p];
        for (rank, &q) in members.iter().enumerate() {
            if q >= p {
                ctx.fail_misuse(format!("Team::new: member {q} is out of range (nprocs = {p}; members {members:?})"));
            }
            if ranks[q] != u32::MAX {
                ctx.fail_misuse(format!("Team::new: process {q} is listed twice in the members {members:?}"));
            }
            ranks[q] = rank as u32;
        }
        if ranks[me] == u32::MAX {
            ctx.fail_misuse(format!(
                "Team::new: process {me} is not among the members {members:?} (a process makes only the teams it belongs to)"
            ));
        }
        let wire = members.iter().flat_map(|&q| (q as u32).to_le_bytes()).collect();
        Team { rank: ranks[me] as usize, members, ranks, wire, pid: me }
    }

    /// The team of the processes with the same key as this one, in ascending pid order: a
    /// split of all the processes into teams, where `key` is a function of the pid that every
    /// process computes alike.
    ///
    /// ```
    /// let out = bsp_runtime::run(6, |ctx| {
    ///     let block = bsp_runtime::Team::by_key(ctx, |pid| pid / 3); // [0, 1, 2] and [3, 4, 5]
    ///     (block.rank(), block.scan_one(ctx, 1u32, bsp_runtime::ops::sum))
    /// })
    /// .unwrap();
    /// assert_eq!(out[4], (1, 2));
    /// ```
    #[track_caller]
    pub fn by_key<K: PartialEq>(ctx: &Ctx, key: impl Fn(usize) -> K) -> Team {
        let mine = key(ctx.pid());
        Team::new(ctx, (0..ctx.nprocs()).filter(|&q| key(q) == mine))
    }

    /// The number of members.
    ///
    /// ```
    /// let n = bsp_runtime::run(3, |ctx| bsp_runtime::Team::by_key(ctx, |q| q == 0).size()).unwrap();
    /// assert_eq!(n, [1, 2, 2]);
    /// ```
    pub fn size(&self) -> usize {
        self.members.len()
    }

    /// This process's rank in the team.
    ///
    /// ```
    /// let r = bsp_runtime::run(3, |ctx| bsp_runtime::Team::new(ctx, [2, 1, 0]).rank()).unwrap();
    /// assert_eq!(r, [2, 1, 0]);
    /// ```
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The members' pids, by rank.
    ///
    /// ```
    /// let m = bsp_runtime::run(2, |ctx| bsp_runtime::Team::new(ctx, [1, 0]).members().to_vec()).unwrap();
    /// assert_eq!(m[0], [1, 0]);
    /// ```
    pub fn members(&self) -> &[usize] {
        &self.members
    }

    /// The pid of the member of rank `rank`.
    ///
    /// ```
    /// let q = bsp_runtime::run(2, |ctx| bsp_runtime::Team::new(ctx, [1, 0]).pid_of(0)).unwrap();
    /// assert_eq!(q, [1, 1]);
    /// ```
    ///
    /// # Panics
    /// If `rank >= size()`.
    #[track_caller]
    pub fn pid_of(&self, rank: usize) -> usize {
        match self.members.get(rank) {
            Some(&q) => q,
            None => panic!("Team::pid_of: rank {rank} is out of range (team size = {})", self.size()),
        }
    }

    /// The rank of process `pid`, or `None` if it is not a member.
    ///
    /// ```
    /// let r = bsp_runtime::run(3, |ctx| bsp_runtime::Team::by_key(ctx, |q| q % 2).rank_of(2)).unwrap();
    /// assert_eq!(r, [Some(1), None, Some(1)]);
    /// ```
    pub fn rank_of(&self, pid: usize) -> Option<usize> {
        self.ranks.get(pid).filter(|&&r| r != u32::MAX).map(|&r| r as usize)
    }

    /// The members as a collective's header carries them.
    pub(super) fn wire(&self) -> &[u8] {
        &self.wire
    }

    /// The group a collective of `op` spans, after checking that `ctx` is the process that
    /// made the team.
    #[track_caller]
    fn group(&self, ctx: &Ctx, op: &str) -> Group<'_> {
        if ctx.pid() != self.pid || ctx.nprocs() != self.ranks.len() {
            ctx.fail_misuse(format!(
                "{op}: this team was made by process {} of {} processes, so process {} of {} cannot use it (members {:?})",
                self.pid,
                self.ranks.len(),
                ctx.pid(),
                ctx.nprocs(),
                self.members
            ));
        }
        Group::team(self)
    }

    /// [`Ctx::broadcast`] on the team: sends `data` from the member of rank `root` to every
    /// member (one sync; h = `(size−1)·n`, sent by the root).
    ///
    /// ```
    /// let out = bsp_runtime::run(4, |ctx| {
    ///     let grid = bsp_runtime::Grid::new(ctx, 2, 2);
    ///     let mine = vec![ctx.pid() as u16; 3];
    ///     grid.row().broadcast(ctx, 1, &mine) // from P(s, 1) = pid s + 2
    /// })
    /// .unwrap();
    /// assert_eq!(out, vec![vec![2; 3], vec![3; 3], vec![2; 3], vec![3; 3]]);
    /// ```
    ///
    /// # Panics
    /// As [`Ctx::broadcast`], with `root` a rank of the team; and if another process's team is
    /// used (see [`Team`]).
    #[track_caller]
    pub fn broadcast<T: Value>(&self, ctx: &mut Ctx, root: usize, data: impl CollectiveData<T>) -> Vec<T> {
        ctx.broadcast_in(self.group(ctx, "broadcast"), root, data)
    }

    /// [`Ctx::broadcast_one`] on the team.
    ///
    /// ```
    /// let out = bsp_runtime::run(3, |ctx| bsp_runtime::Team::new(ctx, 0..3).broadcast_one(ctx, 2, ctx.pid())).unwrap();
    /// assert_eq!(out, [2, 2, 2]);
    /// ```
    ///
    /// # Panics
    /// As [`broadcast`](Team::broadcast).
    #[track_caller]
    pub fn broadcast_one<T: Value>(&self, ctx: &mut Ctx, root: usize, value: T) -> T {
        ctx.broadcast_in(self.group(ctx, "broadcast"), root, &[value])[0]
    }

    /// [`Ctx::broadcast_large`] on the team (two syncs; h = `(size−1)·n/size` in each).
    ///
    /// ```
    /// let out = bsp_runtime::run(4, |ctx| {
    ///     let team = bsp_runtime::Team::by_key(ctx, |q| q / 2);
    ///     let data: Vec<u32> = if team.rank() == 0 { (0..10).collect() } else { Vec::new() };
    ///     team.broadcast_large(ctx, 0, &data).iter().sum::<u32>()
    /// })
    /// .unwrap();
    /// assert_eq!(out, [45; 4]);
    /// ```
    ///
    /// # Panics
    /// As [`broadcast`](Team::broadcast).
    #[track_caller]
    pub fn broadcast_large<T: Value>(&self, ctx: &mut Ctx, root: usize, data: impl CollectiveData<T>) -> Vec<T> {
        ctx.broadcast_large_in(self.group(ctx, "broadcast_large"), root, data)
    }

    /// [`Ctx::reduce`] on the team: combines the members' `data` in rank order, on the member of
    /// rank `root` (one sync).
    ///
    /// ```
    /// let out = bsp_runtime::run(4, |ctx| {
    ///     let team = bsp_runtime::Team::by_key(ctx, |q| q % 2);
    ///     team.reduce(ctx, 0, &[ctx.pid() as i32], |a, b| a - b)
    /// })
    /// .unwrap();
    /// assert_eq!(out, [Some(vec![0 - 2]), Some(vec![1 - 3]), None, None]);
    /// ```
    ///
    /// # Panics
    /// As [`Ctx::reduce`], with `root` a rank of the team.
    #[track_caller]
    pub fn reduce<T: Value>(
        &self,
        ctx: &mut Ctx,
        root: usize,
        data: impl CollectiveData<T>,
        op: impl Fn(T, T) -> T,
    ) -> Option<Vec<T>> {
        ctx.reduce_in(self.group(ctx, "reduce"), root, data, op)
    }

    /// [`Ctx::allreduce`] on the team: the members' `data` combined in rank order, on every
    /// member (one sync; h = `(size−1)·n`).
    ///
    /// ```
    /// use bsp_runtime::{ops, Grid};
    /// let out = bsp_runtime::run(4, |ctx| {
    ///     let grid = Grid::new(ctx, 2, 2);
    ///     grid.col().allreduce(ctx, &[1.0, ctx.pid() as f64], ops::sum)
    /// })
    /// .unwrap();
    /// assert_eq!(out[3], [2.0, 2.0 + 3.0]); // column 1: pids 2 and 3
    /// ```
    ///
    /// # Panics
    /// As [`Ctx::allreduce`].
    #[track_caller]
    pub fn allreduce<T: Value>(&self, ctx: &mut Ctx, data: impl CollectiveData<T>, op: impl Fn(T, T) -> T) -> Vec<T> {
        ctx.allreduce_in(self.group(ctx, "allreduce"), data, op)
    }

    /// [`Ctx::allreduce_one`] on the team. With [`ops::max_loc`](super::ops::max_loc) it finds
    /// a pivot: the largest value in a processor column, and where it is.
    ///
    /// ```
    /// use bsp_runtime::ops::{self, Loc};
    /// let out = bsp_runtime::run(4, |ctx| {
    ///     let grid = bsp_runtime::Grid::new(ctx, 2, 2);
    ///     let local_max = [3.0, -7.5, 1.0, 2.0][ctx.pid()];
    ///     let row = 10 * ctx.pid(); // where this process's candidate is
    ///     let best = grid.col().allreduce_one(ctx, Loc::new(f64::abs(local_max), row as u64), ops::max_loc);
    ///     (best.value(), best.index())
    /// })
    /// .unwrap();
    /// assert_eq!(out, [(7.5, 10), (7.5, 10), (2.0, 30), (2.0, 30)]);
    /// ```
    ///
    /// # Panics
    /// As [`Ctx::allreduce`].
    #[track_caller]
    pub fn allreduce_one<T: Value>(&self, ctx: &mut Ctx, value: T, op: impl Fn(T, T) -> T) -> T {
        ctx.allreduce_in(self.group(ctx, "allreduce"), &[value], op)[0]
    }

    /// [`Ctx::scan`] on the team: the member of rank `i` gets the combination of ranks `0..=i`.
    ///
    /// ```
    /// let out = bsp_runtime::run(4, |ctx| {
    ///     let team = bsp_runtime::Team::new(ctx, if ctx.pid() < 2 { [1, 0] } else { [2, 3] });
    ///     team.scan(ctx, &[ctx.pid() as u8 + 1], bsp_runtime::ops::sum)
    /// })
    /// .unwrap();
    /// assert_eq!(out, [vec![3], vec![2], vec![3], vec![7]]);
    /// ```
    ///
    /// # Panics
    /// As [`Ctx::scan`].
    #[track_caller]
    pub fn scan<T: Value>(&self, ctx: &mut Ctx, data: impl CollectiveData<T>, op: impl Fn(T, T) -> T) -> Vec<T> {
        ctx.scan_in(self.group(ctx, "scan"), data, op)
    }

    /// [`Ctx::scan_one`] on the team.
    ///
    /// ```
    /// let out = bsp_runtime::run(3, |ctx| bsp_runtime::Team::new(ctx, 0..3).scan_one(ctx, 2u32, |a, b| a * b)).unwrap();
    /// assert_eq!(out, [2, 4, 8]);
    /// ```
    ///
    /// # Panics
    /// As [`Ctx::scan`].
    #[track_caller]
    pub fn scan_one<T: Value>(&self, ctx: &mut Ctx, value: T, op: impl Fn(T, T) -> T) -> T {
        ctx.scan_in(self.group(ctx, "scan"), &[value], op)[0]
    }

    /// [`Ctx::gather`] on the team: the members' data, by rank, on the member of rank `root`.
    ///
    /// ```
    /// let out = bsp_runtime::run(4, |ctx| {
    ///     let team = bsp_runtime::Team::by_key(ctx, |q| q % 2);
    ///     team.gather(ctx, 1, &vec![ctx.pid() as u8; team.rank() + 1])
    /// })
    /// .unwrap();
    /// assert_eq!(out[3], Some(vec![vec![1], vec![3, 3]]));
    /// assert_eq!(out[1], None);
    /// ```
    ///
    /// # Panics
    /// As [`Ctx::gather`], with `root` a rank of the team.
    #[track_caller]
    pub fn gather<T: Value>(&self, ctx: &mut Ctx, root: usize, data: impl CollectiveData<T>) -> Option<Vec<Vec<T>>> {
        ctx.gather_in(self.group(ctx, "gather"), root, data)
    }

    /// [`Ctx::gather_into`] on the team.
    ///
    /// ```
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let mut parts = bsp_runtime::collective::Parts::new();
    ///     bsp_runtime::Team::new(ctx, [1, 0]).gather_into(ctx, 0, &[ctx.pid() as u8], &mut parts);
    ///     parts.to_vecs()
    /// })
    /// .unwrap();
    /// assert_eq!(out[1], [vec![1], vec![0]]);
    /// ```
    ///
    /// # Panics
    /// As [`gather`](Team::gather).
    #[track_caller]
    pub fn gather_into<T: Value>(&self, ctx: &mut Ctx, root: usize, data: impl CollectiveData<T>, out: &mut Parts<T>) {
        ctx.gather_into_in(self.group(ctx, "gather_into"), root, data, out);
    }

    /// [`Ctx::allgather`] on the team: every member's data, by rank, on every member.
    ///
    /// ```
    /// let out = bsp_runtime::run(4, |ctx| bsp_runtime::Team::by_key(ctx, |q| q / 2).allgather(ctx, &[ctx.pid() as u8])).unwrap();
    /// assert_eq!(out[3], [vec![2], vec![3]]);
    /// ```
    ///
    /// # Panics
    /// As [`Ctx::allgather`].
    #[track_caller]
    pub fn allgather<T: Value>(&self, ctx: &mut Ctx, data: impl CollectiveData<T>) -> Vec<Vec<T>> {
        ctx.allgather_in(self.group(ctx, "allgather"), data)
    }

    /// [`Ctx::allgather_into`] on the team.
    ///
    /// ```
    /// let out = bsp_runtime::run(4, |ctx| {
    ///     let mut parts = bsp_runtime::collective::Parts::new();
    ///     bsp_runtime::Team::by_key(ctx, |q| q % 2).allgather_into(ctx, &[ctx.pid() as u8], &mut parts);
    ///     parts.flat().to_vec()
    /// })
    /// .unwrap();
    /// assert_eq!(out[2], [0, 2]);
    /// ```
    ///
    /// # Panics
    /// As [`Ctx::allgather`].
    #[track_caller]
    pub fn allgather_into<T: Value>(&self, ctx: &mut Ctx, data: impl CollectiveData<T>, out: &mut Parts<T>) {
        ctx.allgather_into_in(self.group(ctx, "allgather_into"), data, out);
    }

    /// [`Ctx::scatter`] on the team: `parts[r]` from the member of rank `root` to the member of
    /// rank `r`.
    ///
    /// ```
    /// let out = bsp_runtime::run(4, |ctx| {
    ///     let team = bsp_runtime::Team::by_key(ctx, |q| q % 2);
    ///     let parts = if team.rank() == 0 { vec![vec![ctx.pid()], vec![ctx.pid(); 2]] } else { Vec::new() };
    ///     team.scatter(ctx, 0, &parts)
    /// })
    /// .unwrap();
    /// assert_eq!(out, [vec![0], vec![1], vec![0, 0], vec![1, 1]]);
    /// ```
    ///
    /// # Panics
    /// As [`Ctx::scatter`], with one part per member on the root.
    #[track_caller]
    pub fn scatter<T: Value, P: AsRef<[T]>>(&self, ctx: &mut Ctx, root: usize, parts: &[P]) -> Vec<T> {
        ctx.scatter_in(self.group(ctx, "scatter"), root, parts)
    }

    /// [`Ctx::alltoall`] on the team: block `r` of `data` goes to the member of rank `r`.
    ///
    /// ```
    /// // Transpose the 2×2 blocks of the teams [0, 1] and [2, 3].
    /// let out = bsp_runtime::run(4, |ctx| {
    ///     let team = bsp_runtime::Team::by_key(ctx, |q| q / 2);
    ///     let row = [10 * ctx.pid() as u32, 10 * ctx.pid() as u32 + 1];
    ///     team.alltoall(ctx, &row)
    /// })
    /// .unwrap();
    /// assert_eq!(out[3], [21, 31]);
    /// ```
    ///
    /// # Panics
    /// As [`Ctx::alltoall`], with a length that is a multiple of the team's size.
    #[track_caller]
    pub fn alltoall<T: Value>(&self, ctx: &mut Ctx, data: impl CollectiveData<T>) -> Vec<T> {
        ctx.alltoall_in(self.group(ctx, "alltoall"), data)
    }

    /// [`Ctx::alltoallv`] on the team: `parts[r]` goes to the member of rank `r`, and part `r`
    /// of the result came from it.
    ///
    /// ```
    /// let out = bsp_runtime::run(4, |ctx| {
    ///     let team = bsp_runtime::Team::by_key(ctx, |q| q % 2);
    ///     let parts: Vec<Vec<usize>> = (0..team.size()).map(|r| vec![ctx.pid(); r + 1]).collect();
    ///     team.alltoallv(ctx, &parts)
    /// })
    /// .unwrap();
    /// assert_eq!(out[3], [vec![1, 1], vec![3, 3]]);
    /// ```
    ///
    /// # Panics
    /// As [`Ctx::alltoallv`], with one part per member.
    #[track_caller]
    pub fn alltoallv<T: Value, P: AsRef<[T]>>(&self, ctx: &mut Ctx, parts: &[P]) -> Vec<Vec<T>> {
        ctx.alltoallv_in(self.group(ctx, "alltoallv"), parts)
    }

    /// [`Ctx::alltoallv_into`] on the team.
    ///
    /// ```
    /// let out = bsp_runtime::run(2, |ctx| {
    ///     let mut got = bsp_runtime::collective::Parts::new();
    ///     let pid = ctx.pid() as u8;
    ///     // Process 1 has rank 0, process 0 rank 1: part r goes to rank r.
    ///     bsp_runtime::Team::new(ctx, [1, 0]).alltoallv_into(ctx, &[[10 + pid], [20 + pid]], &mut got);
    ///     got.to_vecs()
    /// })
    /// .unwrap();
    /// assert_eq!(out[0], [vec![21], vec![20]]); // by rank: from process 1, then from itself
    /// ```
    ///
    /// # Panics
    /// As [`alltoallv`](Team::alltoallv).
    #[track_caller]
    pub fn alltoallv_into<T: Value, P: AsRef<[T]>>(&self, ctx: &mut Ctx, parts: &[P], out: &mut Parts<T>) {
        ctx.alltoallv_into_in(self.group(ctx, "alltoallv_into"), parts, out);
    }
}

/// The processes as an `M × N` grid, with the processor row and column of this process as
/// teams: process `P(s, t)`, in processor row `s < M` and column `t < N`, has pid `s + t·M`.
///
/// [`row`](Grid::row) is `P(s, 0), …, P(s, N−1)` (ranked by `t`), [`col`](Grid::col) is
/// `P(0, t), …, P(M−1, t)` (ranked by `s`). No communication: every process computes the
/// same grid.
///
/// ```
/// let out = bsp_runtime::run(6, |ctx| {
///     let grid = bsp_runtime::Grid::new(ctx, 3, 2);
///     (grid.s(), grid.t(), grid.row().members().to_vec(), grid.col().members().to_vec())
/// })
/// .unwrap();
/// assert_eq!(out[4], (1, 1, vec![1, 4], vec![3, 4, 5]));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    m: usize,
    n: usize,
    row: Team,
    col: Team,
}

impl Grid {
    /// The `m × n` grid of the `m·n` processes.
    ///
    /// ```
    /// let out = bsp_runtime::run(2, |ctx| bsp_runtime::Grid::new(ctx, 1, 2).row().size()).unwrap();
    /// assert_eq!(out, [2, 2]);
    /// ```
    ///
    /// # Panics
    /// Unless `m·n` is the number of processes.
    #[track_caller]
    pub fn new(ctx: &Ctx, m: usize, n: usize) -> Grid {
        let p = ctx.nprocs();
        if m.checked_mul(n) != Some(p) {
            let size = m as u128 * n as u128;
            ctx.fail_misuse(format!("Grid::new: a {m}×{n} grid has {size} processes, but nprocs = {p}"));
        }
        let (s, t) = (ctx.pid() % m, ctx.pid() / m);
        Grid { m, n, row: Team::new(ctx, (0..n).map(|t| s + t * m)), col: Team::new(ctx, (0..m).map(|s| s + t * m)) }
    }

    /// The number of processor rows, `M`.
    ///
    /// ```
    /// assert_eq!(bsp_runtime::run(6, |ctx| bsp_runtime::Grid::new(ctx, 3, 2).rows()).unwrap()[0], 3);
    /// ```
    pub fn rows(&self) -> usize {
        self.m
    }

    /// The number of processor columns, `N`.
    ///
    /// ```
    /// assert_eq!(bsp_runtime::run(6, |ctx| bsp_runtime::Grid::new(ctx, 3, 2).cols()).unwrap()[0], 2);
    /// ```
    pub fn cols(&self) -> usize {
        self.n
    }

    /// This process's processor row, `s` (its rank in its column).
    ///
    /// ```
    /// assert_eq!(bsp_runtime::run(4, |ctx| bsp_runtime::Grid::new(ctx, 2, 2).s()).unwrap(), [0, 1, 0, 1]);
    /// ```
    pub fn s(&self) -> usize {
        self.col.rank()
    }

    /// This process's processor column, `t` (its rank in its row).
    ///
    /// ```
    /// assert_eq!(bsp_runtime::run(4, |ctx| bsp_runtime::Grid::new(ctx, 2, 2).t()).unwrap(), [0, 0, 1, 1]);
    /// ```
    pub fn t(&self) -> usize {
        self.row.rank()
    }

    /// The pid of `P(s, t)`: `s + t·M`.
    ///
    /// ```
    /// assert_eq!(bsp_runtime::run(6, |ctx| bsp_runtime::Grid::new(ctx, 2, 3).pid(1, 2)).unwrap()[0], 5);
    /// ```
    ///
    /// # Panics
    /// If `s` or `t` is out of range.
    #[track_caller]
    pub fn pid(&self, s: usize, t: usize) -> usize {
        assert!(s < self.m && t < self.n, "Grid::pid: P({s}, {t}) is not in a {}×{} grid", self.m, self.n);
        s + t * self.m
    }

    /// This process's processor row as a team: `P(s, 0), …, P(s, N−1)`, ranked by `t`.
    ///
    /// ```
    /// let out = bsp_runtime::run(4, |ctx| bsp_runtime::Grid::new(ctx, 2, 2).row().members().to_vec()).unwrap();
    /// assert_eq!(out[1], [1, 3]);
    /// ```
    pub fn row(&self) -> &Team {
        &self.row
    }

    /// This process's processor column as a team: `P(0, t), …, P(M−1, t)`, ranked by `s`.
    ///
    /// ```
    /// let out = bsp_runtime::run(4, |ctx| bsp_runtime::Grid::new(ctx, 2, 2).col().members().to_vec()).unwrap();
    /// assert_eq!(out[1], [0, 1]);
    /// ```
    pub fn col(&self) -> &Team {
        &self.col
    }
}
