//! A random BSP program as plain data: what every process does in every superstep.
//!
//! The whole program is generated before it runs (`generator.rs`), because collective calls
//! (`register`, `unregister`, `set_tagsize`, the syncs themselves) must match across processes.
//! The runtime interpreter (`interp.rs`) and the sequential reference (`reference.rs`) both read
//! it and each produce one [`Event`] log per process; the test compares the logs.

use std::fmt;

/// Index of a registration in [`Program::regs`] (the n-th registration of the program).
pub type RegId = usize;

/// `Debug` prints the same readable listing as `Display` (proptest shows failing inputs with it).
#[derive(Clone)]
pub struct Program {
    /// Where it came from: `generator::generate(seed, p, steps)` rebuilds it (before shrinking).
    pub seed: u64,
    pub p: usize,
    pub regs: Vec<RegInfo>,
    pub steps: Vec<Step>,
}

/// One registration: its initial contents on every process (lengths may differ per process).
#[derive(Clone, Debug)]
pub struct RegInfo {
    pub init: Vec<Vec<u32>>,
}

/// Collective registration changes, in the same order on every process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegOp {
    Push(RegId),
    Pop(RegId),
}

#[derive(Clone, Debug)]
pub struct Step {
    /// Done at the start of the superstep, before anything else.
    pub reg_ops: Vec<RegOp>,
    /// Indexed by pid.
    pub procs: Vec<ProcStep>,
    /// A collective that ends the superstep in place of `sync` (every process then runs its
    /// communication phase in plain mode, since a collective needs `&mut Ctx`).
    pub coll: Option<Coll>,
    /// Every process passes this registration (`&reg`) as the collective's data, instead of its
    /// row of the collective's `data`: its local part, read at the call (D19).
    pub coll_from: Option<RegId>,
}

impl Step {
    /// How many syncs end this superstep (`broadcast_large` takes two).
    pub fn syncs(&self) -> usize {
        match self.coll {
            Some(Coll::Broadcast { form: Form::Large, .. }) => 2,
            _ => 1,
        }
    }
}

/// An operator of combining puts (D18) and of reductions (D19). `Affine` is neither commutative
/// nor associative, so only the order the rules prescribe gives the model's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CombOp {
    Add,
    Min,
    Max,
    Affine,
}

impl CombOp {
    pub const ALL: [CombOp; 4] = [CombOp::Add, CombOp::Min, CombOp::Max, CombOp::Affine];

    /// The function (the same one in the model and on the runtime: the rules are about where and
    /// in which order it is applied, not about what it computes).
    pub fn f(self) -> fn(u32, u32) -> u32 {
        match self {
            CombOp::Add => |a, b| a.wrapping_add(b),
            CombOp::Min => |a, b| a.min(b),
            CombOp::Max => |a, b| a.max(b),
            CombOp::Affine => |a, b| a.wrapping_mul(3).wrapping_add(b),
        }
    }
}

/// Which call a broadcast is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `broadcast(root, &data)`.
    Slice,
    /// `broadcast_one(root, value)` (every process's data has one element).
    One,
    /// `broadcast_large(root, &data)`: two syncs.
    Large,
}

/// A collective call, with every process's arguments (indexed by pid). Arguments that a process
/// other than the root passes but that are not read (`broadcast`'s data, `scatter`'s parts) are
/// random too.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Coll {
    Broadcast {
        root: usize,
        form: Form,
        data: Vec<Vec<u32>>,
    },
    /// Lengths agree.
    Reduce {
        root: usize,
        op: CombOp,
        data: Vec<Vec<u32>>,
    },
    /// Lengths agree; `one`: `allreduce_one` (length 1).
    Allreduce {
        one: bool,
        op: CombOp,
        data: Vec<Vec<u32>>,
    },
    /// Lengths agree; `one`: `scan_one` (length 1).
    Scan {
        one: bool,
        op: CombOp,
        data: Vec<Vec<u32>>,
    },
    /// `into`: `gather_into`, with a `Parts` the process keeps.
    Gather {
        root: usize,
        into: bool,
        data: Vec<Vec<u32>>,
    },
    /// `into`: `allgather_into`.
    Allgather {
        into: bool,
        data: Vec<Vec<u32>>,
    },
    /// `parts[pid]` is what process `pid` passes (`p` parts on the root).
    Scatter {
        root: usize,
        parts: Vec<Vec<Vec<u32>>>,
    },
    /// Every length is the same multiple of `p`.
    Alltoall {
        data: Vec<Vec<u32>>,
    },
    /// `parts[from][to]`; `into`: `alltoallv_into`.
    Alltoallv {
        into: bool,
        parts: Vec<Vec<Vec<u32>>>,
    },
}

impl Coll {
    pub fn name(&self) -> &'static str {
        match self {
            Coll::Broadcast { form: Form::Slice, .. } => "broadcast",
            Coll::Broadcast { form: Form::One, .. } => "broadcast_one",
            Coll::Broadcast { form: Form::Large, .. } => "broadcast_large",
            Coll::Reduce { .. } => "reduce",
            Coll::Allreduce { one: false, .. } => "allreduce",
            Coll::Allreduce { one: true, .. } => "allreduce_one",
            Coll::Scan { one: false, .. } => "scan",
            Coll::Scan { one: true, .. } => "scan_one",
            Coll::Gather { into: false, .. } => "gather",
            Coll::Gather { into: true, .. } => "gather_into",
            Coll::Allgather { into: false, .. } => "allgather",
            Coll::Allgather { into: true, .. } => "allgather_into",
            Coll::Scatter { .. } => "scatter",
            Coll::Alltoall { .. } => "alltoall",
            Coll::Alltoallv { into: false, .. } => "alltoallv",
            Coll::Alltoallv { into: true, .. } => "alltoallv_into",
        }
    }

    /// The per-process data of a collective that takes a slice (so also a registration), and
    /// whether its lengths must agree: `Some(k)` if every length must be the same multiple of
    /// `k` (1 for the reductions, `p` for `alltoall`), `None` if they may differ.
    pub fn slice_data(&mut self, p: usize) -> Option<(&mut Vec<Vec<u32>>, Option<usize>)> {
        match self {
            Coll::Broadcast { form: Form::Slice | Form::Large, data, .. }
            | Coll::Gather { data, .. }
            | Coll::Allgather { data, .. } => Some((data, None)),
            Coll::Reduce { data, .. }
            | Coll::Allreduce { one: false, data, .. }
            | Coll::Scan { one: false, data, .. } => Some((data, Some(1))),
            Coll::Alltoall { data } => Some((data, Some(p))),
            _ => None,
        }
    }
}

/// What a registration is used for by one process during one superstep's communication phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Written locally between communication calls; usable as a handle.
    Normal,
    /// Its local memory is borrowed mutably until the sync as the destination of gets; the
    /// process names it only through its `Remote` (taken before the borrow), and cannot read it.
    GetDst,
    /// Its local memory is borrowed immutably until the sync as an hpput source; no local writes.
    HpSrc,
}

/// One process in one superstep.
#[derive(Clone, Debug)]
pub struct ProcStep {
    /// `set_tagsize` calls, at the start of the superstep (the last one is the same everywhere).
    pub tag_calls: Vec<usize>,
    /// Run the communication inside `ctx.superstep(|s| ..)` (else with `&Ctx` then `ctx.sync()`).
    pub superstep: bool,
    /// Registrations whose role is not [`Role::Normal`].
    pub roles: Vec<(RegId, Role)>,
    /// Local writes before the communication phase (any registration with local memory).
    pub pre: Vec<Write>,
    pub ops: Vec<Op>,
}

impl ProcStep {
    pub fn role(&self, reg: RegId) -> Role {
        self.roles.iter().find(|(r, _)| *r == reg).map_or(Role::Normal, |&(_, role)| role)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Write {
    pub reg: RegId,
    pub off: usize,
    pub vals: Vec<u32>,
}

/// `len` elements at `off` of registration `reg` (on a process named elsewhere).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub reg: RegId,
    pub off: usize,
    pub len: usize,
}

/// Where a put's data comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Src {
    /// A local, unregistered buffer with these values.
    Lit(Vec<u32>),
    /// This process's own registered memory.
    Reg(Span),
}

/// Where a get's data goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dst {
    /// A fresh local buffer of this length (logged after the sync).
    Buf(usize),
    /// A piece of this process's registered memory (a registration with role `GetDst`).
    Reg(Span),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Write(Write),
    /// `ctx.put(pid, src, dst.reg, dst.off)`; `dst.len == src.len()`.
    Put {
        pid: usize,
        dst: Span,
        src: Src,
    },
    /// `ctx.put_combine(pid, src, dst.reg, dst.off, op)`, with this process's combiner for `op`.
    PutCombine {
        pid: usize,
        dst: Span,
        src: Src,
        op: CombOp,
    },
    /// `s.hpput(pid, src, dst.reg, dst.off)`; a `Src::Reg` source has role `HpSrc`.
    HpPut {
        pid: usize,
        dst: Span,
        src: Src,
    },
    /// `s.get` / `s.hpget(pid, src.reg, src.off, dst)`.
    Get {
        hp: bool,
        pid: usize,
        src: Span,
        dst: Dst,
    },
    Send {
        pid: usize,
        tag: Vec<u8>,
        payload: Vec<u8>,
    },
    Qsize,
    /// `get_tag_bytes` into a buffer of `len` bytes (the tag size of the queued messages).
    GetTag {
        len: usize,
    },
    /// `move_bytes` into a buffer of `cap` bytes.
    Move {
        cap: usize,
    },
    HpMove,
}

impl Op {
    /// Whether the runtime counts this call as communication (it makes the sync do an exchange).
    #[allow(dead_code, reason = "for the coverage counts on threads (`threads/model/coverage.rs`)")]
    pub fn communicates(&self) -> bool {
        match self {
            Op::Put { dst, .. } | Op::HpPut { dst, .. } | Op::PutCombine { dst, .. } => dst.len > 0,
            Op::Get { src, .. } => src.len > 0,
            Op::Send { .. } => true,
            _ => false,
        }
    }
}

/// What a process observed; compared between the runtime and the reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// `set_tagsize` returned this (the tag size in force).
    TagSize(usize),
    Qsize(usize, usize),
    /// `get_tag_bytes`: the result and the tag buffer afterwards.
    GetTag(Option<usize>, Vec<u8>),
    /// `move_bytes`: the result and the buffer afterwards.
    Move(Option<usize>, Vec<u8>),
    HpMove(Option<(Vec<u8>, Vec<u8>)>),
    /// The collective ending this superstep returned this (`None` for a `reduce` or `gather`
    /// off the root; one row for the calls that return a `Vec<T>` or a `T`).
    Collective(&'static str, Option<Vec<Vec<u32>>>),
    /// The sync ending this superstep returned.
    Synced(usize),
    /// A get destination buffer after the sync (in issue order).
    GetBuf(Vec<u32>),
    /// The data `unregister_each` gave back for a registration popped in the superstep just
    /// ended.
    Returned(RegId, Vec<u32>),
    /// A registration's local memory after the sync.
    Mem(RegId, Vec<u32>),
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "program on p = {} (seed {:#x}, {} supersteps; processes not listed only sync)",
            self.p,
            self.seed,
            self.steps.len()
        )?;
        for (id, r) in self.regs.iter().enumerate() {
            writeln!(f, "  reg #{id}: init {:?}", r.init)?;
        }
        for (s, step) in self.steps.iter().enumerate() {
            writeln!(f, "  superstep {s}: {:?}", step.reg_ops)?;
            if let Some(coll) = &step.coll {
                writeln!(f, "    ends with {coll:?}")?;
            }
            if let Some(reg) = step.coll_from {
                writeln!(f, "    its data: every process's local part of reg #{reg}")?;
            }
            for (pid, ps) in step.procs.iter().enumerate() {
                if ps.tag_calls.is_empty() && ps.roles.is_empty() && ps.pre.is_empty() && ps.ops.is_empty() {
                    continue; // does nothing but sync
                }
                let mode = if ps.superstep { "superstep" } else { "plain" };
                writeln!(f, "    P{pid} [{mode}] tags {:?} roles {:?}", ps.tag_calls, ps.roles)?;
                for w in &ps.pre {
                    writeln!(f, "      pre {w:?}")?;
                }
                for op in &ps.ops {
                    writeln!(f, "      {op:?}")?;
                }
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
