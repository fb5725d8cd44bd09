//! Checkpoints: `ctx.checkpoint(state)` saves what a run needs to go on from a superstep
//! boundary, and a rerun with `BSP_RESTART` goes on from the last complete one.
//!
//! # What is saved, and what is not
//! For every process: the contents of every live registration (GP arrays included), the
//! unread messages of the superstep that follows, the tag sizes, the superstep count, and the
//! `state` value the program passes. Not saved: anything else the program holds (it passes it
//! as `state`, or rebuilds it), combiners (the set-up makes them again), statistics and traces
//! (a restarted run counts from its own start).
//!
//! # Files
//! `BSP_CHECKPOINT=<dir>` (or, on a restart without it, the `BSP_RESTART` directory) receives
//! one directory per checkpoint, `step-<superstep>`, holding each process's file `p<pid>`
//! and, written last by process 0 once every file is complete, `MANIFEST`: the number of
//! processes, the superstep the call returns at, and each file's length and checksum. Every
//! file is written to a temporary name, flushed to the disk (`fsync`) and renamed, so a file
//! either is whole or is not there; a directory without a manifest, or whose files do not
//! match it, is incomplete. The two newest complete checkpoints are kept.
//!
//! # Restart
//! With `BSP_RESTART=<dir>`, the program runs its set-up as usual (the same registrations in
//! the same order); its first `checkpoint` call then picks the newest checkpoint that every
//! process finds complete and intact (falling back to the one before if the newest is torn or
//! corrupt), puts back every registration's contents, the messages and the tag sizes, sets the
//! superstep count, and returns the saved state instead of the one given. A checkpoint written
//! by another number of processes, or registrations that differ from the saved ones, are
//! errors that name what differs.

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::ctx::Wait;
use crate::{Ctx, Value};

/// The variable naming the directory that receives checkpoints.
pub(crate) const CHECKPOINT_VAR: &str = "BSP_CHECKPOINT";
/// The variable naming the directory a run restarts from.
pub(crate) const RESTART_VAR: &str = "BSP_RESTART";

/// The first bytes of a process's file.
const MAGIC: &[u8; 8] = b"BSPCKPT\x01";
/// The first line of a manifest.
const MANIFEST_HEAD: &str = "bsp checkpoint 1";
/// How many complete checkpoints are kept.
const KEEP: usize = 2;
/// How many candidates a restart considers (the newest first).
const CANDIDATES: usize = 4;

/// The directories of this OS process's runs: (where checkpoints go, where a restart reads).
fn dirs() -> &'static (Option<PathBuf>, Option<PathBuf>) {
    static DIRS: OnceLock<(Option<PathBuf>, Option<PathBuf>)> = OnceLock::new();
    DIRS.get_or_init(|| {
        let get = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let restart = get(RESTART_VAR);
        (get(CHECKPOINT_VAR).or_else(|| restart.clone()), restart)
    })
}

/// A process's part of the checkpoints: whether its first call restores.
#[derive(Debug)]
pub(crate) struct Checkpoints {
    restore_pending: std::cell::Cell<bool>,
}

impl Default for Checkpoints {
    fn default() -> Self {
        Checkpoints { restore_pending: std::cell::Cell::new(dirs().1.is_some()) }
    }
}

/// A 64-bit checksum that finds torn and damaged files (not an adversary): four lanes of
/// multiply-and-rotate over 8-byte words, so that it runs at several GB/s (a byte-wise hash
/// would take longer than the disk), then FNV-1a over the last few bytes and the length. Fed
/// piece by piece ([`Checksum::update`]), it gives what it gives for the pieces joined.
#[derive(Clone)]
struct Checksum {
    lanes: [u64; 4],
    pending: [u8; 32],
    npending: usize,
    len: u64,
}

impl Checksum {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;

    fn new() -> Self {
        let lanes = [0x243f_6a88_85a3_08d3, 0x1319_8a2e_0370_7344, 0xa409_3822_299f_31d0, 0x082e_fa98_ec4e_6c89];
        Checksum { lanes, pending: [0; 32], npending: 0, len: 0 }
    }

    fn block(&mut self, block: &[u8]) {
        for (lane, w) in self.lanes.iter_mut().zip(block.chunks_exact(8)) {
            let w = u64::from_le_bytes(w.try_into().expect("eight bytes"));
            *lane = (*lane ^ w).wrapping_mul(Self::K).rotate_left(29);
        }
    }

    fn update(&mut self, mut bytes: &[u8]) {
        self.len += bytes.len() as u64;
        if self.npending > 0 {
            let take = bytes.len().min(32 - self.npending);
            self.pending[self.npending..self.npending + take].copy_from_slice(&bytes[..take]);
            self.npending += take;
            bytes = &bytes[take..];
            if self.npending < 32 {
                return;
            }
            let block = self.pending;
            self.block(&block);
            self.npending = 0;
        }
        let mut blocks = bytes.chunks_exact(32);
        for b in &mut blocks {
            self.block(b);
        }
        let rest = blocks.remainder();
        self.pending[..rest.len()].copy_from_slice(rest);
        self.npending = rest.len();
    }

    fn finish(&self) -> u64 {
        let h =
            self.lanes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &l| (h ^ l).wrapping_mul(Self::K).rotate_left(31));
        let len = self.len.to_le_bytes();
        let tail = self.pending[..self.npending].iter().chain(&len);
        tail.fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
    }
}

/// The checksum of `bytes` in one piece.
fn checksum(bytes: &[u8]) -> u64 {
    let mut c = Checksum::new();
    c.update(bytes);
    c.finish()
}

/// A process's file as it is written: small pieces gathered in a buffer, large ones written
/// straight from where they lie (a registration's memory), every byte through the checksum.
struct Writer {
    file: File,
    buf: Vec<u8>,
    sum: Checksum,
}

impl Writer {
    /// Pieces at least this long skip the buffer.
    const DIRECT: usize = 64 << 10;

    fn bytes(&mut self, s: &[u8]) -> std::io::Result<()> {
        self.sum.update(s);
        if self.buf.len() + s.len() > Self::DIRECT {
            self.file.write_all(&self.buf)?;
            self.buf.clear();
        }
        if s.len() >= Self::DIRECT {
            return self.file.write_all(s);
        }
        self.buf.extend_from_slice(s);
        Ok(())
    }

    fn word(&mut self, w: usize) -> std::io::Result<()> {
        self.bytes(&(w as u64).to_le_bytes())
    }

    /// A length-prefixed byte string.
    fn string(&mut self, s: &[u8]) -> std::io::Result<()> {
        self.word(s.len())?;
        self.bytes(s)
    }

    /// Flushes the file to the disk; returns its (length, checksum).
    fn finish(mut self) -> std::io::Result<(u64, u64)> {
        self.file.write_all(&self.buf)?;
        self.file.sync_all()?;
        Ok((self.sum.len, self.sum.finish()))
    }
}

/// Little-endian words and byte strings read back from a checkpoint.
struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    fn new(data: &'a [u8]) -> Self {
        Bytes { data, at: 0 }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.data.len()).ok_or("the saved data ends early")?;
        let s = &self.data[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn word(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("eight bytes")))
    }

    fn size(&mut self) -> Result<usize, String> {
        usize::try_from(self.word()?).map_err(|_| "a saved size does not fit this machine".to_string())
    }

    /// A length-prefixed byte string.
    fn string(&mut self) -> Result<&'a [u8], String> {
        let n = self.size()?;
        self.take(n)
    }
}

/// Writes `path` through `write` so that the file is either whole or absent: a temporary file,
/// flushed to the disk, renamed, and the directory flushed. Returns the file's (length,
/// checksum).
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut Writer) -> std::io::Result<()>,
) -> std::io::Result<(u64, u64)> {
    let tmp = path.with_extension("tmp");
    let mut w = Writer { file: File::create(&tmp)?, buf: Vec::with_capacity(Writer::DIRECT), sum: Checksum::new() };
    write(&mut w)?;
    let written = w.finish()?;
    std::fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent() {
        File::open(dir)?.sync_all()?;
    }
    Ok(written)
}

/// A manifest: the number of processes, the superstep the checkpoint call returns at, and each
/// process's (length, checksum).
#[derive(Debug, PartialEq)]
struct Manifest {
    nprocs: usize,
    step: usize,
    files: Vec<(usize, u64)>,
}

impl Manifest {
    fn render(&self) -> String {
        let mut s = format!("{MANIFEST_HEAD}\nprocesses {}\nstep {}\n", self.nprocs, self.step);
        for (q, (len, sum)) in self.files.iter().enumerate() {
            s += &format!("p{q} {len} {sum:016x}\n");
        }
        s
    }

    fn parse(text: &str) -> Option<Manifest> {
        let mut lines = text.lines();
        (lines.next()? == MANIFEST_HEAD).then_some(())?;
        let nprocs = lines.next()?.strip_prefix("processes ")?.parse().ok()?;
        let step = lines.next()?.strip_prefix("step ")?.parse().ok()?;
        let mut files = Vec::with_capacity(nprocs);
        for q in 0..nprocs {
            let rest = lines.next()?.strip_prefix(&format!("p{q} "))?;
            let (len, sum) = rest.split_once(' ')?;
            (sum.len() == 16).then_some(())?;
            files.push((len.parse().ok()?, u64::from_str_radix(sum, 16).ok()?));
        }
        lines.next().is_none().then_some(Manifest { nprocs, step, files })
    }
}

/// The checkpoint directories in `dir` with a manifest, newest first: (superstep, path).
fn candidates(dir: &Path) -> Vec<(usize, PathBuf)> {
    let mut found: Vec<(usize, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let step = name.strip_prefix("step-")?.parse().ok()?;
            e.path().join("MANIFEST").is_file().then(|| (step, e.path()))
        })
        .collect();
    found.sort_by_key(|c| std::cmp::Reverse(c.0));
    found
}

/// The name of the directory of the checkpoint taken at superstep `step`.
fn step_dir(dir: &Path, step: usize) -> PathBuf {
    dir.join(format!("step-{step:09}"))
}

impl Ctx {
    /// Saves a checkpoint of the run, or, in a run restarted with `BSP_RESTART`, restores the
    /// last one; collective, and a sync.
    ///
    /// Every process calls it at the same point, with the state the program needs to go on
    /// (a loop counter, a residual: any [`Value`]). With `BSP_CHECKPOINT=<dir>` it syncs, then
    /// saves for every process the contents of every live registration (GP arrays included),
    /// the messages delivered to the next superstep, the tag sizes, the superstep count and
    /// `state`, and returns `state`. Without `BSP_CHECKPOINT` (nor `BSP_RESTART`) it only syncs.
    /// In a run started with `BSP_RESTART=<dir>`, the first call restores the newest complete
    /// checkpoint in `dir` instead, and returns the state saved with it, so a loop written as
    /// below goes on where the killed run last saved:
    ///
    /// ```
    /// let sums = bsp_runtime::run(2, |ctx| {
    ///     let x = ctx.register([0u64]); // the set-up: the same registrations on a restart
    ///     let mut round = 0u32;
    ///     loop {
    ///         round = ctx.checkpoint(round); // saves; on a restart, the saved round
    ///         if round == 10 {
    ///             break;
    ///         }
    ///         ctx.put(1 - ctx.pid(), &(x.value(ctx) + 1), &x, 0);
    ///         round += 1;
    ///     }
    ///     *x.value(ctx)
    /// })
    /// .unwrap();
    /// assert_eq!(sums, [10, 10]);
    /// ```
    ///
    /// The files, and what is and is not saved, are described in the README ("When things go
    /// wrong").
    ///
    /// # Panics
    /// If a file cannot be written or read; on a restart, if no complete checkpoint is found,
    /// if it was written by another number of processes, or if the program's registrations
    /// differ from the saved ones (each naming the directory, process and values).
    #[track_caller]
    pub fn checkpoint<S: Value>(&mut self, state: S) -> S {
        self.check_live("checkpoint");
        self.sync_for(Wait::Checkpoint);
        if self.checkpoints.restore_pending.replace(false) {
            return self.restore();
        }
        if let Some(dir) = &dirs().0 {
            self.save(dir, &state);
        }
        state
    }

    /// Writes this process's file and, on process 0, the manifest.
    #[track_caller]
    fn save<S: Value>(&mut self, dir: &Path, state: &S) {
        let at = step_dir(dir, self.step);
        let file = at.join(format!("p{}", self.pid));
        let written = std::fs::create_dir_all(&at)
            .and_then(|()| write_atomically(&file, |w| self.snapshot(bytemuck::bytes_of(state), w)));
        let mine = match written {
            Ok((len, sum)) => [len, sum],
            Err(e) => self.fail_misuse(format!("checkpoint: cannot write {}: {e}", file.display())),
        };
        // The queue and tag sizes of the next superstep survive the collective's own syncs.
        let recv = std::mem::take(&mut self.recv);
        let tag = self.state.get_mut().tag;
        let all = self.allgather(&mine[..]);
        self.recv = recv;
        self.state.get_mut().tag = tag;
        if self.pid == 0 {
            let files = all.iter().map(|f| (f[0] as usize, f[1])).collect();
            let manifest = Manifest { nprocs: self.nprocs, step: self.step, files };
            if let Err(e) = write_atomically(&at.join("MANIFEST"), |w| w.bytes(manifest.render().as_bytes())) {
                self.fail_misuse(format!("checkpoint: cannot write {}: {e}", at.join("MANIFEST").display()));
            }
            // Keep the newest complete ones; the directories of older (or torn) checkpoints go.
            let complete: Vec<usize> = candidates(dir).into_iter().map(|(s, _)| s).take(KEEP).collect();
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let name = entry.file_name().into_string().unwrap_or_default();
                if let Some(step) = name.strip_prefix("step-").and_then(|s| s.parse::<usize>().ok())
                    && step < self.step
                    && !complete.contains(&step)
                {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
        }
    }

    /// This process's file, into `w`: its header, `state`, the registrations, the tag sizes
    /// and the unread messages.
    fn snapshot(&self, state: &[u8], w: &mut Writer) -> std::io::Result<()> {
        let st = self.state.borrow();
        w.bytes(MAGIC)?;
        for x in [self.nprocs, self.pid, st.tag.in_queue, st.tag.in_force, st.tag.requested] {
            w.word(x)?;
        }
        w.string(state)?;
        let live: Vec<(usize, &crate::reg::Entry)> =
            st.table.entries.iter().enumerate().filter_map(|(i, e)| Some((i, e.as_ref()?))).collect();
        w.word(live.len())?;
        for (slot, e) in live {
            w.word(slot)?;
            match &e.ext {
                Some(ext) => {
                    w.word(1)?;
                    w.string(&ext.save().unwrap_or_default())?;
                }
                None => {
                    w.word(0)?;
                    // SAFETY: this process's registered memory, between syncs: only this
                    // process writes it, and it is here; other processes read it only inside a
                    // sync this process is in.
                    let local = unsafe { std::slice::from_raw_parts(e.local_addr as *const u8, e.local_bytes) };
                    w.string(local)?;
                }
            }
        }
        let unread: Vec<(&[u8], &[u8], usize)> = self.recv.unread().collect();
        w.word(unread.len())?;
        for (tag, payload, align) in unread {
            w.word(align)?;
            w.string(tag)?;
            w.string(payload)?;
        }
        Ok(())
    }

    /// The first call of a restarted run: finds the newest checkpoint every process can read,
    /// and puts it back.
    #[track_caller]
    fn restore<S: Value>(&mut self) -> S {
        let dir = dirs().1.clone().expect("a restart has a directory");
        let found = candidates(&dir);
        let newest = found.first().map(|(_, path)| path.clone());
        // Each process checks the candidates' manifests and its own file; the run takes the
        // newest one that every process found intact.
        let mut ok = [u64::MAX; CANDIDATES];
        let mut loaded = Vec::new();
        for (i, (step, path)) in found.iter().take(CANDIDATES).enumerate() {
            if let Some(bytes) = self.read_own(path) {
                ok[i] = *step as u64;
                loaded.push((*step, bytes));
            }
        }
        let recv = std::mem::take(&mut self.recv);
        let everyone = self.allgather(&ok[..]);
        self.recv = recv;
        let agreed =
            ok.iter().copied().filter(|&s| s != u64::MAX).find(|s| everyone.iter().all(|theirs| theirs.contains(s)));
        let Some(step) = agreed else {
            // Say why the newest one cannot be used, if it is a difference of process count.
            if let Some(m) = newest
                .as_ref()
                .and_then(|p| std::fs::read_to_string(p.join("MANIFEST")).ok())
                .and_then(|t| Manifest::parse(&t))
                && m.nprocs != self.nprocs
            {
                self.fail_collective(format!(
                    "checkpoint: {} was written by {} processes but this run has {}: restart with {} processes",
                    newest.as_ref().expect("found").display(),
                    m.nprocs,
                    self.nprocs,
                    m.nprocs
                ));
            }
            self.fail_collective(format!(
                "checkpoint: no complete checkpoint in {} that every process can read ({} found)",
                dir.display(),
                found.len()
            ));
        };
        let (_, bytes) = loaded.into_iter().find(|(s, _)| *s as u64 == step).expect("this process found it intact");
        let path = step_dir(&dir, step as usize);
        match self.put_back(&bytes) {
            Ok(state) => {
                let manifest = std::fs::read_to_string(path.join("MANIFEST")).ok().and_then(|t| Manifest::parse(&t));
                self.step = manifest.map_or(self.step, |m| m.step);
                self.watch.computing(self.step);
                state
            }
            Err(e) => self.fail_misuse(format!(
                "checkpoint: cannot restore {}: {e}",
                path.join(format!("p{}", self.pid)).display()
            )),
        }
    }

    /// This process's file of the checkpoint in `path`, if the manifest is whole, was written
    /// by this many processes, and lists the file with its length and checksum.
    fn read_own(&self, path: &Path) -> Option<Vec<u8>> {
        let m = Manifest::parse(&std::fs::read_to_string(path.join("MANIFEST")).ok()?)?;
        if m.nprocs != self.nprocs {
            return None;
        }
        let bytes = std::fs::read(path.join(format!("p{}", self.pid))).ok()?;
        (m.files[self.pid] == (bytes.len(), checksum(&bytes))).then_some(bytes)
    }

    /// Puts back the contents of this process's file; returns the saved state.
    fn put_back<S: Value>(&mut self, bytes: &[u8]) -> Result<S, String> {
        let mut r = Bytes::new(bytes);
        if r.take(MAGIC.len())? != MAGIC {
            return Err("not a checkpoint file".to_string());
        }
        let (nprocs, pid) = (r.size()?, r.size()?);
        if (nprocs, pid) != (self.nprocs, self.pid) {
            return Err(format!("written by process {pid} of {nprocs}"));
        }
        let (in_queue, in_force, requested) = (r.size()?, r.size()?, r.size()?);
        let state = r.string()?;
        if state.len() != std::mem::size_of::<S>() {
            return Err(format!(
                "the saved state has {} bytes but `{}` has {}",
                state.len(),
                std::any::type_name::<S>(),
                std::mem::size_of::<S>()
            ));
        }
        let state: S = bytemuck::pod_read_unaligned(state);
        let n = r.size()?;
        let st = self.state.get_mut();
        let live: Vec<usize> =
            st.table.entries.iter().enumerate().filter(|(_, e)| e.is_some()).map(|(i, _)| i).collect();
        if n != live.len() {
            return Err(format!(
                "{n} registrations were saved but this process has {}: the set-up must make the same registrations in the same order",
                live.len()
            ));
        }
        for &slot in &live {
            let (saved_slot, kind, data) = (r.size()?, r.word()?, r.string()?);
            let e = st.table.entries[slot].as_ref().expect("live");
            if saved_slot != slot {
                return Err(format!("registration slot {saved_slot} was saved where this process has slot {slot}"));
            }
            match (&e.ext, kind) {
                (Some(ext), 1) => ext.restore(data).map_err(|e| format!("registration #{}: {e}", slot))?,
                (None, 0) if data.len() == e.local_bytes => {
                    // SAFETY: this process's registered memory, between syncs: no borrow of it
                    // lives (`&mut self`), and other processes read it only inside a sync.
                    let local = unsafe { std::slice::from_raw_parts_mut(e.local_addr as *mut u8, e.local_bytes) };
                    local.copy_from_slice(data);
                }
                (None, 0) => {
                    return Err(format!(
                        "registration #{} has {} bytes here but {} in the checkpoint",
                        e.serial,
                        e.local_bytes,
                        data.len()
                    ));
                }
                _ => return Err(format!("registration #{} is of another kind than the saved one", e.serial)),
            }
        }
        st.tag.in_queue = in_queue;
        st.tag.in_force = in_force;
        st.tag.requested = requested;
        self.recv.clear();
        for _ in 0..r.size()? {
            let align = r.size()?;
            let (tag, payload) = (r.string()?, r.string()?);
            self.recv.push(tag, payload, align);
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_reads_back_as_written_and_refuses_damage() {
        let m = Manifest { nprocs: 2, step: 17, files: vec![(100, 0xdead_beef), (96, 7)] };
        let text = m.render();
        assert_eq!(Manifest::parse(&text), Some(m));
        assert_eq!(Manifest::parse(&text[..text.len() - 5]), None, "a torn manifest");
        assert_eq!(Manifest::parse(&text.replace("p1 ", "p2 ")), None);
        assert_eq!(Manifest::parse(&(text.clone() + "p2 1 1\n")), None);
    }

    #[test]
    fn the_checksum_sees_one_changed_byte_anywhere_and_a_torn_end() {
        let a: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
        for at in [0, 7, 8, 31, 500, 960, 999] {
            let mut b = a.clone();
            b[at] ^= 1;
            assert_ne!(checksum(&a), checksum(&b), "byte {at}");
        }
        assert_ne!(checksum(&a), checksum(&a[..992]), "a file cut at a word boundary");
        assert_ne!(checksum(&[0; 64]), checksum(&[0; 96]), "zeros of another length");
    }

    #[test]
    fn the_checksum_of_pieces_is_the_checksum_of_the_whole() {
        let a: Vec<u8> = (0..1000u32).map(|i| (i * 13 + 5) as u8).collect();
        for cuts in [vec![1, 2, 3], vec![31, 32, 33], vec![100, 500], vec![0, 999], vec![7; 5]] {
            let mut c = Checksum::new();
            let mut at = 0;
            for &n in &cuts {
                let cut = n.min(a.len() - at);
                c.update(&a[at..at + cut]);
                at += cut;
            }
            c.update(&a[at..]);
            assert_eq!(c.finish(), checksum(&a), "cuts {cuts:?}");
        }
    }
}
