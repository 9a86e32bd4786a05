//! HIP checks, one module per API family (as the catalog's groups).
//!
//! Each check sets up what it needs through the table, provokes exactly its
//! rule, compares the exact code with the catalog's for the profile the backend
//! reports (6.x or 7.x, hip.md),
//! and where the reference says the state is unchanged, shows that a valid
//! call still works. The multi-process rules run with HIP peers
//! (`across`, `crate::hip::peer`).
#![forbid(unsafe_code)]

pub mod across;
pub mod copy;
pub mod device;
pub mod errors;
pub mod event;
pub mod fork;
pub mod graph;
pub mod ipc;
pub mod mem;
pub mod pool;
pub mod share;
pub mod stream;
pub mod vmm;

use crate::hip::Ctx;
use crate::outcome::Failure;

/// [HIP-INIT-001](vmmkit_sys::hip::rules::INIT_001): provoked by a runtime that cannot start, which a running backend is not.
pub fn runtime_cannot_start(_: &mut Ctx) -> Result<(), Failure> {
    Err(Failure::NotSupported(
        "needs a runtime that cannot start; the backend under test has started (emulator/tests/hip_errors.rs)".into(),
    ))
}
