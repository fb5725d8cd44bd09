//! Procedural macros of [`bsplib`](https://docs.rs/bsplib): `#[bsp::program]`, `#[bsp::superstep_fn]`
//! and `bsp::superstep!`.
//!
//! This crate is an implementation detail: use the macros through the `bsp` crate, which
//! re-exports them and provides the hidden `bsp::__private` module their expansions call into.
//!
//! The crate only translates: the one table of the runtime's API that the checks read (`api`),
//! parsing and validation of the knobs (`knobs`), the program expansion (`program`), the helper
//! expansion (`helper`), the parsed `superstep!` invocation (`input`), the superstep expansion
//! (`superstep`), the compile-time checks of pending communication and of superstep alignment
//! (`analysis`), the run-time checks of alignment inserted where the analysis cannot decide
//! (`runtime_check`), and the error collector (`ctxt`); with the internal `snapshots` feature, the
//! examples' expansions for the snapshot test of `ui-tests` (`snapshot`). It never panics on user
//! input: every error is reported as a spanned `compile_error!`, all of them at once, beside the
//! best expansion of the user's code that could be made.

#![forbid(unsafe_code)]

mod analysis;
mod api;
mod ctxt;
mod helper;
mod input;
mod knobs;
mod program;
mod runtime_check;
#[cfg(feature = "snapshots")]
mod snapshot;
mod superstep;

#[cfg(test)]
mod tests;

use proc_macro::TokenStream;

/// Turns a function into an SPMD program: every process runs its body with its own context.
///
/// ```rust,ignore
/// #[bsp::program(procs = 4)]
/// fn main(ctx: &mut bsp::Ctx) {
///     let x = ctx.register([ctx.pid() as i32]);
///     let mut left = 0;
///     bsp::superstep!(ctx, {
///         ctx.get((ctx.pid() + ctx.nprocs() - 1) % ctx.nprocs(), &x, 0, &mut left);
///     });
///     println!("{} got {left}", ctx.pid());
/// }
/// ```
///
/// The function's first parameter is the process context (`ctx: &mut bsp::Ctx` or `&mut Ctx`,
/// any name). The expansion keeps that parameter's type as written and names everything else by
/// absolute paths into the hidden `bsp::__private` module.
///
/// # Knobs
///
/// - `procs = N`: the number of processes, any `usize` expression. It wins over the `BSP_NPROCS`
///   environment variable, as explicit code does in rayon and tokio; without it, `BSP_NPROCS`
///   decides, else one process per core. Under `mpirun` it must not exceed the number of ranks
///   (see `Launch::procs`).
/// - `set_up = f`: BSPlib's `bsp_init`, for a program that chooses its number of processes from
///   its input. `f` (a function or closure, `FnOnce() -> (usize, S)`) runs once, before any
///   process starts, on the calling thread (under `mpirun`, on rank 0, the rank with the
///   standard input); it returns the number of processes and a value every process receives as
///   the function's second parameter, `&S` or `S` (a copy; `S` is plain data, `bsp::Value`,
///   meant for parameters rather than large data). Its count is the count:
///   `procs` cannot be given beside it, and `BSP_NPROCS` is not read (the set-up may read it, or
///   `Launch::new().nprocs()`, as its default). Under `mpirun -n R` a count P ≤ R runs on ranks
///   `0..P` and the other ranks end quietly; P > R stops the launch with a message.
///
///   ```rust,ignore
///   fn ask() -> (usize, u64) {
///       let p = bsp::Launch::new().nprocs().unwrap_or(1); // BSP_NPROCS, the cores or the ranks
///       let n = 1000; // read from the input
///       (p.min(n as usize), n)
///   }
///
///   #[bsp::program(set_up = ask)]
///   fn main(ctx: &mut bsp::Ctx, &n: &u64) {
///       println!("process {} of {}, n = {n}", ctx.pid(), ctx.nprocs());
///   }
///   ```
/// - `crate = "path"`: where the `bsp` crate is, if the dependency was renamed
///   (`crate = "my_bsp"`).
///
/// # On `main`
///
/// A panic or `ctx.abort(..)` in any process stops every process and makes `main` print the
/// runtime's message and exit with status 1. `main` returns `()`.
///
/// The example above is equivalent to this code without the macro:
///
/// ```rust,ignore
/// fn main() {
///     let __bsp_result = ::bsp::__private::Launch::new()
///         .procs(4)
///         .run(|ctx: &mut bsp::Ctx| {
///             let x = ctx.register([ctx.pid() as i32]);
///             let mut left = 0;
///             ctx.superstep(|ctx| {
///                 ctx.get((ctx.pid() + ctx.nprocs() - 1) % ctx.nprocs(), &x, 0, &mut left);
///             });
///             println!("{} got {left}", ctx.pid());
///         });
///     ::bsp::__private::exit_on_error(__bsp_result);
/// }
/// ```
///
/// # On another function
///
/// The function becomes a reusable SPMD entry: it loses the context parameter, runs the body on
/// every process, and returns the value of every process, indexed by pid, or the first failure.
/// Its other parameters are captured by the SPMD closure, as any closure captures the variables
/// it uses: write them in the body exactly as in a plain function (`offset`, not `*offset`);
/// every process sees the same value, which must be `Sync`.
///
/// ```rust,ignore
/// #[bsp::program(procs = 2)]
/// fn sum_of_pids(ctx: &mut bsp::Ctx, offset: usize) -> usize {
///     ctx.pid() + offset
/// }
///
/// // Equivalent code without the macro:
/// fn sum_of_pids(
///     offset: usize,
/// ) -> ::core::result::Result<::std::vec::Vec<usize>, ::bsp::__private::Error> {
///     ::bsp::__private::Launch::new()
///         .procs(2)
///         .run(|ctx: &mut bsp::Ctx| -> usize { ctx.pid() + offset })
/// }
/// ```
///
/// # Compile-time checks
///
/// Over the whole function (through branches, loops, closures and the arguments of `println!`,
/// `format!`, `assert!`, ...), the macro reports, spanned at the offending use, one error per
/// mistake whose message says where the operation that caused it is (line and column):
///
/// - a read or write of a `get` or `hpget` destination (or of a buffer lent by `ctx.dest(..)`)
///   before the sync that completes it (including a second `get` into the same destination,
///   or `&mut buf[i]` in a loop);
/// - a write to an `hpput` source before the sync;
/// - a `get`/`hpget` destination or `hpput` source declared inside the superstep, gone before
///   the sync;
/// - a `get` whose source `&reg` is the registration its destination `reg.local_mut(..)` is part
///   of (take both with `reg.split_mut(ctx)` instead);
/// - `get`, `hpget` or `hpput` on the context outside every superstep (they exist only on the
///   superstep a `superstep!` block receives);
/// - an `hpmove` result used after the sync that invalidates it, or leaving the superstep that
///   took it (as the value of the block, or assigned to a variable declared before it);
/// - `ctx.sync()`, `ctx.register(..)`, `ctx.unregister(..)` (which include a sync), a
///   collective, `with_reg`, `put_batch`, a GP array's `build`/`destroy`/`memzero`, or another
///   superstep inside a superstep (the call is then handed a context of the right type, so rustc
///   does not report it a second time);
/// - `ctx.allreduce(x.local(ctx), ..)` and the other collectives given a local part (pass `&x`);
/// - processes that would make different sync points: a condition that certainly differs
///   between processes (computed from `ctx.pid()` or `ctx.time()`; with `procs = N` given as a
///   number, decided for each pid) whose branches make numbers of sync points that cannot be
///   equal, that guards a loop syncing in every iteration, or under which some processes
///   return before a sync point the others make. Where the condition only perhaps differs
///   (received messages, a `get` from a process chosen by the pid, data at a position given by
///   the pid, whether a value is `Some`), the program compiles, and each branch that syncs
///   starts with a promise of its index (`ctx.same(1u32)`, at the condition's place), which
///   debug builds check at the next sync. `ctx.same(x)` says that a value is the same on every
///   process (debug builds check it at the next sync). A closure bound to a variable counts
///   where it is called; where the count of sync points is not known (a helper given `ctx`, a
///   closure whose count is not known), nothing is reported.
///
/// The checks follow names: a copy (`let t = *tag;`, `let &t = tag;`), an assignment
/// (`m = ctx.hpmove()`) or a `&mut` handed out (`mem::swap`) ends what they know of a name, and
/// a sync they cannot see (a helper given `ctx`, a called closure that syncs) silences them.
/// Where they cannot prove a mistake they stay silent, and the runtime's types (borrows that
/// last until the sync) reject what they must. Registrations are left to the types entirely:
/// `register` includes the sync that makes a registration effective and `unregister` takes the
/// handle by value, so no use too early or too late compiles. The errors are emitted inside the
/// function's body, which makes rustc skip borrow-checking it: each mistake is reported once,
/// by the macro, not a second time as a borrow error.
///
/// # Errors
///
/// Using the attribute on something else than a function, on an `async fn`, with an unknown or
/// duplicate knob or a bad value is a compile error that lists the valid knobs.
#[proc_macro_attribute]
pub fn program(args: TokenStream, item: TokenStream) -> TokenStream {
    program::expand(args.into(), item.into()).into()
}

/// Checks a helper function given the context as `#[bsp::program]` checks a program, and makes
/// a helper that syncs on every path promise, at its start, that every process calls it.
///
/// ```rust,ignore
/// #[bsp::superstep_fn]
/// fn exchange(ctx: &mut bsp::Ctx, x: &bsp::Reg<u64>) -> u64 {
///     let mut left = 0;
///     bsp::superstep!(ctx, {
///         ctx.get((ctx.pid() + 1) % ctx.nprocs(), x, 0, &mut left);
///     });
///     left
/// }
/// ```
///
/// The helper's first parameter is the context (`ctx: &mut bsp::Ctx`, any name). Its body gets
/// the checks of `#[bsp::program]`: a `get` destination read before its sync, an `hpmove`
/// result kept past it, processes that would make different sync points inside the helper, ...
/// The body's `superstep!` blocks are lowered as in a program.
///
/// A caller's check cannot read the helper, so a call of it counts as code the caller does not
/// know. Where every path through the helper makes a sync point, its expansion starts with
/// `ctx.same(1u32)` spanned at its name: if only some processes call it
/// (`if ctx.pid() == 0 { exchange(ctx, &x); }`), debug builds fail the run at the helper's first
/// sync, naming the helper's place ("process 1 made no such promise").
#[proc_macro_attribute]
pub fn superstep_fn(args: TokenStream, item: TokenStream) -> TokenStream {
    helper::expand(args.into(), item.into()).into()
}

/// Marks one superstep: its block runs the BSPlib operations, then the superstep ends with a
/// sync.
///
/// ```rust,ignore
/// let mut left = 0;
/// bsp::superstep!(ctx, {
///     ctx.get(ctx.pid().saturating_sub(1), &x, 0, &mut left);
///     ctx.put(0, &[ctx.pid() as i32], &all, ctx.pid());
/// });
/// // `left` holds the value here, after the sync.
/// ```
///
/// The first argument is the context (`&mut bsp::Ctx`); inside the block the same name is the
/// superstep in progress (`&bsp::Superstep`), which offers everything `Ctx` does plus `get`,
/// `hpget` and `hpput`, whose buffers stay borrowed until the sync. The block's value is the
/// value of `superstep!`. Outside `superstep!`, `ctx.sync()` still ends a superstep.
///
/// The example above is equivalent to this code without the macro:
///
/// ```rust,ignore
/// let mut left = 0;
/// ctx.superstep(|ctx| {
///     ctx.get(ctx.pid().saturating_sub(1), &x, 0, &mut left);
///     ctx.put(0, &[ctx.pid() as i32], &all, ctx.pid());
/// });
/// ```
///
/// # Errors
///
/// `return`, `?`, and `break`/`continue` to a loop outside the block are compile errors: the
/// block is the body of a closure, so they could only leave the superstep. Used on its own
/// (outside `#[bsp::program]`), `superstep!` also runs the checks of `#[bsp::program]` over its
/// block.
#[proc_macro]
pub fn superstep(input: TokenStream) -> TokenStream {
    superstep::expand(input.into()).into()
}

/// What this crate makes of each example in a directory, for the expansion snapshots of
/// `ui-tests`. Not part of the API: only the `snapshots` feature, which only `ui-tests` enables,
/// has it (see `snapshot.rs`).
#[cfg(feature = "snapshots")]
#[doc(hidden)]
#[proc_macro]
pub fn __expansions(input: TokenStream) -> TokenStream {
    snapshot::expansions(input.into()).into()
}
