//! `Ctx::same`: a value the program promises is the same on every process, so that a condition
//! or a loop bound computed from it may decide sync points (the macros' alignment check takes
//! it at its word), and which debug builds check at the next sync.
//!
//! In a debug build each promise is one small message to process 0 on the runtime's channel
//! (`outbox/channel.rs`): a marker no collective header starts with, a hash of the value's bytes, where
//! the promise was made and the value as `Debug` shows it. Right after each sync, process 0
//! compares the promises every process made in the superstep, in order; a difference fails the
//! run there, naming the place, the processes and their values. Release builds only return the
//! value.
//!
//! A promise's message goes out at the call, before anything a collective of the same
//! superstep sends, so the collective (which reads the same channel after its sync) finds its
//! own header last from each process; the marker keeps a promise from being read as one.

/// Whether this build of the runtime checks promises (`ctx.same`): in debug builds. For doc
/// samples, whose own build may differ from the runtime's (`cargo test --release` compiles them
/// with debug assertions).
#[doc(hidden)]
pub const PROMISES_CHECKED: bool = cfg!(debug_assertions);

use std::fmt::Debug;

use crate::{Ctx, Value};

/// The first 8 bytes of a promise's message ("bsp same" in ASCII): collective headers start
/// with a small kind code, never this.
const MARKER: u64 = u64::from_le_bytes(*b"bsp same");

/// How much of the value's `Debug` text a message carries.
const SHOWN: usize = 80;

impl Ctx {
    /// Returns `value`, promising that it is the same on every process: the macros then accept
    /// a condition or a loop bound computed from it as deciding sync points alike everywhere.
    ///
    /// In debug builds the runtime checks the promise at the next sync: if the processes
    /// promised different values (or made different numbers of promises), the run fails there
    /// with an error naming the place of the promise and each process's value, instead of
    /// hanging or going on with processes that disagree. Release builds check nothing.
    ///
    /// ```
    /// let rounds = bsp_runtime::run(2, |ctx| {
    ///     // Every process computes the same bound from the same input.
    ///     let rounds = ctx.same(ctx.nprocs() * 2);
    ///     for _ in 0..rounds {
    ///         ctx.sync();
    ///     }
    ///     rounds
    /// })
    /// .unwrap();
    /// assert_eq!(rounds, [4, 4]);
    /// ```
    ///
    /// A broken promise:
    ///
    /// ```
    /// let result = bsp_runtime::run(2, |ctx| {
    ///     let n = ctx.same(ctx.pid());
    ///     ctx.sync();
    ///     n
    /// });
    /// # if bsp_runtime::PROMISES_CHECKED {
    /// let error = result.unwrap_err().to_string();
    /// assert!(error.contains("`same`: the value promised at"), "{error}");
    /// assert!(error.contains("process 0 has 0, process 1 has 1"), "{error}");
    /// # }
    /// ```
    #[track_caller]
    pub fn same<T: Value + Debug>(&self, value: T) -> T {
        if cfg!(debug_assertions) {
            self.promise(bytemuck::bytes_of(&value), &format!("{value:?}"), std::panic::Location::caller());
        }
        value
    }

    /// Sends one promise to process 0.
    fn promise(&self, bytes: &[u8], shown: &str, at: &std::panic::Location<'_>) {
        let shown: String = shown.chars().take(SHOWN).collect();
        let place = format!("{}:{}", at.file(), at.line());
        let mut head = [0u8; 24];
        for (word, value) in head.chunks_exact_mut(8).zip([MARKER, fnv1a(bytes), place.len() as u64]) {
            word.copy_from_slice(&value.to_le_bytes());
        }
        self.sys_send("same", 0, &[&head, place.as_bytes(), shown.as_bytes()]);
    }

    /// On process 0, right after a sync: fails the run unless every process made the same
    /// promises in the superstep that just ended.
    pub(crate) fn check_promises(&self) {
        // Nothing to allocate for a sync without promises (the usual case): syncs stay free of
        // allocations in debug builds too.
        if self.pid() != 0 || !self.sys_messages().any(|(_, bytes)| Promise::parse(bytes).is_some()) {
            return;
        }
        let mut made: Vec<Vec<Promise<'_>>> = (0..self.nprocs()).map(|_| Vec::new()).collect();
        for (src, bytes) in self.sys_messages() {
            if let Some(promise) = Promise::parse(bytes) {
                made[src].push(promise);
            }
        }
        let step = self.step().saturating_sub(1);
        let most = made.iter().map(Vec::len).max().unwrap_or(0);
        for i in 0..most {
            let Some(first) = made.iter().find_map(|m| m.get(i)) else {
                continue;
            };
            if made.iter().all(|m| m.get(i).is_some_and(|p| p.hash == first.hash)) {
                continue;
            }
            let values: Vec<String> = made
                .iter()
                .enumerate()
                .map(|(q, m)| match m.get(i) {
                    Some(p) => format!("process {q} has {}", p.shown),
                    None => format!("process {q} made no such promise"),
                })
                .collect();
            // Process 0 alone knows: a failure of this process, which stops the others (on MPI
            // by `MPI_Abort`; a collective failure would wait for ranks that found nothing).
            self.fail_misuse(format!(
                "`same`: the value promised at {} is not the same on every process (checked at the sync ending superstep {step}): {}",
                first.place,
                values.join(", ")
            ));
        }
    }
}

/// One promise as process 0 received it.
struct Promise<'a> {
    hash: u64,
    place: &'a str,
    shown: &'a str,
}

impl<'a> Promise<'a> {
    fn parse(bytes: &'a [u8]) -> Option<Promise<'a>> {
        let word =
            |i: usize| -> Option<u64> { Some(u64::from_le_bytes(bytes.get(8 * i..8 * i + 8)?.try_into().ok()?)) };
        if word(0)? != MARKER {
            return None;
        }
        let (hash, place_len) = (word(1)?, usize::try_from(word(2)?).ok()?);
        let rest = bytes.get(24..)?;
        let place = std::str::from_utf8(rest.get(..place_len)?).ok()?;
        let shown = std::str::from_utf8(rest.get(place_len..)?).ok()?;
        Some(Promise { hash, place, shown })
    }
}

/// The 64-bit FNV-1a hash: the same on every process for the same bytes.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}
