//! What ACL keeps for the whole process, as CANN does: one value, held by
//! the emulator (`core::dialect`). The current device is per thread
//! (`core::thread`), as in CANN.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, MutexGuard};

use crate::core::Emulator;

/// The ACL state of one process.
#[derive(Debug, Default)]
pub(super) struct State {
    /// Whether aclInit has run (and aclFinalize not since). Process-wide, as in CANN.
    pub initialised: AtomicBool,
    /// Per device, how many aclrtSetDevice calls of this process are not yet
    /// matched by aclrtResetDevice (the runtime's reference-counted reset).
    pub device_refs: Mutex<HashMap<u32, u32>>,
    /// Streams of this process: the opaque values aclrtCreateStream handed
    /// out (`STREAM_BASE` + the core's stream number).
    pub streams: Mutex<HashSet<usize>>,
    /// Per device, the default stream (what a NULL `aclrtStream` names), made at first use.
    pub default_streams: Mutex<HashMap<u32, crate::core::StreamId>>,
    /// Events of this process: the opaque values handed out (`EVENT_BASE` +
    /// the core's event number), each with whether it is of the "new mode"
    /// (made by aclrtCreateEventExWithFlag, or opened from another process).
    pub events: Mutex<HashMap<usize, bool>>,
    /// Issue 18, memory: registered host ranges, managed memory, allocators, mbufs.
    pub memory: super::mem_alloc::MemState,
}

/// The ACL state of the process whose emulator is `e`.
pub(super) fn state(e: &Emulator) -> &State {
    e.dialect_state()
}

/// `m` locked. A panic while it was held (caught at the FFI edge) left the
/// value as it was at that point; it stays usable.
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
