//! Where a core error becomes an ACL code and a rule (acl.md §3 and §4). The
//! same meaning carries different codes in different calls, so the table is
//! by operation. This is the only place core errors get numbers.

use vmmkit_sys::acl::{AclError, rules};
use vmmkit_sys::rule::Rule;
use vmmkit_sys::vendor::Acl;

use crate::core::CoreError;
use crate::dialect::{Dialect, by_rule};

/// The ACL operations that reach the core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
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

impl Dialect for Acl {
    type Op = Op;
    const PANIC: AclError = AclError::RT_DRV_INTERNAL_ERROR;
    const NULL: AclError = AclError::INVALID_PARAM;

    /// The code and rule of a core error in `op`.
    fn code_for(op: Op, err: &CoreError) -> (AclError, Option<&'static Rule>) {
        use CoreError::*;
        use Op::*;
        match (op, err) {
            (_, Unavailable(_)) => (AclError::RT_NO_DEVICE, None),
            (_, Injected(c)) => (AclError(*c as i32), None),
            // VMMKIT_HAZARDS=error: an unsynchronised access fails the racing call
            // with ACL_ERROR_RT_STREAM_NOT_COMPLETE (507004). vmmkit's own behaviour, no vendor's (docs/streams.md;
            // emulator choice, no catalog id).
            (_, Unsynchronised(_)) => (AclError::RT_STREAM_NOT_COMPLETE, None),
            (MallocPhysical, SizeNotAligned { .. }) => by_rule(&rules::MP_013),
            (MallocPhysical | Malloc, OutOfMemory { .. } | HostExhausted(_)) => by_rule(&rules::MP_015),
            (FreePhysical, UnknownHandle(_)) => by_rule(&rules::FP_004),
            (FreePhysical, OnlyMappingRefs(_)) => by_rule(&rules::FP_003),
            (Reserve, AlreadyMapped { .. }) => by_rule(&rules::RSV_006),
            (Reserve, HostExhausted(_)) => by_rule(&rules::RSV_009),
            (Release, NotReservationStart(_)) => by_rule(&rules::REL_002),
            (Free, NotReservationStart(_)) => by_rule(&rules::REL_003),
            (MapMem, UnknownHandle(_)) => by_rule(&rules::MAP_005),
            (MapMem, NotReserved(_)) => by_rule(&rules::MAP_006),
            (MapMem, Misaligned { .. }) => by_rule(&rules::MAP_007),
            (MapMem, PastReservationEnd { .. }) => by_rule(&rules::MAP_008),
            (MapMem, AlreadyMapped { .. }) => by_rule(&rules::MAP_009),
            (MapMem, WrongDevice { .. }) => by_rule(&rules::MAP_010),
            (MapMem, SizeMismatch { .. }) => by_rule(&rules::MAP_012),
            (UnmapMem, NotMapped(_)) => by_rule(&rules::UNMAP_002),
            (SetAccess, NotMapped(_)) => by_rule(&rules::ACC_005),
            (SetAccess, AccessConflict(_)) => by_rule(&rules::ACC_007),
            (GetAccess, NotMapped(_)) => by_rule(&rules::ACC_010),
            (Export, UnknownHandle(_)) => by_rule(&rules::EXP_006),
            (Export, ImportedNotExportable(_)) => by_rule(&rules::EXP_007),
            (Export, AlreadyExported { .. }) => by_rule(&rules::EXP_008),
            (SetPid, UnknownShareable(_)) => by_rule(&rules::PID_005),
            (SetPid, NotExporter(_)) => by_rule(&rules::PID_006),
            (SetPid, TrustlistDisabled(_)) => by_rule(&rules::PID_007),
            (SetPid, NoPids) => by_rule(&rules::PID_008),
            (SetPid, TrustlistFull(_)) => by_rule(&rules::PID_004),
            (Import, UnknownShareable(_)) => by_rule(&rules::IMP_007),
            (Import, ShareableReleasing(_)) => by_rule(&rules::IMP_018),
            (Import, SameProcessImport { .. }) => by_rule(&rules::IMP_009),
            (Import, NotTrusted { stale: false, .. }) => by_rule(&rules::IMP_011),
            (Import, NotTrusted { stale: true, .. }) => by_rule(&rules::IMP_012),
            (Import, HostExhausted(_) | OutOfMemory { .. }) => by_rule(&rules::IMP_020),
            (Retain, NotMapped(_)) => by_rule(&rules::RET_001),
            (Query, NotMapped(_)) => by_rule(&rules::QRY_001),
            (Copy, BadDeviceRange { .. }) => (AclError::RT_PARAM_INVALID, None),
            (Copy, NotAddressable { .. }) => by_rule(&rules::CPY_007),
            (_, HostExhausted(_) | OutOfMemory { .. }) => (AclError::RT_MEMORY_ALLOCATION, None),
            (_, UnknownHandle(_)) => (AclError::RT_PARAM_INVALID, None),
            _ => (AclError::RT_DRV_INTERNAL_ERROR, None),
        }
    }

    /// Keeps the thread's last error for aclrtGetLastError / aclrtPeekAtLastError.
    fn returned(code: AclError) {
        super::call::note_code(code);
    }

    // A forked child ([`crate::fork`]).
    const FORK_RULE: &'static Rule = &rules::FORK_001;
    const STATELESS: &'static [&'static str] = &["aclrtGetVersion"];
}

crate::dialect::code_table_test!(
    Acl,
    // Not a reservation start: 107000 from release, "not mapped" 507899 from unmap.
    (Op::Release, CoreError::NotReservationStart(1), Code(AclError::RT_PARAM_INVALID)),
    (Op::UnmapMem, CoreError::NotMapped(1), Code(AclError::RT_DRV_INTERNAL_ERROR)),
    (Op::Retain, CoreError::NotMapped(1), Code(AclError::RT_DRV_INTERNAL_ERROR)),
    (
        Op::Import,
        CoreError::NotTrusted { key: 1, pid: 2, stale: true },
        Both(AclError::RT_DRV_INTERNAL_ERROR, &rules::IMP_012),
    ),
    (Op::Import, CoreError::SameProcessImport { key: 1, place: Place::Device(0) }, Rule(&rules::IMP_009)),
    // Out of memory in an allocation: ACL-MP-015.
    (Op::MallocPhysical, out_of_memory(), Rule(&rules::MP_015)),
);
