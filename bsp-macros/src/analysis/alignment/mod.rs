//! Superstep alignment: every process must make the same sync points in the same order. This
//! walk reports the conditions that are not the same on every process (`varying.rs`) and decide
//! how many sync points the processes make (`count.rs`):
//!
//! - an `if`, `if let` or `match` whose branches that reach its end make numbers of sync points
//!   that cannot be equal;
//! - a `while`, `while let` or `for` loop whose condition (or range) varies and whose every
//!   iteration makes the same number of sync points, at least one;
//! - a branch (or `let ... else`) that returns from the program where the others go on and
//!   make a number of sync points that cannot be equal to the returning one's.
//!
//! A finding whose condition certainly varies (`Origin::certain`: from the pid or the clock, and
//! not decided alike for every pid by `decide.rs`) is a compile error. One that only perhaps
//! varies (messages, a `get`, data, a variant test) is not: the program compiles, and
//! `runtime_check.rs` makes each branch that syncs promise its index with `ctx.same(..)`, which
//! the runtime checks at the next sync ([`RunTimeCheck`]).
//!
//! It stays silent where it cannot decide: a count is an interval ([`Count`]), and code the
//! macro cannot see (a helper given `ctx`, a closure that may sync, an unknown method) makes it
//! unbounded, so no finding can come from it. `break` and `continue` under a varying condition
//! are not reported: whether the iterations they skip sync is a question of values (breaking
//! at the last iteration anyway, skipping one iteration each).
//!
//! The walk is separate from the pending-communication walk (`walker.rs`): it follows values,
//! not borrows, and is switched off by `BSP_MACROS_NO_ALIGNMENT=1` in the environment of the
//! build (for the compile-time benchmark, `scripts/alignment-bench`).

mod count;
mod decide;
mod varying;

use super::macro_args::{self, MacroKind};
use super::state::{BindingId, Scopes};
use super::syntax::{bound_names, is_compound_assign, is_process_exit, mentions, place_of, single_ident, strip_parens};
use crate::api::{self, Effect};
use crate::ctxt::Ctxt;
use crate::input::SuperstepInput;
pub(crate) use count::Count;
use proc_macro2::{Span, TokenStream};
use quote::ToTokens as _;
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned as _;
use syn::visit::{self, Visit};
use syn::{Block, Expr, Ident, Pat, Stmt};
pub(crate) use varying::Origin;

/// The environment variable that switches the check off (for the compile-time benchmark).
const OFF: &str = "BSP_MACROS_NO_ALIGNMENT";

/// Checks the body of a `#[bsp::program]` function whose context parameter is `ctx`, run on
/// `procs` processes if the program says how many (`procs = 2`): reports the conditions that
/// certainly differ between processes, and returns the run-time checks to insert for those the
/// macro cannot decide.
pub(crate) fn check_program(body: &Block, ctx: &Ident, procs: Option<u64>, cx: &mut Ctxt) -> Vec<RunTimeCheck> {
    if std::env::var_os(OFF).is_some_and(|v| v == "1") {
        return Vec::new();
    }
    let mut checks = Vec::new();
    for finding in findings(body, ctx, procs) {
        if !finding.origin.certain {
            if finding.arms.iter().any(|&syncs| syncs) {
                checks.push(RunTimeCheck { key: finding.key.clone(), ctx: finding.ctx.clone(), arms: finding.arms });
            }
            continue;
        }
        let mut text = finding.message(&ctx.to_string());
        if let Some(sync) = finding.sync {
            text = super::with_pointer(&text, &finding.note(sync));
        }
        cx.error_spanned_by(&finding.cond, text);
    }
    checks
}

/// The sync points a call of a helper whose body is `body` and whose context parameter is
/// `ctx` makes, on every path (to its end or to a `return`).
pub(crate) fn helper_count(body: &Block, ctx: &Ident) -> Count {
    let mut aligner = Aligner::new(vec![ctx.to_string()], true);
    let (region, _) = aligner.region(|this| this.block(body));
    either(region.fall, region.returns).unwrap_or(Count::ZERO)
}

/// The findings of one function body, in walk order.
pub(crate) fn findings(body: &Block, ctx: &Ident, procs: Option<u64>) -> Vec<Finding> {
    let mut aligner = Aligner::new(vec![ctx.to_string()], false);
    aligner.procs = procs;
    aligner.block(body);
    aligner.findings
}

/// Where a condition's token starts, and the condition as text: finds it again in the lowering.
pub(crate) fn key_of(cond: &Expr) -> String {
    let tokens = cond.to_token_stream();
    let start = tokens.clone().into_iter().next().map(|t| format!("{:?}", t.span())).unwrap_or_default();
    format!("{start} {tokens}")
}

/// A condition the macro cannot decide (it depends on messages, a `get`, other data) whose
/// branches make different numbers of sync points: the lowering makes each branch that syncs
/// on all its paths promise its index with `ctx.same(..)` first, so that the runtime compares
/// the branches the processes took at the sync that branch makes, and fails the run with the
/// condition's place if they differ.
#[derive(Clone, Debug)]
pub(crate) struct RunTimeCheck {
    /// The condition (`key_of`).
    pub(crate) key: String,
    /// The context's name where the condition is.
    pub(crate) ctx: String,
    /// For each branch (`if`: the `if` branch, then the `else`; `match`: its arms; a loop: its
    /// body), whether every path through it syncs: those promise.
    pub(crate) arms: Vec<bool>,
}

/// What is misaligned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Two branches of an `if` or `match` (named) make different numbers of sync points.
    Branches { keyword: &'static str, first: (String, Count), second: (String, Count) },
    /// A loop whose condition varies makes `body` sync points per iteration.
    Loop { keyword: &'static str, body: Count },
    /// A `return` (or a `let ... else` that returns) under the condition: those that return
    /// make `exit` sync points from the condition on, the others `other`.
    Return { exit: Count, other: Count },
}

/// One misaligned condition.
#[derive(Clone, Debug)]
pub(crate) struct Finding {
    pub(crate) kind: Kind,
    /// The condition's tokens (the error spans them).
    pub(crate) cond: TokenStream,
    pub(crate) origin: Origin,
    /// A sync point that some processes make and others do not, if one is known.
    pub(crate) sync: Option<Span>,
    /// The condition, to find it again (`key_of`).
    pub(crate) key: String,
    /// The context's name where the condition is.
    pub(crate) ctx: String,
    /// For each branch (see [`RunTimeCheck::arms`]), whether every path through it syncs.
    pub(crate) arms: Vec<bool>,
}

impl Finding {
    /// The error at the condition: what differs, why it matters, how to fix it.
    pub(crate) fn message(&self, ctx: &str) -> String {
        let why = format!(
            "= note: the condition is not the same on every process: {}; every process must make \
             the same sync points in the same order, or some wait at a sync that the others never \
             reach (the run then stops with an error there)",
            self.origin.describe()
        );
        let same = format!(
            "if the value is the same on every process, say so with `{ctx}.same(..)`, which \
             debug builds check at the next sync"
        );
        match &self.kind {
            Kind::Branches { keyword, first, second } => format!(
                "the branches of this `{keyword}` make different numbers of sync points ({} on \
                 the {}, {} on the {}), and its condition varies between processes\n{why}\n\
                 = help: make every branch sync alike (a process with nothing to send still \
                 takes part in a superstep: put the condition inside the `superstep!` block), \
                 or decide with a value that is the same everywhere, such as the result of a \
                 collective (`{ctx}.allreduce_one(..)`, `{ctx}.broadcast_one(..)`); {same}",
                first.1, first.0, second.1, second.0
            ),
            Kind::Loop { keyword, body } => {
                let what = if *keyword == "for" { "the range of this `for` loop" } else { "this loop's condition" };
                format!(
                    "{what} varies between processes, and each iteration makes {body}: the \
                     processes would make different numbers of sync points\n{why}\n\
                     = help: make every process loop the same number of times: agree on the \
                     bound or the condition with a collective (`{ctx}.allreduce_one(local, \
                     bsp::ops::max)` for a bound, `{ctx}.allreduce_one(done, |a, b| a && b)` \
                     for a condition) and let a process with nothing left run its iterations \
                     empty; {same}"
                )
            }
            Kind::Return { exit, other } => format!(
                "the processes that leave the program under this condition make {exit} from \
                 here on, the others {other}, and the condition varies between processes\n{why}\n\
                 = help: let every process reach the same sync points: instead of returning \
                 early, skip the work and still take part in the remaining supersteps, or \
                 decide with a value that is the same everywhere (the result of a collective); \
                 {same}"
            ),
        }
    }

    /// Where a sync point that only some processes make is (`sync`), for the error's message.
    pub(crate) fn note(&self, sync: Span) -> String {
        let at = crate::ctxt::at(sync);
        match &self.kind {
            Kind::Branches { .. } => format!("a sync point that only the processes taking this branch make is {at}"),
            Kind::Loop { .. } => format!("the sync point that each iteration makes is {at}"),
            Kind::Return { .. } => format!("a sync point that the processes that leave early skip is {at}"),
        }
    }
}

/// A stretch of statements whose count the rest of the function adds after the current point.
#[derive(Clone, Copy)]
enum Frame<'a> {
    Stmts(&'a [Stmt]),
    /// The rest of a loop's iterations.
    Loop,
}

/// What one branch (or the rest of a function) does, counted from its start.
#[derive(Clone, Debug)]
struct Region {
    /// The count of the paths that reach its end, if any does.
    fall: Option<Count>,
    /// The count of the paths that return from the program inside it, if any does.
    returns: Option<Count>,
    /// The count of the paths that end an iteration of an enclosing loop (`break`, `continue`).
    exits: Option<Count>,
    first_sync: Option<Span>,
}

/// For each branch, whether every path through it makes a sync point (it may promise which
/// branch it is: a sync follows the promise on every path).
fn syncing_arms(branches: &[(String, Region)]) -> Vec<bool> {
    branches.iter().map(|(_, r)| either(either(r.fall, r.returns), r.exits).is_some_and(|c| c.min >= 1)).collect()
}

fn either(a: Option<Count>, b: Option<Count>) -> Option<Count> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.either(b)),
        (a, b) => a.or(b),
    }
}

pub(crate) struct Aligner<'a> {
    scopes: Scopes,
    ctx_names: Vec<String>,
    /// The bindings whose value varies, and why.
    varying: HashMap<BindingId, Origin>,
    /// Varying conditions around the code being walked, with the scope depth at their start:
    /// a variable declared outside is assigned on some processes only.
    guards: Vec<(Origin, usize)>,
    /// Sync points since the start of the current region, along the current path.
    count: Count,
    first_sync: Option<Span>,
    reachable: bool,
    returns: Option<Count>,
    exits: Option<Count>,
    /// The statements after the current one, in each enclosing block (innermost last).
    rest: Vec<Frame<'a>>,
    /// Inside a closure: `return` leaves the closure, not the program.
    closures: usize,
    /// Counting only (the rest of a function): no findings.
    dry: bool,
    /// The closures bound to variables, with the sync points a call makes.
    closures_bound: HashMap<BindingId, Count>,
    findings: Vec<Finding>,
    /// Conditions already reported (a loop is walked twice), by ordinal.
    reported: HashSet<usize>,
    next_node: usize,
    /// The number of processes, if the program gives it as a number (`procs = 2`).
    procs: Option<u64>,
    /// The values of variables bound (or last assigned) to arithmetic on the pid, the number
    /// of processes and literals, to decide conditions for each pid (`decide.rs`).
    inits: HashMap<BindingId, Expr>,
    /// The variables of `inits` declared `mut`.
    mutable: HashSet<BindingId>,
    /// The conditions under which the code being walked runs (`None`: not known, as in a loop's
    /// body or a `match` arm), outermost first: an assignment there is conditional.
    paths: Vec<Option<Expr>>,
    /// What the condition of the loop being reported came to at the loop's start.
    at_entry: Option<Option<decide::Decided>>,
}

impl<'a> Aligner<'a> {
    fn new(ctx_names: Vec<String>, dry: bool) -> Self {
        let mut scopes = Scopes::default();
        for name in &ctx_names {
            scopes.lookup(name);
        }
        Aligner {
            scopes,
            ctx_names,
            varying: HashMap::new(),
            guards: Vec::new(),
            count: Count::ZERO,
            first_sync: None,
            reachable: true,
            returns: None,
            exits: None,
            rest: Vec::new(),
            closures: 0,
            dry,
            closures_bound: HashMap::new(),
            findings: Vec::new(),
            reported: HashSet::new(),
            next_node: 0,
            procs: None,
            inits: HashMap::new(),
            mutable: HashSet::new(),
            paths: Vec::new(),
            at_entry: None,
        }
    }

    fn is_ctx(&self, expr: &Expr) -> bool {
        match strip_parens(expr) {
            Expr::Path(path) => path.path.get_ident().is_some_and(|i| self.ctx_names.iter().any(|n| i == n)),
            _ => false,
        }
    }

    /// `ctx`, `&mut *ctx`, `&mut ctx`, `&*ctx`: the context handed to other code.
    fn is_ctx_handle(&self, expr: &Expr) -> bool {
        match strip_parens(expr) {
            Expr::Reference(r) => self.is_ctx_handle(&r.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.is_ctx_handle(&u.expr),
            expr => self.is_ctx(expr),
        }
    }

    // ---- counting ----------------------------------------------------------------------------

    fn sync_point(&mut self, at: Span) {
        self.count = self.count.then(Count::ONE);
        if self.reachable && self.first_sync.is_none() {
            self.first_sync = Some(at);
        }
    }

    fn unknown(&mut self) {
        self.count = self.count.then(Count::UNKNOWN);
    }

    fn sync_points(&mut self, n: Count) {
        self.count = self.count.then(n);
    }

    /// Walks `f` as a region of its own, from the current variables: returns what it does and
    /// the variables at its end; the walker's position is left as it was before.
    fn region(&mut self, f: impl FnOnce(&mut Self)) -> (Region, HashMap<BindingId, Origin>) {
        let saved = (self.count, self.first_sync, self.reachable, self.returns, self.exits, self.varying.clone());
        self.count = Count::ZERO;
        self.first_sync = None;
        self.reachable = true;
        self.returns = None;
        self.exits = None;
        f(self);
        let region = Region {
            fall: self.reachable.then_some(self.count),
            returns: self.returns,
            exits: self.exits,
            first_sync: self.first_sync,
        };
        let varying = std::mem::replace(&mut self.varying, saved.5);
        (self.count, self.first_sync, self.reachable, self.returns, self.exits) =
            (saved.0, saved.1, saved.2, saved.3, saved.4);
        (region, varying)
    }

    /// Continues after branch points whose branches did `regions`, ending with `varying`.
    fn join(&mut self, regions: &[Region], varying: Vec<HashMap<BindingId, Origin>>) {
        let before = self.count;
        let mut fall: Option<Count> = None;
        for region in regions {
            fall = either(fall, region.fall);
            self.returns = either(self.returns, region.returns.map(|r| before.then(r)));
            self.exits = either(self.exits, region.exits.map(|r| before.then(r)));
            if self.first_sync.is_none() && self.reachable {
                self.first_sync = region.first_sync;
            }
        }
        match fall {
            Some(fall) => self.count = before.then(fall),
            None => self.reachable = false,
        }
        // A variable varies after the branches if it varies at the end of one of them.
        self.varying = varying
            .into_iter()
            .reduce(|mut a, b| {
                for (k, v) in b {
                    a.entry(k).or_insert(v);
                }
                a
            })
            .unwrap_or_default();
    }

    /// The count from the current point to the end of the program, on the paths that reach it
    /// (those that return included), and its first sync point.
    fn rest_of_program(&self) -> (Option<Count>, Option<Span>) {
        let mut prefix = Count::ZERO;
        let mut exit: Option<Count> = None;
        let mut first = None;
        for frame in self.rest.iter().rev() {
            match frame {
                Frame::Stmts(stmts) => {
                    let mut dry = Aligner::new(self.ctx_names.clone(), true);
                    dry.scopes = self.scopes.clone();
                    dry.varying = self.varying.clone();
                    dry.closures_bound = self.closures_bound.clone();
                    let (region, _) = dry.region(|d| d.stmts(stmts));
                    first = first.or(region.first_sync);
                    exit = either(exit, region.returns.map(|r| prefix.then(r)));
                    // `break`/`continue` lead to the enclosing loop's frame: the same as
                    // reaching the end of the body, for a lower bound.
                    match either(region.fall, region.exits) {
                        Some(fall) => prefix = prefix.then(fall),
                        None => return (exit, first),
                    }
                }
                Frame::Loop => prefix = prefix.then(Count::UNKNOWN),
            }
        }
        (either(exit, Some(prefix)), first)
    }

    // ---- findings ----------------------------------------------------------------------------

    fn node(&mut self) -> usize {
        self.next_node += 1;
        self.next_node
    }

    fn report(&mut self, key: usize, kind: Kind, cond: &Expr, origin: Origin, sync: Option<Span>, arms: Vec<bool>) {
        if self.dry || self.reported.contains(&key) {
            return;
        }
        // A condition on the pid that every process decides alike (`pid == 999` on 2
        // processes) does not vary; one that does not vary on any number of processes tried
        // perhaps varies (`pid < ctx.nprocs()`).
        let decided = match self.at_entry {
            Some(at_entry) => at_entry,
            None => self.decide(cond, self.procs),
        };
        let origin = match decided {
            Some(decide::Decided::Alike) => return,
            Some(decide::Decided::Perhaps) => origin.undecided(),
            Some(decide::Decided::Differs) => origin,
            // On a known number of processes, only what the evaluation shows is certain (a
            // value computed from the pid may still be the same on each of them); the clock
            // stays certain.
            None if self.procs.is_some() && !origin.source.contains(".time()") => origin.undecided(),
            None => origin,
        };
        self.reported.insert(key);
        let ctx = self.ctx_names.last().cloned().unwrap_or_default();
        self.findings.push(Finding { kind, cond: cond.to_token_stream(), origin, sync, key: key_of(cond), ctx, arms });
    }

    /// The branches of a condition that varies: reported if two that go on make numbers of
    /// sync points that cannot be equal, or if one returns and the numbers cannot be equal
    /// counted to the end of the program.
    fn compare(
        &mut self,
        key: usize,
        keyword: &'static str,
        cond: &Expr,
        origin: &Origin,
        branches: &[(String, Region)],
    ) {
        if self.dry {
            return;
        }
        for (i, (first_name, first)) in branches.iter().enumerate() {
            for (second_name, second) in &branches[i + 1..] {
                if let (Some(a), Some(b)) = (first.fall, second.fall) {
                    if a.disjoint(b) {
                        let sync = if a.min > b.min { first.first_sync } else { second.first_sync };
                        let kind = Kind::Branches {
                            keyword,
                            first: (first_name.clone(), a),
                            second: (second_name.clone(), b),
                        };
                        self.report(key, kind, cond, origin.clone(), sync, syncing_arms(branches));
                        return;
                    }
                }
            }
        }
        if branches.iter().all(|(_, b)| b.returns.is_none()) {
            return;
        }
        let (rest, rest_sync) = self.rest_of_program();
        let Some(rest) = rest else {
            return;
        };
        let to_exit = |b: &Region| either(b.returns, b.fall.map(|f| f.then(rest)));
        for (i, (_, first)) in branches.iter().enumerate() {
            for (_, second) in &branches[i + 1..] {
                let (Some(a), Some(b)) = (to_exit(first), to_exit(second)) else {
                    continue;
                };
                if a.disjoint(b) {
                    let (exit, other, other_region) =
                        if first.returns.is_some() && first.fall.is_none() { (a, b, second) } else { (b, a, first) };
                    let sync = other_region.first_sync.or(rest_sync);
                    // Returns are found by the runtime when the others sync: nothing to promise.
                    let arms = vec![false; branches.len()];
                    self.report(key, Kind::Return { exit, other }, cond, origin.clone(), sync, arms);
                    return;
                }
            }
        }
    }

    // ---- the walk ----------------------------------------------------------------------------

    fn block(&mut self, block: &'a Block) {
        self.scopes.push();
        self.stmts(&block.stmts);
        self.scopes.pop();
    }

    fn stmts(&mut self, stmts: &'a [Stmt]) {
        for (i, stmt) in stmts.iter().enumerate() {
            self.rest.push(Frame::Stmts(&stmts[i + 1..]));
            self.stmt(stmt);
            self.rest.pop();
        }
    }

    fn stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Local(local) => {
                let init = local.init.as_ref().map(|init| &*init.expr);
                let mut closure_count = None;
                match init.map(strip_parens) {
                    Some(Expr::Closure(closure)) => closure_count = Some(self.closure(closure)),
                    Some(init) => self.expr(init),
                    None => {}
                }
                if let Some((_, diverge)) = local.init.as_ref().and_then(|init| init.diverge.as_ref()) {
                    self.let_else(&local.pat, init, diverge);
                }
                self.bind(&local.pat, init);
                if let (Some(count), Some(ident)) = (closure_count, single_ident(&local.pat)) {
                    if let Some(binding) = self.scopes.find(&ident.to_string()) {
                        self.closures_bound.insert(binding, count);
                    }
                }
            }
            Stmt::Item(_) => {}
            Stmt::Expr(expr, _) => self.expr(expr),
            Stmt::Macro(stmt) => self.mac(&stmt.mac),
        }
    }

    /// `let PAT = init else { diverge };`: where `init` varies, the processes that take the
    /// `else` leave the program (or the loop) there.
    fn let_else(&mut self, pat: &Pat, init: Option<&'a Expr>, diverge: &'a Expr) {
        let key = self.node();
        let origin = init.and_then(|init| self.varies(init));
        let origin = origin.map(|o| if decide::tests_a_variant(pat) { o.undecided() } else { o });
        let (else_region, _) = self.region(|this| this.expr(diverge));
        if let (Some(origin), Some(init)) = (origin, init) {
            let on = Region { fall: Some(Count::ZERO), returns: None, exits: None, first_sync: None };
            let branches = [("else".to_owned(), else_region), ("on".to_owned(), on)];
            self.compare(key, "let", init, &origin, &branches);
        }
    }

    /// Declares the names `pat` binds, each varying with `origin` if given.
    fn declare_all(&mut self, pat: &Pat, origin: Option<Origin>) {
        let mut names = Vec::new();
        bound_names(pat, false, &mut names);
        for (ident, _) in names {
            let binding = self.scopes.declare(&ident.to_string());
            if let Some(origin) = &origin {
                self.varying.insert(binding, origin.clone());
            }
        }
    }

    /// The varying condition around the code, if a variable declared at scope `depth` (`None`:
    /// outside the function) is declared outside it.
    fn guard_for(&self, depth: Option<usize>) -> Option<Origin> {
        let (origin, _) = self.guards.iter().find(|(_, start)| depth.is_none_or(|d| d < *start))?;
        Some(Origin {
            source: format!("an assignment in code that only some processes run (it depends on {})", origin.describe()),
            via: None,
            certain: origin.certain,
        })
    }

    /// `place = value` (`compound`: `place += value`): the variable varies if the value does
    /// or the assignment is under a varying condition; a plain assignment of a value that does
    /// not vary, on every process, ends its variation.
    fn assign(&mut self, place: &Expr, value: &Expr, compound: bool) {
        let Some((ident, projection)) = place_of(place) else {
            return;
        };
        let name = ident.to_string();
        let Some(binding) = self.scopes.find(&name) else {
            return;
        };
        let depth = self.scopes.depth_of(&name);
        self.assign_init(binding, value, compound || !projection.0.is_empty());
        let origin = self.varies(value).or_else(|| self.guard_for(depth));
        match origin {
            Some(origin) => {
                self.varying.insert(binding, origin);
            }
            None if !compound && projection.0.is_empty() => {
                self.varying.remove(&binding);
            }
            None => {}
        }
    }

    fn expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Assign(assign) => {
                self.expr(&assign.right);
                self.expr(&assign.left);
                self.assign(&assign.left, &assign.right, false);
            }
            Expr::Binary(binary) if is_compound_assign(&binary.op) => {
                self.expr(&binary.right);
                self.expr(&binary.left);
                self.assign(&binary.left, &binary.right, true);
            }
            Expr::MethodCall(call) => {
                // A method of a `mut` variable may change it (`n.push(..)`).
                self.forget_if_mutable(&call.receiver);
                self.method_call(call);
            }
            Expr::Reference(reference) if reference.mutability.is_some() => {
                // `&mut n` (a `get`'s destination, an argument): `n` may change behind it.
                self.forget(&reference.expr);
                self.expr(&reference.expr);
            }
            Expr::Call(call) => {
                self.expr(&call.func);
                for arg in &call.args {
                    self.arg(arg);
                }
                if is_process_exit(&call.func) {
                    self.reachable = false;
                } else if let Some(count) = self.closure_called(&call.func) {
                    // A closure the walk has seen: a call makes its sync points (a sync point
                    // where it is called, for `let barrier = |c: &mut Ctx| c.sync();`).
                    if count.max == Some(count.min) && count.min > 0 {
                        self.sync_points(count);
                        if self.reachable && self.first_sync.is_none() {
                            self.first_sync = Some(call.func.span());
                        }
                    } else if count != Count::ZERO {
                        self.unknown();
                    }
                } else if call.args.iter().any(|a| self.is_ctx_handle(a)) {
                    self.unknown();
                }
            }
            Expr::Macro(mac) => self.mac(&mac.mac),
            Expr::Closure(closure) => {
                if self.closure(closure) != Count::ZERO {
                    self.unknown();
                }
            }
            Expr::Async(_) => {}
            Expr::Block(block) => self.block(&block.block),
            Expr::If(node) => self.if_expr(node),
            Expr::Match(node) => self.match_expr(node),
            Expr::ForLoop(node) => {
                self.expr(&node.expr);
                let origin = self.varies(&node.expr);
                // The `i`th iteration over a range has the same `i` on every process that makes it.
                let item = match strip_parens(&node.expr) {
                    Expr::Range(range) => range.start.as_deref().and_then(|s| self.varies(s)),
                    _ => origin.clone(),
                };
                self.looped("for", &node.expr, origin, |this| {
                    this.declare_all(&node.pat, item.clone());
                    this.block(&node.body);
                });
            }
            Expr::While(node) => {
                let origin = self.varies(&node.cond);
                self.looped("while", &node.cond, origin, |this| {
                    this.cond(&node.cond);
                    this.block(&node.body);
                });
            }
            Expr::Loop(node) => self.looped("loop", expr, None, |this| this.block(&node.body)),
            Expr::Return(ret) => {
                if let Some(value) = &ret.expr {
                    self.expr(value);
                }
                self.leave();
            }
            Expr::Try(e) => {
                self.expr(&e.expr);
                if self.closures == 0 && self.reachable {
                    self.returns = either(self.returns, Some(self.count));
                }
            }
            Expr::Break(e) => {
                if let Some(value) = &e.expr {
                    self.expr(value);
                }
                self.exit_iteration();
            }
            Expr::Continue(_) => self.exit_iteration(),
            _ => visit::visit_expr(&mut Visitor(self), expr),
        }
    }

    /// `return`: the paths that reach it leave the program here.
    fn leave(&mut self) {
        if self.closures == 0 && self.reachable {
            self.returns = either(self.returns, Some(self.count));
        }
        self.reachable = false;
    }

    fn exit_iteration(&mut self) {
        if self.reachable {
            self.exits = either(self.exits, Some(self.count));
        }
        self.reachable = false;
    }

    fn arg(&mut self, arg: &'a Expr) {
        self.expr(arg);
    }

    /// The sync points of a call of `func`, if it is a closure bound to a variable.
    fn closure_called(&self, func: &Expr) -> Option<Count> {
        match strip_parens(func) {
            Expr::Path(path) => {
                let binding = self.scopes.find(&path.path.get_ident()?.to_string())?;
                self.closures_bound.get(&binding).copied()
            }
            _ => None,
        }
    }

    /// A condition: `let` patterns in it bind names for the then-branch (the caller's scope).
    fn cond(&mut self, cond: &'a Expr) {
        match cond {
            Expr::Let(let_expr) => {
                self.expr(&let_expr.expr);
                let origin = self.varies(&let_expr.expr);
                self.declare_all(&let_expr.pat, origin);
            }
            Expr::Binary(binary) if matches!(binary.op, syn::BinOp::And(_)) => {
                self.cond(&binary.left);
                self.cond(&binary.right);
            }
            _ => self.expr(cond),
        }
    }

    fn if_expr(&mut self, node: &'a syn::ExprIf) {
        let key = self.node();
        let origin = self.varies(&node.cond);
        // The condition runs on every path; its `let` bindings belong to the then-branch.
        let depth = self.scopes.depth();
        if let Some(origin) = &origin {
            self.guards.push((origin.clone(), depth));
        }
        let (on, off) = match &*node.cond {
            Expr::Let(_) => (None, None),
            cond => (Some(cond.clone()), Some(syn::parse_quote!(!(#cond)))),
        };
        self.paths.push(on);
        let (then_region, then_vars) = self.region(|this| {
            this.scopes.push();
            this.cond(&node.cond);
            this.block(&node.then_branch);
            this.scopes.pop();
        });
        self.paths.pop();
        // A condition's own sync points run on both paths: count them once, before the branch.
        self.paths.push(off);
        let (else_region, else_vars) = self.region(|this| {
            this.scopes.push();
            this.cond_syncs_only(&node.cond);
            if let Some((_, else_branch)) = &node.else_branch {
                this.expr(else_branch);
            }
            this.scopes.pop();
        });
        self.paths.pop();
        if origin.is_some() {
            self.guards.pop();
        }
        if let Some(origin) = origin {
            let keyword = if matches!(&*node.cond, Expr::Let(_)) { "if let" } else { "if" };
            let branches =
                [("`if` branch".to_owned(), then_region.clone()), ("`else`".to_owned(), else_region.clone())];
            self.compare(key, keyword, &node.cond, &origin, &branches);
        }
        self.join(&[then_region, else_region], vec![then_vars, else_vars]);
    }

    /// The sync points of a condition, walked again on the `else` path so that both branches
    /// count them (its bindings are not in scope there).
    fn cond_syncs_only(&mut self, cond: &'a Expr) {
        let dry = self.dry;
        let findings = self.findings.len();
        self.dry = true;
        self.scopes.push();
        self.cond(cond);
        self.scopes.pop();
        self.dry = dry;
        self.findings.truncate(findings);
    }

    fn match_expr(&mut self, node: &'a syn::ExprMatch) {
        let key = self.node();
        self.expr(&node.expr);
        let scrutinee = self.varies(&node.expr);
        // Arms that test variants may be taken alike by every process.
        let scrutinee = scrutinee.map(|o| {
            let variants = node.arms.iter().any(|arm| match &arm.pat {
                Pat::Guard(guarded) => decide::tests_a_variant(&guarded.pat),
                pat => decide::tests_a_variant(pat),
            });
            if variants {
                o.undecided()
            } else {
                o
            }
        });
        let depth = self.scopes.depth();
        let mut regions = Vec::new();
        let mut vars = Vec::new();
        let mut origin = scrutinee.clone();
        for arm in &node.arms {
            let guard = match &arm.pat {
                Pat::Guard(guarded) => Some(&*guarded.guard),
                _ => None,
            };
            let arm_origin = scrutinee.clone().or_else(|| guard.and_then(|g| self.varies(g)));
            origin = origin.or(arm_origin.clone());
            if let Some(o) = &origin {
                self.guards.push((o.clone(), depth));
            }
            self.paths.push(None);
            let (region, arm_vars) = self.region(|this| {
                this.scopes.push();
                match &arm.pat {
                    Pat::Guard(guarded) => {
                        this.declare_all(&guarded.pat, scrutinee.clone());
                        this.expr(&guarded.guard);
                    }
                    pat => this.declare_all(pat, scrutinee.clone()),
                }
                this.expr(&arm.body);
                this.scopes.pop();
            });
            self.paths.pop();
            if origin.is_some() {
                self.guards.pop();
            }
            let pat = match &arm.pat {
                Pat::Guard(guarded) => &*guarded.pat,
                pat => pat,
            };
            regions.push((format!("arm `{}`", pat.to_token_stream()), region));
            vars.push(arm_vars);
        }
        if let Some(origin) = origin {
            self.compare(key, "match", &node.expr, &origin, &regions);
        }
        let regions: Vec<Region> = regions.into_iter().map(|(_, r)| r).collect();
        if regions.is_empty() {
            self.reachable = false;
        } else {
            self.join(&regions, vars);
        }
    }

    /// A loop: its body is walked twice (the second pass sees what the first assigned). If
    /// `origin` says its condition varies, every iteration making the same number of sync
    /// points, one at least, is reported.
    fn looped(&mut self, keyword: &'static str, cond: &'a Expr, origin: Option<Origin>, body: impl Fn(&mut Self)) {
        let key = self.node();
        let depth = self.scopes.depth();
        // The condition as it first runs, before the body changes what it reads: if it
        // differs there, some processes make no iteration and others one at least. (A `while`
        // that every process enters alike may still leave at different iterations.)
        let at_entry = match self.decide(cond, self.procs) {
            Some(decide::Decided::Alike) if keyword == "while" => None,
            decided => decided,
        };
        self.paths.push(None);
        if let Some(o) = &origin {
            self.guards.push((o.clone(), depth));
        }
        self.rest.push(Frame::Loop);
        let first_node = self.next_node;
        let (first, first_vars) = self.region(|this| {
            this.scopes.push();
            body(this);
            this.scopes.pop();
        });
        let after_nodes = self.next_node;
        self.next_node = first_node;
        let saved = std::mem::replace(&mut self.varying, first_vars.clone());
        for (k, v) in saved.iter() {
            self.varying.entry(*k).or_insert_with(|| v.clone());
        }
        // A `while` condition is evaluated again at each iteration: it varies from the second
        // on if the body made a variable it reads vary.
        let pushed = origin.is_some();
        let origin = match origin {
            None if keyword == "while" => self.varies(cond),
            origin => origin,
        };
        if let (false, Some(o)) = (pushed, &origin) {
            self.guards.push((o.clone(), depth));
        }
        let (second, second_vars) = self.region(|this| {
            this.scopes.push();
            body(this);
            this.scopes.pop();
        });
        self.next_node = after_nodes;
        self.rest.pop();
        self.paths.pop();
        if origin.is_some() {
            self.guards.pop();
        }
        let iteration = either(either(first.fall, first.exits), either(second.fall, second.exits));
        if let (Some(origin), Some(per)) = (origin, iteration) {
            if per.min >= 1 && per.max == Some(per.min) {
                let sync = first.first_sync;
                self.at_entry = Some(at_entry);
                self.report(key, Kind::Loop { keyword, body: per }, cond, origin, sync, vec![true]);
                self.at_entry = None;
            }
        }
        let body_count =
            either(either(first.fall, first.exits), either(second.fall, second.exits)).unwrap_or(Count::ZERO);
        let before = self.count;
        self.returns = either(self.returns, first.returns.map(|r| before.then(Count { min: r.min, max: None })));
        if self.first_sync.is_none() {
            self.first_sync = first.first_sync;
        }
        self.count = before.then(body_count.repeated());
        let mut joined = saved;
        for vars in [first_vars, second_vars] {
            for (k, v) in vars {
                joined.entry(k).or_insert(v);
            }
        }
        self.varying = joined;
    }

    /// A closure, walked where it is written with a copy of the walker's position; its sync
    /// points do not count here. Returns the sync points a call of it makes. A parameter typed
    /// as the context (`|c: &mut Ctx|`) is a context name in its body.
    fn closure(&mut self, closure: &'a syn::ExprClosure) -> Count {
        let saved_rest = std::mem::take(&mut self.rest);
        self.closures += 1;
        let names = self.ctx_names.len();
        self.ctx_names.extend(closure.inputs.iter().filter_map(ctx_param_name));
        self.paths.push(None);
        let (region, _) = self.region(|this| {
            this.scopes.push();
            for input in &closure.inputs {
                this.declare_all(input, None);
            }
            this.expr(&closure.body);
            this.scopes.pop();
        });
        self.paths.pop();
        self.ctx_names.truncate(names);
        self.closures -= 1;
        self.rest = saved_rest;
        either(either(region.fall, region.returns), region.exits).unwrap_or(Count::ZERO)
    }

    fn method_call(&mut self, call: &'a syn::ExprMethodCall) {
        let method = call.method.to_string();
        if !self.is_ctx(&call.receiver) {
            self.expr(&call.receiver);
            for arg in &call.args {
                self.arg(arg);
            }
            if call.args.iter().any(|a| self.is_ctx_handle(a)) {
                match api::syncs_with_context(&method) {
                    // A GP array's `build`, `sync`, ...: one sync point; a team's collective:
                    // at least one, the same on every process.
                    Some(true) => self.sync_point(call.method.span()),
                    Some(false) => {}
                    None => self.unknown(),
                }
            }
            return;
        }
        match (method.as_str(), call.args.first()) {
            ("superstep", Some(Expr::Closure(closure))) if call.args.len() == 1 => {
                let Some(name) = closure.inputs.first().and_then(single_ident) else {
                    self.sync_point(call.method.span());
                    return;
                };
                self.superstep(name, call.method.span(), |this| this.expr(&closure.body));
            }
            ("superstep_then", Some(Expr::Closure(first))) if call.args.len() == 2 => {
                let at = call.method.span();
                let Some(name) = first.inputs.first().and_then(single_ident) else {
                    self.sync_point(at);
                    self.sync_points(Count::UNKNOWN);
                    return;
                };
                let then = match strip_parens(&call.args[1]) {
                    Expr::Closure(then) => Some(then),
                    other => {
                        self.expr(other);
                        None
                    }
                };
                // The superstep, then the second closure, whose first sync ends it (one after
                // it if it makes none).
                self.scopes.push();
                self.scopes.declare(&name.to_string());
                self.ctx_names.push(name.to_string());
                self.closure_body(|this| this.expr(&first.body));
                self.ctx_names.pop();
                self.scopes.pop();
                let before = std::mem::replace(&mut self.count, Count::ZERO);
                match then {
                    Some(then) => self.closure_given_the_context(then),
                    // A closure bound to a variable makes its sync points here, as where it is
                    // called; anything else (a function) is code the macro cannot see into.
                    None => match self.closure_called(&call.args[1]) {
                        Some(count) => self.sync_points(count),
                        None => self.unknown(),
                    },
                }
                let then_count = std::mem::replace(&mut self.count, before);
                self.sync_points(then_count.at_least_one());
                if self.reachable && self.first_sync.is_none() {
                    self.first_sync = Some(at);
                }
            }
            ("with_reg" | "with_regs", _) => {
                for arg in &call.args {
                    match strip_parens(arg) {
                        // The body runs once, here, between the syncs of the registration.
                        Expr::Closure(body) => self.closure_given_the_context(body),
                        arg => self.expr(arg),
                    }
                }
                self.sync_point(call.method.span());
                self.sync_points(Count::UNKNOWN);
            }
            ("get" | "hpget", _) if call.args.len() == 4 => {
                for arg in &call.args {
                    self.arg(arg);
                }
                if let Some(origin) = self.varies(&call.args[0]) {
                    self.get_from_varying_pid(&call.args[3], origin);
                }
            }
            ("abort", _) => {
                for arg in &call.args {
                    self.arg(arg);
                }
                self.reachable = false;
            }
            (name, _) => {
                for arg in &call.args {
                    self.arg(arg);
                }
                match api::on_context(name).map(|m| m.effect) {
                    Some(Effect::Syncs | Effect::Collective) => self.sync_point(call.method.span()),
                    Some(effect) if !effect.syncs() => {}
                    // Not in the table (or a superstep or `with_reg` not written as the walk
                    // expects): the macro cannot count it.
                    _ => self.unknown(),
                }
            }
        }
    }

    /// A `get` from a process that depends on the pid: its destination holds another process's
    /// data on each process.
    fn get_from_varying_pid(&mut self, dst: &Expr, origin: Origin) {
        let Some((ident, _)) = place_of(dst) else {
            return;
        };
        if let Some(binding) = self.scopes.find(&ident.to_string()) {
            let source = format!("a `get` from a process chosen by {}", origin.describe());
            // The data of another process may be the same everywhere: not certain.
            self.varying.insert(binding, Origin { source, via: None, certain: false });
        }
    }

    /// One superstep: its body with `ctx` as a context name, then the sync that ends it.
    fn superstep(&mut self, ctx: &Ident, at: Span, body: impl FnOnce(&mut Self)) {
        self.scopes.push();
        self.scopes.declare(&ctx.to_string());
        self.ctx_names.push(ctx.to_string());
        self.closure_body(body);
        self.ctx_names.pop();
        self.scopes.pop();
        self.sync_point(at);
    }

    /// A closure that runs once, here, and is handed the context (`with_reg`'s body, the second
    /// closure of `superstep_then`): its parameters that are names are contexts.
    fn closure_given_the_context(&mut self, closure: &'a syn::ExprClosure) {
        self.scopes.push();
        for input in &closure.inputs {
            self.declare_all(input, None);
        }
        self.ctx_names.extend(closure.inputs.iter().filter_map(single_ident).map(ToString::to_string));
        let names = closure.inputs.iter().filter_map(single_ident).count();
        self.closure_body(|this| this.expr(&closure.body));
        self.ctx_names.truncate(self.ctx_names.len() - names);
        self.scopes.pop();
    }

    /// The body of a closure that runs once, here (a superstep's, `with_reg`'s): its sync
    /// points count, but a `return` in it leaves the closure, not the program.
    fn closure_body(&mut self, body: impl FnOnce(&mut Self)) {
        let saved_rest = std::mem::take(&mut self.rest);
        self.closures += 1;
        body(self);
        self.closures -= 1;
        self.rest = saved_rest;
    }

    fn mac(&mut self, mac: &'a syn::Macro) {
        match macro_args::classify(mac) {
            MacroKind::Superstep => match mac.parse_body::<SuperstepInput>() {
                Ok(input) => {
                    let at = mac.path.segments.last().map_or(mac.bang_token.span, |s| s.ident.span());
                    // The block is parsed here, so it cannot be borrowed for the walk's frames:
                    // a superstep has no `return` (it is an error), so it needs none.
                    let saved_rest = std::mem::take(&mut self.rest);
                    let mut inner = Aligner::new(self.ctx_names.clone(), true);
                    inner.swap_state(self);
                    inner.guards = self.guards.clone();
                    inner.superstep(&input.ctx, at, |this| this.block(&input.block));
                    inner.swap_state(self);
                    self.rest = saved_rest;
                    self.sync_points(inner.count);
                    if self.reachable && self.first_sync.is_none() {
                        self.first_sync = inner.first_sync;
                    }
                }
                Err(_) => self.unknown(),
            },
            MacroKind::Args { diverges, .. } => {
                if let Some(args) = macro_args::comma_args(mac) {
                    self.owned_exprs(&args);
                }
                if diverges {
                    self.reachable = false;
                }
            }
            MacroKind::Vec => {
                if let Some(args) = macro_args::vec_args(mac) {
                    self.owned_exprs(&args);
                }
            }
            MacroKind::Matches => {}
            MacroKind::Opaque => {
                if mentions(mac.tokens.clone(), &self.ctx_names) {
                    self.unknown();
                }
            }
        }
    }

    /// Exchanges what is known of the variables with `other` (an inner walk over tokens parsed
    /// out of a macro works on the outer walk's variables).
    fn swap_state(&mut self, other: &mut Aligner<'_>) {
        std::mem::swap(&mut self.scopes, &mut other.scopes);
        std::mem::swap(&mut self.varying, &mut other.varying);
        std::mem::swap(&mut self.inits, &mut other.inits);
        std::mem::swap(&mut self.mutable, &mut other.mutable);
    }

    /// Expressions parsed out of a macro's tokens: only their sync points count (they cannot
    /// return from the program, and are not borrowed for the walk's frames).
    fn owned_exprs(&mut self, args: &[Expr]) {
        let mut inner = Aligner::new(self.ctx_names.clone(), true);
        inner.swap_state(self);
        for arg in args {
            inner.expr(arg);
        }
        inner.swap_state(self);
        self.sync_points(inner.count);
        if self.reachable && self.first_sync.is_none() {
            self.first_sync = inner.first_sync;
        }
    }
}

/// `c` in a closure's parameter `c: &mut Ctx` (any path ending in `Ctx`, or `Superstep`).
fn ctx_param_name(pat: &Pat) -> Option<String> {
    let Pat::Type(typed) = pat else {
        return None;
    };
    let syn::Type::Reference(reference) = &*typed.ty else {
        return None;
    };
    let syn::Type::Path(path) = &*reference.elem else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != "Ctx" && last.ident != "Superstep" {
        return None;
    }
    single_ident(&typed.pat).map(ToString::to_string)
}

/// The walk of the expressions with nothing to do for alignment: their subexpressions.
struct Visitor<'w, 'a>(&'w mut Aligner<'a>);

impl<'a> Visit<'a> for Visitor<'_, 'a> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        self.0.expr(expr);
    }
    fn visit_block(&mut self, block: &'a Block) {
        self.0.block(block);
    }
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        self.0.stmt(stmt);
    }
    fn visit_macro(&mut self, mac: &'a syn::Macro) {
        self.0.mac(mac);
    }
    fn visit_item(&mut self, _: &'a syn::Item) {}
    fn visit_type(&mut self, _: &'a syn::Type) {}
    fn visit_pat(&mut self, _: &'a Pat) {}
}
