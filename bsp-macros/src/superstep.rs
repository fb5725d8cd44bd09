//! `superstep!(ctx, { body })`: parsing, the checks that only concern the block itself (no
//! `return`, `?`, or `break`/`continue` leaving it), and the lowering to `Ctx::superstep`.
//!
//! ```text
//! superstep!(ctx, { body })   ==>   ctx.superstep(|ctx| { body })
//! ```
//!
//! The inner `ctx` is the `&Superstep` of the runtime, which derefs to `Ctx` and adds `get`,
//! `hpget` and `hpput`; the call ends the superstep with a sync when the block is done.

use crate::analysis;
use crate::ctxt::Ctxt;
use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned as _;
use syn::visit::{self, Visit};
use syn::{token, Block, Expr, Ident, Token};

/// The arguments of `superstep!`: the context, a comma and the block.
#[derive(Debug)]
pub(crate) struct SuperstepInput {
    pub(crate) ctx: Ident,
    pub(crate) block: Block,
}

const SHAPE: &str = "write `superstep!(ctx, { ... })`: the context, a comma, then the superstep's \
                     statements in braces";

impl Parse for SuperstepInput {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        if !input.peek(Ident) {
            return Err(input.error(format_args!(
                "expected the context (a name such as `ctx`) as the first argument of \
                 `superstep!`; {SHAPE}"
            )));
        }
        let ctx: Ident = input.parse()?;
        if !input.peek(Token![,]) {
            return Err(input.error(format_args!("expected `,` after the context `{ctx}`; {SHAPE}")));
        }
        input.parse::<Token![,]>()?;
        if !input.peek(token::Brace) {
            return Err(input.error(format_args!("expected the superstep's body in braces; {SHAPE}")));
        }
        let block: Block = input.parse()?;
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
        }
        if !input.is_empty() {
            return Err(input.error(format_args!("unexpected tokens after the superstep's body; {SHAPE}")));
        }
        Ok(SuperstepInput { ctx, block })
    }
}

/// The lowering: `ctx.superstep(|ctx| { body })`.
pub(crate) fn lower(input: &SuperstepInput) -> Expr {
    let SuperstepInput { ctx, block } = input;
    syn::parse_quote!(#ctx.superstep(|#ctx| #block))
}

/// The entry point of `superstep!` used on its own (inside `#[bsp::program]` the attribute has
/// already lowered the invocation and checked it with the whole function).
pub(crate) fn expand(tokens: TokenStream) -> TokenStream {
    let input: SuperstepInput = match syn::parse2(tokens) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let mut cx = Ctxt::new();
    check_escapes(&input.block, &mut cx);
    analysis::check_superstep(&input, &mut cx);
    let lowered = lower(&input);
    if cx.is_empty() {
        return quote!(#lowered);
    }
    let errors = cx.into_compile_errors();
    quote!({ #errors #lowered })
}

/// Reports `return`, `?`, and `break`/`continue` that would leave the block: inside the closure
/// they could only leave the closure, which is not what they say.
pub(crate) fn check_escapes(block: &Block, cx: &mut Ctxt) {
    let mut checker = EscapeChecker { cx, loop_depth: 0, labels: Vec::new() };
    checker.visit_block(block);
}

struct EscapeChecker<'a> {
    cx: &'a mut Ctxt,
    loop_depth: usize,
    labels: Vec<String>,
}

impl EscapeChecker<'_> {
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

    fn jump_error(&mut self, span: proc_macro2::Span, keyword: &str) {
        self.cx.error(
            span,
            format_args!(
                "`{keyword}` cannot leave a `superstep!` block: the block is the body of a closure\n\
                 = help: set a flag in the block and `{keyword}` after the `superstep!`, \
                 e.g. `let done = superstep!(ctx, {{ ...; done }}); if done {{ {keyword} }}`"
            ),
        );
    }
}

impl<'ast> Visit<'ast> for EscapeChecker<'_> {
    fn visit_expr_return(&mut self, node: &'ast syn::ExprReturn) {
        self.cx.error(
            node.return_token.span,
            "`return` cannot leave the function from inside `superstep!`: the block is the body \
             of a closure, so it would only end the superstep early\n\
             = help: make the value the block's last expression (`superstep!` evaluates to it) \
             and `return` after the `superstep!`",
        );
        visit::visit_expr_return(self, node);
    }

    fn visit_expr_try(&mut self, node: &'ast syn::ExprTry) {
        self.cx.error(
            node.question_token.span,
            "`?` cannot return from the function from inside `superstep!`: the block is the body \
             of a closure\n\
             = help: end the block with `Ok(..)` and apply `?` to the whole `superstep!`: \
             `superstep!(ctx, { ...; Ok(()) })?`",
        );
        visit::visit_expr_try(self, node);
    }

    fn visit_expr_break(&mut self, node: &'ast syn::ExprBreak) {
        if self.leaves(node.label.as_ref()) {
            self.jump_error(node.span(), "break");
        }
        visit::visit_expr_break(self, node);
    }

    fn visit_expr_continue(&mut self, node: &'ast syn::ExprContinue) {
        if self.leaves(node.label.as_ref()) {
            self.jump_error(node.span(), "continue");
        }
        visit::visit_expr_continue(self, node);
    }

    fn visit_expr_for_loop(&mut self, node: &'ast syn::ExprForLoop) {
        self.visit_expr(&node.expr);
        self.in_loop(node.label.as_ref(), |this| this.visit_block(&node.body));
    }

    fn visit_expr_while(&mut self, node: &'ast syn::ExprWhile) {
        self.in_loop(node.label.as_ref(), |this| {
            this.visit_expr(&node.cond);
            this.visit_block(&node.body);
        });
    }

    fn visit_expr_loop(&mut self, node: &'ast syn::ExprLoop) {
        self.in_loop(node.label.as_ref(), |this| this.visit_block(&node.body));
    }

    fn visit_expr_block(&mut self, node: &'ast syn::ExprBlock) {
        // A labeled block is a `break` target (but not a `continue` one; rustc says so itself).
        self.labels.extend(node.label.as_ref().map(|l| l.name.ident.to_string()));
        self.visit_block(&node.block);
        if node.label.is_some() {
            self.labels.pop();
        }
    }

    // Closures, async blocks and items have their own `return` and loops.
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
