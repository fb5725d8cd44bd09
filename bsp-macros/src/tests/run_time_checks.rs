//! Static where certain, at run time where not: which alignment findings are certain (the
//! pid, the clock) and become errors, which are not (messages, `get`s, variant tests) and become
//! run-time checks, and conditions decided on a known number of processes.

use crate::analysis::alignment_findings;
use proc_macro2::TokenStream;
use quote::quote;

/// Whether each alignment finding of `body` is certain, on `procs` processes if given.
fn certainty(procs: Option<u64>, body: TokenStream) -> Vec<bool> {
    let body: syn::Block = syn::parse2(quote!({ #body })).expect("a block");
    let ctx: syn::Ident = syn::parse_quote!(ctx);
    alignment_findings(&body, &ctx, procs).into_iter().map(|f| f.origin.certain).collect()
}

#[test]
fn the_pid_and_the_clock_make_certain_findings() {
    assert_eq!(
        certainty(
            None,
            quote!(if ctx.pid() == 0 {
                ctx.sync();
            })
        ),
        [true]
    );
    assert_eq!(
        certainty(
            None,
            quote!(while ctx.time() < 1.0 {
                ctx.sync();
            })
        ),
        [true]
    );
    assert_eq!(certainty(None, quote!(let n = ctx.pid() * 2 + 1; for _ in 0..n { ctx.sync(); })), [true]);
    assert_eq!(
        certainty(
            None,
            quote!(match ctx.pid() {
                0 => ctx.sync(),
                _ => {}
            })
        ),
        [true]
    );
    // Mixed with data, the pid still decides.
    assert_eq!(certainty(None, quote!(let (m, _) = ctx.qsize(); if m + ctx.pid() > 2 { ctx.sync(); })), [true]);
}

#[test]
fn messages_gets_and_variant_tests_are_left_to_the_run() {
    assert_eq!(certainty(None, quote!(let (m, _) = ctx.qsize(); for _ in 0..m { ctx.sync(); })), [false]);
    assert_eq!(
        certainty(
            None,
            quote! {
                let mut left = 0;
                while left != 3 {
                    superstep!(ctx, { ctx.get((ctx.pid() + 1) % ctx.nprocs(), &x, 0, &mut left); });
                }
            }
        ),
        [false]
    );
    assert_eq!(certainty(None, quote!(let Some(q) = ctx.pid().checked_add(0) else { return; }; ctx.sync();)), [false]);
    assert_eq!(
        certainty(
            None,
            quote!(if let Some(q) = ctx.pid().checked_sub(1) {
                ctx.sync();
            })
        ),
        [false]
    );
}

#[test]
fn a_known_number_of_processes_decides_conditions_on_the_pid() {
    let early_return = quote! {
        let pid = ctx.pid();
        if pid == 999 { return; }
        ctx.sync();
    };
    assert_eq!(certainty(Some(2), early_return.clone()), Vec::<bool>::new());
    // Without the number, some run could have a process 999, but none of up to 64 processes
    // does: it perhaps differs (left to the run); `pid == 1` differs on 2.
    assert_eq!(certainty(None, early_return), [false]);
    assert_eq!(certainty(None, quote!(if ctx.pid() == 1 { return; } ctx.sync();)), [true]);
    assert_eq!(
        certainty(
            None,
            quote!(if ctx.pid() < ctx.nprocs() {
                ctx.sync();
            })
        ),
        [false]
    );
    // On 2 processes, `pid == 1` still differs; `pid < ctx.nprocs()` does not.
    assert_eq!(certainty(Some(2), quote!(if ctx.pid() == 1 { return; } ctx.sync();)), [true]);
    assert_eq!(
        certainty(
            Some(2),
            quote!(if ctx.pid() < ctx.nprocs() {
                ctx.sync();
            })
        ),
        Vec::<bool>::new()
    );
    assert_eq!(
        certainty(
            Some(1),
            quote!(if ctx.pid() == 0 {
                ctx.sync();
            })
        ),
        Vec::<bool>::new()
    );
    // Ranges, `min`, `max` and bit operations are evaluated too.
    assert_eq!(
        certainty(
            None,
            quote!(for _ in 0..ctx.pid() {
                ctx.sync();
            })
        ),
        [true]
    );
    assert_eq!(
        certainty(
            None,
            quote!(for _ in 0..ctx.pid().min(0) {
                ctx.sync();
            })
        ),
        [false]
    );
    assert_eq!(
        certainty(
            Some(4),
            quote!(for _ in 0..=(ctx.pid() >> 2) {
                ctx.sync();
            })
        ),
        Vec::<bool>::new()
    );
    assert_eq!(
        certainty(
            Some(8),
            quote!(for _ in 0..=(ctx.pid() >> 2) {
                ctx.sync();
            })
        ),
        [true]
    );
}

#[test]
fn an_element_at_a_position_given_by_the_pid_is_data() {
    assert_eq!(certainty(None, quote!(let t = [1, 1, 1]; if t[ctx.pid()] == 1 { ctx.sync(); })), [false]);
}

/// The program `body` expanded on 2 processes, formatted.
fn expanded(body: TokenStream) -> String {
    let item = quote!(fn main(ctx: &mut bsp::Ctx) { #body });
    let tokens = crate::program::expand(quote!(procs = 2), item);
    prettyplease::unparse(&syn::parse2(tokens).expect("a file"))
}

#[test]
fn an_undecided_condition_compiles_with_a_promise_in_each_syncing_branch() {
    let out = expanded(quote! {
        let (m, _) = ctx.qsize();
        if m > 0 { ctx.sync(); ctx.sync(); } else { ctx.sync(); }
        for _ in 0..m { ctx.sync(); }
        match ctx.move_bytes(&mut buf) { Some(_) => ctx.sync(), None => {} }
    });
    assert!(!out.contains("compile_error"), "{out}");
    assert!(out.contains("if m > 0 {\n                ctx.same(1u32);"), "{out}");
    assert!(
        out.contains("} else {\n                ctx.same(0u32);\n                {\n                    ctx.sync();"),
        "{out}"
    );
    assert!(out.contains("for _ in 0..m {\n                ctx.same(1u32);"), "{out}");
    assert!(out.contains("Some(_) => {\n                    ctx.same(0u32);\n                    ctx.sync()"), "{out}");
    // The `None` arm does not sync: it promises nothing (a promise is always followed by a sync).
    assert!(out.contains("None => {}"), "{out}");
}

#[test]
fn a_certain_condition_is_an_error_without_a_promise() {
    let out = expanded(quote!(if ctx.pid() == 0 {
        ctx.sync();
    }));
    assert!(out.contains("compile_error"), "{out}");
    assert!(!out.contains("ctx.same(0u32)") && !out.contains("ctx.same(1u32)"), "{out}");
}

#[test]
fn values_followed_through_structs_iterators_and_closures() {
    // A struct literal's field, read back.
    assert_eq!(
        certainty(None, quote!(let plan = Plan { rounds: ctx.pid() % 2 + 1 }; for _ in 0..plan.rounds { ctx.sync(); })),
        [true]
    );
    // An iterator chain or a closure's argument: perhaps (a closure may make it uniform).
    assert_eq!(
        certainty(None, quote!(let n = (0..ctx.pid()).filter(|q| q % 2 == 0).count(); for _ in 0..n { ctx.sync(); })),
        [false]
    );
    assert_eq!(
        certainty(None, quote!(let t = ctx.get_tag::<u32>().map(|(_, t)| t); if t == Some(1) { ctx.sync(); })),
        [false]
    );
    // A closure that syncs is a sync point where it is called.
    assert_eq!(
        certainty(None, quote!(let barrier = |c: &mut Ctx| c.sync(); if ctx.pid() == 0 { barrier(ctx); })),
        [true]
    );
    // One that does not sync is not.
    assert_eq!(
        certainty(None, quote!(let who = |c: &mut Ctx| c.pid(); if ctx.pid() == 0 { who(ctx); })),
        Vec::<bool>::new()
    );
}

#[test]
fn on_a_known_number_of_processes_only_what_the_evaluation_shows_is_an_error() {
    // A flag set under a condition on the pid, a `mut` bound as the loop first sees it, a field.
    let flag = quote! {
        let mut leader = false;
        if ctx.pid() == 0 { leader = true; }
        if leader { ctx.sync(); }
    };
    assert_eq!(certainty(Some(2), flag), [true]);
    let flag_on_all = quote! {
        let mut leader = false;
        if ctx.pid() < 2 { leader = true; }
        if leader { ctx.sync(); }
    };
    assert_eq!(certainty(Some(2), flag_on_all), Vec::<bool>::new());
    let countdown = quote! {
        let mut left = ctx.pid() * 3;
        while left > 0 { ctx.sync(); left -= 1; }
    };
    assert_eq!(certainty(Some(2), countdown), [true]);
    // Entered alike by every process, a `while` may still be left at different iterations.
    let entered_alike = quote! {
        let mut left = ctx.pid() / 8 + 1;
        while left > 0 { ctx.sync(); left -= 1; }
    };
    assert_eq!(certainty(Some(2), entered_alike), [false]);
    assert_eq!(
        certainty(Some(2), quote!(let plan = Plan { rounds: ctx.pid() + 1 }; for _ in 0..plan.rounds { ctx.sync(); })),
        [true]
    );
    // What it cannot evaluate is left to the run; the clock stays certain.
    assert_eq!(
        certainty(
            Some(2),
            quote!(if (ctx.pid() as f64).sqrt() > 5.0 {
                ctx.sync();
            })
        ),
        [false]
    );
    assert_eq!(
        certainty(
            None,
            quote!(if (ctx.pid() as f64).sqrt() > 5.0 {
                ctx.sync();
            })
        ),
        [true]
    );
    assert_eq!(
        certainty(
            Some(2),
            quote!(while ctx.time() < 1.0 {
                ctx.sync();
            })
        ),
        [true]
    );
}

#[test]
fn a_variable_written_through_a_reference_is_no_longer_evaluated() {
    // `n` starts at 0 on every process, then a `get` from the neighbour writes it.
    let fetched = quote! {
        let mut n = 0;
        superstep!(ctx, { ctx.get((ctx.pid() + 1) % ctx.nprocs(), &x, 0, &mut n); });
        for _ in 0..n { ctx.sync(); }
    };
    assert_eq!(certainty(Some(2), fetched), [false]);
    let pushed = quote! {
        let mut n = ctx.pid() * 0;
        bump(&mut n);
        for _ in 0..n { ctx.sync(); }
    };
    assert_eq!(certainty(Some(2), pushed), [false]);
}

fn helper(item: TokenStream) -> String {
    let tokens = crate::helper::expand(quote!(), item);
    prettyplease::unparse(&syn::parse2(tokens).expect("a file"))
}

#[test]
fn a_helper_that_syncs_on_every_path_promises_at_its_start() {
    let out = helper(quote! {
        fn step(c: &mut bsp::Ctx, n: u32) -> u32 {
            if n > 0 { c.sync(); } else { superstep!(c, { c.put(0, &n, &r, 0); }); }
            n
        }
    });
    assert!(out.contains("fn step(c: &mut bsp::Ctx, n: u32) -> u32 {\n    c.same(1u32);"), "{out}");
    // Its supersteps are lowered, as in a program.
    assert!(out.contains("c.superstep(|c| {"), "{out}");
    // A helper that may not sync promises nothing: a promise must be followed by a sync.
    let out = helper(quote! {
        fn maybe(c: &mut bsp::Ctx, n: u32) { if n > 0 { c.sync(); } }
    });
    assert!(!out.contains("same(1u32)"), "{out}");
    let out = helper(quote! { fn double(x: u64) -> u64 { 2 * x } });
    assert!(out.contains("goes on a helper function whose first parameter is the process context"), "{out}");
}
