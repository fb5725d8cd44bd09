//! Registration by address, and DRMA on registrations named by address (`bsp_push_reg`,
//! `bsp_pop_reg`, `bsp_put`, `bsp_hpput`, `bsp_get`, `bsp_hpget`).
//!
//! A push goes into the process's registration table through `Ctx::push_entry`, the call
//! `register` makes before its sync, and a pop through `Ctx::pop_entry`: both take effect at the
//! next sync, where the verdict compares them across processes (matched by order, D16). This
//! file only remembers which table entries belong to which address, so that a C address can
//! be turned into the entry: the newest entry of that address that is effective (pushed before
//! the last sync; popped entries stay usable until the sync of their pop, as in BSPlib).
//! Transfers are then queued in the outbox as `put`, `hpput` and `get` queue theirs.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use super::{misuse, non_negative};
use crate::Ctx;
use crate::outbox::{PutKey, PutSrc, flags};
use crate::reg::RegState;

/// One process's registrations by address (the entries themselves live in its table).
#[derive(Debug, Default)]
pub struct Registry {
    /// For each registered address, its table entries `(slot, serial)`, oldest first.
    by_addr: HashMap<usize, Vec<(u32, u64)>, BuildHasherDefault<AddrHasher>>,
    /// The superstep up to whose start entries the table dropped have been forgotten (pops take
    /// effect only at syncs, so once per superstep is enough).
    pruned_at: usize,
    /// The last address a transfer resolved, in which superstep, and its entry: transfers into
    /// one registration look it up once, until a push or pop (which entry is the newest
    /// effective one changes only at the sync after a push or a pop).
    last: Option<(usize, usize, u32, u64)>,
    /// The superstep of the last push or pop, if any: an entry resolved in a later superstep
    /// is still the one in force.
    changed_at: Option<usize>,
    /// Entries pushed and popped in this superstep: never effective, gone at its sync.
    unborn: Vec<(u32, u64)>,
    /// The last get that was checked in full: what [`quick_get`](Registry::quick_get) needs to
    /// queue the next ones from the same address and process without the checks.
    get_hit: Option<GetHit>,
}

/// A get checked in full ([`Registry::get`]), for the next gets of the same superstep from the
/// same address on the same process.
#[derive(Clone, Copy, Debug)]
struct GetHit {
    /// The source address the program named, and the process.
    addr: usize,
    pid: usize,
    /// The superstep, and how many registrations the table had ever made then: while both are
    /// the same, the address names the same registration (a push takes effect at the sync, a
    /// popped registration stays usable until then), and this process's registered memory is
    /// the same (entries are dropped only at syncs).
    step: usize,
    made: u64,
    /// The registration's slot, its address and extent (bytes) on `pid`.
    slot: u32,
    remote_addr: usize,
    extent: usize,
    /// A range of this process's memory that overlaps none of its registrations: a get into it
    /// lands in place, unstaged.
    gap: (usize, usize),
}

/// Hashes a registered address for [`Registry`]'s map: one multiplication (Fibonacci hashing),
/// where SipHash cost a registration and a pop ~100 instructions per lookup. The keys are the
/// program's own addresses, not input an attacker chooses.
#[derive(Default)]
struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// A transfer's target, checked.
struct Target {
    slot: u32,
    serial: u64,
    offset: usize,
    len: usize,
    /// The target process's address of the registration (read only where processes share
    /// memory).
    remote_addr: usize,
    /// The registration's extent on the target process, in bytes.
    extent: usize,
}

impl Registry {
    /// `bsp_push_reg(addr, size)`: registers `size` bytes at `addr`, effective at the next sync.
    /// A null `addr` registers nothing of this process (others may still name the
    /// registration through their own addresses); its size must be 0.
    ///
    /// # Safety
    /// Unless `size` is 0, `addr` must point to `size` bytes that stay valid, and are written
    /// only by this process outside its syncs, until the sync that ends the registration.
    #[track_caller]
    pub unsafe fn push(&mut self, ctx: &Ctx, addr: *const u8, size: i64) {
        let op = "bsp_push_reg";
        ctx.check_live(op);
        let bytes = non_negative(ctx, op, "size", size);
        if addr.is_null() && bytes > 0 {
            misuse(
                ctx,
                format!(
                    "{op}: a null address with size {bytes} (a process that takes no part registers NULL with size 0)"
                ),
            );
        }
        let addr = addr as usize;
        if addr.checked_add(bytes).is_none() {
            misuse(ctx, format!("{op}: {bytes} bytes at address {addr:#x} run past the end of memory"));
        }
        self.changed_at = Some(ctx.step());
        let (slot, serial) = ctx.state.borrow_mut().table.alloc();
        // The memory is the caller's: the entry keeps nothing alive.
        ctx.push_entry(slot, serial, addr, bytes, 1, "u8", Arc::new(()), None);
        self.by_addr.entry(addr).or_default().push((slot, serial));
    }

    /// `bsp_pop_reg(addr)`: ends the newest registration of `addr` at the next sync.
    #[track_caller]
    pub fn pop(&mut self, ctx: &Ctx, addr: *const u8) {
        let op = "bsp_pop_reg";
        ctx.check_live(op);
        let addr = addr as usize;
        self.changed_at = Some(ctx.step());
        self.forget_gone(ctx);
        let st = ctx.state.borrow();
        let newest = self.by_addr.get(&addr).and_then(|entries| {
            entries.iter().rev().copied().find(|&(slot, serial)| {
                st.table.get(slot, serial).is_some_and(|e| !matches!(e.state, RegState::Popped(_)))
            })
        });
        let popped = self.by_addr.get(&addr).and_then(|entries| {
            entries.iter().rev().find_map(|&(slot, serial)| match st.table.get(slot, serial).map(|e| e.state) {
                Some(RegState::Popped(s)) => Some((serial, s)),
                _ => None,
            })
        });
        drop(st);
        match (newest, popped) {
            (Some((slot, serial)), _) if matches!(self.state(ctx, slot), RegState::Pushed(_)) => {
                // Pushed in this superstep: the sync applies the push, then the pop (BSPlib allows
                // both in one superstep; the Rust API cannot write it, D5).
                self.unborn.push((slot, serial));
                {
                    let mut st = ctx.state.borrow_mut();
                    let step = ctx.step();
                    st.table.entries[slot as usize].as_mut().expect("found above").state = RegState::Popped(step);
                    st.flags |= flags::WORK | flags::COLLECTIVE;
                }
                // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
                unsafe { ctx.outbox() }.meta.pops.push(serial);
            }
            (Some((slot, serial)), _) => ctx.pop_entry(op, slot, serial),
            (None, Some((serial, step))) => misuse(
                ctx,
                format!("{op}: address {addr:#x} (registration #{serial}) was already popped in superstep {step}"),
            ),
            (None, None) => misuse(ctx, format!("{op}: address {addr:#x} is not registered on this process")),
        }
    }

    /// The state of the entry in `slot` (which exists).
    fn state(&self, ctx: &Ctx, slot: u32) -> RegState {
        ctx.state.borrow().table.entries[slot as usize].as_ref().expect("an entry of this registry").state
    }

    /// Drops the entries that the table no longer holds (popped by an earlier sync), once per
    /// superstep.
    fn forget_gone(&mut self, ctx: &Ctx) {
        if self.pruned_at == ctx.step() {
            return;
        }
        self.pruned_at = ctx.step();
        self.unborn.clear();
        let st = ctx.state.borrow();
        self.by_addr.retain(|_, entries| {
            entries.retain(|&(slot, serial)| st.table.get(slot, serial).is_some());
            !entries.is_empty()
        });
    }

    /// The effective registration of `addr` for a transfer with `pid` of `len` bytes at
    /// `offset`, checked: live, `pid` in range, registered and effective, within the extent
    /// `pid` registered.
    ///
    /// Always inlined, as `Ctx::resolve` is for the Rust API: it is the fast path of every C
    /// transfer, and the misuse messages are built out of line.
    #[track_caller]
    #[inline(always)]
    fn target(&mut self, ctx: &Ctx, op: &str, pid: i64, addr: *const u8, offset: i64, len: i64) -> (usize, Target) {
        ctx.check_live(op);
        let pid = match usize::try_from(pid) {
            Ok(p) if p < ctx.nprocs() => p,
            _ => pid_out_of_range(ctx, op, pid),
        };
        let (offset, len) = match (usize::try_from(offset), usize::try_from(len)) {
            (Ok(offset), Ok(len)) => (offset, len),
            _ => negative(ctx, op, offset, len),
        };
        let addr = addr as usize;
        let (slot, serial) = match self.in_force(addr, ctx.step()) {
            Some(entry) => entry,
            None => {
                let (slot, serial) = self.effective(ctx, op, pid, addr);
                self.last = Some((addr, ctx.step(), slot, serial));
                (slot, serial)
            }
        };
        // (Live and `pid` in range: checked above.)
        let (remote_addr, extent) = ctx.lookup_entry(op, pid, ctx.run_id(), ctx.pid(), slot, serial);
        if len > 0 && offset.checked_add(len).is_none_or(|end| end > extent) {
            past_extent(ctx, op, (pid, serial, addr), offset, len, extent);
        }
        (pid, Target { slot, serial, offset: if len == 0 { 0 } else { offset }, len, remote_addr, extent })
    }

    /// The entry of `addr` that the last transfer resolved, if that was `addr` and the entry is
    /// still the one in force in superstep `step` (no push or pop since, or it was resolved in
    /// this superstep).
    #[inline(always)]
    fn in_force(&self, addr: usize, step: usize) -> Option<(u32, u64)> {
        match self.last {
            Some((a, at, slot, serial)) if a == addr && (at == step || self.changed_at.is_none_or(|c| c < at)) => {
                Some((slot, serial))
            }
            _ => None,
        }
    }

    /// `bsp_put` without its checks where the runtime made them for an earlier put of this
    /// superstep: to the process and the registration (named by the same address `dst`) of the
    /// last checked put, and within the extent there.
    /// With `IN_PLACE`, only a put of 4, 8 or 16 bytes that fits the queue's spare capacity,
    /// with no call on the path; without, also a put to another process of that registration,
    /// and any that needs the queue looked up or grown (`Ctx::quick_put_more`). Returns whether
    /// it queued the put; if not, nothing changed, and the caller calls
    /// [`put`](Registry::put), which checks everything (and fails with the message of a
    /// misuse). It never panics, so it needs no unwinding guard around it.
    ///
    /// # Safety
    /// As [`put`](Registry::put).
    #[inline(always)]
    pub unsafe fn quick_put<const IN_PLACE: bool>(
        ctx: &Ctx,
        pid: i64,
        src: *const u8,
        dst: *const u8,
        offset: i64,
        len: i64,
    ) -> bool {
        if !ctx.is_live() {
            return false;
        }
        // Within a superstep, an address names the same registration for transfers: a push
        // takes effect at the sync, and a popped registration stays usable until then. So the
        // runtime's note of the last checked put holds the address as its key.
        let key = PutKey::address(dst as usize);
        // A negative value becomes a huge one, which no extent admits.
        let (pid, offset, len) = (pid as usize, offset as usize, len as usize);
        // SAFETY: called only for a put the runtime accepted, whose `len` bytes at `src` are
        // readable (the caller's contract).
        let bytes = || unsafe { std::slice::from_raw_parts(src, len) };
        if IN_PLACE {
            // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
            unsafe { ctx.outbox() }.quick_put::<true>((pid, key), (offset, len, 1), len, bytes)
        } else {
            ctx.quick_put_more((pid, key), (offset, len, 1), len, bytes)
        }
    }

    /// The newest effective registration of `addr` (`(slot, serial)`), or a misuse naming the
    /// transfer (`op` with `pid`).
    #[track_caller]
    fn effective(&mut self, ctx: &Ctx, op: &str, pid: usize, addr: usize) -> (u32, u64) {
        self.forget_gone(ctx);
        let st = ctx.state.borrow();
        let mut pushed = None;
        let found = self.by_addr.get(&addr).and_then(|entries| {
            entries.iter().rev().copied().find(|&(slot, serial)| match st.table.get(slot, serial).map(|e| e.state) {
                Some(RegState::Pushed(s)) => {
                    pushed.get_or_insert((serial, s));
                    false
                }
                Some(RegState::Popped(s)) if self.unborn.contains(&(slot, serial)) => {
                    pushed.get_or_insert((serial, s));
                    false
                }
                Some(_) => true,
                None => false,
            })
        });
        drop(st);
        match (found, pushed) {
            (Some(found), _) => found,
            (None, Some((serial, step))) => misuse(
                ctx,
                format!(
                    "{op} with process {pid}: address {addr:#x} (registration #{serial}) was pushed in this superstep ({step}) and takes effect only at the next sync"
                ),
            ),
            (None, None) => misuse(
                ctx,
                format!(
                    "{op} with process {pid}: address {addr:#x} is not registered on this process (never pushed, or popped by an earlier sync)"
                ),
            ),
        }
    }

    /// `bsp_put`: copies `len` bytes at `src` now; they land at `offset` in `dst`'s registration
    /// on `pid` at the next sync.
    ///
    /// # Safety
    /// Unless the transfer is refused or `len` is 0, `src` must point to `len` readable bytes.
    #[track_caller]
    #[inline]
    pub unsafe fn put(&mut self, ctx: &Ctx, pid: i64, src: *const u8, dst: *const u8, offset: i64, len: i64) {
        let (pid, t) = self.target(ctx, "bsp_put", pid, dst, offset, len);
        if t.len == 0 {
            return;
        }
        // SAFETY: the caller's contract.
        let bytes = unsafe { std::slice::from_raw_parts(src, t.len) };
        buffered_put(ctx, pid, t.slot, t.offset, bytes);
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        unsafe { ctx.outbox() }.note_hit(PutKey::address(dst as usize), pid, (t.slot, t.serial), t.extent);
    }

    /// `bsp_hpput`: like [`put`](Registry::put), but the bytes at `src` are read during the
    /// next sync (a source inside this process's registered memory is copied now, since puts
    /// may land there in the same sync).
    ///
    /// # Safety
    /// Unless the transfer is refused or `len` is 0, `src` must point to `len` bytes that stay
    /// readable, and unchanged, until the end of the next sync.
    #[track_caller]
    pub unsafe fn hpput(&mut self, ctx: &Ctx, pid: i64, src: *const u8, dst: *const u8, offset: i64, len: i64) {
        let (pid, t) = self.target(ctx, "bsp_hpput", pid, dst, offset, len);
        if t.len == 0 {
            return;
        }
        let addr = src as usize;
        if ctx.state.borrow().table.overlaps_local(addr, t.len) {
            // SAFETY: the caller's contract.
            let bytes = unsafe { std::slice::from_raw_parts(src, t.len) };
            buffered_put(ctx, pid, t.slot, t.offset, bytes);
            return;
        }
        // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
        let q = unsafe { ctx.outbox() }.dest(pid);
        q.push_put(t.slot, t.offset, t.len, PutSrc::Direct(addr));
        ctx.state.borrow_mut().flags |= flags::WORK | flags::PUT | flags::HPPUT;
    }

    /// `bsp_get` and `bsp_hpget` (`op`): `len` bytes at `offset` of `src`'s registration on
    /// `pid`, read at the next sync before any put lands, written to `dst` in that sync.
    ///
    /// # Safety
    /// Unless the transfer is refused or `len` is 0, `dst` must point to `len` bytes that stay
    /// writable until the end of the next sync, where nothing else reads or writes them.
    #[allow(clippy::too_many_arguments, reason = "the arguments of `bsp_get`")]
    #[track_caller]
    pub unsafe fn get(&mut self, ctx: &Ctx, op: &str, pid: i64, src: *const u8, offset: i64, dst: *mut u8, len: i64) {
        let (pid, t) = self.target(ctx, op, pid, src, offset, len);
        if t.len == 0 {
            return;
        }
        let dst_addr = dst as usize;
        // A destination in this process's registered memory is staged: others may read it in
        // the same sync.
        let (gap, made) = {
            let st = ctx.state.borrow();
            (st.table.gap_around(dst_addr, t.len), st.table.made())
        };
        // C names no buffer, only an address: each get is its own destination buffer, so that
        // a record never runs from one C object into the next.
        ctx.push_get(pid, t.slot, t.offset, t.remote_addr + t.offset, t.len, dst_addr, dst_addr, gap.is_none(), 1);
        self.get_hit = gap.map(|gap| GetHit {
            addr: src as usize,
            pid,
            step: ctx.step(),
            made,
            slot: t.slot,
            remote_addr: t.remote_addr,
            extent: t.extent,
            gap,
        });
    }

    /// `bsp_get` without its checks where [`get`](Registry::get) made them for an earlier get of
    /// this superstep: from the same address (so the same registration) on the same process,
    /// within the extent there, into memory of this process that no registration overlaps (and
    /// none was made since), moving something. Returns whether it queued the get; if not,
    /// nothing changed, and the caller calls [`get`](Registry::get), which checks everything
    /// (and fails with the message of a misuse). It never panics.
    ///
    /// # Safety
    /// As [`get`](Registry::get).
    #[allow(clippy::too_many_arguments, reason = "the arguments of `bsp_get`")]
    #[inline]
    pub unsafe fn quick_get(&self, ctx: &Ctx, pid: i64, src: *const u8, offset: i64, dst: *mut u8, len: i64) -> bool {
        let Some(h) = self.get_hit else { return false };
        // A negative value becomes a huge one, which no extent or process number admits.
        let (pid, offset, len, dst) = (pid as usize, offset as usize, len as usize, dst as usize);
        if h.addr != src as usize || h.pid != pid || len == 0 || offset > h.extent || len > h.extent - offset {
            return false;
        }
        if dst < h.gap.0 || dst > h.gap.1 || len > h.gap.1 - dst || !ctx.is_live() {
            return false;
        }
        let same = {
            let Ok(st) = ctx.state.try_borrow() else { return false };
            st.table.made() == h.made
        };
        if !same || ctx.step() != h.step {
            return false;
        }
        ctx.push_get(pid, h.slot, offset, h.remote_addr + offset, len, dst, dst, false, 1);
        true
    }
}

/// Queues a put of `bytes`, copied now, as `Ctx::put` does.
#[inline]
fn buffered_put(ctx: &Ctx, pid: usize, slot: u32, offset: usize, bytes: &[u8]) {
    // SAFETY: the only outbox reference of this call, dropped before it returns (`Ctx::outbox`).
    unsafe { ctx.outbox() }.dest_for_puts(pid).push_buffered(slot, offset, bytes);
    let bulk = if bytes.len() >= crate::outbox::BULK_BYTES { flags::BULK } else { 0 };
    ctx.state.borrow_mut().flags |= flags::WORK | flags::PUT | bulk;
}

/// The misuse of a transfer with a pid out of range.
#[cold]
#[inline(never)]
#[track_caller]
fn pid_out_of_range(ctx: &Ctx, op: &str, pid: i64) -> ! {
    misuse(ctx, format!("{op}: pid {pid} is out of range (nprocs = {})", ctx.nprocs()))
}

/// The misuse of a transfer with a negative offset or length.
#[cold]
#[inline(never)]
#[track_caller]
fn negative(ctx: &Ctx, op: &str, offset: i64, len: i64) -> ! {
    non_negative(ctx, op, "offset", offset);
    non_negative(ctx, op, "length", len);
    unreachable!("one of offset {offset} and length {len} is negative")
}

/// The misuse of a transfer past the extent that process `pid` registered.
#[cold]
#[inline(never)]
#[track_caller]
fn past_extent(
    ctx: &Ctx,
    op: &str,
    (pid, serial, addr): (usize, u64, usize),
    offset: usize,
    len: usize,
    extent: usize,
) -> ! {
    misuse(
        ctx,
        format!(
            "{op} with process {pid}: registration #{serial} (address {addr:#x}): offset {offset} + length {len} bytes is past the extent of {extent} bytes that process {pid} registered"
        ),
    )
}
