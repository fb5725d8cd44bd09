//! The one table of the runtime's API that the checks read: every public method of the context
//! (`Ctx`, and the `Superstep` a `superstep!` block receives), of registrations, batches, teams
//! and global pointer arrays, with what it does to the superstep in progress. Both walks (the
//! pending-communication walk, `analysis/walker*`, and the alignment walk, `analysis/alignment/`)
//! ask this table, and nothing else, whether a call syncs.
//!
//! A test (`src/tests/api.rs`) parses the runtime's sources and fails when a public method of those
//! types is missing here or listed for a type that has no such method, and checks what it can
//! of each classification against the signatures (a method that syncs takes the context
//! mutably, a collective lives with the collectives, a method given the superstep borrows until
//! its sync, a stub that only exists to be rejected inside a superstep says the same as the
//! context's method of that name).
//!
//! The macros see names, not types: a call on a context name is looked up among the methods of
//! `Ctx` and `Superstep`; a call on another value that is handed the context is looked up among
//! the other types' methods of that name, and counts as syncing or not only where they all agree.

/// The types whose methods the table lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum On {
    Ctx,
    Superstep,
    Reg,
    Registered,
    PutBatch,
    GetBatch,
    Dest,
    Team,
    Grid,
    GpArray,
    GpBuilder,
    GpBuf,
}

impl On {
    /// Every type of the table, with its name in the runtime's sources.
    #[cfg(test)]
    pub(crate) const ALL: &'static [(On, &'static str)] = &[
        (On::Ctx, "Ctx"),
        (On::Superstep, "Superstep"),
        (On::Reg, "Reg"),
        (On::Registered, "Registered"),
        (On::PutBatch, "PutBatch"),
        (On::GetBatch, "GetBatch"),
        (On::Dest, "Dest"),
        (On::Team, "Team"),
        (On::Grid, "Grid"),
        (On::GpArray, "GpArray"),
        (On::GpBuilder, "GpBuilder"),
        (On::GpBuf, "GpBuf"),
    ];

    /// The context itself (`Ctx`, or the `Superstep` that derefs to it).
    fn is_context(self) -> bool {
        matches!(self, On::Ctx | On::Superstep)
    }
}

/// What a method does to the superstep in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Only local: no sync, nothing lent past the call.
    Local,
    /// Never returns (`abort`).
    Exits,
    /// Lends an argument (a destination, a source) to the runtime until the sync that ends the
    /// superstep: `get`, `hpget`, `hpput`, `dest`, `get_batch`, a GP array's gets and gathers.
    Lends,
    /// Borrows the context mutably until what it returns is dropped, without syncing: a batch of
    /// puts (`put_batch`), which cannot be made inside a superstep.
    Batch,
    /// A sync point: `sync`, and the calls that include one (registration changes, a GP array's
    /// `build`, `memzero`, `sync`, `destroy`).
    Syncs,
    /// A collective: one or more sync points of its own, the same on every process, and a
    /// result that is the same everywhere.
    Collective,
    /// Registers, runs its closure once, unregisters: sync points around the closure's body.
    Scoped,
    /// Runs its closure as one superstep, which ends with a sync.
    Superstep,
    /// A BSPlib name kept only so that the runtime's types can reject it with a message of their
    /// own (`push_reg`, `pop_reg`): no call compiles.
    Rejected,
}

impl Effect {
    /// Whether the call may end the superstep in progress (or make sync points of its own).
    pub(crate) fn syncs(self) -> bool {
        matches!(self, Effect::Syncs | Effect::Collective | Effect::Scoped | Effect::Superstep)
    }
}

/// One public method of the runtime.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Method {
    pub(crate) on: On,
    pub(crate) name: &'static str,
    pub(crate) effect: Effect,
    /// For a method whose result differs between processes: why, in words ("is different on
    /// every process").
    pub(crate) varies: Option<&'static str>,
}

const fn m(on: On, name: &'static str, effect: Effect) -> Method {
    Method { on, name, effect, varies: None }
}

const fn varying(on: On, name: &'static str, effect: Effect, why: &'static str) -> Method {
    Method { on, name, effect, varies: Some(why) }
}

const RECEIVED: &str = "is a message this process received";

use Effect::{Batch, Collective, Exits, Lends, Local, Rejected, Scoped, Superstep, Syncs};

/// The table.
pub(crate) const METHODS: &[Method] = &[
    // ---- the context ------------------------------------------------------------------------
    varying(On::Ctx, "pid", Local, "is different on every process"),
    m(On::Ctx, "nprocs", Local),
    varying(On::Ctx, "time", Local, "is each process's own clock"),
    m(On::Ctx, "step", Local),
    m(On::Ctx, "abort", Exits),
    m(On::Ctx, "same", Local),
    m(On::Ctx, "stats", Local),
    m(On::Ctx, "set_stats", Local),
    m(On::Ctx, "superstep", Superstep),
    m(On::Ctx, "superstep_then", Superstep),
    m(On::Ctx, "sync", Syncs),
    m(On::Ctx, "checkpoint", Syncs),
    // registration
    m(On::Ctx, "register", Syncs),
    m(On::Ctx, "register_each", Syncs),
    m(On::Ctx, "unregister", Syncs),
    m(On::Ctx, "unregister_each", Syncs),
    m(On::Ctx, "push_reg", Rejected),
    m(On::Ctx, "pop_reg", Rejected),
    m(On::Ctx, "with_reg", Scoped),
    m(On::Ctx, "with_regs", Scoped),
    m(On::Ctx, "locals", Local),
    // DRMA
    m(On::Ctx, "put", Local),
    m(On::Ctx, "combiner", Local),
    m(On::Ctx, "put_combine", Local),
    m(On::Ctx, "put_batch", Batch),
    m(On::Ctx, "put_batch_with_local", Batch),
    m(On::Ctx, "get", Lends),
    m(On::Ctx, "hpget", Lends),
    m(On::Ctx, "hpput", Lends),
    // BSMP
    m(On::Ctx, "set_tagsize", Local),
    m(On::Ctx, "set_tag", Local),
    m(On::Ctx, "send", Local),
    m(On::Ctx, "send_bytes", Local),
    varying(On::Ctx, "qsize", Local, "counts the messages this process received"),
    varying(On::Ctx, "get_tag", Local, RECEIVED),
    varying(On::Ctx, "get_tag_bytes", Local, RECEIVED),
    varying(On::Ctx, "move_message", Local, RECEIVED),
    varying(On::Ctx, "move_into", Local, RECEIVED),
    varying(On::Ctx, "move_bytes", Local, RECEIVED),
    varying(On::Ctx, "hpmove", Local, RECEIVED),
    varying(On::Ctx, "hpmove_bytes", Local, RECEIVED),
    // collectives
    m(On::Ctx, "broadcast", Collective),
    m(On::Ctx, "broadcast_one", Collective),
    m(On::Ctx, "broadcast_large", Collective),
    m(On::Ctx, "reduce", Collective),
    m(On::Ctx, "allreduce", Collective),
    m(On::Ctx, "allreduce_one", Collective),
    m(On::Ctx, "scan", Collective),
    m(On::Ctx, "scan_one", Collective),
    m(On::Ctx, "gather", Collective),
    m(On::Ctx, "gather_into", Collective),
    m(On::Ctx, "allgather", Collective),
    m(On::Ctx, "allgather_into", Collective),
    m(On::Ctx, "scatter", Collective),
    m(On::Ctx, "alltoall", Collective),
    m(On::Ctx, "alltoallv", Collective),
    m(On::Ctx, "alltoallv_into", Collective),
    // ---- the superstep (besides what it derefs to) --------------------------------------------
    m(On::Superstep, "get", Lends),
    m(On::Superstep, "hpget", Lends),
    m(On::Superstep, "hpput", Lends),
    m(On::Superstep, "dest", Lends),
    m(On::Superstep, "get_batch", Lends),
    // Stubs that exist only to be rejected inside a superstep, in the runtime's words.
    m(On::Superstep, "sync", Syncs),
    m(On::Superstep, "superstep", Superstep),
    m(On::Superstep, "register", Syncs),
    m(On::Superstep, "register_each", Syncs),
    m(On::Superstep, "unregister", Syncs),
    m(On::Superstep, "unregister_each", Syncs),
    m(On::Superstep, "with_reg", Scoped),
    m(On::Superstep, "with_regs", Scoped),
    m(On::Superstep, "put_batch", Batch),
    m(On::Superstep, "put_batch_with_local", Batch),
    m(On::Superstep, "broadcast", Collective),
    m(On::Superstep, "broadcast_one", Collective),
    m(On::Superstep, "broadcast_large", Collective),
    m(On::Superstep, "reduce", Collective),
    m(On::Superstep, "allreduce", Collective),
    m(On::Superstep, "allreduce_one", Collective),
    m(On::Superstep, "scan", Collective),
    m(On::Superstep, "scan_one", Collective),
    m(On::Superstep, "gather", Collective),
    m(On::Superstep, "gather_into", Collective),
    m(On::Superstep, "allgather", Collective),
    m(On::Superstep, "allgather_into", Collective),
    m(On::Superstep, "scatter", Collective),
    m(On::Superstep, "alltoall", Collective),
    m(On::Superstep, "alltoallv", Collective),
    m(On::Superstep, "alltoallv_into", Collective),
    // ---- registrations ------------------------------------------------------------------------
    m(On::Reg, "remote", Local),
    m(On::Reg, "split_mut", Local),
    m(On::Reg, "len", Local),
    m(On::Reg, "is_empty", Local),
    m(On::Reg, "id", Local),
    m(On::Reg, "local", Local),
    m(On::Reg, "local_mut", Local),
    m(On::Reg, "value", Local),
    m(On::Reg, "value_mut", Local),
    m(On::Registered, "remote", Local),
    m(On::Registered, "split_mut", Local),
    m(On::Registered, "len", Local),
    m(On::Registered, "is_empty", Local),
    m(On::Registered, "id", Local),
    m(On::Registered, "local", Local),
    m(On::Registered, "local_mut", Local),
    // ---- batches ------------------------------------------------------------------------------
    m(On::PutBatch, "put", Local),
    m(On::PutBatch, "put_combine", Local),
    m(On::GetBatch, "get", Local),
    m(On::GetBatch, "get_each", Local),
    m(On::Dest, "len", Local),
    m(On::Dest, "is_empty", Local),
    m(On::Dest, "at", Local),
    m(On::Dest, "range", Local),
    // ---- teams --------------------------------------------------------------------------------
    m(On::Team, "new", Local),
    m(On::Team, "by_key", Local),
    m(On::Team, "size", Local),
    varying(On::Team, "rank", Local, "is each process's own rank in its team"),
    m(On::Team, "members", Local),
    m(On::Team, "pid_of", Local),
    m(On::Team, "rank_of", Local),
    m(On::Team, "broadcast", Collective),
    m(On::Team, "broadcast_one", Collective),
    m(On::Team, "broadcast_large", Collective),
    m(On::Team, "reduce", Collective),
    m(On::Team, "allreduce", Collective),
    m(On::Team, "allreduce_one", Collective),
    m(On::Team, "scan", Collective),
    m(On::Team, "scan_one", Collective),
    m(On::Team, "gather", Collective),
    m(On::Team, "gather_into", Collective),
    m(On::Team, "allgather", Collective),
    m(On::Team, "allgather_into", Collective),
    m(On::Team, "scatter", Collective),
    m(On::Team, "alltoall", Collective),
    m(On::Team, "alltoallv", Collective),
    m(On::Team, "alltoallv_into", Collective),
    m(On::Grid, "new", Local),
    m(On::Grid, "rows", Local),
    m(On::Grid, "cols", Local),
    varying(On::Grid, "s", Local, "is each process's own row in the grid"),
    varying(On::Grid, "t", Local, "is each process's own column in the grid"),
    m(On::Grid, "pid", Local),
    m(On::Grid, "row", Local),
    m(On::Grid, "col", Local),
    // ---- global pointer arrays ----------------------------------------------------------------
    m(On::GpBuilder, "chunk", Local),
    m(On::GpBuilder, "irregular", Local),
    m(On::GpBuilder, "name", Local),
    m(On::GpBuilder, "build", Syncs),
    m(On::GpArray, "builder", Local),
    m(On::GpArray, "name", Local),
    m(On::GpArray, "dims", Local),
    m(On::GpArray, "dist", Local),
    m(On::GpArray, "distribution", Local),
    m(On::GpArray, "access", Local),
    m(On::GpArray, "access_mut", Local),
    m(On::GpArray, "assign_local", Local),
    m(On::GpArray, "free_local", Local),
    m(On::GpArray, "memzero", Syncs),
    m(On::GpArray, "sync", Syncs),
    m(On::GpArray, "destroy", Syncs),
    m(On::GpArray, "get", Lends),
    m(On::GpArray, "get_into", Lends),
    m(On::GpArray, "get_size", Lends),
    m(On::GpArray, "gather", Lends),
    m(On::GpArray, "gather_into", Lends),
    m(On::GpArray, "gather_size", Lends),
    m(On::GpArray, "put", Local),
    m(On::GpArray, "scatter", Local),
    m(On::GpBuf, "new", Local),
    m(On::GpBuf, "len", Local),
    m(On::GpBuf, "is_empty", Local),
    m(On::GpBuf, "shape", Local),
    m(On::GpBuf, "element", Local),
    m(On::GpBuf, "elements", Local),
    m(On::GpBuf, "sizes", Local),
    m(On::GpBuf, "offsets", Local),
    m(On::GpBuf, "data", Local),
    m(On::GpBuf, "total", Local),
    m(On::GpBuf, "into_elements", Local),
];

/// The method `name` called on a context name (`ctx.name(..)`, on `Ctx` or on a `Superstep`):
/// what it does, or `None` for a name the runtime's context does not have (a method the macros
/// cannot see into, which may sync).
pub(crate) fn on_context(name: &str) -> Option<&'static Method> {
    METHODS.iter().find(|m| m.on.is_context() && m.name == name)
}

/// Whether the method `name` of another value (a registration, a team, a GP array), handed the
/// context, syncs: `Some` if all the table's other types with such a method agree, `None` if
/// they disagree or none has it (the call may sync).
pub(crate) fn syncs_with_context(name: &str) -> Option<bool> {
    let mut syncs = METHODS.iter().filter(|m| !m.on.is_context() && m.name == name).map(|m| m.effect.syncs());
    let first = syncs.next()?;
    syncs.all(|s| s == first).then_some(first)
}

/// The method `name` of another value, if it is a sync point whenever it is called (a GP
/// array's `build`, `memzero`, `sync`, `destroy`): its name, for the messages.
pub(crate) fn sync_with_context(name: &str) -> Option<&'static str> {
    let mut found = METHODS.iter().filter(|m| !m.on.is_context() && m.name == name);
    let first = found.next()?;
    (first.effect == Effect::Syncs && found.all(|m| m.effect == Effect::Syncs)).then_some(first.name)
}

/// The context's method `name`, if it is a collective: its name, for the messages.
pub(crate) fn collective(name: &str) -> Option<&'static str> {
    on_context(name).filter(|m| m.effect == Effect::Collective).map(|m| m.name)
}

/// Why the result of the context's method `name` differs between processes, if it does.
pub(crate) fn varies(name: &str) -> Option<&'static str> {
    on_context(name).and_then(|m| m.varies)
}
