//! The wire format: an outbox as one block of words per destination.
//!
//! A block starts with a [`Header`] (a `#[repr(C)]` plain-old-data struct, written and read as
//! whole words, so its size is a property of the type), followed by the parts it counts, in this
//! order: registrations pushed (serial, extent, element size, type name), serials popped, puts,
//! messages, extension records, messages of the runtime's channel, get requests and extension
//! request parts. Byte strings are padded to whole words.
//!
//! A put is a word of slot, length and flags, the offset, a combining put's operator, and the
//! bytes unless the put is large. Two or more plain puts in a row into one registration with
//! one length (a loop of small puts) travel as a run instead: a word naming the run's kind and
//! the length, a word of slot and count, then either every put's offset and bytes, or, when the
//! offsets step by a constant stride (a strided loop, bspbench's pattern), the first offset and
//! the stride once and then the bytes alone: a one-word put then costs one word on the wire,
//! not three.
//!
//! Any engine that moves outboxes between address spaces can use it: [`write_block`] on the
//! sender, [`read_block`] on the receiver into a [`Received`] view.

use std::borrow::Cow;

use bytemuck::{Pod, Zeroable};

use super::is_large;
use crate::engine::{Peers, ReadResults, Status};
use crate::outbox::{
    Arrival, DestQueue, ExtRec, GetRec, Meta, MsgRec, Outbox, Pending, PushInfo, PutRec, PutSrc, ReqPart,
};
use crate::reg::Table;

/// The fixed start of a block: the sender's collective bookkeeping and the number of each
/// kind of record that follows.
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
#[repr(C)]
pub(crate) struct Header {
    /// The sender's arrival, superstep and pending counts ([`status_words`]).
    pub status: [u64; STATUS_WORDS],
    pub tag_request: u64,
    pub pushes: u64,
    pub pops: u64,
    pub puts: u64,
    pub msgs: u64,
    pub ext: u64,
    pub gets: u64,
    pub req_parts: u64,
    pub sys_msgs: u64,
    /// Put calls behind `puts` (consecutive ones may share a record): statistics.
    pub put_calls: u64,
    /// Get calls behind `gets` (consecutive ones may share a record): statistics.
    pub get_calls: u64,
}

/// The words of a [`Header`]: the whole block of a rank with nothing queued (neither `WORK`
/// nor `GET`), which its arrival announces before serialising it.
pub(crate) const HEADER_WORDS: usize = std::mem::size_of::<Header>() / 8;

/// Set in a serialised put's first word for a combining put, whose operator word follows.
const COMBINING: u64 = 1 << 63;
/// Set in a serialised put's first word for a large put, whose bytes move point to point.
const LARGE_PUT: u64 = 1 << 62;

/// In a put's first word, the slot of a run of puts with their offsets (see the module docs).
const RUN: u32 = u32::MAX;
/// In a put's first word, the slot of a run of puts whose offsets step by a stride.
const STRIDED_RUN: u32 = u32::MAX - 1;
/// The most puts a run holds (its count shares a word with the slot).
const MAX_RUN: usize = u32::MAX as usize;

/// A serialised put's first word: slot (low 32 bits), length (30 bits), flags.
fn put_word(slot: u32, len: usize) -> u64 {
    debug_assert!(len <= PutRec::MAX_LEN);
    u64::from(slot) | (len as u64) << 32
}

/// The end of the run of puts that starts at `puts[i]` (the plain puts after it into the same
/// registration with the same length, at most [`MAX_RUN`] in all), and the stride of their
/// offsets if they step by one (wrapping: a descending run too). One pass.
fn run_at(puts: &[PutRec], i: usize) -> (usize, Option<u64>) {
    let first = &puts[i];
    let (slot, len) = (first.slot, first.len());
    let step = puts.get(i + 1).map_or(0, |p| (p.byte_offset as u64).wrapping_sub(first.byte_offset as u64));
    let (mut j, mut strided, mut last) = (i + 1, true, first.byte_offset as u64);
    while j < puts.len() && j - i < MAX_RUN {
        let p = &puts[j];
        if p.combines() || p.slot != slot || p.len() != len {
            break;
        }
        strided &= (p.byte_offset as u64).wrapping_sub(last) == step;
        last = p.byte_offset as u64;
        j += 1;
    }
    (j, strided.then_some(step))
}

/// Appends `bytes` as whole words (zero padded): one pass over them (a `resize` first would
/// write every word twice).
#[inline(always)]
pub(crate) fn put_bytes(buf: &mut Vec<u64>, bytes: &[u8]) {
    if let Ok(word) = <[u8; 8]>::try_from(bytes) {
        // One word, the most common put: no loop.
        buf.push(u64::from_ne_bytes(word));
        return;
    }
    buf.reserve(bytes.len().div_ceil(8));
    let words = bytes.chunks_exact(8);
    let tail = words.remainder();
    buf.extend(words.map(|w| u64::from_ne_bytes(w.try_into().expect("chunks of 8 bytes"))));
    if !tail.is_empty() {
        let mut last = [0u8; 8];
        last[..tail.len()].copy_from_slice(tail);
        buf.push(u64::from_ne_bytes(last));
    }
}

/// Reads words and padded byte strings back.
pub(crate) struct Reader<'a> {
    pub words: &'a [u64],
    pub at: usize,
}

impl<'a> Reader<'a> {
    fn word(&mut self) -> u64 {
        self.at += 1;
        self.words[self.at - 1]
    }

    pub(crate) fn usize(&mut self) -> usize {
        self.word() as usize
    }

    pub(crate) fn bytes(&mut self, len: usize) -> &'a [u8] {
        let words = len.div_ceil(8);
        let b = &bytemuck::cast_slice::<u64, u8>(&self.words[self.at..self.at + words])[..len];
        self.at += words;
        b
    }

    fn header(&mut self) -> Header {
        let h = bytemuck::cast_slice::<u64, Header>(&self.words[self.at..self.at + HEADER_WORDS])[0];
        self.at += HEADER_WORDS;
        h
    }
}

/// A large put coming to this rank: its record in `Received::queues[src].puts[index]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LargeIn {
    pub src: usize,
    pub index: usize,
    pub slot: u32,
    pub byte_offset: usize,
    pub len: usize,
    pub combines: bool,
    /// Lands straight in registered memory (no other put of the superstep touches its bytes).
    pub in_place: bool,
    /// Offset in the engine's bounce buffer otherwise.
    pub at: usize,
}

/// One get request received from another rank.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GetReq {
    pub slot: u32,
    pub byte_offset: usize,
    pub len: usize,
}

/// One request to an extension object, received from another rank.
#[derive(Clone, Copy, Debug)]
pub(crate) struct XReq {
    pub slot: u32,
    pub at: usize,
    pub len: usize,
}

/// What this rank received in a sync: every sender's bookkeeping and what it queued for us,
/// with the requests it made of us. Its buffers are reused from sync to sync.
#[derive(Default)]
pub(crate) struct Received {
    pub metas: Vec<Meta>,
    pub queues: Vec<DestQueue>,
    pub reqs: Vec<Vec<GetReq>>,
    pub xreqs: Vec<Vec<XReq>>,
    pub xreq_data: Vec<Vec<u8>>,
    /// The processes whose blocks were read since the last `forget_senders`.
    pub senders: Vec<u32>,
}

impl Received {
    /// Room for the blocks of `nprocs` senders.
    pub(crate) fn new(nprocs: usize) -> Self {
        Received {
            metas: (0..nprocs).map(|_| Meta::default()).collect(),
            queues: (0..nprocs).map(|_| DestQueue::default()).collect(),
            reqs: (0..nprocs).map(|_| Vec::new()).collect(),
            xreqs: (0..nprocs).map(|_| Vec::new()).collect(),
            xreq_data: (0..nprocs).map(|_| Vec::new()).collect(),
            senders: (0..nprocs as u32).collect(),
        }
    }

    /// Empties what the senders of the last exchange queued for this rank, and forgets them
    /// (before an exchange in which some of them may not send).
    pub(crate) fn forget_senders(&mut self) {
        for src in self.senders.drain(..).map(|s| s as usize) {
            self.queues[src].clear();
            self.reqs[src].clear();
            self.xreqs[src].clear();
            self.xreq_data[src].clear();
        }
    }
}

/// Appends to `send` the block of `out` for destination `q`. With `large_out`, large puts travel
/// without their bytes; each is noted there as (destination, address, length), to be sent point
/// to point from where its bytes are. Without, every put's bytes are in the block.
pub(crate) fn write_block(
    out: &Outbox,
    q: usize,
    send: &mut Vec<u64>,
    mut large_out: Option<&mut Vec<(usize, usize, usize)>>,
) {
    let none = DestQueue::default();
    let meta = &out.meta;
    let dest = out.queue(q).unwrap_or(&none);
    let reqs = out.gets.iter().filter(|g| g.pid == q);
    let parts = out.req_parts.iter().filter(|r| r.pid == q);
    let header = Header {
        status: status_words(&Status::of(meta)),
        tag_request: meta.tag_request as u64,
        pushes: meta.pushes.len() as u64,
        pops: meta.pops.len() as u64,
        puts: dest.puts.len() as u64,
        msgs: dest.msgs.len() as u64,
        ext: dest.ext.len() as u64,
        gets: reqs.clone().count() as u64,
        req_parts: parts.clone().count() as u64,
        sys_msgs: dest.sys_msgs.len() as u64,
        put_calls: dest.put_calls as u64,
        get_calls: dest.gets as u64,
    };
    send.extend_from_slice(bytemuck::cast_slice(std::slice::from_ref(&header)));
    for push in &meta.pushes {
        send.extend_from_slice(&[push.serial, push.bytes as u64, push.elem_size as u64, push.type_name.len() as u64]);
        put_bytes(send, push.type_name.as_bytes());
    }
    send.extend_from_slice(&meta.pops);
    let mut combines = dest.combines.iter();
    // At most: two words and an operator per put, its bytes, and a word of padding per put.
    send.reserve(3 * dest.puts.len() + dest.put_data.len() / 8 + dest.puts.len());
    // Where each put's bytes are.
    let addr = |put: &PutRec| match put.src() {
        PutSrc::Buffered(at) => dest.put_data[at..at + put.len()].as_ptr() as usize,
        PutSrc::Direct(addr) => addr,
    };
    let mut i = 0;
    while i < dest.puts.len() {
        let put = &dest.puts[i];
        let len = put.len();
        let large = large_out.is_some() && is_large(len);
        // A run of plain small puts (module docs).
        let (end, stride) = if put.combines() || large { (i + 1, None) } else { run_at(&dest.puts, i) };
        if end - i >= 2 {
            let run = &dest.puts[i..end];
            let head = u64::from(put.slot) | ((end - i) as u64) << 32;
            // SAFETY: (both) as for `put_bytes` below: `len` readable bytes, unchanged during
            // the sync.
            let bytes = |p: &PutRec| unsafe { std::slice::from_raw_parts(addr(p) as *const u8, len) };
            // SAFETY: as for `bytes`, with `len` = 8.
            let word = |p: &PutRec| unsafe { (addr(p) as *const u64).read_unaligned() };
            match stride {
                Some(step) => send.extend_from_slice(&[put_word(STRIDED_RUN, len), head, put.byte_offset as u64, step]),
                None => send.extend_from_slice(&[put_word(RUN, len), head]),
            }
            match (stride, len) {
                (Some(_), 8) => send.extend(run.iter().map(word)),
                (None, 8) => {
                    send.reserve(2 * run.len());
                    run.iter().for_each(|p| send.extend_from_slice(&[p.byte_offset as u64, word(p)]));
                }
                _ => run.iter().for_each(|p| {
                    if stride.is_none() {
                        send.push(p.byte_offset as u64);
                    }
                    put_bytes(send, bytes(p));
                }),
            }
            i = end;
            continue;
        }
        i += 1;
        let addr = addr(put);
        if len == 8 && !put.combines() {
            // A one-word put, the most common: its three words with one check of the capacity.
            // SAFETY: as for `put_bytes` below: 8 readable bytes, unchanged during the sync.
            let bytes = unsafe { (addr as *const u64).read_unaligned() };
            send.extend_from_slice(&[put_word(put.slot, len), put.byte_offset as u64, bytes]);
            continue;
        }
        let word =
            put_word(put.slot, len) | if put.combines() { COMBINING } else { 0 } | if large { LARGE_PUT } else { 0 };
        send.extend_from_slice(&[word, put.byte_offset as u64]);
        if put.combines() {
            send.push(*combines.next().expect("one operator per combining put"));
        }
        if let (true, Some(large_out)) = (large, large_out.as_deref_mut()) {
            // Its bytes go point to point, from where they are.
            large_out.push((q, addr, len));
        } else {
            // SAFETY: the bytes of a buffered put in the sender's outbox, or an hpput source,
            // borrowed immutably by the sender until the end of this sync (`Superstep::hpput`);
            // nothing writes either while the sync serialises them.
            put_bytes(send, unsafe { std::slice::from_raw_parts(addr as *const u8, len) });
        }
    }
    for m in &dest.msgs {
        send.extend_from_slice(&[m.align as u64, m.tag_len as u64, m.payload_len as u64]);
        put_bytes(send, &dest.msg_data[m.at..m.at + m.tag_len + m.payload_len]);
    }
    for e in &dest.ext {
        send.extend_from_slice(&[u64::from(e.slot), e.len as u64]);
        put_bytes(send, &dest.ext_data[e.at..e.at + e.len]);
    }
    for m in &dest.sys_msgs {
        send.push(m.payload_len as u64);
        put_bytes(send, &dest.sys_data[m.at..m.at + m.payload_len]);
    }
    for g in reqs {
        send.extend_from_slice(&[u64::from(g.slot), g.byte_offset as u64, g.bytes as u64]);
    }
    for part in parts {
        send.extend_from_slice(&[u64::from(part.slot), part.len as u64]);
        put_bytes(send, &out.req_data[part.at..part.at + part.len]);
    }
}

/// Reads the block that `src` sent, at `words[at..]`, into `got`, and notes its large puts in
/// `large_in` (their records are empty placeholders until their bytes arrive). With
/// `in_place`, small puts point into `words` (which must then stay unchanged until the put
/// phase) instead of being copied into the queue.
pub(crate) fn read_block(
    words: &[u64],
    at: usize,
    src: usize,
    got: &mut Received,
    large_in: &mut Vec<LargeIn>,
    in_place: bool,
) {
    let mut r = Reader { words, at };
    let h = r.header();
    let meta = &mut got.metas[src];
    let Status { arrival, step, pending } = status(&h.status);
    (meta.arrival, meta.step, meta.pending, meta.tag_request) = (arrival, step, pending, h.tag_request as usize);
    meta.pushes.clear();
    for _ in 0..h.pushes {
        let (serial, bytes, elem_size, name_len) = (r.word(), r.usize(), r.usize(), r.usize());
        let name = String::from_utf8_lossy(r.bytes(name_len)).into_owned();
        meta.pushes.push(PushInfo { serial, addr: 0, bytes, handler: 0, elem_size, type_name: Cow::Owned(name) });
    }
    meta.pops.clear();
    for _ in 0..h.pops {
        meta.pops.push(r.word());
    }
    let q = &mut got.queues[src];
    q.clear();
    let mut read = 0;
    while read < h.puts {
        let word = r.word();
        let (slot, len) = (word as u32, ((word >> 32) & ((1 << 30) - 1)) as usize);
        if slot == RUN || slot == STRIDED_RUN {
            read += read_run(&mut r, q, slot == STRIDED_RUN, len, in_place);
            continue;
        }
        read += 1;
        let byte_offset = r.usize();
        let (combines, large) = (word & COMBINING != 0, word & LARGE_PUT != 0);
        // A large put's bytes come point to point: an empty placeholder until then.
        let (at, bytes) = if large { (0, 0) } else { (q.put_data.len(), len) };
        if large {
            let index = q.puts.len();
            large_in.push(LargeIn { src, index, slot, byte_offset, len, combines, in_place: false, at: 0 });
        }
        if combines {
            let op = r.word();
            let elem = ((op >> 32) as usize).max(1);
            q.push_combining_put(slot, byte_offset, bytes, at, op, elem);
        } else if !large && in_place {
            // Applied from where it arrived.
            let from = r.bytes(len).as_ptr() as usize;
            q.push_put_record(slot, byte_offset, len, PutSrc::Direct(from));
            continue;
        } else {
            q.push_put_record(slot, byte_offset, bytes, PutSrc::Buffered(at));
        }
        if !large {
            q.put_data.extend_from_slice(r.bytes(len));
        }
    }
    for _ in 0..h.msgs {
        let (align, tag_len, payload_len) = (r.usize(), r.usize(), r.usize());
        q.msgs.push(MsgRec { align, at: q.msg_data.len(), tag_len, payload_len });
        q.msg_data.extend_from_slice(r.bytes(tag_len + payload_len));
    }
    for _ in 0..h.ext {
        let (slot, len) = (r.word() as u32, r.usize());
        q.ext.push(ExtRec { slot, at: q.ext_data.len(), len });
        q.ext_data.extend_from_slice(r.bytes(len));
    }
    for _ in 0..h.sys_msgs {
        let len = r.usize();
        q.sys_msgs.push(MsgRec { align: 1, at: q.sys_data.len(), tag_len: 0, payload_len: len });
        q.sys_data.extend_from_slice(r.bytes(len));
    }
    q.put_calls = h.put_calls as usize;
    let reqs = &mut got.reqs[src];
    reqs.clear();
    for _ in 0..h.gets {
        reqs.push(GetReq { slot: r.word() as u32, byte_offset: r.usize(), len: r.usize() });
    }
    (q.gets, q.get_bytes) = (h.get_calls as usize, reqs.iter().map(|g| g.len).sum()); // statistics: gets served
    let (xreqs, xdata) = (&mut got.xreqs[src], &mut got.xreq_data[src]);
    xreqs.clear();
    xdata.clear();
    for _ in 0..h.req_parts {
        let (slot, len) = (r.word() as u32, r.usize());
        xreqs.push(XReq { slot, at: xdata.len(), len });
        xdata.extend_from_slice(r.bytes(len));
    }
}

/// Reads a run of `len`-byte plain puts (module docs; its first word was read) into `q`, from
/// where they arrived (`in_place`) or copied into the queue; returns how many puts it held.
#[inline(never)]
fn read_run(r: &mut Reader<'_>, q: &mut DestQueue, strided: bool, len: usize, in_place: bool) -> u64 {
    let head = r.word();
    let (slot, count) = (head as u32, (head >> 32) as usize);
    let (mut offset, step) = if strided { (r.word(), r.word()) } else { (0, 0) };
    q.puts.reserve(count);
    if !in_place {
        q.put_data.reserve(count * len);
    }
    for _ in 0..count {
        if !strided {
            offset = r.word();
        }
        let bytes = r.bytes(len);
        let src = if in_place {
            PutSrc::Direct(bytes.as_ptr() as usize)
        } else {
            let at = q.put_data.len();
            q.put_data.extend_from_slice(bytes);
            PutSrc::Buffered(at)
        };
        q.push_put_record(slot, offset as usize, len, src);
        offset = offset.wrapping_add(step);
    }
    count as u64
}

/// Decides where each large put coming to this process lands: in place (`LargeIn::in_place`),
/// when it does not combine and no other put of the superstep (from any sender in `peers`, in
/// which other large puts are placeholders of length 0) writes any of its bytes, so that D2's
/// order cannot matter; otherwise at `LargeIn::at` in a bounce buffer, applied in order by the
/// put phase. Returns the bounce buffer's size.
pub(crate) fn plan_large_puts(peers: &dyn Peers, large_in: &mut [LargeIn]) -> usize {
    let mut bounced = 0;
    for i in 0..large_in.len() {
        let l = large_in[i];
        let (start, end) = (l.byte_offset, l.byte_offset + l.len);
        let touched = peers.senders().iter().map(|&s| s as usize).any(|src| {
            peers.queue(src).is_some_and(|q| {
                q.puts.iter().enumerate().any(|(j, put)| {
                    let this = src == l.src && j == l.index;
                    // Placeholders of other large puts have length 0: use their real length.
                    let len = large_in.iter().find(|o| o.src == src && o.index == j).map_or(put.len(), |o| o.len);
                    !this && put.slot == l.slot && put.byte_offset < end && start < put.byte_offset + len
                })
            })
        });
        let in_place = !l.combines && !touched;
        large_in[i].in_place = in_place;
        if !in_place {
            large_in[i].at = bounced;
            bounced += l.len;
        }
    }
    bounced
}

/// Appends to `out` this process's reply to the requests that `src` made of it (read into `got`
/// from `src`'s block): the requested DRMA bytes in request order, padded to a word, then for
/// each extension request its reply's length in a word and its bytes (padded). A get for which
/// `large(address, length)` returns `true` is left out of the reply: the caller moves its bytes
/// some other way (point to point), and the requester's [`read_replies`] knows it by the same
/// rule. `scratch` is reused between calls.
///
/// # Safety
/// In the read phase of the sync whose blocks `got` holds, before this process's `end_reads`:
/// the requested bytes lie in this process's registered memory (found in `table`, its table;
/// every request was checked against the extent at the call), which nothing writes until then.
/// `large` may keep reading a get's bytes only until that `end_reads` too.
pub(crate) unsafe fn write_reply(
    got: &Received,
    src: usize,
    table: &Table,
    scratch: &mut Vec<u8>,
    out: &mut Vec<u64>,
    mut large: impl FnMut(usize, usize) -> bool,
) {
    scratch.clear();
    for req in &got.reqs[src] {
        let entry = table.entries[req.slot as usize].as_ref().expect("a get checked at the call");
        let addr = entry.local_addr + req.byte_offset;
        if large(addr, req.len) {
            continue;
        }
        // SAFETY: inside this process's registration, which nothing writes before its
        // `end_reads` (this function's contract).
        let data = unsafe { std::slice::from_raw_parts(addr as *const u8, req.len) };
        scratch.extend_from_slice(data);
    }
    put_bytes(out, scratch);
    for x in &got.xreqs[src] {
        let entry = table.entries[x.slot as usize].as_ref().expect("a request checked at the call");
        let target = entry.ext.as_deref().expect("requests go to extension registrations");
        scratch.clear();
        target.serve(src, &got.xreq_data[src][x.at..x.at + x.len], scratch);
        out.push(scratch.len() as u64);
        put_bytes(out, scratch);
    }
}

/// The requester's side of [`write_reply`]: finds where the bytes of each get of `mine` (this
/// process's outbox) are (`got.gets[i].from`, for `sync/gets.rs` to copy) and collects the
/// replies to its extension request parts (one range of `got.reply` per part, in part order).
/// `at[owner]` is the byte position in `words` where `owner`'s reply to this process starts (it
/// is moved past what is read). A get for which `elsewhere` returns where its bytes are is not
/// in its owner's reply (its owner is in this address space, or it moves point to point), and
/// so is a part for which `served` returns `true` (it appended the part's reply itself).
pub(crate) fn read_replies(
    (words, at): (&[u64], &mut [usize]),
    mine: &Outbox,
    got: &mut ReadResults,
    elsewhere: impl Fn(&GetRec) -> Option<usize>,
    mut served: impl FnMut(&ReqPart, &mut Vec<u8>) -> bool,
) {
    let bytes: &[u8] = bytemuck::cast_slice(words);
    // DRMA bytes first, in issue order, from the front of each owner's reply.
    for (g, b) in mine.gets.iter().zip(&mut got.gets) {
        if let Some(from) = elsewhere(g) {
            b.from = from;
            continue;
        }
        let from = at[g.pid];
        b.from = bytes[from..from + g.bytes].as_ptr() as usize;
        at[g.pid] += g.bytes;
    }
    // Extension replies follow each owner's DRMA bytes from the next whole word, in part order.
    let (reply, ranges) = (&mut got.reply, &mut got.ranges);
    reply.clear();
    ranges.clear();
    for part in &mine.req_parts {
        let start = reply.len();
        if !served(part, reply) {
            let mut r = Reader { words, at: at[part.pid].div_ceil(8) };
            let len = r.usize();
            reply.extend_from_slice(r.bytes(len));
            at[part.pid] = r.at * 8;
        }
        ranges.push(start..reply.len());
    }
}

/// The words of one process's [`Status`] (error paths: every process's, gathered).
pub(crate) const STATUS_WORDS: usize = 5;

/// `status` as [`STATUS_WORDS`] words.
pub(crate) fn status_words(status: &Status) -> [u64; STATUS_WORDS] {
    let Status { arrival, step, pending } = status;
    [u64::from(*arrival == Arrival::End), *step as u64, pending.puts as u64, pending.gets as u64, pending.sends as u64]
}

/// The status in the words `w` of [`status_words`].
fn status(w: &[u64; STATUS_WORDS]) -> Status {
    let arrival = if w[0] == 1 { Arrival::End } else { Arrival::Sync };
    Status {
        arrival,
        step: w[1] as usize,
        pending: Pending { puts: w[2] as usize, gets: w[3] as usize, sends: w[4] as usize },
    }
}

/// The statuses in `words` ([`status_words`] of each process, in pid order).
pub(crate) fn statuses(words: &[u64]) -> impl Iterator<Item = Status> + '_ {
    words.as_chunks::<STATUS_WORDS>().0.iter().map(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The puts of `q` as (slot, offset, bytes, combining), in order.
    fn puts_of(q: &DestQueue) -> Vec<(u32, usize, Vec<u8>, bool)> {
        q.puts
            .iter()
            .map(|p| {
                let bytes = match p.src() {
                    PutSrc::Buffered(at) => q.put_data[at..at + p.len()].to_vec(),
                    // SAFETY: an in-place put points into the block the test keeps alive.
                    PutSrc::Direct(addr) => unsafe { std::slice::from_raw_parts(addr as *const u8, p.len()) }.to_vec(),
                };
                (p.slot, p.byte_offset, bytes, p.combines())
            })
            .collect()
    }

    /// Every kind of put survives a block, read in place and copied: runs with offsets,
    /// strided runs (ascending, descending, with a stride of 0), puts of other lengths and
    /// registrations between them, a combining put inside a run, and lone puts.
    #[test]
    fn puts_survive_a_block_in_runs_and_alone() {
        let mut out = Outbox::new(2);
        let q = out.dest(1);
        let word = |v: u64| v.to_ne_bytes();
        // A strided run of 4 (stride 16), then a run with irregular offsets.
        for k in 0..4u64 {
            q.push_buffered(3, 8 + 16 * k as usize, &word(k));
        }
        for (k, off) in [0usize, 40, 24, 200].into_iter().enumerate() {
            q.push_buffered(3, off, &word(100 + k as u64));
        }
        // Another registration; another length; a descending run; a stride of 0.
        q.push_buffered(5, 0, &word(7));
        q.push_buffered(5, 64, &[1, 2, 3]);
        for k in 0..3usize {
            q.push_buffered(5, 48 - 16 * k, &word(k as u64));
        }
        q.push_buffered(6, 8, &word(1));
        q.push_buffered(6, 8, &word(2));
        // A combining put between plain ones of the same registration and length.
        q.push_buffered(2, 0, &word(1));
        q.push_combining_bytes(2, 16, &word(5), 42 | 8 << 32, 8);
        q.push_buffered(2, 32, &word(3));
        // 4-byte puts in a strided run.
        for k in 0..3u32 {
            q.push_buffered(4, 8 * k as usize, &k.to_ne_bytes());
        }
        let want = puts_of(q);
        assert_eq!(want.len(), 21, "{want:?}");
        let mut send = Vec::new();
        write_block(&out, 1, &mut send, None);
        // Alone, each put would take three words (four if combining): 64. In runs: the run of 8
        // into slot 3 with offsets 2 + 8 × 2, two lone puts 2 × 3, the descending run 4 + 3, the
        // run of stride 0 4 + 2, slot 2's puts 3 + 4 + 3, the 4-byte run 4 + 3: 54.
        assert_eq!(send.len() - HEADER_WORDS, 54);
        for in_place in [true, false] {
            let mut got = Received::new(2);
            let mut large = Vec::new();
            read_block(&send, 0, 0, &mut got, &mut large, in_place);
            assert!(large.is_empty());
            assert_eq!(puts_of(&got.queues[0]), want, "in place: {in_place}");
            assert_eq!(got.queues[0].put_calls, out.queue(1).unwrap().put_calls);
        }
    }
}
