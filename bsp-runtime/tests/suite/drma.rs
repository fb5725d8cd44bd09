//! Registration and DRMA (§3, §5, D1–D7) as engine-neutral checks: when
//! registrations take effect, extents, pops, puts and gets and their order at the sync, hp
//! variants, large transfers, and the examples of the bsp_get(3) page.

use bsp_runtime::{Ctx, Reg};

use super::check::{Complaints, Outcome, PS_MANY, Procs, checks, expect, ring};

/// Index of the first element where `got` and `want` differ, with both values.
fn first_mismatch<T: PartialEq + Copy>(got: &[T], want: &[T]) -> Option<(usize, T, T)> {
    if got.len() != want.len() {
        return None;
    }
    got.iter().zip(want).position(|(g, w)| g != w).map(|i| (i, got[i], want[i]))
}

// ---------------------------------------------------------------------------------------------
// §3.1, §3.2 registration, D4–D6
// ---------------------------------------------------------------------------------------------

/// §3.1: a registration is usable from the superstep after the sync that follows its push.
pub fn registration_takes_effect_at_the_next_sync(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let x = ctx.register(vec![0u32; p]);
    for q in 0..p {
        ctx.put(q, &(pid as u32 + 1), &x, pid);
    }
    ctx.sync();
    expect("x", x.local(ctx).to_vec(), (1..=p as u32).collect())
}

/// §3.1, §6.1: extents may differ per process; bounds are those of the target, not the caller.
pub fn registration_extents_may_differ_per_process(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (_, right) = ring(pid, p);
    let x = ctx.register(vec![0u16; pid + 1]);
    ctx.put(right, &[pid as u16 + 1], &x, right);
    ctx.sync();
    let mut lasts = vec![0u16; p];
    ctx.superstep(|s| {
        for (q, slot) in lasts.iter_mut().enumerate() {
            s.get(q, &x, q, slot);
        }
    });
    let mut want = vec![0u16; pid + 1];
    want[pid] = ring(pid, p).0 as u16 + 1;
    let want_lasts: Vec<u16> = (0..p).map(|q| ring(q, p).0 as u16 + 1).collect();
    expect("(len, local, lasts)", (x.len(), x.local(ctx).to_vec(), lasts), (pid + 1, want, want_lasts))
}

/// bsp_push_reg(3) EXAMPLES 2: after the last sync process 0 has x=1, y=2 and process 1 has
/// x=2, y=4 (on one process: x=1, y=2 and no put).
pub fn bsp_push_reg_example_2(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (x0, y) = if pid == 0 { (1, 2) } else { (3, 4) };
    let x = ctx.register([x0]);
    if pid == 0 && p > 1 {
        ctx.put(1, &y, &x, 0);
    }
    ctx.sync();
    let want = match pid {
        0 => (1, 2),
        1 => (2, 4),
        _ => (3, 4),
    };
    expect("(x, y)", (*x.value(ctx), y), want)
}

/// §3.1 (zero size): a process may register nothing and still reach the others' parts (half
/// duplex); zero-length accesses to an empty part are fine.
pub fn zero_size_registrations_allow_half_duplex_communication(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let data = if pid == 0 { Vec::new() } else { vec![10 * pid as u32] };
    let (x, none) = ctx.register((data, Vec::<u64>::new()));
    let mut seen = vec![0u32; p];
    let mut nothing: [u64; 0] = [];
    ctx.superstep(|s| {
        if pid == 0 {
            for (q, slot) in seen.iter_mut().enumerate().skip(1) {
                s.get(q, &x, 0, slot);
                s.put(q, &(100 + q as u32), &x, 0);
            }
        }
        s.put(0, &[0u32; 0], &x, 0);
        s.put(ring(pid, p).1, &[0u64; 0], &none, 0);
        s.get(ring(pid, p).1, &none, 0, &mut nothing);
    });
    let got = (x.is_empty(), none.len(), x.local(ctx).to_vec());
    if pid == 0 {
        expect("(empty, len of none, local)", got, (true, 0, vec![]))?;
        expect("process 0's gets (read before its puts landed)", seen, (0..p as u32).map(|q| 10 * q).collect())
    } else {
        expect("(empty, len of none, local)", got, (false, 0, vec![100 + pid as u32]))
    }
}

/// D27, §3.2: a put queued before `unregister` lands at its sync, and `unregister` gives the data
/// back with it.
pub fn a_put_queued_before_unregister_lands_and_unregister_returns_the_data(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(pid, p);
    let mut x = ctx.register(vec![pid as u32; 2]);
    x.local_mut(ctx)[1] = 50 + pid as u32;
    ctx.put(right, &(100 + pid as u32), &x, 0);
    let data = ctx.unregister(x);
    expect("unregister", data, vec![100 + left as u32, 50 + pid as u32])
}

/// §3.2: pops take effect before pushes at a sync, slots are reused, and every registration
/// keeps addressing its own memory on every process.
pub fn registration_slots_are_reused_after_pops(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (_, right) = ring(pid, p);
    let (a, b, c) = ctx.register((vec![0u32; 1], vec![0u32; 2], vec![0u32; 3]));
    let (a_id, b_id) = (a.id(), b.id());
    let b = ctx.unregister(b);
    let d = ctx.register(vec![0u32; 4]);
    let v = |reg: u32| 10 * reg + pid as u32;
    ctx.put(right, &[v(1)], &a, 0);
    ctx.put(right, &[v(3); 3], &c, 0);
    ctx.put(right, &[v(4); 4], &d, 0);
    let a = ctx.unregister(a);
    let e = ctx.register(vec![0u32; 5]);
    ctx.put(right, &[v(5); 5], &e, 0);
    ctx.put(right, &[v(6); 4], &d, 0);
    ctx.sync();
    // Ids are numbered per run: relative to the first of this check.
    let ids = [a_id, b_id, c.id(), d.id(), e.id()].map(|id| id + 1 - a_id);
    let (cl, dl, el) = (c.local(ctx).to_vec(), d.local(ctx).to_vec(), e.local(ctx).to_vec());
    let left = ring(pid, p).0 as u32;
    expect(
        "(ids, a, b, c, d, e)",
        (ids, a, b, cl, dl, el),
        ([1, 2, 3, 4, 5], vec![10 + left], vec![0, 0], vec![30 + left; 3], vec![60 + left; 4], vec![50 + left; 5]),
    )
}

/// §3.1, §3.2: pops need not nest like a stack.
pub fn pops_need_not_follow_stack_order(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (_, right) = ring(pid, p);
    let (a, b, c) = ctx.register(([0i64], [0i64; 2], [0i64; 3]));
    let a = ctx.unregister(a);
    ctx.put(right, &[pid as i64; 2], &b, 0);
    ctx.put(right, &[-(pid as i64); 3], &c, 0);
    ctx.sync();
    let first = (b.local(ctx).to_vec(), c.local(ctx).to_vec());
    let c = ctx.unregister(c);
    ctx.put(right, &(pid as i64 + 7), &b, 1);
    ctx.sync();
    let second = b.local(ctx).to_vec();
    let b = ctx.unregister(b);
    let left = ring(pid, p).0 as i64;
    expect(
        "(after the first pop, after the second, a, b, c)",
        (first, second, a, b, c),
        ((vec![left; 2], vec![-left; 3]), vec![left, left + 7], vec![0], vec![left, left + 7], vec![-left; 3]),
    )
}

// ---------------------------------------------------------------------------------------------
// §3.3, §3.4 DRMA and the ordering table of §5, D1–D3, D7
// ---------------------------------------------------------------------------------------------

/// §5: a local write to a put's source after the call has no effect.
pub fn put_copies_its_source_at_the_call(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let x = ctx.register([0u32; 2]);
    let mut v = [pid as u32 + 1, pid as u32 + 2];
    ctx.put(ring(pid, p).1, &v, &x, 0);
    v = [99, 99];
    ctx.sync();
    let left = ring(pid, p).0 as u32;
    expect("(source, x)", (v, x.local(ctx).to_vec()), ([99, 99], vec![left + 1, left + 2]))
}

/// §5: a put to oneself is deferred to the sync; so is an hpput (checked after the sync only).
pub fn put_to_self_is_deferred_to_the_sync(ctx: &mut Ctx) -> Outcome {
    let pid = ctx.pid();
    let x = ctx.register([5u32, 6]);
    ctx.put(pid, &7u32, &x, 0);
    let before = x.local(ctx).to_vec();
    let block = [8u32];
    ctx.superstep(|s| s.hpput(pid, &block, &x, 1));
    expect("(before the sync, after)", (before, x.local(ctx).to_vec()), (vec![5, 6], vec![7, 8]))
}

/// §5: a get sees local writes to its source made before the sync, on the owner.
pub fn get_reads_its_source_at_the_sync_after_local_writes(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (_, right) = ring(pid, p);
    let mut x = ctx.register([1u32]);
    let (mut from_self, mut from_right) = (0, 0);
    ctx.superstep(|s| {
        s.get(pid, &x, 0, &mut from_self);
        s.get(right, &x, 0, &mut from_right);
        *x.value_mut(s) = 100 + pid as u32;
    });
    expect("(from self, from right)", (from_self, from_right), (100 + pid as u32, 100 + right as u32))
}

/// §1 phase 2: a get sees the value from before the superstep even when puts to the same bytes
/// land in the same sync.
pub fn get_source_is_read_before_any_put_lands(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(pid, p);
    let x = ctx.register([10 * pid as u32, 20 * pid as u32]);
    let (mut remote, mut own) = (0, 0);
    ctx.superstep(|s| {
        s.put(right, &(1000 + pid as u32), &x, 0);
        s.put(pid, &(2000 + pid as u32), &x, 1);
        s.get(right, &x, 0, &mut remote);
        s.get(pid, &x, 1, &mut own);
    });
    expect(
        "(remote get, own get, x)",
        (remote, own, x.local(ctx).to_vec()),
        (10 * right as u32, 20 * pid as u32, vec![1000 + left as u32, 2000 + pid as u32]),
    )
}

/// D1: the put wins over a get or an hpget on the same local destination, from another process
/// or from the requester itself, issued before or after.
pub fn a_put_wins_over_a_get_on_the_same_local_destination(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(pid, p);
    let (mut x, y) = ctx.register(([0u32; 3], [100 + pid as u32, 200 + pid as u32, 300 + pid as u32]));
    ctx.superstep(|s| {
        s.put(pid, &7u32, &x, 1);
        let (name, local) = x.split_mut(s);
        if pid % 2 == 0 {
            s.get(right, &y, 0, local);
        } else {
            s.hpget(right, &y, 0, local);
        }
        s.put(right, &(500 + pid as u32), name, 0);
    });
    expect("x", x.local(ctx).to_vec(), vec![500 + left as u32, 7, 300 + right as u32])
}

/// D2: puts to the same bytes from different sources land in ascending source pid (the highest
/// pid wins, element by element); put or hpput alike.
pub fn overlapping_puts_from_different_sources_highest_pid_wins(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let x = ctx.register(vec![u32::MAX; p + 2]);
    let block = [pid as u32; 3];
    ctx.superstep(|s| {
        for t in 0..p {
            if pid % 2 == 0 {
                s.put(t, &block, &x, pid);
            } else {
                s.hpput(t, &block, &x, pid);
            }
        }
    });
    expect("x", x.local(ctx).to_vec(), (0..p + 2).map(|i| i.min(p - 1) as u32).collect())
}

/// D2 and BSMP order when each process talks to a few others, chosen differently in each
/// superstep and first touched in descending pid order: puts from different sources to one
/// element apply in ascending source pid (the highest wins), messages arrive in ascending source
/// pid, then send order; supersteps with only messages, only puts, or nothing alternate.
pub fn puts_and_messages_from_a_few_sources_apply_in_ascending_source_pid(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    // The processes `q` sends to in round `r`, in the order it first touches them.
    let targets = |q: usize, r: usize| {
        let mut t = vec![(q * 7 + 3 * r + 1) % p, (q + r) % p, 0];
        t.dedup();
        t
    };
    let senders_of = |me: usize, r: usize| (0..p).filter(move |&q| targets(q, r).contains(&me));
    let x = ctx.register([u32::MAX; 2]);
    ctx.set_tag::<u32>();
    ctx.sync();
    let mut got = Vec::new();
    for r in 0..4 {
        for (i, &t) in targets(pid, r).iter().enumerate() {
            if r % 2 == 0 {
                ctx.put(t, &[pid as u32, i as u32], &x, 0);
            }
            if r != 2 {
                ctx.send(t, &(pid as u32), &[i as u8][..]);
            }
        }
        ctx.sync();
        let mut order = Vec::new();
        while let Some((tag, payload)) = ctx.move_message::<u32, u8>() {
            order.push((tag, payload[0]));
        }
        got.push((x.local(ctx).to_vec(), order));
        ctx.sync(); // an empty superstep between rounds
    }
    let mut want = Vec::new();
    let mut x_now = vec![u32::MAX; 2];
    for r in 0..4 {
        if r % 2 == 0 {
            // The highest sender wins; its last put here is the one of its position in its list.
            let last = senders_of(pid, r).max().expect("process 0 hears from everyone");
            let index = targets(last, r).iter().rposition(|&t| t == pid).expect("a target");
            x_now = vec![last as u32, index as u32];
        }
        let order: Vec<(u32, u8)> = if r == 2 {
            Vec::new()
        } else {
            senders_of(pid, r)
                .flat_map(|q| {
                    let t = targets(q, r);
                    (0..t.len()).filter(move |&i| t[i] == pid).map(move |i| (q as u32, i as u8))
                })
                .collect()
        };
        want.push((x_now.clone(), order));
    }
    expect("(x, messages) after each of 4 rounds", got, want)
}

/// The statistics count the messages the engine sends: none where processes share memory
/// (threads); under `mpirun` at least one per sync with communication when there are other
/// ranks, and with the sparse exchange (`BSP_MPI_EXCHANGE=sparse`) at most the ranks a process
/// talks to plus ⌈log₂ p⌉ for the all-reduce that starts the sync and as many for the barrier
/// that ends it. With threads per rank (`BSP_THREADS`), the rank's first process sends the
/// rank's messages and counts them; the others send none.
pub fn engine_messages_follow_the_ranks_a_process_talks_to(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (_, right) = ring(pid, p);
    let x = ctx.register([0u64; 4]);
    let mut counts = Vec::new();
    for round in 0..3u64 {
        for i in 0..4 {
            ctx.put(right, &(round + i as u64), &x, i);
        }
        ctx.sync();
        counts.push(ctx.stats().last.engine_messages);
    }
    let on_mpi = std::env::var_os("OMPI_COMM_WORLD_SIZE").is_some();
    let sparse = std::env::var("BSP_MPI_EXCHANGE").is_ok_and(|v| v == "sparse");
    let log2 = p.next_power_of_two().trailing_zeros() as u64;
    let talks_to = u64::from(right != pid);
    let threads = std::env::var("BSP_THREADS").ok().and_then(|v| v.parse::<usize>().ok());
    let ok = counts.iter().all(|&m| {
        if !on_mpi {
            m == 0
        } else if let Some(t) = threads {
            if pid % t == 0 && p > t { m >= 1 } else { m == 0 }
        } else if sparse {
            m >= talks_to && m <= talks_to + 2 * log2
        } else {
            p == 1 || m >= 1
        }
    });
    expect(
        &format!("messages per sync (on MPI: {on_mpi}, sparse: {sparse}, p = {p}) within the bound"),
        (counts.clone(), ok),
        (counts, true),
    )
}

/// D2: puts from one source land in issue order; put and hpput interleave in issue order.
pub fn overlapping_puts_from_one_source_last_issued_wins(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (_, right) = ring(pid, p);
    let x = ctx.register([0u32; 5]);
    let two = [2u32, 2];
    ctx.superstep(|s| {
        s.put(right, &[1u32; 5], &x, 0);
        s.hpput(right, &two, &x, 1);
        s.put(right, &3u32, &x, 2);
        s.put(right, &[4u32, 4], &x, 3);
        s.put(right, &5u32, &x, 4);
    });
    expect("x", x.local(ctx).to_vec(), vec![1, 2, 3, 4, 5])
}

/// D7: zero-length puts, gets, hpputs and hpgets move nothing, whatever the offset.
pub fn zero_length_transfers_move_nothing(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (_, right) = ring(pid, p);
    let x = ctx.register([1u32, 2]);
    let (empty, mut into_get, mut into_hpget): ([u32; 0], [u32; 0], Vec<u32>) = ([], [], Vec::new());
    ctx.superstep(|s| {
        s.put(right, &empty, &x, 5);
        s.hpput(right, &empty, &x, 100);
        s.get(right, &x, 7, &mut into_get);
        s.hpget(right, &x, 2, &mut into_hpget);
    });
    expect("(x, hpget destination length)", (x.local(ctx).to_vec(), into_hpget.len()), (vec![1, 2], 0))
}

/// §3.3, D3: an hpput from memory that is not registered behaves like a put after the sync.
pub fn hpput_from_unregistered_memory_behaves_like_put(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(pid, p);
    let x = ctx.register(vec![0u64; 64]);
    let block: Vec<u64> = (0..32).map(|i| 1000 * pid as u64 + i).collect();
    ctx.superstep(|s| s.hpput(right, &block[..], &x, 16));
    let mut want = vec![0u64; 64];
    for (i, w) in want[16..48].iter_mut().enumerate() {
        *w = 1000 * left as u64 + i as u64;
    }
    expect("x", x.local(ctx).to_vec(), want)
}

/// §3.3, D3: an hpput whose source is registered memory that other hpputs write in the same sync
/// behaves like a put; to itself with overlapping source and destination, like a memmove.
pub fn hpput_from_registered_memory_behaves_like_put(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (_, right) = ring(pid, p);
    let (x, mut y) = ctx.register((vec![pid as u32; 4], vec![10 + pid as u32; 2]));
    ctx.superstep(|s| {
        s.hpput(right, x.local(s), &x, 0);
        s.hpput(right, &y.local(s)[..1], &x, 3);
    });
    let shifted = x.local(ctx).to_vec();
    y.local_mut(ctx).copy_from_slice(&[1, 2]);
    let name = &y.remote();
    ctx.superstep(|s| s.hpput(pid, &y.local(s)[..1], name, 1));
    let left = ring(pid, p).0 as u32;
    expect("(x, y)", (shifted, y.local(ctx).to_vec()), (vec![left, left, left, 10 + left], vec![1, 1]))
}

/// §3.3, D3, D11: an hpput whose source is an `hpmove` payload (the receive buffer, which the
/// sender's own sync rebuilds) behaves like a put. Roles: process 0 sends to `relay` (1 mod p),
/// which hpputs the payload to `receiver` (2 mod p), whom process 0 keeps busy with 8 MiB.
pub fn hpput_from_an_hpmove_payload_behaves_like_put(ctx: &mut Ctx) -> Outcome {
    const K: usize = 4096;
    const BIG: usize = 8 << 20;
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (relay, receiver) = (1 % p, 2 % p);
    let (x, big) = ctx.register((vec![0u64; K], vec![0u8; if pid == receiver { BIG } else { 0 }]));
    if pid == 0 {
        ctx.send(relay, &(), &[1u64; K][..]);
    }
    ctx.sync();
    if pid == 0 {
        ctx.send(relay, &(), &[2u64; K][..]);
        ctx.put(receiver, &vec![7u8; BIG][..], &big, 0);
    }
    let mut relayed = 0;
    ctx.superstep(|s| {
        if s.pid() == relay
            && let Some((_, payload)) = s.hpmove::<(), u64>()
        {
            relayed = payload.len();
            s.hpput(receiver, payload, &x, 0);
        }
    });
    let wrong = x.local(ctx).iter().filter(|&&v| v != 1).count();
    if pid == relay {
        expect("elements the relay hpput", relayed, K)?;
    }
    if pid == receiver {
        expect("elements of x that are not the relayed payload", wrong, 0)?;
    }
    Ok(())
}

/// §1 phases 2–3, §3.4, D1: gets whose destinations lie in the registration they read (read by
/// the neighbours in the same sync, and by the process itself) see the pre-superstep values, and
/// a put to one of those bytes wins.
pub fn gets_into_the_registration_they_read_see_pre_superstep_values(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(pid, p);
    let base = 10 * pid as u32;
    let mut x = ctx.register([base, base + 1, base + 2, base + 3]);
    ctx.superstep(|s| {
        let (name, local) = x.split_mut(s);
        let (low, high) = local.split_at_mut(2);
        s.get(left, name, 2, low);
        s.get(pid, name, 0, high);
        s.put(right, &(1000 + pid as u32), name, 3);
    });
    let l = 10 * left as u32;
    expect("x", x.local(ctx).to_vec(), vec![l + 2, l + 3, base, 1000 + left as u32])
}

/// Puts, hpputs, gets and hpgets of 8 MiB, checked element by element.
pub fn transfers_of_8_mib_arrive_intact(ctx: &mut Ctx) -> Outcome {
    const N: usize = (8 << 20) / 4;
    fn pattern(from: usize, kind: u32) -> Vec<u32> {
        (0..N as u32).map(|i| i.wrapping_mul(2_654_435_761) ^ ((from as u32) << 28) ^ (kind << 24)).collect()
    }
    fn check(what: &str, got: &[u32], want: &[u32]) -> Option<String> {
        if got.len() != want.len() {
            return Some(format!("{what}: {} elements, expected {}", got.len(), want.len()));
        }
        first_mismatch(got, want).map(|(i, g, w)| format!("{what}: element {i} is {g:#x}, expected {w:#x}"))
    }
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(pid, p);
    let mut x = ctx.register(vec![0u32; N]);
    let mut errors = Vec::new();
    ctx.put(right, &pattern(pid, 1)[..], &x, 0);
    ctx.sync();
    errors.extend(check("put", x.local(ctx), &pattern(left, 1)));
    let block = pattern(pid, 2);
    ctx.superstep(|s| s.hpput(right, &block[..], &x, 0));
    errors.extend(check("hpput", x.local(ctx), &pattern(left, 2)));
    x.local_mut(ctx).copy_from_slice(&pattern(pid, 3));
    let mut dst = vec![0u32; N];
    ctx.superstep(|s| s.get(left, &x, 0, &mut dst[..]));
    errors.extend(check("get", &dst, &pattern(left, 3)));
    x.local_mut(ctx).copy_from_slice(&pattern(pid, 4));
    ctx.superstep(|s| s.hpget(right, &x, 0, &mut dst[..]));
    errors.extend(check("hpget", &dst, &pattern(right, 4)));
    expect("transfers that differ", errors, vec![])
}

/// Supersteps of h scattered one-word puts, then h scattered one-word gets, for h such that the
/// blocks between two MPI ranks are of every kind the engine sends: carried by the sync's first
/// message, cut into pieces under the eager limit (the puts at h = 155 to 677, the replies at
/// h = 677 and 1500), and whole. Every word is checked.
pub fn scattered_words_arrive_intact_at_every_block_size(ctx: &mut Ctx) -> Outcome {
    const HS: [usize; 7] = [1, 155, 160, 300, 677, 678, 1500];
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(pid, p);
    let word = |from: usize, h: usize, i: usize| ((from as u64) << 48) | ((h as u64) << 24) | i as u64;
    // Every other element, so that each put (and get) is a record of its own.
    let x = ctx.register(vec![0u64; 2 * HS[HS.len() - 1]]);
    let mut errors = Vec::new();
    for h in HS {
        for i in 0..h {
            ctx.put(right, &word(pid, h, i), &x, 2 * i);
        }
        ctx.sync();
        let local = x.local(ctx);
        if let Some(i) = (0..h).find(|&i| local[2 * i] != word(left, h, i)) {
            errors.push(format!(
                "put, h = {h}: element {} is {:#x}, expected {:#x}",
                2 * i,
                local[2 * i],
                word(left, h, i)
            ));
        }
        // What this process put, back from the right.
        let mut back = vec![0u64; h];
        ctx.superstep(|s| {
            let d = s.dest(&mut back);
            for i in 0..h {
                s.get(right, &x, 2 * i, d.at(i));
            }
        });
        if let Some(i) = (0..h).find(|&i| back[i] != word(pid, h, i)) {
            errors.push(format!("get, h = {h}: word {i} is {:#x}, expected {:#x}", back[i], word(pid, h, i)));
        }
    }
    expect("transfers that differ", errors, vec![])
}

// ---------------------------------------------------------------------------------------------
// bsp_get(3) EXAMPLES
// ---------------------------------------------------------------------------------------------

/// bsp_get(3) example 1, `get_array`: `forall i: xs[i] := xs[xs[i]]`, in place.
pub fn bsp_get_example_1_get_array(ctx: &mut Ctx) -> Outcome {
    const N_OVER_P: usize = 3;
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let n = N_OVER_P * p;
    let global: Vec<u32> = (0..n).map(|g| ((g * 7 + 3) % n) as u32).collect();
    let mine = global[pid * N_OVER_P..(pid + 1) * N_OVER_P].to_vec();
    let mut xs = ctx.register(mine.clone());
    ctx.superstep(|s| {
        let (name, local) = xs.split_mut(s);
        for (slot, &v) in local.iter_mut().zip(&mine) {
            let (owner, local_idx) = (v as usize / N_OVER_P, v as usize % N_OVER_P);
            s.get(owner, name, local_idx, slot);
        }
    });
    let want: Vec<u32> = mine.iter().map(|&v| global[v as usize]).collect();
    expect("xs", ctx.unregister(xs), want)
}

/// bsp_get(3) example 2, `bsp_sum`: every process hpgets every local sum.
pub fn bsp_get_example_2_bsp_sum_with_hpget(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let xs: Vec<i32> = (1..=pid as i32 + 1).collect();
    let result = ctx.register([xs.iter().sum::<i32>()]);
    let mut local_sums = vec![0i32; p];
    ctx.superstep(|s| {
        for (i, slot) in local_sums.iter_mut().enumerate() {
            s.hpget(i, &result, 0, slot);
        }
    });
    ctx.unregister(result);
    expect("sum", local_sums.iter().sum::<i32>(), (1..=p as i32).map(|k| k * (k + 1) / 2).sum())
}

/// bsp_get(3) example 3, `cyclic_shift` with a buffered get into `x` itself.
pub fn bsp_get_example_3_cyclic_shift_with_get(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let mut x = ctx.register([7 * pid as i32]);
    ctx.superstep(|s| {
        let (name, local) = x.split_mut(s);
        s.get(ring(pid, p).0, name, 0, local);
    });
    expect("x", ctx.unregister(x), vec![7 * ring(pid, p).0 as i32])
}

/// bsp_get(3) example 4, `cyclic_shift` with a high-performance get.
pub fn bsp_get_example_4_cyclic_shift_with_hpget(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let x = ctx.register([7 * pid as i32]);
    let mut result = -1;
    ctx.superstep(|s| s.hpget(ring(pid, p).0, &x, 0, &mut result));
    ctx.unregister(x);
    expect("result", result, 7 * ring(pid, p).0 as i32)
}

/// bsp_get(3) example 5, `bsp_allsums` (logarithmic prefix sums).
pub fn bsp_get_example_5_allsums(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let x = pid as i32 + 1;
    let mut right = ctx.register([0i32]);
    *right.value_mut(ctx) = x;
    let mut i = 1;
    while i < p {
        let mut left = 0;
        ctx.superstep(|s| {
            if pid >= i {
                s.get(pid - i, &right, 0, &mut left);
            }
        });
        if pid >= i {
            *right.value_mut(ctx) += left;
        }
        i *= 2;
    }
    let sum = *right.value(ctx);
    ctx.unregister(right);
    expect("prefix sum", sum, x * (x + 1) / 2)
}

/// Gets of consecutive source elements into two separate locals each fill their own local, also
/// where the two happen to lie side by side in memory. The requester joins gets that continue
/// each other only within one destination buffer: a record that ran on from one local into the
/// next would copy across two allocations at the sync, which is undefined behaviour. The locals
/// are fresh in every round and taken in address order, so wherever they are placed next to each
/// other (Miri places them at random, and does in some rounds), the second get continues the
/// first.
pub fn gets_into_adjacent_locals_fill_each_alone(ctx: &mut Ctx) -> Outcome {
    fn round(ctx: &mut Ctx, q: usize, x: &Reg<u32>, at: usize) -> [u32; 2] {
        let (mut a, mut b) = (u32::MAX, u32::MAX);
        let (lo, hi) = if &raw const a < &raw const b { (&mut a, &mut b) } else { (&mut b, &mut a) };
        ctx.superstep(|s| {
            s.get(q, x, at, lo);
            s.get(q, x, at + 1, hi);
        });
        if &raw const a < &raw const b { [a, b] } else { [b, a] }
    }
    const ROUNDS: usize = if cfg!(miri) { 64 } else { 8 };
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (_, right) = ring(pid, p);
    let x = ctx.register((0..ROUNDS as u32 + 1).map(|i| 1000 * pid as u32 + i).collect::<Vec<_>>());
    let got: Vec<[u32; 2]> = (0..ROUNDS).map(|i| round(ctx, right, &x, i)).collect();
    let base = 1000 * right as u32;
    expect("rounds", got, (0..ROUNDS as u32).map(|i| [base + i, base + i + 1]).collect())
}

/// One-element gets of consecutive elements into consecutive places (which the requester queues
/// as one record, staged alike) read every element as it was before the superstep's puts (D1),
/// and each counts as one get in the statistics of requester and owner.
pub fn consecutive_one_element_gets_move_every_element(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (from, to) = ring(pid, p);
    let value = |q: usize, i: usize| (q * 100 + i) as u32;
    let mut x = ctx.register((0..8).map(|i| value(pid, i)).collect::<Vec<u32>>());
    let mut buf = [0u32; 8];
    ctx.superstep(|s| {
        let (name, mine) = x.split_mut(s);
        let d = s.dest(&mut buf);
        for i in 0..4 {
            s.get(to, name, i, d.at(i)); // consecutive: one record
        }
        s.get(to, name, 6, d.at(4)); // the source jumps
        s.get(to, name, 7, d.at(5));
        s.get(to, name, 0, d.at(7)); // the destination jumps
        let own = s.dest(&mut mine[..2]);
        s.get(from, name, 4, own.at(0)); // into the registration read: staged
        s.get(from, name, 5, own.at(1));
        s.put(to, &7u32, name, 7); // lands after every get read
    });
    let last = ctx.stats().last;
    let got = (buf, x.local(ctx).to_vec());
    ctx.unregister(x);
    let mut want_x: Vec<u32> = (0..8).map(|i| value(pid, i)).collect();
    want_x[..2].copy_from_slice(&[value(from, 4), value(from, 5)]);
    want_x[7] = 7;
    let t = |i| value(to, i);
    let want = ([t(0), t(1), t(2), t(3), t(6), t(7), 0, t(0)], want_x);
    let calls = if p > 1 { 9 } else { 0 };
    let mut c = Complaints::default();
    c.expect("(buf, x)", got, want);
    c.expect("gets made of others", last.received.gets, calls);
    c.expect("gets served to others", last.sent.gets, calls);
    c.expect("local gets", last.local.gets, 9 - calls);
    c.outcome()
}

// ---------------------------------------------------------------------------------------------
// `put_batch`: `Ctx::put` with the checks made once (same records, same order)
// ---------------------------------------------------------------------------------------------

/// A batch's puts land as `Ctx::put`'s would: 8 words to every process, issued round-robin
/// (the destination changes at every put), and a run of consecutive words to the right
/// neighbour.
pub fn put_batch_delivers_scattered_and_consecutive_puts(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(pid, p);
    let x = ctx.register(vec![0u64; 8 * p]);
    let y = ctx.register(vec![0u64; 64]);
    let mut batch = ctx.put_batch(&x);
    for i in 0..8 {
        for q in 0..p {
            batch.put(q, &(100 * pid as u64 + i as u64), 8 * pid + i);
        }
    }
    let mut batch = ctx.put_batch(&y);
    for i in 0..64 {
        batch.put(right, &(1000 * pid as u64 + i as u64), i);
    }
    ctx.sync();
    let want: Vec<u64> = (0..p).flat_map(|q| (0..8).map(move |i| 100 * q as u64 + i)).collect();
    let want_y: Vec<u64> = (0..64).map(|i| 1000 * left as u64 + i).collect();
    expect("(x, y)", (x.local(ctx).to_vec(), y.local(ctx).to_vec()), (want, want_y))
}

/// A batch extends a run of puts to consecutive elements only while the next put continues it:
/// not across a put to another process in between that does not continue it, a put back to an
/// earlier element (which lands later, D2), a combining put, or a multi-element source that
/// starts past the run's end; and a run continues one that `Ctx::put` began before the batch.
pub fn put_batch_extends_a_run_only_while_the_puts_continue_it(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(pid, p);
    let add = ctx.combiner(|a: u64, b: u64| a + b);
    let x = ctx.register(vec![0u64; 12]);
    let v = |from: usize, i: u64| 100 * from as u64 + i;
    ctx.put(right, &v(pid, 0), &x, 0); // a run the batch continues
    let mut batch = ctx.put_batch(&x);
    batch.put(right, &v(pid, 1), 1);
    batch.put(right, &v(pid, 2), 2);
    batch.put(left, &v(pid, 50), 11); // another process (the same one when p <= 2)
    batch.put(right, &v(pid, 3), 3);
    batch.put(right, &v(pid, 60), 1); // back to an earlier element: lands after the run
    batch.put(right, &v(pid, 61), 2); // continues that one
    batch.put_combine(right, &5u64, 3, add); // adds to element 3 after the put above
    batch.put(right, &v(pid, 4), 4);
    batch.put(right, &[v(pid, 6), v(pid, 7)], 6); // skips element 5
    batch.put(right, &[v(pid, 8), v(pid, 9)], 8);
    ctx.sync();
    let l = |i| v(left, i);
    let mut want = vec![l(0), l(60), l(61), l(3) + 5, l(4), 0, l(6), l(7), l(8), l(9), 0, 0];
    // Element 11: from the process whose left neighbour this one is (its right neighbour),
    // issued after its run to this process began, so that with p <= 2 it is the same process and
    // the put lands in issue order with the others.
    want[11] = v(right, 50);
    expect("x", x.local(ctx).to_vec(), want)
}

/// D2 through batches: the puts of one source land in issue order, interleaved with its
/// `Ctx::put`s, and among sources the highest pid wins.
pub fn put_batch_keeps_issue_order_with_put(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(pid, p);
    let x = ctx.register([0u32; 5]);
    ctx.put(right, &1u32, &x, 0);
    ctx.put(right, &[1u32, 1], &x, 1);
    let mut batch = ctx.put_batch(&x);
    batch.put(right, &2u32, 0); // after the first put: wins
    batch.put(right, &[3u32, 3], 1); // continues it
    ctx.put(right, &4u32, &x, 2); // after the batch: wins over its second word
    let mut batch = ctx.put_batch(&x);
    batch.put(right, &5u32, 3);
    batch.put(0, &(10 + pid as u32), 4); // every process writes process 0's last element
    ctx.sync();
    let mut want = [2, 3, 4, 5, 0];
    if pid == 0 {
        want[4] = 10 + p as u32 - 1;
    }
    let _ = left;
    expect("x", x.local(ctx).to_vec(), want.to_vec())
}

/// Sources of every shape; a zero-length put validates nothing it does not need and moves
/// nothing, at any offset (D7); the source may change as soon as `put` returns.
pub fn put_batch_takes_any_source_and_copies_it_at_the_call(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let right = ring(pid, p).1;
    let x = ctx.register([0u16; 8]);
    let mut v = vec![1u16, 2];
    let mut batch = ctx.put_batch(&x);
    batch.put(right, &v, 0); // &Vec
    v[0] = 9;
    batch.put(right, &v[..1], 2); // &[T]
    batch.put(right, &[3u16, 4], 3); // array
    batch.put(right, &5u16, 5); // one element
    batch.put(right, &[] as &[u16], usize::MAX); // zero length: anywhere, nothing moves
    batch.put(right, &[] as &[u16], 8);
    v.fill(7);
    ctx.sync();
    expect("x", x.local(ctx).to_vec(), vec![1, 2, 9, 3, 4, 5, 0, 0])
}

// ---------------------------------------------------------------------------------------------
// `get_batch`: one-element gets with the checks made once (same records, same order)
// ---------------------------------------------------------------------------------------------

/// A batch's gets read what `get`'s read: every element of every process, in an order that
/// changes process at every get (no two continue each other), once through `get` and once
/// through `get_each`, beside the same gets through `Superstep::get`; a put into the
/// registration in the same superstep lands after every get read (D1); each batch get counts as
/// one get in the statistics.
pub fn get_batch_reads_what_get_reads(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let value = |q: usize, i: usize| (q * 100 + i) as u64;
    let x = ctx.register((0..8).map(|i| value(pid, i)).collect::<Vec<u64>>());
    // Get k reads element k / p of process (pid + k) % p into place 8p - 1 - k.
    let gets: Vec<(usize, usize, usize)> = (0..8 * p).map(|k| ((pid + k) % p, k / p, 8 * p - 1 - k)).collect();
    let (mut one, mut each, mut plain) = (vec![0u64; 8 * p], vec![0u64; 8 * p], vec![0u64; 8 * p]);
    ctx.superstep(|s| {
        let mut batch = s.get_batch(&x, &mut one);
        for &(q, offset, at) in &gets {
            batch.get(q, offset, at);
        }
        s.get_batch(&x, &mut each).get_each(gets.iter().copied());
        let d = s.dest(&mut plain);
        for &(q, offset, at) in &gets {
            s.get(q, &x, offset, d.at(at));
        }
        s.put(pid, &999u64, &x, 0); // lands after the gets read
    });
    let last = ctx.stats().last;
    let mine = x.local(ctx).to_vec();
    ctx.unregister(x);
    let want: Vec<u64> = (0..8 * p).rev().map(|k| value((pid + k) % p, k / p)).collect();
    let others = 3 * 8 * (p - 1);
    let mut c = Complaints::default();
    c.expect("get_batch.get", one, want.clone());
    c.expect("get_batch.get_each", each, want.clone());
    c.expect("Superstep::get", plain, want);
    c.expect("x[0] after the put", mine[0], 999);
    c.expect("gets made of others", last.received.gets, others);
    c.expect("local gets", last.local.gets, 3 * 8 * p - others);
    c.outcome()
}

/// `get_each` gathers gets that continue each other into runs and queues them in issue order
/// with the superstep's other gets: a later `get` into the same place wins, an earlier one
/// loses; runs break where the process, the source or the place jumps; a batch into the
/// registration it reads (staged) sees the values from before the superstep; an empty
/// `get_each` queues nothing.
pub fn get_batch_runs_keep_issue_order(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (from, to) = ring(pid, p);
    let value = |q: usize, i: usize| (q * 100 + i) as u32;
    let mut x = ctx.register((0..8).map(|i| value(pid, i)).collect::<Vec<u32>>());
    let mut buf = [0u32; 10];
    ctx.superstep(|s| {
        let (name, mine) = x.split_mut(s);
        let d = s.dest(&mut buf);
        s.get(from, name, 7, d.at(0)); // overwritten by the batch
        let mut batch = s.get_batch(name, d);
        batch.get_each((0..4).map(|i| (to, i, i))); // one run: places 0..4
        batch.get_each([(to, 6, 4), (to, 7, 5), (from, 0, 6), (to, 0, 8)]); // the source, the process, the place jump
        batch.get_each(std::iter::empty());
        s.get(from, name, 5, d.at(8)); // wins over the batch's get into place 8
        let mut own = s.get_batch(name, &mut mine[4..]); // into the registration read: staged
        own.get_each([(to, 4, 0), (to, 5, 1), (from, 6, 2)]); // elements the owners overwrite so
    });
    let got = (buf, x.local(ctx).to_vec());
    ctx.unregister(x);
    let (t, f) = (|i| value(to, i), |i| value(from, i));
    let mut want_x: Vec<u32> = (0..8).map(|i| value(pid, i)).collect();
    want_x[4..7].copy_from_slice(&[t(4), t(5), f(6)]);
    let want = ([t(0), t(1), t(2), t(3), t(6), t(7), f(0), 0, f(5), 0], want_x);
    expect("(buf, x)", got, want)
}

/// `put_batch_with_local`: a redistribution inside one registration. Each process reads its
/// local part (block distribution, 3 elements each) and puts every element to the position of
/// the reversed vector, into the same registration; it also overwrites its local part meanwhile
/// (the puts copied the old values at the call, and land over the new ones at the sync). Then
/// the same on an in-place registration (`Registered`), generic over the handle.
pub fn put_batch_with_local_redistributes_within_one_registration(ctx: &mut Ctx) -> Outcome {
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let n = 3 * p;
    let mut x = ctx.register((3 * pid..3 * pid + 3).map(|i| i as u64).collect::<Vec<_>>());
    let (mut batch, local) = ctx.put_batch_with_local(&mut x);
    for (t, v) in local.iter_mut().enumerate() {
        let j = n - 1 - (3 * pid + t);
        batch.put(j / 3, v, j % 3);
        *v = 999;
    }
    ctx.sync();
    let want: Vec<u64> = (0..3).map(|t| (n - 1 - (3 * pid + t)) as u64).collect();
    let got = x.local(ctx).to_vec();
    let mut y = [pid as u32; 2];
    let right = ring(pid, p).1;
    ctx.with_reg(&mut y, |ctx, mut r| {
        let (mut batch, local) = ctx.put_batch_with_local(&mut r);
        batch.put(right, &local[0], 1);
        ctx.sync();
    });
    let left = ring(pid, p).0 as u32;
    expect("(x, y)", (got, y), (want, [pid as u32, left]))
}

/// Buffered puts of 1 MiB (which end their sync with the outboxes released, so that the next
/// superstep refills the same ones), several supersteps in a row, alternating with supersteps of
/// small puts, messages and gets: every word is checked each time.
pub fn bulk_put_supersteps_alternate_with_small_ones(ctx: &mut Ctx) -> Outcome {
    const WORDS: usize = 1 << 17;
    let (pid, p) = (ctx.pid(), ctx.nprocs());
    let (left, right) = ring(pid, p);
    let x = ctx.register(vec![0u64; WORDS]);
    let mut src = vec![0u64; WORDS];
    let mut bad = Vec::new();
    for round in 0..6u64 {
        let tag = 1 + round * 100 + pid as u64;
        src.iter_mut().enumerate().for_each(|(i, w)| *w = tag * 1_000_000 + i as u64);
        match round % 3 {
            0 => ctx.put(right, &src[..], &x, 0),
            1 => ctx.put_batch(&x).put(right, &src[..], 0),
            _ => {
                // half through `put`, half through a batch, in two halves that continue
                ctx.put(right, &src[..WORDS / 2], &x, 0);
                ctx.put_batch(&x).put(right, &src[WORDS / 2..], WORDS / 2);
            }
        }
        src.fill(0); // buffered: no effect
        ctx.sync();
        let from = 1 + round * 100 + left as u64;
        if let Some(i) = x.local(ctx).iter().enumerate().position(|(i, &w)| w != from * 1_000_000 + i as u64) {
            bad.push(format!("round {round}: word {i} is {}", x.local(ctx)[i]));
        }
        // A superstep of small traffic in between: a put, a message and a get.
        ctx.put(right, &7u64, &x, 1);
        ctx.send(left, &(), &[round][..]);
        let mut got = 0u64;
        ctx.superstep(|s| s.get(right, &x, 2, &mut got));
        let msg = ctx.move_message::<(), u64>().map(|(_, v)| v);
        if x.local(ctx)[1] != 7 || msg != Some(vec![round]) {
            bad.push(format!("round {round}: small superstep saw {} and {msg:?}", x.local(ctx)[1]));
        }
        let _ = got;
    }
    expect("mismatches", bad, Vec::<String>::new())
}

checks! {
    registration_takes_effect_at_the_next_sync,
    registration_extents_may_differ_per_process,
    bsp_push_reg_example_2 => Procs::ALL.on(&[2, 3, 4]),
    zero_size_registrations_allow_half_duplex_communication,
    a_put_queued_before_unregister_lands_and_unregister_returns_the_data,
    registration_slots_are_reused_after_pops,
    pops_need_not_follow_stack_order,
    put_copies_its_source_at_the_call,
    put_to_self_is_deferred_to_the_sync,
    get_reads_its_source_at_the_sync_after_local_writes,
    get_source_is_read_before_any_put_lands => Procs::ALL.on(PS_MANY),
    a_put_wins_over_a_get_on_the_same_local_destination => Procs::ALL.on(PS_MANY),
    overlapping_puts_from_different_sources_highest_pid_wins => Procs::ALL.on(PS_MANY),
    overlapping_puts_from_one_source_last_issued_wins => Procs::ALL.on(PS_MANY),
    puts_and_messages_from_a_few_sources_apply_in_ascending_source_pid => Procs::ALL.on(PS_MANY),
    engine_messages_follow_the_ranks_a_process_talks_to,
    zero_length_transfers_move_nothing,
    hpput_from_unregistered_memory_behaves_like_put,
    hpput_from_registered_memory_behaves_like_put,
    // five times on threads, where the race it guards against may show only sometimes
    hpput_from_an_hpmove_payload_behaves_like_put => Procs::ALL.on(&[3, 3, 3, 3, 3]),
    gets_into_the_registration_they_read_see_pre_superstep_values,
    transfers_of_8_mib_arrive_intact => Procs::ALL.on(&[2, 3]),
    scattered_words_arrive_intact_at_every_block_size => Procs::ALL.on(&[1, 2, 3]),
    bsp_get_example_1_get_array,
    bsp_get_example_2_bsp_sum_with_hpget,
    bsp_get_example_3_cyclic_shift_with_get,
    bsp_get_example_4_cyclic_shift_with_hpget,
    bsp_get_example_5_allsums,
    gets_into_adjacent_locals_fill_each_alone => Procs::ALL.on(&[1, 2]),
    consecutive_one_element_gets_move_every_element,
    put_batch_delivers_scattered_and_consecutive_puts => Procs::ALL.on(PS_MANY),
    put_batch_extends_a_run_only_while_the_puts_continue_it => Procs::ALL.on(&[1, 2, 3, 4]),
    put_batch_keeps_issue_order_with_put,
    put_batch_takes_any_source_and_copies_it_at_the_call,
    put_batch_with_local_redistributes_within_one_registration,
    get_batch_reads_what_get_reads => Procs::ALL.on(PS_MANY),
    get_batch_runs_keep_issue_order,
    bulk_put_supersteps_alternate_with_small_ones => Procs::ALL.on(&[1, 2, 3]),
}
