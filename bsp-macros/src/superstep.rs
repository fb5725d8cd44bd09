//! `superstep!(ctx, { body })`: the checks that only concern the block itself (no
//! `return`, `?`, or `break`/`continue` leaving it, each replaced by its error), and the lowering
//! to `Ctx::superstep`. (The parsed invocation, `SuperstepInput`, is in `input.rs`, which the
//! analysis reads too.)
//!
//! ```text
//! superstep!(ctx, { body })   ==>   ctx.superstep(|ctx| { body })
//! ```
//!
//! The inner `ctx` is the `&Superstep` of the runtime, which derefs to `Ctx` and adds `get`,
//! `hpget` and `hpput`; the call ends the superstep with a sync when the block is done.

use crate::analysis;
use crate::ctxt::Ctxt;
use crate::input::SuperstepInput;
use proc_macro2::Span;
use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned as _;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr};

/// The lowering: `ctx.superstep(|ctx| { body })`.
pub(crate) fn lower(input: &SuperstepInput) -> Expr {
    let SuperstepInput { ctx, block } = input;
    syn::parse_quote_spanned!(ctx.span()=> #ctx.superstep(|#ctx| #block))
}

/// The entry point of `superstep!` used on its own (inside `#[bsp::program]` the attribute has
/// already lowered the invocation and checked it with the whole function).
///
/// The errors of the analysis go first in a block around the lowered call, so that rustc skips
/// borrow-checking the enclosing function and reports each mistake once (see `program.rs`).
pub(crate) fn expand(tokens: TokenStream) -> TokenStream {
    let mut input: SuperstepInput = match syn::parse2(tokens) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let mut cx = Ctxt::new();
    analysis::check_superstep(&input, &mut cx);
    replace_escapes(&mut input.block);
    analysis::guard_moved_destinations(&mut input.block, &quote!(::bsp::__private));
    let lowered = lower(&input);
    if cx.is_empty() {
        return quote!(#lowered);
    }
    let errors = cx.into_compile_errors();
    quote!({ #errors #lowered })
}

/// Replaces every `return`, `?`, and `break`/`continue` that would leave the block by a
/// `compile_error!` in its place: inside the closure they could only leave the closure, which is
/// not what they say. Replacing them (instead of reporting them beside the code) keeps rustc from
/// reporting the same mistake a second time (`break` inside of a closure, `?` in a closure that
/// returns `()`); an expression they applied to stays, as `{ let _ = expr; compile_error!(..) }`,
/// so it is still type-checked.
pub(crate) fn replace_escapes(block: &mut Block) {
    EscapeReplacer { loop_depth: 0, labels: Vec::new() }.visit_block_mut(block);
}

struct EscapeReplacer {
    loop_depth: usize,
    labels: Vec<String>,
}

impl EscapeReplacer {
    fn in_loop(&mut self, label: Option<&syn::Label>, f: impl FnOnce(&mut Self)) {
        self.loop_depth += 1;
        self.labels.extend(label.map(|l| l.name.ident.to_string()));
        f(self);
        if label.is_some() {
            self.labels.pop();
        }
        self.loop_depth -= 1;
    }

    fn leaves(&self, label: Option<&syn::Lifetime>) -> bool {
        match label {
            Some(label) => !self.labels.contains(&label.ident.to_string()),
            None => self.loop_depth == 0,
        }
    }

    /// The message for an escape, or `None` if `expr` stays inside the block.
    fn escape(&self, expr: &Expr) -> Option<(Span, String)> {
        let jump = |keyword: &str| {
            format!(
                "`{keyword}` cannot leave a `superstep!` block: the block is the body of a closure\n\
                 = help: set a flag in the block and `{keyword}` after the `superstep!`, \
                 e.g. `let done = superstep!(ctx, {{ ...; done }}); if done {{ {keyword} }}`"
            )
        };
        match expr {
            Expr::Return(node) => Some((
                node.return_token.span,
                "`return` cannot leave the function from inside `superstep!`: the block is the body \
                 of a closure, so it would only end the superstep early\n\
                 = help: make the value the block's last expression (`superstep!` evaluates to it) \
                 and `return` after the `superstep!`"
                    .to_owned(),
            )),
            Expr::Try(node) => Some((
                node.question_token.span,
                "`?` cannot return from the function from inside `superstep!`: the block is the \
                 body of a closure\n\
                 = help: end the block with `Ok(..)` and apply `?` to the whole `superstep!`: \
                 `superstep!(ctx, { ...; Ok(()) })?`"
                    .to_owned(),
            )),
            Expr::Break(node) if self.leaves(node.label.as_ref()) => Some((node.span(), jump("break"))),
            Expr::Continue(node) if self.leaves(node.label.as_ref()) => Some((node.span(), jump("continue"))),
            _ => None,
        }
    }
}

impl VisitMut for EscapeReplacer {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::ForLoop(node) => {
                self.visit_expr_mut(&mut node.expr);
                let label = node.label.clone();
                self.in_loop(label.as_ref(), |this| this.visit_block_mut(&mut node.body));
                return;
            }
            Expr::While(node) => {
                let label = node.label.clone();
                self.in_loop(label.as_ref(), |this| {
                    this.visit_expr_mut(&mut node.cond);
                    this.visit_block_mut(&mut node.body);
                });
                return;
            }
            Expr::Loop(node) => {
                let label = node.label.clone();
                self.in_loop(label.as_ref(), |this| this.visit_block_mut(&mut node.body));
                return;
            }
            Expr::Block(node) => {
                // A labeled block is a `break` target (not a `continue` one; rustc says so).
                self.labels.extend(node.label.as_ref().map(|l| l.name.ident.to_string()));
                self.visit_block_mut(&mut node.block);
                if node.label.is_some() {
                    self.labels.pop();
                }
                return;
            }
            // Closures, async blocks and items have their own `return` and loops.
            Expr::Closure(_) | Expr::Async(_) => return,
            _ => {}
        }
        visit_mut::visit_expr_mut(self, expr);
        if let Some((span, message)) = self.escape(expr) {
            let error = syn::Error::new(span, message).to_compile_error();
            let operand = match &*expr {
                Expr::Return(node) => node.expr.as_deref(),
                Expr::Break(node) => node.expr.as_deref(),
                Expr::Try(node) => Some(&*node.expr),
                _ => None,
            };
            let replacement = match operand {
                Some(operand) => quote!({ let _ = #operand; #error }),
                None => error,
            };
            *expr = syn::parse2(replacement.clone()).unwrap_or(Expr::Verbatim(replacement));
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
