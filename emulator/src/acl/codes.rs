//! Where a core error becomes an ACL code and a rule (acl.md §3 and §4). The
//! same meaning carries different codes in different calls, so the table is
//! by operation. This is the only place core errors get numbers.

use vmmkit_sys::acl::AclError;

use crate::core::CoreError;

/// The ACL operations that reach the core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    MallocPhysical,
    FreePhysical,
    Reserve,
    Release,
    MapMem,
    UnmapMem,
    SetAccess,
    GetAccess,
    Export,
    SetPid,
    Import,
    Retain,
    Copy,
    Malloc,
    Free,
    Query,
}

/// The code and rule of a core error in `op`.
pub(super) fn code_for(op: Op, err: &CoreError) -> (AclError, Option<&'static str>) {
    use CoreError::*;
    use Op::*;
    let (code, rule) = match (op, err) {
        (_, Unavailable(_)) => return (AclError::RT_NO_DEVICE, None),
        (_, Injected(c)) => return (AclError(*c as i32), None),
        (MallocPhysical, SizeNotAligned { .. }) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-MP-013"),
        (MallocPhysical | Malloc, OutOfMemory { .. } | HostExhausted(_)) => {
            (AclError::RT_MEMORY_ALLOCATION, "ACL-MP-015")
        }
        (FreePhysical, UnknownHandle(_)) => (AclError::RT_PARAM_INVALID, "ACL-FP-004"),
        (FreePhysical, OnlyMappingRefs(_)) => (AclError::RT_PARAM_INVALID, "ACL-FP-003"),
        (Reserve, AlreadyMapped { .. }) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-RSV-006"),
        (Reserve, HostExhausted(_)) => (AclError::RT_MEMORY_ALLOCATION, "ACL-RSV-009"),
        (Release, NotReservationStart(_)) => (AclError::RT_PARAM_INVALID, "ACL-REL-002"),
        (Free, NotReservationStart(_)) => (AclError::RT_PARAM_INVALID, "ACL-REL-003"),
        (MapMem, UnknownHandle(_)) => (AclError::RT_PARAM_INVALID, "ACL-MAP-005"),
        (MapMem, NotReserved(_)) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-MAP-006"),
        (MapMem, Misaligned { .. }) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-MAP-007"),
        (MapMem, PastReservationEnd { .. }) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-MAP-008"),
        (MapMem, AlreadyMapped { .. }) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-MAP-009"),
        (MapMem, WrongDevice { .. }) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-MAP-010"),
        (MapMem, SizeMismatch { .. }) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-MAP-012"),
        (UnmapMem, NotMapped(_)) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-UNMAP-002"),
        (SetAccess, NotMapped(_)) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-ACC-005"),
        (SetAccess, AccessConflict(_)) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-ACC-007"),
        (GetAccess, NotMapped(_)) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-ACC-010"),
        (Export, UnknownHandle(_)) => (AclError::RT_PARAM_INVALID, "ACL-EXP-006"),
        (Export, ImportedNotExportable(_)) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-EXP-007"),
        (Export, AlreadyExported { .. }) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-EXP-008"),
        (SetPid, UnknownShareable(_)) => (AclError::RT_INVALID_HANDLE, "ACL-PID-005"),
        (SetPid, NotExporter(_)) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-PID-006"),
        (SetPid, TrustlistDisabled(_)) => (AclError::RT_NO_PERMISSION, "ACL-PID-007"),
        (SetPid, NoPids) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-PID-008"),
        (SetPid, TrustlistFull(_)) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-PID-004"),
        (Import, UnknownShareable(_)) => (AclError::RT_INVALID_HANDLE, "ACL-IMP-007"),
        (Import, ShareableReleasing(_)) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-IMP-018"),
        (Import, SameProcessImport { .. }) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-IMP-009"),
        (Import, NotTrusted { stale: false, .. }) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-IMP-011"),
        (Import, NotTrusted { stale: true, .. }) => (AclError::RT_DRV_INTERNAL_ERROR, "ACL-IMP-012"),
        (Import, HostExhausted(_) | OutOfMemory { .. }) => (AclError::RT_MEMORY_ALLOCATION, "ACL-IMP-020"),
        (Retain, NotMapped(_)) => (AclError::RT_PARAM_INVALID, "ACL-RET-001"),
        (Query, NotMapped(_)) => return (AclError::RT_PARAM_INVALID, None),
        (Copy, BadDeviceRange { .. }) => return (AclError::RT_PARAM_INVALID, None),
        (_, HostExhausted(_) | OutOfMemory { .. }) => return (AclError::RT_MEMORY_ALLOCATION, None),
        (_, UnknownHandle(_)) => return (AclError::RT_PARAM_INVALID, None),
        _ => return (AclError::RT_DRV_INTERNAL_ERROR, None),
    };
    (code, Some(rule))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Place;

    #[test]
    fn one_meaning_different_codes() {
        // Not a reservation start: 107000 from release, "not mapped" 507899 from unmap.
        assert_eq!(code_for(Op::Release, &CoreError::NotReservationStart(1)).0, AclError::RT_PARAM_INVALID);
        assert_eq!(code_for(Op::UnmapMem, &CoreError::NotMapped(1)).0, AclError::RT_DRV_INTERNAL_ERROR);
        assert_eq!(code_for(Op::Retain, &CoreError::NotMapped(1)).0, AclError::RT_PARAM_INVALID);
        let stale = CoreError::NotTrusted { key: 1, pid: 2, stale: true };
        assert_eq!(code_for(Op::Import, &stale), (AclError::RT_DRV_INTERNAL_ERROR, Some("ACL-IMP-012")));
        let same = CoreError::SameProcessImport { key: 1, place: Place::Device(0) };
        assert_eq!(code_for(Op::Import, &same).1, Some("ACL-IMP-009"));
    }
}
