//! The leak report: what a process never released, with the entry point that
//! created each. `VMMKIT_LEAK_REPORT=1` prints it to stderr when the process
//! exits (the exit status is unchanged); [`report`] returns it at any time.

pub use crate::core::{Leak, LeakKind as Kind};

/// What this process holds now. Empty if the emulator never started, and in
/// a process forked after it started: the tables it inherited hold its
/// parent's objects, which are the parent's to release ([`crate::fork`]).
pub fn report() -> Vec<Leak> {
    if crate::core::is_fork_of_started() {
        return Vec::new();
    }
    crate::core::running().and_then(crate::core::Emulator::leaks).unwrap_or_default()
}
