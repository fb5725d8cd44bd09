//! What each operation on the context does to the flow state: `get`/`hpget` and `hpput` make
//! a place pending (after checking their arguments), `sync` (and `register`, `unregister`, which
//! include one) completes what is pending, and any other method handed the context may sync.
//! Also: which expressions are `hpmove` results. (The supersteps themselves are in
//! `supersteps.rs`.)

use super::Walker;
use crate::analysis::state::{join_validity, BindingId, Entry, Op, Place, Validity};
use crate::analysis::syntax::{local_part_of, place_of, root_ident, strip_borrows, strip_parens};
use crate::analysis::{Access, Finding, Problem};
use proc_macro2::Span;
use syn::visit::Visit as _;
use syn::Expr;

/// The registration calls, which include a sync, by name (a `&'static str` for the finding).
fn registration_call(method: &str) -> &'static str {
    match method {
        "register" => "register",
        "unregister" => "unregister",
        "register_each" => "register_each",
        _ => "unregister_each",
    }
}

/// `reg.remote()` (`true`) or `reg.local_mut(..)`/`reg.value_mut(..)` (`false`), possibly
/// borrowed or indexed: the registration, which part, and the method's span.
pub(super) fn reg_part(expr: &Expr) -> Option<(&syn::Ident, bool, Span)> {
    if let Expr::MethodCall(call) = strip_borrows(expr) {
        if call.method == "remote" && call.args.is_empty() {
            return Some((root_ident(&call.receiver)?, true, call.method.span()));
        }
    }
    let (reg, method) = local_part_of(expr)?;
    Some((reg, false, method.span()))
}

impl Walker {
    /// Marks the place `expr` (`&mut left`, `&data`, `&mut pair.0`, ...) as pending because of
    /// `op`.
    fn make_pending(&mut self, expr: &Expr, op: Op, op_span: Span) {
        if let Some((ident, place)) = place_of(expr) {
            let name = ident.to_string();
            let binding = self.scopes.lookup(&name);
            self.add_entry(binding, name, place, op, op_span, Validity::Live);
        }
    }

    /// `&mut name` (or `&name` for an `hpput` source) where `name` is a variable of the
    /// superstep being walked: reported, since it is gone before the sync that uses it. Only a
    /// borrow of the variable itself counts: a field or element may be reached through a
    /// reference to outer data (`&mut slot.0` with `slot: &mut (i32, i32)`).
    fn check_lifetime(&mut self, expr: &Expr, op: Op, op_span: Span) {
        let key = self.next_use;
        self.next_use += 1;
        let Some(&(depth, _)) = self.superstep_depths.last() else {
            return;
        };
        let Expr::Reference(reference) = strip_parens(expr) else {
            return;
        };
        let Expr::Path(path) = strip_parens(&reference.expr) else {
            return;
        };
        let Some(ident) = path.path.get_ident() else {
            return;
        };
        let name = ident.to_string();
        let declared_inside = self.scopes.depth_of(&name).is_some_and(|d| d >= depth);
        if !declared_inside || !self.state.reachable {
            return;
        }
        let binding = self.scopes.lookup(&name);
        let decl = self.decl_spans.get(&binding).copied().unwrap_or(op_span);
        self.push_finding(
            key,
            Finding { problem: Problem::DeclaredInSuperstep, name, use_span: ident.span(), op, op_span: decl },
        );
    }

    /// `ctx.get(pid, &reg, off, reg.local_mut(ctx))`: the source and the destination borrow the
    /// same registration (also as `reg.remote()`, and through a variable bound to either part).
    fn check_same_registration(&mut self, src: &Expr, dst: &Expr, op: Op) {
        let key = self.next_use;
        self.next_use += 1;
        let Some((source, source_span)) = self.registration_named_by(src) else {
            return;
        };
        let Some((local, method_span)) = self.local_part_in(dst) else {
            return;
        };
        if source != local || !self.state.reachable {
            return;
        }
        let finding = Finding {
            problem: Problem::SameRegistration,
            name: source,
            use_span: source_span,
            op,
            op_span: method_span,
        };
        self.push_finding(key, finding);
    }

    /// The registration a `get` source names: `&reg`, `reg.remote()`, or a variable bound to
    /// `reg.remote()`; with the span to point at.
    fn registration_named_by(&mut self, src: &Expr) -> Option<(String, Span)> {
        if let Some((reg, true, _)) = reg_part(src) {
            return Some((reg.to_string(), reg.span()));
        }
        let ident = root_ident(src)?;
        let binding = self.scopes.lookup(&ident.to_string());
        match self.reg_parts.get(&binding) {
            Some((reg, true, _)) => Some((reg.clone(), ident.span())),
            Some((_, false, _)) => None,
            None => Some((ident.to_string(), ident.span())),
        }
    }

    /// The registration whose local part a `get` destination is: `reg.local_mut(ctx)` (possibly
    /// indexed), or a variable bound to it; with the span of the `local_mut`.
    fn local_part_in(&mut self, dst: &Expr) -> Option<(String, Span)> {
        if let Some((local, method)) = local_part_of(dst) {
            return Some((local.to_string(), method.span()));
        }
        let ident = root_ident(dst)?;
        let binding = self.scopes.lookup(&ident.to_string());
        match self.reg_parts.get(&binding) {
            Some((reg, false, span)) => Some((reg.clone(), *span)),
            _ => None,
        }
    }

    /// `x.local_mut(ctx)` (or `value_mut`) while a name taken by `let name = x.remote()` is
    /// kept: each later use of `name` is reported (see `Op::LocalMut`).
    fn check_names_kept_across(&mut self, call: &syn::ExprMethodCall) {
        if !(call.method == "local_mut" || call.method == "value_mut") || call.args.len() != 1 || !self.state.reachable
        {
            return;
        }
        let Some(reg) = root_ident(&call.receiver).map(ToString::to_string) else {
            return;
        };
        let mut names: Vec<BindingId> = self
            .reg_parts
            .iter()
            .filter(|(_, (named, remote, _))| *remote && *named == reg)
            .map(|(binding, _)| *binding)
            .collect();
        names.sort_unstable();
        for binding in names {
            let known = self.state.entries.iter().any(|e| e.binding == binding && e.op == Op::LocalMut);
            if !known {
                self.add_entry(
                    binding,
                    reg.clone(),
                    Place::default(),
                    Op::LocalMut,
                    call.method.span(),
                    Validity::Live,
                );
            }
        }
    }

    /// `ctx.allreduce(x.local(ctx), op)`: the argument borrows the context the collective
    /// needs mutably.
    fn check_local_part_given_to_collective(&mut self, call: &syn::ExprMethodCall) {
        for arg in &call.args {
            let key = self.next_use;
            self.next_use += 1;
            let Expr::MethodCall(part) = strip_borrows(arg) else {
                continue;
            };
            let reads_local = part.method == "local" || part.method == "value";
            if !reads_local || part.args.len() != 1 || !self.is_ctx(&part.args[0]) || !self.state.reachable {
                continue;
            }
            let Some(reg) = root_ident(&part.receiver) else {
                continue;
            };
            let collective = crate::api::collective(&call.method.to_string()).unwrap_or("sync");
            let finding = Finding {
                problem: Problem::LocalPartGivenToCollective(collective),
                name: reg.to_string(),
                use_span: part.method.span(),
                op: Op::Superstep,
                op_span: call.method.span(),
            };
            self.push_finding(key, finding);
        }
    }

    /// The `hpmove` call or tracked result that `expr` evaluates to (or borrows), if any. A
    /// copy (`*tag`, `payload.to_vec()`) is a value of its own: `None`.
    pub(super) fn hpmove_origin(&mut self, expr: &Expr) -> Option<(Span, Validity)> {
        match strip_borrows(expr) {
            Expr::MethodCall(call)
                if (call.method == "unwrap" && call.args.is_empty())
                    || (call.method == "expect" && call.args.len() == 1) =>
            {
                self.hpmove_origin(&call.receiver)
            }
            Expr::MethodCall(call)
                if (call.method == "hpmove" || call.method == "hpmove_bytes") && self.is_ctx(&call.receiver) =>
            {
                Some((call.method.span(), Validity::Live))
            }
            Expr::Path(path) => {
                let ident = path.path.get_ident()?;
                let binding = self.scopes.lookup(&ident.to_string());
                let entries: Vec<&Entry> =
                    self.state.entries.iter().filter(|e| e.binding == binding && e.op == Op::HpMove).collect();
                Some((entries.first()?.op_span, join_validity(&entries)))
            }
            _ => None,
        }
    }

    pub(super) fn walk_method_call(&mut self, call: &syn::ExprMethodCall) {
        if !self.is_ctx(&call.receiver) {
            self.visit_expr(&call.receiver);
            self.walk_args(call.args.iter());
            self.check_names_kept_across(call);
            if let Some(method) = crate::analysis::gp_sync(&call.method) {
                // `array.build(ctx)` with a superstep's context.
                for arg in &call.args {
                    if let Expr::Path(path) = strip_parens(arg) {
                        if let Some(ctx) = path.path.get_ident().filter(|i| self.ctx_names.iter().any(|n| *i == n)) {
                            let problem = Problem::GpSyncInSuperstep(method);
                            self.check_not_in_superstep(ctx, call.method.span(), problem);
                        }
                    }
                }
            }
            // Handed the context, another value's method may sync unless the API's table says
            // that no method of that name does.
            if call.args.iter().any(|a| self.is_ctx_handle(a))
                && crate::api::syncs_with_context(&call.method.to_string()) != Some(false)
            {
                self.maybe_sync();
            }
            return;
        }
        let method = call.method.to_string();
        let args: Vec<&Expr> = call.args.iter().collect();
        if let Some(
            problem @ (Problem::CollectiveInSuperstep(_)
            | Problem::WithRegInSuperstep(_)
            | Problem::PutBatchInSuperstep(_)),
        ) = crate::analysis::misuse_inside_superstep(call)
        {
            self.walk_args(args.into_iter());
            if let Some(ctx) = root_ident(&call.receiver) {
                self.check_not_in_superstep(ctx, call.method.span(), problem);
            }
            if matches!(problem, Problem::CollectiveInSuperstep(_)) {
                self.check_local_part_given_to_collective(call);
            }
            if !matches!(problem, Problem::PutBatchInSuperstep(_)) {
                self.maybe_sync();
            }
            return;
        }
        match (method.as_str(), args.as_slice()) {
            ("sync", []) => {
                if let Some(ctx) = root_ident(&call.receiver) {
                    self.check_not_in_superstep(ctx, call.method.span(), Problem::SyncInSuperstep(None));
                }
                self.sync_at(call.method.span());
            }
            ("register" | "unregister" | "register_each" | "unregister_each", [_]) => {
                self.walk_args(args.into_iter());
                if let Some(ctx) = root_ident(&call.receiver) {
                    let problem = Problem::SyncInSuperstep(Some(registration_call(&method)));
                    self.check_not_in_superstep(ctx, call.method.span(), problem);
                }
                self.sync_at(call.method.span());
            }
            ("superstep_then", [Expr::Closure(first), Expr::Closure(then)]) if first.inputs.len() == 1 => {
                if let Some(ctx) = root_ident(&call.receiver) {
                    self.check_not_in_superstep(ctx, call.method.span(), Problem::NestedSuperstep);
                }
                self.walk_superstep_then(first, then, call.method.span());
            }
            ("superstep", [Expr::Closure(closure)]) if closure.inputs.len() == 1 => {
                if let Some(ctx) = root_ident(&call.receiver) {
                    self.check_not_in_superstep(ctx, call.method.span(), Problem::NestedSuperstep);
                }
                self.walk_superstep_closure(closure, call.method.span());
            }
            ("get" | "hpget", [pid, src, offset, dst]) => {
                let op = if method == "get" { Op::Get } else { Op::HpGet };
                self.walk_args([*pid, *src, *offset].into_iter());
                self.check_same_registration(src, dst, op);
                match strip_parens(dst) {
                    Expr::Reference(reference) if reference.mutability.is_some() => {
                        self.walk_place(&reference.expr, Access::Write, Some(op));
                    }
                    _ => self.visit_expr(dst),
                }
                self.check_lifetime(dst, op, call.method.span());
                self.make_pending(dst, op, call.method.span());
            }
            ("dest", [buf]) => {
                // `s.dest(&mut buf)`: `buf` is the destination of the gets made through the
                // returned `Dest` until the sync.
                match strip_parens(buf) {
                    Expr::Reference(reference) if reference.mutability.is_some() => {
                        self.walk_place(&reference.expr, Access::Write, Some(Op::Dest));
                    }
                    _ => self.visit_expr(buf),
                }
                self.check_lifetime(buf, Op::Dest, call.method.span());
                self.make_pending(buf, Op::Dest, call.method.span());
            }
            ("get_batch", [src, buf]) => {
                // `s.get_batch(&x, &mut buf)`: `buf` is the destination of the batch's gets
                // until the sync.
                self.walk_args([*src].into_iter());
                match strip_parens(buf) {
                    Expr::Reference(reference) if reference.mutability.is_some() => {
                        self.walk_place(&reference.expr, Access::Write, Some(Op::GetBatch));
                    }
                    _ => self.visit_expr(buf),
                }
                self.check_lifetime(buf, Op::GetBatch, call.method.span());
                self.make_pending(buf, Op::GetBatch, call.method.span());
            }
            ("hpput", [pid, src, dst, offset]) => {
                self.walk_args([*pid, *src, *dst, *offset].into_iter());
                self.check_lifetime(src, Op::HpPut, call.method.span());
                self.make_pending(src, Op::HpPut, call.method.span());
            }
            ("put", [pid, src, dst, offset]) => {
                self.walk_args([*pid, *src, *dst, *offset].into_iter());
            }
            ("abort", _) => {
                self.walk_args(args.into_iter());
                self.state.reachable = false;
            }
            (name, _) => {
                self.walk_args(args.into_iter());
                // A method the API's table does not list may sync.
                if crate::api::on_context(name).is_none_or(|m| m.effect.syncs()) {
                    self.maybe_sync();
                }
            }
        }
    }
}
