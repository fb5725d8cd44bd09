//! The MPI engine: BSP processes are MPI ranks (cargo feature `mpi`).
//!
//! A program built with the feature and started by `mpirun` runs each BSP process as one rank;
//! the same program started directly runs on threads. The BSPlib semantics are the ones of
//! `sync.rs`, shared with the threads engine through the [`Peers`] view; only the moving of
//! bytes differs:
//!
//! - an empty sync is one `MPI_Allreduce` (bitwise OR of every rank's flags), the analogue of the
//!   threads engine's combining barrier;
//! - otherwise each rank serialises, for every destination, its collective bookkeeping and what
//!   it queued for that destination (puts with their data — hpput sources are read here, so no
//!   staging copy is made at the call —, messages, extension records, get requests), and one
//!   `MPI_Alltoall` of counts plus one `MPI_Alltoallv` of data move it all;
//! - gets are request/reply: after the exchange every owner reads the requested bytes from its
//!   registered memory, before applying any put of the superstep (D1), and a second
//!   `MPI_Alltoallv` returns them (both sides know the sizes, so no counts are exchanged);
//! - then every rank applies what it received with the engine-neutral code of `sync.rs`.
//!
//! Requests to extension objects (GP arrays' reads) travel with the get requests and are
//! answered by the owner's object in the same reply exchange.
//!
//! Buffers are kept between syncs, so a steady superstep allocates nothing. Limit: at most
//! 2^31 − 1 words (16 GiB) from one rank to another per superstep (MPI counts are `int`).
//!
//! Failure: a panic or `abort` on one rank prints its message and calls `MPI_Abort`, which
//! stops every rank (a rank waiting in a collective cannot be woken otherwise). Collective
//! mismatches are found by every rank; rank 0 prints the error before any rank returns it
//! (`report_once`), and each returns it quieted.

use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use mpi::Count;

use crate::ctx::Stop;
use crate::engine::threads::Group;
use crate::exchange::{flags, Arrival, DestQueue, Meta, Pending, PushInfo, PutSrc};
use crate::ext::ExtRec;
use crate::sync::{Peers, Status};
use crate::{Ctx, Error, Launch};

/// Whether this OS process was started by `mpirun` (read before MPI is initialised, which
/// sets some of these variables itself).
pub(crate) fn started_by_mpirun() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"].iter().any(|v| std::env::var_os(v).is_some())
}

/// An MPI run is in progress in this OS process (a nested run then uses threads).
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// MPI was initialised (and finalised) by an earlier run: it cannot be started again.
static USED: AtomicBool = AtomicBool::new(false);

/// Whether a launch now should use MPI.
pub(crate) fn wanted() -> bool {
    // Relaxed: read and written by the thread that launches (MPI runs on process 0's thread).
    started_by_mpirun() && !ACTIVE.load(Ordering::Relaxed)
}

/// One rank's MPI state: the communicator and the buffers reused by every sync.
pub(crate) struct Mpi {
    comm: SimpleCommunicator,
    send: Vec<u64>,
    send_counts: Vec<Count>,
    send_displs: Vec<Count>,
    recv: Vec<u64>,
    recv_counts: Vec<Count>,
    recv_displs: Vec<Count>,
    peers: MpiPeers,
    /// Scratch for serving gets: one requester's reply bytes, bytes asked of each owner, and
    /// read positions in the replies.
    scratch: Vec<u8>,
    asked: Vec<usize>,
    cursor: Vec<usize>,
}

/// One get request received from another rank.
#[derive(Clone, Copy, Debug)]
struct GetReq {
    slot: u32,
    byte_offset: usize,
    len: usize,
}

/// One request to an extension object, received from another rank.
#[derive(Clone, Copy, Debug)]
struct XReq {
    slot: u32,
    at: usize,
    len: usize,
}

/// What this rank received in a sync: every rank's bookkeeping and what it queued for us.
#[derive(Default)]
struct MpiPeers {
    metas: Vec<Meta>,
    queues: Vec<DestQueue>,
    reqs: Vec<Vec<GetReq>>,
    xreqs: Vec<Vec<XReq>>,
    xreq_data: Vec<Vec<u8>>,
}

impl Peers for MpiPeers {
    fn meta(&self, q: usize) -> &Meta {
        &self.metas[q]
    }

    fn queue(&self, src: usize) -> &DestQueue {
        &self.queues[src]
    }
}

/// Appends `bytes` as whole words (zero padded).
fn put_bytes(buf: &mut Vec<u64>, bytes: &[u8]) {
    let start = buf.len();
    buf.resize(start + bytes.len().div_ceil(8), 0);
    bytemuck::cast_slice_mut::<u64, u8>(&mut buf[start..])[..bytes.len()].copy_from_slice(bytes);
}

/// Reads words and padded byte strings back.
struct Reader<'a> {
    words: &'a [u64],
    at: usize,
}

impl<'a> Reader<'a> {
    fn word(&mut self) -> u64 {
        self.at += 1;
        self.words[self.at - 1]
    }

    fn usize(&mut self) -> usize {
        self.word() as usize
    }

    fn bytes(&mut self, len: usize) -> &'a [u8] {
        let words = len.div_ceil(8);
        let b = &bytemuck::cast_slice::<u64, u8>(&self.words[self.at..self.at + words])[..len];
        self.at += words;
        b
    }
}

/// `counts` as MPI displacements (exclusive prefix sums).
fn displacements(counts: &[Count], displs: &mut Vec<Count>) {
    displs.clear();
    let mut at: Count = 0;
    for &c in counts {
        displs.push(at);
        at += c;
    }
}

fn count(words: usize, what: &str) -> Count {
    Count::try_from(words).unwrap_or_else(|_| {
        panic!(
            "the MPI engine moves at most 2^31 - 1 words from one rank to another per superstep; {what} needs {words}"
        )
    })
}

impl Mpi {
    fn new(comm: SimpleCommunicator, nprocs: usize) -> Self {
        Mpi {
            comm,
            send: Vec::new(),
            send_counts: Vec::with_capacity(nprocs),
            send_displs: Vec::with_capacity(nprocs),
            recv: Vec::new(),
            recv_counts: vec![0; nprocs],
            recv_displs: Vec::with_capacity(nprocs),
            peers: MpiPeers {
                metas: (0..nprocs).map(|_| Meta::default()).collect(),
                queues: (0..nprocs).map(|_| DestQueue::default()).collect(),
                reqs: (0..nprocs).map(|_| Vec::new()).collect(),
                xreqs: (0..nprocs).map(|_| Vec::new()).collect(),
                xreq_data: (0..nprocs).map(|_| Vec::new()).collect(),
            },
            scratch: Vec::new(),
            asked: vec![0; nprocs],
            cursor: vec![0; nprocs],
        }
    }

    fn or_reduce(&self, flags: u64) -> u64 {
        let mut all = 0u64;
        self.comm.all_reduce_into(&flags, &mut all, SystemOperation::bitwise_or());
        all
    }

    /// Every rank's arrival, superstep and pending counts (error paths only).
    fn statuses(&self, mine: Status) -> Vec<Status> {
        let words = [
            u64::from(mine.arrival == Arrival::End),
            mine.step as u64,
            mine.pending.puts as u64,
            mine.pending.gets as u64,
            mine.pending.sends as u64,
        ];
        let mut all = vec![0u64; 5 * self.comm.size() as usize];
        self.comm.all_gather_into(&words[..], &mut all[..]);
        all.chunks_exact(5)
            .map(|w| Status {
                arrival: if w[0] == 1 { Arrival::End } else { Arrival::Sync },
                step: w[1] as usize,
                pending: Pending { puts: w[2] as usize, gets: w[3] as usize, sends: w[4] as usize },
            })
            .collect()
    }

    /// Serialises this rank's bookkeeping and its queue for every destination into `send`.
    fn serialize(&mut self, ctx: &Ctx) {
        let p = ctx.nprocs;
        let out = ctx.outbox();
        let st = ctx.state.borrow();
        self.send.clear();
        self.send_counts.clear();
        for q in 0..p {
            let start = self.send.len();
            let meta = &out.meta;
            let dest = &out.to[q];
            let reqs = st.gets.iter().filter(|g| g.pid == q);
            self.send.extend_from_slice(&[
                u64::from(meta.arrival == Arrival::End),
                meta.step as u64,
                meta.tag_request as u64,
                meta.pending.puts as u64,
                meta.pending.gets as u64,
                meta.pending.sends as u64,
                meta.pushes.len() as u64,
                meta.pops.len() as u64,
                dest.puts.len() as u64,
                dest.msgs.len() as u64,
                dest.ext.len() as u64,
                reqs.clone().count() as u64,
                st.req_parts.iter().filter(|r| r.pid == q).count() as u64,
            ]);
            for push in &meta.pushes {
                self.send.extend_from_slice(&[
                    push.serial,
                    push.bytes as u64,
                    push.elem_size as u64,
                    push.type_name.len() as u64,
                ]);
                put_bytes(&mut self.send, push.type_name.as_bytes());
            }
            self.send.extend_from_slice(&meta.pops);
            for put in &dest.puts {
                let len = put.len();
                self.send.extend_from_slice(&[u64::from(put.slot), put.byte_offset as u64, len as u64]);
                let data: &[u8] = match put.src() {
                    PutSrc::Buffered(at) => &dest.put_data[at..at + len],
                    // SAFETY: an hpput source, borrowed immutably by this process until the end
                    // of this sync (`Superstep::hpput`); this rank is the only thread touching it.
                    PutSrc::Direct(addr) => unsafe { std::slice::from_raw_parts(addr as *const u8, len) },
                };
                put_bytes(&mut self.send, data);
            }
            for m in &dest.msgs {
                self.send.extend_from_slice(&[m.align as u64, m.tag_len as u64, m.payload_len as u64]);
                put_bytes(&mut self.send, &dest.msg_data[m.at..m.at + m.tag_len + m.payload_len]);
            }
            for e in &dest.ext {
                self.send.extend_from_slice(&[u64::from(e.slot), e.len as u64]);
                put_bytes(&mut self.send, &dest.ext_data[e.at..e.at + e.len]);
            }
            for g in reqs {
                self.send.extend_from_slice(&[u64::from(g.slot), g.byte_offset as u64, g.bytes as u64]);
            }
            for part in st.req_parts.iter().filter(|r| r.pid == q) {
                self.send.extend_from_slice(&[u64::from(part.slot), part.len as u64]);
                put_bytes(&mut self.send, &st.req_data[part.at..part.at + part.len]);
            }
            let words = self.send.len() - start;
            self.send_counts.push(count(words, "the data for one destination"));
        }
    }

    /// Moves every rank's serialised blocks to their destinations.
    fn exchange(&mut self) {
        self.comm.all_to_all_into(&self.send_counts[..], &mut self.recv_counts[..]);
        self.all_to_all_v();
    }

    /// One `MPI_Alltoallv` of `send` (by `send_counts`) into `recv` (by `recv_counts`).
    fn all_to_all_v(&mut self) {
        displacements(&self.send_counts, &mut self.send_displs);
        displacements(&self.recv_counts, &mut self.recv_displs);
        let total: usize = self.recv_counts.iter().map(|&c| c as usize).sum();
        self.recv.clear();
        self.recv.resize(total, 0);
        let send = Partition::new(&self.send[..], &self.send_counts[..], &self.send_displs[..]);
        let mut recv = PartitionMut::new(&mut self.recv[..], &self.recv_counts[..], &self.recv_displs[..]);
        self.comm.all_to_all_varcount_into(&send, &mut recv);
    }

    /// Turns the received blocks into `peers`, reusing its buffers.
    fn deserialize(&mut self) {
        for (src, &displ) in self.recv_displs.iter().enumerate() {
            let mut r = Reader { words: &self.recv[..], at: displ as usize };
            let meta = &mut self.peers.metas[src];
            meta.arrival = if r.word() == 1 { Arrival::End } else { Arrival::Sync };
            meta.step = r.usize();
            meta.tag_request = r.usize();
            meta.pending = Pending { puts: r.usize(), gets: r.usize(), sends: r.usize() };
            let (n_push, n_pop, n_put, n_msg, n_ext, n_req, n_xreq) =
                (r.usize(), r.usize(), r.usize(), r.usize(), r.usize(), r.usize(), r.usize());
            meta.pushes.clear();
            for _ in 0..n_push {
                let (serial, bytes, elem_size, name_len) = (r.word(), r.usize(), r.usize(), r.usize());
                let name = String::from_utf8_lossy(r.bytes(name_len)).into_owned();
                meta.pushes.push(PushInfo {
                    serial,
                    addr: 0,
                    bytes,
                    handler: 0,
                    elem_size,
                    type_name: Cow::Owned(name),
                });
            }
            meta.pops.clear();
            for _ in 0..n_pop {
                meta.pops.push(r.word());
            }
            let q = &mut self.peers.queues[src];
            q.clear();
            for _ in 0..n_put {
                let (slot, byte_offset, len) = (r.word() as u32, r.usize(), r.usize());
                q.push_put(slot, byte_offset, len, PutSrc::Buffered(q.put_data.len()));
                q.put_data.extend_from_slice(r.bytes(len));
            }
            for _ in 0..n_msg {
                let (align, tag_len, payload_len) = (r.usize(), r.usize(), r.usize());
                q.msgs.push(crate::exchange::MsgRec { align, at: q.msg_data.len(), tag_len, payload_len });
                q.msg_data.extend_from_slice(r.bytes(tag_len + payload_len));
            }
            for _ in 0..n_ext {
                let (slot, len) = (r.word() as u32, r.usize());
                q.ext.push(ExtRec { slot, at: q.ext_data.len(), len });
                q.ext_data.extend_from_slice(r.bytes(len));
            }
            let reqs = &mut self.peers.reqs[src];
            reqs.clear();
            for _ in 0..n_req {
                reqs.push(GetReq { slot: r.word() as u32, byte_offset: r.usize(), len: r.usize() });
            }
            (q.gets, q.get_bytes) = (n_req, reqs.iter().map(|g| g.len).sum()); // stats: gets served
            let (xreqs, xdata) = (&mut self.peers.xreqs[src], &mut self.peers.xreq_data[src]);
            xreqs.clear();
            xdata.clear();
            for _ in 0..n_xreq {
                let (slot, len) = (r.word() as u32, r.usize());
                xreqs.push(XReq { slot, at: xdata.len(), len });
                xdata.extend_from_slice(r.bytes(len));
            }
        }
    }

    /// Answers the get requests (from this rank's registered memory, before any put of the
    /// superstep lands) and the requests to this rank's extension objects, then hands the
    /// answers to this rank's own gets and requests, in issue order.
    ///
    /// A reply block, per requester: the requested DRMA bytes (padded to a word), then for each
    /// extension request its length in a word and its bytes (padded).
    fn serve_gets(&mut self, ctx: &mut Ctx) {
        let p = ctx.nprocs;
        {
            let st = ctx.state.borrow();
            self.send.clear();
            self.send_counts.clear();
            let bytes = &mut self.scratch;
            for src in 0..p {
                bytes.clear();
                for req in &self.peers.reqs[src] {
                    let entry = st.table.entries[req.slot as usize].as_ref().expect("a get checked at the call");
                    // SAFETY: inside this rank's registration (checked against its extent by the
                    // requester at the call); nothing writes it during this phase of the sync.
                    let data = unsafe {
                        std::slice::from_raw_parts((entry.local_addr + req.byte_offset) as *const u8, req.len)
                    };
                    bytes.extend_from_slice(data);
                }
                let start = self.send.len();
                put_bytes(&mut self.send, bytes);
                for x in &self.peers.xreqs[src] {
                    let entry = st.table.entries[x.slot as usize].as_ref().expect("a request checked at the call");
                    let target = entry.ext.as_deref().expect("requests go to extension registrations");
                    bytes.clear();
                    target.serve(src, &self.peers.xreq_data[src][x.at..x.at + x.len], bytes);
                    self.send.push(bytes.len() as u64);
                    put_bytes(&mut self.send, bytes);
                }
                self.send_counts.push(count(self.send.len() - start, "the get replies for one rank"));
            }
        }
        self.comm.all_to_all_into(&self.send_counts[..], &mut self.recv_counts[..]);
        self.all_to_all_v();
        let st = ctx.state.get_mut();
        // DRMA gets, in issue order, from the front of each owner's block.
        self.asked.fill(0);
        for g in &st.gets {
            self.asked[g.pid] += g.bytes;
        }
        let replies: &[u8] = bytemuck::cast_slice(&self.recv[..]);
        for (c, &d) in self.cursor.iter_mut().zip(&self.recv_displs) {
            *c = d as usize * 8;
        }
        for g in &st.gets {
            let at = self.cursor[g.pid];
            // SAFETY: the destination was borrowed mutably by this process until the end of
            // this sync (`Superstep::get`); this rank is the only thread touching it.
            unsafe {
                std::ptr::copy_nonoverlapping(replies[at..at + g.bytes].as_ptr(), g.dst_addr as *mut u8, g.bytes)
            };
            self.cursor[g.pid] += g.bytes;
        }
        // Extension replies follow, word aligned, in request order.
        for (c, (&d, &a)) in self.cursor.iter_mut().zip(self.recv_displs.iter().zip(&self.asked)) {
            *c = d as usize + a.div_ceil(8);
        }
        let requests = std::mem::take(&mut st.requests);
        let mut ranges = std::mem::take(&mut st.req_ranges);
        for request in requests {
            ranges.clear();
            for part in &st.req_parts[request.parts.clone()] {
                let mut r = Reader { words: &self.recv[..], at: self.cursor[part.pid] };
                let len = r.usize();
                let start = r.at * 8;
                r.bytes(len);
                self.cursor[part.pid] = r.at;
                ranges.push(start..start + len);
            }
            (request.on_reply)(&mut ranges.iter().map(|r| &replies[r.clone()]));
        }
        st.req_ranges = ranges;
    }
}

impl Ctx {
    /// `sync` on the MPI engine.
    pub(crate) fn sync_mpi(&mut self) {
        let mut mpi = self.mpi.take().expect("an MPI rank has its MPI state");
        let mine = flags::SYNC | self.state.get_mut().flags;
        self.stats.before_wait(); // stats: the reduction is the sync's wait
        let all = mpi.or_reduce(mine);
        self.stats.after_wait(); // stats:
        if all & flags::END != 0 {
            let statuses =
                mpi.statuses(Status { arrival: Arrival::Sync, step: self.step, pending: Pending::default() });
            self.mpi = Some(mpi);
            self.fail_end(all, &statuses);
        }
        if all & (flags::WORK | flags::GET) == 0 {
            self.recv.clear();
        } else {
            let (step, requested) = (self.step, self.state.get_mut().tag.requested);
            let out = self.outbox();
            out.meta.arrival = Arrival::Sync;
            out.meta.step = step;
            out.meta.tag_request = requested;
            // A panic in here (a collective mismatch, misuse found while applying a record)
            // leaves queued addresses behind: the process must not communicate again.
            let phases = catch_unwind(AssertUnwindSafe(|| {
                mpi.serialize(self);
                mpi.exchange();
                mpi.deserialize();
                self.check_collectives(&mpi.peers);
                if all & flags::GET != 0 {
                    mpi.serve_gets(self);
                }
                self.apply_incoming(&mpi.peers);
            }));
            if let Err(payload) = phases {
                self.broken.set(true);
                self.mpi = Some(mpi);
                std::panic::resume_unwind(payload);
            }
        }
        self.stats_end(all, &mpi.peers); // stats: count what came in, close the figures
        self.mpi = Some(mpi);
        self.next_superstep();
    }

    /// The end of the SPMD function on the MPI engine.
    pub(crate) fn finish_mpi(&mut self) {
        let pending = self.state.get_mut().pending;
        let mpi = self.mpi.as_deref().expect("an MPI rank has its MPI state");
        let mine = flags::END | if pending.total() > 0 { flags::PENDING } else { 0 };
        let all = mpi.or_reduce(mine);
        if all & (flags::SYNC | flags::PENDING) != 0 {
            let statuses = mpi.statuses(Status { arrival: Arrival::End, step: self.step, pending });
            self.fail_end(all, &statuses);
        }
    }
}

/// Runs `f` with this OS process as one MPI rank.
pub(crate) fn run<R, F>(launch: &Launch, f: F) -> Result<Vec<R>, Error>
where
    F: Fn(&mut Ctx) -> R,
{
    // Relaxed: only the launching thread reads or writes these (see `wanted`).
    if USED.swap(true, Ordering::Relaxed) {
        return Err(Error::launch(
            "MPI can be started only once per program, and an earlier SPMD run already used it".to_string(),
        ));
    }
    let Some((universe, _)) = mpi::initialize_with_threading(mpi::Threading::Serialized) else {
        return Err(Error::launch("MPI was already initialised by someone else".to_string()));
    };
    ACTIVE.store(true, Ordering::Relaxed);
    let result = run_on(universe.world(), launch, f);
    ACTIVE.store(false, Ordering::Relaxed);
    drop(universe); // MPI_Finalize, after every communicator of the run is gone
    result
}

fn run_on<R, F>(world: SimpleCommunicator, launch: &Launch, f: F) -> Result<Vec<R>, Error>
where
    F: Fn(&mut Ctx) -> R,
{
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let p = launch.requested_procs()?.unwrap_or(size);
    if p > size {
        let e = Error::launch(format!(
            "{p} processes were requested but mpirun started only {size} MPI ranks: start more ranks (`mpirun -n {p}`) or ask for fewer"
        ));
        return Err(report_once(&world, e));
    }
    let color = if rank < p { Color::with_value(0) } else { Color::undefined() };
    let Some(comm) = world.split_by_color(color) else {
        return Ok(Vec::new()); // a surplus rank takes no part
    };
    // For reporting a collective failure (the run's own communicator may be gone by then).
    let fence = comm.duplicate();
    let (group, parker) = Group::new_rank(p);
    let group = Arc::new(group);
    let mut ctx = Ctx::new(group.clone(), parker, rank);
    ctx.mpi = Some(Box::new(Mpi::new(comm, p)));
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let r = f(&mut ctx);
        ctx.check_live("the end of the SPMD function");
        ctx.finish_mpi();
        crate::trace::finish(&mut ctx, Some(&|c: &Ctx| _ = c.mpi.as_deref().map(|m| m.or_reduce(0)))); // stats:
        r
    }));
    match outcome {
        Ok(r) => Ok(vec![r]),
        Err(payload) => {
            let error = match group.take_failure() {
                Some(e) => e,
                None if payload.is::<Stop>() => Error::panic(rank, "stopped".to_string()),
                None => Error::panic(rank, crate::launch::failure_message(&*payload, rank)),
            };
            if error.is_collective() {
                return Err(report_once(&fence, error));
            }
            // Only this rank failed; the others may wait in a collective forever: stop them all.
            eprintln!("error: {error}");
            world.abort(1)
        }
    }
}

/// An error that every rank of `comm` found identically: rank 0 prints it now, and no rank
/// returns before it has. (A rank that exits with a non-zero status makes mpirun kill the
/// others, rank 0 included: if rank 0 printed only after returning, as `exit_on_error` does, the
/// message would often be lost.) Every rank returns it quieted, so it is printed once.
fn report_once(comm: &SimpleCommunicator, error: Error) -> Error {
    if comm.rank() == 0 {
        eprintln!("error: {error}");
    }
    comm.barrier();
    error.quieted()
}
