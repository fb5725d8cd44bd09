//! The run-time checks of alignment that the lowering inserts where the analysis cannot decide
//! (`analysis::RunTimeCheck`): a condition on messages, a `get` or other data whose branches make
//! different numbers of sync points. Each branch that syncs on all its paths starts with a
//! promise of its index, made with the runtime's `ctx.same(..)` at the condition's place:
//!
//! ```text
//! while left != want {                 while left != want {
//!     superstep!(ctx, { .. });   ==>       ctx.same(1u32);   // spanned at `left != want`
//! }                                        superstep!(ctx, { .. });
//!                                      }
//! ```
//!
//! An `if` promises 1 in its `if` branch and 0 in its `else`, a `match` the index of its arm, a
//! loop 1 at the start of each iteration. At the sync that the branch makes, debug builds
//! compare the promises of every process: if one took another branch (another promise, or none,
//! having left the loop), the run fails there, naming the condition's place. Processes that
//! agree promise alike, and a promise is always followed by a sync, so an aligned program is
//! never stopped. Release builds check nothing (as `ctx.same`).

use crate::analysis::{key_of, RunTimeCheck};
use proc_macro2::Span;
use quote::quote_spanned;
use syn::spanned::Spanned as _;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Ident, Item, Stmt};

/// Inserts the promises of `checks` into `body`.
pub(crate) fn insert(body: &mut Block, checks: &[RunTimeCheck]) {
    if !checks.is_empty() {
        Insert { checks }.visit_block_mut(body);
    }
}

struct Insert<'a> {
    checks: &'a [RunTimeCheck],
}

impl Insert<'_> {
    /// The check of the condition `cond`, if it has one.
    fn find(&self, cond: &Expr) -> Option<&RunTimeCheck> {
        let key = key_of(cond);
        self.checks.iter().find(|c| c.key == key)
    }
}

/// `ctx.same(arm);`, spanned at the condition: the runtime names that place if processes differ.
fn promise(check: &RunTimeCheck, arm: usize, at: Span) -> Stmt {
    let ctx = Ident::new(&check.ctx, Span::call_site());
    let arm = u32::try_from(arm).unwrap_or(u32::MAX);
    syn::parse_quote_spanned!(at=> #ctx.same(#arm);)
}

fn prepend(block: &mut Block, stmt: Stmt) {
    block.stmts.insert(0, stmt);
}

/// `{ promise; expr }`
fn wrapped(expr: &Expr, stmt: Stmt, at: Span) -> Expr {
    let tokens = quote_spanned!(at=> { #stmt #expr });
    syn::parse2(tokens.clone()).unwrap_or(Expr::Verbatim(tokens))
}

impl VisitMut for Insert<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        // The condition is found as the analysis saw it, before anything inside changes.
        self.promise_in_branches(expr);
        visit_mut::visit_expr_mut(self, expr);
    }

    // Nested items are not part of the program.
    fn visit_item_mut(&mut self, _: &mut Item) {}
}

impl Insert<'_> {
    fn promise_in_branches(&mut self, expr: &mut Expr) {
        match expr {
            Expr::If(node) => {
                let Some(check) = self.find(&node.cond).cloned() else {
                    return;
                };
                let at = node.cond.span();
                if check.arms.first() == Some(&true) {
                    prepend(&mut node.then_branch, promise(&check, 1, at));
                }
                if let (Some(true), Some((_, other))) = (check.arms.get(1), node.else_branch.as_mut()) {
                    **other = wrapped(other, promise(&check, 0, at), at);
                }
            }
            Expr::Match(node) => {
                let Some(check) = self.find(&node.expr).cloned() else {
                    return;
                };
                let at = node.expr.span();
                for (i, arm) in node.arms.iter_mut().enumerate() {
                    if check.arms.get(i) == Some(&true) {
                        *arm.body = wrapped(&arm.body, promise(&check, i, at), at);
                        arm.comma.get_or_insert_with(Default::default);
                    }
                }
            }
            Expr::While(node) => {
                if let Some(check) = self.find(&node.cond) {
                    let at = node.cond.span();
                    prepend(&mut node.body, promise(check, 1, at));
                }
            }
            Expr::ForLoop(node) => {
                if let Some(check) = self.find(&node.expr) {
                    let at = node.expr.span();
                    prepend(&mut node.body, promise(check, 1, at));
                }
            }
            _ => {}
        }
    }
}
