//! The error collector: every phase reports into one `Ctxt`, so a single build shows all the
//! mistakes at once (the same idea as `serde_derive`'s `internals::Ctxt`).
//!
//! Unlike serde's, this collector has no `Drop` check that panics when errors are forgotten: the
//! macro crate never panics. Every entry point ends with [`Ctxt::into_compile_errors`].

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

/// Where `span` starts in its source file, as rustc shows it (`line 8, column 13`), for a
/// message that points at a second place: stable proc macros cannot attach a spanned note to an
/// error, so the place goes into the one error's text. Outside a proc macro (the crate's unit
/// tests) spans carry no location: `None`.
pub(crate) fn location(span: Span) -> Option<String> {
    if !proc_macro::is_available() {
        return None;
    }
    let span = span.unwrap();
    Some(format!("line {}, column {}", span.line(), span.column()))
}

/// `at line 8, column 13`, or `elsewhere in the function` where no location is known.
pub(crate) fn at(span: Span) -> String {
    match location(span) {
        Some(place) => format!("at {place}"),
        None => "elsewhere in the function".to_owned(),
    }
}

/// Collected errors of one macro invocation, in the order they were found.
#[derive(Debug, Default)]
pub(crate) struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Ctxt::default()
    }

    /// An error spanned at `span`.
    pub(crate) fn error(&mut self, span: Span, message: impl std::fmt::Display) {
        self.errors.push(syn::Error::new(span, message));
    }

    /// An error spanned over all of `tokens` (from their first to their last token).
    pub(crate) fn error_spanned_by(&mut self, tokens: impl ToTokens, message: impl std::fmt::Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }

    /// An error produced by a `syn` parser.
    pub(crate) fn syn_error(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The messages, for tests.
    #[cfg(test)]
    pub(crate) fn messages(&self) -> Vec<String> {
        self.errors.iter().map(ToString::to_string).collect()
    }

    /// One `compile_error!` per collected error, each spanned at its tokens.
    pub(crate) fn into_compile_errors(self) -> TokenStream {
        self.errors.iter().map(syn::Error::to_compile_error).collect()
    }
}
