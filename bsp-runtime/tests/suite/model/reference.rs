//! The sequential reference: what a program must observe, by the rules of docs/semantics.md §0–§4
//! and §8.
//!
//! Each superstep runs every process's local phase in turn (they touch only their own memory and
//! their own outgoing queues), then one sync:
//!
//! 1. local phase, in program order: `set_tagsize` returns the size in force (D8); pushes create
//!    the local memory, effective only after the sync (D4); local writes happen where they stand;
//!    a put (or hpput) takes its source values at the call; a get is only recorded; sends are
//!    queued; receive calls work on the queue delivered by the previous sync (D9: an empty queue
//!    leaves the caller's buffers untouched);
//! 2. every get source is read, all before anything is written (values at the end of the local
//!    phase);
//! 3. get results are written, per process in issue order;
//! 4. puts land: per destination, ascending source pid, then issue order; the last write wins
//!    (D1: after the get results; D2); a combining put makes each element `op(element, value)`
//!    in that same order, interleaved with plain puts (D18);
//! 5. each process's new queue is the messages sent to it, ascending source pid then send order
//!    (D10); unread messages from before are gone;
//! 6. registrations popped in the superstep are gone (their memory goes back to the process),
//!    pushed ones are effective; the tag sizes rotate: (A, B, C) -> (B, C, C);
//! 7. a collective that ends the superstep returns what §8 says (operators applied elementwise in
//!    ascending pid order, D19); data from a registration is its local part at the call, the end
//!    of the local phase (before this sync's gets and puts); the `_into` forms return the same; it
//!    leaves the user's queue alone, and `broadcast_large` adds a second sync, in which nobody
//!    sends (so the queue is emptied and the tag sizes rotate again).

use std::collections::VecDeque;

use super::program::{Coll, CombOp, Dst, Event, Op, Program, RegOp, Span, Src, Write};

/// Fill of a `get_tag_bytes` buffer before the call.
pub const TAG_FILL: u8 = 0xA5;
/// Fill of a `move_bytes` buffer before the call.
pub const MOVE_FILL: u8 = 0xEE;

type Message = (Vec<u8>, Vec<u8>);
/// A put in flight: where, what, and with which operator (`None`: a plain put).
type Put = (Span, Vec<u32>, Option<CombOp>);
/// What every process queued for every process in one superstep: `[source][destination]`.
type Outgoing<T> = Vec<Vec<Vec<T>>>;

/// The event log every process must produce, indexed by pid.
pub fn run(prog: &Program) -> Vec<Vec<Event>> {
    let p = prog.p;
    let nregs = prog.regs.len();
    let mut mem: Vec<Vec<Option<Vec<u32>>>> = vec![vec![None; nregs]; p];
    let mut queue: Vec<VecDeque<Message>> = vec![VecDeque::new(); p];
    let (mut in_queue, mut in_force, mut requested) = (0, 0, 0); // A, B, C
    let mut logs: Vec<Vec<Event>> = vec![Vec::new(); p];

    for (s, step) in prog.steps.iter().enumerate() {
        let mut puts: Outgoing<Put> = vec![vec![Vec::new(); p]; p];
        let mut msgs: Outgoing<Message> = vec![vec![Vec::new(); p]; p];
        let mut gets: Vec<Vec<(usize, Span, Dst)>> = vec![Vec::new(); p];
        let mut requests = vec![requested; p];
        // The collective's data from a registration: each process's local part at the call.
        let mut coll_inputs: Vec<Vec<u32>> = vec![Vec::new(); p];

        for me in 0..p {
            let ps = &step.procs[me];
            let log = &mut logs[me];
            let mine = &mut mem[me];
            for &t in &ps.tag_calls {
                log.push(Event::TagSize(in_force));
                requests[me] = t;
            }
            for op in &step.reg_ops {
                if let RegOp::Push(id) = *op {
                    mine[id] = Some(prog.regs[id].init[me].clone());
                }
            }
            for w in &ps.pre {
                write(mine, w);
            }
            for op in &ps.ops {
                match op {
                    Op::Write(w) => write(mine, w),
                    Op::Put { pid, dst, src } | Op::HpPut { pid, dst, src } | Op::PutCombine { pid, dst, src, .. } => {
                        let vals = match src {
                            Src::Lit(v) => v.clone(),
                            Src::Reg(sp) => read(mine, sp).to_vec(),
                        };
                        assert_eq!(vals.len(), dst.len, "generator: put length");
                        let op = match op {
                            Op::PutCombine { op, .. } => Some(*op),
                            _ => None,
                        };
                        puts[me][*pid].push((*dst, vals, op));
                    }
                    Op::Get { pid, src, dst, .. } => gets[me].push((*pid, *src, *dst)),
                    Op::Send { pid, tag, payload } => {
                        assert_eq!(tag.len(), in_force, "generator: tag size");
                        msgs[me][*pid].push((tag.clone(), payload.clone()));
                    }
                    Op::Qsize => {
                        let q = &queue[me];
                        log.push(Event::Qsize(q.len(), q.iter().map(|(_, pl)| pl.len()).sum()));
                    }
                    Op::GetTag { len } => {
                        let mut buf = vec![TAG_FILL; *len];
                        let status = queue[me].front().map(|(tag, pl)| {
                            assert_eq!(tag.len(), in_queue, "model: tag size of the queue");
                            buf.copy_from_slice(tag);
                            pl.len()
                        });
                        log.push(Event::GetTag(status, buf));
                    }
                    Op::Move { cap } => {
                        let mut buf = vec![MOVE_FILL; *cap];
                        let len = queue[me].pop_front().map(|(_, pl)| {
                            let n = pl.len().min(*cap);
                            buf[..n].copy_from_slice(&pl[..n]);
                            pl.len()
                        });
                        log.push(Event::Move(len, buf));
                    }
                    Op::HpMove => log.push(Event::HpMove(queue[me].pop_front())),
                }
            }
            if let Some(r) = step.coll_from {
                coll_inputs[me] = mine[r].clone().expect("generator: the collective's registration has memory");
            }
        }

        // The sync.
        assert!(requests.iter().all(|&r| r == requests[0]), "generator: tag size requests differ");
        requested = requests[0];
        let got: Vec<Vec<Vec<u32>>> =
            gets.iter().map(|gs| gs.iter().map(|(q, src, _)| read(&mem[*q], src).to_vec()).collect()).collect();
        let mut bufs: Vec<Vec<Vec<u32>>> = vec![Vec::new(); p];
        for me in 0..p {
            for ((_, _, dst), vals) in gets[me].iter().zip(&got[me]) {
                match dst {
                    Dst::Buf(_) => bufs[me].push(vals.clone()),
                    Dst::Reg(sp) => write(&mut mem[me], &Write { reg: sp.reg, off: sp.off, vals: vals.clone() }),
                }
            }
        }
        for (to, dst_mem) in mem.iter_mut().enumerate() {
            for from_src in &puts {
                for (sp, vals, op) in &from_src[to] {
                    match op {
                        None => write(dst_mem, &Write { reg: sp.reg, off: sp.off, vals: vals.clone() }),
                        Some(op) => combine(dst_mem, sp, vals, *op),
                    }
                }
            }
        }
        for (to, q) in queue.iter_mut().enumerate() {
            *q = msgs.iter().flat_map(|from_src| from_src[to].iter().cloned()).collect();
        }
        in_queue = in_force;
        in_force = requested;
        if step.syncs() == 2 {
            queue.iter_mut().for_each(VecDeque::clear);
            in_queue = in_force;
        }
        let mut results = match &step.coll {
            Some(c) => {
                let mut c = c.clone();
                if step.coll_from.is_some() {
                    *c.slice_data(p).expect("generator: a collective that takes a slice").0 = coll_inputs;
                }
                collective(&c, p).into_iter().map(|r| Some(Event::Collective(c.name(), r))).collect()
            }
            None => vec![None; p],
        };

        for (me, log) in logs.iter_mut().enumerate() {
            log.extend(results[me].take());
            log.push(Event::Synced(s));
            log.extend(bufs[me].drain(..).map(Event::GetBuf));
            for op in &step.reg_ops {
                if let RegOp::Pop(id) = *op {
                    log.push(Event::Returned(id, mem[me][id].take().expect("generator: popped a live registration")));
                }
            }
            for (id, m) in mem[me].iter().enumerate() {
                if let Some(m) = m {
                    log.push(Event::Mem(id, m.clone()));
                }
            }
        }
    }
    logs
}

/// What each process's call of `c` returns, indexed by pid (docs/semantics.md §8).
fn collective(c: &Coll, p: usize) -> Vec<Option<Vec<Vec<u32>>>> {
    let on_root = |root: usize, r: Vec<Vec<u32>>| (0..p).map(|q| (q == root).then(|| r.clone())).collect();
    let everywhere = |r: Vec<Vec<u32>>| vec![Some(r); p];
    match c {
        // The root's data, on every process.
        Coll::Broadcast { root, data, .. } => everywhere(vec![data[*root].clone()]),
        // x₀ ∘ x₁ ∘ … ∘ x_{p−1}, elementwise, left to right.
        Coll::Reduce { root, op, data } => on_root(*root, vec![fold(*op, data)]),
        Coll::Allreduce { op, data, .. } => everywhere(vec![fold(*op, data)]),
        // Process i: x₀ ∘ … ∘ xᵢ.
        Coll::Scan { op, data, .. } => (0..p).map(|i| Some(vec![fold(*op, &data[..=i])])).collect(),
        // Every process's data, indexed by pid.
        Coll::Gather { root, data, .. } => on_root(*root, data.clone()),
        Coll::Allgather { data, .. } => everywhere(data.clone()),
        // Part q of the root's parts on process q.
        Coll::Scatter { root, parts } => (0..p).map(|q| Some(vec![parts[*root][q].clone()])).collect(),
        // Block `me` of every process's data, in pid order.
        Coll::Alltoall { data } => {
            let k = data[0].len() / p;
            (0..p).map(|me| Some(vec![data.iter().flat_map(|d| d[me * k..(me + 1) * k].to_vec()).collect()])).collect()
        }
        // Row `me` of the parts matrix: what every process sent here, indexed by sender.
        Coll::Alltoallv { parts, .. } => {
            (0..p).map(|me| Some(parts.iter().map(|from| from[me].clone()).collect())).collect()
        }
    }
}

/// `op` over the rows, elementwise, in row order: `((r₀ ∘ r₁) ∘ r₂) ∘ …`.
fn fold(op: CombOp, rows: &[Vec<u32>]) -> Vec<u32> {
    let f = op.f();
    let mut acc = rows[0].clone();
    for row in &rows[1..] {
        assert_eq!(row.len(), acc.len(), "generator: reduction lengths agree");
        acc.iter_mut().zip(row).for_each(|(a, &b)| *a = f(*a, b));
    }
    acc
}

/// A combining put landing: each element becomes `op(element, value)` (D18).
fn combine(mem: &mut [Option<Vec<u32>>], sp: &Span, vals: &[u32], op: CombOp) {
    let f = op.f();
    let m = mem[sp.reg].as_mut().expect("generator: registration has memory");
    m[sp.off..sp.off + sp.len].iter_mut().zip(vals).for_each(|(e, &v)| *e = f(*e, v));
}

fn read<'m>(mem: &'m [Option<Vec<u32>>], sp: &Span) -> &'m [u32] {
    &mem[sp.reg].as_ref().expect("generator: registration has memory")[sp.off..sp.off + sp.len]
}

fn write(mem: &mut [Option<Vec<u32>>], w: &Write) {
    let m = mem[w.reg].as_mut().expect("generator: registration has memory");
    m[w.off..w.off + w.vals.len()].copy_from_slice(&w.vals);
}
