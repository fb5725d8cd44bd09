//! The proptest strategy: random programs, shrunk by dropping supersteps and operations.
//!
//! A program is generated whole from a seed (`generator.rs`), so proptest's own shrinking of numbers
//! would only jump between unrelated programs. Instead the value tree removes parts of the failing
//! program that can go without breaking its validity: trailing supersteps first (the shortest
//! failing prefix), then single local writes and communication operations, then what only
//! clutters the listing (see [`tidy`]). Collective calls stay.

use proptest::prelude::Rng;
use proptest::strategy::{NewTree, Strategy, ValueTree};
use proptest::test_runner::TestRunner;

use crate::model::generator;
use crate::model::program::{Dst, Op, ProcStep, Program, Role, Src};

/// Random programs on 1..=`max_p` processes with 1..=`max_steps` supersteps.
#[derive(Clone, Copy, Debug)]
pub struct Programs {
    pub max_p: usize,
    pub max_steps: usize,
}

impl Strategy for Programs {
    type Tree = ProgramTree;
    type Value = Program;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        let rng = runner.rng();
        let seed = rng.next_u64();
        let p = 1 + (rng.next_u64() % self.max_p as u64) as usize;
        let steps = 1 + (rng.next_u64() % self.max_steps as u64) as usize;
        Ok(ProgramTree::new(generator::generate(seed, p, steps)))
    }
}

#[derive(Clone, Copy, Debug)]
enum Cut {
    /// Keep only the first n supersteps.
    Truncate(usize),
    /// Drop local write `i` before the communication phase of (superstep, pid).
    Pre(usize, usize, usize),
    /// Drop operation `i` of (superstep, pid).
    Op(usize, usize, usize),
    /// [`tidy`] (superstep, pid).
    Tidy(usize, usize),
}

#[derive(Debug)]
pub struct ProgramTree {
    base: Program,
    steps: usize,
    /// `[superstep][pid]` -> (dropped pre writes, dropped ops).
    dropped: Vec<Vec<(Vec<bool>, Vec<bool>)>>,
    /// `[superstep][pid]` -> tidied.
    tidied: Vec<Vec<bool>>,
    cuts: Vec<Cut>,
    next: usize,
    /// The cut being tried, and the superstep count before it.
    trying: Option<(Cut, usize)>,
}

impl ProgramTree {
    fn new(base: Program) -> Self {
        let steps = base.steps.len();
        let mut cuts: Vec<Cut> = (1..steps).map(Cut::Truncate).collect();
        let dropped = base
            .steps
            .iter()
            .enumerate()
            .map(|(s, step)| {
                step.procs
                    .iter()
                    .enumerate()
                    .map(|(pid, ps)| {
                        cuts.extend((0..ps.pre.len()).map(|i| Cut::Pre(s, pid, i)));
                        cuts.extend((0..ps.ops.len()).map(|i| Cut::Op(s, pid, i)));
                        (vec![false; ps.pre.len()], vec![false; ps.ops.len()])
                    })
                    .collect()
            })
            .collect();
        let tidied: Vec<Vec<bool>> = base.steps.iter().map(|step| vec![false; step.procs.len()]).collect();
        for (s, t) in tidied.iter().enumerate() {
            cuts.extend((0..t.len()).map(|pid| Cut::Tidy(s, pid)));
        }
        ProgramTree { base, steps, dropped, tidied, cuts, next: 0, trying: None }
    }

    fn flag(&mut self, cut: Cut) -> &mut bool {
        match cut {
            Cut::Pre(s, pid, i) => &mut self.dropped[s][pid].0[i],
            Cut::Op(s, pid, i) => &mut self.dropped[s][pid].1[i],
            Cut::Tidy(s, pid) => &mut self.tidied[s][pid],
            Cut::Truncate(_) => unreachable!("not a flag"),
        }
    }

    /// Applies the next cut that changes something; false when none is left.
    fn advance(&mut self) -> bool {
        while let Some(&cut) = self.cuts.get(self.next) {
            self.next += 1;
            let before = self.steps;
            let applies = match cut {
                Cut::Truncate(n) => n < self.steps,
                Cut::Pre(s, ..) | Cut::Op(s, ..) | Cut::Tidy(s, _) => s < self.steps && !*self.flag(cut),
            };
            if applies {
                match cut {
                    Cut::Truncate(n) => self.steps = n,
                    _ => *self.flag(cut) = true,
                }
                self.trying = Some((cut, before));
                return true;
            }
        }
        false
    }

    fn undo(&mut self) -> bool {
        match self.trying.take() {
            Some((Cut::Truncate(_), before)) => self.steps = before,
            Some((cut, _)) => *self.flag(cut) = false,
            None => return false,
        }
        true
    }
}

impl ValueTree for ProgramTree {
    type Value = Program;

    fn current(&self) -> Program {
        let mut prog = self.base.clone();
        prog.steps.truncate(self.steps);
        for ((step, dropped), tidied) in prog.steps.iter_mut().zip(&self.dropped).zip(&self.tidied) {
            for ((ps, (pre, ops)), &tidied) in step.procs.iter_mut().zip(dropped).zip(tidied) {
                ps.pre = keep(std::mem::take(&mut ps.pre), pre);
                ps.ops = keep(std::mem::take(&mut ps.ops), ops);
                if tidied {
                    tidy(ps);
                }
            }
        }
        prog
    }

    /// The current program failed: keep the cut and try the next one.
    fn simplify(&mut self) -> bool {
        self.trying = None;
        self.advance()
    }

    /// The current program passed: undo the cut and try the next one (or, if none is left, go
    /// back to the last failing program).
    fn complicate(&mut self) -> bool {
        if !self.undo() {
            return false;
        }
        self.advance();
        true
    }
}

/// The items whose `dropped` flag is false.
fn keep<T>(items: Vec<T>, dropped: &[bool]) -> Vec<T> {
    items.into_iter().zip(dropped).filter(|&(_, &d)| !d).map(|(x, _)| x).collect()
}

/// Removes what a process step does not need to stay valid: `set_tagsize` calls but the last
/// (which must match the others'), roles no operation relies on, and superstep mode when nothing
/// borrows until the sync.
fn tidy(ps: &mut ProcStep) {
    if ps.tag_calls.len() > 1 {
        ps.tag_calls.drain(..ps.tag_calls.len() - 1);
    }
    let ops = &ps.ops;
    ps.roles.retain(|&(reg, role)| match role {
        Role::GetDst => ops.iter().any(|op| matches!(op, Op::Get { dst: Dst::Reg(d), .. } if d.reg == reg)),
        Role::HpSrc => ops.iter().any(|op| matches!(op, Op::HpPut { src: Src::Reg(s), .. } if s.reg == reg)),
        Role::Normal => false,
    });
    if ps.roles.is_empty() && !ps.ops.iter().any(|op| matches!(op, Op::Get { .. } | Op::HpPut { .. })) {
        ps.superstep = false;
    }
}
