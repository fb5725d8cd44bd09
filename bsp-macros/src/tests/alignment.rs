//! Superstep alignment on function bodies: the misaligned forms (exactly one finding, of the
//! kind given) and the aligned ones, which must stay silent.

use crate::analysis::Kind::{self, Loop, Return};
use crate::analysis::{alignment_kinds, Count};

/// The kind of each alignment finding of `body`.
macro_rules! assert_aligned {
    ({ $($body:tt)* } => [$($expected:expr),* $(,)?]) => {{
        let body: ::syn::Block = ::syn::parse_quote!({ $($body)* });
        let ctx: ::syn::Ident = ::syn::parse_quote!(ctx);
        let expected: Vec<Kind> = vec![$($expected),*];
        assert_eq!(alignment_kinds(&body, &ctx), expected);
    }};
}

/// Branches of an `if` or `match` (`keyword`) that make different numbers of sync points.
fn branches(keyword: &'static str, first: (&str, Count), second: (&str, Count)) -> Kind {
    Kind::Branches { keyword, first: (first.0.to_owned(), first.1), second: (second.0.to_owned(), second.1) }
}

/// At least `min` sync points, at most `max` (`None`: no bound known).
fn syncs(min: u32, max: Option<u32>) -> Count {
    Count { min, max }
}

// ---- caught -----------------------------------------------------------------------------------

#[test]
fn a_superstep_on_one_process() {
    assert_aligned!({
        if ctx.pid() == 0 {
            superstep!(ctx, { ctx.put(1, &x, &reg, 0); });
        }
    } => [
        branches("if", ("`if` branch", syncs(1, Some(1))), ("`else`", syncs(0, Some(0)))),
    ]);
}

#[test]
fn a_sync_under_a_variable_computed_from_the_pid() {
    assert_aligned!({
        let me = ctx.pid();
        let left = (me + 1) % ctx.nprocs();
        if left == 0 {
            ctx.sync();
        }
    } => [
        branches("if", ("`if` branch", syncs(1, Some(1))), ("`else`", syncs(0, Some(0)))),
    ]);
}

#[test]
fn a_collective_on_some_processes() {
    assert_aligned!({
        if ctx.pid() < 2 {
            let total = ctx.allreduce_one(1u64, bsp::ops::sum);
        } else {
            println!("idle");
        }
    } => [
        branches("if", ("`if` branch", syncs(1, Some(1))), ("`else`", syncs(0, Some(0)))),
    ]);
}

#[test]
fn different_counts_on_both_branches() {
    assert_aligned!({
        if ctx.pid() % 2 == 0 {
            ctx.sync();
            ctx.sync();
        } else {
            ctx.sync();
        }
    } => [
        branches("if", ("`if` branch", syncs(2, Some(2))), ("`else`", syncs(1, Some(1)))),
    ]);
}

#[test]
fn a_match_on_the_pid() {
    assert_aligned!({
        match ctx.pid() {
            0 => ctx.sync(),
            _ => {}
        }
    } => [
        branches("match", ("arm `0`", syncs(1, Some(1))), ("arm `_`", syncs(0, Some(0)))),
    ]);
}

#[test]
fn a_flag_set_on_some_processes() {
    assert_aligned!({
        let mut leader = false;
        if ctx.pid() == 0 {
            leader = true;
        }
        if leader {
            ctx.sync();
        }
    } => [
        branches("if", ("`if` branch", syncs(1, Some(1))), ("`else`", syncs(0, Some(0)))),
    ]);
}

#[test]
fn a_while_on_local_data() {
    assert_aligned!({
        let mut left = ctx.pid() * 10;
        while left > 0 {
            superstep!(ctx, { ctx.put(0, &left, &reg, 0); });
            left -= 1;
        }
    } => [Loop { keyword: "while", body: syncs(1, Some(1)) }]);
}

#[test]
fn a_for_bounded_by_the_pid() {
    assert_aligned!({
        for i in 0..ctx.pid() {
            ctx.sync();
        }
    } => [Loop { keyword: "for", body: syncs(1, Some(1)) }]);
}

#[test]
fn a_loop_bound_from_a_get_of_the_neighbour() {
    assert_aligned!({
        let mut n = 0usize;
        superstep!(ctx, {
            ctx.get((ctx.pid() + 1) % ctx.nprocs(), &counts, 0, &mut n);
        });
        for _ in 0..n {
            superstep!(ctx, {});
        }
    } => [Loop { keyword: "for", body: syncs(1, Some(1)) }]);
}

#[test]
fn a_loop_over_received_messages() {
    assert_aligned!({
        while let Some((tag, payload)) = ctx.move_message::<u32, u64>() {
            ctx.sync();
        }
    } => [Loop { keyword: "while", body: syncs(1, Some(1)) }]);
}

#[test]
fn a_loop_over_the_queue_size() {
    assert_aligned!({
        let (n, _) = ctx.qsize();
        for _ in 0..n {
            let x = ctx.allreduce_one(1, bsp::ops::sum);
        }
    } => [Loop { keyword: "for", body: syncs(1, Some(1)) }]);
}

#[test]
fn an_early_return_before_a_superstep() {
    assert_aligned!({
        if ctx.pid() == 0 {
            return;
        }
        superstep!(ctx, {});
    } => [Return { exit: syncs(0, Some(0)), other: syncs(1, Some(1)) }]);
}

#[test]
fn a_let_else_on_a_message() {
    assert_aligned!({
        let Some((tag, payload)) = ctx.move_message::<u32, u64>() else {
            return;
        };
        ctx.sync();
    } => [Return { exit: syncs(0, Some(0)), other: syncs(1, Some(1)) }]);
}

#[test]
fn a_while_whose_variable_the_body_makes_vary() {
    assert_aligned!({
        let mut x = 0;
        while x < 10 {
            ctx.sync();
            x = ctx.pid() + 1;
        }
    } => [Loop { keyword: "while", body: syncs(1, Some(1)) }]);
}

#[test]
fn a_time_limit() {
    assert_aligned!({
        while ctx.time() < 1.0 {
            ctx.sync();
        }
    } => [Loop { keyword: "while", body: syncs(1, Some(1)) }]);
}

// ---- silent -----------------------------------------------------------------------------------

#[test]
fn pid_dependent_branches_without_syncs() {
    assert_aligned!({
        if ctx.pid() == 0 {
            println!("hello from {}", ctx.pid());
        }
        superstep!(ctx, {
            if ctx.pid() == 0 {
                ctx.put(1, &x, &reg, 0);
            }
        });
    } => []);
}

#[test]
fn pid_dependent_data_in_puts() {
    assert_aligned!({
        let me = ctx.pid();
        let value = me * 2;
        superstep!(ctx, {
            ctx.put((me + 1) % ctx.nprocs(), &value, &reg, me);
        });
    } => []);
}

#[test]
fn a_while_on_an_allreduce_result() {
    assert_aligned!({
        let mut local = ctx.pid() as u64;
        let mut busy = ctx.allreduce_one(local, bsp::ops::max);
        while busy > 0 {
            local = local.saturating_sub(1);
            busy = ctx.allreduce_one(local, bsp::ops::max);
        }
    } => []);
}

#[test]
fn equal_sync_counts_on_both_branches() {
    assert_aligned!({
        if ctx.pid() == 0 {
            superstep!(ctx, { ctx.put(1, &x, &reg, 0); });
        } else {
            ctx.sync();
        }
    } => []);
}

#[test]
fn loops_over_the_processes() {
    assert_aligned!({
        for q in 0..ctx.nprocs() {
            if q == ctx.pid() {
                continue;
            }
            superstep!(ctx, { ctx.put(q, &x, &reg, 0); });
        }
        let (me, p) = (ctx.pid(), ctx.nprocs());
        for step in 0..p {
            ctx.sync();
        }
    } => []);
}

#[test]
fn a_value_promised_the_same() {
    assert_aligned!({
        let n = ctx.same(ctx.pid() / 1000);
        for _ in 0..n {
            ctx.sync();
        }
    } => []);
}

#[test]
fn a_get_from_process_zero_is_a_broadcast() {
    assert_aligned!({
        let mut n = 0usize;
        superstep!(ctx, { ctx.get(0, &counts, 0, &mut n); });
        for _ in 0..n {
            ctx.sync();
        }
    } => []);
}

#[test]
fn what_the_macro_cannot_see_stays_silent() {
    assert_aligned!({
        if ctx.pid() == 0 {
            helper(ctx);
        }
        if ctx.pid() == 0 {
            ctx.sync();
        } else {
            helper(ctx);
        }
        let n = compute(ctx.pid());
        for _ in 0..n {
            ctx.sync();
        }
    } => []);
}

#[test]
fn panics_and_aborts_are_not_misalignment() {
    assert_aligned!({
        if ctx.pid() == 7 {
            panic!("no process 7");
        }
        if ctx.pid() == 8 {
            ctx.abort("no process 8");
        }
        ctx.sync();
    } => []);
}

#[test]
fn a_variable_assigned_again_on_every_process() {
    assert_aligned!({
        let mut n = ctx.pid();
        n = ctx.nprocs();
        for _ in 0..n {
            ctx.sync();
        }
        let mut rounds = 0;
        if ctx.pid() == 0 {
            let k = 3;
            rounds = k;
        }
        rounds = ctx.allreduce_one(rounds, bsp::ops::max);
        for _ in 0..rounds {
            ctx.sync();
        }
    } => []);
}

#[test]
fn the_same_loop_on_both_branches() {
    assert_aligned!({
        if ctx.pid() == 0 {
            let y = 5;
            for _ in 0..y {
                ctx.sync();
            }
        } else {
            let y = 5;
            for _ in 0..y {
                ctx.sync();
            }
        }
    } => []);
}

#[test]
fn an_early_return_after_the_last_sync() {
    assert_aligned!({
        superstep!(ctx, {});
        if ctx.pid() != 0 {
            return;
        }
        println!("done");
    } => []);
}

#[test]
fn a_break_under_a_varying_condition_is_left_silent() {
    assert_aligned!({
        for i in 0..10 {
            ctx.sync();
            if ctx.pid() == 0 && i == 9 {
                break;
            }
        }
    } => []);
}

#[test]
fn a_return_inside_a_superstep_closure_leaves_the_closure() {
    assert_aligned!({
        ctx.superstep(|s| {
            if s.pid() == 0 {
                return;
            }
            s.put(0, &x, &reg, 0);
        });
        ctx.with_reg(&mut data, |ctx, r| {
            if ctx.pid() == 0 {
                return;
            }
            ctx.put(0, &x, &r, 0);
        });
        ctx.sync();
    } => []);
}

// ---- superstep_then ---------------------------------------------------------------------------

#[test]
fn a_superstep_ended_by_a_collective_lines_up_with_a_plain_sync() {
    assert_aligned!({
        if ctx.pid() == 0 {
            ctx.superstep_then(|s| s.get(1, &x, 0, &mut v), |c| c.allreduce_one(1u8, bsp::ops::sum));
        } else {
            ctx.sync();
        }
    } => []);
    // A second closure with no sync: the superstep's own sync.
    assert_aligned!({
        if ctx.pid() == 0 {
            ctx.superstep_then(|s| s.get(1, &x, 0, &mut v), |c| c.pid());
        } else {
            ctx.sync();
        }
    } => []);
}

#[test]
fn a_superstep_ended_by_two_syncs_against_one() {
    assert_aligned!({
        if ctx.pid() == 0 {
            ctx.superstep_then(|s| s.get(1, &x, 0, &mut v), |c| { c.sync(); c.sync(); });
        } else {
            ctx.sync();
        }
    } => [
        branches("if", ("`if` branch", syncs(2, Some(2))), ("`else`", syncs(1, Some(1)))),
    ]);
}

#[test]
fn a_superstep_ended_by_a_closure_variable_counts_its_syncs() {
    assert_aligned!({
        let two = |c: &mut Ctx| { c.sync(); c.sync(); };
        if ctx.pid() == 0 {
            ctx.superstep_then(|s| s.get(1, &x, 0, &mut v), two);
        } else {
            ctx.sync();
        }
    } => [
        branches("if", ("`if` branch", syncs(2, Some(2))), ("`else`", syncs(1, Some(1)))),
    ]);
    assert_aligned!({
        let one = |c: &mut Ctx| c.sync();
        if ctx.pid() == 0 {
            ctx.superstep_then(|s| s.get(1, &x, 0, &mut v), one);
        } else {
            ctx.sync();
        }
    } => []);
}
