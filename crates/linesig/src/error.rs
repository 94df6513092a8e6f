//! The errors of the crate's own calls, in one place: building an engine, laying out a
//! batch, parsing names. Bad *items* are never an error: they get an `Invalid` verdict.
//! Signing errors belong to their schemes (`mldsa::SignError`, `leansig::SignError`) and
//! the wire format's to `wire::WireError`.
//!
//! This module sits below everything that returns its errors: it names the backend and
//! the CPU's features, nothing else of the crate.

use crate::backend::Backend;
pub use crate::backend::UnknownBackend;
use linesig_simd::cpu::Isa;

/// What can go wrong before verification starts. Bad *items* are never an error: they
/// get an `Invalid` verdict.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("workers must be at least 1")]
    ZeroWorkers,
    #[error("workers must be at most {max}, not {requested}")]
    TooManyWorkers { requested: usize, max: usize },
    #[error(
        "give either a worker count or a thread pool, not both (a pool's workers are its threads)"
    )]
    WorkersWithPool,
    #[error("batch size must be at least 1")]
    ZeroBatchSize,
    #[error("lanes in use must be at least 1")]
    ZeroLanes,
    #[error(transparent)]
    UnknownBackend(#[from] UnknownBackend),
    #[error("backend '{backend}' cannot run {scheme} on this CPU (it needs {needs}; this CPU has {has})")]
    UnsupportedBackend {
        backend: Backend,
        scheme: &'static str,
        needs: String,
        has: Isa,
    },
    #[error("could not start the worker pool: {0}")]
    ThreadPool(String),
    #[error("item {index}: span at offset {offset}, length {len} lies outside the {buffer_len}-byte buffer")]
    SpanOutOfBounds {
        index: usize,
        offset: usize,
        len: usize,
        buffer_len: usize,
    },
    #[error("output has room for {got} verdicts but there are {expected} items")]
    OutputLength { expected: usize, got: usize },
    #[error("{0} has no key cache: its public keys have nothing to precompute (use 0)")]
    NoKeyCache(&'static str),
    #[error("a key cache of {bytes} bytes holds no key table: one takes {table_bytes} bytes with its bookkeeping on this backend (use 0 to switch the cache off)")]
    KeyCacheTooSmall { bytes: usize, table_bytes: usize },
}

pub use linesig_simd::UnknownName;

/// An Ed25519 policy name that does not exist.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown Ed25519 policy '{0}' (expected strict, zip215 or zip215-strict)")]
pub struct UnknownPolicy(pub String);

/// A policy given for a scheme that has none (only Ed25519 has policies).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a policy applies to ed25519 only, not {scheme}")]
pub struct PolicyNotApplicable {
    pub scheme: &'static str,
}
