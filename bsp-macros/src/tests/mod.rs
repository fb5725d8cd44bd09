//! Unit tests on token streams: knobs, analysis, expansions.

use crate::analysis::{message, Walker};
use syn::{parse_quote, Block, Ident};

/// The first line of each finding's message, in order.
pub(crate) fn findings(body: Block) -> Vec<String> {
    let ctx: Ident = parse_quote!(ctx);
    let mut walker = Walker::new(&ctx);
    walker.walk_program(&body);
    walker.into_findings().iter().map(|f| message(f, "ctx").lines().next().unwrap_or_default().to_owned()).collect()
}

/// `assert_findings!({ body } => ["first line of each finding", ...])`.
macro_rules! assert_findings {
    ({ $($body:tt)* } => [$($expected:expr),* $(,)?]) => {{
        let body: ::syn::Block = ::syn::parse_quote!({ $($body)* });
        let expected: Vec<&str> = vec![$($expected),*];
        assert_eq!($crate::tests::findings(body), expected);
    }};
}

mod alignment;
mod analysis;
mod expansion;
mod false_alarms;
mod knobs;
mod moved;
mod snapshots;
mod superstep_rules;
