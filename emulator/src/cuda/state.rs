//! What the CUDA driver keeps for the whole process: one value, held by the
//! emulator (`core::dialect`). The current context is per thread, as in
//! CUDA (`context`).

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, MutexGuard};

use crate::core::{Emulator, StreamId};

/// The CUDA state of one process.
#[derive(Debug, Default)]
pub(super) struct State {
    /// Whether cuInit succeeded in this process. Process-wide, as in the driver.
    pub initialised: AtomicBool,
    /// Retains of each device's primary context by this process (the
    /// driver's reference count, process-wide). A device absent or at 0 has
    /// no active primary context.
    primary: Mutex<HashMap<u32, u32>>,
    /// The priority of each stream of cuStreamCreateWithPriority (CUDA-STM-009).
    priorities: Mutex<HashMap<StreamId, i32>>,
}

/// The CUDA state of the process whose emulator is `e`.
pub(super) fn state(e: &Emulator) -> &State {
    e.dialect_state()
}

impl State {
    /// The primary contexts' retain counts, locked. A panic while they were
    /// held (caught at the FFI edge) left them as they were; they stay usable.
    pub fn primary(&self) -> MutexGuard<'_, HashMap<u32, u32>> {
        self.primary.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The streams' priorities, locked (as [`State::primary`]).
    pub fn priorities(&self) -> MutexGuard<'_, HashMap<StreamId, i32>> {
        self.priorities.lock().unwrap_or_else(|p| p.into_inner())
    }
}
