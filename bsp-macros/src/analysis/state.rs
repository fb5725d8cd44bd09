//! What is pending at one point of the function: the lexical scopes (which binding a name means)
//! and the flow state (which bindings are pending, and why), with the rules for joining branches.
//!
//! # Join rules (why there are no false positives)
//!
//! - *Until-sync* entries (a `get`/`hpget` destination, an `hpput` source) that existed before a branch point stay pending after it only if they are still pending at
//!   the end of **every** branch that reaches the join: one path that syncs is enough to silence
//!   the check. Entries created inside one branch are kept (a `get` on one path already borrows
//!   its destination until the sync on that path, so the runtime's types reject the read anyway;
//!   the check only gives a better message).
//! - *After-sync* entries (`hpmove` results) are stale after the join if **some** path synced:
//!   using the borrow after a possible sync is rejected by the borrow checker anyway. If some
//!   path handed the context to code the macro cannot see, the entry becomes unknown and is
//!   never reported.
//! - Branches that cannot reach the join (they `return`, `break`, `continue`, panic or abort) are
//!   left out. Nothing is reported in code that cannot be reached.

use proc_macro2::Span;
use std::collections::HashMap;

/// Identifies one `let` (or pattern) binding, so that shadowing ends tracking.
pub(crate) type BindingId = usize;

/// The lexical scopes of the walk.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scopes {
    stack: Vec<Vec<(String, BindingId)>>,
    /// Names used but declared outside the analysed code (parameters, captures, ...).
    outer: HashMap<String, BindingId>,
    next: BindingId,
}

impl Scopes {
    pub(crate) fn push(&mut self) {
        self.stack.push(Vec::new());
    }

    pub(crate) fn pop(&mut self) {
        self.stack.pop();
    }

    /// The number of open scopes.
    pub(crate) fn depth(&self) -> usize {
        self.stack.len()
    }

    /// The index of the scope that declares the binding `name` means here (`None` for names
    /// declared outside the analysed code).
    pub(crate) fn depth_of(&self, name: &str) -> Option<usize> {
        self.stack.iter().rposition(|scope| scope.iter().any(|(n, _)| n == name))
    }

    /// A new binding of `name` in the innermost scope, shadowing any earlier one.
    pub(crate) fn declare(&mut self, name: &str) -> BindingId {
        let id = self.fresh();
        match self.stack.last_mut() {
            Some(scope) => scope.push((name.to_owned(), id)),
            None => {
                self.outer.insert(name.to_owned(), id);
            }
        }
        id
    }

    /// The binding `name` means here.
    pub(crate) fn lookup(&mut self, name: &str) -> BindingId {
        for scope in self.stack.iter().rev() {
            if let Some((_, id)) = scope.iter().rev().find(|(n, _)| n == name) {
                return *id;
            }
        }
        if let Some(id) = self.outer.get(name) {
            return *id;
        }
        let id = self.fresh();
        self.outer.insert(name.to_owned(), id);
        id
    }

    /// The binding `name` means here, if the analysed code declared or used it before.
    pub(crate) fn find(&self, name: &str) -> Option<BindingId> {
        for scope in self.stack.iter().rev() {
            if let Some((_, id)) = scope.iter().rev().find(|(n, _)| n == name) {
                return Some(*id);
            }
        }
        self.outer.get(name).copied()
    }

    fn fresh(&mut self) -> BindingId {
        self.next += 1;
        self.next
    }
}

/// The operation that made a binding pending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Get,
    HpGet,
    /// `s.dest(&mut buf)`: `buf` is lent to the gets of the superstep.
    Dest,
    /// `s.get_batch(&x, &mut buf)`: `buf` is lent to the batch's gets until the sync.
    GetBatch,
    HpPut,
    HpMove,
    /// `reg.local_mut(..)` (or `value_mut`) called while a name taken earlier by
    /// `reg.remote()` is kept: the entry is on the name's binding, and any later use of the name
    /// keeps the two borrows of `reg` alive at once.
    LocalMut,
    /// Not a pending operation: a superstep in progress, for the findings about it.
    Superstep,
}

impl Op {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Op::Get => "get",
            Op::HpGet => "hpget",
            Op::Dest => "dest",
            Op::GetBatch => "get_batch",
            Op::HpPut => "hpput",
            Op::HpMove => "hpmove",
            Op::LocalMut => "local_mut",
            Op::Superstep => "superstep",
        }
    }
}

/// A place below a binding, as a list of projections: `pair.0` is `["0"]`, `buf[i].x` is
/// `["[]", "x"]`, the whole binding is `[]`. Derefs are left out (`(*r).0` is `r.0`).
///
/// Two places overlap when one is a prefix of the other, indices always matching each other:
/// the rule of the borrow checker for fields and built-in indexing. (Indexing a `Vec` borrows
/// all of it, which the borrow checker then reports itself: the check only ever says less.)
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Place(pub(crate) Vec<String>);

impl Place {
    pub(crate) fn overlaps(&self, other: &Place) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a == b)
    }
}

/// The life of an `hpmove` result.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Validity {
    /// Before the sync: fine to use.
    Live,
    /// After the sync at this span: every use is an error.
    Stale(Span),
    /// The context went to code the macro cannot see: never reported.
    Unknown,
}

/// One pending binding.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// Unique per entry, to recognise it across branches.
    pub(crate) serial: usize,
    pub(crate) binding: BindingId,
    /// The name as written, for messages.
    pub(crate) name: String,
    /// The part of the binding that is pending (see [`Place`]); the whole binding for
    /// registrations and `hpmove` results.
    pub(crate) place: Place,
    pub(crate) op: Op,
    /// The operation's span (the method name).
    pub(crate) op_span: Span,
    /// Only meaningful for `Op::HpMove`.
    pub(crate) validity: Validity,
}

/// The flow state at one point.
#[derive(Clone, Debug)]
pub(crate) struct State {
    /// False after a `return`, `break`, `continue`, panic or abort: nothing is reported there.
    pub(crate) reachable: bool,
    pub(crate) entries: Vec<Entry>,
}

impl Default for State {
    fn default() -> Self {
        State { reachable: true, entries: Vec::new() }
    }
}

impl State {
    /// A definite sync: until-sync entries complete, `hpmove` results become stale. (A name
    /// kept across `local_mut` stays: a borrow does not end at a sync.)
    pub(crate) fn sync(&mut self, at: Span) {
        self.entries.retain(|e| e.op == Op::HpMove || e.op == Op::LocalMut);
        for entry in &mut self.entries {
            if let (Validity::Live, Op::HpMove) = (entry.validity, entry.op) {
                entry.validity = Validity::Stale(at);
            }
        }
    }

    /// The context was handed to code the macro cannot see, which may sync: `hpmove` results
    /// become unknown. (`get`, `hpget` and `hpput` entries stay: they only exist inside a
    /// superstep, where the context cannot sync.)
    pub(crate) fn maybe_sync(&mut self) {
        for entry in &mut self.entries {
            if let (Validity::Live, Op::HpMove) = (entry.validity, entry.op) {
                entry.validity = Validity::Unknown;
            }
        }
    }

    /// The state after a branch point, from the state before it and at the end of each branch.
    pub(crate) fn join(before: &State, branches: Vec<State>) -> State {
        let live: Vec<State> = branches.into_iter().filter(|b| b.reachable).collect();
        if live.is_empty() {
            return State { reachable: false, entries: before.entries.clone() };
        }
        let mut entries: Vec<Entry> = Vec::new();
        for branch in &live {
            for entry in &branch.entries {
                if entries.iter().any(|e| e.serial == entry.serial) {
                    continue;
                }
                let existed = before.entries.iter().any(|e| e.serial == entry.serial);
                let copies: Vec<&Entry> =
                    live.iter().filter_map(|b| b.entries.iter().find(|e| e.serial == entry.serial)).collect();
                let mut joined = entry.clone();
                if entry.op == Op::HpMove {
                    joined.validity = join_validity(&copies);
                } else if existed && copies.len() < live.len() {
                    // Some path synced: not reported any more.
                    continue;
                }
                entries.push(joined);
            }
        }
        State { reachable: true, entries }
    }
}

/// The validity of an `hpmove` result known by several entries (one per branch or per
/// assignment): unknown if one is, else stale if one is.
pub(crate) fn join_validity(copies: &[&Entry]) -> Validity {
    let mut stale = None;
    for copy in copies {
        match copy.validity {
            Validity::Unknown => return Validity::Unknown,
            Validity::Stale(at) => stale = stale.or(Some(at)),
            Validity::Live => {}
        }
    }
    stale.map_or(Validity::Live, Validity::Stale)
}
