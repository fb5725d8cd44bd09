//! BSMP (§4, D8–D11) as engine-neutral checks: tag sizes, queue sizes, the
//! reception calls, alignment of `hpmove`, when messages are readable and in which order. On MPI
//! messages cross OS processes, so these also check that tags, payloads, lengths and the
//! alignment the sender's types need survive the trip.

use bsp_runtime::{Ctx, Value};

use super::check::{Outcome, PS_MANY, Procs, checks, expect, ring};

/// D8, §4.1: `set_tagsize` returns the size in force (B of the (A, B, C) model); the last request
/// of a superstep is the one that takes effect.
pub fn set_tagsize_returns_the_size_in_force(ctx: &mut Ctx) -> Outcome {
    let first = [ctx.set_tagsize(1), ctx.set_tagsize(0), ctx.set_tagsize(1)];
    ctx.sync();
    let second = [ctx.set_tagsize(5), ctx.set_tagsize(1)];
    ctx.sync();
    ctx.send_bytes(ctx.pid(), &[9], &[]);
    let third = ctx.set_tagsize(1);
    ctx.sync();
    let mut tag = [0u8];
    let got = (first, second, third, ctx.get_tag_bytes(&mut tag), tag);
    expect("(returns, returns, returns, get_tag, tag)", got, ([0, 0, 0], [1, 1], 1, Some(0), [9]))
}

/// D8: processes may reach the same final request by different call sequences.
pub fn only_the_last_tagsize_request_of_a_superstep_counts(ctx: &mut Ctx) -> Outcome {
    if ctx.pid() % 2 == 0 {
        ctx.set_tagsize(4);
        ctx.set_tagsize(16);
    }
    ctx.set_tagsize(8);
    ctx.sync();
    expect("tag size in force", ctx.set_tagsize(8), 8)
}

/// §4.1: a message is sent with the tag size in force in its superstep and read with that size
/// in the next, even when a different size was requested.
pub fn queued_messages_keep_the_tag_size_they_were_sent_with(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(pid, p);
    ctx.set_tag::<u32>();
    ctx.sync();
    let in_force = ctx.set_tag::<u64>();
    ctx.send(right, &(pid as u32), &[1u8][..]);
    ctx.sync();
    let first = ctx.get_tag::<u32>();
    ctx.send(right, &(u64::MAX - pid as u64), &[2u8, 2][..]);
    ctx.sync();
    expect(
        "(in force when asking for 8, first tag, second tag)",
        (in_force, first, ctx.get_tag::<u64>()),
        (4, Some((1, left as u32)), Some((2, u64::MAX - left as u64))),
    )
}

/// §4.3: `qsize` counts the messages and the sum of their payload bytes, not the tags; sends of
/// the current superstep do not show.
pub fn qsize_counts_messages_and_payload_bytes_not_tags(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let at_start = ctx.qsize();
    ctx.set_tag::<u64>();
    ctx.sync();
    for q in 0..p {
        ctx.send(q, &0u64, &vec![0u16; pid + 1][..]);
    }
    let while_sending = ctx.qsize();
    ctx.sync();
    expect(
        "qsize at start, while sending, after",
        (at_start, while_sending, ctx.qsize()),
        ((0, 0), (0, 0), (p, p * (p + 1))),
    )
}

/// §4.3, §4.5, §4.6: both numbers of `qsize` shrink after every kind of move.
pub fn qsize_shrinks_after_each_move(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    ctx.set_tag::<u16>();
    ctx.sync();
    for k in 0..5 {
        for q in 0..p {
            ctx.send(q, &(k as u16), &vec![pid as u16; pid + k + 1][..]);
        }
    }
    ctx.sync();
    let mut sizes = vec![ctx.qsize()];
    let mut missing = Vec::new();
    let mut buf = [0u16; 64];
    let mut bytes = [0u8; 256];
    for i in 0..5 * p {
        let moved = match i % 5 {
            0 => ctx.move_message::<u16, u16>().is_some(),
            1 => ctx.move_into(&mut buf).is_some(),
            2 => ctx.move_bytes(&mut bytes).is_some(),
            3 => ctx.hpmove::<u16, u16>().is_some(),
            _ => ctx.hpmove_bytes().is_some(),
        };
        if !moved {
            missing.push(i);
        }
        sizes.push(ctx.qsize());
    }
    let lens: Vec<usize> = (0..p).flat_map(|q| (0..5).map(move |k| 2 * (q + k + 1))).collect();
    let want: Vec<(usize, usize)> = (0..=lens.len()).map(|i| (lens.len() - i, lens[i..].iter().sum())).collect();
    expect("messages missing", missing, vec![])?;
    expect("qsize after each move", sizes, want)
}

/// §4.4: `get_tag` reports the first message's payload length and tag without dequeuing it.
pub fn get_tag_does_not_dequeue(ctx: &mut Ctx) -> Outcome {
    let pid = ctx.pid();
    ctx.set_tag::<[u8; 3]>();
    ctx.sync();
    ctx.send(pid, &[1u8, 2, 3], &[5u32, 6][..]);
    ctx.sync();
    let a = ctx.get_tag::<[u8; 3]>();
    let b = ctx.get_tag::<[u8; 3]>();
    let mut raw = [0u8; 3];
    let c = ctx.get_tag_bytes(&mut raw);
    let q = ctx.qsize();
    let m = ctx.move_message::<[u8; 3], u32>();
    expect(
        "(get_tag, again, get_tag_bytes, tag, qsize, move, qsize)",
        (a, b, c, raw, q, m, ctx.qsize()),
        (Some((8, [1, 2, 3])), Some((8, [1, 2, 3])), Some(8), [1, 2, 3], (1, 8), Some(([1, 2, 3], vec![5, 6])), (0, 0)),
    )
}

/// D9, §4.4–§4.6: on an empty queue every reception call reports "empty" and leaves the caller's
/// buffers untouched.
pub fn an_empty_queue_reports_none_and_leaves_buffers_untouched(ctx: &mut Ctx) -> Outcome {
    fn all_empty(ctx: &Ctx) -> bool {
        let mut tag = [0xABu8; 4];
        let mut payload = [0xCDu32; 2];
        let mut bytes = [0xEFu8; 3];
        ctx.qsize() == (0, 0)
            && ctx.get_tag::<u32>().is_none()
            && ctx.get_tag_bytes(&mut tag).is_none()
            && ctx.move_message::<u32, u8>().is_none()
            && ctx.move_into(&mut payload).is_none()
            && ctx.move_bytes(&mut bytes).is_none()
            && ctx.hpmove::<u32, u8>().is_none()
            && ctx.hpmove_bytes().is_none()
            && tag == [0xAB; 4]
            && payload == [0xCD; 2]
            && bytes == [0xEF; 3]
    }
    let before = all_empty(ctx);
    ctx.set_tag::<u32>();
    ctx.sync();
    ctx.send(ctx.pid(), &7u32, &[1u8][..]);
    ctx.sync();
    let drained = ctx.move_message::<u32, u8>();
    expect("(empty before, drained, empty after)", (before, drained, all_empty(ctx)), (true, Some((7, vec![1])), true))
}

/// §4.5: a move copies `min(payload, buffer)` elements, leaves the rest of the buffer alone,
/// returns the full payload length, and with an empty buffer just discards the message.
pub fn move_into_and_move_bytes_truncate_and_return_the_full_length(ctx: &mut Ctx) -> Outcome {
    let pid = ctx.pid();
    for _ in 0..3 {
        ctx.send(pid, &(), &[1u32, 2, 3, 4, 5][..]);
    }
    ctx.send_bytes(pid, &[], &[10, 11, 12, 13, 14, 15]);
    ctx.send_bytes(pid, &[], &[20, 21]);
    ctx.sync();
    let mut short = [0u32; 2];
    let mut long = [9u32; 8];
    let a = ctx.move_into(&mut short);
    let b = ctx.move_into(&mut long);
    let c = ctx.move_into::<u32>(&mut []);
    let mut bytes = [0u8; 4];
    let d = ctx.move_bytes(&mut bytes);
    let mut roomy = [0xFFu8; 4];
    let e = ctx.move_bytes(&mut roomy);
    expect(
        "moves and buffers",
        (a, short, b, long, c, d, bytes, e, roomy, ctx.qsize()),
        (
            Some(5),
            [1, 2],
            Some(5),
            [1, 2, 3, 4, 5, 9, 9, 9],
            Some(5),
            Some(6),
            [10, 11, 12, 13],
            Some(2),
            [20, 21, 0xFF, 0xFF],
            (0, 0),
        ),
    )
}

/// §4.2: tag-only, payload-only and empty messages are all messages.
pub fn empty_messages_still_count(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    for q in 0..p {
        ctx.send(q, &(), &[0u8; 0][..]);
    }
    ctx.set_tag::<u16>();
    ctx.sync();
    let sizes = ctx.qsize();
    let first = ctx.get_tag::<()>();
    let (mut moved, mut non_empty) = (0, 0);
    while let Some(((), payload)) = ctx.move_message::<(), u8>() {
        moved += 1;
        non_empty += usize::from(!payload.is_empty());
    }
    for q in 0..p {
        ctx.send(q, &(q as u16), &[0u8; 0][..]);
    }
    ctx.sync();
    let tag_only = ctx.qsize();
    let mut tags = Vec::new();
    while let Some((tag, payload)) = ctx.hpmove::<u16, u8>() {
        non_empty += usize::from(!payload.is_empty());
        tags.push(*tag);
    }
    expect(
        "(qsize, first tag, moved, qsize of tag-only, tags, non-empty payloads)",
        (sizes, first, moved, tag_only, tags, non_empty),
        ((p, 0), Some((0, ())), p, (p, 0), vec![pid as u16; p], 0),
    )
}

/// D11, §4.6: `hpmove` hands out references into the receive buffer, aligned for any `Value`
/// whatever the tag size and the lengths of earlier messages, and valid for the rest of the
/// superstep, after further moves.
pub fn hpmove_references_are_aligned_for_any_value(ctx: &mut Ctx) -> Outcome {
    fn check<Tg: Value + PartialEq + std::fmt::Debug>(ctx: &mut Ctx, tag: Tg) -> Outcome {
        let (pid, p) = (ctx.pid(), ctx.nprocs());
        ctx.set_tag::<Tg>();
        ctx.sync();
        for q in 0..p {
            for len in 0..4 {
                let wide: Vec<u128> = (0..len).map(|i| (u128::MAX / 3) ^ (pid * 10 + i) as u128).collect();
                let float: Vec<f64> = (0..len).map(|i| pid as f64 + i as f64 / 4.0).collect();
                ctx.send(q, &tag, &wide[..]);
                ctx.send(q, &tag, &[7u8; 5][..len + 1]);
                ctx.send(q, &tag, &float[..]);
            }
        }
        ctx.sync();
        let size = std::mem::size_of::<Tg>();
        let mut held = Vec::new();
        for from in 0..p {
            for len in 0..4 {
                let (Some((t, wide)), Some((_, odd)), Some((_, float))) =
                    (ctx.hpmove::<Tg, u128>(), ctx.hpmove_bytes(), ctx.hpmove::<Tg, f64>())
                else {
                    return Err(format!("tag of {size} bytes: messages from {from} (len {len}) are missing"));
                };
                expect(&format!("tag of {size} bytes: tag"), t, &tag)?;
                expect(&format!("tag of {size} bytes: odd payload length"), odd.len(), len + 1)?;
                let aligned = [
                    (t as *const Tg as usize) % std::mem::align_of::<Tg>(),
                    wide.as_ptr() as usize % std::mem::align_of::<u128>(),
                    float.as_ptr() as usize % std::mem::align_of::<f64>(),
                ];
                expect(&format!("tag of {size} bytes, len {len}: misalignment of tag, u128, f64"), aligned, [0; 3])?;
                held.push((from, len, wide, float));
            }
        }
        expect(&format!("tag of {size} bytes: queue empty at the end"), ctx.hpmove_bytes().is_none(), true)?;
        for (from, len, wide, float) in held {
            let want_wide: Vec<u128> = (0..len).map(|i| (u128::MAX / 3) ^ (from * 10 + i) as u128).collect();
            let want_float: Vec<f64> = (0..len).map(|i| from as f64 + i as f64 / 4.0).collect();
            expect(&format!("tag of {size} bytes: u128 payload from {from}"), wide, &want_wide[..])?;
            expect(&format!("tag of {size} bytes: f64 payload from {from}"), float, &want_float[..])?;
        }
        Ok(())
    }
    // Every `check` makes its two syncs, whatever the others found.
    let results = [
        check(ctx, ()),
        check(ctx, 0x5Au8),
        check(ctx, [1u8, 2, 3]),
        check(ctx, 0x0123_4567_89AB_CDEFu64),
        check(ctx, [0xFFu8; 17]),
    ];
    results.into_iter().collect()
}

/// D11: `hpmove` and `move_message` accept 32-byte-aligned SIMD values (`__m256`), and the
/// alignment the sender's type needs crosses the wire with the message.
pub fn hpmove_and_move_message_accept_32_byte_aligned_values(ctx: &mut Ctx) -> Outcome {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::__m256;
        let (pid, p) = (ctx.pid(), ctx.nprocs());
        let (left, right) = ring(pid, p);
        let lanes: Vec<[f32; 8]> = (0..3).map(|i| [pid as f32 + i as f32; 8]).collect();
        let payload: Vec<__m256> = lanes.iter().map(|&l| bytemuck::cast(l)).collect();
        // A 1-byte message first, so that only the alignment asked for by the sent type puts
        // the next payload on a 32-byte boundary (the receive buffer's least alignment is 16).
        ctx.send(right, &(), &[7u8][..]);
        ctx.send(right, &(), &payload[..]);
        ctx.send(right, &(), &payload[..]);
        ctx.sync();
        let first = ctx.move_bytes(&mut []);
        let (aligned, by_ref) = match ctx.hpmove::<(), __m256>() {
            Some((_, v)) => {
                let aligned = v.as_ptr() as usize % std::mem::align_of::<__m256>() == 0;
                (aligned, v.iter().map(|&v| bytemuck::cast(v)).collect::<Vec<[f32; 8]>>())
            }
            None => (false, Vec::new()),
        };
        let copied: Vec<[f32; 8]> = ctx
            .move_message::<(), __m256>()
            .map_or_else(Vec::new, |(_, v)| v.iter().map(|&v| bytemuck::cast(v)).collect());
        let want: Vec<[f32; 8]> = (0..3).map(|i| [left as f32 + i as f32; 8]).collect();
        expect(
            "(1-byte message, aligned, by reference, copied)",
            (first, aligned, by_ref, copied),
            (Some(1), true, want.clone(), want),
        )
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = ctx;
        Ok(())
    }
}

/// §4.7: messages sent in superstep s are readable only in s + 1 (not in s, even when sent to
/// oneself) and are gone after the next sync.
pub fn messages_are_readable_only_in_the_next_superstep(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (_, right) = ring(pid, p);
    let x = ctx.register([0u8]);
    ctx.send(pid, &(), &[1u8, 2][..]);
    ctx.send(right, &(), &[3u8][..]);
    let same = ctx.qsize();
    ctx.sync();
    let next = ctx.qsize();
    ctx.put(right, &1u8, &x, 0);
    ctx.sync();
    expect("qsize in s, s + 1, s + 2", (same, next, ctx.qsize()), ((0, 0), (2, 3), (0, 0)))
}

/// D10, §4.7: unread messages are discarded at the next sync, also when nobody communicates in
/// that superstep, and also after part of the queue was read.
pub fn unread_messages_are_discarded_at_the_next_sync_even_if_nobody_communicates(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (_, right) = ring(pid, p);
    ctx.send(right, &(), &[3u8; 3][..]);
    ctx.send(right, &(), &[4u8; 4][..]);
    ctx.sync();
    let full = ctx.qsize();
    ctx.sync(); // an empty superstep: nobody sends, puts or registers anything
    let untouched = ctx.qsize();
    ctx.send(right, &(), &[5u8; 5][..]);
    ctx.send(right, &(), &[6u8; 6][..]);
    ctx.sync();
    let partly = ctx.move_bytes(&mut []);
    ctx.sync();
    expect(
        "(full, after an empty superstep, partly read, after, empty)",
        (full, untouched, partly, ctx.qsize(), ctx.hpmove_bytes().is_none()),
        ((2, 7), (0, 0), Some(5), (0, 0), true),
    )
}

/// D10: dequeue order is ascending source pid, then send order.
pub fn dequeue_order_is_ascending_source_pid_then_send_order(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    ctx.set_tag::<[u32; 2]>();
    ctx.sync();
    let mut results = Vec::new();
    for _ in 0..3 {
        for seq in 0..3u32 {
            for q in (0..p).rev() {
                ctx.send(q, &[pid as u32, seq], &[seq as u8][..]);
            }
        }
        ctx.sync();
        let mut order = Vec::new();
        let mut bad_payloads = 0;
        while let Some((tag, payload)) = ctx.move_message::<[u32; 2], u8>() {
            bad_payloads += usize::from(payload != [tag[1] as u8]);
            order.push(tag);
        }
        results.push((order, bad_payloads));
    }
    let want: Vec<[u32; 2]> = (0..p as u32).flat_map(|q| (0..3).map(move |s| [q, s])).collect();
    expect("(order, payloads that do not match their tag) in 3 rounds", results, vec![(want, 0); 3])
}

/// §4.2: a process can send to itself; tag and payload are copied at the call.
pub fn a_process_can_send_to_itself(ctx: &mut Ctx) -> Outcome {
    let pid = ctx.pid();
    ctx.set_tagsize(3);
    ctx.sync();
    let mut tag = [pid as u8, 1, 2];
    let mut payload = vec![pid as u8; 4];
    ctx.send_bytes(pid, &tag, &payload);
    tag[0] = 0xFF;
    payload.fill(0xFF);
    ctx.sync();
    let mut got_tag = [0u8; 3];
    let len = ctx.get_tag_bytes(&mut got_tag);
    let (t, body) = ctx.hpmove_bytes().map_or((vec![], vec![]), |(t, b)| (t.to_vec(), b.to_vec()));
    let me = pid as u8;
    expect(
        "(len, tag, hpmove tag, body, qsize, sender's tag after)",
        (len, got_tag, t, body, ctx.qsize(), tag[0]),
        (Some(4), [me, 1, 2], vec![me, 1, 2], vec![me; 4], (0, 0), 0xFF),
    )
}

checks! {
    set_tagsize_returns_the_size_in_force,
    only_the_last_tagsize_request_of_a_superstep_counts,
    queued_messages_keep_the_tag_size_they_were_sent_with,
    qsize_counts_messages_and_payload_bytes_not_tags,
    qsize_shrinks_after_each_move,
    get_tag_does_not_dequeue,
    an_empty_queue_reports_none_and_leaves_buffers_untouched,
    move_into_and_move_bytes_truncate_and_return_the_full_length,
    empty_messages_still_count,
    hpmove_references_are_aligned_for_any_value => Procs::ALL.on(&[1, 2, 3]),
    hpmove_and_move_message_accept_32_byte_aligned_values => Procs::ALL.on(&[1, 2, 3]),
    messages_are_readable_only_in_the_next_superstep,
    unread_messages_are_discarded_at_the_next_sync_even_if_nobody_communicates => Procs::ALL.on(PS_MANY),
    dequeue_order_is_ascending_source_pid_then_send_order => Procs::ALL.on(PS_MANY),
    a_process_can_send_to_itself,
}
