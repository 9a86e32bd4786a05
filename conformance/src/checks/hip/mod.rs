//! HIP checks, one module per API family (as the catalog's groups).
//!
//! Each check sets up what it needs through the table, provokes exactly its
//! rule, compares the exact code with the catalog's (profile 6.x, hip.md),
//! and where the reference says the state is unchanged, shows that a valid
//! call still works. Only rules that one process can provoke are here; the
//! multi-process IPC rules are exercised by the emulator's and the drop-in
//! library's own tests.
#![forbid(unsafe_code)]

pub mod errors;
pub mod ipc;
pub mod share;
pub mod vmm;

use crate::hip::Ctx;
use crate::outcome::Failure;

/// The check of the catalog's defaults: a rule that did not name its own
/// check fails with this, so it cannot pass unnoticed.
pub fn missing_check(cx: &mut Ctx) -> Result<(), Failure> {
    Err(Failure::Mismatch {
        step: format!("check of {}", cx.rule().id),
        expected: "a check written for this rule".into(),
        got: "suite defect: the catalog entry names no check".into(),
    })
}
