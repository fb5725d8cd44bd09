//! The engine boundary: how bytes move and how processes synchronise.
//!
//! The BSPlib semantics (registration tables, queues, issue order, checks) live in `ctx`, `reg`,
//! `drma`, `bsmp` and `sync`. They talk to an engine through a deliberately small surface:
//!
//! - a combining barrier: every process arrives with flags and leaves with their OR (so an empty
//!   superstep is one barrier, and "someone has gets" or "someone ended" is known to all);
//! - publication of each process's [`Outbox`](crate::exchange::Outbox) for the superstep, and
//!   reading the outboxes of others after the barrier (puts, messages and collective
//!   bookkeeping addressed to this process are *pulled* by the receiver, in ascending source pid);
//! - reading the source of a get, done by the requester after the first barrier and before the
//!   second (request/reply on an engine without a shared address space);
//! - failure: poisoning that wakes every waiter, and a record of the first failure.
//!
//! Nothing in the semantic layer assumes that another process's memory can be addressed, except
//! through these calls. [`threads`] is the shared-memory engine (the default).

#[cfg(feature = "mpi")]
pub(crate) mod mpi;
pub(crate) mod placement;
pub(crate) mod threads;
