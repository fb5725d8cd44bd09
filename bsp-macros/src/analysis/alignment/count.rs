//! How many sync points a stretch of code makes, as an interval over its paths. (Which calls
//! are sync points is in the API's table, `api.rs`.)

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

    /// At least one sync point on every path: a stretch with none gets one (the sync that ends
    /// a `superstep_then` whose second closure makes none).
    pub(crate) fn at_least_one(self) -> Count {
        Count { min: self.min.max(1), max: self.max.map(|m| m.max(1)) }
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
