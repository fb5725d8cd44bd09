//! BSMP with C's arguments (`bsp_set_tagsize`, `bsp_send`, `bsp_qsize`, `bsp_get_tag`,
//! `bsp_move`, `bsp_hpmove`): the queue and the tag sizes are the runtime's (`bsmp.rs`); what
//! is added here is C's view of them. A tag is given by address, so its length is the tag size
//! in force (when sending) or of the queue (when receiving), never the caller's.

use super::{misuse, non_negative};
use crate::Ctx;

/// `bsp_set_tagsize`: asks for tags of `nbytes` bytes from the next sync on; returns the tag
/// size in force now (D8).
#[track_caller]
pub fn set_tagsize(ctx: &Ctx, nbytes: i64) -> usize {
    let n = non_negative(ctx, "bsp_set_tagsize", "tag size", nbytes);
    ctx.set_tagsize(n)
}

/// `bsp_send`: a message of the tag at `tag` (the tag size in force) and `len` bytes at
/// `payload` to `pid`, copied now.
///
/// # Safety
/// `tag` must point to as many readable bytes as the tag size in force, and `payload` to `len`
/// (either may be null where its length is 0).
#[track_caller]
pub unsafe fn send(ctx: &Ctx, pid: i64, tag: *const u8, payload: *const u8, len: i64) {
    let op = "bsp_send";
    ctx.check_live(op);
    let pid = match usize::try_from(pid) {
        Ok(p) if p < ctx.nprocs() => p,
        _ => misuse(ctx, format!("{op}: pid {pid} is out of range (nprocs = {})", ctx.nprocs())),
    };
    let len = non_negative(ctx, op, "payload length", len);
    let tag_len = ctx.state.borrow().tag.in_force;
    if tag.is_null() && tag_len > 0 {
        misuse(ctx, format!("{op} to process {pid}: the tag is NULL but the tag size in force is {tag_len}"));
    }
    if payload.is_null() && len > 0 {
        misuse(ctx, format!("{op} to process {pid}: the payload is NULL but its length is {len}"));
    }
    // SAFETY: the caller's contract; empty slices are made without reading the pointers.
    let (tag, payload) = unsafe { (bytes(tag, tag_len), bytes(payload, len)) };
    ctx.send_bytes(pid, tag, payload);
}

/// `bsp_qsize`: the number of messages left in the queue and the sum of their payload lengths.
pub fn qsize(ctx: &Ctx) -> (usize, usize) {
    ctx.qsize()
}

/// `bsp_get_tag`: the payload length of the first message, and its tag copied to `tag`; `None`
/// (and `tag` untouched) if the queue is empty.
///
/// # Safety
/// `tag` must point to as many writable bytes as the tag size of the queue (the size that was
/// in force when the messages were sent).
#[track_caller]
pub unsafe fn get_tag(ctx: &Ctx, tag: *mut u8) -> Option<usize> {
    let op = "bsp_get_tag";
    ctx.check_live(op);
    if ctx.qsize().0 == 0 {
        return None;
    }
    let tag_len = ctx.state.borrow().tag.in_queue;
    if tag.is_null() && tag_len > 0 {
        misuse(ctx, format!("{op}: the tag buffer is NULL but the messages in the queue have {tag_len}-byte tags"));
    }
    // SAFETY: the caller's contract; an empty slice is made without reading the pointer.
    let tag = unsafe { bytes_mut(tag, tag_len) };
    ctx.get_tag_bytes(tag)
}

/// `bsp_move`: copies the payload of the first message into `payload` and removes it. At most
/// `len` bytes are copied: a longer payload is cut, as BSPlib says. An empty queue is an error.
///
/// # Safety
/// `payload` must point to `len` writable bytes (or be null with `len` 0).
#[track_caller]
pub unsafe fn move_message(ctx: &Ctx, payload: *mut u8, len: i64) {
    let op = "bsp_move";
    ctx.check_live(op);
    let len = non_negative(ctx, op, "reception size", len);
    if payload.is_null() && len > 0 {
        misuse(ctx, format!("{op}: the payload buffer is NULL but the reception size is {len}"));
    }
    // SAFETY: the caller's contract; an empty slice is made without reading the pointer.
    let buf = unsafe { bytes_mut(payload, len) };
    if ctx.move_bytes(buf).is_none() {
        misuse(ctx, format!("{op}: the message queue is empty (bsp_qsize says how many messages are left)"));
    }
}

/// `bsp_hpmove`: the addresses of the first message's tag and payload in the receive buffer
/// (valid until the next sync) and the payload length; the message is removed. `None` if the
/// queue is empty.
pub fn hpmove(ctx: &Ctx) -> Option<(*const u8, *const u8, usize)> {
    ctx.check_live("bsp_hpmove");
    ctx.hpmove_bytes().map(|(tag, payload)| (tag.as_ptr(), payload.as_ptr(), payload.len()))
}

/// `len` bytes at `p`, or an empty slice if `len` is 0 (whatever `p` is).
///
/// # Safety
/// If `len > 0`, `p` must point to `len` readable bytes that live for `'a`.
unsafe fn bytes<'a>(p: *const u8, len: usize) -> &'a [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(p, len) }
}

/// `len` bytes at `p`, to write, or an empty slice if `len` is 0.
///
/// # Safety
/// If `len > 0`, `p` must point to `len` writable bytes that live for `'a`, used by nothing else.
unsafe fn bytes_mut<'a>(p: *mut u8, len: usize) -> &'a mut [u8] {
    if len == 0 {
        return &mut [];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts_mut(p, len) }
}
