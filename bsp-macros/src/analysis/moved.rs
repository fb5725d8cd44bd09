//! A `get` destination moved into a `move` closure earlier in the same superstep:
//!
//! ```text
//! superstep!(ctx, {
//!     let show = move || buf[0];                  // `buf` moves into the closure...
//!     ctx.get(pid, &x, 0, &mut buf[..]);          // ...so the `get` has no `buf` to fill
//!     println!("{}", show());                     // and this reads it before the sync
//! });
//! ```
//!
//! Whether this is a mistake depends on a type the macro cannot see: a `Copy` buffer (an array,
//! a number) is copied into the closure, which then holds the value from before the `get`, and the
//! program is correct; any other buffer is moved, and rustc reports a use after a move (E0382)
//! with a second error about the borrow's lifetime. So this check does not report anything
//! itself: it puts a call before the statement that makes the closure,
//! `__private::moved_into_a_closure_before_its_get(&buf)`, whose bound holds exactly for `Copy`
//! types. A correct program compiles as before (the call reads nothing); a wrong one gets one
//! error in our words (the trait's `on_unimplemented`), spanned at the closure's use of the
//! buffer, and rustc skips borrow-checking a body with a type error, so its two errors go.
//!
//! The pattern is matched on the superstep's own statements only, and the check stays away from
//! anything it cannot follow: a buffer mentioned (assigned, rebound, used) between the closure
//! and the `get`, a closure that binds the name itself, a field of the buffer captured on its own.

use super::macro_args::{self, MacroKind};
use super::syntax::{root_ident, strip_borrows};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote_spanned, ToTokens as _};
use syn::visit::{self, Visit};
use syn::{Block, Expr, Ident, Stmt};

/// Inserts the `Copy` check before each statement of `block` that moves a later `get`
/// destination into a closure. `private` is the path of the facade's `__private` module.
pub(crate) fn guard_moved_destinations(block: &mut Block, private: &TokenStream) {
    let mut guards: Vec<(usize, Ident, Span)> = Vec::new();
    for (j, stmt) in block.stmts.iter().enumerate() {
        for dest in destinations(stmt) {
            let name = dest.to_string();
            // The latest statement before the `get` that mentions the name, if it moves it.
            let Some(i) = (0..j).rev().find(|&i| mentions(block.stmts[i].to_token_stream(), &name)) else {
                continue;
            };
            if binds(&block.stmts[i], &name) {
                continue;
            }
            if let Some(span) = moved_into_closure(&block.stmts[i], &name) {
                if !guards.iter().any(|(k, n, _)| *k == i && *n == name) {
                    guards.push((i, dest.clone(), span));
                }
            }
        }
    }
    guards.sort_by_key(|(i, _, _)| std::cmp::Reverse(*i));
    for (i, name, span) in guards {
        let name = Ident::new(&name.to_string(), span);
        let call = quote_spanned!(span=> #private::moved_into_a_closure_before_its_get(&#name););
        let stmt: Stmt = syn::parse_quote!(#call);
        block.stmts.insert(i, stmt);
    }
}

/// The roots of the destinations of the `get`s, `hpget`s and `dest`s in one statement (outside
/// closures, which run later or never).
fn destinations(stmt: &Stmt) -> Vec<Ident> {
    struct Finder(Vec<Ident>);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            let dest = match (call.method.to_string().as_str(), call.args.len()) {
                ("get" | "hpget", 4) => call.args.last(),
                ("dest", 1) => call.args.first(),
                _ => None,
            };
            if let Some(dest) = dest {
                if matches!(strip_borrows_once(dest), Some(true)) {
                    self.0.extend(root_ident(dest).cloned());
                }
            }
            visit::visit_expr_method_call(self, call);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder(Vec::new());
    finder.visit_stmt(stmt);
    finder.0
}

/// `Some(true)` for `&mut place`: a destination borrowed in the call itself.
fn strip_borrows_once(expr: &Expr) -> Option<bool> {
    match expr {
        Expr::Paren(paren) => strip_borrows_once(&paren.expr),
        Expr::Group(group) => strip_borrows_once(&group.expr),
        Expr::Reference(reference) => Some(reference.mutability.is_some()),
        _ => None,
    }
}

/// Whether `tokens` mention `name` as an identifier at any depth.
fn mentions(tokens: TokenStream, name: &str) -> bool {
    tokens.into_iter().any(|tt| match tt {
        TokenTree::Ident(ident) => ident == name,
        TokenTree::Group(group) => mentions(group.stream(), name),
        _ => false,
    })
}

/// Whether a `let` statement binds `name` (then the later `get` fills another variable).
fn binds(stmt: &Stmt, name: &str) -> bool {
    let Stmt::Local(local) = stmt else {
        return false;
    };
    let mut names = Vec::new();
    super::syntax::bound_names(&local.pat, false, &mut names);
    names.iter().any(|(ident, _)| *ident == name)
}

/// The span of the first whole-variable use of `name` in a `move` closure of `stmt`, if every
/// mention of `name` in the statement is inside such a closure (so the statement does nothing
/// else with it).
fn moved_into_closure(stmt: &Stmt, name: &str) -> Option<Span> {
    struct Closures<'n> {
        name: &'n str,
        found: Option<Span>,
        /// A mention the check cannot read: outside a `move` closure, rebound, in a macro.
        unclear: bool,
    }
    impl<'ast> Visit<'ast> for Closures<'_> {
        fn visit_expr_closure(&mut self, closure: &'ast syn::ExprClosure) {
            if closure.capture.is_none() {
                visit::visit_expr_closure(self, closure);
                return;
            }
            let mut uses = WholeUses { name: self.name, whole: None, unclear: false };
            for input in &closure.inputs {
                uses.visit_pat(input);
            }
            uses.visit_expr(&closure.body);
            self.unclear |= uses.unclear;
            if self.found.is_none() {
                self.found = uses.whole;
            }
        }
        fn visit_ident(&mut self, ident: &'ast Ident) {
            if ident == self.name {
                self.unclear = true;
            }
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            self.unclear |= mentions(mac.tokens.clone(), self.name);
        }
    }
    let mut closures = Closures { name, found: None, unclear: false };
    closures.visit_stmt(stmt);
    if closures.unclear {
        return None;
    }
    closures.found
}

/// Inside a `move` closure's body: the first use of the variable as a whole (not one of its
/// fields, which a closure captures on its own).
struct WholeUses<'n> {
    name: &'n str,
    whole: Option<Span>,
    unclear: bool,
}

impl<'ast> Visit<'ast> for WholeUses<'_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        match expr {
            Expr::Field(field) if root_ident(strip_borrows(&field.base)).is_some_and(|i| i == self.name) => {}
            Expr::Path(path) if path.path.is_ident(self.name) => {
                if self.whole.is_none() {
                    self.whole = path.path.get_ident().map(Ident::span);
                }
            }
            _ => visit::visit_expr(self, expr),
        }
    }
    fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
        // The closure binds the name itself (a parameter, `let`, a `match` arm): not followed.
        if pat.ident == self.name {
            self.unclear = true;
        }
        visit::visit_pat_ident(self, pat);
    }
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // The arguments of `println!` and the like are expressions; other macros are opaque.
        match macro_args::classify(mac) {
            MacroKind::Args { .. } => match macro_args::comma_args(mac) {
                Some(args) => args.iter().for_each(|arg| self.visit_expr(arg)),
                None => self.unclear |= mentions(mac.tokens.clone(), self.name),
            },
            _ => self.unclear |= mentions(mac.tokens.clone(), self.name),
        }
    }
}
