//! `#[bsp::program]`: validation of the function and its lowering onto the runtime's launcher.
//!
//! ```text
//! #[bsp::program(procs = 4)]            fn main() {
//! fn main(ctx: &mut bsp::Ctx) {   ==>       let __bsp_result = ::bsp::__private::Launch::new()
//!     body                                      .procs(4)
//! }                                             .run(|ctx: &mut bsp::Ctx| { body });
//!                                           ::bsp::__private::exit_on_error(__bsp_result);
//!                                       }
//!
//! #[bsp::program]                       fn name(a: A) -> ::core::result::Result<
//! fn name(ctx: &mut Ctx, a: A) -> R {       ::std::vec::Vec<R>, ::bsp::__private::Error> {
//!     body                          ==>     ::bsp::__private::Launch::new()
//! }                                             .run(|ctx: &mut Ctx| -> R { body })
//!                                       }
//! ```
//!
//! The closure's parameter keeps the type the user wrote (so a `use bsp::Ctx;` stays used and a
//! mismatch is reported on the user's tokens); everything else is named by absolute paths.
//!
//! Phases: knobs (`knobs.rs`) → signature checks (here) → analysis of the whole body
//! (`analysis/`) → lowering of the `superstep!` invocations (`superstep.rs`) → output. Errors
//! of every phase are collected and emitted beside the best expansion that could be made, so
//! the rest of the function is still type-checked and IDEs keep working.
//!
//! The `compile_error!`s of a function go first *inside* its generated body, not beside it: an
//! error in a body marks it as erroneous, so rustc skips borrow-checking it. A mistake the
//! analysis reports (a read before the sync, ...) is then reported once, in our words, instead of
//! a second time as the borrow error the runtime's types also make of it. Type errors in the
//! body are still reported.

use crate::analysis::{self, strip_parens};
use crate::ctxt::Ctxt;
use crate::input::SuperstepInput;
use crate::knobs::{self, Knobs};
use crate::runtime_check;
use crate::superstep;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens as _};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned as _;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, FnArg, Ident, Item, ItemFn, Pat, ReturnType, Stmt, Token, Type};

const SHAPE: &str = "`#[bsp::program] fn main(ctx: &mut bsp::Ctx) { ... }`";

pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::new();
    let knobs = knobs::parse(args, &mut cx);
    let function = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Fn(function)) => function,
        Ok(other) => {
            cx.error_spanned_by(
                other,
                format_args!(
                    "`#[bsp::program]` goes on a function, whose body becomes the program that \
                     every process runs: {SHAPE}"
                ),
            );
            return with_errors(cx, item);
        }
        Err(error) => {
            cx.syn_error(error);
            return with_errors(cx, item);
        }
    };
    let output = expand_fn(function, &knobs, &mut cx);
    with_errors(cx, output)
}

fn with_errors(cx: Ctxt, code: TokenStream) -> TokenStream {
    let mut errors = cx.into_compile_errors();
    errors.extend(code);
    errors
}

/// The context parameter: its pattern, its name (for the analysis) and its type.
struct CtxParam {
    pat: Pat,
    name: Ident,
    /// The type as the user wrote it (`&mut bsp::Ctx`, `&mut Ctx`), kept so that a
    /// `use bsp::Ctx;` stays used; `None` after an error, then the expansion names the runtime's
    /// `Ctx` by its absolute path.
    ty: Option<Type>,
}

fn expand_fn(mut function: ItemFn, knobs: &Knobs, cx: &mut Ctxt) -> TokenStream {
    check_modifiers(&mut function, cx);
    let is_main = function.sig.ident == "main";
    let mut inputs = std::mem::take(&mut function.sig.inputs).into_iter();
    let ctx = ctx_param(inputs.next(), &function.sig.ident, cx);
    // With a set-up, the next parameter receives its value (`&S`, on every process).
    let value = knobs.set_up.as_ref().map(|_| value_param(inputs.next(), &function.sig.ident, cx));
    let rest: Punctuated<FnArg, Token![,]> = inputs.collect();
    if is_main {
        for extra in &rest {
            cx.error_spanned_by(
                extra,
                if knobs.set_up.is_some() {
                    "`main` takes only the context and the set-up's value: to pass arguments, put \
                     `#[bsp::program]` on another function and call it from `main` (it returns \
                     the value of every process)"
                } else {
                    "`main` takes only the context: to pass arguments, put `#[bsp::program]` on \
                     another function and call it from `main` (it returns the value of every \
                     process); to read input before the processes start, use `set_up`"
                },
            );
        }
        if let ReturnType::Type(_, ty) = &function.sig.output {
            if !is_unit(ty) {
                cx.error_spanned_by(
                    ty,
                    "`#[bsp::program] fn main` returns `()`: a panic or abort in any process \
                     already makes `main` exit with an error\n\
                     = help: to collect a value from every process, put `#[bsp::program]` on \
                     another function, which returns `Result<Vec<T>, bsp::Error>`, and call it \
                     from `main`",
                );
            }
        }
    }

    // A number of processes written as a literal lets the alignment check decide conditions on
    // the pid (`pid == 999` on 2 processes is false everywhere).
    let procs = match knobs.procs.as_ref().map(strip_parens) {
        Some(Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. })) => n.base10_parse::<u64>().ok(),
        _ => None,
    };
    check_and_lower(&mut function.block, &ctx.name, procs, &knobs.krate, cx);
    // The errors go first in the generated body (see the module docs).
    let errors = std::mem::take(cx).into_compile_errors();

    let krate = &knobs.krate;
    let private = quote!(#krate::__private);
    // Explicit code wins over the environment (D28): `procs = N` is `Launch::procs(N)`.
    let procs = knobs.procs.as_ref().map(|procs| quote!(.procs(#procs)));
    let pat = &ctx.pat;
    let ty = match &ctx.ty {
        Some(ty) => ty.to_token_stream(),
        None => quote!(&mut #private::Ctx),
    };
    let block = &function.block;
    let closure_ret = match &function.sig.output {
        ReturnType::Default => None,
        ReturnType::Type(arrow, ty) => Some(quote!(#arrow #ty)),
    };
    // The closure that holds the body is spanned at the context parameter, not at the macro:
    // rustc then names the body's variables in its borrow errors (`left`, not "value").
    let body = match &value {
        // A value taken by value is a copy of the one every process shares (it is plain data).
        Some(ValueParam { pat: vpat, ty: vty, by_value: true }) => quote_spanned!(pat.span()=>
            |#pat: #ty, __bsp_set_up: &#vty| #closure_ret { let #vpat: #vty = *__bsp_set_up; #block }
        ),
        Some(ValueParam { pat: vpat, ty: vty, .. }) => {
            quote_spanned!(pat.span()=> |#pat: #ty, #vpat: #vty| #closure_ret #block)
        }
        None => quote_spanned!(pat.span()=> |#pat: #ty| #closure_ret #block),
    };
    // `set_up = f` is `Launch::run_set_up(f, body)` (BSPlib's `bsp_init`); otherwise `run`.
    let run = match &knobs.set_up {
        Some(set_up) => quote!(.run_set_up(#set_up, #body)),
        None => quote!(.run(#body)),
    };
    let ItemFn { attrs, vis, sig, .. } = &function;
    if is_main {
        let syn::Signature { safety, fn_token, ident, generics, .. } = sig;
        let where_clause = &generics.where_clause;
        quote! {
            #(#attrs)*
            #vis #safety #fn_token #ident #generics() #where_clause {
                #errors
                let __bsp_result = #private::Launch::new()
                    #procs
                    #run;
                #private::exit_on_error(__bsp_result);
            }
        }
    } else {
        let syn::Signature { safety, abi, fn_token, ident, generics, output, .. } = sig;
        let where_clause = &generics.where_clause;
        let ret = match output {
            ReturnType::Default => quote!(()),
            ReturnType::Type(_, ty) => ty.to_token_stream(),
        };
        quote! {
            #(#attrs)*
            #vis #safety #abi #fn_token #ident #generics(#rest)
                -> ::core::result::Result<::std::vec::Vec<#ret>, #private::Error>
                #where_clause
            {
                #errors
                #private::Launch::new()
                    #procs
                    #run
            }
        }
    }
}

/// The checks of a body whose context parameter is `ctx` (a program's, a helper's), then its
/// lowering: the run-time checks of alignment, and the supersteps.
pub(crate) fn check_and_lower(
    body: &mut syn::Block,
    ctx: &Ident,
    procs: Option<u64>,
    krate: &syn::Path,
    cx: &mut Ctxt,
) {
    let checks = analysis::check_program(body, ctx, procs, cx);
    runtime_check::insert(body, &checks);
    LowerSupersteps { ctx, depth: 0, inner: Vec::new(), krate }.visit_block_mut(body);
}

/// `async` and `const` are reported and dropped, so the rest still expands.
fn check_modifiers(function: &mut ItemFn, cx: &mut Ctxt) {
    if let Some(token) = function.sig.asyncness.take() {
        cx.error(
            token.span,
            "`#[bsp::program]` cannot be `async`: every process runs the body synchronously on \
             its own thread\n= help: remove `async`",
        );
    }
    if let Some(token) = function.sig.constness.take() {
        cx.error(
            token.span,
            "`#[bsp::program]` cannot be `const`: it starts processes at run time\n\
             = help: remove `const`",
        );
    }
}

/// Checks the first parameter; after an error, `ctx` stands in so the body still expands.
fn ctx_param(first: Option<FnArg>, fn_name: &Ident, cx: &mut Ctxt) -> CtxParam {
    let fallback = || {
        let name = Ident::new("ctx", Span::call_site());
        CtxParam { pat: syn::parse_quote!(#name), name, ty: None }
    };
    let expected = format!("the process context as its first parameter: `fn {fn_name}(ctx: &mut bsp::Ctx)`");
    let typed = match first {
        Some(FnArg::Typed(typed)) => typed,
        Some(FnArg::Receiver(receiver)) => {
            cx.error_spanned_by(
                receiver,
                format_args!("a `#[bsp::program]` function cannot take `self`; it takes {expected}"),
            );
            return fallback();
        }
        None => {
            cx.error(fn_name.span(), format_args!("a `#[bsp::program]` function takes {expected}"));
            return fallback();
        }
    };
    let ty = is_ctx_type(&typed.ty).then(|| (*typed.ty).clone());
    if ty.is_none() {
        cx.error_spanned_by(
            &typed.ty,
            "the context parameter must be `&mut bsp::Ctx` (or `&mut Ctx` with `bsp::Ctx` in \
             scope): each process owns its context, and ending a superstep changes it",
        );
    }
    match &*typed.pat {
        Pat::Ident(ident) if ident.subpat.is_none() && ident.by_ref.is_none() => {
            CtxParam { name: ident.ident.clone(), pat: (*typed.pat).clone(), ty }
        }
        other => {
            cx.error_spanned_by(other, "the context parameter must be a name, such as `ctx` in `ctx: &mut bsp::Ctx`");
            fallback()
        }
    }
}

/// The parameter that receives the set-up's value: its pattern and type, as written, and
/// whether it takes the value by value (a copy: the value is plain data) or by reference.
struct ValueParam {
    pat: Pat,
    ty: Type,
    by_value: bool,
}

/// Checks the parameter after the context when the program has a set-up; after an error, a
/// `_: &_` stands in so the body still expands.
fn value_param(param: Option<FnArg>, fn_name: &Ident, cx: &mut Ctxt) -> ValueParam {
    let expected = format!(
        "with `set_up`, the function takes the set-up's value after the context: \
         `fn {fn_name}(ctx: &mut bsp::Ctx, input: &Input)` (or `input: Input`, a copy), where the \
         set-up returns `(usize, Input)`"
    );
    let fallback = || ValueParam { pat: syn::parse_quote!(_), ty: syn::parse_quote!(&_), by_value: false };
    match param {
        Some(FnArg::Typed(typed)) => match &*typed.ty {
            Type::Reference(r) if r.mutability.is_some() => {
                cx.error_spanned_by(
                    &typed.ty,
                    format_args!(
                        "the set-up's value is shared by the processes of this OS process, so the \
                         parameter cannot borrow it mutably; {expected}"
                    ),
                );
                let elem = &r.elem;
                ValueParam { pat: (*typed.pat).clone(), ty: syn::parse_quote!(&#elem), by_value: false }
            }
            Type::Reference(_) => ValueParam { pat: (*typed.pat).clone(), ty: (*typed.ty).clone(), by_value: false },
            _ => ValueParam { pat: (*typed.pat).clone(), ty: (*typed.ty).clone(), by_value: true },
        },
        Some(other) => {
            cx.error_spanned_by(other, &expected);
            fallback()
        }
        None => {
            cx.error(fn_name.span(), &expected);
            fallback()
        }
    }
}

/// `&mut Ctx`, `&mut bsp::Ctx`, `&mut some::path::Ctx` (any lifetime).
pub(crate) fn is_ctx_type(ty: &Type) -> bool {
    let Type::Reference(reference) = ty else {
        return false;
    };
    let Type::Path(path) = &*reference.elem else {
        return false;
    };
    reference.mutability.is_some()
        && path.qself.is_none()
        && path.path.segments.last().is_some_and(|s| s.ident == "Ctx")
}

fn is_unit(ty: &Type) -> bool {
    matches!(ty, Type::Tuple(tuple) if tuple.elems.is_empty())
}

/// Rewrites every `superstep!(ctx, { .. })` of the body into `ctx.superstep(|ctx| { .. })`,
/// replacing each `return`, `?`, `break` and `continue` that would leave a block by its error.
/// The analysis has already seen the blocks with the whole function; lowering them here keeps
/// `superstep!` from checking them a second time. Invocations that do not parse are left for
/// `superstep!` to report.
///
/// Outside every superstep, `ctx.get(..)`, `ctx.hpget(..)` and `ctx.hpput(..)` on the program's
/// context are replaced by an error saying where they belong (the runtime only offers them on
/// the `Superstep` that `superstep!` hands its block, so rustc would only say that `Ctx` has no
/// such method).
///
/// Inside a superstep, a call that the analysis reports (`ctx.sync()`, a registration, a
/// collective, another superstep, `with_reg`, `put_batch`, a global pointer array's `build`,
/// `destroy` or `memzero` given the superstep) gets a `&mut Ctx` that is never made in place of
/// the superstep: the call then type-checks, and rustc does not report the mistake a second time
/// in its own words ("`DerefMut` is not implemented", "expected `&mut Ctx`").
struct LowerSupersteps<'a> {
    ctx: &'a Ident,
    /// How many supersteps (`superstep!` blocks, closures given to `ctx.superstep`) enclose the
    /// code being visited.
    depth: usize,
    /// The context names of the enclosing supersteps.
    inner: Vec<Ident>,
    krate: &'a syn::Path,
}

impl LowerSupersteps<'_> {
    fn lower(&mut self, mac: &syn::Macro) -> Option<Expr> {
        let last = mac.path.segments.last()?;
        if last.ident != "superstep" {
            return None;
        }
        let mut input: SuperstepInput = mac.parse_body().ok()?;
        superstep::replace_escapes(&mut input.block);
        let krate = self.krate;
        analysis::guard_moved_destinations(&mut input.block, &quote!(#krate::__private));
        let nested = self.depth > 0 && (input.ctx == *self.ctx || self.inner.contains(&input.ctx));
        self.depth += 1;
        self.inner.push(input.ctx.clone());
        self.visit_block_mut(&mut input.block);
        self.inner.pop();
        self.depth -= 1;
        let mut lowered = superstep::lower(&input);
        if let (true, Expr::MethodCall(call)) = (nested, &mut lowered) {
            *call.receiver = self.no_context();
        }
        Some(lowered)
    }

    /// Whether `expr` names the program's context or that of an enclosing superstep.
    fn is_superstep_ctx(&self, expr: &Expr) -> bool {
        match strip_parens(expr) {
            Expr::Path(path) => {
                path.path.get_ident().is_some_and(|i| i == self.ctx || self.inner.iter().any(|n| n == i))
            }
            _ => false,
        }
    }

    /// A `&mut Ctx` that is never made, for a call the analysis reported (see the type's docs).
    fn no_context(&self) -> Expr {
        let krate = self.krate;
        syn::parse_quote! {{
            fn __bsp_no_context<'a>() -> &'a mut #krate::__private::Ctx {
                ::core::unreachable!("a call reported at compile time")
            }
            __bsp_no_context()
        }}
    }

    fn is_ctx(&self, expr: &Expr) -> bool {
        match strip_parens(expr) {
            Expr::Path(path) => path.path.get_ident().is_some_and(|ident| ident == self.ctx),
            _ => false,
        }
    }
}

/// The error for `ctx.get(..)`, `ctx.hpget(..)` or `ctx.hpput(..)` outside a superstep.
fn outside_superstep(call: &syn::ExprMethodCall, ctx: &Ident) -> Option<String> {
    let (op, what, does) = match call.method.to_string().as_str() {
        "get" => ("get", "destination", "writes"),
        "hpget" => ("hpget", "destination", "writes"),
        "hpput" => ("hpput", "source", "reads"),
        _ => return None,
    };
    let instead =
        if op == "hpput" { "; or use `put`, which copies its source at the call and works anywhere" } else { "" };
    Some(format!(
        "`{op}` is only available inside a superstep\n\
         = note: a `{op}` {does} its {what} at the sync that ends the superstep, and the \
         {what} stays borrowed until then: `superstep!` is what ends the superstep and the borrow\n\
         = help: put the `{op}` in a `bsp::superstep!({ctx}, {{ ... }})` block and use the {what} \
         after the block{instead}"
    ))
}

impl LowerSupersteps<'_> {
    /// `ctx.superstep(|s| ..)` and `ctx.superstep_then(|s| .., then)`: the first closure's body
    /// is a superstep whose context is `s`; `then` (and the receiver) are code outside it.
    fn visit_superstep_call(&mut self, call: &mut syn::ExprMethodCall) {
        let name = match call.args.first() {
            Some(Expr::Closure(closure)) => closure.inputs.first().and_then(|p| match p {
                Pat::Ident(ident) => Some(ident.ident.clone()),
                Pat::Type(typed) => match &*typed.pat {
                    Pat::Ident(ident) => Some(ident.ident.clone()),
                    _ => None,
                },
                _ => None,
            }),
            _ => None,
        };
        self.visit_expr_mut(&mut call.receiver);
        let mut args = call.args.iter_mut();
        if let Some(first) = args.next() {
            self.depth += 1;
            self.inner.extend(name.clone());
            self.visit_expr_mut(first);
            if name.is_some() {
                self.inner.pop();
            }
            self.depth -= 1;
        }
        for rest in args {
            self.visit_expr_mut(rest);
        }
    }
}

impl VisitMut for LowerSupersteps<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Macro(mac) => {
                if let Some(lowered) = self.lower(&mac.mac) {
                    *expr = lowered;
                    return;
                }
            }
            Expr::MethodCall(call)
                if self.depth > 0
                    && self.is_superstep_ctx(&call.receiver)
                    && analysis::misuse_inside_superstep(call).is_some() =>
            {
                if call.method == "superstep" || call.method == "superstep_then" {
                    self.visit_superstep_call(call);
                } else {
                    visit_mut::visit_expr_method_call_mut(self, call);
                }
                *call.receiver = self.no_context();
                return;
            }
            Expr::MethodCall(call) if self.depth > 0 && analysis::gp_sync(&call.method).is_some() => {
                visit_mut::visit_expr_method_call_mut(self, call);
                let no_context = self.no_context();
                for arg in call.args.iter_mut() {
                    if self.is_superstep_ctx(arg) {
                        *arg = no_context.clone();
                    }
                }
                return;
            }
            Expr::MethodCall(call)
                if (self.is_superstep_ctx(&call.receiver) || self.is_ctx(&call.receiver))
                    && call.method == "superstep_then" =>
            {
                self.visit_superstep_call(call);
                return;
            }
            Expr::MethodCall(call) if self.is_superstep_ctx(&call.receiver) && call.method == "superstep" => {
                self.visit_superstep_call(call);
                return;
            }
            Expr::MethodCall(call) if self.depth == 0 && self.is_ctx(&call.receiver) => {
                if let Some(message) = outside_superstep(call, self.ctx) {
                    visit_mut::visit_expr_method_call_mut(self, call);
                    let error = syn::Error::new(call.method.span(), message).to_compile_error();
                    let args = &call.args;
                    // The arguments stay, so they are still type-checked.
                    let replacement = quote!({ let _ = (#args); #error });
                    *expr = syn::parse2(replacement.clone()).unwrap_or(Expr::Verbatim(replacement));
                    return;
                }
            }
            _ => {}
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let count = block.stmts.len();
        for (i, stmt) in block.stmts.iter_mut().enumerate() {
            if let Stmt::Macro(mac) = stmt {
                if let Some(lowered) = self.lower(&mac.mac) {
                    let last = i + 1 == count;
                    let semi = mac.semi_token.or_else(|| (!last).then(|| Token![;](Span::call_site())));
                    *stmt = Stmt::Expr(lowered, semi);
                    continue;
                }
            }
            self.visit_stmt_mut(stmt);
        }
    }

    // Nested items are not part of the program.
    fn visit_item_mut(&mut self, _: &mut Item) {}
}
