//! The synchronisation primitives the barrier and the in-process transport's mailboxes are
//! built from: the standard library's (and
//! crossbeam's parker) in every build, loom's when the crate's unit tests are compiled with
//! `--cfg loom` (`scripts/loom`), so that the loom models (`loom_models.rs`) check every
//! interleaving of the real barrier code. Outside the models these are plain re-exports: they
//! cost nothing.

#[cfg(not(all(test, loom)))]
pub(crate) use crossbeam_utils::sync::{Parker, Unparker};
#[cfg(not(all(test, loom)))]
pub(crate) use std::hint::spin_loop;
#[cfg(not(all(test, loom)))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering, fence};
#[cfg(not(all(test, loom)))]
pub(crate) use std::sync::{Mutex, MutexGuard};
#[cfg(not(all(test, loom)))]
pub(crate) use std::thread::yield_now;
#[cfg(not(all(test, loom)))]
pub(crate) use std::time::Instant;

#[cfg(all(test, loom))]
pub(crate) use self::model::{Instant, Parker, Unparker, spin_loop, yield_now};
#[cfg(all(test, loom))]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering, fence};
#[cfg(all(test, loom))]
pub(crate) use loom::sync::{Mutex, MutexGuard};

/// Loom's counterparts of what loom does not provide as such: a parker with crossbeam's
/// contract, a clock, and the spin and yield hints, which also count how often a model took
/// each path (so that a model can check that it reached the yields and the parks).
#[cfg(all(test, loom))]
pub(crate) mod model {
    use std::cell::Cell;
    use std::time::Duration;

    use loom::sync::{Arc, Condvar, Mutex};

    std::thread_local! {
        /// Per test thread (loom runs a model's threads on the thread that calls `model`):
        /// yields and parks that blocked, over all the executions so far.
        static PATHS: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
    }

    /// The yields and the blocking parks the models of this test thread have taken so far.
    pub(crate) fn paths() -> (u64, u64) {
        PATHS.with(Cell::get)
    }

    fn count(yields: u64, parks: u64) {
        PATHS.with(|p| {
            let (y, k) = p.get();
            p.set((y + yields, k + parks));
        });
    }

    /// Loom's spin hint (a point where it may switch threads).
    pub(crate) fn spin_loop() {
        loom::hint::spin_loop();
    }

    /// Loom's `yield_now`, counted.
    pub(crate) fn yield_now() {
        count(1, 0);
        loom::thread::yield_now();
    }

    /// A clock that never advances: the barrier's "did a yield run another thread" hint stays
    /// off, so that every execution of a model takes the same decisions (loom replays them).
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Instant;

    impl Instant {
        pub(crate) fn now() -> Self {
            Instant
        }

        pub(crate) fn elapsed(&self) -> Duration {
            Duration::ZERO
        }
    }

    /// A token, as crossbeam's parker holds: `unpark` sets it, `park` waits for it and takes it.
    #[derive(Debug)]
    struct Token {
        set: Mutex<bool>,
        changed: Condvar,
    }

    /// Crossbeam's `Parker` contract on loom's mutex and condition variable: an `unpark` that
    /// comes before the `park` makes the `park` return at once.
    #[derive(Debug)]
    pub(crate) struct Parker {
        unparker: Unparker,
    }

    /// Wakes the owner of a [`Parker`].
    #[derive(Clone, Debug)]
    pub(crate) struct Unparker {
        token: Arc<Token>,
    }

    impl Default for Parker {
        fn default() -> Self {
            Self::new()
        }
    }

    impl Parker {
        pub(crate) fn new() -> Self {
            let token = Arc::new(Token { set: Mutex::new(false), changed: Condvar::new() });
            Parker { unparker: Unparker { token } }
        }

        pub(crate) fn unparker(&self) -> &Unparker {
            &self.unparker
        }

        /// Waits until the token is set, and takes it.
        pub(crate) fn park(&self) {
            let token = &self.unparker.token;
            let mut set = token.set.lock().unwrap();
            if !*set {
                count(0, 1);
            }
            while !*set {
                set = token.changed.wait(set).unwrap();
            }
            *set = false;
        }
    }

    impl Unparker {
        /// Sets the token and wakes the owner if it waits.
        pub(crate) fn unpark(&self) {
            *self.token.set.lock().unwrap() = true;
            self.token.changed.notify_one();
        }
    }
}
