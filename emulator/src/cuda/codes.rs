//! Where a core error becomes a CUDA code and a rule (cuda.md §2.4 and §3).
//! The same meaning carries different codes in different calls, so the table
//! is by operation. This is the only place core errors get numbers.

use vmmkit_sys::cuda::CuResult;

use crate::core::CoreError;

/// The CUDA operations that reach the core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Alloc,
    Free,
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
pub(super) fn code_for(op: Op, err: &CoreError) -> (CuResult, Option<&'static str>) {
    use CoreError::*;
    use Op::*;
    let (code, rule) = match (op, err) {
        // cuda.md §1.1: a driver that cannot start is "no device".
        (_, Unavailable(_)) => return (CuResult::NO_DEVICE, None),
        (_, Injected(c)) => return (CuResult(*c as u32), None),
        // cuMemAlloc: too big → 2 (the documented code; no catalog id).
        (Alloc, OutOfMemory { .. } | HostExhausted(_) | SizeNotAligned { .. }) => {
            return (CuResult::OUT_OF_MEMORY, None);
        }
        (Free, NotReservationStart(_) | NotMapped(_)) => return (CuResult::INVALID_VALUE, None),
        (Copy, BadDeviceRange { .. }) => return (CuResult::INVALID_VALUE, None),
        (IpcGet, NotMapped(_)) => (CuResult::INVALID_VALUE, "CUDA-IPC-001"),
        // An IPC handle that names no live allocation: cuIpcOpenMemHandle's
        // documented CUDA_ERROR_INVALID_HANDLE (emulator choice; no catalog id).
        (IpcOpen, UnknownShareable(_) | ShareableReleasing(_) | NotTrusted { .. }) => {
            return (CuResult::INVALID_HANDLE, None);
        }
        (IpcOpen, SameProcessImport { .. }) => (CuResult::INVALID_CONTEXT, "CUDA-IPC-005"),
        (IpcClose, NotMapped(_)) => (CuResult::INVALID_VALUE, "CUDA-IPC-009"),
        (Create, SizeNotAligned { .. }) => (CuResult::INVALID_VALUE, "CUDA-VMM-002"),
        (Create, OutOfMemory { .. } | HostExhausted(_)) => return (CuResult::OUT_OF_MEMORY, None),
        (Release, UnknownHandle(_) | OnlyMappingRefs(_)) => (CuResult::INVALID_VALUE, "CUDA-VMM-005"),
        // cuMemAddressReserve documents CUDA_ERROR_OUT_OF_MEMORY for a range it cannot place.
        (Reserve, HostExhausted(_) | AlreadyMapped { .. }) => return (CuResult::OUT_OF_MEMORY, None),
        (AddressFree, NotReservationStart(_)) => (CuResult::INVALID_VALUE, "CUDA-VMM-007"),
        (Map, AlreadyMapped { .. }) => (CuResult::INVALID_VALUE, "CUDA-VMM-010"),
        (
            Map,
            UnknownHandle(_)
            | NotReserved(_)
            | Misaligned { .. }
            | PastReservationEnd { .. }
            | SizeMismatch { .. }
            | WrongDevice { .. },
        ) => (CuResult::INVALID_VALUE, "CUDA-VMM-008"),
        (Unmap, NotMapped(_)) => (CuResult::INVALID_VALUE, "CUDA-VMM-011"),
        (SetAccess, NotMapped(_)) => (CuResult::INVALID_VALUE, "CUDA-VMM-013"),
        (GetAccess, NotMapped(_)) => return (CuResult::INVALID_VALUE, None),
        (Export, UnknownHandle(_) | ShareableReleasing(_)) => return (CuResult::INVALID_VALUE, None),
        (Import, UnknownShareable(_) | ShareableReleasing(_) | Os(_)) => {
            return (CuResult::INVALID_VALUE, None);
        }
        (Retain, NotMapped(_) | UnknownHandle(_)) => (CuResult::INVALID_VALUE, "CUDA-VMM-019"),
        (Query, UnknownHandle(_)) => return (CuResult::INVALID_VALUE, None),
        (_, OutOfMemory { .. } | HostExhausted(_)) => return (CuResult::OUT_OF_MEMORY, None),
        (_, UnknownHandle(_) | NotMapped(_)) => return (CuResult::INVALID_VALUE, None),
        _ => return (CuResult::UNKNOWN, None),
    };
    (code, Some(rule))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Place;

    #[test]
    fn one_meaning_different_codes() {
        // Not mapped: 1 everywhere, under the rule of the call.
        assert_eq!(code_for(Op::Unmap, &CoreError::NotMapped(1)), (CuResult::INVALID_VALUE, Some("CUDA-VMM-011")));
        assert_eq!(code_for(Op::IpcClose, &CoreError::NotMapped(1)).1, Some("CUDA-IPC-009"));
        // An unknown key: 400 from an IPC open, 1 from a VMM import.
        let unknown = CoreError::UnknownShareable(5);
        assert_eq!(code_for(Op::IpcOpen, &unknown).0, CuResult::INVALID_HANDLE);
        assert_eq!(code_for(Op::Import, &unknown).0, CuResult::INVALID_VALUE);
        let same = CoreError::SameProcessImport { key: 1, place: Place::Device(0) };
        assert_eq!(code_for(Op::IpcOpen, &same), (CuResult::INVALID_CONTEXT, Some("CUDA-IPC-005")));
        // A size off the granularity: 1 from cuMemCreate, 2 never.
        let misaligned = CoreError::SizeNotAligned { size: 1, granule: 2 };
        assert_eq!(code_for(Op::Create, &misaligned), (CuResult::INVALID_VALUE, Some("CUDA-VMM-002")));
        // Out of memory is 2 everywhere.
        let oom = CoreError::OutOfMemory { device: 0, requested: 1, used: 0, capacity: 0 };
        assert_eq!(code_for(Op::Alloc, &oom).0, CuResult::OUT_OF_MEMORY);
        assert_eq!(code_for(Op::Create, &oom).0, CuResult::OUT_OF_MEMORY);
        // Mapping over a mapping is its own (undetermined) rule.
        let over = CoreError::AlreadyMapped { addr: 0, size: 1, existing: 0 };
        assert_eq!(code_for(Op::Map, &over).1, Some("CUDA-VMM-010"));
    }
}
