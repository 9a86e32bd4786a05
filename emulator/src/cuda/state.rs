//! What the CUDA driver keeps for the whole process: one value, held by the
//! emulator (`core::dialect`). The current context is per thread, as in
//! CUDA (`context`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::config::MAX_DEVICES;

use crate::core::{Emulator, StreamId};

/// The CUDA state of one process.
#[derive(Debug, Default)]
pub(super) struct State {
    /// Whether cuInit succeeded in this process. Process-wide, as in the driver.
    pub initialised: AtomicBool,
    /// Retains of each device's primary context by this process (the
    /// driver's reference count, process-wide). A device at 0 has no active
    /// primary context. Atomics, not a locked map: every call that needs a
    /// context reads its device's (`context::current`).
    primary: Retains,
    /// The priority of each stream of cuStreamCreateWithPriority ([CUDA-STM-009](vmmkit_sys::cuda::rules::STM_009)).
    priorities: Mutex<HashMap<StreamId, i32>>,
}

/// The CUDA state of the process whose emulator is `e`.
pub(super) fn state(e: &Emulator) -> &State {
    e.dialect_state()
}

/// One retain count per device the emulator may have.
#[derive(Debug)]
struct Retains([AtomicU32; MAX_DEVICES as usize]);

impl Default for Retains {
    fn default() -> Self {
        Self(std::array::from_fn(|_| AtomicU32::new(0)))
    }
}

impl State {
    fn retain_count(&self, device: u32) -> Option<&AtomicU32> {
        self.primary.0.get(device as usize)
    }

    /// Device `device`'s primary context's retains (0 for a device out of range).
    pub fn retains(&self, device: u32) -> u32 {
        self.retain_count(device).map_or(0, |n| n.load(Ordering::Acquire))
    }

    /// One more retain of `device`'s primary context.
    pub fn retain(&self, device: u32) {
        if let Some(n) = self.retain_count(device) {
            n.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// One retain less: `Some(true)` when it was the last, `None` when
    /// there was none.
    pub fn release(&self, device: u32) -> Option<bool> {
        let n = self.retain_count(device)?;
        n.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1)).ok().map(|was| was == 1)
    }

    /// The streams' priorities, locked (as [`State::primary`]).
    pub fn priorities(&self) -> MutexGuard<'_, HashMap<StreamId, i32>> {
        self.priorities.lock().unwrap_or_else(|p| p.into_inner())
    }
}
