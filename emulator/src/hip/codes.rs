//! Where a core error becomes a HIP code and a rule (hip.md §3.1 and §4).
//! The same meaning carries different codes in different calls, so the table
//! is by operation. This is the only place core errors get numbers.

use vmmkit_sys::hip::{HipError, rules};
use vmmkit_sys::rule::Rule;
use vmmkit_sys::vendor::Hip;

use crate::core::CoreError;
use crate::dialect::{Dialect, by_rule_code};

/// The rule's main code under the process's version profile, with the rule.
fn by_rule(rule: &'static Rule) -> (HipError, Option<&'static Rule>) {
    (super::profile::main_code(rule), Some(rule))
}

/// The HIP operations that reach the core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Malloc,
    Free,
    HostMalloc,
    Copy,
    IpcGet,
    IpcOpen,
    IpcClose,
    Create,
    Release,
    Reserve,
    AddressFree,
    Map,
    Unmap,
    SetAccess,
    GetAccess,
    Export,
    Import,
    Retain,
    Query,
}

impl Dialect for Hip {
    type Op = Op;
    const PANIC: HipError = HipError::UNKNOWN;
    const NULL: HipError = HipError::INVALID_VALUE;

    /// The code and rule of a core error in `op`.
    fn code_for(op: Op, err: &CoreError) -> (HipError, Option<&'static Rule>) {
        use CoreError::*;
        use Op::*;
        match (op, err) {
            (_, Unavailable(_)) => by_rule(&rules::INIT_001),
            (_, Injected(c)) => (HipError(*c as i32), None),
            // VMMKIT_HAZARDS=error: an unsynchronised access fails the racing call
            // with hipErrorIllegalState (401). vmmkit's own behaviour, no vendor's (docs/streams.md;
            // emulator choice, no catalog id).
            (_, Unsynchronised(_)) => (HipError::ILLEGAL_STATE, None),
            // hip.md §2.1: hipMalloc/hipHostMalloc too big → 2 (no catalog id).
            (Malloc | HostMalloc, OutOfMemory { .. } | HostExhausted(_) | SizeNotAligned { .. }) => {
                (HipError::OUT_OF_MEMORY, None)
            }
            (Free, NotReservationStart(_) | NotMapped(_)) => (HipError::INVALID_VALUE, None),
            (Copy, BadDeviceRange { .. }) => (HipError::INVALID_VALUE, None),
            (Copy, NotAddressable { .. }) => by_rule(&rules::CPY_002),
            (IpcGet, NotMapped(_)) => by_rule(&rules::IPC_002),
            (IpcOpen, UnknownShareable(_) | ShareableReleasing(_) | NotTrusted { .. }) => by_rule(&rules::IPC_025),
            (IpcOpen, SameProcessImport { .. }) => by_rule(&rules::IPC_024),
            (IpcClose, NotMapped(0)) => by_rule(&rules::IPC_040),
            (IpcClose, NotMapped(_)) => by_rule(&rules::IPC_041),
            (Create, OutOfMemory { .. } | HostExhausted(_)) => by_rule(&rules::VMM_005),
            (Release, UnknownHandle(0)) => by_rule(&rules::VMM_007),
            (Release, UnknownHandle(_) | OnlyMappingRefs(_)) => by_rule(&rules::VMM_009),
            // HIP-VMM-011/012, profile 6.x: 2 (hipErrorMemoryAllocation).
            (Reserve, HostExhausted(_) | AlreadyMapped { .. }) => {
                by_rule_code(&rules::VMM_012, HipError::OUT_OF_MEMORY)
            }
            (AddressFree, NotReservationStart(_)) => by_rule(&rules::VMM_013),
            (
                Map,
                UnknownHandle(_)
                | NotReserved(_)
                | Misaligned { .. }
                | PastReservationEnd { .. }
                | AlreadyMapped { .. }
                | SizeMismatch { .. }
                | WrongDevice { .. },
            ) => by_rule(&rules::VMM_015),
            (Unmap, NotMapped(_)) => by_rule(&rules::VMM_019),
            (SetAccess, NotMapped(_)) => by_rule(&rules::VMM_021),
            (GetAccess, NotMapped(_)) => by_rule(&rules::VMM_022),
            (Export, UnknownHandle(_)) => by_rule(&rules::VMM_024),
            (Import, UnknownShareable(_) | ShareableReleasing(_)) => by_rule(&rules::VMM_027),
            (Retain, NotMapped(_) | UnknownHandle(_)) => by_rule(&rules::VMM_033),
            (Query, UnknownHandle(_)) => by_rule(&rules::VMM_032),
            (_, OutOfMemory { .. } | HostExhausted(_)) => (HipError::OUT_OF_MEMORY, None),
            (_, UnknownHandle(_) | NotMapped(_)) => (HipError::INVALID_VALUE, None),
            _ => (HipError::UNKNOWN, None),
        }
    }

    /// Profile 6.x (hip.md §2.1, the reference's default): every call
    /// stores its code, success included, so a failure followed by a
    /// success reads 0.
    fn returned(code: HipError) {
        super::call::set_last_error(code);
    }

    // A forked child ([`crate::fork`]).
    const FORK_RULE: &'static Rule = &rules::FORK_001;
    const STATELESS: &'static [&'static str] = &["hipDriverGetVersion", "hipRuntimeGetVersion"];
}

crate::dialect::code_table_test!(
    Hip,
    // Not mapped: 1 from Unmap (HIP-VMM-019), 1 from Close but under HIP-IPC-041.
    (Op::Unmap, CoreError::NotMapped(1), Both(HipError::INVALID_VALUE, &rules::VMM_019)),
    (Op::IpcClose, CoreError::NotMapped(1), Rule(&rules::IPC_041)),
    // An unknown key: 17 from an IPC open, 1 from a VMM import.
    (Op::IpcOpen, CoreError::UnknownShareable(5), Code(HipError::INVALID_DEVICE_POINTER)),
    (Op::Import, CoreError::UnknownShareable(5), Code(HipError::INVALID_VALUE)),
    (
        Op::IpcOpen,
        CoreError::SameProcessImport { key: 1, place: Place::Device(0) },
        Both(HipError::INVALID_CONTEXT, &rules::IPC_024),
    ),
    // Out of memory is 2 everywhere.
    (Op::Malloc, out_of_memory(), Code(HipError::OUT_OF_MEMORY)),
    (Op::Create, out_of_memory(), Both(HipError::OUT_OF_MEMORY, &rules::VMM_005)),
);
