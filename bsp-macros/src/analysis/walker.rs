//! The pending-state walker: visits the function in evaluation order, keeps the flow state of
//! `state.rs` up to date at every operation, sync, branch and loop, and records the findings.
//!
//! What it recognises (receivers must be one of the context names: the function's parameter,
//! the name given to `superstep!`, or the parameter of a closure passed to `ctx.superstep`):
//!
//! - `ctx.get(pid, src, off, DST)` / `ctx.hpget(..)`: the place `DST` borrows (`left`,
//!   `pair.0`, `buf[_]`) is pending until the sync; any use of an overlapping place is reported,
//!   as the destination of another `get` too. `src` must not be (as `&reg`) the registration `DST = reg.local_mut(..)` is part of. `DST` must not be
//!   `&mut x` for a variable `x` of the superstep itself.
//! - `ctx.hpput(pid, SRC, dst, off)`: writes to the place `SRC` borrows are reported; `SRC` must
//!   not be `&x` for a variable `x` of the superstep itself.
//! - `ctx.put(pid, src, dst, off)`: copies at the call, so nothing is pending.
//! - Registrations are left to the types: `ctx.register(..)` includes the sync that makes the
//!   registration effective, and `ctx.unregister(reg)` takes the handle by value.
//! - `let m = ctx.hpmove()` / `hpmove_bytes()` (also `m = ..`, and names bound from it by `let`,
//!   `if let`, `while let` and `match`, through `.unwrap()` / `.expect(..)`): uses after a sync
//!   are reported. Copies are values, not aliases: `*tag`, and names bound under a `&` pattern
//!   (`let &t = tag;`, `Some((&t, _))`). An `hpmove` result of a superstep that is the value of
//!   its block, or assigned to a variable declared before it, is reported as leaving it.
//! - Syncs: `ctx.sync()`, `ctx.register(..)`, `ctx.unregister(..)` (and their `_each` forms),
//!   the end of a `superstep!` block or of a `ctx.superstep(|s| ..)` call. Inside a superstep,
//!   those calls and another superstep are reported (only the end of the block ends it). Handing the context to other code (`helper(ctx)`, an unknown method on it,
//!   an unknown macro mentioning it, a closure whose body may sync, when called or handed over)
//!   may sync: registrations and `hpmove` results are no longer reported.
//!
//! Tracking is by name, so it ends where the name may hold something else: an assignment
//! `name = ..` (not a use of the old value) or a `&mut name` handed out (`mem::swap`). Where the
//! walk cannot prove a mistake, it says nothing and leaves the case to the runtime's types.
//!
//! Loops are walked twice: the first pass starts from the state before the loop, the second from
//! the state at the end of the first pass (what a later iteration sees). Closures are walked
//! where they are written, with a copy of the state, and their syncs do not leak out; a closure
//! whose parameter is named like the context starts from an unknown state.

mod ops;
mod supersteps;

use super::macro_args::{self, MacroKind};
use super::state::{BindingId, Entry, Op, Place, Scopes, State, Validity};
use super::syntax::{
    bound_names, is_compound_assign, is_process_exit, mentions, place_of, single_ident, strip, strip_parens,
};
use super::{Access, Finding, Problem};
use crate::input::SuperstepInput;
use proc_macro2::Span;
use std::collections::{HashMap, HashSet};
use syn::visit::{self, Visit};
use syn::{Block, Expr, Ident, Lit, Pat, Stmt};

#[derive(Debug)]
pub(crate) struct Walker {
    scopes: Scopes,
    state: State,
    ctx_names: Vec<String>,
    /// For each superstep being walked, the depth of its block's scope (bindings declared at
    /// that depth or deeper are variables of the superstep) and where it starts.
    superstep_depths: Vec<(usize, Span)>,
    /// The bindings that are the context: the program's parameter and each superstep's.
    ctx_bindings: Vec<BindingId>,
    /// Closures that may sync (`let f = || ctx.sync();`): calling them may sync.
    syncing_closures: HashSet<BindingId>,
    /// Variables bound to a part of a registration: `let r = x.remote();` (`true`) or
    /// `let mine = x.local_mut(ctx);` (`false`), with the registration's name and the method.
    reg_parts: HashMap<BindingId, (String, bool, Span)>,
    /// How many syncs (definite or possible) the walk has met, to tell whether a closure's body
    /// may sync.
    syncs: usize,
    /// Where each binding declared by a pattern is declared, for notes.
    decl_spans: HashMap<BindingId, Span>,
    findings: Vec<Finding>,
    /// Use ordinals already reported: a loop walked twice reports a use once.
    reported: HashSet<usize>,
    next_serial: usize,
    /// Ordinal of the next use, in walk order. Both passes over a loop body give its uses the
    /// same ordinals (the walk visits every node whatever the state), which identifies a use
    /// even inside macro arguments that are parsed again at each pass.
    next_use: usize,
}

impl Walker {
    pub(crate) fn new(ctx: &Ident) -> Self {
        let mut scopes = Scopes::default();
        let ctx_binding = scopes.lookup(&ctx.to_string());
        Walker {
            scopes,
            state: State::default(),
            ctx_names: vec![ctx.to_string()],
            superstep_depths: Vec::new(),
            ctx_bindings: vec![ctx_binding],
            syncing_closures: HashSet::new(),
            reg_parts: HashMap::new(),
            syncs: 0,
            decl_spans: HashMap::new(),
            findings: Vec::new(),
            reported: HashSet::new(),
            next_serial: 0,
            next_use: 0,
        }
    }

    pub(crate) fn into_findings(self) -> Vec<Finding> {
        self.findings
    }

    pub(crate) fn walk_program(&mut self, body: &Block) {
        self.walk_block(body);
    }

    // ---- names -------------------------------------------------------------------------------

    fn is_ctx(&self, expr: &Expr) -> bool {
        match strip(expr) {
            Expr::Path(path) => path.path.get_ident().is_some_and(|i| self.ctx_names.iter().any(|n| i == n)),
            _ => false,
        }
    }

    /// Declares every name bound by `pat`; with `origin`, those that borrow what they match
    /// are `hpmove` results (not those that copy it out, such as `t` in `Some((&t, _))`).
    fn declare_pat(&mut self, pat: &Pat, origin: Option<(Span, Validity)>) {
        let mut names = Vec::new();
        bound_names(pat, false, &mut names);
        for (ident, copied) in names {
            let name = ident.to_string();
            let binding = self.scopes.declare(&name);
            self.decl_spans.insert(binding, ident.span());
            if let (Some((op_span, validity)), false) = (origin, copied) {
                self.add_entry(binding, name, Place::default(), Op::HpMove, op_span, validity);
            }
        }
    }

    /// What a binding holds after `let name = init` or `name = init`: an `hpmove` result, or
    /// nothing tracked (a copy such as `*tag`, a method's result, ...).
    fn tracked_value(&mut self, init: &Expr) -> Vec<(Op, Span, Validity)> {
        match self.hpmove_origin(init) {
            Some((span, validity)) => vec![(Op::HpMove, span, validity)],
            None => Vec::new(),
        }
    }

    /// The binding `ident` now holds a new value, described by `tracked` (see
    /// [`Self::tracked_value`]).
    fn track(&mut self, ident: &Ident, tracked: Vec<(Op, Span, Validity)>) {
        let name = ident.to_string();
        let binding = self.scopes.lookup(&name);
        for (op, span, validity) in tracked {
            self.add_entry(binding, name.clone(), Place::default(), op, span, validity);
        }
    }

    /// The binding was given a new value, or lent out mutably (`mem::swap(&mut a, &mut b)`):
    /// what it held as an `hpmove` result or a registration's name is no longer known.
    fn end_tracking(&mut self, binding: BindingId) {
        self.state.entries.retain(|e| !(e.binding == binding && matches!(e.op, Op::HpMove | Op::LocalMut)));
        // A name of a registration given another value names something else now.
        self.reg_parts.remove(&binding);
    }

    /// A definite sync at `at`.
    pub(super) fn sync_at(&mut self, at: Span) {
        self.syncs += 1;
        self.state.sync(at);
    }

    /// A possible sync (see [`State::maybe_sync`]).
    pub(super) fn maybe_sync(&mut self) {
        self.syncs += 1;
        self.state.maybe_sync();
    }

    fn add_entry(&mut self, binding: BindingId, name: String, place: Place, op: Op, op_span: Span, v: Validity) {
        self.next_serial += 1;
        let serial = self.next_serial;
        self.state.entries.push(Entry { serial, binding, name, place, op, op_span, validity: v });
    }

    // ---- uses --------------------------------------------------------------------------------

    /// A use of the place `place` of the binding `name`; `destination` when the use is the
    /// destination of a new `get`/`hpget`.
    fn use_name(&mut self, name: &str, place: &Place, span: Span, access: Access, destination: Option<Op>) {
        let key = self.next_use;
        self.next_use += 1;
        if !self.state.reachable {
            return;
        }
        let binding = self.scopes.lookup(name);
        if self.syncing_closures.contains(&binding) {
            // Calling (or handing over) a closure whose body may sync.
            self.maybe_sync();
        }
        let entries: Vec<Entry> = self.state.entries.iter().filter(|e| e.binding == binding).cloned().collect();
        for entry in entries {
            let overlaps = entry.place.overlaps(place);
            let problem = match (entry.op, entry.validity) {
                (Op::Get | Op::HpGet | Op::Dest | Op::GetBatch, _) if overlaps => match destination {
                    Some(again) => {
                        let element = entry.place.0.iter().chain(&place.0).any(|p| p == "[]");
                        Problem::DestinationAgain { again, element }
                    }
                    None => Problem::PendingDestination(access),
                },
                (Op::HpPut, _) if overlaps && access == Access::Write => Problem::ModifiedSource,
                (Op::HpMove, Validity::Stale(_)) => Problem::StaleMessage,
                (Op::LocalMut, _) => Problem::RemoteNameAfterLocalMut,
                _ => continue,
            };
            self.report(key, &entry, problem, span);
        }
    }

    fn report(&mut self, key: usize, entry: &Entry, problem: Problem, span: Span) {
        let finding =
            Finding { problem, name: entry.name.clone(), use_span: span, op: entry.op, op_span: entry.op_span };
        self.push_finding(key, finding);
    }

    /// Records `finding` unless the use `key` was already reported (a loop is walked twice).
    fn push_finding(&mut self, key: usize, finding: Finding) {
        if self.reported.insert(key) {
            self.findings.push(finding);
        }
    }

    /// A use of a place expression (`left`, `pair.0`, `buf[i]`, `*r`): the index expressions
    /// are walked, then the place is used as a whole. Anything else is walked as an expression.
    fn walk_place(&mut self, expr: &Expr, access: Access, destination: Option<Op>) {
        self.walk_indices(expr);
        if let Some((ident, place)) = place_of(expr) {
            self.use_name(&ident.to_string(), &place, ident.span(), access, destination);
        }
    }

    /// The parts of a place expression that are expressions of their own: the indices, and a
    /// base that is not a place (`f().0`).
    fn walk_indices(&mut self, expr: &Expr) {
        match expr {
            Expr::Field(field) => self.walk_indices(&field.base),
            Expr::Index(index) => {
                self.walk_indices(&index.expr);
                self.visit_expr(&index.index);
            }
            Expr::Paren(paren) => self.walk_indices(&paren.expr),
            Expr::Group(group) => self.walk_indices(&group.expr),
            Expr::Reference(reference) => self.walk_indices(&reference.expr),
            Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Deref(_)) => self.walk_indices(&unary.expr),
            Expr::Path(_) => {}
            _ => self.visit_expr(expr),
        }
    }

    // ---- control flow ------------------------------------------------------------------------

    fn walk_branches(&mut self, before: &State, branches: impl Iterator<Item = State>) {
        let ends: Vec<State> = branches.collect();
        self.state = State::join(before, ends);
    }

    /// A condition: `let` patterns in it bind names for the then-branch (the caller's scope).
    fn walk_cond(&mut self, cond: &Expr) {
        match cond {
            Expr::Let(let_expr) => {
                self.visit_expr(&let_expr.expr);
                let origin = self.hpmove_origin(&let_expr.expr);
                self.declare_pat(&let_expr.pat, origin);
            }
            Expr::Binary(binary) if matches!(binary.op, syn::BinOp::And(_)) => {
                self.walk_cond(&binary.left);
                self.walk_cond(&binary.right);
            }
            _ => self.visit_expr(cond),
        }
    }

    fn walk_if(&mut self, node: &syn::ExprIf) {
        self.scopes.push();
        self.walk_cond(&node.cond);
        let after_cond = self.state.clone();
        self.walk_block(&node.then_branch);
        self.scopes.pop();
        let then_end = std::mem::replace(&mut self.state, after_cond.clone());
        if let Some((_, else_branch)) = &node.else_branch {
            self.visit_expr(else_branch);
        }
        let else_end = std::mem::take(&mut self.state);
        self.walk_branches(&after_cond, [then_end, else_end].into_iter());
    }

    fn walk_match(&mut self, node: &syn::ExprMatch) {
        self.visit_expr(&node.expr);
        let origin = self.hpmove_origin(&node.expr);
        let before = self.state.clone();
        let mut ends = Vec::new();
        for arm in &node.arms {
            self.state = before.clone();
            self.scopes.push();
            match &arm.pat {
                Pat::Guard(guarded) => {
                    self.declare_pat(&guarded.pat, origin);
                    self.visit_expr(&guarded.guard);
                }
                pat => self.declare_pat(pat, origin),
            }
            self.visit_expr(&arm.body);
            self.scopes.pop();
            ends.push(std::mem::take(&mut self.state));
        }
        self.walk_branches(&before, ends.into_iter());
    }

    /// One iteration: the condition or pattern, then the body, in a fresh scope.
    fn iteration(&mut self, pat: Option<&Pat>, cond: Option<&Expr>, body: &Block) {
        self.scopes.push();
        if let Some(cond) = cond {
            self.walk_cond(cond);
        }
        if let Some(pat) = pat {
            self.declare_pat(pat, None);
        }
        self.walk_block(body);
        self.scopes.pop();
    }

    fn walk_loop(&mut self, pat: Option<&Pat>, cond: Option<&Expr>, body: &Block) {
        let before = self.state.clone();
        let first_use = self.next_use;
        self.iteration(pat, cond, body);
        let after_uses = self.next_use;
        let first_end = self.state.clone();
        let mut ends = vec![before.clone(), first_end.clone()];
        if first_end.reachable {
            self.next_use = first_use;
            self.iteration(pat, cond, body);
            ends.push(std::mem::take(&mut self.state));
            self.next_use = after_uses;
        }
        self.walk_branches(&before, ends.into_iter());
    }

    /// A closure, walked where it is written (see [`Self::walk_detached`]). A parameter named
    /// like the context is a context handed in later, whose syncs are unknown. Returns whether
    /// the body may sync (then calling the closure may).
    fn walk_closure(&mut self, closure: &syn::ExprClosure) -> bool {
        let before = self.syncs;
        self.walk_detached(|this| {
            let mut fresh_ctx = false;
            for input in &closure.inputs {
                let mut names = Vec::new();
                bound_names(input, false, &mut names);
                fresh_ctx |= names.iter().any(|(ident, _)| this.ctx_names.iter().any(|n| *ident == n));
                this.declare_pat(input, None);
            }
            if fresh_ctx {
                this.state.maybe_sync();
            }
            this.visit_expr(&closure.body);
        });
        self.syncs > before
    }

    /// Code that runs later or elsewhere (closures, async blocks): walked here with a copy of the
    /// state, whose changes are dropped.
    fn walk_detached(&mut self, f: impl FnOnce(&mut Self)) {
        let saved = self.state.clone();
        self.scopes.push();
        f(self);
        self.scopes.pop();
        self.state = saved;
    }

    // ---- arguments (the operations on the context are in `ops.rs`) ---------------------------

    fn walk_arg(&mut self, arg: &Expr) {
        match arg {
            Expr::Reference(reference) if reference.mutability.is_some() => self.walk_mut_borrow(&reference.expr),
            _ => self.visit_expr(arg),
        }
    }

    /// `&mut place`: a write, after which the binding may hold anything.
    fn walk_mut_borrow(&mut self, place: &Expr) {
        self.walk_place(place, Access::Write, None);
        if let Some((ident, _)) = place_of(place) {
            let binding = self.scopes.lookup(&ident.to_string());
            self.end_tracking(binding);
        }
    }

    fn walk_args<'a>(&mut self, args: impl Iterator<Item = &'a Expr>) {
        for arg in args {
            self.walk_arg(arg);
        }
    }

    /// `ctx`, `&mut *ctx`, `&mut ctx`: the context itself, which the callee could sync. (`&*ctx`
    /// and `&ctx` lend it shared: no sync through them. A closure that may sync is a possible
    /// sync where it is written, see `visit_expr`.)
    fn is_ctx_handle(&self, expr: &Expr) -> bool {
        match strip_parens(expr) {
            Expr::Reference(reference) if reference.mutability.is_none() => false,
            expr => self.is_ctx(expr),
        }
    }

    // ---- macros ------------------------------------------------------------------------------

    fn walk_macro(&mut self, mac: &syn::Macro) {
        match macro_args::classify(mac) {
            MacroKind::Superstep => match mac.parse_body::<SuperstepInput>() {
                Ok(input) => {
                    let start = mac.path.segments.last().map_or(mac.bang_token.span, |s| s.ident.span());
                    self.walk_superstep(&input.ctx, &input.block, start);
                }
                // `superstep!` reports its own syntax errors.
                Err(_) => self.maybe_sync(),
            },
            MacroKind::Args { format, diverges } => {
                if let Some(args) = macro_args::comma_args(mac) {
                    self.walk_macro_args(&args, format);
                }
                if diverges {
                    self.state.reachable = false;
                }
            }
            MacroKind::Vec => {
                if let Some(args) = macro_args::vec_args(mac) {
                    self.walk_macro_args(&args, None);
                }
            }
            MacroKind::Matches => {
                if let Some(expr) = macro_args::first_arg(mac) {
                    self.visit_expr(&expr);
                }
            }
            MacroKind::Opaque => {
                if mentions(mac.tokens.clone(), &self.ctx_names) {
                    self.maybe_sync();
                }
            }
        }
    }

    /// The arguments of a standard macro; `format` is the position of its format string, if it
    /// has one: only that argument is read as a format string, and only the arguments after it
    /// can be named (`name = value`).
    fn walk_macro_args(&mut self, args: &[Expr], format: Option<usize>) {
        let named = |arg: &Expr| match arg {
            Expr::Assign(assign) => match &*assign.left {
                Expr::Path(path) => path.path.get_ident().map(ToString::to_string),
                _ => None,
            },
            _ => None,
        };
        let names: Vec<String> = match format {
            Some(at) => args.iter().skip(at + 1).filter_map(named).collect(),
            None => Vec::new(),
        };
        for (i, arg) in args.iter().enumerate() {
            let after_format = format.is_some_and(|at| i > at);
            match arg {
                // `name = value` after the format string: only `value` is a use.
                Expr::Assign(assign) if after_format && named(arg).is_some() => self.visit_expr(&assign.right),
                Expr::Lit(syn::ExprLit { lit: Lit::Str(lit), .. }) if format == Some(i) => {
                    for name in macro_args::inline_captures(&lit.value()) {
                        if !names.contains(&name) {
                            self.use_name(&name, &Place::default(), lit.span(), Access::Read, None);
                        }
                    }
                }
                _ => self.visit_expr(arg),
            }
        }
    }
}

impl<'ast> Visit<'ast> for Walker {
    fn visit_block(&mut self, block: &'ast Block) {
        self.walk_block(block);
    }

    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        match stmt {
            Stmt::Local(local) => {
                let init = local.init.as_ref().map(|init| &*init.expr);
                let single = single_ident(&local.pat);
                let mut syncing_closure = false;
                match init.map(strip_parens) {
                    // `let f = || ctx.sync();`: calling `f` may sync.
                    Some(Expr::Closure(closure)) if single.is_some() => syncing_closure = self.walk_closure(closure),
                    Some(init) => self.visit_expr(init),
                    None => {}
                }
                if let Some((_, diverge)) = local.init.as_ref().and_then(|init| init.diverge.as_ref()) {
                    self.walk_detached(|this| this.visit_expr(diverge));
                }
                match (single, init) {
                    (Some(ident), Some(init)) => {
                        let tracked = self.tracked_value(init);
                        self.declare_pat(&local.pat, None);
                        self.track(ident, tracked);
                        if syncing_closure {
                            let binding = self.scopes.lookup(&ident.to_string());
                            self.syncing_closures.insert(binding);
                        }
                        if let Some((reg, remote, span)) = ops::reg_part(init) {
                            let binding = self.scopes.lookup(&ident.to_string());
                            self.reg_parts.insert(binding, (reg.to_string(), remote, span));
                        }
                    }
                    _ => {
                        let origin = init.and_then(|init| self.hpmove_origin(init));
                        self.declare_pat(&local.pat, origin);
                    }
                }
            }
            Stmt::Item(_) => {}
            Stmt::Expr(expr, _) => self.visit_expr(expr),
            Stmt::Macro(stmt) => self.walk_macro(&stmt.mac),
        }
    }

    fn visit_expr(&mut self, expr: &'ast Expr) {
        match expr {
            Expr::Path(_) | Expr::Field(_) | Expr::Index(_) => self.walk_place(expr, Access::Read, None),
            Expr::Assign(assign) => {
                self.visit_expr(&assign.right);
                // A leak is reported once, not again at each later use of `name`.
                let leaks = self.check_leak_by_assignment(&assign.left, &assign.right);
                match strip_parens(&assign.left) {
                    // `name = value`: what `name` held before is gone (not a use of it).
                    Expr::Path(path) if path.path.get_ident().is_some() => {
                        let ident = path.path.get_ident().cloned();
                        let tracked = if leaks { Vec::new() } else { self.tracked_value(&assign.right) };
                        if let Some(ident) = ident {
                            let binding = self.scopes.lookup(&ident.to_string());
                            self.end_tracking(binding);
                            self.walk_place(&assign.left, Access::Write, None);
                            self.track(&ident, tracked);
                        }
                    }
                    _ => self.walk_place(&assign.left, Access::Write, None),
                }
            }
            Expr::Binary(binary) if is_compound_assign(&binary.op) => {
                self.visit_expr(&binary.right);
                self.walk_place(&binary.left, Access::Write, None);
            }
            Expr::Reference(reference) if reference.mutability.is_some() => self.walk_mut_borrow(&reference.expr),
            Expr::MethodCall(call) => self.walk_method_call(call),
            Expr::Call(call) => {
                self.visit_expr(&call.func);
                self.walk_args(call.args.iter());
                if is_process_exit(&call.func) {
                    self.state.reachable = false;
                } else if call.args.iter().any(|a| self.is_ctx_handle(a)) {
                    self.maybe_sync();
                }
            }
            Expr::Macro(mac) => self.walk_macro(&mac.mac),
            Expr::Closure(closure) => {
                // Not bound to a name: if it may sync, it may be called anywhere from here on.
                if self.walk_closure(closure) {
                    self.maybe_sync();
                }
            }
            Expr::Async(block) => self.walk_detached(|this| this.walk_block(&block.block)),
            Expr::If(node) => self.walk_if(node),
            Expr::Match(node) => self.walk_match(node),
            Expr::ForLoop(node) => {
                self.visit_expr(&node.expr);
                self.walk_loop(Some(&node.pat), None, &node.body);
            }
            Expr::While(node) => self.walk_loop(None, Some(&node.cond), &node.body),
            Expr::Loop(node) => self.walk_loop(None, None, &node.body),
            Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => {
                visit::visit_expr(self, expr);
                self.state.reachable = false;
            }
            _ => visit::visit_expr(self, expr),
        }
    }

    // Items cannot capture locals; types and patterns hold no uses.
    fn visit_item(&mut self, _: &'ast syn::Item) {}
    fn visit_type(&mut self, _: &'ast syn::Type) {}
    fn visit_pat(&mut self, _: &'ast Pat) {}
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.walk_macro(mac);
    }
}

impl Walker {
    fn walk_block(&mut self, block: &Block) {
        self.scopes.push();
        for stmt in &block.stmts {
            self.visit_stmt(stmt);
        }
        self.scopes.pop();
    }
}
