//! Unit tests on token streams: knobs, analysis, expansions. The analysis tests assert each
//! finding's kind; `ui-tests` pins the wording.

use crate::analysis::{Op, Problem, Walker};
use syn::{parse_quote, Block, Ident};

/// Each finding of `body`, as its kind, the operation it comes from and the name it is about.
/// (The wording is pinned by the `.stderr` files of `ui-tests`, not here.)
pub(crate) fn findings(body: Block) -> Vec<(Problem, Op, String)> {
    let ctx: Ident = parse_quote!(ctx);
    let mut walker = Walker::new(&ctx);
    walker.walk_program(&body);
    walker.into_findings().into_iter().map(|f| (f.problem, f.op, f.name)).collect()
}

/// One expected finding: `(kind, operation, name)`.
pub(crate) fn finding((problem, op, name): (Problem, Op, &str)) -> (Problem, Op, String) {
    (problem, op, name.to_owned())
}

/// `assert_findings!({ body } => [(kind, operation, "name"), ...])`.
macro_rules! assert_findings {
    ({ $($body:tt)* } => [$($expected:expr),* $(,)?]) => {{
        let body: ::syn::Block = ::syn::parse_quote!({ $($body)* });
        let expected: Vec<_> = vec![$($crate::tests::finding($expected)),*];
        assert_eq!($crate::tests::findings(body), expected);
    }};
}

mod alignment;
mod analysis;
mod api;
mod expansion;
mod false_alarms;
mod knobs;
mod moved;
mod run_time_checks;
mod superstep_rules;
