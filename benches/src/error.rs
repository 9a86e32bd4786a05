//! What can go wrong while setting up or running a bench.

use std::io;

/// A bench could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The selected backend is not one these benches can drive (yet).
    #[error("not supported: {0}")]
    Unsupported(String),
    /// The backend could not be opened.
    #[error("opening the backend: {0}")]
    Open(vmmkit_runtime::OpenError),
    /// A driver call failed.
    #[error(transparent)]
    Call(#[from] vmmkit_runtime::Error),
    /// A system call of a floor, or of the harness, failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        source: io::Error,
    },
    /// The peer process failed, died or did not answer in time.
    #[error("peer: {0}")]
    Peer(String),
    /// Anything else that makes the measurement meaningless (a wrong value read back).
    #[error("{0}")]
    Check(String),
}

impl From<vmmkit_runtime::OpenError> for BenchError {
    /// A failure to open the backend.
    fn from(e: vmmkit_runtime::OpenError) -> Self {
        Self::Open(e)
    }
}

impl BenchError {
    /// An I/O error while doing `what`.
    pub fn io(what: impl Into<String>, source: impl Into<io::Error>) -> Self {
        Self::Io { what: what.into(), source: source.into() }
    }
}

/// The result of bench code.
pub type Result<T, E = BenchError> = std::result::Result<T, E>;
