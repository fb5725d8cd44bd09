//! Parsing and validation of `#[bsp::program(...)]` knobs.

use crate::ctxt::Ctxt;
use crate::knobs::{parse, Knobs, VALID_KNOBS};
use quote::{quote, ToTokens as _};

fn knobs(args: proc_macro2::TokenStream) -> (Knobs, Vec<String>) {
    let mut cx = Ctxt::new();
    let knobs = parse(args, &mut cx);
    (knobs, cx.messages())
}

fn text(tokens: impl quote::ToTokens) -> String {
    tokens.to_token_stream().to_string()
}

#[test]
fn no_knobs() {
    let (knobs, errors) = knobs(quote!());
    assert!(errors.is_empty());
    assert!(knobs.procs.is_none());
    assert_eq!(text(&knobs.krate), ":: bsp");
}

#[test]
fn procs_takes_an_expression() {
    let (knobs, errors) = knobs(quote!(procs = 2 * N,));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(text(knobs.procs.as_ref().map(|p| p.to_token_stream())), "2 * N");
}

#[test]
fn crate_is_made_absolute() {
    let (knobs, errors) = knobs(quote!(procs = 4, crate = "my_bsp"));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(text(&knobs.krate), ":: my_bsp");
    let (knobs, _) = knobs_of("crate::reexport::bsp");
    assert_eq!(text(&knobs.krate), "crate :: reexport :: bsp");
}

fn knobs_of(path: &str) -> (Knobs, Vec<String>) {
    knobs(quote!(crate = #path))
}

#[test]
fn unknown_knob_lists_the_valid_ones() {
    let (_, errors) = knobs(quote!(threads = 4));
    assert_eq!(errors, [format!("unknown knob `threads` for `#[bsp::program]`; {VALID_KNOBS}")]);
}

#[test]
fn duplicate_knob() {
    let (knobs, errors) = knobs(quote!(procs = 4, procs = 8));
    assert_eq!(errors, [format!("duplicate knob `procs`: give it once; {VALID_KNOBS}")]);
    assert_eq!(text(knobs.procs.as_ref().map(|p| p.to_token_stream())), "4");
}

#[test]
fn bad_values() {
    let (_, errors) = knobs(quote!(procs = "4"));
    assert!(errors[0].starts_with("`procs` takes a `usize` expression"), "{errors:?}");
    let (_, errors) = knobs(quote!(procs));
    assert!(errors[0].starts_with("`procs` needs a value"), "{errors:?}");
    let (_, errors) = knobs(quote!(crate = my_bsp));
    assert!(errors[0].starts_with("`crate` takes the path"), "{errors:?}");
    let (_, errors) = knobs_of("not a path");
    assert!(errors[0].starts_with("`not a path` is not a path"), "{errors:?}");
}

#[test]
fn every_error_is_reported() {
    let (_, errors) = knobs(quote!(threads = 1, procs, crate = 3, procs = 2, procs = 3));
    assert_eq!(errors.len(), 5, "{errors:#?}");
    // A valid knob beside the errors is still taken.
    let (knobs, errors) = knobs(quote!(threads = 1, crate = 3, procs = 2));
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert_eq!(text(knobs.procs.as_ref().map(|p| p.to_token_stream())), "2");
}

#[test]
fn malformed_list() {
    let (_, errors) = knobs(quote!(4));
    assert_eq!(errors, [format!("expected a knob; {VALID_KNOBS}")]);
    let (_, errors) = knobs(quote!(procs = 4 crate = "x"));
    assert_eq!(errors, ["expected `,`"]);
}
