//! What the example vendor keeps per process (feature `example-vendor`):
//! whether `exInit` succeeded. One value, held by the emulator (`core::dialect`).

use std::sync::atomic::{AtomicBool, Ordering};

use crate::core::Emulator;

/// The example dialect's state of one process.
#[derive(Debug, Default)]
pub(super) struct State {
    initialised: AtomicBool,
}

impl State {
    /// Whether exInit succeeded in this process.
    pub fn initialised(&self) -> bool {
        self.initialised.load(Ordering::Acquire)
    }

    /// Notes that exInit succeeded.
    pub fn set_initialised(&self) {
        self.initialised.store(true, Ordering::Release);
    }
}

/// The example state of the process whose emulator is `e`.
pub(super) fn state(e: &Emulator) -> &State {
    e.dialect_state()
}
