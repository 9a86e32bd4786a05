//! The leak report: what a process never released, with the entry point that
//! created each. `VMMKIT_LEAK_REPORT=1` prints it to stderr when the process
//! exits (the exit status is unchanged); [`report`] returns it at any time.

pub use crate::core::{Leak, LeakKind as Kind};

/// What this process holds now. Empty if the emulator never started.
pub fn report() -> Vec<Leak> {
    crate::core::running().and_then(crate::core::Emulator::leaks).unwrap_or_default()
}
