//! The leak report: what a process never released, with the entry point that
//! created each. `VMMKIT_LEAK_REPORT=1` prints it to stderr when the process
//! exits (the exit status is unchanged); [`report`] returns it at any time.

use std::fmt;

/// What kind of object was left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A physical-memory handle made here and never freed.
    Physical,
    /// An exported handle never freed (its shareable handle stays valid).
    Export,
    /// An imported handle never freed.
    Import,
    /// A reservation never released.
    Reservation,
    /// A mapping never unmapped.
    Mapping,
    /// A plain device allocation (aclrtMalloc, hipMalloc) never freed.
    Allocation,
}

/// One object the process still holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leak {
    /// Its kind.
    pub kind: Kind,
    /// Address or handle, size, device.
    pub what: String,
    /// The entry point that created it (e.g. `aclrtMallocPhysical`).
    pub created_by: &'static str,
}

impl fmt::Display for Leak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let by = if self.created_by.is_empty() { "(not through an entry point)" } else { self.created_by };
        write!(f, "{:?} {} from {by}", self.kind, self.what)
    }
}

/// What this process holds now. Empty if the emulator never started.
pub fn report() -> Vec<Leak> {
    crate::core::emulator().ok().and_then(|e| e.leaks()).unwrap_or_default()
}

/// Prints the report to stderr at exit.
pub(crate) fn report_at_exit() {
    extern "C" fn at_exit() {
        let leaks = report();
        if leaks.is_empty() {
            eprintln!("vmmkit: leak report: nothing left unreleased");
            return;
        }
        eprintln!("vmmkit: leak report: {} object(s) never released:", leaks.len());
        for l in leaks {
            eprintln!("vmmkit:   {l}");
        }
    }
    // SAFETY: `at_exit` is a plain function with no arguments that touches no
    // thread-local state; registering it has no other effect.
    let _ = unsafe { libc::atexit(at_exit) };
}
