//! What a superstep does to the walk: its scope (the block, or the body of a closure given to
//! `ctx.superstep`), the sync at its end, what cannot happen inside it (a sync, another
//! superstep: only the end of the block ends it) and what cannot leave it (an `hpmove` result,
//! which borrows the superstep).

use super::Walker;
use crate::analysis::state::{Op, Validity};
use crate::analysis::syntax::{root_ident, single_ident, strip_borrows, strip_parens};
use crate::analysis::{Finding, Problem};
use proc_macro2::Span;
use syn::visit::Visit as _;
use syn::{Block, Expr, Ident, Stmt};

impl Walker {
    /// One superstep: the block with `ctx` as a context name, then the sync that ends it (both
    /// spanned at `span`, the start of the superstep).
    pub(crate) fn walk_superstep(&mut self, ctx: &Ident, block: &Block, span: Span) {
        self.check_not_in_superstep(ctx, span, Problem::NestedSuperstep);
        self.enter_superstep(ctx, span);
        self.scopes.push();
        for stmt in &block.stmts {
            self.visit_stmt(stmt);
        }
        if let Some(Stmt::Expr(tail, None)) = block.stmts.last() {
            let _ = self.check_leak(tail);
        }
        self.scopes.pop();
        self.leave_superstep();
        self.sync_at(span);
    }

    /// Opens the scope of a superstep whose context is `ctx`.
    pub(super) fn enter_superstep(&mut self, ctx: &Ident, span: Span) {
        self.scopes.push();
        let binding = self.scopes.declare(&ctx.to_string());
        self.ctx_bindings.push(binding);
        self.ctx_names.push(ctx.to_string());
        self.superstep_depths.push((self.scopes.depth(), span));
    }

    pub(super) fn leave_superstep(&mut self) {
        self.superstep_depths.pop();
        self.ctx_names.pop();
        self.ctx_bindings.pop();
        self.scopes.pop();
    }

    /// `ctx.sync()`, `ctx.superstep(..)` or `superstep!(ctx, ..)` at `span`: reported as
    /// `problem` if `ctx` is the context (the program's or a superstep's) and a superstep is in
    /// progress, which only its end can end.
    pub(super) fn check_not_in_superstep(&mut self, ctx: &Ident, span: Span, problem: Problem) {
        let key = self.next_use;
        self.next_use += 1;
        let Some(&(_, start)) = self.superstep_depths.last() else {
            return;
        };
        // Reported in unreachable code too: the call is wrong wherever it is, and the lowering
        // (`program.rs`) takes it out of rustc's sight.
        let binding = self.scopes.lookup(&ctx.to_string());
        if !self.ctx_bindings.contains(&binding) {
            return;
        }
        let finding = Finding { problem, name: ctx.to_string(), use_span: span, op: Op::Superstep, op_span: start };
        self.push_finding(key, finding);
    }

    /// The `hpmove` result that the value of `expr` holds, if it is a live one: directly, or
    /// as a part of a tuple, an array, `Some(..)`, `Ok(..)`, `Err(..)` or a struct. Returns its
    /// name (empty for an `hpmove` call itself), where it is used and where it comes from.
    fn live_message_in(&mut self, expr: &Expr) -> Option<(String, Span, Span)> {
        let parts: Vec<&Expr> = match strip_parens(expr) {
            Expr::Tuple(tuple) => tuple.elems.iter().collect(),
            Expr::Array(array) => array.elems.iter().collect(),
            Expr::Struct(strukt) => strukt.fields.iter().map(|f| &f.expr).collect(),
            Expr::Call(call) if is_wrapper(&call.func) => call.args.iter().collect(),
            expr => {
                let (op_span, validity) = self.hpmove_origin(expr)?;
                if !matches!(validity, Validity::Live) {
                    return None;
                }
                return Some(match strip_borrows(expr) {
                    Expr::Path(path) => {
                        let ident = path.path.get_ident()?;
                        (ident.to_string(), ident.span(), op_span)
                    }
                    _ => (String::new(), op_span, op_span),
                });
            }
        };
        parts.into_iter().find_map(|part| self.live_message_in(part))
    }

    /// The value of a superstep's block (`tail`) must not be an `hpmove` result of the superstep.
    /// Returns whether it was reported.
    pub(super) fn check_leak(&mut self, tail: &Expr) -> bool {
        let key = self.next_use;
        self.next_use += 1;
        if !self.state.reachable {
            return false;
        }
        let Some((name, use_span, op_span)) = self.live_message_in(tail) else {
            return false;
        };
        let finding = Finding { problem: Problem::MessageLeavesSuperstep, name, use_span, op: Op::HpMove, op_span };
        self.push_finding(key, finding);
        true
    }

    /// `outer = value` inside a superstep, where `outer` is declared before it: `value` must not
    /// be an `hpmove` result of the superstep. Returns whether it was reported.
    pub(super) fn check_leak_by_assignment(&mut self, left: &Expr, right: &Expr) -> bool {
        let Some(&(depth, _)) = self.superstep_depths.last() else {
            return false;
        };
        let Some(root) = root_ident(left) else {
            return false;
        };
        if self.scopes.depth_of(&root.to_string()).is_some_and(|d| d >= depth) {
            return false;
        }
        self.check_leak(right)
    }

    pub(super) fn walk_superstep_closure(&mut self, closure: &syn::ExprClosure, end: Span) {
        let Some(ident) = closure.inputs.first().and_then(single_ident) else {
            self.maybe_sync();
            return;
        };
        self.walk_superstep_body(ident, closure, end);
        self.sync_at(end);
    }

    /// `ctx.superstep_then(|s| .., |c| ..)`: the first closure's body is a superstep, which the
    /// second closure's first sync ends (or a sync after it). Both run once, here, in order: a
    /// use of a destination in the second closure comes before that sync.
    pub(super) fn walk_superstep_then(&mut self, first: &syn::ExprClosure, then: &syn::ExprClosure, end: Span) {
        let Some(ident) = first.inputs.first().and_then(single_ident) else {
            self.maybe_sync();
            return;
        };
        self.walk_superstep_body(ident, first, end);
        self.scopes.push();
        let names: Vec<String> = then.inputs.iter().filter_map(single_ident).map(ToString::to_string).collect();
        for input in &then.inputs {
            self.declare_pat(input, None);
        }
        let count = names.len();
        self.ctx_names.extend(names);
        self.visit_expr(&then.body);
        self.ctx_names.truncate(self.ctx_names.len() - count);
        self.scopes.pop();
        self.sync_at(end);
    }

    /// The body of a superstep closure whose context is `ident`, up to (not including) its sync.
    fn walk_superstep_body(&mut self, ident: &syn::Ident, closure: &syn::ExprClosure, end: Span) {
        self.enter_superstep(ident, end);
        match strip_parens(&closure.body) {
            Expr::Block(block) if block.label.is_none() => {
                self.scopes.push();
                for stmt in &block.block.stmts {
                    self.visit_stmt(stmt);
                }
                if let Some(syn::Stmt::Expr(tail, None)) = block.block.stmts.last() {
                    let _ = self.check_leak(tail);
                }
                self.scopes.pop();
            }
            body => {
                self.visit_expr(body);
                let _ = self.check_leak(body);
            }
        }
        self.leave_superstep();
    }
}

/// `Some`, `Ok`, `Err`: constructors whose value holds their argument.
fn is_wrapper(func: &Expr) -> bool {
    matches!(strip_parens(func), Expr::Path(path)
        if path.path.get_ident().is_some_and(|i| i == "Some" || i == "Ok" || i == "Err"))
}
