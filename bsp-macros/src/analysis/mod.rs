//! The compile-time checks of pending communication: a walk over the whole annotated function
//! (or over one `superstep!` block used on its own) that knows, at each point, which names are
//! pending and why, and reports the uses that come too early or too late.
//!
//! - `state`: scopes, pending entries and the rules for joining branches (documented there);
//! - `walker`: the walk itself, statement by statement, in evaluation order;
//! - `macro_args`: what the walk sees inside `println!`, `format!`, `assert!`, `vec!`, ...;
//! - `syntax`: small helpers (roots of place expressions, names bound by patterns);
//! - this file: the findings and their messages.
//!
//! Each finding becomes two `compile_error!`s: the error itself, spanned at the offending use
//! (with the `note`/`help` lines folded into its message, since stable proc macros cannot attach
//! spanned notes), then a second one spanned at the operation that made the name pending, whose
//! message starts with `note:`. In rustc's output (and trybuild's `.stderr`) they read as one
//! error followed by its note.

mod macro_args;
mod state;
mod syntax;
mod walker;

#[cfg(test)]
pub(crate) use walker::Walker;

use crate::ctxt::Ctxt;
use crate::superstep::SuperstepInput;
use proc_macro2::Span;
use state::Op;
use syn::{Block, Ident};

/// Whether a use reads or writes the name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    Read,
    Write,
}

/// What is wrong with one use.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Problem {
    /// A `get`/`hpget` destination is read or written before the sync.
    PendingDestination(Access),
    /// An `hpput` source is modified before the sync.
    ModifiedSource,
    /// A registration is used for communication in the superstep that registers it.
    RegistrationNotYetEffective,
    /// An `hpmove` result is used after the sync that invalidated it.
    StaleMessage,
}

/// One reported use.
#[derive(Clone, Debug)]
pub(crate) struct Finding {
    pub(crate) problem: Problem,
    pub(crate) name: String,
    pub(crate) use_span: Span,
    pub(crate) op: Op,
    pub(crate) op_span: Span,
}

/// Checks the body of a `#[bsp::program]` function whose context parameter is `ctx`.
pub(crate) fn check_program(body: &Block, ctx: &Ident, cx: &mut Ctxt) {
    let mut walker = walker::Walker::new(ctx);
    walker.walk_program(body);
    report(walker.into_findings(), &ctx.to_string(), cx);
}

/// Checks one `superstep!` used outside `#[bsp::program]`: what its block does on its own.
pub(crate) fn check_superstep(input: &SuperstepInput, cx: &mut Ctxt) {
    let mut walker = walker::Walker::new(&input.ctx);
    walker.walk_superstep(&input.ctx, &input.block, input.ctx.span());
    report(walker.into_findings(), &input.ctx.to_string(), cx);
}

fn report(findings: Vec<Finding>, ctx: &str, cx: &mut Ctxt) {
    for finding in findings {
        cx.error(finding.use_span, message(&finding, ctx));
        cx.error(finding.op_span, note(&finding));
    }
}

/// The error at the use: what was found, when the value is available, what to do.
pub(crate) fn message(finding: &Finding, ctx: &str) -> String {
    let Finding { name, op, .. } = finding;
    let op = op.name();
    match finding.problem {
        Problem::PendingDestination(access) => {
            let (verb, noun) = match access {
                Access::Read => ("read", "read"),
                Access::Write => ("written", "write"),
            };
            format!(
                "`{name}` is {verb} before the sync that completes the `{op}` writing it\n\
                 = note: the value of `{name}` is only available after the superstep ends\n\
                 = help: move the {noun} after the end of the `superstep!` block (or after \
                 `{ctx}.sync()`), or {noun} a copy taken before the `{op}`"
            )
        }
        Problem::ModifiedSource => format!(
            "`{name}` is modified before the sync that completes the `hpput` reading it\n\
             = note: `hpput` does not copy `{name}`: its data is read when the superstep ends\n\
             = help: modify `{name}` after the end of the `superstep!` block, or use `put`, \
             which copies `{name}` at the call"
        ),
        Problem::RegistrationNotYetEffective => format!(
            "`{name}` is used for communication in the superstep that registers it\n\
             = note: a registration takes effect at the next sync, on every process\n\
             = help: end the superstep (`{ctx}.sync()` or the end of a `superstep!` block) \
             between the `push_reg` and the first `put`, `get`, `hpput` or `hpget` on `{name}`"
        ),
        Problem::StaleMessage => format!(
            "`{name}` is used after the sync that invalidates it\n\
             = note: `{name}` borrows a message taken by `{op}`, which is only valid until the \
             end of the superstep it was taken in\n\
             = help: use `{name}` before the sync, or keep a copy taken before it (such as \
             `{name}.to_vec()`), or take the message with `move_message`, which copies it"
        ),
    }
}

/// The second error, at the operation.
pub(crate) fn note(finding: &Finding) -> String {
    let Finding { name, op, .. } = finding;
    let op = op.name();
    match finding.problem {
        Problem::PendingDestination(_) | Problem::ModifiedSource => {
            format!("note: the `{op}` that makes `{name}` pending is here")
        }
        Problem::RegistrationNotYetEffective => {
            format!("note: `{name}` is registered here, by `{op}`")
        }
        Problem::StaleMessage => format!("note: `{name}` comes from the `{op}` here"),
    }
}
