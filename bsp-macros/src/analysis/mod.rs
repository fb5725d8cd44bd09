//! The compile-time checks of pending communication: a walk over the whole annotated function
//! (or over one `superstep!` block used on its own) that knows, at each point, which names are
//! pending and why, and reports the uses that come too early or too late.
//!
//! - `state`: scopes, pending entries and the rules for joining branches (documented there);
//! - `walker`: the walk itself, statement by statement, in evaluation order, (in
//!   `walker/ops.rs`) what each operation on the context does, and (in `walker/supersteps.rs`)
//!   the supersteps: their scope and end, what cannot happen inside them or leave them;
//! - `macro_args`: what the walk sees inside `println!`, `format!`, `assert!`, `vec!`, ...;
//! - `moved`: a `get` destination moved into a closure before the `get`, reported through a
//!   `Copy` bound (only the types know whether the closure moved or copied it);
//! - `syntax`: small helpers (roots of place expressions, names bound by patterns);
//! - `alignment/`: a second walk, over values rather than borrows: conditions that differ
//!   between processes and decide how many sync points they make (documented there);
//! - this file: the findings and their messages.
//!
//! Pending places are tracked below the variable (`pair.0` is not `pair.1`, see
//! `state::Place`), so a check never says more than the borrow checker would.
//!
//! Each finding becomes one `compile_error!`, spanned at the offending use, with its `note`/`help`
//! lines folded into its message (stable proc macros cannot attach spanned notes): the first
//! note says where the operation that made the name pending is (line and column), so one
//! mistake is one error.

mod alignment;
mod macro_args;
mod moved;
mod state;
mod syntax;
mod walker;

pub(crate) use alignment::{helper_count, key_of, RunTimeCheck};
#[cfg(test)]
pub(crate) use alignment::{Count, Kind};
pub(crate) use moved::guard_moved_destinations;
pub(crate) use syntax::strip_parens;
#[cfg(test)]
pub(crate) use walker::Walker;

use crate::api::Effect;
use crate::ctxt::Ctxt;
use crate::input::SuperstepInput;
use proc_macro2::Span;
pub(crate) use state::Op;
use syn::{Block, Ident};

/// Whether a use reads or writes the name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    Read,
    Write,
}

/// What is wrong with one use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Problem {
    /// A `get`/`hpget` destination is read or written before the sync.
    PendingDestination(Access),
    /// A pending `get`/`hpget` destination is the destination of another one (`again`):
    /// `&mut buf[i]` in a loop (`element`), or the same variable twice.
    DestinationAgain { again: Op, element: bool },
    /// An `hpput` source is modified before the sync.
    ModifiedSource,
    /// A `get`/`hpget` destination or an `hpput` source is a variable of the superstep itself,
    /// gone before the sync that uses it.
    DeclaredInSuperstep,
    /// A `get`/`hpget` names its source by `&reg` and writes into `reg.local_mut(..)`.
    SameRegistration,
    /// A name kept from `let name = reg.remote()` is used after `reg.local_mut(..)` (or
    /// `value_mut`) borrowed `reg` mutably.
    RemoteNameAfterLocalMut,
    /// An `hpmove` result is used after the sync that invalidated it.
    StaleMessage,
    /// An `hpmove` result of a superstep is its value, or is assigned to a variable declared
    /// before it: it would outlive the sync that ends the superstep.
    MessageLeavesSuperstep,
    /// `ctx.sync()` inside a superstep, or (with its name) a registration call, which includes a
    /// sync.
    SyncInSuperstep(Option<&'static str>),
    /// `superstep!` or `ctx.superstep(..)` inside a superstep.
    NestedSuperstep,
    /// A collective (named) inside a superstep: it ends with syncs of its own.
    CollectiveInSuperstep(&'static str),
    /// `with_reg` or `with_regs` inside a superstep: its registration changes include syncs.
    WithRegInSuperstep(&'static str),
    /// `put_batch` (or `put_batch_with_local`, named) inside a superstep: the batch borrows the
    /// context mutably.
    PutBatchInSuperstep(&'static str),
    /// A global pointer array's `build`, `destroy` or `memzero` given the superstep: each
    /// includes a sync.
    GpSyncInSuperstep(&'static str),
    /// `ctx.allreduce(x.local(ctx), op)`: the argument borrows the context that the collective
    /// (named) needs mutably.
    LocalPartGivenToCollective(&'static str),
}

/// What is wrong with the method call `call` on a superstep's context, inside the superstep: a
/// call that syncs, or needs the context mutably (`None` for the calls a superstep allows).
/// The analysis reports it, and the lowering (`program.rs`) gives the call a context of the
/// right type so that rustc does not report it a second time.
pub(crate) fn misuse_inside_superstep(call: &syn::ExprMethodCall) -> Option<Problem> {
    let method = call.method.to_string();
    let nargs = call.args.len();
    let is_closure = |arg: Option<&syn::Expr>| matches!(arg, Some(syn::Expr::Closure(c)) if c.inputs.len() == 1);
    let found = crate::api::on_context(&method)?;
    Some(match found.effect {
        Effect::Syncs if method == "sync" && nargs == 0 => Problem::SyncInSuperstep(None),
        Effect::Syncs if nargs == 1 => Problem::SyncInSuperstep(Some(found.name)),
        Effect::Superstep if nargs == 1 && is_closure(call.args.first()) => Problem::NestedSuperstep,
        Effect::Superstep if method == "superstep_then" && nargs == 2 => Problem::NestedSuperstep,
        Effect::Scoped => Problem::WithRegInSuperstep(found.name),
        Effect::Batch => Problem::PutBatchInSuperstep(found.name),
        Effect::Collective => Problem::CollectiveInSuperstep(found.name),
        _ => return None,
    })
}

/// The methods of other values that sync with the context as an argument: a global pointer
/// array's `build`, `memzero`, `sync` and `destroy`.
pub(crate) fn gp_sync(method: &Ident) -> Option<&'static str> {
    crate::api::sync_with_context(&method.to_string())
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
/// Returns the run-time checks of alignment to insert where the macro cannot decide.
pub(crate) fn check_program(body: &Block, ctx: &Ident, procs: Option<u64>, cx: &mut Ctxt) -> Vec<RunTimeCheck> {
    let mut walker = walker::Walker::new(ctx);
    walker.walk_program(body);
    report(walker.into_findings(), &ctx.to_string(), cx);
    alignment::check_program(body, ctx, procs, cx)
}

/// The alignment findings of a body whose context is `ctx`, on `procs` processes, for tests.
#[cfg(test)]
pub(crate) fn alignment_findings(body: &Block, ctx: &Ident, procs: Option<u64>) -> Vec<alignment::Finding> {
    alignment::findings(body, ctx, procs)
}

/// The kind of each alignment finding of a body whose context is `ctx`, for tests.
#[cfg(test)]
pub(crate) fn alignment_kinds(body: &Block, ctx: &Ident) -> Vec<Kind> {
    alignment::findings(body, ctx, None).into_iter().map(|f| f.kind).collect()
}

/// Checks one `superstep!` used outside `#[bsp::program]`: what its block does on its own.
pub(crate) fn check_superstep(input: &SuperstepInput, cx: &mut Ctxt) {
    let mut walker = walker::Walker::new(&input.ctx);
    walker.walk_superstep(&input.ctx, &input.block, input.ctx.span());
    report(walker.into_findings(), &input.ctx.to_string(), cx);
}

fn report(findings: Vec<Finding>, ctx: &str, cx: &mut Ctxt) {
    // One mistake, one error: a name used several times after the same operation made it
    // wrong (an `hpmove` result kept past the sync and used twice, a destination read twice) is
    // reported at its first use.
    // The tag and the payload of one `hpmove` are one result: one error for both.
    let mut seen: Vec<(Problem, String, String)> = Vec::new();
    for finding in findings {
        let name = if finding.problem == Problem::StaleMessage { String::new() } else { finding.name.clone() };
        let key = (finding.problem, name, format!("{:?}", finding.op_span));
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let text = message(&finding, ctx);
        // An `hpmove` call that leaves its superstep is itself the use: nothing else to point at.
        let at_the_use = matches!(finding.problem, Problem::MessageLeavesSuperstep) && finding.name.is_empty();
        let text = if at_the_use { text } else { with_pointer(&text, &note(&finding, finding.op_span)) };
        cx.error(finding.use_span, text);
    }
}

/// `message` with `= note: {pointer}` after its first line: one error per mistake, which says
/// where its cause is (a proc macro on stable cannot attach a spanned note to its error).
pub(crate) fn with_pointer(message: &str, pointer: &str) -> String {
    match message.split_once('\n') {
        Some((first, rest)) => format!("{first}\n= note: {pointer}\n{rest}"),
        None => format!("{message}\n= note: {pointer}"),
    }
}

/// The error at the use: what was found, when the value is available, what to do.
pub(crate) fn message(finding: &Finding, ctx: &str) -> String {
    let Finding { name, op, .. } = finding;
    if matches!(finding.op, Op::Dest | Op::GetBatch) {
        if let Some(text) = dest_message(finding, ctx) {
            return text;
        }
    }
    let op = op.name();
    let end = format!("the end of the `superstep!` block (or `{ctx}.sync()`)");
    match finding.problem {
        Problem::PendingDestination(Access::Read) => format!(
            "`{name}` is read before the sync that completes the `{op}` writing it\n\
             = note: `{name}` receives the fetched value at the sync that ends the superstep, \
             not before\n\
             = help: move the read after {end}, or read a copy of `{name}` taken before the \
             `{op}`"
        ),
        Problem::PendingDestination(Access::Write) => format!(
            "`{name}` is written before the sync that completes the `{op}` writing it\n\
             = note: the `{op}` writes `{name}` when the superstep ends, over what is written \
             here\n\
             = help: move the write after {end}, or write to another variable"
        ),
        Problem::DestinationAgain { again, element: true } => format!(
            "`{name}` is the destination of a second `{again}` before the sync that completes \
             the `{op}` into it\n\
             = note: a `{op}` borrows its destination until the superstep ends, and a borrow \
             of an element `{name}[i]` borrows all of `{name}`\n\
             = help: give each `{again}` its own element, e.g. `for (q, slot) in \
             {name}.iter_mut().enumerate() {{ {ctx}.{again}(q, src, offset, slot); }}`, or \
             fetch several elements with one `{again}` into `&mut {name}[a..b]`",
            again = again.name(),
        ),
        Problem::DestinationAgain { again, element: false } => format!(
            "`{name}` is the destination of a second `{again}` before the sync that completes \
             the `{op}` into it\n\
             = note: each `get` or `hpget` writes its destination at the sync that ends the \
             superstep, and borrows it until then: one destination receives one value per \
             superstep\n\
             = help: give each `{again}` a destination of its own, e.g. an array with one \
             element per `{again}`: `let mut got = [0; 2]; let [a, b] = &mut got;`, then \
             `{ctx}.{op}(p, src, offset, a)` and `{ctx}.{again}(q, src, offset, b)`; values that \
             are next to each other at the source come in with one `{again}` into a slice \
             (`&mut got[..]`)",
            again = again.name(),
        ),
        Problem::ModifiedSource => format!(
            "`{name}` is modified before the sync that completes the `hpput` reading it\n\
             = note: `hpput` does not copy `{name}`: it reads `{name}` when the superstep ends\n\
             = help: modify `{name}` after {end}, or use `put`, which copies `{name}` at the \
             call"
        ),
        Problem::DeclaredInSuperstep => {
            let (does, fix) = match finding.op {
                Op::HpPut => ("reads", format!(", or use `put`, which copies `{name}` at the call")),
                _ => ("writes", " and read it after the block".to_owned()),
            };
            format!(
                "`{name}` does not live until the sync at which the `{op}` {does} it\n\
                 = note: `{name}` is a variable of the `superstep!` block, gone when the block \
                 ends; the `{op}` {does} it later, at the sync that ends the superstep\n\
                 = help: declare `{name}` before the `superstep!` block{fix}"
            )
        }
        Problem::SameRegistration => format!(
            "this `{op}` borrows `{name}` twice: as its source and, for its local part, as its \
             destination\n\
             = note: a `{op}` may read and write the same registration (every source is read \
             before any destination is written), but one call cannot borrow `{name}` both to \
             read it and to write it\n\
             = help: take the name and the local part at once with `split_mut`: \
             `let (name, local) = {name}.split_mut({ctx}); {ctx}.{op}(pid, name, offset, local)`"
        ),
        Problem::RemoteNameAfterLocalMut => format!(
            "this name of `{name}`, kept from `{name}.remote()`, is used after `{name}.local_mut(..)` \
             borrowed `{name}` mutably\n\
             = note: a name borrows its registration's handle (so that no name outlives \
             `unregister`), and `local_mut` needs the handle alone while the local part is in use\n\
             = help: take the name and the local part at once with `split_mut`: \
             `let (name, local) = {name}.split_mut({ctx});`, then write through `local` and \
             communicate through `name`"
        ),
        Problem::StaleMessage => format!(
            "`{name}` is used after the sync that invalidates it\n\
             = note: `{name}` borrows a message taken by `{op}`, which is only valid until the \
             end of the superstep it was taken in\n\
             = help: use `{name}` before the sync, or keep a copy made before it \
             (`{name}.to_vec()`, or `*{name}` for a tag), or receive with `move_message`, which \
             copies the message"
        ),
        Problem::MessageLeavesSuperstep => {
            let (error, what, copy) = if name.is_empty() {
                (
                    "this `hpmove` result cannot leave its superstep".to_owned(),
                    "it".to_owned(),
                    "`payload.to_vec()` for a payload, `*tag` for a tag".to_owned(),
                )
            } else {
                (
                    format!("`{name}` cannot leave the superstep in which `hpmove` took it"),
                    format!("`{name}`"),
                    format!("`{name}.to_vec()` for a payload, `*{name}` for a tag"),
                )
            };
            format!(
                "{error}\n\
                 = note: {what} borrows a message, which is only valid until the sync that ends \
                 the superstep, at the end of its block\n\
                 = help: let a copy leave instead ({copy}), or receive with `move_message`, which \
                 returns the message by value"
            )
        }
        Problem::SyncInSuperstep(Some(method)) => format!(
            "`{name}.{method}(..)` cannot be called inside a superstep\n\
             = note: `{method}` includes a sync (a registration changes only at a sync, on every \
             process), and a superstep ends with exactly one sync, made when its block ends\n\
             = help: call it before the `superstep!` block or after it: \
             `let r = {name}.register(data); superstep!({name}, {{ ... }});`"
        ),
        Problem::SyncInSuperstep(None) => format!(
            "`{name}.sync()` cannot be called inside a superstep\n\
             = note: a superstep ends with exactly one sync, made when its block ends, after \
             every `get`, `hpget` and `hpput` in it is recorded; nothing inside the block can \
             end it earlier\n\
             = help: end the block where the sync should be and start another superstep after \
             it: `superstep!({name}, {{ ... }}); superstep!({name}, {{ ... }});`"
        ),
        Problem::NestedSuperstep => format!(
            "a superstep cannot start inside another superstep\n\
             = note: a superstep ends with exactly one sync, made when its block ends; the \
             inner one would have to sync while the outer one is still in progress\n\
             = help: put the supersteps one after the other: \
             `superstep!({name}, {{ ... }}); superstep!({name}, {{ ... }});`"
        ),
        Problem::CollectiveInSuperstep(method) => format!(
            "`{name}.{method}(..)` cannot be called inside a superstep\n\
             = note: a collective is a superstep of its own on every process, ending with its \
             own sync, and a superstep ends with exactly one sync, made when its block ends\n\
             = help: call it before the `superstep!` block or after it: \
             `superstep!({name}, {{ ... }}); let all = {name}.{method}(..);`"
        ),
        Problem::WithRegInSuperstep(method) => format!(
            "`{name}.{method}(..)` cannot be called inside a superstep\n\
             = note: `{method}` registers, runs its body and unregisters, and each change of the \
             registrations includes a sync, while a superstep ends with exactly one sync, made \
             when its block ends\n\
             = help: call it outside and make the supersteps inside its body: \
             `{name}.{method}(data, |{name}, r| {{ superstep!({name}, {{ ... }}); }})`"
        ),
        Problem::PutBatchInSuperstep(method) => format!(
            "`{name}.{method}(..)` cannot be called inside a superstep\n\
             = note: a batch borrows the context mutably until it is dropped, and inside a \
             superstep the context is shared by the superstep's operations\n\
             = help: fill the batch before the `superstep!` block (its puts land at the next \
             sync, as those of `put` do), or call `{name}.put(..)` for each value inside it"
        ),
        Problem::LocalPartGivenToCollective(collective) => format!(
            "`{name}.local(..)` borrows the context, which `{collective}` needs mutably\n\
             = note: a collective syncs, so it takes the context mutably, and the local part \
             given to it would keep the context borrowed during the call\n\
             = help: pass the registration itself, `&{name}`: a collective reads a \
             registration's local part at the call (`{ctx}.{collective}(&{name}, ..)`)"
        ),
        Problem::GpSyncInSuperstep(method) => format!(
            "`.{method}({name})` cannot be called inside a superstep\n\
             = note: `{method}` of a global pointer array includes a sync (every process takes \
             part in it), and a superstep ends with exactly one sync, made when its block ends\n\
             = help: call it before the `superstep!` block or after it"
        ),
    }
}

/// The messages of a buffer lent by `dest` to the gets of a superstep, where they differ from
/// a `get`'s.
fn dest_message(finding: &Finding, ctx: &str) -> Option<String> {
    let name = &finding.name;
    // `dest` and `get_batch` lend the buffer to the gets made through what they return.
    let lender = finding.op.name();
    let help = format!(
        "= help: use `{name}` after the end of the `superstep!` block (or `{ctx}.sync()`), when \
         the gets have written it"
    );
    Some(match finding.problem {
        Problem::PendingDestination(access) => {
            let (verb, what) = match access {
                Access::Read => ("read", "reads what is there before the gets land"),
                Access::Write => ("written", "would be overwritten by the gets at the sync"),
            };
            format!(
                "`{name}` is {verb} while `{lender}` lends it to the gets of the superstep\n\
                 = note: `{name}` receives the fetched values at the sync that ends the superstep, \
                 and stays lent until then; using it here {what}\n{help}"
            )
        }
        Problem::DestinationAgain { again, .. } => {
            let (through, fix) = if finding.op == Op::GetBatch {
                ("`GetBatch`", "get into it through the batch: `batch.get(pid, offset, i)`")
            } else {
                ("`Dest`", "get into a part of the `Dest`: `d.at(i)`, `d.range(a..b)`")
            };
            format!(
                "`{name}` is given to a `{again}` while `{lender}` lends it to the gets of the superstep\n\
                 = note: `{lender}` lends `{name}` until the sync; every get into it goes through the \
                 {through} it returned\n\
                 = help: {fix}",
                again = again.name(),
            )
        }
        _ => return None,
    })
}

/// Where the finding comes from (the operation or declaration at `op_span`), for the error's
/// message: "the `get` that makes `left` pending is at line 9, column 13".
pub(crate) fn note(finding: &Finding, op_span: Span) -> String {
    let Finding { name, op, .. } = finding;
    let at = crate::ctxt::at(op_span);
    let op = op.name();
    match finding.problem {
        Problem::PendingDestination(_) | Problem::DestinationAgain { .. }
            if matches!(finding.op, Op::Dest | Op::GetBatch) =>
        {
            format!("`{op}` lends `{name}` {at}")
        }
        Problem::PendingDestination(_) | Problem::DestinationAgain { .. } | Problem::ModifiedSource => {
            format!("the `{op}` that makes `{name}` pending is {at}")
        }
        Problem::DeclaredInSuperstep => format!("`{name}` is declared inside the superstep, {at}"),
        Problem::SameRegistration => format!("the destination borrows `{name}` {at}"),
        Problem::RemoteNameAfterLocalMut => format!("`{name}.local_mut(..)` borrows `{name}` mutably {at}"),
        Problem::LocalPartGivenToCollective(_) => format!("the collective that needs the context mutably is {at}"),
        Problem::StaleMessage => format!("`{name}` comes from the `{op}` {at}"),
        Problem::MessageLeavesSuperstep => format!("the message is taken by `hpmove` {at}"),
        Problem::SyncInSuperstep(_)
        | Problem::NestedSuperstep
        | Problem::CollectiveInSuperstep(_)
        | Problem::WithRegInSuperstep(_)
        | Problem::PutBatchInSuperstep(_)
        | Problem::GpSyncInSuperstep(_) => format!("the superstep in progress starts {at}"),
    }
}
