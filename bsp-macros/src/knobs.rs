//! The knobs of `#[bsp::program(...)]`: parsing and validation.
//!
//! Parsing is two phases, like `serde_derive`'s attributes: the tokens are first read into raw
//! `name [= value]` pairs (only a malformed list stops there), then every pair is validated on its
//! own, so an unknown knob, a duplicate and a bad value are all reported by the same build.

use crate::ctxt::Ctxt;
use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt as _;
use syn::parse::{ParseStream, Parser as _};
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, Lit, Path, Token};

/// The list of valid knobs, appended to every knob error.
pub(crate) const VALID_KNOBS: &str =
    "the valid knobs are `procs = <expression>` (the number of processes, which wins over \
     `BSP_NPROCS`), `set_up = <function>` (run once before the processes start, it returns \
     their number and a value every process receives) and `crate = \"<path>\"` (where the `bsp` \
     crate is, if it was renamed)";

/// The validated knobs.
#[derive(Debug)]
pub(crate) struct Knobs {
    /// `procs = N`: the number of processes, if given (it wins over `BSP_NPROCS`).
    pub(crate) procs: Option<Expr>,
    /// `set_up = f`: BSPlib's `bsp_init`, a function run once before the processes start, on
    /// process 0 (under `mpirun`, rank 0), that returns the number of processes and a value
    /// every process receives as the function's second parameter.
    pub(crate) set_up: Option<Expr>,
    /// The absolute path of the `bsp` crate: `::bsp` unless `crate = "..."` says otherwise.
    pub(crate) krate: Path,
}

/// One `name` or `name = value` item, before validation.
struct RawKnob {
    name: Ident,
    value: Option<Expr>,
}

fn parse_raw(input: ParseStream<'_>) -> syn::Result<Punctuated<RawKnob, Token![,]>> {
    let mut knobs = Punctuated::new();
    while !input.is_empty() {
        if !input.peek(Ident::peek_any) {
            return Err(input.error(format_args!("expected a knob; {VALID_KNOBS}")));
        }
        let name = input.call(Ident::parse_any)?;
        let value = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            Some(input.parse::<Expr>()?)
        } else {
            None
        };
        knobs.push_value(RawKnob { name, value });
        if input.is_empty() {
            break;
        }
        knobs.push_punct(input.parse::<Token![,]>()?);
    }
    Ok(knobs)
}

/// Parses and validates the attribute's arguments; every problem is reported into `cx` and the
/// knob in error is left at its default, so the expansion can go on.
pub(crate) fn parse(args: TokenStream, cx: &mut Ctxt) -> Knobs {
    let mut knobs = Knobs { procs: None, set_up: None, krate: syn::parse_quote!(::bsp) };
    let raw = match parse_raw.parse2(args) {
        Ok(raw) => raw,
        Err(error) => {
            cx.syn_error(error);
            return knobs;
        }
    };
    let mut seen_procs = false;
    let mut seen_crate = false;
    let mut seen_set_up = false;
    for knob in raw {
        let name = knob.name.to_string();
        match name.as_str() {
            "procs" => {
                if std::mem::replace(&mut seen_procs, true) {
                    duplicate(cx, &knob.name);
                    continue;
                }
                knobs.procs = procs_value(cx, &knob);
            }
            "set_up" => {
                if std::mem::replace(&mut seen_set_up, true) {
                    duplicate(cx, &knob.name);
                    continue;
                }
                // After an error a set-up that never runs stands in, so that the function's
                // value parameter still expands as the user wrote it.
                knobs.set_up = Some(knob.value.clone().unwrap_or_else(|| syn::parse_quote!(|| ::core::unreachable!())));
                if knob.value.is_none() {
                    cx.error(
                        knob.name.span(),
                        "`set_up` needs a value, a function that returns the number of processes \
                         and a value for every process: `set_up = read_input`, with \
                         `fn read_input() -> (usize, Input)`",
                    );
                }
            }
            "crate" => {
                if std::mem::replace(&mut seen_crate, true) {
                    duplicate(cx, &knob.name);
                    continue;
                }
                if let Some(path) = crate_value(cx, &knob) {
                    knobs.krate = path;
                }
            }
            _ => cx.error(knob.name.span(), format_args!("unknown knob `{name}` for `#[bsp::program]`; {VALID_KNOBS}")),
        }
    }
    if let (Some(procs), Some(_)) = (&knobs.procs, &knobs.set_up) {
        cx.error_spanned_by(
            procs,
            "`procs` and `set_up` both choose the number of processes: with `set_up` the count \
             its function returns is the count\n= help: remove `procs`; the set-up function may \
             use it as its default",
        );
        knobs.procs = None;
    }
    knobs
}

fn duplicate(cx: &mut Ctxt, name: &Ident) {
    cx.error(name.span(), format_args!("duplicate knob `{name}`: give it once; {VALID_KNOBS}"));
}

fn procs_value(cx: &mut Ctxt, knob: &RawKnob) -> Option<Expr> {
    match &knob.value {
        None => {
            cx.error(knob.name.span(), "`procs` needs a value, the number of processes: `procs = 4`");
            None
        }
        Some(Expr::Lit(lit)) if !matches!(lit.lit, Lit::Int(_)) => {
            cx.error_spanned_by(
                lit,
                "`procs` takes a `usize` expression, such as `procs = 4` or `procs = 2 * N`, \
                 not a literal of another type",
            );
            None
        }
        Some(expr) => Some(expr.clone()),
    }
}

fn crate_value(cx: &mut Ctxt, knob: &RawKnob) -> Option<Path> {
    const EXPECTED: &str = "`crate` takes the path of the renamed `bsp` dependency as a string: `crate = \"my_bsp\"`";
    let Some(value) = &knob.value else {
        cx.error(knob.name.span(), EXPECTED);
        return None;
    };
    let Expr::Lit(syn::ExprLit { lit: Lit::Str(lit), .. }) = value else {
        cx.error_spanned_by(value, EXPECTED);
        return None;
    };
    match lit.parse::<Path>() {
        Ok(path) => Some(absolute(path, lit.span())),
        Err(_) => {
            cx.error(lit.span(), format_args!("`{}` is not a path; {EXPECTED}", lit.value()));
            None
        }
    }
}

/// `foo` becomes `::foo`; `::foo`, `crate::foo`, `self::…` and `super::…` stay as written.
fn absolute(mut path: Path, span: Span) -> Path {
    let relative_keyword =
        path.segments.first().is_some_and(|s| s.ident == "crate" || s.ident == "self" || s.ident == "super");
    if path.leading_colon.is_none() && !relative_keyword {
        path.leading_colon = Some(Token![::](span));
    }
    path
}
