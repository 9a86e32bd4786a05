//! Where a core error becomes a HIP code and a rule (hip.md §3.1 and §4).
//! The same meaning carries different codes in different calls, so the table
//! is by operation. This is the only place core errors get numbers.

use vmmkit_sys::hip::HipError;

use crate::core::CoreError;

/// The HIP operations that reach the core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
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

/// The code and rule of a core error in `op`.
pub(super) fn code_for(op: Op, err: &CoreError) -> (HipError, Option<&'static str>) {
    use CoreError::*;
    use Op::*;
    let (code, rule) = match (op, err) {
        (_, Unavailable(_)) => return (HipError::INVALID_DEVICE, Some("HIP-INIT-001")),
        (_, Injected(c)) => return (HipError(*c as i32), None),
        // hip.md §2.1: hipMalloc/hipHostMalloc too big → 2 (no catalog id).
        (Malloc | HostMalloc, OutOfMemory { .. } | HostExhausted(_) | SizeNotAligned { .. }) => {
            return (HipError::OUT_OF_MEMORY, None);
        }
        (Free, NotReservationStart(_) | NotMapped(_)) => return (HipError::INVALID_VALUE, None),
        (Copy, BadDeviceRange { .. }) => return (HipError::INVALID_VALUE, None),
        (IpcGet, NotMapped(_)) => (HipError::INVALID_VALUE, "HIP-IPC-002"),
        (IpcOpen, UnknownShareable(_) | ShareableReleasing(_) | NotTrusted { .. }) => {
            (HipError::INVALID_DEVICE_POINTER, "HIP-IPC-025")
        }
        (IpcOpen, SameProcessImport { .. }) => (HipError::INVALID_CONTEXT, "HIP-IPC-024"),
        (IpcClose, NotMapped(0)) => (HipError::INVALID_VALUE, "HIP-IPC-040"),
        (IpcClose, NotMapped(_)) => (HipError::INVALID_VALUE, "HIP-IPC-041"),
        (Create, OutOfMemory { .. } | HostExhausted(_)) => (HipError::OUT_OF_MEMORY, "HIP-VMM-005"),
        (Release, UnknownHandle(0)) => (HipError::INVALID_VALUE, "HIP-VMM-007"),
        (Release, UnknownHandle(_) | OnlyMappingRefs(_)) => (HipError::INVALID_VALUE, "HIP-VMM-009"),
        // HIP-VMM-011/012, profile 6.x: 2 (hipErrorMemoryAllocation).
        (Reserve, HostExhausted(_) | AlreadyMapped { .. }) => (HipError::OUT_OF_MEMORY, "HIP-VMM-012"),
        (AddressFree, NotReservationStart(_)) => (HipError::INVALID_VALUE, "HIP-VMM-013"),
        (
            Map,
            UnknownHandle(_)
            | NotReserved(_)
            | Misaligned { .. }
            | PastReservationEnd { .. }
            | AlreadyMapped { .. }
            | SizeMismatch { .. }
            | WrongDevice { .. },
        ) => (HipError::INVALID_VALUE, "HIP-VMM-015"),
        (Unmap, NotMapped(_)) => (HipError::INVALID_VALUE, "HIP-VMM-019"),
        (SetAccess, NotMapped(_)) => (HipError::INVALID_VALUE, "HIP-VMM-021"),
        (GetAccess, NotMapped(_)) => (HipError::INVALID_VALUE, "HIP-VMM-022"),
        (Export, UnknownHandle(_)) => (HipError::INVALID_VALUE, "HIP-VMM-024"),
        (Import, UnknownShareable(_) | ShareableReleasing(_)) => (HipError::INVALID_VALUE, "HIP-VMM-027"),
        (Retain, NotMapped(_) | UnknownHandle(_)) => (HipError::INVALID_VALUE, "HIP-VMM-033"),
        (Query, UnknownHandle(_)) => (HipError::INVALID_VALUE, "HIP-VMM-032"),
        (_, OutOfMemory { .. } | HostExhausted(_)) => return (HipError::OUT_OF_MEMORY, None),
        (_, UnknownHandle(_) | NotMapped(_)) => return (HipError::INVALID_VALUE, None),
        _ => return (HipError::UNKNOWN, None),
    };
    (code, Some(rule))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Place;

    #[test]
    fn one_meaning_different_codes() {
        // Not mapped: 1 from Unmap (HIP-VMM-019), 1 from Close but under HIP-IPC-041.
        assert_eq!(code_for(Op::Unmap, &CoreError::NotMapped(1)), (HipError::INVALID_VALUE, Some("HIP-VMM-019")));
        assert_eq!(code_for(Op::IpcClose, &CoreError::NotMapped(1)).1, Some("HIP-IPC-041"));
        // An unknown key: 17 from an IPC open, 1 from a VMM import.
        let unknown = CoreError::UnknownShareable(5);
        assert_eq!(code_for(Op::IpcOpen, &unknown).0, HipError::INVALID_DEVICE_POINTER);
        assert_eq!(code_for(Op::Import, &unknown).0, HipError::INVALID_VALUE);
        let same = CoreError::SameProcessImport { key: 1, place: Place::Device(0) };
        assert_eq!(code_for(Op::IpcOpen, &same), (HipError::INVALID_CONTEXT, Some("HIP-IPC-024")));
        // Out of memory is 2 everywhere.
        let oom = CoreError::OutOfMemory { device: 0, requested: 1, used: 0, capacity: 0 };
        assert_eq!(code_for(Op::Malloc, &oom).0, HipError::OUT_OF_MEMORY);
        assert_eq!(code_for(Op::Create, &oom), (HipError::OUT_OF_MEMORY, Some("HIP-VMM-005")));
    }
}
