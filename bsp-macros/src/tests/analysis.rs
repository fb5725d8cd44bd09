//! The analysis on function bodies: every check with its variants (exactly the expected finding)
//! and the cases that must compile (no finding).

use crate::analysis::Access::{Read, Write};
use crate::analysis::Op::{Dest, Get, GetBatch, HpGet, HpMove, HpPut, LocalMut, Superstep};
use crate::analysis::Problem::*;
use crate::analysis::Walker;
use syn::{parse_quote, Ident};

// ---- get / hpget ------------------------------------------------------------------------------

#[test]
fn get_destination_read_in_the_superstep() {
    assert_findings!({
        let mut left = 0;
        superstep!(ctx, {
            ctx.get(1, &x, 0, &mut left);
            let y = left + 1;
        });
    } => [(PendingDestination(Read), Get, "left")]);
}

#[test]
fn get_destination_written_in_the_superstep() {
    assert_findings!({
        let mut left = 0;
        superstep!(ctx, {
            ctx.get(1, &x, 0, &mut left);
            left = 3;
        });
    } => [(PendingDestination(Write), Get, "left")]);
}

#[test]
fn get_destination_read_through_a_field_and_an_index() {
    assert_findings!({
        superstep!(ctx, {
            ctx.get(1, &x, 0, &mut buf[2..]);
            let y = buf.len();
        });
    } => [(PendingDestination(Read), Get, "buf")]);
}

#[test]
fn hpget_destination_read_in_the_superstep() {
    assert_findings!({
        superstep!(ctx, {
            ctx.hpget(1, &x, 0, &mut left);
            consume(left);
        });
    } => [(PendingDestination(Read), HpGet, "left")]);
}

#[test]
fn get_destination_read_in_a_branch() {
    assert_findings!({
        superstep!(ctx, {
            ctx.get(1, &x, 0, &mut left);
            if ctx.pid() == 0 { let y = left; } else { other(); }
        });
    } => [(PendingDestination(Read), Get, "left")]);
}

#[test]
fn get_destination_read_in_a_match_arm() {
    assert_findings!({
        superstep!(ctx, {
            ctx.get(1, &x, 0, &mut left);
            match ctx.pid() { 0 => {} _ => consume(left) }
        });
    } => [(PendingDestination(Read), Get, "left")]);
}

#[test]
fn get_destination_read_in_a_nested_block() {
    assert_findings!({
        superstep!(ctx, {
            ctx.get(1, &x, 0, &mut left);
            { { let y = left * 2; } }
        });
    } => [(PendingDestination(Read), Get, "left")]);
}

#[test]
fn get_destination_read_in_the_loop_body_before_the_sync_is_reported_once() {
    assert_findings!({
        for i in 0..3 {
            superstep!(ctx, {
                ctx.get(i, &x, 0, &mut left);
                total += left;
            });
        }
    } => [(PendingDestination(Read), Get, "left")]);
}

#[test]
fn get_destination_read_in_a_loop_inside_the_superstep() {
    assert_findings!({
        superstep!(ctx, {
            ctx.get(1, &x, 0, &mut left);
            for i in 0..3 { total += left; }
        });
    } => [(PendingDestination(Read), Get, "left")]);
}

#[test]
fn get_destination_captured_by_a_closure() {
    assert_findings!({
        superstep!(ctx, {
            ctx.get(1, &x, 0, &mut left);
            let f = || left + 1;
        });
    } => [(PendingDestination(Read), Get, "left")]);
}

#[test]
fn get_destination_read_in_println_arguments() {
    assert_findings!({
        superstep!(ctx, {
            ctx.get(1, &x, 0, &mut left);
            println!("{}", left);
        });
    } => [(PendingDestination(Read), Get, "left")]);
}

#[test]
fn get_destination_captured_inline_by_a_format_string() {
    assert_findings!({
        superstep!(ctx, {
            ctx.get(1, &x, 0, &mut left);
            let s = format!("got {left:>4} from {}", 1);
        });
    } => [(PendingDestination(Read), Get, "left")]);
}

#[test]
fn get_destination_read_in_assert() {
    assert_findings!({
        superstep!(ctx, {
            ctx.get(1, &x, 0, &mut left);
            assert!(left > 0, "left = {}", 0);
            assert_eq!(1, left);
        });
    } => [
        (PendingDestination(Read), Get, "left"),
        (PendingDestination(Read), Get, "left"),
    ]);
}

#[test]
fn get_in_an_explicit_superstep_call() {
    assert_findings!({
        ctx.superstep(|s| {
            s.get(1, &x, 0, &mut left);
            let y = left;
        });
        let z = left;
    } => [(PendingDestination(Read), Get, "left")]);
}

#[test]
fn get_in_a_standalone_superstep_sees_outer_names() {
    let ctx: Ident = parse_quote!(ctx);
    let input: crate::input::SuperstepInput = parse_quote!(ctx, {
        ctx.get(1, &x, 0, &mut left);
        println!("{left}");
    });
    let mut walker = Walker::new(&ctx);
    walker.walk_superstep(&input.ctx, &input.block, input.ctx.span());
    let found: Vec<_> = walker.into_findings().into_iter().map(|f| (f.problem, f.op, f.name)).collect();
    assert_eq!(found, [(PendingDestination(Read), Get, "left".to_owned())]);
    // Reported as one error at the read, whose message points at the `get`.
    let mut cx = crate::ctxt::Ctxt::new();
    crate::analysis::check_superstep(&input, &mut cx);
    let messages = cx.messages();
    assert_eq!(messages.len(), 1, "{messages:#?}");
    assert!(messages[0].contains("\n= note: the `get` that makes `left` pending is "), "{}", messages[0]);
}

#[test]
fn indexed_destination_of_a_get_in_a_loop() {
    assert_findings!({
        superstep!(ctx, {
            for q in 0..p {
                ctx.get(q, &x, 0, &mut sums[q]);
            }
        });
    } => [(DestinationAgain { again: Get, element: true }, Get, "sums")]);
}

#[test]
fn hpget_into_a_pending_get_destination() {
    assert_findings!({
        superstep!(ctx, {
            ctx.get(0, &x, 0, &mut buf[0]);
            ctx.hpget(1, &x, 0, &mut buf[1]);
        });
    } => [(DestinationAgain { again: HpGet, element: true }, Get, "buf")]);
}

#[test]
fn destination_or_source_declared_in_the_superstep() {
    assert_findings!({
        superstep!(ctx, {
            let mut left = 0;
            ctx.get(1, &x, 0, &mut left);
            let data = [1, 2];
            ctx.hpput(1, &data, &x, 0);
        });
        ctx.superstep(|s| {
            let mut mine = 0;
            s.hpget(0, &x, 0, &mut (mine));
        });
    } => [
        (DeclaredInSuperstep, Get, "left"),
        (DeclaredInSuperstep, HpPut, "data"),
        (DeclaredInSuperstep, HpGet, "mine"),
    ]);
}

#[test]
fn fields_of_a_pending_destination() {
    assert_findings!({
        superstep!(ctx, {
            ctx.get(1, &x, 0, &mut pair.0);
            pair.1 = 5;
            println!("{}", pair.1);
            let whole = pair;
            let same = (*pair_ref).0;
        });
        superstep!(ctx, {
            ctx.get(1, &x, 0, &mut grid[0].x);
            let y = grid[1].y;
            let x = grid[1].x;
        });
    } => [
        (PendingDestination(Read), Get, "pair"),
        (PendingDestination(Read), Get, "grid"),
    ]);
}

#[test]
fn source_in_the_destination_registration() {
    assert_findings!({
        superstep!(ctx, {
            ctx.get(1, &reg, 0, reg.local_mut(ctx));
            ctx.hpget(1, &other, 0, &mut other.value_mut(ctx));
            ctx.get(1, reg.remote(), 0, reg.local_mut(ctx));
            ctx.get(1, name, 0, &mut reg.local_mut(ctx)[1..]);
        });
        superstep!(ctx, {
            let r = third.remote();
            ctx.get(1, r, 0, third.local_mut(ctx));
            let mine = &mut fourth.local_mut(ctx)[1..];
            ctx.get(1, fourth.remote(), 0, mine);
            let (name, local) = fifth.split_mut(ctx);
            ctx.get(1, name, 0, local);
        });
    } => [
        (SameRegistration, Get, "reg"),
        (SameRegistration, HpGet, "other"),
        (SameRegistration, Get, "reg"),
        (SameRegistration, Get, "third"),
        (SameRegistration, Get, "fourth"),
    ]);
}

#[test]
fn a_buffer_lent_by_dest() {
    assert_findings!({
        superstep!(ctx, {
            let d = ctx.dest(&mut row);
            ctx.get(1, &x, 0, d.at(0));
            let first = row[0];
        });
        superstep!(ctx, {
            let d = ctx.dest(&mut col[..]);
            ctx.get(1, &x, 0, &mut col[1]);
        });
        superstep!(ctx, {
            let d = ctx.dest(&mut fine);
            ctx.get(1, &x, 0, d.at(0));
        });
        let after = fine[0];
    } => [
        (PendingDestination(Read), Dest, "row"),
        (DestinationAgain { again: Get, element: true }, Dest, "col"),
    ]);
}

#[test]
fn a_buffer_lent_to_a_get_batch() {
    assert_findings!({
        superstep!(ctx, {
            let mut b = ctx.get_batch(&x, &mut fan);
            b.get(1, 0, 0);
            let first = fan[0];
        });
        superstep!(ctx, {
            let mut b = ctx.get_batch(&x, &mut col);
            ctx.get(1, &x, 0, &mut col[1]);
        });
        superstep!(ctx, {
            let mut b = ctx.get_batch(&x, &mut fine);
            b.get(1, 0, 0);
        });
        let after = fine[0];
    } => [
        (PendingDestination(Read), GetBatch, "fan"),
        (DestinationAgain { again: Get, element: true }, GetBatch, "col"),
    ]);
}

// ---- no false positives -----------------------------------------------------------------------

#[test]
fn shadowed_destination_is_not_reported() {
    assert_findings!({
        superstep!(ctx, {
            ctx.get(1, &x, 0, &mut left);
            let left = 5;
            println!("{left}");
            let y = left + 1;
        });
    } => []);
}

#[test]
fn read_after_the_superstep_is_fine() {
    assert_findings!({
        let mut left = 0;
        superstep!(ctx, {
            ctx.get(1, &x, 0, &mut left);
        });
        println!("{left}");
        assert_eq!(left, 1);
    } => []);
}

#[test]
fn read_in_a_later_iteration_after_the_loop_sync_is_fine() {
    assert_findings!({
        let mut left = 0;
        for i in 0..4 {
            if i > 0 {
                println!("previous: {left}");
            }
            superstep!(ctx, {
                ctx.get(i, &x, 0, &mut left);
            });
        }
        println!("{left}");
    } => []);
}

#[test]
fn put_source_reused_right_after_the_put_is_fine() {
    assert_findings!({
        let mut v = [1, 2];
        ctx.put(1, &v, &r, 0);
        v[0] = 7;
        superstep!(ctx, {
            ctx.put(1, &v, &r, 0);
            v = [3, 4];
        });
    } => []);
}

#[test]
fn destination_behind_an_alias_or_helper_is_left_to_the_types() {
    assert_findings!({
        superstep!(ctx, {
            let alias = &mut left;
            ctx.get(1, &x, 0, alias);
            fill(ctx, &mut other);
            let y = left + other;
        });
    } => []);
}

#[test]
fn superstep_in_one_branch_completes_its_own_get() {
    assert_findings!({
        if ctx.pid() == 0 {
            superstep!(ctx, { ctx.get(1, &x, 0, &mut left); });
        } else {
            ctx.sync();
        }
        println!("{left}");
    } => []);
}

#[test]
fn destinations_from_iter_mut_in_a_loop_are_fine() {
    assert_findings!({
        superstep!(ctx, {
            for (q, slot) in all.iter_mut().enumerate() {
                ctx.get(q, &x, 0, slot);
            }
            for pair in pairs.iter_mut() {
                ctx.get(0, &x, 0, &mut pair.0);
            }
        });
        println!("{all:?}");
    } => []);
}

#[test]
fn ordinary_code_is_quiet() {
    assert_findings!({
        let mut v = vec![0; 4];
        let map: std::collections::HashMap<u32, u32> = Default::default();
        let got = map.get(&1);
        v.get(1);
        let s = format!("{v:?} {got:?}", );
        let w = vec![s.len(); 3];
        if let Some(x) = v.first() { println!("{x}"); }
        match v.len() { n if n > 2 => {}, _ => {} }
        assert!(matches!(got, Some(_)));
    } => []);
}

// ---- hpput ------------------------------------------------------------------------------------

#[test]
fn hpput_source_modified_before_the_sync() {
    assert_findings!({
        superstep!(ctx, {
            ctx.hpput(1, &v, &r, 0);
            v[0] = 3;
        });
    } => [(ModifiedSource, HpPut, "v")]);
}

#[test]
fn hpput_source_modified_through_mut_borrow_in_a_closure() {
    assert_findings!({
        superstep!(ctx, {
            ctx.hpput(1, &v, &r, 0);
            let f = || fill(&mut v);
        });
    } => [(ModifiedSource, HpPut, "v")]);
}

#[test]
fn hpput_source_read_or_modified_after_the_sync_is_fine() {
    assert_findings!({
        superstep!(ctx, {
            ctx.hpput(1, &v, &r, 0);
            let y = v[0];
            println!("{v:?}");
        });
        v[0] = 3;
    } => []);
}

// ---- registrations ----------------------------------------------------------------------------

#[test]
fn registration_calls_inside_a_superstep_are_reported() {
    assert_findings!({
        superstep!(ctx, {
            let r = ctx.register([0u8]);
            ctx.unregister(q);
        });
        ctx.superstep(|s| { let v = s.register_each(parts); s.unregister_each(v); });
    } => [
        (SyncInSuperstep(Some("register")), Superstep, "ctx"),
        (SyncInSuperstep(Some("unregister")), Superstep, "ctx"),
        (SyncInSuperstep(Some("register_each")), Superstep, "s"),
        (SyncInSuperstep(Some("unregister_each")), Superstep, "s"),
    ]);
}

#[test]
fn registration_calls_are_syncs() {
    assert_findings!({
        let m = ctx.hpmove::<u32, u32>();
        let r = ctx.register([0u8]);
        let y = m;
        let n = ctx.hpmove::<u32, u32>();
        ctx.unregister(r);
        let z = n;
    } => [
        (StaleMessage, HpMove, "m"),
        (StaleMessage, HpMove, "n"),
    ]);
}

#[test]
fn registrations_are_left_to_the_types() {
    // `push_reg` does not exist (the types reject it with a message that points to `register`);
    // the macro adds nothing.
    assert_findings!({
        let r = ctx.push_reg(vec![0u32; 4]);
        ctx.put(1, &[1u32], &r, 0);
        let s = ctx.register([0u8]);
        ctx.put(1, &[1u8], &s, 0);
        ctx.unregister(s);
    } => []);
}

// ---- hpmove -----------------------------------------------------------------------------------

#[test]
fn hpmove_result_used_after_the_sync() {
    assert_findings!({
        let m = ctx.hpmove::<u32, u32>();
        ctx.sync();
        println!("{:?}", m);
    } => [(StaleMessage, HpMove, "m")]);
}

#[test]
fn hpmove_destructured_by_if_let_used_after_a_superstep() {
    assert_findings!({
        if let Some((tag, payload)) = ctx.hpmove::<u32, u32>() {
            superstep!(ctx, {});
            let first = payload[0];
        }
    } => [(StaleMessage, HpMove, "payload")]);
}

#[test]
fn hpmove_destructured_by_let_else_and_match() {
    assert_findings!({
        let Some((tag, payload)) = ctx.hpmove_bytes() else { return };
        match ctx.hpmove::<u8, u8>().unwrap() { (t, p) => { ctx.sync(); let z = t; } }
        let y = payload;
    } => [
        (StaleMessage, HpMove, "t"),
        (StaleMessage, HpMove, "payload"),
    ]);
}

#[test]
fn hpmove_used_after_a_sync_in_one_branch() {
    assert_findings!({
        let m = ctx.hpmove::<u32, u32>();
        if ctx.pid() == 0 { ctx.sync(); }
        let y = m;
    } => [(StaleMessage, HpMove, "m")]);
}

#[test]
fn hpmove_used_before_the_sync_or_copied_is_fine() {
    assert_findings!({
        let mut total = 0;
        while let Some((tag, payload)) = ctx.hpmove::<u32, u32>() {
            total += payload.len();
        }
        let kept = if let Some((_, p)) = ctx.hpmove::<u32, u32>() { p.to_vec() } else { vec![] };
        ctx.sync();
        println!("{total} {kept:?}");
        let m = ctx.hpmove::<u32, u32>();
        helper(ctx);
        let y = m;
    } => []);
}

// ---- all at once ------------------------------------------------------------------------------

#[test]
fn every_finding_is_reported() {
    assert_findings!({
        superstep!(ctx, {
            let r = ctx.register(vec![0u32; 4]);
            ctx.get(1, &x, 0, &mut left);
            ctx.hpput(1, &v, &q, 0);
            v = left;
        });
    } => [
        (SyncInSuperstep(Some("register")), Superstep, "ctx"),
        (PendingDestination(Read), Get, "left"),
        (ModifiedSource, HpPut, "v"),
    ]);
}

// ---- a registration's name kept across `local_mut` --------------------------------------------

#[test]
fn a_remote_name_used_after_local_mut() {
    assert_findings!({
        let mut x = ctx.register([0, 0]);
        superstep!(ctx, {
            let name = x.remote();
            x.local_mut(ctx)[0] += 1;
            ctx.put(1, &7, name, 1);
        });
    } => [(RemoteNameAfterLocalMut, LocalMut, "x")]);
    // The borrow does not end at a sync, and `value_mut` borrows as `local_mut` does.
    assert_findings!({
        let mut x = ctx.register([0, 0]);
        let name = x.remote();
        *x.value_mut(ctx) = 1;
        ctx.sync();
        ctx.put(1, &7, name, 1);
    } => [(RemoteNameAfterLocalMut, LocalMut, "x")]);
}

#[test]
fn a_remote_name_not_used_after_local_mut_is_not_reported() {
    assert_findings!({
        let mut x = ctx.register([0, 0]);
        let mut y = ctx.register([0, 0]);
        superstep!(ctx, {
            let mut name = x.remote();
            ctx.put(1, &7, name, 1);
            x.local_mut(ctx)[0] += 1;
            name = x.remote();
            ctx.put(1, &8, name, 1);
            let other = y.remote();
            x.local_mut(ctx)[1] += 1;
            ctx.put(1, &9, other, 1);
            let name = x.remote();
            let (again, local) = x.split_mut(ctx);
            local[0] += 1;
            ctx.put(1, &9, again, 1);
        });
    } => []);
}
