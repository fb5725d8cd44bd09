//! Expansions, formatted with prettyplease and compared to the expected code, and the errors of
//! misused macros (each still emitted beside the user's code).

use proc_macro2::TokenStream;
use quote::quote;

fn pretty(tokens: TokenStream) -> String {
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(error) => format!("unparsable expansion ({error}): {tokens}"),
    }
}

fn program(args: TokenStream, item: TokenStream) -> String {
    pretty(crate::program::expand(args, item))
}

fn superstep(input: TokenStream) -> String {
    let expr = crate::superstep::expand(input);
    pretty(quote!(fn f() { #expr; }))
}

/// The messages of the `compile_error!`s in an expansion, in order.
fn errors(expansion: &str) -> Vec<String> {
    let file: syn::File = match syn::parse_str(expansion) {
        Ok(file) => file,
        Err(error) => return vec![format!("unparsable: {error}")],
    };
    let mut found = Vec::new();
    collect_errors(quote!(#file), &mut found);
    found
}

fn collect_errors(tokens: TokenStream, found: &mut Vec<String>) {
    let mut after_compile_error = false;
    for tree in tokens {
        match tree {
            proc_macro2::TokenTree::Ident(ident) => after_compile_error = ident == "compile_error",
            proc_macro2::TokenTree::Group(group) if after_compile_error => {
                if let Ok(lit) = syn::parse2::<syn::LitStr>(group.stream()) {
                    found.push(lit.value());
                }
                after_compile_error = false;
            }
            proc_macro2::TokenTree::Group(group) => collect_errors(group.stream(), found),
            proc_macro2::TokenTree::Punct(_) => {}
            proc_macro2::TokenTree::Literal(_) => after_compile_error = false,
        }
    }
}

#[test]
fn main_with_procs() {
    let expanded = program(
        quote!(procs = 4),
        quote! {
            /// Docs stay.
            fn main(ctx: &mut bsp::Ctx) {
                let x = ctx.register([ctx.pid() as i32]);
                let mut left = 0;
                bsp::superstep!(ctx, {
                    ctx.get(0, &x, 0, &mut left);
                });
                println!("{left}");
            }
        },
    );
    assert_eq!(
        expanded,
        r#"/// Docs stay.
fn main() {
    let __bsp_result = ::bsp::__private::Launch::new()
        .procs(4)
        .run(|ctx: &mut bsp::Ctx| {
            let x = ctx.register([ctx.pid() as i32]);
            let mut left = 0;
            ctx.superstep(|ctx| {
                ctx.get(0, &x, 0, &mut left);
            });
            println!("{left}");
        });
    ::bsp::__private::exit_on_error(__bsp_result);
}
"#
    );
}

#[test]
fn reusable_entry_with_renamed_crate() {
    let expanded = program(
        quote!(crate = "my_bsp"),
        quote! {
            pub(crate) fn sum(ctx: &mut Ctx, offset: usize, data: &[u32]) -> usize {
                ctx.pid() + offset + data.len()
            }
        },
    );
    assert_eq!(
        expanded,
        r#"pub(crate) fn sum(
    offset: usize,
    data: &[u32],
) -> ::core::result::Result<::std::vec::Vec<usize>, ::my_bsp::__private::Error> {
    ::my_bsp::__private::Launch::new()
        .run(|ctx: &mut Ctx| -> usize { ctx.pid() + offset + data.len() })
}
"#
    );
}

#[test]
fn reusable_entry_returning_unit_with_a_trailing_superstep() {
    let expanded = program(
        quote!(),
        quote! {
            fn unit(mut c: &mut Ctx) {
                superstep!(c, { c.pid() })
            }
        },
    );
    assert_eq!(
        expanded,
        r#"fn unit() -> ::core::result::Result<::std::vec::Vec<()>, ::bsp::__private::Error> {
    ::bsp::__private::Launch::new()
        .run(|mut c: &mut Ctx| { c.superstep(|c| { c.pid() }) })
}
"#
    );
}

#[test]
fn superstep_statements_in_the_middle_of_a_block_keep_a_semicolon() {
    let expanded = program(
        quote!(),
        quote! {
            fn main(ctx: &mut Ctx) {
                superstep! { ctx, { ctx.pid(); } }
                ctx.sync();
            }
        },
    );
    assert!(
        expanded
            .contains("ctx.superstep(|ctx| {\n                ctx.pid();\n            });\n            ctx.sync();"),
        "{expanded}"
    );
}

#[test]
fn superstep_on_its_own() {
    assert_eq!(
        superstep(quote!(ctx, {
            ctx.get(0, &x, 0, &mut left);
        })),
        r#"fn f() {
    ctx.superstep(|ctx| {
        ctx.get(0, &x, 0, &mut left);
    });
}
"#
    );
}

#[test]
fn superstep_on_its_own_checks_its_block() {
    let expanded = superstep(quote!(ctx, {
        ctx.get(0, &x, 0, &mut left);
        let y = left;
    }));
    assert_eq!(
        errors(&expanded),
        ["`left` is read before the sync that completes the `get` writing it\n\
             = note: the `get` that makes `left` pending is elsewhere in the function\n\
             = note: `left` receives the fetched value at the sync that ends the superstep, not \
             before\n\
             = help: move the read after the end of the `superstep!` block (or `ctx.sync()`), or \
             read a copy of `left` taken before the `get`",]
    );
    assert!(expanded.contains("ctx.superstep(|ctx| {"), "{expanded}");
}

#[test]
fn superstep_syntax_errors() {
    let first = |input: TokenStream| errors(&superstep(input))[0].clone();
    assert!(first(quote!({})).starts_with("expected the context"));
    assert!(first(quote!(ctx {})).starts_with("expected `,` after the context `ctx`"));
    assert!(first(quote!(ctx, 1)).starts_with("expected the superstep's body in braces"));
    assert!(first(quote!(ctx, {}, 2)).starts_with("unexpected tokens after the superstep's body"));
}

#[test]
fn superstep_escapes() {
    let escapes = |mut block: syn::Block| {
        crate::superstep::replace_escapes(&mut block);
        let replaced = pretty(quote!(fn f() #block));
        errors(&replaced).iter().map(|m| m.split(':').next().unwrap_or_default().to_owned()).collect::<Vec<_>>()
    };
    assert_eq!(
        escapes(syn::parse_quote!({
            if a {
                return;
            }
            let x = f()?;
            break;
            continue;
            'outer: loop {
                break 'outer;
            }
        })),
        [
            "`return` cannot leave the function from inside `superstep!`",
            "`?` cannot return from the function from inside `superstep!`",
            "`break` cannot leave a `superstep!` block",
            "`continue` cannot leave a `superstep!` block",
        ]
    );
    assert!(escapes(syn::parse_quote!({
        for i in 0..3 {
            if i == 1 {
                continue;
            }
            break;
        }
        'b: {
            break 'b;
        }
        let f = || -> Result<(), E> {
            g()?;
            return Ok(());
        };
        let h = async { x.await };
        fn nested() {
            return;
        }
        while c {
            break;
        }
    }))
    .is_empty());
}

#[test]
fn escapes_are_checked_inside_a_program_too() {
    let expanded = program(
        quote!(),
        quote! {
            fn main(ctx: &mut Ctx) {
                for i in 0..3 {
                    superstep!(ctx, { if i == 1 { break; } });
                }
            }
        },
    );
    let found = errors(&expanded);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].starts_with("`break` cannot leave a `superstep!` block"));
    // The `break` itself is gone (rustc would report it a second time), its error in its place.
    assert!(!expanded.contains("break;"), "{expanded}");
    assert!(expanded.contains("if i == 1 {\n                        ::core::compile_error!"), "{expanded}");
}

#[test]
fn question_mark_is_replaced_but_its_operand_stays() {
    let expanded = program(
        quote!(),
        quote! {
            fn main(ctx: &mut Ctx) {
                superstep!(ctx, { let n: i32 = text.parse()?; });
            }
        },
    );
    assert_eq!(errors(&expanded).len(), 1);
    assert!(expanded.contains("let _ = text.parse();"), "{expanded}");
}

#[test]
fn misuse_is_reported_beside_the_expansion() {
    let expanded = program(quote!(threads = 3), quote! { async fn main(ctx: &mut bsp::Ctx) -> i32 { 0 } });
    let found = errors(&expanded);
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(found[0].starts_with("unknown knob `threads`"));
    assert!(found[1].starts_with("`#[bsp::program]` cannot be `async`"));
    assert!(found[2].starts_with("`#[bsp::program] fn main` returns `()`"));
    // The errors come first in the generated body (so rustc skips borrow-checking it), then the
    // expansion.
    assert!(expanded.starts_with("fn main() {\n    ::core::compile_error! {"), "{expanded}");
    assert!(expanded.contains("    let __bsp_result = ::bsp::__private::Launch::new()"), "{expanded}");
}

#[test]
fn not_a_function() {
    let expanded = program(quote!(), quote! { struct S; });
    assert_eq!(
        errors(&expanded),
        ["`#[bsp::program]` goes on a function, whose body becomes the program that every \
          process runs: `#[bsp::program] fn main(ctx: &mut bsp::Ctx) { ... }`"]
    );
    assert!(expanded.ends_with("struct S;\n"), "{expanded}");
}

#[test]
fn bad_context_parameters() {
    let first = |item: TokenStream| errors(&program(quote!(), item)).join(" | ");
    assert_eq!(
        first(quote! { fn main() {} }),
        "a `#[bsp::program]` function takes the process context as its first parameter: \
         `fn main(ctx: &mut bsp::Ctx)`"
    );
    assert!(first(quote! { fn main(ctx: &bsp::Ctx) {} }).starts_with("the context parameter must be `&mut bsp::Ctx`"));
    // After that error the expansion names the runtime's context by its absolute path.
    let expanded = program(quote!(), quote! { fn main(ctx: &bsp::Ctx) {} });
    assert!(expanded.contains("|ctx: &mut ::bsp::__private::Ctx|"), "{expanded}");
    assert!(first(quote! { fn main((a, b): &mut Ctx) {} }).starts_with("the context parameter must be a name"));
    assert!(first(quote! { fn main(ctx: &mut Ctx, n: usize) {} }).starts_with("`main` takes only the context"));
    assert!(first(quote! { fn run(&self) {} }).starts_with("a `#[bsp::program]` function cannot take `self`"));
}

#[test]
fn analysis_findings_come_with_the_expansion() {
    let expanded = program(
        quote!(procs = 2),
        quote! {
            fn main(ctx: &mut Ctx) {
                let mut left = 0;
                superstep!(ctx, { let r = ctx.register([0u8]); });
                superstep!(ctx, { ctx.get(1, &x, 0, &mut left); println!("{left}"); });
            }
        },
    );
    let found = errors(&expanded);
    // One error per mistake, each saying where its cause is.
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].starts_with(
        "`ctx.register(..)` cannot be called inside a superstep\n\
         = note: the superstep in progress starts elsewhere in the function\n"
    ));
    assert!(found[1].starts_with(
        "`left` is read before the sync that completes the `get` writing it\n\
         = note: the `get` that makes `left` pending is elsewhere in the function\n"
    ));
    assert!(expanded.contains("ctx.superstep(|ctx| {"), "{expanded}");
}

#[test]
fn communication_that_needs_a_superstep_outside_one() {
    let expanded = program(
        quote!(),
        quote! {
            fn main(ctx: &mut Ctx) {
                ctx.get(1, &x, 0, &mut left);
                ctx.hpput(1, &v, &x, 0);
                ctx.put(1, &v, &x, 0);
                superstep!(ctx, { ctx.get(1, &x, 0, &mut other); });
                ctx.superstep(|ctx| ctx.hpget(1, &x, 0, &mut more));
                map.get(&1);
            }
        },
    );
    let found = errors(&expanded);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].starts_with("`get` is only available inside a superstep"));
    assert!(found[1].starts_with("`hpput` is only available inside a superstep"));
    // The arguments stay, in place of the call.
    assert!(expanded.contains("let _ = (1, &x, 0, &mut left);"), "{expanded}");
}
