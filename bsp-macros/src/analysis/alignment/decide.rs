//! Conditions on the pid decided for every process: a condition built from `ctx.pid()`,
//! `ctx.nprocs()`, integer and boolean literals, arithmetic, comparisons and immutable variables
//! bound to such expressions (and ranges, `min`, `max`, `abs`, `pow`, ... of them) is evaluated
//! for each pid. When the program says how many
//! processes it runs on (`#[bsp::program(procs = 2)]`), that number decides: if every process
//! decides the condition alike (`pid == 999` on 2 processes), it does not vary, and nothing is
//! reported. Otherwise it certainly varies only if it does on some number of processes up to
//! [`TRIED`]; one that never does there (`pid < ctx.nprocs()`, `pid == 999`) perhaps varies.
//!
//! Also here: which pattern tests leave a value's variation undecided.

use super::Aligner;
use crate::analysis::state::BindingId;
use crate::analysis::syntax::place_of;
use crate::analysis::syntax::strip_parens;
use syn::{BinOp, Expr, Lit, Pat, UnOp};

/// The most processes a condition is evaluated for.
const MOST: u64 = 4096;

/// The numbers of processes tried when the program does not give one.
const TRIED: i128 = 64;

/// How a condition on the pid comes out across the processes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Decided {
    /// Every process decides it alike (at the program's number of processes).
    Alike,
    /// Some processes decide it differently (at the program's number of processes, or at some
    /// number of processes if the program gives none).
    Differs,
    /// It never differs at the numbers of processes tried, but might at others.
    Perhaps,
}

/// How deep variables are followed (a shadowing `let n = n + 1;` stops there).
const DEPTH: u8 = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    Int(i128),
    Bool(bool),
    /// `a..b` (`a..=b` as `a..b + 1`).
    Range(i128, i128),
}

impl Aligner<'_> {
    /// How `cond` comes out on `procs` processes (`None`: any number), if the evaluator
    /// understands it.
    pub(super) fn decide(&self, cond: &Expr, procs: Option<u64>) -> Option<Decided> {
        let differs_on = |p: i128| -> Option<bool> {
            let first = self.eval(cond, 0, p, 0)?;
            for pid in 1..p {
                if self.eval(cond, pid, p, 0)? != first {
                    return Some(true);
                }
            }
            Some(false)
        };
        match procs {
            Some(procs) if procs <= MOST => {
                Some(if differs_on(i128::from(procs))? { Decided::Differs } else { Decided::Alike })
            }
            Some(_) => None,
            None => {
                for p in 2..=TRIED {
                    if differs_on(p)? {
                        return Some(Decided::Differs);
                    }
                }
                Some(Decided::Perhaps)
            }
        }
    }

    /// Remembers the value of `name` if it is bound to an expression the evaluator understands
    /// (or to a struct literal, whose fields it may read).
    pub(super) fn remember(&mut self, pat: &Pat, init: &Expr) {
        let Pat::Ident(ident) = pat else {
            return;
        };
        if ident.by_ref.is_some() || ident.subpat.is_some() {
            return;
        }
        let understood = match strip_parens(init) {
            Expr::Struct(literal) => literal.fields.iter().all(|f| self.eval(&f.expr, 0, 1, 0).is_some()),
            init => self.eval(init, 0, 1, 0).is_some(),
        };
        if !understood {
            return;
        }
        if let Some(binding) = self.scopes.find(&ident.ident.to_string()) {
            self.inits.insert(binding, init.clone());
            if ident.mutability.is_some() {
                self.mutable.insert(binding);
            }
        }
    }

    /// Forgets the value of the variable at the root of `place`: something may change it.
    pub(super) fn forget(&mut self, place: &Expr) {
        if let Some(binding) = place_of(place).and_then(|(ident, _)| self.scopes.find(&ident.to_string())) {
            self.inits.remove(&binding);
        }
    }

    /// Forgets the value of the variable at the root of `place` if it is `mut`.
    pub(super) fn forget_if_mutable(&mut self, place: &Expr) {
        if let Some(binding) = place_of(place).and_then(|(ident, _)| self.scopes.find(&ident.to_string())) {
            if self.mutable.contains(&binding) {
                self.inits.remove(&binding);
            }
        }
    }

    /// `name = value` (`partial`: a compound assignment, or to a part of `name`): where the
    /// code runs under known conditions (`if pid == 0 { leader = true; }`), the variable's value
    /// becomes `if cond { value } else { before }`; elsewhere (a loop's body, a `match` arm) or
    /// for a partial assignment it is no longer known.
    pub(super) fn assign_init(&mut self, binding: BindingId, value: &Expr, partial: bool) {
        let conds: Option<Vec<Expr>> = self.paths.iter().cloned().collect();
        let known = match (partial, conds) {
            (false, Some(conds)) if conds.is_empty() => Some(value.clone()),
            (false, Some(conds)) => self.inits.get(&binding).map(|before| {
                let all = conds.iter().skip(1).fold(conds[0].clone(), |a, c| syn::parse_quote!((#a) && (#c)));
                syn::parse_quote!(if #all { #value } else { #before })
            }),
            _ => None,
        };
        match known {
            Some(init) if self.eval(&init, 0, 1, 0).is_some() => {
                self.inits.insert(binding, init);
            }
            _ => {
                self.inits.remove(&binding);
            }
        }
    }

    fn eval(&self, expr: &Expr, pid: i128, p: i128, depth: u8) -> Option<Value> {
        if depth > DEPTH {
            return None;
        }
        let int = |e: &Expr| match self.eval(e, pid, p, depth) {
            Some(Value::Int(n)) => Some(n),
            _ => None,
        };
        let boolean = |e: &Expr| match self.eval(e, pid, p, depth) {
            Some(Value::Bool(b)) => Some(b),
            _ => None,
        };
        Some(match strip_parens(expr) {
            Expr::Lit(lit) => match &lit.lit {
                Lit::Int(n) => Value::Int(n.base10_parse().ok()?),
                Lit::Bool(b) => Value::Bool(b.value),
                _ => return None,
            },
            Expr::Cast(cast) => self.eval(&cast.expr, pid, p, depth)?,
            Expr::If(node) => {
                if boolean(&node.cond)? {
                    self.eval(tail(&node.then_branch)?, pid, p, depth)?
                } else {
                    self.eval(&node.else_branch.as_ref()?.1, pid, p, depth)?
                }
            }
            Expr::Block(block) => self.eval(tail(&block.block)?, pid, p, depth)?,
            // `plan.rounds` with `let plan = Plan { rounds: .. }`.
            Expr::Field(field) => {
                let Expr::Path(path) = strip_parens(&field.base) else {
                    return None;
                };
                let binding = self.scopes.find(&path.path.get_ident()?.to_string())?;
                let Expr::Struct(literal) = strip_parens(self.inits.get(&binding)?) else {
                    return None;
                };
                let found = literal.fields.iter().find(|f| f.member == field.member)?;
                self.eval(&found.expr, pid, p, depth + 1)?
            }
            Expr::Range(range) => {
                let start = match range.start.as_deref() {
                    Some(start) => int(start)?,
                    None => 0,
                };
                let end = int(range.end.as_deref()?)?;
                let end = if matches!(range.limits, syn::RangeLimits::Closed(_)) { end.checked_add(1)? } else { end };
                Value::Range(start, end)
            }
            Expr::MethodCall(call) if !self.is_ctx(&call.receiver) => {
                let a = int(&call.receiver)?;
                let arg = |i: usize| call.args.get(i).and_then(&int);
                Value::Int(match (call.method.to_string().as_str(), call.args.len()) {
                    ("min", 1) => a.min(arg(0)?),
                    ("max", 1) => a.max(arg(0)?),
                    ("clamp", 2) if arg(0)? <= arg(1)? => a.clamp(arg(0)?, arg(1)?),
                    ("abs", 0) => a.checked_abs()?,
                    ("pow", 1) => a.checked_pow(u32::try_from(arg(0)?).ok()?)?,
                    ("saturating_sub", 1) if a >= 0 => a.saturating_sub(arg(0)?).max(0),
                    ("saturating_add", 1) => a.saturating_add(arg(0)?),
                    ("rem_euclid", 1) => a.checked_rem_euclid(arg(0)?)?,
                    ("div_euclid", 1) => a.checked_div_euclid(arg(0)?)?,
                    _ => return None,
                })
            }
            Expr::MethodCall(call) if self.is_ctx(&call.receiver) && call.args.is_empty() => {
                match call.method.to_string().as_str() {
                    "pid" => Value::Int(pid),
                    "nprocs" => Value::Int(p),
                    _ => return None,
                }
            }
            Expr::Path(path) => {
                let name = path.path.get_ident()?.to_string();
                let binding = self.scopes.find(&name)?;
                let init = self.inits.get(&binding)?;
                self.eval(init, pid, p, depth + 1)?
            }
            Expr::Unary(unary) => match unary.op {
                UnOp::Not(_) => Value::Bool(!boolean(&unary.expr)?),
                UnOp::Neg(_) => Value::Int(int(&unary.expr)?.checked_neg()?),
                _ => return None,
            },
            Expr::Binary(binary) => match binary.op {
                BinOp::And(_) => Value::Bool(boolean(&binary.left)? && boolean(&binary.right)?),
                BinOp::Or(_) => Value::Bool(boolean(&binary.left)? || boolean(&binary.right)?),
                op => {
                    let (a, b) = (int(&binary.left)?, int(&binary.right)?);
                    match op {
                        BinOp::Add(_) => Value::Int(a.checked_add(b)?),
                        BinOp::Sub(_) => Value::Int(a.checked_sub(b)?),
                        BinOp::Mul(_) => Value::Int(a.checked_mul(b)?),
                        BinOp::Div(_) => Value::Int(a.checked_div(b)?),
                        BinOp::Rem(_) => Value::Int(a.checked_rem(b)?),
                        BinOp::BitAnd(_) => Value::Int(a & b),
                        BinOp::BitOr(_) => Value::Int(a | b),
                        BinOp::BitXor(_) => Value::Int(a ^ b),
                        BinOp::Shl(_) => Value::Int(a.checked_shl(u32::try_from(b).ok()?)?),
                        BinOp::Shr(_) => Value::Int(a.checked_shr(u32::try_from(b).ok()?)?),
                        BinOp::Eq(_) => Value::Bool(a == b),
                        BinOp::Ne(_) => Value::Bool(a != b),
                        BinOp::Lt(_) => Value::Bool(a < b),
                        BinOp::Le(_) => Value::Bool(a <= b),
                        BinOp::Gt(_) => Value::Bool(a > b),
                        BinOp::Ge(_) => Value::Bool(a >= b),
                        _ => return None,
                    }
                }
            },
            _ => return None,
        })
    }
}

/// The value of a block that is one expression.
fn tail(block: &syn::Block) -> Option<&Expr> {
    match block.stmts.as_slice() {
        [syn::Stmt::Expr(tail, None)] => Some(tail),
        _ => None,
    }
}

/// Whether matching `pat` tests which variant a value is (`Some(x)`, `Ok(_)`, `None`, a struct
/// or enum pattern): a value computed from the pid varies, but whether it is `Some` may not
/// (`pid.checked_add(0)` is `Some` on every process), so such a test is not certain to vary.
pub(super) fn tests_a_variant(pat: &Pat) -> bool {
    match pat {
        Pat::TupleStruct(_) | Pat::Struct(_) | Pat::Path(_) => true,
        Pat::Or(or) => or.cases.iter().any(tests_a_variant),
        Pat::Paren(paren) => tests_a_variant(&paren.pat),
        Pat::Reference(reference) => tests_a_variant(&reference.pat),
        Pat::Type(typed) => tests_a_variant(&typed.pat),
        // `None`, a unit variant or a constant in scope: an upper-case name.
        Pat::Ident(ident) => {
            ident.ident.to_string().starts_with(char::is_uppercase)
                || ident.subpat.as_ref().is_some_and(|(_, sub)| tests_a_variant(sub))
        }
        Pat::Tuple(tuple) => tuple.elems.iter().any(tests_a_variant),
        Pat::Slice(slice) => slice.elems.iter().any(tests_a_variant),
        _ => false,
    }
}
