//! How each collective moves its data, on any group of processes (every process, or a team):
//! the one or two supersteps of messages that `Ctx`'s and `Team`'s collectives make.

use super::CollectiveData;
use super::wire::{Group, Kind, extend_from_bytes, vec_from_bytes};
use crate::{Ctx, Value};

/// Where `n` elements split into `p` near-equal blocks put block `q`: `q·n/p .. (q+1)·n/p`.
fn block(n: usize, p: usize, q: usize) -> std::ops::Range<usize> {
    let at = |q: usize| (q as u128 * n as u128 / p as u128) as usize;
    at(q)..at(q + 1)
}

impl Ctx {
    #[track_caller]
    pub(super) fn broadcast_in<T: Value>(
        &mut self,
        group: Group<'_>,
        root: usize,
        data: impl CollectiveData<T>,
    ) -> Vec<T> {
        let call = self.coll_call::<T>(group, Kind::Broadcast, Kind::Broadcast.op(), root);
        let me = group.me;
        let data = self.coll_read(&call, data, me == root);
        let data = &data[..];
        for q in 0..group.size {
            let payload = if me == root && q != me { data } else { &[] };
            self.coll_send(&call, q, if me == root { data.len() } else { 0 }, payload);
        }
        self.sync_for(crate::ctx::Wait::Collective);
        let parts = self.coll_parts(&call);
        if me == root { data.to_vec() } else { vec_from_bytes(parts[root].payload, parts[root].count) }
    }

    #[track_caller]
    pub(super) fn broadcast_large_in<T: Value>(
        &mut self,
        group: Group<'_>,
        root: usize,
        data: impl CollectiveData<T>,
    ) -> Vec<T> {
        let call = self.coll_call::<T>(group, Kind::BroadcastLargePieces, Kind::BroadcastLargePieces.op(), root);
        let (me, p) = (group.me, group.size);
        let data = self.coll_read(&call, data, me == root);
        let data = &data[..];
        for q in 0..p {
            let payload = if me == root && q != me { &data[block(data.len(), p, q)] } else { &[] };
            self.coll_send(&call, q, if me == root { data.len() } else { 0 }, payload);
        }
        self.sync_for(crate::ctx::Wait::Collective);
        let (n, piece) = {
            let parts = self.coll_parts(&call);
            let piece =
                if me == root { Vec::new() } else { vec_from_bytes::<T>(parts[root].payload, parts[root].count) };
            (parts[root].len, piece)
        };
        let call = self.coll_call::<T>(group, Kind::BroadcastLargeAll, Kind::BroadcastLargeAll.op(), 0);
        let mine = if me == root { &data[block(n, p, me)] } else { &piece[..] };
        for q in 0..p {
            self.coll_send(&call, q, n, if q == me || q == root { &[] } else { mine });
        }
        self.sync_for(crate::ctx::Wait::Collective);
        if me == root {
            // The root has it all; it only helped the others.
            self.coll_parts(&call);
            return data.to_vec();
        }
        let parts = self.coll_parts(&call);
        let mut all = Vec::with_capacity(n);
        for (q, part) in parts.iter().enumerate() {
            if q == me {
                all.extend_from_slice(mine);
            } else {
                extend_from_bytes(&mut all, part.payload, part.count);
            }
        }
        all
    }

    #[track_caller]
    pub(super) fn reduce_in<T: Value>(
        &mut self,
        group: Group<'_>,
        root: usize,
        data: impl CollectiveData<T>,
        op: impl Fn(T, T) -> T,
    ) -> Option<Vec<T>> {
        let call = self.coll_call::<T>(group, Kind::Reduce, Kind::Reduce.op(), root);
        let me = group.me;
        let data = self.coll_read(&call, data, true);
        let data = &data[..];
        self.coll_exchange(&call, data, |q| q == root);
        let parts = self.coll_parts(&call);
        self.coll_same_len(&call, &parts, "data");
        (me == root).then(|| self.coll_fold(&call, &parts, group.size - 1, data, &op))
    }

    #[track_caller]
    pub(super) fn allreduce_in<T: Value>(
        &mut self,
        group: Group<'_>,
        data: impl CollectiveData<T>,
        op: impl Fn(T, T) -> T,
    ) -> Vec<T> {
        let call = self.coll_call::<T>(group, Kind::Allreduce, Kind::Allreduce.op(), 0);
        let data = self.coll_read(&call, data, true);
        let data = &data[..];
        self.coll_exchange(&call, data, |_| true);
        let parts = self.coll_parts(&call);
        self.coll_same_len(&call, &parts, "data");
        self.coll_fold(&call, &parts, group.size - 1, data, &op)
    }

    #[track_caller]
    pub(super) fn scan_in<T: Value>(
        &mut self,
        group: Group<'_>,
        data: impl CollectiveData<T>,
        op: impl Fn(T, T) -> T,
    ) -> Vec<T> {
        let call = self.coll_call::<T>(group, Kind::Scan, Kind::Scan.op(), 0);
        let me = group.me;
        let data = self.coll_read(&call, data, true);
        let data = &data[..];
        self.coll_exchange(&call, data, |q| q > me);
        let parts = self.coll_parts(&call);
        self.coll_same_len(&call, &parts, "data");
        self.coll_fold(&call, &parts, me, data, &op)
    }

    #[track_caller]
    pub(super) fn gather_in<T: Value>(
        &mut self,
        group: Group<'_>,
        root: usize,
        data: impl CollectiveData<T>,
    ) -> Option<Vec<Vec<T>>> {
        let call = self.coll_call::<T>(group, Kind::Gather, Kind::Gather.op(), root);
        let me = group.me;
        let data = self.coll_read(&call, data, true);
        let data = &data[..];
        self.coll_exchange(&call, data, |q| q == root);
        let parts = self.coll_parts(&call);
        (me == root).then(|| self.coll_collect(&call, &parts, data))
    }

    #[track_caller]
    pub(super) fn allgather_in<T: Value>(&mut self, group: Group<'_>, data: impl CollectiveData<T>) -> Vec<Vec<T>> {
        let call = self.coll_call::<T>(group, Kind::Allgather, Kind::Allgather.op(), 0);
        let data = self.coll_read(&call, data, true);
        let data = &data[..];
        self.coll_exchange(&call, data, |_| true);
        let parts = self.coll_parts(&call);
        self.coll_collect(&call, &parts, data)
    }

    #[track_caller]
    pub(super) fn scatter_in<T: Value, P: AsRef<[T]>>(&mut self, group: Group<'_>, root: usize, parts: &[P]) -> Vec<T> {
        let call = self.coll_call::<T>(group, Kind::Scatter, Kind::Scatter.op(), root);
        let (me, p) = (group.me, group.size);
        if me == root && parts.len() != p {
            self.fail_misuse(format!(
                "scatter: the root must pass one part per {}, but it passed {} parts ({})",
                group.who(),
                parts.len(),
                group.size_phrase()
            ));
        }
        if me == root {
            for (q, part) in parts.iter().enumerate() {
                let part = part.as_ref();
                self.coll_send(&call, q, part.len(), if q != me { part } else { &[] });
            }
        } else {
            for q in 0..p {
                self.coll_send::<T>(&call, q, 0, &[]);
            }
        }
        self.sync_for(crate::ctx::Wait::Collective);
        let got = self.coll_parts(&call);
        if me == root { parts[me].as_ref().to_vec() } else { vec_from_bytes(got[root].payload, got[root].count) }
    }

    #[track_caller]
    pub(super) fn alltoall_in<T: Value>(&mut self, group: Group<'_>, data: impl CollectiveData<T>) -> Vec<T> {
        let call = self.coll_call::<T>(group, Kind::Alltoall, Kind::Alltoall.op(), 0);
        let (me, p) = (group.me, group.size);
        let data = self.coll_read(&call, data, true);
        let data = &data[..];
        if data.len() % p != 0 {
            self.fail_misuse(format!(
                "alltoall: the length {} is not a multiple of {} (block q of the data goes to rank q, so it needs {p} blocks of equal length; for blocks of different lengths use `alltoallv`)",
                data.len(),
                group.size_phrase()
            ));
        }
        let k = data.len() / p;
        for q in 0..p {
            self.coll_send(&call, q, data.len(), if q != me { &data[q * k..(q + 1) * k] } else { &[] });
        }
        self.sync_for(crate::ctx::Wait::Collective);
        let parts = self.coll_parts(&call);
        self.coll_same_len(&call, &parts, "data");
        let mut out = Vec::with_capacity(data.len());
        for (q, part) in parts.iter().enumerate() {
            if q == me {
                out.extend_from_slice(&data[me * k..(me + 1) * k]);
            } else {
                extend_from_bytes(&mut out, part.payload, part.count);
            }
        }
        out
    }

    #[track_caller]
    pub(super) fn alltoallv_in<T: Value, P: AsRef<[T]>>(&mut self, group: Group<'_>, parts: &[P]) -> Vec<Vec<T>> {
        let call = self.coll_call::<T>(group, Kind::Alltoallv, Kind::Alltoallv.op(), 0);
        self.coll_exchange_parts(&call, parts);
        let got = self.coll_parts(&call);
        self.coll_collect(&call, &got, parts[group.me].as_ref())
    }
}
