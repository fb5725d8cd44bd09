//! Generating a random, valid program from a seed.
//!
//! Validity is what the runtime's types and checks demand, plus staying inside defined
//! behaviour so that the reference model has one right answer:
//!
//! - collective calls agree: every process makes the same `register`/`unregister` calls in the
//!   same order, and ends each superstep with the same requested tag size;
//! - registration changes are syncs (`register`, `unregister`): a superstep that pushes or pops
//!   ends with that call instead of `ctx.sync()`, so it does either (not both), and is run in
//!   plain mode (a `superstep` closure syncs by itself);
//! - every transfer lies inside the extent of the process it names (lengths differ per process);
//! - a registration is named or written only after the sync that made it effective (D4), and up
//!   to the sync that ends the superstep it is popped in (D27); it is popped once, never in the
//!   superstep it was pushed in (D5);
//! - borrows: get destinations in registered memory are disjoint pieces of registrations with
//!   role `GetDst` (named in that superstep only through a `Remote` taken before, and never a put
//!   source); hpput sources in registered memory come from registrations with role `HpSrc` (no
//!   local writes after the borrow);
//! - collectives agree: the same call on every process, with the same root and operator, and
//!   lengths that agree where §8 of docs/semantics.md says they must; a superstep that ends with
//!   one runs every process's communication in plain mode (a collective needs `&mut Ctx`);
//! - every process makes the same combiners in the same order (`interp.rs` makes one per
//!   [`CombOp`] at the start);
//! - `hpget`/`hpput` only where the standard defines them (`make_hp_defined`): an unbuffered
//!   transfer whose source or destination is touched by other communication or by local writes in
//!   the same superstep is undefined in BSPlib, so it is turned into its buffered twin.

use super::program::{
    Coll, CombOp, Dst, Form, Op, ProcStep, Program, RegId, RegInfo, RegOp, Role, Span, Src, Step, Write,
};
use super::rng::Rng;

/// Most registrations alive at once.
const MAX_LIVE: usize = 5;
/// Longest registration on one process.
const MAX_LEN: usize = 12;
/// Longest transfer.
const MAX_XFER: usize = 5;
/// Most communication-phase operations per process per superstep.
const MAX_OPS: usize = 7;
/// Longest collective argument on one process (per part for `scatter` and `alltoallv`).
const MAX_COLL: usize = 4;

/// The program for `seed` on `p` processes with `steps` supersteps.
pub fn generate(seed: u64, p: usize, steps: usize) -> Program {
    let mut g = Gen {
        rng: Rng::new(seed),
        p,
        regs: Vec::new(),
        pushed_at: Vec::new(),
        popped_at: Vec::new(),
        get_dsts: Vec::new(),
        plain: false,
    };
    let mut requested = 0; // C of docs/semantics.md §4.1
    let (mut in_queue, mut in_force) = (0, 0); // A and B
    let mut out = Vec::new();
    for s in 0..steps {
        let step = g.step(s, in_force, in_queue, &mut requested);
        for _ in 0..step.syncs() {
            in_queue = in_force;
            in_force = requested;
        }
        out.push(step);
    }
    Program { seed, p, regs: g.regs, steps: out }
}

struct Gen {
    rng: Rng,
    p: usize,
    regs: Vec<RegInfo>,
    pushed_at: Vec<usize>,
    popped_at: Vec<Option<usize>>,
    /// Get destinations in registered memory so far in this superstep: (pid, span). Puts aim
    /// at them now and then, since D1 and D18 are about what happens where they meet.
    get_dsts: Vec<(usize, Span)>,
    /// This superstep ends with a collective or a registration change (each takes the place of
    /// the sync and needs `&mut Ctx`), so every process communicates in plain mode.
    plain: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Write,
    Put,
    PutCombine,
    HpPut,
    Get,
    Send,
    Qsize,
    GetTag,
    Move,
    HpMove,
}

const KINDS: [(Kind, usize); 10] = [
    (Kind::Write, 3),
    (Kind::Put, 4),
    (Kind::PutCombine, 3),
    (Kind::HpPut, 2),
    (Kind::Get, 4),
    (Kind::Send, 3),
    (Kind::Qsize, 1),
    (Kind::GetTag, 1),
    (Kind::Move, 2),
    (Kind::HpMove, 1),
];

/// What one process may do in the superstep being generated.
struct Scope<'a> {
    s: usize,
    me: usize,
    quiet: bool,
    superstep: bool,
    in_force: usize,
    in_queue: usize,
    roles: &'a [(RegId, Role)],
}

impl Scope<'_> {
    fn role(&self, reg: RegId) -> Role {
        self.roles.iter().find(|(r, _)| *r == reg).map_or(Role::Normal, |&(_, role)| role)
    }
}

impl Gen {
    fn len(&self, reg: RegId, pid: usize) -> usize {
        self.regs[reg].init[pid].len()
    }

    /// The registration has local memory the program can reach in superstep `s` (its handle
    /// exists: the sync of the push is over, the pop's is not).
    fn local(&self, reg: RegId, s: usize) -> bool {
        self.pushed_at[reg] < s && self.popped_at[reg].is_none_or(|x| x >= s)
    }

    /// The registration may be named in communication in superstep `s`.
    fn usable(&self, reg: RegId, s: usize) -> bool {
        self.pushed_at[reg] < s && self.popped_at[reg].is_none_or(|x| x >= s)
    }

    fn push(&mut self, s: usize) -> RegOp {
        let p = self.p;
        // Sometimes the same length everywhere (as reductions from a registration need), and
        // sometimes a multiple of p (as `alltoall` needs).
        let same = match self.rng.below(6) {
            0 | 1 => Some(self.rng.range(1, MAX_LEN)),
            2 => Some(p * self.rng.range(1, (MAX_LEN / p).max(1))),
            _ => None,
        };
        let init = (0..p)
            .map(|_| {
                let n = same.unwrap_or_else(|| if self.rng.chance(1, 8) { 0 } else { self.rng.range(1, MAX_LEN) });
                self.rng.u32s(n)
            })
            .collect();
        self.regs.push(RegInfo { init });
        self.pushed_at.push(s);
        self.popped_at.push(None);
        RegOp::Push(self.regs.len() - 1)
    }

    fn step(&mut self, s: usize, in_force: usize, in_queue: usize, requested: &mut usize) -> Step {
        let quiet = s > 0 && self.rng.chance(1, 6);
        self.get_dsts.clear();
        let mut reg_ops = Vec::new();
        if s == 0 {
            for _ in 0..self.rng.range(1, 3) {
                reg_ops.push(self.push(s));
            }
        } else if !quiet {
            // Up to two pushes, or up to two pops (slots freed by pops are reused by later
            // pushes); at least one registration stays.
            let live = (0..self.regs.len()).filter(|&r| self.local(r, s)).count();
            if self.rng.chance(1, 4) {
                for _ in 0..self.rng.range(1, 2).min(MAX_LIVE.saturating_sub(live)) {
                    reg_ops.push(self.push(s));
                }
            }
            let mut poppable: Vec<RegId> =
                (0..self.regs.len()).filter(|&r| self.usable(r, s) && self.popped_at[r].is_none()).collect();
            if reg_ops.is_empty() && self.rng.chance(1, 4) {
                self.rng.shuffle(&mut poppable);
                for &r in poppable.iter().take(self.rng.range(1, 2).min(poppable.len().saturating_sub(1))) {
                    self.popped_at[r] = Some(s);
                    reg_ops.push(RegOp::Pop(r));
                }
            }
            self.rng.shuffle(&mut reg_ops);
        }
        let tag = (!quiet && self.rng.chance(1, 4)).then(|| self.rng.range(0, 8));
        if let Some(t) = tag {
            *requested = t;
        }
        // A collective, like a registration change, takes the place of the sync: never both.
        let mut coll = (!quiet && reg_ops.is_empty() && self.rng.chance(1, 3)).then(|| self.coll());
        let coll_from = coll.as_mut().and_then(|c| self.coll_from(s, c));
        self.plain = coll.is_some() || !reg_ops.is_empty();
        let procs = (0..self.p).map(|me| self.proc_step(s, me, quiet, in_force, in_queue, tag)).collect();
        let mut step = Step { reg_ops, procs, coll, coll_from };
        make_hp_defined(&mut step);
        step
    }

    #[allow(clippy::too_many_arguments, reason = "what one process may do depends on each of them")]
    fn proc_step(
        &mut self,
        s: usize,
        me: usize,
        quiet: bool,
        in_force: usize,
        in_queue: usize,
        tag: Option<usize>,
    ) -> ProcStep {
        let tag_calls = match tag {
            Some(t) => {
                let mut calls: Vec<usize> = (0..self.rng.below(3)).map(|_| self.rng.range(0, 8)).collect();
                calls.push(t);
                calls
            }
            None => Vec::new(),
        };
        let superstep = !self.plain && self.rng.chance(2, 3);
        let with_mem: Vec<RegId> = (0..self.regs.len()).filter(|&r| self.local(r, s) && self.len(r, me) > 0).collect();
        let mut roles = Vec::new();
        if superstep {
            for &r in &with_mem {
                match self.rng.below(10) {
                    0 | 1 => roles.push((r, Role::GetDst)),
                    2 => roles.push((r, Role::HpSrc)),
                    _ => {}
                }
            }
        }
        let pre = (0..self.rng.below(3)).filter_map(|_| self.write(me, &with_mem)).collect();
        let scope = Scope { s, me, quiet, superstep, in_force, in_queue, roles: &roles };
        // Free elements of each `GetDst` registration, for disjoint get destinations.
        let mut free: Vec<(RegId, Vec<bool>)> = roles
            .iter()
            .filter(|(_, role)| *role == Role::GetDst)
            .map(|&(r, _)| (r, vec![true; self.len(r, me)]))
            .collect();
        let mut ops = Vec::new();
        for _ in 0..self.rng.range(0, MAX_OPS) {
            if let Some(op) = self.op(&scope, &mut free) {
                ops.push(op);
            }
        }
        ProcStep { tag_calls, superstep, roles, pre, ops }
    }

    /// A collective call with random arguments that satisfy its rules (docs/semantics.md §8).
    fn coll(&mut self) -> Coll {
        let p = self.p;
        let root = self.rng.below(p);
        let op = CombOp::ALL[self.rng.below(CombOp::ALL.len())];
        let one = self.rng.chance(1, 2);
        // Lengths that agree, and lengths that need not.
        let n = if one { 1 } else { self.rng.range(0, MAX_COLL) };
        let same: Vec<Vec<u32>> = (0..p).map(|_| self.rng.u32s(n)).collect();
        let any = |g: &mut Self| -> Vec<Vec<u32>> {
            (0..p).map(|_| (0..g.rng.range(0, MAX_COLL)).map(|_| g.rng.next_u64() as u32).collect()).collect()
        };
        let parts = |g: &mut Self, count: usize| -> Vec<Vec<u32>> {
            (0..count).map(|_| (0..g.rng.range(0, MAX_COLL)).map(|_| g.rng.next_u64() as u32).collect()).collect()
        };
        match self.rng.below(11) {
            0..=2 => {
                let form = [Form::Slice, Form::One, Form::Large][self.rng.below(3)];
                let data = if form == Form::One { (0..p).map(|_| self.rng.u32s(1)).collect() } else { any(self) };
                Coll::Broadcast { root, form, data }
            }
            3 => Coll::Reduce { root, op, data: same },
            4 => Coll::Allreduce { one, op, data: same },
            5 => Coll::Scan { one, op, data: same },
            6 => Coll::Gather { root, into: self.rng.chance(1, 2), data: any(self) },
            7 => Coll::Allgather { into: self.rng.chance(1, 2), data: any(self) },
            8 => {
                // The others' parts are not read: any number of them.
                let parts = (0..p)
                    .map(|q| {
                        let count = if q == root { p } else { self.rng.range(0, p + 1) };
                        parts(self, count)
                    })
                    .collect();
                Coll::Scatter { root, parts }
            }
            9 => {
                let k = self.rng.range(0, 2);
                Coll::Alltoall { data: (0..p).map(|_| self.rng.u32s(p * k)).collect() }
            }
            _ => Coll::Alltoallv { into: self.rng.chance(1, 2), parts: (0..p).map(|_| parts(self, p)).collect() },
        }
    }

    /// Now and then, a registration whose local parts suit `coll` as its data (lengths that agree
    /// where they must); `coll`'s own data is then cleared, since it is not used.
    fn coll_from(&mut self, s: usize, coll: &mut Coll) -> Option<RegId> {
        let p = self.p;
        let (data, multiple) = coll.slice_data(p)?;
        let fits = |g: &Gen, r: RegId| {
            let lens: Vec<usize> = g.regs[r].init.iter().map(Vec::len).collect();
            g.local(r, s) && multiple.is_none_or(|k| lens.iter().all(|&n| n == lens[0] && n % k == 0))
        };
        let candidates: Vec<RegId> = (0..self.regs.len()).filter(|&r| fits(self, r)).collect();
        let reg = self.rng.pick(&candidates).filter(|_| self.rng.chance(1, 2))?;
        *data = vec![Vec::new(); p];
        Some(reg)
    }

    fn write(&mut self, me: usize, regs: &[RegId]) -> Option<Write> {
        let reg = self.rng.pick(regs)?;
        let (off, len) = self.piece(self.len(reg, me));
        Some(Write { reg, off, vals: self.rng.u32s(len) })
    }

    /// A non-empty piece of an extent `n > 0`: (offset, length).
    fn piece(&mut self, n: usize) -> (usize, usize) {
        let off = self.rng.below(n);
        let len = self.rng.range(1, (n - off).min(MAX_XFER));
        (off, len)
    }

    fn kind(&mut self) -> Kind {
        let total: usize = KINDS.iter().map(|(_, w)| w).sum();
        let mut x = self.rng.below(total);
        for &(k, w) in &KINDS {
            if x < w {
                return k;
            }
            x -= w;
        }
        unreachable!()
    }

    fn op(&mut self, sc: &Scope<'_>, free: &mut [(RegId, Vec<bool>)]) -> Option<Op> {
        let kind = self.kind();
        let me = sc.me;
        let nregs = self.regs.len();
        // Registrations this process may name in this superstep (a `GetDst` one through the
        // `Remote` taken before its memory was lent).
        let named: Vec<RegId> = (0..nregs).filter(|&r| self.usable(r, sc.s)).collect();
        match kind {
            Kind::Write => {
                let normal: Vec<RegId> = (0..nregs)
                    .filter(|&r| self.local(r, sc.s) && self.len(r, me) > 0 && sc.role(r) == Role::Normal)
                    .collect();
                self.write(me, &normal).map(Op::Write)
            }
            Kind::Put | Kind::HpPut | Kind::PutCombine => {
                let hp = kind == Kind::HpPut;
                if hp && !sc.superstep {
                    return None;
                }
                let zero = self.rng.chance(1, 12);
                if sc.quiet && !zero {
                    return None;
                }
                // Get destinations this process may name (not in a registration pushed just now).
                let aims: Vec<(usize, Span)> =
                    self.get_dsts.iter().copied().filter(|(_, g)| named.contains(&g.reg)).collect();
                let (pid, dst) = match self.rng.pick(&aims).filter(|_| !zero && self.rng.chance(1, 3)) {
                    Some((pid, g)) => {
                        // Into a get destination (D1).
                        let (off, len) = self.piece(g.len);
                        (pid, Span { reg: g.reg, off: g.off + off, len })
                    }
                    None => {
                        let pid = self.rng.below(self.p);
                        let targets: Vec<RegId> =
                            named.iter().copied().filter(|&r| zero || self.len(r, pid) > 0).collect();
                        let reg = self.rng.pick(&targets)?;
                        let (off, len) = if zero {
                            (self.rng.range(0, self.len(reg, pid)), 0)
                        } else {
                            self.piece(self.len(reg, pid))
                        };
                        (pid, Span { reg, off, len })
                    }
                };
                let len = dst.len;
                let from_reg = len > 0 && self.rng.chance(1, 2);
                let src_regs: Vec<RegId> = (0..nregs)
                    .filter(|&r| {
                        self.local(r, sc.s)
                            && self.len(r, me) >= len
                            && if hp { sc.role(r) == Role::HpSrc } else { sc.role(r) != Role::GetDst }
                    })
                    .collect();
                let src = match self.rng.pick(&src_regs).filter(|_| from_reg) {
                    Some(r) => Src::Reg(Span { reg: r, off: self.rng.range(0, self.len(r, me) - len), len }),
                    None => Src::Lit(self.rng.u32s(len)),
                };
                Some(match kind {
                    Kind::HpPut => Op::HpPut { pid, dst, src },
                    Kind::PutCombine => {
                        let op = CombOp::ALL[self.rng.below(CombOp::ALL.len())];
                        Op::PutCombine { pid, dst, src, op }
                    }
                    _ => Op::Put { pid, dst, src },
                })
            }
            Kind::Get => {
                if !sc.superstep || sc.quiet {
                    return None;
                }
                let hp = self.rng.chance(1, 2);
                // From itself now and then: a get within one registration of the same process.
                let pid = if self.rng.chance(1, 4) { me } else { self.rng.below(self.p) };
                let zero = self.rng.chance(1, 12);
                let sources: Vec<RegId> = named.iter().copied().filter(|&r| zero || self.len(r, pid) > 0).collect();
                let reg = self.rng.pick(&sources)?;
                let (off, len) =
                    if zero { (self.rng.range(0, self.len(reg, pid)), 0) } else { self.piece(self.len(reg, pid)) };
                let src = Span { reg, off, len };
                let dst = if len > 0 && self.rng.chance(1, 2) {
                    self.free_piece(free, len).map_or(Dst::Buf(len), |d| {
                        self.get_dsts.push((me, d));
                        Dst::Reg(d)
                    })
                } else {
                    Dst::Buf(len)
                };
                Some(Op::Get { hp, pid, src, dst })
            }
            Kind::Send => {
                if sc.quiet {
                    return None;
                }
                let pid = self.rng.below(self.p);
                let tag = self.rng.bytes(sc.in_force);
                let n = self.rng.range(0, 10);
                Some(Op::Send { pid, tag, payload: self.rng.bytes(n) })
            }
            Kind::Qsize => Some(Op::Qsize),
            Kind::GetTag => Some(Op::GetTag { len: sc.in_queue }),
            Kind::Move => Some(Op::Move { cap: self.rng.range(0, 12) }),
            Kind::HpMove => Some(Op::HpMove),
        }
    }

    /// A free run of `len` elements in one of the `GetDst` registrations, marked used.
    fn free_piece(&mut self, free: &mut [(RegId, Vec<bool>)], len: usize) -> Option<Span> {
        let mut fits = Vec::new();
        for (i, (_, elems)) in free.iter().enumerate() {
            for off in 0..elems.len().saturating_sub(len - 1) {
                if elems[off..off + len].iter().all(|&f| f) {
                    fits.push((i, off));
                }
            }
        }
        let (i, off) = self.rng.pick(&fits)?;
        let (reg, elems) = &mut free[i];
        elems[off..off + len].iter_mut().for_each(|f| *f = false);
        Some(Span { reg: *reg, off, len })
    }
}

/// Touched memory: (process, registration, offset, length).
type Area = (usize, RegId, usize, usize);

fn overlaps(areas: &[Area], (pid, reg, off, len): Area) -> bool {
    areas.iter().any(|&(p, r, o, l)| p == pid && r == reg && o < off + len && off < o + l)
}

/// Turns every `hpget`/`hpput` whose outcome BSPlib leaves undefined into `get`/`put`.
///
/// OX bsp_hpput(3): undefined if, during the superstep, the source changes, or the destination
/// is touched by local code or by other communication; hpget likewise (its source and destination
/// may be accessed at any time until the end of the sync). The buffered twins have the defined
/// D1/D2 semantics that the reference implements.
pub fn make_hp_defined(step: &mut Step) {
    let (mut put_dsts, mut get_srcs, mut get_dsts, mut writes) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    // put_dsts also records who issued the put, so that an hpput does not conflict with itself.
    let mut put_issuer = Vec::new();
    for (me, ps) in step.procs.iter().enumerate() {
        for w in &ps.pre {
            writes.push((me, w.reg, w.off, w.vals.len()));
        }
        for (i, op) in ps.ops.iter().enumerate() {
            match op {
                Op::Write(w) => writes.push((me, w.reg, w.off, w.vals.len())),
                Op::Put { pid, dst, .. } | Op::HpPut { pid, dst, .. } | Op::PutCombine { pid, dst, .. } => {
                    put_dsts.push((*pid, dst.reg, dst.off, dst.len));
                    put_issuer.push((me, i));
                }
                Op::Get { pid, src, dst, .. } => {
                    get_srcs.push((*pid, src.reg, src.off, src.len));
                    if let Dst::Reg(d) = dst {
                        get_dsts.push((me, d.reg, d.off, d.len));
                    }
                }
                _ => {}
            }
        }
    }
    for (me, ps) in step.procs.iter_mut().enumerate() {
        for (i, op) in ps.ops.iter_mut().enumerate() {
            match op {
                Op::Get { hp: hp @ true, pid, src, dst } => {
                    let s = (*pid, src.reg, src.off, src.len);
                    let bad_dst = matches!(dst, Dst::Reg(d)
                        if overlaps(&put_dsts, (me, d.reg, d.off, d.len)) || overlaps(&get_srcs, (me, d.reg, d.off, d.len)));
                    if overlaps(&put_dsts, s) || overlaps(&get_dsts, s) || overlaps(&writes, s) || bad_dst {
                        *hp = false;
                    }
                }
                Op::HpPut { pid, dst, src } => {
                    let d = (*pid, dst.reg, dst.off, dst.len);
                    let others: Vec<Area> =
                        put_dsts.iter().zip(&put_issuer).filter(|&(_, &who)| who != (me, i)).map(|(&a, _)| a).collect();
                    let bad_src = matches!(src, Src::Reg(s) if overlaps(&put_dsts, (me, s.reg, s.off, s.len)));
                    if overlaps(&others, d)
                        || overlaps(&get_srcs, d)
                        || overlaps(&get_dsts, d)
                        || overlaps(&writes, d)
                        || bad_src
                    {
                        *op = Op::Put { pid: *pid, dst: *dst, src: src.clone() };
                    }
                }
                _ => {}
            }
        }
    }
}
