//! How many sync points a stretch of code makes, as an interval over its paths, and which calls
//! are sync points.

use std::fmt;

/// The number of sync points along the paths of some code: at least `min`, at most `max`
/// (`None`: no bound is known, after a loop that syncs or a call the macro cannot see into).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Count {
    pub(crate) min: u32,
    pub(crate) max: Option<u32>,
}

impl Count {
    pub(crate) const ZERO: Count = Count { min: 0, max: Some(0) };
    pub(crate) const ONE: Count = Count { min: 1, max: Some(1) };
    /// Any number, none included: code the macro cannot see into.
    pub(crate) const UNKNOWN: Count = Count { min: 0, max: None };

    /// The count of two stretches one after the other.
    pub(crate) fn then(self, next: Count) -> Count {
        Count { min: self.min.saturating_add(next.min), max: self.max.zip(next.max).map(|(a, b)| a.saturating_add(b)) }
    }

    /// The count of one path or the other.
    pub(crate) fn either(self, other: Count) -> Count {
        Count { min: self.min.min(other.min), max: self.max.zip(other.max).map(|(a, b)| a.max(b)) }
    }

    /// Whether no path of `self` makes as many sync points as a path of `other`.
    pub(crate) fn disjoint(self, other: Count) -> bool {
        self.max.is_some_and(|max| max < other.min) || other.max.is_some_and(|max| max < self.min)
    }

    /// A loop over this body, run any number of times.
    pub(crate) fn repeated(self) -> Count {
        if self.max == Some(0) {
            Count::ZERO
        } else {
            Count::UNKNOWN
        }
    }
}

/// `1 sync point`, `2 to 3 sync points`, `at least 1 sync point`.
impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = |n: u32| if n == 1 { "sync point" } else { "sync points" };
        match self.max {
            Some(max) if max == self.min => write!(f, "{max} {}", plural(max)),
            Some(max) => write!(f, "{} to {max} {}", self.min, plural(max)),
            None => write!(f, "at least {} {}", self.min, plural(self.min)),
        }
    }
}

/// Methods of the context that are sync points besides the collectives (`analysis::COLLECTIVES`,
/// each of which ends with one or more syncs, the same on every process): `sync`, and the
/// registration calls (each includes a sync).
const SYNCING: &[&str] = &["sync", "register", "register_each", "unregister", "unregister_each"];

/// Whether the context's method `name` is a sync point.
pub(crate) fn is_syncing(name: &str) -> bool {
    SYNCING.contains(&name) || crate::analysis::COLLECTIVES.contains(&name)
}

/// Methods of the context that are certainly not sync points.
pub(crate) const NOT_SYNCING: &[&str] = &[
    "pid",
    "nprocs",
    "time",
    "step",
    "put",
    "put_combine",
    "put_batch",
    "put_batch_with_local",
    "combiner",
    "set_tagsize",
    "set_tag",
    "send",
    "send_bytes",
    "qsize",
    "get_tag",
    "get_tag_bytes",
    "move_message",
    "move_into",
    "move_bytes",
    "hpmove",
    "hpmove_bytes",
    "get",
    "hpget",
    "hpput",
    "dest",
    "get_batch",
    "locals",
    "stats",
    "set_stats",
    "same",
];

/// Methods of other values that take the context as an argument and sync: a global pointer
/// array's `build`, `destroy`, `memzero` and `sync`.
pub(crate) const SYNCING_WITH_CTX: &[&str] = &["build", "destroy", "memzero", "sync"];

/// Methods of other values that take the context as an argument and certainly do not sync:
/// a registration's parts, a global pointer array's local accesses and one-sided operations.
pub(crate) const NOT_SYNCING_WITH_CTX: &[&str] = &[
    "local",
    "local_mut",
    "value",
    "value_mut",
    "split_mut",
    "access",
    "access_mut",
    "assign_local",
    "free_local",
    "get",
    "get_into",
    "get_size",
    "gather",
    "gather_into",
    "gather_size",
    "put",
    "scatter",
    "distribution",
];
