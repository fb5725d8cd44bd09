//! The parsed `superstep!(ctx, { body })` invocation, shared by the lowering (`superstep.rs`,
//! `program.rs`) and the checks (`analysis/`), so that neither depends on the other for it.

use syn::parse::{Parse, ParseStream};
use syn::{token, Block, Ident, Token};

/// The arguments of `superstep!`: the context, a comma and the block.
#[derive(Debug)]
pub(crate) struct SuperstepInput {
    pub(crate) ctx: Ident,
    pub(crate) block: Block,
}

const SHAPE: &str = "write `superstep!(ctx, { ... })`: the context, a comma, then the superstep's \
                     statements in braces";

impl Parse for SuperstepInput {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        if !input.peek(Ident) {
            return Err(input.error(format_args!(
                "expected the context (a name such as `ctx`) as the first argument of \
                 `superstep!`; {SHAPE}"
            )));
        }
        let ctx: Ident = input.parse()?;
        if !input.peek(Token![,]) {
            return Err(input.error(format_args!("expected `,` after the context `{ctx}`; {SHAPE}")));
        }
        input.parse::<Token![,]>()?;
        if !input.peek(token::Brace) {
            return Err(input.error(format_args!("expected the superstep's body in braces; {SHAPE}")));
        }
        let block: Block = input.parse()?;
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
        }
        if !input.is_empty() {
            return Err(input.error(format_args!("unexpected tokens after the superstep's body; {SHAPE}")));
        }
        Ok(SuperstepInput { ctx, block })
    }
}
