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
//! - `hpget`/`hpput` only where the standard defines them (`make_hp_defined`): an unbuffered
//!   transfer whose source or destination is touched by other communication or by local writes in
//!   the same superstep is undefined in BSPlib, so it is turned into its buffered twin.

use super::program::{Dst, Op, ProcStep, Program, RegId, RegInfo, RegOp, Role, Span, Src, Step, Write};
use super::rng::Rng;

/// Most registrations alive at once.
const MAX_LIVE: usize = 5;
/// Longest registration on one process.
const MAX_LEN: usize = 12;
/// Longest transfer.
const MAX_XFER: usize = 5;
/// Most communication-phase operations per process per superstep.
const MAX_OPS: usize = 7;

/// The program for `seed` on `p` processes with `steps` supersteps.
pub fn generate(seed: u64, p: usize, steps: usize) -> Program {
    let mut g = Gen { rng: Rng::new(seed), p, regs: Vec::new(), pushed_at: Vec::new(), popped_at: Vec::new() };
    let mut requested = 0; // C of docs/semantics.md §4.1
    let (mut in_queue, mut in_force) = (0, 0); // A and B
    let mut out = Vec::new();
    for s in 0..steps {
        let step = g.step(s, in_force, in_queue, &mut requested);
        out.push(step);
        in_queue = in_force;
        in_force = requested;
    }
    Program { seed, p, regs: g.regs, steps: out }
}

struct Gen {
    rng: Rng,
    p: usize,
    regs: Vec<RegInfo>,
    pushed_at: Vec<usize>,
    popped_at: Vec<Option<usize>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Write,
    Put,
    HpPut,
    Get,
    Send,
    Qsize,
    GetTag,
    Move,
    HpMove,
}

const KINDS: [(Kind, usize); 9] = [
    (Kind::Write, 3),
    (Kind::Put, 4),
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
        let init = (0..p)
            .map(|_| {
                let n = if self.rng.chance(1, 8) { 0 } else { self.rng.range(1, MAX_LEN) };
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
        let plain = !reg_ops.is_empty();
        let procs = (0..self.p).map(|me| self.proc_step(s, me, quiet, plain, in_force, in_queue, tag)).collect();
        let mut step = Step { reg_ops, procs };
        make_hp_defined(&mut step);
        step
    }

    #[allow(clippy::too_many_arguments, reason = "what one process may do depends on each of them")]
    fn proc_step(
        &mut self,
        s: usize,
        me: usize,
        quiet: bool,
        plain: bool,
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
        let superstep = !plain && self.rng.chance(2, 3);
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
            Kind::Put | Kind::HpPut => {
                let hp = kind == Kind::HpPut;
                if hp && !sc.superstep {
                    return None;
                }
                let pid = self.rng.below(self.p);
                let zero = self.rng.chance(1, 12);
                if sc.quiet && !zero {
                    return None;
                }
                let targets: Vec<RegId> = named.iter().copied().filter(|&r| zero || self.len(r, pid) > 0).collect();
                let reg = self.rng.pick(&targets)?;
                let (off, len) =
                    if zero { (self.rng.range(0, self.len(reg, pid)), 0) } else { self.piece(self.len(reg, pid)) };
                let dst = Span { reg, off, len };
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
                Some(if hp { Op::HpPut { pid, dst, src } } else { Op::Put { pid, dst, src } })
            }
            Kind::Get => {
                if !sc.superstep || sc.quiet {
                    return None;
                }
                let hp = self.rng.chance(1, 2);
                let pid = self.rng.below(self.p);
                let zero = self.rng.chance(1, 12);
                let sources: Vec<RegId> = named.iter().copied().filter(|&r| zero || self.len(r, pid) > 0).collect();
                let reg = self.rng.pick(&sources)?;
                let (off, len) =
                    if zero { (self.rng.range(0, self.len(reg, pid)), 0) } else { self.piece(self.len(reg, pid)) };
                let src = Span { reg, off, len };
                let dst = if len > 0 && self.rng.chance(1, 2) {
                    self.free_piece(free, len).map_or(Dst::Buf(len), Dst::Reg)
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
                Op::Put { pid, dst, .. } | Op::HpPut { pid, dst, .. } => {
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
                        put_dsts.iter().zip(&put_issuer).filter(|(_, &who)| who != (me, i)).map(|(&a, _)| a).collect();
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
