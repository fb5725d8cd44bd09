//! What the walker can see inside macro invocations: the arguments of the standard macros
//! (`println!`, `format!`, `assert!`, `write!`, `vec!`, `dbg!`, ...) parsed as expressions, and
//! the names a format string captures inline (`"{left}"`, `"{left:?}"`). Only the argument in
//! a macro's format-string position is a format string (`assert_eq!(s, "{left}")` compares a
//! plain string), and a name given as an argument (`"{left}", left = 5`) is not a capture.
//!
//! Other macros are opaque: their tokens are not analysed (no finding can come from them).

use syn::parse::{ParseStream, Parser as _};
use syn::punctuated::Punctuated;
use syn::{Expr, Macro, Token};

/// How the walker should treat one macro invocation.
pub(crate) enum MacroKind {
    /// `superstep!`: analysed as a superstep.
    Superstep,
    /// A standard macro whose arguments are expressions; `format` is the position of its format
    /// string (`println!` 0, `write!` 1, `assert_eq!` 2), `diverges` for `panic!` and friends.
    Args { format: Option<usize>, diverges: bool },
    /// `vec![x; n]` or `vec![a, b]`.
    Vec,
    /// `matches!(expr, pattern)`: only the expression is a use.
    Matches,
    /// Anything else.
    Opaque,
}

pub(crate) fn classify(mac: &Macro) -> MacroKind {
    let Some(last) = mac.path.segments.last() else {
        return MacroKind::Opaque;
    };
    let name = last.ident.to_string();
    match name.as_str() {
        "superstep" => MacroKind::Superstep,
        "print" | "println" | "eprint" | "eprintln" | "format" | "format_args" | "trace" | "debug" | "info"
        | "warn" | "error" => MacroKind::Args { format: Some(0), diverges: false },
        "write" | "writeln" | "assert" | "debug_assert" => MacroKind::Args { format: Some(1), diverges: false },
        "assert_eq" | "assert_ne" | "debug_assert_eq" | "debug_assert_ne" => {
            MacroKind::Args { format: Some(2), diverges: false }
        }
        "panic" | "unreachable" | "todo" | "unimplemented" => MacroKind::Args { format: Some(0), diverges: true },
        "dbg" => MacroKind::Args { format: None, diverges: false },
        "vec" => MacroKind::Vec,
        "matches" => MacroKind::Matches,
        _ => MacroKind::Opaque,
    }
}

/// The comma-separated expressions of a macro, or `None` if they do not parse as such (then the
/// invocation is treated as opaque).
pub(crate) fn comma_args(mac: &Macro) -> Option<Vec<Expr>> {
    let parser = Punctuated::<Expr, Token![,]>::parse_terminated;
    parser.parse2(mac.tokens.clone()).ok().map(|args| args.into_iter().collect())
}

/// `vec![x; n]` or `vec![a, b, ...]`.
pub(crate) fn vec_args(mac: &Macro) -> Option<Vec<Expr>> {
    let repeat = |input: ParseStream<'_>| {
        let elem: Expr = input.parse()?;
        input.parse::<Token![;]>()?;
        let len: Expr = input.parse()?;
        Ok(vec![elem, len])
    };
    repeat.parse2(mac.tokens.clone()).ok().or_else(|| comma_args(mac))
}

/// The expression before the first comma of `matches!(expr, pattern)`.
pub(crate) fn first_arg(mac: &Macro) -> Option<Expr> {
    let first = |input: ParseStream<'_>| {
        let expr: Expr = input.parse()?;
        input.parse::<proc_macro2::TokenStream>()?;
        Ok(expr)
    };
    first.parse2(mac.tokens.clone()).ok()
}

/// The names a format string captures inline, in order:
/// `"{left} and {right:?}"` gives `left` and `right`; `{}`, `{0}` and `{{` capture nothing.
pub(crate) fn inline_captures(format: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
            }
            '{' => {
                let mut name = String::new();
                while let Some(&c) = chars.peek() {
                    if c == '}' || c == ':' {
                        break;
                    }
                    name.push(c);
                    chars.next();
                }
                let name = name.trim().to_owned();
                let is_ident = name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_alphanumeric() || c == '_')
                    && name != "_";
                if is_ident {
                    names.push(name);
                }
            }
            _ => {}
        }
    }
    names
}
