//! The error collector: every phase reports into one `Ctxt`, so a single build shows all the
//! mistakes at once (the same idea as `serde_derive`'s `internals::Ctxt`).
//!
//! Unlike serde's, this collector has no `Drop` check that panics when errors are forgotten: the
//! macro crate never panics. Every entry point ends with [`Ctxt::into_compile_errors`].

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

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
