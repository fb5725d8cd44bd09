//! How a collective travels and is checked: the group it spans, the header every member sends
//! every member, and the checks that all members made the same call.
//!
//! Every collective, on every process or on a [`Team`], is one or two supersteps in which each
//! member sends each other member one message on the runtime's channel (`outbox/channel.rs`): a
//! [`Header`] (which collective, root, length, element type, and the team's members), then its
//! payload for that member. After the sync each member reads one message from every other
//! member, sets its own call beside them, and checks that they agree; the payloads are what the
//! collective moves, and the only bytes the statistics count ([`payload_len`]). A member sends
//! itself nothing: its own call is at hand, so a team of one sends no message at all, and its
//! collective costs what an empty sync costs.

use std::borrow::Cow;
use std::cell::Cell;
use std::mem::size_of;

use super::{CollectiveData, Team};
use crate::{Ctx, Value};

/// Which collective (and which of its supersteps) a message belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Broadcast,
    BroadcastLargePieces,
    BroadcastLargeAll,
    Reduce,
    Allreduce,
    Scan,
    Gather,
    Allgather,
    Scatter,
    Alltoall,
    Alltoallv,
}

const KINDS: [Kind; 11] = [
    Kind::Broadcast,
    Kind::BroadcastLargePieces,
    Kind::BroadcastLargeAll,
    Kind::Reduce,
    Kind::Allreduce,
    Kind::Scan,
    Kind::Gather,
    Kind::Allgather,
    Kind::Scatter,
    Kind::Alltoall,
    Kind::Alltoallv,
];

/// Marks a header as ours (the low bits are the kind).
const MAGIC: u64 = 0xB5C0_11EC_7100_0000;

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Broadcast => "broadcast",
            Kind::BroadcastLargePieces => "broadcast_large (superstep 1 of 2)",
            Kind::BroadcastLargeAll => "broadcast_large (superstep 2 of 2)",
            Kind::Reduce => "reduce",
            Kind::Allreduce => "allreduce",
            Kind::Scan => "scan",
            Kind::Gather => "gather",
            Kind::Allgather => "allgather",
            Kind::Scatter => "scatter",
            Kind::Alltoall => "alltoall",
            Kind::Alltoallv => "alltoallv",
        }
    }

    /// The name of the public method, for messages at the call.
    pub(super) fn op(self) -> &'static str {
        match self {
            Kind::BroadcastLargePieces | Kind::BroadcastLargeAll => "broadcast_large",
            k => k.name(),
        }
    }

    fn has_root(self) -> bool {
        matches!(self, Kind::Broadcast | Kind::BroadcastLargePieces | Kind::Reduce | Kind::Gather | Kind::Scatter)
    }

    fn code(self) -> u64 {
        MAGIC + KINDS.iter().position(|&k| k == self).expect("every kind is listed") as u64
    }

    fn from_code(code: u64) -> Option<Kind> {
        KINDS.iter().copied().find(|k| k.code() == code)
    }
}

/// The processes a collective spans, numbered by rank: every process (rank = pid), or the
/// members of a [`Team`] (rank = place in the team).
#[derive(Clone, Copy, Debug)]
pub(super) struct Group<'a> {
    team: Option<&'a Team>,
    /// The number of members.
    pub(super) size: usize,
    /// This process's rank.
    pub(super) me: usize,
}

impl<'a> Group<'a> {
    /// Every process of the run.
    pub(super) fn all(ctx: &Ctx) -> Group<'static> {
        Group { team: None, size: ctx.nprocs, me: ctx.pid }
    }

    /// The members of `team`, of which this process is one.
    pub(super) fn team(team: &'a Team) -> Group<'a> {
        Group { team: Some(team), size: team.size(), me: team.rank() }
    }

    /// The pid of the member of rank `rank`.
    fn pid(&self, rank: usize) -> usize {
        self.team.map_or(rank, |t| t.pid_of(rank))
    }

    /// The rank of process `pid`, if it is a member.
    fn rank_of(&self, pid: usize) -> Option<usize> {
        match self.team {
            None => (pid < self.size).then_some(pid),
            Some(t) => t.rank_of(pid),
        }
    }

    /// The team's members as the header carries them (none for every process).
    fn wire(&self) -> &'a [u8] {
        self.team.map_or(&[], Team::wire)
    }

    /// How messages name the group's size: `nprocs = 4`, or `team size = 2, members [1, 3]`.
    pub(super) fn size_phrase(&self) -> String {
        match self.team {
            None => format!("nprocs = {}", self.size),
            Some(t) => format!("team size = {}, members {:?}", self.size, t.members()),
        }
    }

    /// Where a mismatch happened: ``, or ` in the team [1, 3]`.
    fn where_phrase(&self) -> String {
        self.team.map_or_else(String::new, |t| format!(" in the team {:?}", t.members()))
    }

    /// What the members are called in messages.
    pub(super) fn who(&self) -> &'static str {
        if self.team.is_some() { "member of the team" } else { "process" }
    }
}

/// The fixed part of the message every member sends every member in a collective; the element
/// type's name, the team's members (`u32` each) and then the payload follow it.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Header {
    kind: u64,
    root: u64,
    /// The sender's length argument (its data length, or the length of the part for this
    /// receiver), which may differ from `count` (when the payload is not needed here).
    len: u64,
    /// Elements of payload in this message.
    count: u64,
    elem_size: u64,
    name_len: u64,
    /// Members of the sender's team; 0: the collective spans every process.
    team_len: u64,
}

/// Whether a message of the runtime's channel is a collective's (the channel also carries
/// others, such as the promises of `Ctx::same` in debug builds).
fn is_collective(msg: &[u8]) -> bool {
    msg.get(..size_of::<u64>()).is_some_and(|kind| Kind::from_code(bytemuck::pod_read_unaligned(kind)).is_some())
}

/// The collectives' messages that arrived at the last sync, as (source pid, bytes).
fn collective_messages(ctx: &Ctx) -> impl Iterator<Item = (usize, &[u8])> + '_ {
    ctx.sys_messages().filter(|&(_, msg)| is_collective(msg))
}

/// The bytes of payload in a message of the runtime's channel: what a collective moves, as the
/// statistics count it (the header and the rest are not counted); 0 for a message that is not
/// a collective's.
pub(crate) fn payload_len(msg: &[u8]) -> usize {
    Part::parse(msg).map_or(0, |part| part.payload.len())
}

/// One member's collective call, as the others see it.
pub(crate) struct Part<'a> {
    kind: Kind,
    root: usize,
    pub(super) len: usize,
    pub(super) count: usize,
    elem_size: usize,
    /// The element type's name, as bytes: compared with this process's, and read as text only
    /// to describe a mismatch.
    type_name: &'a [u8],
    /// The sender's team (`u32` pids), empty for every process.
    team: &'a [u8],
    pub(super) payload: &'a [u8],
}

impl<'a> Part<'a> {
    fn parse(bytes: &'a [u8]) -> Option<Part<'a>> {
        let head: Header = bytemuck::pod_read_unaligned(bytes.get(..size_of::<Header>())?);
        let rest = &bytes[size_of::<Header>()..];
        let name_len = usize::try_from(head.name_len).ok()?;
        let type_name = rest.get(..name_len)?;
        let rest = &rest[name_len..];
        let team_bytes = usize::try_from(head.team_len).ok()?.checked_mul(4)?;
        let team = rest.get(..team_bytes)?;
        let payload = &rest[team_bytes..];
        let (count, elem_size) = (usize::try_from(head.count).ok()?, usize::try_from(head.elem_size).ok()?);
        if count.checked_mul(elem_size)? != payload.len() {
            return None;
        }
        Some(Part {
            kind: Kind::from_code(head.kind)?,
            root: usize::try_from(head.root).ok()?,
            len: usize::try_from(head.len).ok()?,
            count,
            elem_size,
            type_name,
            team,
            payload,
        })
    }

    /// How a mismatch message describes this call.
    fn describe(&self) -> String {
        let root = if self.kind.has_root() { format!(" with root {}", self.root) } else { String::new() };
        let team = if self.team.is_empty() {
            String::new()
        } else {
            let pids: Vec<u32> =
                self.team.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
            format!(" in the team {pids:?}")
        };
        format!("`{}`{root} on `{}`{team}", self.kind.name(), String::from_utf8_lossy(self.type_name))
    }
}

/// This process's call.
pub(crate) struct Call<'g> {
    kind: Kind,
    /// The method called, for messages (`gather_into` is a `Kind::Gather` too).
    pub(super) op: &'static str,
    root: usize,
    elem_size: usize,
    type_name: &'static str,
    /// The superstep the collective ends.
    step: usize,
    /// The processes it spans.
    pub(super) group: Group<'g>,
    /// This process's length argument, as [`coll_send`](Ctx::coll_send) would have sent it to
    /// itself (it sends itself nothing).
    len: Cell<usize>,
}

impl<'g> Call<'g> {
    /// This process's call as the others see it (with no payload: a member sends itself none).
    fn own_part(&self) -> Part<'g> {
        Part {
            kind: self.kind,
            root: self.root,
            len: self.len.get(),
            count: 0,
            elem_size: self.elem_size,
            type_name: self.type_name.as_bytes(),
            team: self.group.wire(),
            payload: &[],
        }
    }

    fn matches(&self, part: &Part<'_>) -> bool {
        part.kind == self.kind
            && part.root == self.root
            && part.elem_size == self.elem_size
            && part.type_name == self.type_name.as_bytes()
            && part.team == self.group.wire()
    }
}

/// The bytes of `xs` (none for a zero-sized `T`).
fn bytes_of<T: Value>(xs: &[T]) -> &[u8] {
    if size_of::<T>() == 0 { &[] } else { bytemuck::cast_slice(xs) }
}

/// Appends the `count` elements in `bytes` (at any alignment) to `out`.
pub(super) fn extend_from_bytes<T: Value>(out: &mut Vec<T>, bytes: &[u8], count: usize) {
    let old = out.len();
    out.resize(old + count, T::zeroed());
    if size_of::<T>() > 0 {
        bytemuck::cast_slice_mut::<T, u8>(&mut out[old..]).copy_from_slice(bytes);
    }
}

/// The `count` elements in `bytes` (at any alignment).
pub(super) fn vec_from_bytes<T: Value>(bytes: &[u8], count: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(count);
    extend_from_bytes(&mut out, bytes, count);
    out
}

/// `acc[i] = op(acc[i], x[i])`, with `x` the elements in `bytes` (at any alignment).
fn combine_bytes<T: Value>(acc: &mut [T], bytes: &[u8], op: &impl Fn(T, T) -> T) {
    let size = size_of::<T>();
    if size == 0 {
        acc.iter_mut().for_each(|a| *a = op(*a, T::zeroed()));
        return;
    }
    for (a, b) in acc.iter_mut().zip(bytes.chunks_exact(size)) {
        *a = op(*a, bytemuck::pod_read_unaligned(b));
    }
}

impl Ctx {
    /// This process's call of collective `kind` through method `op` on `group`; fails it if the
    /// root is not a rank of the group.
    #[track_caller]
    pub(super) fn coll_call<'g, T: Value>(
        &self,
        group: Group<'g>,
        kind: Kind,
        op: &'static str,
        root: usize,
    ) -> Call<'g> {
        self.check_live(op);
        if kind.has_root() && root >= group.size {
            self.fail_misuse(format!("{op}: root {root} is out of range ({})", group.size_phrase()));
        }
        Call {
            kind,
            op,
            root,
            elem_size: size_of::<T>(),
            type_name: std::any::type_name::<T>(),
            step: self.step,
            group,
            len: Cell::new(0),
        }
    }

    /// This process's data for `call`, read now (before the sync) if `needed`, else empty.
    #[track_caller]
    pub(super) fn coll_read<'a, T: Value>(
        &self,
        call: &Call<'_>,
        data: impl CollectiveData<T> + 'a,
        needed: bool,
    ) -> Cow<'a, [T]> {
        if needed { data.read(self, call.op) } else { Cow::Borrowed(&[]) }
    }

    /// Fails the call unless `n` is one part per member (`alltoallv`).
    #[track_caller]
    pub(super) fn coll_check_one_part_each(&self, call: &Call<'_>, n: usize) {
        if n != call.group.size {
            self.fail_misuse(format!(
                "{}: pass one part per {}, but there are {n} parts ({})",
                call.op,
                call.group.who(),
                call.group.size_phrase()
            ));
        }
    }

    /// Sends the member of rank `to` this process's header (with length argument `len`) and
    /// `payload`; for itself (`to` is its own rank) only notes `len`, and `payload` must be
    /// empty.
    #[track_caller]
    pub(super) fn coll_send<T: Value>(&self, call: &Call<'_>, to: usize, len: usize, payload: &[T]) {
        if to == call.group.me {
            debug_assert!(payload.is_empty(), "a member sends itself no payload");
            call.len.set(len);
            return;
        }
        let team = call.group.wire();
        let head = Header {
            kind: call.kind.code(),
            root: call.root as u64,
            len: len as u64,
            count: payload.len() as u64,
            elem_size: call.elem_size as u64,
            name_len: call.type_name.len() as u64,
            team_len: (team.len() / 4) as u64,
        };
        let parts = [bytemuck::bytes_of(&head), call.type_name.as_bytes(), team, bytes_of(payload)];
        self.sys_send(call.op, call.group.pid(to), &parts);
    }

    /// The one superstep of most collectives: tells every member this process's length, sends
    /// `data` to the members whose rank `to` picks (never to itself: its own part stays in
    /// `data`), and syncs.
    #[track_caller]
    pub(super) fn coll_exchange<T: Value>(&mut self, call: &Call<'_>, data: &[T], to: impl Fn(usize) -> bool) {
        let me = call.group.me;
        for q in 0..call.group.size {
            self.coll_send(call, q, data.len(), if q != me && to(q) { data } else { &[] });
        }
        self.sync_for(crate::ctx::Wait::Collective);
    }

    /// The superstep of `alltoallv`: sends `parts[q]` to the member of rank `q` (not its own
    /// part) and syncs.
    #[track_caller]
    pub(super) fn coll_exchange_parts<T: Value, P: AsRef<[T]>>(&mut self, call: &Call<'_>, parts: &[P]) {
        let me = call.group.me;
        self.coll_check_one_part_each(call, parts.len());
        for (q, part) in parts.iter().enumerate() {
            let part = part.as_ref();
            self.coll_send(call, q, part.len(), if q != me { part } else { &[] });
        }
        self.sync_for(crate::ctx::Wait::Collective);
    }

    /// Every member's call, indexed by rank, as received at the sync that ends the collective.
    ///
    /// Fails the run unless every member made the same call (and no other process took this one
    /// for a member of its team). On every process alike if every process called a collective on
    /// every process (each received the same headers); otherwise as a panic of the processes
    /// that see it, which stops the others (a process that called plain `sync` checks nothing,
    /// and on MPI a failure only some processes see must not wait for the others).
    pub(super) fn coll_parts<'a>(&'a self, call: &Call<'a>) -> Vec<Part<'a>> {
        let group = call.group;
        let mut parts: Vec<Option<Part<'a>>> = (0..group.size).map(|_| None).collect();
        parts[group.me] = Some(call.own_part());
        let mut strangers = Vec::new();
        for (src, bytes) in collective_messages(self) {
            match group.rank_of(src) {
                Some(rank) => parts[rank] = Part::parse(bytes),
                None => strangers.push((src, Part::parse(bytes))),
            }
        }
        let agree = |(rank, part): (usize, &Option<Part<'_>>)| {
            part.as_ref().is_some_and(|part| rank == group.me || call.matches(part))
        };
        if strangers.is_empty() && parts.iter().enumerate().all(agree) {
            return parts.into_iter().map(|part| part.expect("every member's part is here")).collect();
        }
        let called = |part: &Option<Part<'_>>| match part {
            Some(part) => format!("called {}", part.describe()),
            None => "called no collective".to_string(),
        };
        let mut calls: Vec<String> =
            parts.iter().enumerate().map(|(q, part)| format!("process {} {}", group.pid(q), called(part))).collect();
        calls.extend(
            strangers
                .iter()
                .map(|(src, part)| format!("process {src}, not a member, {} with this process", called(part))),
        );
        let msg = format!(
            "collective mismatch at the sync ending superstep {}{}: every {} must call the same collective, with the same root, element type and team, but {}",
            call.step,
            group.where_phrase(),
            group.who(),
            calls.join(", ")
        );
        let everywhere = group.team.is_none()
            && strangers.is_empty()
            && parts.iter().all(|part| part.as_ref().is_some_and(|part| part.team.is_empty()));
        if everywhere {
            // Every process called a collective on every process and received every header:
            // all reach this verdict alike.
            self.fail_collective(msg)
        } else {
            self.fail_misuse(msg)
        }
    }

    /// Fails the run unless every member passed the same length (on every process alike for a
    /// collective on every process, else as a panic of the team's members, who alone see it).
    pub(super) fn coll_same_len(&self, call: &Call<'_>, parts: &[Part<'_>], what: &str) {
        if parts.iter().all(|part| part.len == parts[0].len) {
            return;
        }
        let lens: Vec<usize> = parts.iter().map(|part| part.len).collect();
        let group = call.group;
        let msg = format!(
            "`{}` at the sync ending superstep {}{}: every {} must pass {what} of the same length, but the lengths differ (per {}: {lens:?})",
            // The kind's name, not `call.op`: the message must be the same on every process.
            call.kind.op(),
            call.step,
            group.where_phrase(),
            group.who(),
            if group.team.is_some() { "member" } else { "process" },
        );
        if group.team.is_none() { self.fail_collective(msg) } else { self.fail_misuse(msg) }
    }

    /// Folds the data of ranks `0..=last` (this process's from `mine`, the others' from
    /// `parts`) with `op`, in ascending rank order, elementwise.
    pub(super) fn coll_fold<T: Value>(
        &self,
        call: &Call<'_>,
        parts: &[Part<'_>],
        last: usize,
        mine: &[T],
        op: &impl Fn(T, T) -> T,
    ) -> Vec<T> {
        let me = call.group.me;
        let mut acc = if me == 0 { mine.to_vec() } else { vec_from_bytes(parts[0].payload, parts[0].count) };
        for (q, part) in parts.iter().enumerate().take(last + 1).skip(1) {
            if q == me {
                acc.iter_mut().zip(mine).for_each(|(a, &b)| *a = op(*a, b));
            } else {
                combine_bytes(&mut acc, part.payload, op);
            }
        }
        acc
    }

    /// Each member's data, indexed by rank: `mine` for this one, the payloads for the others.
    pub(super) fn coll_collect<T: Value>(&self, call: &Call<'_>, parts: &[Part<'_>], mine: &[T]) -> Vec<Vec<T>> {
        parts
            .iter()
            .enumerate()
            .map(|(q, part)| if q == call.group.me { mine.to_vec() } else { vec_from_bytes(part.payload, part.count) })
            .collect()
    }
}
