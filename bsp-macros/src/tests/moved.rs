//! Where `superstep!` places the `Copy` check for a `get` destination moved into a closure
//! before the `get` (`analysis/moved.rs`): before the statement that makes the closure, and
//! nowhere the check cannot follow.

use crate::analysis::guard_moved_destinations;
use quote::{quote, ToTokens as _};
use syn::{parse_quote, Block};

/// The names given to the check, in statement order.
fn guarded(mut block: Block) -> Vec<String> {
    guard_moved_destinations(&mut block, &quote!(::bsp::__private));
    let mut names = Vec::new();
    for stmt in &block.stmts {
        let text = stmt.to_token_stream().to_string();
        if let Some(rest) = text.strip_prefix(":: bsp :: __private :: moved_into_a_closure_before_its_get (& ") {
            names.push(rest.split(')').next().unwrap_or_default().trim().to_owned());
        }
    }
    names
}

#[test]
fn a_destination_moved_into_a_closure_before_its_get() {
    let block: Block = parse_quote!({
        let show = move || buf[0];
        ctx.get(1, &x, 0, &mut buf[..]);
        println!("{}", show());
    });
    assert_eq!(guarded(block.clone()), ["buf"]);
    let mut lowered = block;
    guard_moved_destinations(&mut lowered, &quote!(::bsp::__private));
    assert_eq!(lowered.stmts.len(), 4, "the check goes before the closure's statement");
    assert!(lowered.stmts[1].to_token_stream().to_string().starts_with("let show"));
}

#[test]
fn a_buffer_lent_by_dest_and_a_closure_inside_a_format_macro() {
    assert_eq!(
        guarded(parse_quote!({
            let show = move || println!("{}", buf.len());
            let d = ctx.dest(&mut buf);
            ctx.hpget(1, &x, 0, d.at(0));
        })),
        ["buf"]
    );
}

#[test]
fn no_check_where_the_closure_does_not_take_the_variable() {
    // A closure without `move` borrows (the borrow checker and the walker speak then).
    assert!(guarded(parse_quote!({
        let show = || buf[0];
        ctx.get(1, &x, 0, &mut buf[..]);
    }))
    .is_empty());
    // A field is captured on its own; the `get` fills the variable's other parts.
    assert!(guarded(parse_quote!({
        let show = move || pair.0;
        ctx.get(1, &x, 0, &mut pair.1);
    }))
    .is_empty());
    // The closure binds the name itself.
    assert!(guarded(parse_quote!({
        let show = move |buf: [i32; 2]| buf[0];
        ctx.get(1, &x, 0, &mut buf[..]);
    }))
    .is_empty());
    // The closure comes after the `get` (the walker reports that read).
    assert!(guarded(parse_quote!({
        ctx.get(1, &x, 0, &mut buf[..]);
        let show = move || buf[0];
    }))
    .is_empty());
}

#[test]
fn no_check_where_the_variable_is_given_a_value_again() {
    assert!(guarded(parse_quote!({
        let show = move || buf[0];
        buf = vec![0; 2];
        ctx.get(1, &x, 0, &mut buf[..]);
    }))
    .is_empty());
    assert!(guarded(parse_quote!({
        let show = move || buf[0];
        let mut buf = vec![0; 2];
        ctx.get(1, &x, 0, &mut buf[..]);
    }))
    .is_empty());
    // An opaque macro might do anything with it.
    assert!(guarded(parse_quote!({
        let show = move || my_macro!(buf);
        ctx.get(1, &x, 0, &mut buf[..]);
    }))
    .is_empty());
}
