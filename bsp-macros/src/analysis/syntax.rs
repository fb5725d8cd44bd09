//! Small syntax helpers of the walker: what a place expression is rooted at, which names a
//! pattern binds, which operators assign.

use super::state::Place;
use syn::{Expr, Ident, Member, Pat};

/// Removes parentheses and invisible groups: `((x))` is `x`.
pub(crate) fn strip_parens(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(paren) => strip_parens(&paren.expr),
        Expr::Group(group) => strip_parens(&group.expr),
        _ => expr,
    }
}

/// Removes parentheses, invisible groups and references: `&(x)` is `x`.
pub(super) fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(paren) => strip(&paren.expr),
        Expr::Group(group) => strip(&group.expr),
        Expr::Reference(reference) => strip(&reference.expr),
        Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Deref(_)) => strip(&unary.expr),
        _ => expr,
    }
}

/// Removes parentheses, invisible groups and `&`/`&mut`, but not `*`: `&(x)` is `x`, while
/// `*x` stays, since it copies the value out (a tag copied by `*tag` is not a borrow).
pub(super) fn strip_borrows(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(paren) => strip_borrows(&paren.expr),
        Expr::Group(group) => strip_borrows(&group.expr),
        Expr::Reference(reference) => strip_borrows(&reference.expr),
        _ => expr,
    }
}

/// The local a place expression is rooted at: `&mut buf[i].0` is rooted at `buf`.
pub(super) fn root_ident(expr: &Expr) -> Option<&Ident> {
    match strip(expr) {
        Expr::Field(field) => root_ident(&field.base),
        Expr::Index(index) => root_ident(&index.expr),
        Expr::Path(path) if path.qself.is_none() => path.path.get_ident(),
        _ => None,
    }
}

/// The binding and the place below it that a place expression designates: `&mut pair.0` is
/// `pair` and `["0"]`, `&mut buf[i]` is `buf` and `["[]"]` (see [`Place`]).
pub(super) fn place_of(expr: &Expr) -> Option<(&Ident, Place)> {
    match expr {
        Expr::Paren(paren) => place_of(&paren.expr),
        Expr::Group(group) => place_of(&group.expr),
        Expr::Reference(reference) => place_of(&reference.expr),
        Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Deref(_)) => place_of(&unary.expr),
        Expr::Field(field) => {
            let (root, mut place) = place_of(&field.base)?;
            place.0.push(match &field.member {
                Member::Named(name) => name.to_string(),
                Member::Unnamed(index) => index.index.to_string(),
            });
            Some((root, place))
        }
        Expr::Index(index) => {
            let (root, mut place) = place_of(&index.expr)?;
            place.0.push("[]".to_owned());
            Some((root, place))
        }
        Expr::Path(path) if path.qself.is_none() => Some((path.path.get_ident()?, Place::default())),
        _ => None,
    }
}

/// `reg.local_mut(..)` or `reg.value_mut(..)`, possibly indexed (`&mut reg.local_mut(ctx)[1..]`):
/// the registration and the method's name.
pub(super) fn local_part_of(expr: &Expr) -> Option<(&Ident, &Ident)> {
    match strip(expr) {
        Expr::MethodCall(call) if call.method == "local_mut" || call.method == "value_mut" => {
            Some((root_ident(&call.receiver)?, &call.method))
        }
        Expr::Index(index) => local_part_of(&index.expr),
        _ => None,
    }
}

/// `x`, `mut x` or `x: T`.
pub(super) fn single_ident(pat: &Pat) -> Option<&Ident> {
    match pat {
        Pat::Ident(ident) if ident.subpat.is_none() => Some(&ident.ident),
        Pat::Type(typed) => single_ident(&typed.pat),
        _ => None,
    }
}

/// Every name a pattern binds, each with whether it copies what it matches out of a reference:
/// in `&t` or `Some((&t, _))`, `t` is a value (a copy), not a borrow of the matched data.
/// (`ref` bindings always borrow.)
pub(super) fn bound_names<'a>(pat: &'a Pat, copied: bool, out: &mut Vec<(&'a Ident, bool)>) {
    match pat {
        Pat::Ident(ident) => {
            out.push((&ident.ident, copied && ident.by_ref.is_none()));
            if let Some((_, sub)) = &ident.subpat {
                bound_names(sub, copied, out);
            }
        }
        Pat::Tuple(tuple) => tuple.elems.iter().for_each(|p| bound_names(p, copied, out)),
        Pat::TupleStruct(tuple) => tuple.elems.iter().for_each(|p| bound_names(p, copied, out)),
        Pat::Slice(slice) => slice.elems.iter().for_each(|p| bound_names(p, copied, out)),
        Pat::Struct(strukt) => strukt.fields.iter().for_each(|f| bound_names(&f.pat, copied, out)),
        // Every alternative binds the same names.
        Pat::Or(or) => {
            if let Some(first) = or.cases.first() {
                bound_names(first, copied, out);
            }
        }
        Pat::Reference(reference) => bound_names(&reference.pat, true, out),
        Pat::Paren(paren) => bound_names(&paren.pat, copied, out),
        Pat::Type(typed) => bound_names(&typed.pat, copied, out),
        Pat::Guard(guarded) => bound_names(&guarded.pat, copied, out),
        _ => {}
    }
}

/// Whether `tokens` mention one of `names` as an identifier, at any depth (inside a closure's
/// body or a macro's arguments).
pub(super) fn mentions(tokens: proc_macro2::TokenStream, names: &[String]) -> bool {
    tokens.into_iter().any(|tt| match tt {
        proc_macro2::TokenTree::Ident(ident) => names.iter().any(|n| ident == n),
        proc_macro2::TokenTree::Group(group) => mentions(group.stream(), names),
        _ => false,
    })
}

pub(super) fn is_compound_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp as B;
    matches!(
        op,
        B::AddAssign(_)
            | B::SubAssign(_)
            | B::MulAssign(_)
            | B::DivAssign(_)
            | B::RemAssign(_)
            | B::BitXorAssign(_)
            | B::BitAndAssign(_)
            | B::BitOrAssign(_)
            | B::ShlAssign(_)
            | B::ShrAssign(_)
    )
}

/// `std::process::exit(..)` or `process::exit(..)`.
pub(super) fn is_process_exit(func: &Expr) -> bool {
    let Expr::Path(path) = func else {
        return false;
    };
    let segments: Vec<String> = path.path.segments.iter().map(|s| s.ident.to_string()).collect();
    segments.ends_with(&["process".to_owned(), "exit".to_owned()])
}
