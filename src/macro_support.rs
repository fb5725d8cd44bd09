//! Items that only the macros' expansions use, reached through `bsp::__private`.

/// The bound behind `moved_into_a_closure_before_its_get`: a `get` destination that a `move`
/// closure captured before the `get` is still there for the `get` only if the closure took a
/// copy.
#[diagnostic::on_unimplemented(
    message = "this `get` destination moves into a closure before the `get`, and the closure reads it before the sync that fills it",
    label = "`{Self}` is not `Copy`: this closure takes the variable itself, and leaves the `get` nothing to fill",
    note = "a `get` destination receives the fetched value at the sync that ends the superstep; nothing may read it before that sync",
    note = "to read the fetched value, use the variable after the end of the `superstep!` block (or `ctx.sync()`); to read the value from before the `get`, move a clone into the closure: `let before = buf.clone(); move || before[0]`"
)]
pub trait MovedIntoAClosureBeforeItsGet {}

#[diagnostic::do_not_recommend]
impl<T: Copy> MovedIntoAClosureBeforeItsGet for T {}

/// Placed by `superstep!` before a statement that moves a later `get` destination into a `move`
/// closure: compiles (and does nothing) when the closure takes a copy, and is the one error
/// otherwise, in place of rustc's use-after-move and lifetime errors.
#[inline(always)]
pub fn moved_into_a_closure_before_its_get<T: MovedIntoAClosureBeforeItsGet>(_: &T) {}
