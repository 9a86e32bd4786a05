//! Rules that no call sequence can provoke on a normal machine: each check
//! is not-supported with the precise reason, never a silent pass.

use crate::acl::Ctx;
use crate::outcome::Failure;

fn unreachable(reason: &str) -> Result<(), Failure> {
    Err(Failure::NotSupported(reason.into()))
}

/// [ACL-GEN-009](vmmkit_sys::acl::rules::GEN_009).
pub fn compute_group_mode(_cx: &mut Ctx) -> Result<(), Failure> {
    unreachable(
        "needs a device in compute-group (split) mode or a virtual instance, which no ACL call can set up (and the \
         emulator does not model)",
    )
}

/// [ACL-GEN-010](vmmkit_sys::acl::rules::GEN_010).
pub fn chip_simulator(_cx: &mut Ctx) -> Result<(), Failure> {
    unreachable("needs the chip simulator (C-model driver stub) as the backend; no backend of vmmkit is one")
}

/// [ACL-EXP-009](vmmkit_sys::acl::rules::EXP_009).
pub fn trustlist_switch_missing(_cx: &mut Ctx) -> Result<(), Failure> {
    unreachable(
        "needs a driver without the trustlist switch (DISABLE_PID_VALIDATION); every emulated and current driver has \
         it",
    )
}

/// [ACL-IMP-018](vmmkit_sys::acl::rules::IMP_018).
pub fn teardown_race(_cx: &mut Ctx) -> Result<(), Failure> {
    unreachable(
        "needs an import while the last holder's release is in progress inside the driver; no API call holds that \
         window open, so it cannot be arranged deterministically",
    )
}

/// [ACL-IMP-020](vmmkit_sys::acl::rules::IMP_020).
pub fn bookkeeping_oom(_cx: &mut Ctx) -> Result<(), Failure> {
    unreachable(
        "needs the kernel to run out of memory for import bookkeeping (not device memory); this cannot be provoked \
         through the API",
    )
}

/// [ACL-IMP-021](vmmkit_sys::acl::rules::IMP_021).
pub fn kernel_repeat_import(_cx: &mut Ctx) -> Result<(), Failure> {
    unreachable(
        "unreachable through ACL: the runtime's import cache answers a repeated import itself (ACL-IMP-014), so the \
         kernel never sees it",
    )
}
