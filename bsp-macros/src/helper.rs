//! `#[bsp::superstep_fn]`: a helper function given the context, checked as a program's body is,
//! and counted.
//!
//! ```text
//! #[bsp::superstep_fn]                  fn exchange(ctx: &mut Ctx, x: &Reg<u64>) -> u64 {
//! fn exchange(ctx: &mut Ctx,      ==>       ctx.same(1u32);  // every path syncs: a promise
//!             x: &Reg<u64>) -> u64 {        <body, supersteps lowered, checks inserted>
//!     body                              }
//! }
//! ```
//!
//! The body gets the checks of `#[bsp::program]` (pending communication, alignment inside the
//! helper, the run-time checks where the alignment check cannot decide). A caller's walk cannot
//! read the helper, so a call stays a call whose count it does not know; instead, a helper that
//! makes a sync point on every path starts with a promise (`ctx.same(1u32)`, spanned at its
//! name): where only some processes call it (`if ctx.pid() == 0 { exchange(ctx, &x); }`),
//! debug builds find it at the helper's first sync, naming the helper. Processes that all call
//! it promise alike, and a sync follows the promise on every path.

use crate::analysis;
use crate::ctxt::Ctxt;
use crate::program::{check_and_lower, is_ctx_type};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::{FnArg, Item, Pat, Stmt};

pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::new();
    if !args.is_empty() {
        cx.error_spanned_by(&args, "`#[bsp::superstep_fn]` takes no arguments");
    }
    let mut function = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Fn(function)) => function,
        Ok(other) => {
            cx.error_spanned_by(other, HELP);
            return with_errors(cx, item);
        }
        Err(error) => {
            cx.syn_error(error);
            return with_errors(cx, item);
        }
    };
    let ctx = match function.sig.inputs.first() {
        Some(FnArg::Typed(typed)) if is_ctx_type(&typed.ty) => match &*typed.pat {
            Pat::Ident(ident) if ident.subpat.is_none() && ident.by_ref.is_none() => Some(ident.ident.clone()),
            _ => None,
        },
        _ => None,
    };
    let Some(ctx) = ctx else {
        cx.error(function.sig.ident.span(), HELP);
        return with_errors(cx, quote!(#function));
    };
    let count = analysis::helper_count(&function.block, &ctx);
    check_and_lower(&mut function.block, &ctx, None, &syn::parse_quote!(::bsp), &mut cx);
    let errors = cx.into_compile_errors();
    let promise = (count.min >= 1).then(|| {
        let at = function.sig.ident.span();
        quote_spanned!(at=> #ctx.same(1u32);)
    });
    // The errors go first in the body, which makes rustc skip borrow-checking it (as in a
    // program: each mistake is reported once, by the macro); then the promise.
    let first = [errors, promise.unwrap_or_default()].into_iter().filter(|t| !t.is_empty());
    let first: Vec<Stmt> = first.map(|tokens| Stmt::Item(Item::Verbatim(tokens))).collect();
    function.block.stmts.splice(0..0, first);
    quote!(#function)
}

const HELP: &str = "`#[bsp::superstep_fn]` goes on a helper function whose first parameter is the \
                    process context: `fn step(ctx: &mut bsp::Ctx, ..)`";

fn with_errors(cx: Ctxt, code: TokenStream) -> TokenStream {
    let mut errors = cx.into_compile_errors();
    errors.extend(code);
    errors
}
