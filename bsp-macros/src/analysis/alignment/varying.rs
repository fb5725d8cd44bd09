//! Which values are not the same on every process: where they come from, and which expressions
//! carry them along.
//!
//! A value *varies* when it comes from a source that differs between processes — `ctx.pid()`,
//! `ctx.time()`, what arrived as messages (`qsize`, `get_tag`, `move_message`, `hpmove`, ...),
//! the destination of a `get` from a process that depends on the pid — or is computed from one
//! by the operations that keep the difference: arithmetic, comparisons, casts, fields, indexing,
//! ranges, struct literals, the numeric and `Option` methods listed in [`CARRYING`], the
//! iterator adapters and closures' methods of [`CARRYING_PERHAPS`], `if`/`match`/blocks whose
//! value or condition varies. A variable varies when it is bound or assigned such a value, or
//! assigned anything under a condition that varies.
//!
//! A variation is *certain* ([`Origin::certain`]) when it comes from the pid or the clock; it is
//! only *perhaps* when it comes from messages, a `get`, an element of data at a varying position,
//! or is whether a value matches a variant pattern (`Some(_)`): the data may be the same
//! everywhere. Combined values keep the certain origin when there is one.
//!
//! Everything else is *not known to vary*: literals, constants, `ctx.nprocs()`, the results of
//! collectives (the same on every process by construction), the value of `ctx.same(..)`, and
//! the results of functions and methods the macro cannot see into. Only varying values make a
//! finding, so what the macro cannot decide stays silent.

use super::decide::tests_a_variant;
use super::Aligner;
use crate::analysis::syntax::strip_parens;
use syn::{Expr, Pat};

/// Methods whose result varies when their receiver or an argument does.
const CARRYING: &[&str] = &[
    "min",
    "max",
    "clamp",
    "abs",
    "pow",
    "powi",
    "powf",
    "sqrt",
    "ilog2",
    "isqrt",
    "saturating_add",
    "saturating_sub",
    "saturating_mul",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "checked_add",
    "checked_sub",
    "checked_mul",
    "checked_div",
    "rem_euclid",
    "div_euclid",
    "div_ceil",
    "count_ones",
    "trailing_zeros",
    "leading_zeros",
    "is_power_of_two",
    "next_power_of_two",
    "unwrap",
    "unwrap_or",
    "unwrap_or_default",
    "expect",
    "is_some",
    "is_none",
    "is_ok",
    "is_err",
    "len",
    "is_empty",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "cmp",
    "partial_cmp",
    "into",
    "try_into",
    "clone",
    "to_owned",
    "rev",
    "step_by",
    "skip",
    "take",
];

/// Methods whose result varies when their receiver or an argument does, but whose closures or
/// data may make it the same everywhere (`(0..pid).filter(|_| false).count()`): iterator
/// adapters and consumers, `then`/`then_some`, `map` on an `Option`. Their variation is only
/// perhaps.
const CARRYING_PERHAPS: &[&str] = &[
    "iter",
    "into_iter",
    "map",
    "filter",
    "filter_map",
    "flat_map",
    "flatten",
    "enumerate",
    "zip",
    "chain",
    "copied",
    "cloned",
    "count",
    "sum",
    "product",
    "fold",
    "last",
    "nth",
    "position",
    "find",
    "any",
    "all",
    "collect",
    "then",
    "then_some",
    "and_then",
    "ok",
    "ok_or",
    "unwrap_or_else",
    "map_or",
    "get",
    "first",
];

/// Where a varying value comes from, for the messages.
#[derive(Clone, Debug)]
pub(crate) struct Origin {
    /// The source, in words: "`ctx.pid()`, which is different on every process".
    pub(crate) source: String,
    /// The variable the condition reads, if it reads the source through one.
    pub(crate) via: Option<String>,
    /// Whether the value certainly differs between processes: it is computed from `ctx.pid()`
    /// or `ctx.time()` (or assigned under a condition that is). Values from messages, from a
    /// `get` and other data may well be the same everywhere: the macro cannot decide, so their
    /// conditions are checked at run time instead of rejected.
    pub(crate) certain: bool,
}

/// The origin to report for a value computed from two: the certain one if either is.
pub(crate) fn stronger(a: Option<Origin>, b: impl FnOnce() -> Option<Origin>) -> Option<Origin> {
    match a {
        Some(a) if a.certain => Some(a),
        a => match (a, b()) {
            (_, Some(b)) if b.certain => Some(b),
            (a, b) => a.or(b),
        },
    }
}

impl Origin {
    /// The same source, no longer certain to make the tested value differ.
    pub(crate) fn undecided(self) -> Origin {
        Origin { certain: false, ..self }
    }

    /// "`n` comes from `ctx.pid()`, which ..." or "`ctx.pid()` ...".
    pub(crate) fn describe(&self) -> String {
        match &self.via {
            Some(name) => format!("`{name}` comes from {}", self.source),
            None => self.source.clone(),
        }
    }
}

impl Aligner<'_> {
    /// The origin of the value of `expr`, if it varies.
    pub(crate) fn varies(&self, expr: &Expr) -> Option<Origin> {
        match expr {
            Expr::Paren(e) => self.varies(&e.expr),
            Expr::Group(e) => self.varies(&e.expr),
            Expr::Reference(e) => self.varies(&e.expr),
            Expr::Unary(e) => self.varies(&e.expr),
            Expr::Cast(e) => self.varies(&e.expr),
            Expr::Field(e) => self.varies(&e.base),
            Expr::Try(e) => self.varies(&e.expr),
            Expr::Binary(e) => stronger(self.varies(&e.left), || self.varies(&e.right)),
            // An element at a varying position is data: every process's table may hold the same
            // value there.
            Expr::Index(e) => stronger(self.varies(&e.expr), || self.varies(&e.index).map(Origin::undecided)),
            Expr::Range(e) => stronger(e.start.as_deref().and_then(|s| self.varies(s)), || {
                e.end.as_deref().and_then(|s| self.varies(s))
            }),
            Expr::Tuple(e) => self.varies_any(e.elems.iter()),
            Expr::Array(e) => self.varies_any(e.elems.iter()),
            // Whether a value matches a variant pattern may be the same everywhere.
            Expr::Let(e) => self.varies(&e.expr).map(|o| if tests_a_variant(&e.pat) { o.undecided() } else { o }),
            Expr::Path(path) => {
                let name = path.path.get_ident()?.to_string();
                let binding = self.scopes.find(&name)?;
                let origin = self.varying.get(&binding)?;
                Some(Origin { source: origin.source.clone(), via: Some(name), certain: origin.certain })
            }
            Expr::MethodCall(call) if self.is_ctx(&call.receiver) => {
                let method = call.method.to_string();
                let why = crate::api::varies(&method)?;
                // The pid and the clock differ on every process; what arrived may not.
                let certain = method == "pid" || method == "time";
                let ctx = strip_parens(&call.receiver);
                let ctx = quote::quote!(#ctx).to_string();
                let args = if call.args.is_empty() { "" } else { ".." };
                Some(Origin { source: format!("`{ctx}.{method}({args})`, which {why}"), via: None, certain })
            }
            Expr::MethodCall(call) if CARRYING.contains(&call.method.to_string().as_str()) => {
                stronger(self.varies(&call.receiver), || self.varies_any(call.args.iter()))
            }
            Expr::MethodCall(call) if CARRYING_PERHAPS.contains(&call.method.to_string().as_str()) => {
                stronger(self.varies(&call.receiver), || self.varies_any(call.args.iter())).map(Origin::undecided)
            }
            // `Plan { rounds: pid % 2 + 1 }`: a struct varies with its fields (read back with
            // `plan.rounds`).
            Expr::Struct(e) => self.varies_any(e.fields.iter().map(|f| &f.expr)),
            // `Some(x)`, `Ok(x)`, `usize::from(x)`: constructors and conversions.
            Expr::Call(call) if is_carrying_fn(&call.func) => self.varies_any(call.args.iter()),
            Expr::Block(block) => self.varies_tail(&block.block),
            Expr::Unsafe(block) => self.varies_tail(&block.block),
            Expr::If(node) => stronger(self.varies(&node.cond), || {
                stronger(self.varies_tail(&node.then_branch), || {
                    node.else_branch.as_ref().and_then(|(_, e)| self.varies(e))
                })
            }),
            Expr::Match(node) => {
                stronger(self.varies(&node.expr), || self.varies_any(node.arms.iter().map(|arm| &*arm.body)))
            }
            _ => None,
        }
    }

    /// The origin of the first of `exprs` that varies, a certain one first.
    fn varies_any<'e>(&self, exprs: impl Iterator<Item = &'e Expr>) -> Option<Origin> {
        exprs.fold(None, |found, e| stronger(found, || self.varies(e)))
    }

    fn varies_tail(&self, block: &syn::Block) -> Option<Origin> {
        match block.stmts.last() {
            Some(syn::Stmt::Expr(tail, None)) => self.varies(tail),
            _ => None,
        }
    }

    /// Binds the names of `pat` to the value of `init`, element by element where both are
    /// tuples (`let (me, p) = (ctx.pid(), ctx.nprocs());` makes only `me` vary).
    pub(crate) fn bind(&mut self, pat: &Pat, init: Option<&Expr>) {
        match (pat, init.map(strip_parens)) {
            (Pat::Tuple(pats), Some(Expr::Tuple(exprs))) if pats.elems.len() == exprs.elems.len() => {
                for (pat, expr) in pats.elems.iter().zip(&exprs.elems) {
                    self.bind(pat, Some(expr));
                }
            }
            (Pat::Type(typed), _) => self.bind(&typed.pat, init),
            (Pat::Paren(paren), _) => self.bind(&paren.pat, init),
            _ => {
                let origin = init.and_then(|init| self.varies(init));
                self.declare_all(pat, origin);
                if let Some(init) = init {
                    self.remember(pat, init);
                }
            }
        }
    }
}

/// `Some`, `Ok`, `Err`, and `T::from`.
fn is_carrying_fn(func: &Expr) -> bool {
    let Expr::Path(path) = strip_parens(func) else {
        return false;
    };
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    let single = path.path.segments.len() == 1;
    (single && (last.ident == "Some" || last.ident == "Ok" || last.ident == "Err")) || (!single && last.ident == "from")
}
