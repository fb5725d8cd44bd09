//! What the generator produces, counted: a guard that no operation kind or interesting
//! interaction silently disappears from the generated programs.

use std::collections::BTreeMap;

use crate::model::program::{Coll, CombOp, Dst, Op, Program, RegOp, Role, Span, Src};

/// Counts of features over programs, by name.
#[derive(Default, Debug)]
pub struct Coverage(pub BTreeMap<&'static str, usize>);

impl Coverage {
    fn add(&mut self, what: &'static str) {
        *self.0.entry(what).or_default() += 1;
    }

    pub fn get(&self, what: &str) -> usize {
        self.0.get(what).copied().unwrap_or(0)
    }

    fn collective(&mut self, coll: &Coll) {
        self.add(coll.name());
        let (op, data): (Option<CombOp>, Vec<&[u32]>) = match coll {
            Coll::Reduce { op, data, .. } | Coll::Allreduce { op, data, .. } | Coll::Scan { op, data, .. } => {
                (Some(*op), data.iter().map(Vec::as_slice).collect())
            }
            Coll::Broadcast { data, .. }
            | Coll::Gather { data, .. }
            | Coll::Allgather { data, .. }
            | Coll::Alltoall { data } => (None, data.iter().map(Vec::as_slice).collect()),
            Coll::Scatter { parts, .. } | Coll::Alltoallv { parts, .. } => {
                (None, parts.iter().flatten().map(Vec::as_slice).collect())
            }
        };
        if op == Some(CombOp::Affine) {
            self.add("collective with a non-commutative operator");
        }
        if data.iter().any(|d| d.is_empty()) {
            self.add("collective with empty data");
        }
    }

    pub fn count(&mut self, prog: &Program) {
        for step in &prog.steps {
            for op in &step.reg_ops {
                self.add(match op {
                    RegOp::Push(_) => "register",
                    RegOp::Pop(_) => "unregister",
                });
            }
            if step.procs.iter().all(|ps| ps.tag_calls.is_empty() && !ps.ops.iter().any(Op::communicates))
                && step.reg_ops.is_empty()
            {
                self.add("superstep without communication");
            }
            if let Some(coll) = &step.coll {
                self.collective(coll);
                if let Some(reg) = step.coll_from {
                    self.add("collective on a registration");
                    let ops = || step.procs.iter().flat_map(|ps| &ps.ops);
                    if ops().any(|op| matches!(op, Op::Put { dst, .. } | Op::PutCombine { dst, .. } if dst.reg == reg && dst.len > 0)) {
                        self.add("collective on a registration that a put changes at its sync");
                    }
                }
                let ops = || step.procs.iter().flat_map(|ps| &ps.ops);
                if ops().any(|op| matches!(op, Op::Put { dst, .. } | Op::PutCombine { dst, .. } if dst.len > 0)) {
                    self.add("collective completes puts");
                }
                if ops().any(|op| matches!(op, Op::Send { .. })) {
                    self.add("collective completes sends");
                }
            }
            // Areas written by puts and get results, read by gets: (pid, span).
            // (target, issuer, span, combining)
            let mut put_dsts: Vec<(usize, usize, Span, bool)> = Vec::new();
            let mut get_dsts: Vec<(usize, Span)> = Vec::new();
            let mut get_srcs: Vec<(usize, Span)> = Vec::new();
            for (me, ps) in step.procs.iter().enumerate() {
                self.add(if ps.superstep { "mode: superstep" } else { "mode: plain" });
                if ps.tag_calls.len() > 1 {
                    self.add("set_tagsize several times");
                }
                for (_, role) in &ps.roles {
                    self.add(match role {
                        Role::GetDst => "role: get destination",
                        Role::HpSrc => "role: hpput source",
                        Role::Normal => "role: normal",
                    });
                }
                if !ps.pre.is_empty() {
                    self.add("write before communication");
                }
                let mut communicated = false;
                for op in &ps.ops {
                    match op {
                        Op::Write(_) if communicated => self.add("write after communication"),
                        Op::Write(_) => self.add("write"),
                        Op::Put { pid, dst, src } | Op::HpPut { pid, dst, src } => {
                            let hp = matches!(op, Op::HpPut { .. });
                            self.add(match (hp, src) {
                                (_, _) if dst.len == 0 => "put of length 0",
                                (false, Src::Lit(_)) => "put from a buffer",
                                (false, Src::Reg(_)) => "put from registered memory",
                                (true, Src::Lit(_)) => "hpput from a buffer",
                                (true, Src::Reg(_)) => "hpput from registered memory",
                            });
                            if *pid == me {
                                self.add("put to self");
                            }
                            put_dsts.push((*pid, me, *dst, false));
                        }
                        Op::PutCombine { pid, dst, src, op } => {
                            self.add(match op {
                                CombOp::Add => "put_combine (add)",
                                CombOp::Min => "put_combine (min)",
                                CombOp::Max => "put_combine (max)",
                                CombOp::Affine => "put_combine (affine)",
                            });
                            if matches!(src, Src::Reg(_)) {
                                self.add("put_combine from registered memory");
                            }
                            if *pid == me {
                                self.add("put_combine to self");
                            }
                            put_dsts.push((*pid, me, *dst, true));
                        }
                        Op::Get { hp, pid, src, dst } => {
                            self.add(match (hp, dst) {
                                (_, _) if src.len == 0 => "get of length 0",
                                (false, Dst::Buf(_)) => "get into a buffer",
                                (false, Dst::Reg(_)) => "get into registered memory",
                                (true, Dst::Buf(_)) => "hpget into a buffer",
                                (true, Dst::Reg(_)) => "hpget into registered memory",
                            });
                            if let Dst::Reg(d) = dst {
                                if *pid == me && d.reg == src.reg {
                                    self.add("get within one registration of self");
                                }
                                get_dsts.push((me, *d));
                            }
                            get_srcs.push((*pid, *src));
                        }
                        Op::Send { payload, .. } => {
                            self.add(if payload.is_empty() { "send with empty payload" } else { "send" })
                        }
                        Op::Qsize => self.add("qsize"),
                        Op::GetTag { .. } => self.add("get_tag"),
                        Op::Move { .. } => self.add("move"),
                        Op::HpMove => self.add("hpmove"),
                    }
                    communicated |= op.communicates();
                }
            }
            let meets = |a: &Span, b: &Span| a.reg == b.reg && a.off < b.off + b.len && b.off < a.off + a.len;
            for (i, (t, who, d, comb)) in put_dsts.iter().enumerate() {
                for (t2, who2, d2, comb2) in &put_dsts[i + 1..] {
                    if t == t2 && meets(d, d2) {
                        self.add(match (comb, comb2, who == who2) {
                            (false, false, true) => "puts overlap (same source)",
                            (false, false, false) => "puts overlap (two sources)",
                            (true, true, true) => "put_combines overlap (same source)",
                            (true, true, false) => "put_combines overlap (two sources)",
                            _ => "put_combine meets a plain put",
                        });
                    }
                }
                if get_dsts.iter().any(|(q, g)| q == t && meets(d, g)) {
                    self.add(if *comb {
                        "put_combine meets a get destination (D1)"
                    } else {
                        "put meets a get destination (D1)"
                    });
                }
                if get_srcs.iter().any(|(q, g)| q == t && meets(d, g)) {
                    self.add("put meets a get source");
                }
            }
        }
    }
}
