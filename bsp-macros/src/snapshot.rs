//! `__expansions!("../examples")`: what this crate makes of each example, for the expansion
//! snapshots of `ui-tests` (`ui-tests/tests/expand.rs`). Only with the `snapshots` feature,
//! which only `ui-tests` enables: it is a test's view of the lowering, not a macro for users.
//!
//! Each `<dir>/<name>.rs` (the directory relative to the crate that invokes the macro) is
//! expanded the way rustc would call this crate: every function with `#[bsp::program]` goes
//! through the attribute, every `superstep!` outside such a function goes through `superstep!` on
//! its own. Other macros (`println!`, ...) are left as written. The macro evaluates to
//! `&[(name, Some(expansion))]`, sorted by name, the expansion as unformatted tokens (`None` for
//! an example that uses neither macro), and includes each source with `include_bytes!`, so that
//! editing an example rebuilds the test.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Item, LitStr, Meta, Stmt};

pub(crate) fn expansions(input: TokenStream) -> TokenStream {
    match expand_dir(input) {
        Ok(tokens) => tokens,
        Err(error) => error.to_compile_error(),
    }
}

fn expand_dir(input: TokenStream) -> syn::Result<TokenStream> {
    let dir: LitStr = syn::parse2(input)?;
    let error = |message: String| syn::Error::new(dir.span(), message);
    let root = std::env::var("CARGO_MANIFEST_DIR").map_err(|_| error("`CARGO_MANIFEST_DIR` is not set".to_owned()))?;
    let dir_path = std::path::Path::new(&root).join(dir.value());
    let entries =
        std::fs::read_dir(&dir_path).map_err(|e| error(format!("cannot read {}: {e}", dir_path.display())))?;
    let mut files: Vec<(String, std::path::PathBuf)> = entries
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let name = (path.extension()? == "rs").then(|| path.file_stem()?.to_str().map(str::to_owned))??;
            Some((name, path))
        })
        .collect();
    files.sort();
    let mut rows = Vec::new();
    for (name, path) in files {
        let source =
            std::fs::read_to_string(&path).map_err(|e| error(format!("cannot read {}: {e}", path.display())))?;
        let expansion = match expand_example(&source) {
            Ok(Some(tokens)) => {
                let text = LitStr::new(&tokens.to_string(), Span::call_site());
                quote!(::core::option::Option::Some(#text))
            }
            Ok(None) => quote!(::core::option::Option::None),
            Err(e) => {
                let text = LitStr::new(&format!("examples/{name}.rs does not parse: {e}"), Span::call_site());
                quote!(::core::option::Option::Some(#text))
            }
        };
        let file = LitStr::new(&path.display().to_string(), Span::call_site());
        rows.push(quote!((#name, { const _: &[u8] = ::core::include_bytes!(#file); #expansion })));
    }
    Ok(quote!(&[#(#rows),*]))
}

/// The expanded items of one example's source; `None` if it uses neither macro.
fn expand_example(source: &str) -> syn::Result<Option<TokenStream>> {
    let mut file = syn::parse_file(source)?;
    let before = file.clone();
    let items = std::mem::take(&mut file.items);
    file.items = items.into_iter().flat_map(expand_item).collect();
    Ok((file != before).then(|| quote!(#file)))
}

fn expand_item(item: Item) -> Vec<Item> {
    let Item::Fn(mut function) = item else {
        return vec![item];
    };
    let position =
        function.attrs.iter().position(|attr| attr.path().segments.last().is_some_and(|s| s.ident == "program"));
    match position {
        Some(position) => {
            let attr = function.attrs.remove(position);
            let args = match attr.meta {
                Meta::List(list) => list.tokens,
                _ => TokenStream::new(),
            };
            let expanded = crate::program::expand(args, quote!(#function));
            match syn::parse2::<syn::File>(expanded.clone()) {
                Ok(file) => file.items,
                Err(_) => vec![Item::Verbatim(expanded)],
            }
        }
        None => {
            ExpandSupersteps.visit_block_mut(&mut function.block);
            vec![Item::Fn(function)]
        }
    }
}

/// Replaces each `superstep!` by what `superstep!` on its own expands to.
struct ExpandSupersteps;

fn superstep_expansion(mac: &syn::Macro) -> Option<Expr> {
    if mac.path.segments.last()?.ident != "superstep" {
        return None;
    }
    let expanded = crate::superstep::expand(mac.tokens.clone());
    Some(syn::parse2(expanded.clone()).unwrap_or(Expr::Verbatim(expanded)))
}

impl VisitMut for ExpandSupersteps {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Macro(mac) = expr {
            if let Some(expanded) = superstep_expansion(&mac.mac) {
                *expr = expanded;
                return;
            }
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        if let Stmt::Macro(mac) = stmt {
            if let Some(expanded) = superstep_expansion(&mac.mac) {
                *stmt = Stmt::Expr(expanded, mac.semi_token);
                return;
            }
        }
        visit_mut::visit_stmt_mut(self, stmt);
    }
}
