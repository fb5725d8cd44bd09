//! The API's table (`api.rs`) against the runtime's sources: every public method of the types
//! the table covers is listed, nothing else is, and each classification agrees with what the
//! signature and the body say where they can say it.

use crate::api::{Effect, On, METHODS};
use quote::ToTokens as _;
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// One public method of the runtime, as its source shows it.
struct Found {
    on: On,
    name: String,
    /// `sync/mod.rs`, `ext/collective/mod.rs`, ...
    file: String,
    receiver: Receiver,
    /// The signature's tokens, as text.
    signature: String,
    /// Whether its body calls `sync` or another method that the table says syncs.
    body_syncs: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Receiver {
    None,
    Ref,
    RefMut,
    Value,
}

fn runtime_sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../bsp-runtime/src")
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the runtime's sources").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// Every item of every file (inline modules flattened), with the file's path under `src/`.
fn items() -> Vec<(String, syn::Item)> {
    let root = runtime_sources();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    let mut items = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("a readable source file");
        let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let shown = path.strip_prefix(&root).expect("under src").display().to_string();
        let mut stack: Vec<syn::Item> = file.items;
        while let Some(item) = stack.pop() {
            if let syn::Item::Mod(syn::ItemMod { content: Some((_, inner)), .. }) = &item {
                stack.extend(inner.iter().cloned());
            }
            items.push((shown.clone(), item));
        }
    }
    items
}

/// The traits no type implements: a method bounded by one exists only for the runtime's types to
/// reject a call with a message of their own.
fn never_implemented(items: &[(String, syn::Item)]) -> Vec<String> {
    let implemented: Vec<String> = items
        .iter()
        .filter_map(|(_, item)| match item {
            syn::Item::Impl(imp) => imp.trait_.as_ref().and_then(|(path, _)| path.segments.last()),
            _ => None,
        })
        .map(|segment| segment.ident.to_string())
        .collect();
    // Impls written by a macro (`impl_local_parts!` over tuples) are not `impl` items here.
    let in_macros: String = items
        .iter()
        .filter_map(|(_, item)| match item {
            syn::Item::Macro(mac) => Some(mac.mac.tokens.to_string()),
            _ => None,
        })
        .collect();
    items
        .iter()
        .filter_map(|(_, item)| match item {
            syn::Item::Trait(t) if matches!(t.vis, syn::Visibility::Public(_)) => Some(t.ident.to_string()),
            _ => None,
        })
        .filter(|name| !implemented.contains(name))
        .filter(|name| !in_macros.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == name))
        .collect()
}

struct CallsSync(bool);

impl<'a> Visit<'a> for CallsSync {
    fn visit_expr_method_call(&mut self, call: &'a syn::ExprMethodCall) {
        let name = call.method.to_string();
        // `sync_for` is the runtime's sync that says what it is part of (for the watchdog).
        let syncs = name == "sync"
            || name == "sync_for"
            || METHODS.iter().any(|m| m.on == On::Ctx && m.name == name && m.effect == Effect::Syncs);
        self.0 |= syncs;
        syn::visit::visit_expr_method_call(self, call);
    }
}

/// The public methods of the table's types in the runtime's sources.
fn runtime_methods(items: &[(String, syn::Item)]) -> Vec<Found> {
    let mut found = Vec::new();
    for (file, item) in items {
        let syn::Item::Impl(imp) = item else {
            continue;
        };
        if imp.trait_.is_some() {
            continue;
        }
        let syn::Type::Path(ty) = &*imp.self_ty else {
            continue;
        };
        let Some(last) = ty.path.segments.last() else {
            continue;
        };
        let Some((on, _)) = On::ALL.iter().find(|(_, name)| last.ident == name) else {
            continue;
        };
        for impl_item in &imp.items {
            let syn::ImplItem::Fn(f) = impl_item else {
                continue;
            };
            if !matches!(f.vis, syn::Visibility::Public(_)) {
                continue;
            }
            let receiver = match f.sig.receiver().map(|r| &r.kind) {
                None => Receiver::None,
                Some(syn::ReceiverKind::Reference(_, _, Some(_))) => Receiver::RefMut,
                Some(syn::ReceiverKind::Reference(_, _, None)) => Receiver::Ref,
                Some(_) => Receiver::Value,
            };
            let mut calls = CallsSync(false);
            calls.visit_block(&f.block);
            found.push(Found {
                on: *on,
                name: f.sig.ident.to_string(),
                file: file.clone(),
                receiver,
                signature: f.sig.to_token_stream().to_string(),
                body_syncs: calls.0,
            });
        }
    }
    found
}

fn effect_of(on: On, name: &str) -> Option<Effect> {
    METHODS.iter().find(|m| m.on == on && m.name == name).map(|m| m.effect)
}

#[test]
fn the_table_lists_every_public_method_of_the_runtime_and_nothing_else() {
    let items = items();
    let found = runtime_methods(&items);
    assert!(found.len() > 100, "only {} methods found: did the runtime's layout change?", found.len());
    let mut missing: Vec<String> = found
        .iter()
        .filter(|f| effect_of(f.on, &f.name).is_none())
        .map(|f| format!("{:?}::{} ({})", f.on, f.name, f.file))
        .collect();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "public methods of the runtime missing from bsp-macros/src/api.rs:\n{}",
        missing.join("\n")
    );
    let stale: Vec<String> = METHODS
        .iter()
        .filter(|m| !found.iter().any(|f| f.on == m.on && f.name == m.name))
        .map(|m| format!("{:?}::{}", m.on, m.name))
        .collect();
    assert!(stale.is_empty(), "methods in bsp-macros/src/api.rs that the runtime does not have:\n{}", stale.join("\n"));
    let mut twice: Vec<String> = Vec::new();
    for (i, m) in METHODS.iter().enumerate() {
        if METHODS[..i].iter().any(|n| n.on == m.on && n.name == m.name) {
            twice.push(format!("{:?}::{}", m.on, m.name));
        }
    }
    assert!(twice.is_empty(), "listed twice: {twice:?}");
}

#[test]
fn each_classification_agrees_with_the_runtime() {
    let items = items();
    let never = never_implemented(&items);
    assert!(never.iter().any(|t| t == "CollectivesBetweenSupersteps"), "the stubs' traits: {never:?}");
    let found = runtime_methods(&items);
    let mut wrong = Vec::new();
    for f in &found {
        let Some(effect) = effect_of(f.on, &f.name) else {
            continue; // the other test reports it
        };
        let mut check = |ok: bool, why: &str| {
            if !ok {
                wrong.push(format!("{:?}::{} is {effect:?}, but {why} ({})", f.on, f.name, f.file));
            }
        };
        let stub = never.iter().any(|t| f.signature.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == t));
        if stub {
            // A stub stands for the method of the same name on the other context type.
            let other = if f.on == On::Superstep { On::Ctx } else { On::Superstep };
            match effect_of(other, &f.name) {
                Some(real) => {
                    check(effect == real, &format!("it is a stub for {other:?}::{}, which is {real:?}", f.name))
                }
                None => check(effect == Effect::Rejected, "it is a stub no call compiles to"),
            }
            continue;
        }
        let mut_ctx = f.signature.contains("& mut Ctx")
            || (f.on == On::Ctx && f.receiver == Receiver::RefMut)
            || f.signature.contains("& 'env mut self");
        check(!effect.syncs() || mut_ctx, "it does not take the context mutably, and a sync needs it");
        check((effect == Effect::Exits) == f.signature.ends_with("-> !"), "only a method that never returns exits");
        let in_collectives = f.file.starts_with("ext/collective/");
        if matches!(f.on, On::Ctx | On::Team) && in_collectives {
            let collective = f.on == On::Ctx || f.signature.contains("ctx : & mut Ctx");
            check(
                (effect == Effect::Collective) == collective,
                "a collective lives with the collectives and takes the context",
            );
        } else {
            check(effect != Effect::Collective, "it is not one of the collectives");
        }
        let given_the_superstep = f.signature.contains("Superstep <") && f.on != On::Ctx;
        check(
            (effect == Effect::Lends) == (given_the_superstep || f.on == On::Superstep),
            "what lends until the sync is given the superstep (or is the superstep's)",
        );
        // (`superstep_then` hands its second closure the context too, after a superstep.)
        let closure_with_ctx =
            f.signature.contains("FnOnce (& mut Ctx") && !f.signature.contains("FnOnce (& 's Superstep");
        check(
            (effect == Effect::Scoped) == closure_with_ctx,
            "what runs a closure between registrations hands it the context",
        );
        let closure_with_superstep = f.on == On::Ctx && f.signature.contains("FnOnce (& 's Superstep");
        check(
            (effect == Effect::Superstep) == closure_with_superstep,
            "a superstep runs a closure given the superstep",
        );
        check((effect == Effect::Batch) == f.signature.contains("PutBatch <"), "a batch is what returns a `PutBatch`");
        if effect == Effect::Syncs {
            check(f.body_syncs || f.name == "sync", "its body does not sync");
        }
        if effect == Effect::Local {
            check(!f.body_syncs, "its body syncs");
        }
    }
    assert!(
        wrong.is_empty(),
        "classifications in bsp-macros/src/api.rs that the runtime contradicts:\n{}",
        wrong.join("\n")
    );
}
