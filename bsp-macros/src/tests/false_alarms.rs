//! Correct programs whose patterns the analysis once reported: copies out of `hpmove` results,
//! reassignment and `mem::swap`, syncs in called closures, format strings read only where they
//! are format strings. Each comes with the nearby mistake that must still be reported.

use crate::analysis::Access::Read;
use crate::analysis::Op::{Get, HpMove};
use crate::analysis::Problem::*;

#[test]
fn copies_out_of_an_hpmove_result_are_values() {
    assert_findings!({
        let (tag, payload) = ctx.hpmove::<u32, u64>().unwrap();
        let t: u32 = *tag;
        let &u = tag;
        let tag = *tag;
        if let Some((&v, _)) = ctx.hpmove::<u32, u64>() {
            ctx.sync();
            println!("{v}");
        }
        ctx.sync();
        println!("{t} {u} {tag}");
    } => []);
}

#[test]
fn an_alias_of_an_hpmove_result_is_still_tracked() {
    assert_findings!({
        let (tag, payload) = ctx.hpmove::<u32, u64>().unwrap();
        let alias = &payload;
        let (ref t, _) = (tag, 0);
        ctx.sync();
        println!("{alias:?}");
    } => [(StaleMessage, HpMove, "alias")]);
}

#[test]
fn an_hpmove_variable_reassigned_after_each_sync_is_fine() {
    assert_findings!({
        let mut m = ctx.hpmove::<u32, u64>();
        for round in 0..3 {
            let (&tag, payload) = m.unwrap();
            total += payload.len();
            ctx.sync();
            m = ctx.hpmove();
        }
        println!("{m:?}");
    } => []);
}

#[test]
fn an_hpmove_variable_used_after_the_sync_that_follows_its_reassignment() {
    assert_findings!({
        let mut m = ctx.hpmove::<u32, u64>();
        ctx.sync();
        m = ctx.hpmove();
        ctx.sync();
        println!("{m:?}");
    } => [(StaleMessage, HpMove, "m")]);
}

#[test]
fn an_hpmove_variable_reassigned_to_local_data_is_not_tracked() {
    assert_findings!({
        let (_, mut pl) = ctx.hpmove::<u32, u64>().unwrap();
        pl = &local[..];
        ctx.sync();
        println!("{pl:?}");
    } => []);
}

#[test]
fn mem_swap_ends_tracking() {
    assert_findings!({
        let (_, mut p) = ctx.hpmove::<u32, u64>().unwrap();
        std::mem::swap(&mut p, &mut q);
        ctx.sync();
        println!("{p:?}");
    } => []);
}

#[test]
fn named_format_arguments_and_compared_strings_are_not_captures() {
    assert_findings!({
        superstep!(ctx, {
            ctx.get(1, &x, 0, &mut left);
            println!("{left}", left = 5);
            assert_eq!(s, "{left}");
            assert!(ok, "{}", "{left}");
            writeln!(out, "{right}", right = "{left}");
        });
    } => []);
}

#[test]
fn format_strings_are_read_in_their_position() {
    assert_findings!({
        superstep!(ctx, {
            ctx.get(1, &x, 0, &mut left);
            assert_eq!(a, b, "{left}");
            writeln!(out, "{left}");
        });
    } => [
        (PendingDestination(Read), Get, "left"),
        (PendingDestination(Read), Get, "left"),
    ]);
}

#[test]
fn a_sync_in_a_called_closure_counts() {
    assert_findings!({
        let m = ctx.hpmove::<u32, u32>();
        let mut end = || ctx.sync();
        end();
        let y = m;
        let n = ctx.hpmove::<u32, u32>();
        (|| ctx.sync())();
        let z = n;
        let o = ctx.hpmove::<u32, u32>();
        my_macro!({ ctx.sync() });
        let w = o;
    } => []);
}

#[test]
fn a_closure_that_receives_the_context_starts_from_an_unknown_state() {
    assert_findings!({
        // The closure may run in another superstep than the one `m` comes from.
        let m = ctx.hpmove::<u32, u32>();
        let f = |ctx: &mut Ctx| {
            ctx.sync();
            let y = m;
        };
    } => []);
}

#[test]
fn a_closure_that_cannot_sync_does_not_silence_the_check() {
    assert_findings!({
        let m = ctx.hpmove::<u32, u32>();
        let f = || 1 + 2;
        f();
        let me = || ctx.pid();
        me();
        let n = (0..4).map(|i| i + ctx.nprocs()).count();
        ctx.sync();
        let y = m;
    } => [(StaleMessage, HpMove, "m")]);
}
