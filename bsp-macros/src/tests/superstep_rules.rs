//! What cannot happen inside a superstep (a sync, another superstep, a second `get` into one
//! destination) or leave it (an `hpmove` result): the findings that replace rustc's borrow and
//! lifetime errors with ours.

use crate::analysis::Op::{Get, HpMove, Superstep};
use crate::analysis::Problem::*;

#[test]
fn a_sync_or_a_superstep_inside_a_superstep() {
    assert_findings!({
        superstep!(ctx, { ctx.sync(); });
        ctx.superstep(|s| { s.sync(); ctx.sync(); });
        superstep!(ctx, { superstep!(ctx, {}); });
        superstep!(ctx, { ctx.superstep(|s| {}); });
    } => [
        (SyncInSuperstep(None), Superstep, "ctx"),
        (SyncInSuperstep(None), Superstep, "s"),
        (SyncInSuperstep(None), Superstep, "ctx"),
        (NestedSuperstep, Superstep, "ctx"),
        (NestedSuperstep, Superstep, "ctx"),
    ]);
}

#[test]
fn a_closure_with_its_own_context_inside_a_superstep_is_not_reported() {
    assert_findings!({
        let f = superstep!(ctx, { |ctx: &mut Ctx| ctx.sync() });
        f(ctx);
    } => []);
}

#[test]
fn an_hpmove_result_leaving_its_superstep() {
    assert_findings!({
        let a = superstep!(ctx, { let (_, p) = ctx.hpmove::<u32, u64>().unwrap(); p });
        let b = superstep!(ctx, { ctx.hpmove::<u32, u64>() });
        let c = ctx.superstep(|s| { let (t, p) = s.hpmove::<u32, u64>().unwrap(); (1, Some(t)) });
        superstep!(ctx, { outer = ctx.hpmove::<u32, u64>(); });
        let fine = superstep!(ctx, {
            let (t, p) = ctx.hpmove::<u32, u64>().unwrap();
            let mut mine = p;
            mine = p;
            (*t, p.to_vec())
        });
    } => [
        (MessageLeavesSuperstep, HpMove, "p"),
        (MessageLeavesSuperstep, HpMove, ""),
        (MessageLeavesSuperstep, HpMove, "t"),
        (MessageLeavesSuperstep, HpMove, ""),
    ]);
}

#[test]
fn a_second_get_into_a_scalar_gets_scalar_help() {
    // `element: false`: the help for a scalar (an array of destinations), not for `buf[i]`.
    assert_findings!({
        superstep!(ctx, {
            ctx.get(0, &x, 0, &mut value);
            ctx.get(1, &x, 0, &mut value);
        });
    } => [(DestinationAgain { again: Get, element: false }, Get, "value")]);
}
