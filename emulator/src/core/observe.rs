//! What the core tells the layers above it, without naming them: each
//! share operation and each hazard goes to the [`Observer`] an upper layer
//! registered (the journal of `vmmkit run`, `crate::journal`), or nowhere.
//!
//! The core depends on nothing above it; the journal depends on the core.
//! Without an observer a report costs one load.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::registry::Place;

use super::Hazard;

/// What happened to shared memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShareOp {
    /// This process exported memory it allocated.
    Export,
    /// This process took a hold on memory another process (or itself, on another device) exported.
    Import,
    /// This process gave up its export or import.
    Release,
}

/// Sees what the core reports. Registered once per process ([`observe`]).
pub trait Observer: Sync {
    /// A share operation on `key`: `bytes` at `place`, exported by `exporter` (for an import).
    fn share(&self, op: ShareOp, key: u64, bytes: u64, place: Place, exporter: Option<u32>);
    /// An unsynchronised access.
    fn hazard(&self, h: &Hazard);
}

static OBSERVER: OnceLock<&'static dyn Observer> = OnceLock::new();

/// Makes `o` the observer of this process's core; the first registration stays.
pub fn observe(o: &'static dyn Observer) {
    let _ = OBSERVER.set(o);
}

/// Reports a share operation.
pub(crate) fn share(op: ShareOp, key: u64, bytes: u64, place: Place, exporter: Option<u32>) {
    if let Some(o) = OBSERVER.get() {
        o.share(op, key, bytes, place, exporter);
    }
}

/// Reports a hazard.
pub(crate) fn hazard(h: &Hazard) {
    if let Some(o) = OBSERVER.get() {
        o.hazard(h);
    }
}
