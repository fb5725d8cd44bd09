//! Running a program on the runtime: every process interprets its own part and logs what it sees.
//!
//! Per superstep a process does, in order: its `set_tagsize` calls, its local writes, then its
//! communication phase, either with `&Ctx` ("plain", registrations named by `&Reg`) followed by
//! the sync, or inside `ctx.superstep(|s| ..)`. The sync of a plain superstep is
//! `ctx.register_each(..)` if the superstep pushes, `ctx.unregister_each(..)` if it pops (the
//! generator never does both, and uses plain mode there), the superstep's collective if it ends
//! with one (then its result is logged first), `ctx.sync()` otherwise. Inside a `superstep` the
//! registrations are split by role: `GetDst` ones lend their memory, cut into the disjoint pieces
//! the gets need, mutably until the sync (and are named by the `Remote` that `split_mut` gives
//! with it); `HpSrc` ones lend theirs immutably; `Normal` ones stay writable between calls. After
//! the sync it logs the get buffers, the data `unregister_each` gave back, and the memory of every
//! live registration. Every program starts by making one combiner per [`CombOp`], in the same
//! order everywhere.

use bsp_runtime::collective::Parts;
use bsp_runtime::{Combiner, Ctx, Reg, Remote, Superstep};

use super::program::{Coll, CombOp, Dst, Event, Form, Op, ProcStep, Program, RegOp, Role, Src};
use super::reference::{MOVE_FILL, TAG_FILL};

/// What a get destination buffer holds before the sync (always overwritten, unless empty).
const GET_FILL: u32 = 0xDEAD_BEEF;

/// This program's combiners, indexed by `CombOp as usize`.
type Combiners = [Combiner<u32>; CombOp::ALL.len()];

/// Runs `prog` on `prog.p` processes; returns each process's log, indexed by pid.
#[allow(
    dead_code,
    reason = "the shrinking test on threads (`threads/model.rs`) runs whole programs; the MPI binary does not"
)]
pub fn run(prog: &Program) -> Result<Vec<Vec<Event>>, bsp_runtime::Error> {
    bsp_runtime::run(prog.p, |ctx| process(prog, ctx))
}

/// This process's part of `prog`; returns its log. It must start where a fresh run starts: tag
/// size 0 in force and requested, an empty queue (registrations it never names do not matter;
/// `mpi.rs` runs many programs one after the other inside one MPI run).
pub fn process(prog: &Program, ctx: &mut Ctx) -> Vec<Event> {
    let me = ctx.pid();
    let mut regs: Vec<Option<Reg<u32>>> = (0..prog.regs.len()).map(|_| None).collect();
    let mut log = Vec::new();
    let combs: Combiners = CombOp::ALL.map(|op| ctx.combiner(op.f()));
    let mut parts = Parts::new();
    for (s, step) in prog.steps.iter().enumerate() {
        let ps = &step.procs[me];
        for &t in &ps.tag_calls {
            log.push(Event::TagSize(ctx.set_tagsize(t)));
        }
        for w in &ps.pre {
            let reg = regs[w.reg].as_mut().expect("writing a live registration");
            reg.local_mut(ctx)[w.off..w.off + w.vals.len()].copy_from_slice(&w.vals);
        }
        let mut bufs: Vec<Vec<u32>> = ps
            .ops
            .iter()
            .filter_map(|op| match op {
                Op::Get { dst: Dst::Buf(n), .. } => Some(vec![GET_FILL; *n]),
                _ => None,
            })
            .collect();
        let mut returned = Vec::new();
        if ps.superstep {
            assert!(step.reg_ops.is_empty(), "generator: registration changes in a `superstep` closure");
            assert!(step.coll.is_none(), "generator: a superstep ending with a collective is plain");
            let (regs, bufs, log) = (&mut regs, &mut bufs, &mut log);
            ctx.superstep(move |s| in_superstep(s, ps, regs, bufs, &combs, log));
        } else {
            plain(ctx, &ps.ops, &mut Views::all_normal(&mut regs), &combs, &mut log);
            let (pushes, pops): (Vec<RegOp>, Vec<RegOp>) =
                step.reg_ops.iter().partition(|op| matches!(op, RegOp::Push(_)));
            let id = |op: &RegOp| match *op {
                RegOp::Push(id) | RegOp::Pop(id) => id,
            };
            match (&step.coll, pushes.is_empty(), pops.is_empty()) {
                (Some(coll), true, true) => {
                    let from = step.coll_from.map(|id| regs[id].as_ref().expect("generator: a live registration"));
                    log.push(Event::Collective(coll.name(), collective(ctx, coll, from, &mut parts)));
                }
                (Some(_), _, _) => panic!("generator: a collective and registration changes in one superstep"),
                (None, true, true) => ctx.sync(),
                (None, false, true) => {
                    let made = ctx.register_each(pushes.iter().map(|op| prog.regs[id(op)].init[me].clone()));
                    for (op, reg) in pushes.iter().zip(made) {
                        regs[id(op)] = Some(reg);
                    }
                }
                (None, true, false) => {
                    let handles = pops.iter().map(|op| regs[id(op)].take().expect("popping a live registration"));
                    let data = ctx.unregister_each(handles.collect());
                    returned.extend(pops.iter().map(id).zip(data));
                }
                (None, false, false) => panic!("generator: pushes and pops in one superstep"),
            }
        }
        log.push(Event::Synced(s));
        log.extend(bufs.into_iter().map(Event::GetBuf));
        log.extend(returned.into_iter().map(|(id, data)| Event::Returned(id, data)));
        for (id, reg) in regs.iter().enumerate() {
            if let Some(reg) = reg {
                log.push(Event::Mem(id, reg.local(ctx).to_vec()));
            }
        }
    }
    log
}

/// The registrations during a communication phase, by role: `Normal` ones by `&mut` (local
/// writes), `HpSrc` ones by `&` (their memory is lent to hpputs); `GetDst` ones are in neither.
struct Views<'a> {
    normal: Vec<Option<&'a mut Reg<u32>>>,
    shared: Vec<Option<&'a Reg<u32>>>,
}

impl<'a> Views<'a> {
    fn all_normal(regs: &'a mut [Option<Reg<u32>>]) -> Self {
        let shared = regs.iter().map(|_| None).collect();
        Views { normal: regs.iter_mut().map(Option::as_mut).collect(), shared }
    }

    /// The handle of a registration whose memory is not lent to gets.
    fn handle(&self, id: usize) -> &Reg<u32> {
        match (&self.normal[id], self.shared[id]) {
            (Some(r), _) => r,
            (None, Some(r)) => r,
            (None, None) => panic!("generator: registration #{id} is not readable in this superstep"),
        }
    }
}

/// hpmove results kept until the end of the communication phase (D11: they stay valid, whatever
/// else the process receives): (index of their placeholder in the log, tag, payload).
type Held<'c> = Vec<(usize, &'c [u8], &'c [u8])>;

fn fill_held(held: Held<'_>, log: &mut [Event]) {
    for (i, tag, payload) in held {
        log[i] = Event::HpMove(Some((tag.to_vec(), payload.to_vec())));
    }
}

/// Calls `$call` with `$d` bound to the collective's data: the registration if there is one
/// (`&Reg`, its local part read at the call), else this process's row (`&Vec`).
macro_rules! with_data {
    ($reg:expr, $row:expr, |$d:ident| $call:expr) => {
        match $reg {
            Some($d) => $call,
            None => {
                let $d = $row;
                $call
            }
        }
    };
}

/// This process's call of `coll` (which ends the superstep), its result as the model logs it.
/// `from` is the registration that gives the data, if any; `parts` is the `Parts` this process
/// keeps for the `_into` forms (refilled by each).
fn collective(ctx: &mut Ctx, coll: &Coll, from: Option<&Reg<u32>>, parts: &mut Parts<u32>) -> Option<Vec<Vec<u32>>> {
    let me = ctx.pid();
    match coll {
        Coll::Broadcast { root, form: Form::Slice, data } => {
            Some(vec![with_data!(from, &data[me], |d| ctx.broadcast(*root, d))])
        }
        Coll::Broadcast { root, form: Form::One, data } => Some(vec![vec![ctx.broadcast_one(*root, data[me][0])]]),
        Coll::Broadcast { root, form: Form::Large, data } => {
            Some(vec![with_data!(from, &data[me], |d| ctx.broadcast_large(*root, d))])
        }
        Coll::Reduce { root, op, data } => {
            with_data!(from, &data[me], |d| ctx.reduce(*root, d, op.f())).map(|r| vec![r])
        }
        Coll::Allreduce { one: false, op, data } => {
            Some(vec![with_data!(from, &data[me], |d| ctx.allreduce(d, op.f()))])
        }
        Coll::Allreduce { one: true, op, data } => Some(vec![vec![ctx.allreduce_one(data[me][0], op.f())]]),
        Coll::Scan { one: false, op, data } => Some(vec![with_data!(from, &data[me], |d| ctx.scan(d, op.f()))]),
        Coll::Scan { one: true, op, data } => Some(vec![vec![ctx.scan_one(data[me][0], op.f())]]),
        Coll::Gather { root, into: false, data } => with_data!(from, &data[me], |d| ctx.gather(*root, d)),
        Coll::Gather { root, into: true, data } => {
            with_data!(from, &data[me], |d| ctx.gather_into(*root, d, parts));
            // Off the root the parts are emptied: logged as `gather`'s `None`, unless some remain.
            (me == *root || !parts.is_empty()).then(|| parts.to_vecs())
        }
        Coll::Allgather { into: false, data } => Some(with_data!(from, &data[me], |d| ctx.allgather(d))),
        Coll::Allgather { into: true, data } => {
            with_data!(from, &data[me], |d| ctx.allgather_into(d, parts));
            Some(parts.to_vecs())
        }
        Coll::Scatter { root, parts } => Some(vec![ctx.scatter(*root, &parts[me])]),
        Coll::Alltoall { data } => Some(vec![with_data!(from, &data[me], |d| ctx.alltoall(d))]),
        Coll::Alltoallv { into: false, parts } => Some(ctx.alltoallv(&parts[me])),
        Coll::Alltoallv { into: true, parts: outgoing } => {
            ctx.alltoallv_into(&outgoing[me], parts);
            Some(parts.to_vecs())
        }
    }
}

/// Plain mode: everything through `&Ctx`, registrations named by `&Reg`.
fn plain(ctx: &Ctx, ops: &[Op], views: &mut Views<'_>, combs: &Combiners, log: &mut Vec<Event>) {
    let mut held = Held::new();
    for op in ops {
        match op {
            Op::Put { pid, dst, src } => {
                let data: &[u32] = match src {
                    Src::Lit(v) => v,
                    Src::Reg(sp) => &views.handle(sp.reg).local(ctx)[sp.off..sp.off + sp.len],
                };
                ctx.put(*pid, data, views.handle(dst.reg), dst.off);
            }
            Op::PutCombine { pid, dst, src, op } => {
                let data: &[u32] = match src {
                    Src::Lit(v) => v,
                    Src::Reg(sp) => &views.handle(sp.reg).local(ctx)[sp.off..sp.off + sp.len],
                };
                ctx.put_combine(*pid, data, views.handle(dst.reg), dst.off, combs[*op as usize]);
            }
            Op::HpPut { .. } | Op::Get { .. } => panic!("generator: {op:?} outside a superstep"),
            _ => local(ctx, op, views, log, &mut held),
        }
    }
    fill_held(held, log);
}

/// The operations that involve no registration name: local writes, sends, receiving.
fn local<'c>(ctx: &'c Ctx, op: &Op, views: &mut Views<'_>, log: &mut Vec<Event>, held: &mut Held<'c>) {
    match op {
        Op::Write(w) => {
            let reg = views.normal[w.reg].as_mut().expect("generator: writes go to `Normal` registrations");
            reg.local_mut(ctx)[w.off..w.off + w.vals.len()].copy_from_slice(&w.vals);
        }
        Op::Send { pid, tag, payload } => ctx.send_bytes(*pid, tag, payload),
        Op::Qsize => {
            let (n, bytes) = ctx.qsize();
            log.push(Event::Qsize(n, bytes));
        }
        Op::GetTag { len } => {
            let mut tag = vec![TAG_FILL; *len];
            let status = ctx.get_tag_bytes(&mut tag);
            log.push(Event::GetTag(status, tag));
        }
        Op::Move { cap } => {
            let mut buf = vec![MOVE_FILL; *cap];
            let len = ctx.move_bytes(&mut buf);
            log.push(Event::Move(len, buf));
        }
        Op::HpMove => {
            if let Some((tag, payload)) = ctx.hpmove_bytes() {
                held.push((log.len(), tag, payload));
            }
            log.push(Event::HpMove(None)); // the placeholder
        }
        Op::Put { .. } | Op::PutCombine { .. } | Op::HpPut { .. } | Op::Get { .. } => {
            unreachable!("handled by the caller")
        }
    }
}

/// Superstep mode: registrations named by `Remote`, memory lent to gets and hpputs until the sync.
fn in_superstep<'s>(
    s: &'s Superstep<'s, '_>,
    ps: &'s ProcStep,
    regs: &'s mut [Option<Reg<u32>>],
    bufs: &'s mut [Vec<u32>],
    combs: &Combiners,
    log: &mut Vec<Event>,
) {
    let ctx: &'s Ctx = s;
    let n = regs.len();
    // The names of `GetDst` registrations, given with their memory; the others are named through
    // their view when used.
    let mut get_names: Vec<Option<Remote<'s, u32>>> = vec![None; n];
    let mut views = Views { normal: (0..n).map(|_| None).collect(), shared: vec![None; n] };
    // Memory lent to hpputs, by registration; pieces lent to gets, by operation index.
    let mut hp_src: Vec<Option<&'s [u32]>> = vec![None; n];
    let mut pieces: Vec<Option<&'s mut [u32]>> = (0..ps.ops.len()).map(|_| None).collect();
    for (id, reg) in regs.iter_mut().enumerate() {
        let Some(reg) = reg.as_mut() else { continue };
        match ps.role(id) {
            Role::Normal => views.normal[id] = Some(reg),
            Role::HpSrc => {
                let reg: &'s Reg<u32> = reg;
                views.shared[id] = Some(reg);
                hp_src[id] = Some(reg.local(ctx));
            }
            Role::GetDst => {
                let segments = ps.ops.iter().enumerate().filter_map(|(i, op)| match op {
                    Op::Get { dst: Dst::Reg(d), .. } if d.reg == id => Some((i, d.off, d.len)),
                    _ => None,
                });
                let (name, mem) = reg.split_mut(ctx);
                get_names[id] = Some(name);
                for (i, piece) in carve(mem, segments.collect()) {
                    pieces[i] = Some(piece);
                }
            }
        }
    }
    let mut bufs = bufs.iter_mut();
    let mut held = Held::new();
    for (i, op) in ps.ops.iter().enumerate() {
        match op {
            Op::Put { pid, dst, src } => {
                let data: &[u32] = match src {
                    Src::Lit(v) => v,
                    Src::Reg(sp) => &views.handle(sp.reg).local(ctx)[sp.off..sp.off + sp.len],
                };
                s.put(*pid, data, name(&views, &get_names, dst.reg), dst.off);
            }
            Op::PutCombine { pid, dst, src, op } => {
                let data: &[u32] = match src {
                    Src::Lit(v) => v,
                    Src::Reg(sp) => &views.handle(sp.reg).local(ctx)[sp.off..sp.off + sp.len],
                };
                ctx.put_combine(*pid, data, name(&views, &get_names, dst.reg), dst.off, combs[*op as usize]);
            }
            Op::Get { hp, pid, src, dst } => {
                let dst: &'s mut [u32] = match dst {
                    Dst::Buf(_) => bufs.next().expect("one buffer per get into a buffer"),
                    Dst::Reg(_) => pieces[i].take().expect("a piece per get into registered memory"),
                };
                let from = name(&views, &get_names, src.reg);
                if *hp {
                    s.hpget(*pid, from, src.off, dst);
                } else {
                    s.get(*pid, from, src.off, dst);
                }
            }
            Op::HpPut { pid, dst, src } => {
                let data: &'s [u32] = match src {
                    Src::Lit(v) => v,
                    Src::Reg(sp) => {
                        let mem = hp_src[sp.reg].expect("generator: hpput sources in registered memory are `HpSrc`");
                        &mem[sp.off..sp.off + sp.len]
                    }
                };
                s.hpput(*pid, data, name(&views, &get_names, dst.reg), dst.off);
            }
            _ => local(ctx, op, &mut views, log, &mut held),
        }
    }
    fill_held(held, log);
}

/// The name of registration `id`: the one `split_mut` gave for a `GetDst` registration, its
/// view's otherwise.
fn name<'a>(views: &'a Views<'_>, get_names: &[Option<Remote<'a, u32>>], id: usize) -> Remote<'a, u32> {
    match get_names[id] {
        Some(name) => name,
        None => views.handle(id).remote(),
    }
}

/// Cuts `mem` into the disjoint pieces `(op index, offset, length)`.
fn carve(mut mem: &mut [u32], mut segments: Vec<(usize, usize, usize)>) -> Vec<(usize, &mut [u32])> {
    segments.sort_by_key(|&(_, off, _)| off);
    let mut at = 0;
    let mut out = Vec::new();
    for (i, off, len) in segments {
        let (_, rest) = std::mem::take(&mut mem).split_at_mut(off - at);
        let (piece, rest) = rest.split_at_mut(len);
        out.push((i, piece));
        mem = rest;
        at = off + len;
    }
    out
}
