//! Where a core error becomes a CUDA code and a rule (cuda.md §2.4 and §3).
//! The same meaning carries different codes in different calls, so the table
//! is by operation. This is the only place core errors get numbers.

use vmmkit_sys::cuda::{CuResult, rules};
use vmmkit_sys::rule::Rule;
use vmmkit_sys::vendor::Cuda;

use crate::core::CoreError;
use crate::dialect::{Dialect, by_rule, by_rule_code};

/// The CUDA operations that reach the core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
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
    Stream,
    Event,
    Elapsed,
    IpcEvent,
}

impl Dialect for Cuda {
    type Op = Op;
    const PANIC: CuResult = CuResult::UNKNOWN;
    const NULL: CuResult = CuResult::INVALID_VALUE;

    /// The code and rule of a core error in `op`.
    fn code_for(op: Op, err: &CoreError) -> (CuResult, Option<&'static Rule>) {
        use CoreError::*;
        use Op::*;
        match (op, err) {
            // cuda.md §1.1: a driver that cannot start is "no device".
            (_, Unavailable(_)) => (CuResult::NO_DEVICE, None),
            (_, Injected(c)) => (CuResult(*c as u32), None),
            // VMMKIT_HAZARDS=error: an unsynchronised access fails the racing call
            // with CUDA_ERROR_ILLEGAL_STATE (401). vmmkit's own behaviour, no vendor's (docs/streams.md;
            // emulator choice, no catalog id).
            (_, Unsynchronised(_)) => (CuResult::ILLEGAL_STATE, None),
            // Work on a stream whose capture a call broke: CUDA-GRF-006.
            (_, Graph(crate::core::GraphError::Invalidated)) => {
                by_rule_code(&rules::GRF_006, CuResult::STREAM_CAPTURE_INVALIDATED)
            }
            (_, Graph(_)) => (CuResult::STREAM_CAPTURE_UNSUPPORTED, None),
            // cuMemAlloc: too big → 2 (the documented code; no catalog id).
            (Alloc, OutOfMemory { .. } | HostExhausted(_) | SizeNotAligned { .. }) => (CuResult::OUT_OF_MEMORY, None),
            (Free, NotReservationStart(_) | NotMapped(_)) => (CuResult::INVALID_VALUE, None),
            (Copy, BadDeviceRange { .. }) => (CuResult::INVALID_VALUE, None),
            (Copy, NotAddressable { .. }) => by_rule(&rules::CPY_001),
            (IpcGet, NotMapped(_)) => by_rule(&rules::IPC_001),
            // An IPC handle that names no live allocation: cuIpcOpenMemHandle's
            // documented CUDA_ERROR_INVALID_HANDLE (emulator choice; no catalog id).
            (IpcOpen, UnknownShareable(_) | ShareableReleasing(_) | NotTrusted { .. }) => {
                (CuResult::INVALID_HANDLE, None)
            }
            (IpcOpen, SameProcessImport { .. }) => by_rule(&rules::IPC_005),
            (IpcClose, NotMapped(_)) => by_rule(&rules::IPC_009),
            (Create, SizeNotAligned { .. }) => by_rule(&rules::VMM_002),
            (Create, OutOfMemory { .. } | HostExhausted(_)) => (CuResult::OUT_OF_MEMORY, None),
            (Release, UnknownHandle(_) | OnlyMappingRefs(_)) => by_rule_code(&rules::VMM_005, CuResult::INVALID_VALUE),
            // cuMemAddressReserve documents CUDA_ERROR_OUT_OF_MEMORY for a range it cannot place.
            (Reserve, HostExhausted(_) | AlreadyMapped { .. }) => (CuResult::OUT_OF_MEMORY, None),
            (AddressFree, NotReservationStart(_)) => by_rule(&rules::VMM_007),
            (Map, AlreadyMapped { .. }) => by_rule(&rules::VMM_010),
            (
                Map,
                UnknownHandle(_)
                | NotReserved(_)
                | Misaligned { .. }
                | PastReservationEnd { .. }
                | SizeMismatch { .. }
                | WrongDevice { .. },
            ) => by_rule(&rules::VMM_008),
            (Unmap, NotMapped(_)) => by_rule(&rules::VMM_011),
            (SetAccess, NotMapped(_)) => by_rule(&rules::VMM_013),
            (GetAccess, NotMapped(_)) => (CuResult::INVALID_VALUE, None),
            (Export, UnknownHandle(_) | ShareableReleasing(_)) => (CuResult::INVALID_VALUE, None),
            (Import, UnknownShareable(_) | ShareableReleasing(_) | Os(_)) => (CuResult::INVALID_VALUE, None),
            (Retain, NotMapped(_) | UnknownHandle(_)) => by_rule_code(&rules::VMM_019, CuResult::INVALID_VALUE),
            (Query, UnknownHandle(_)) => (CuResult::INVALID_VALUE, None),
            // Streams and events (CUDA-STM, -EVT, -IEV).
            (Stream | Event, UnknownStream(_)) => by_rule(&rules::STM_002),
            (Stream | Event | Elapsed, UnknownEvent(_)) => (CuResult::INVALID_HANDLE, None),
            (Elapsed, TimingDisabled(_) | EventNotRecorded(_)) => by_rule(&rules::EVT_004),
            (Elapsed, NotReady) => by_rule(&rules::EVT_005),
            (IpcEvent, UnknownShareable(_) | ShareableReleasing(_) | UnknownSharedCell(_)) => {
                (CuResult::INVALID_HANDLE, None)
            }
            (IpcEvent, SameProcessImport { .. }) => by_rule(&rules::IEV_002),
            (_, OutOfMemory { .. } | HostExhausted(_)) => (CuResult::OUT_OF_MEMORY, None),
            (_, UnknownHandle(_) | NotMapped(_)) => (CuResult::INVALID_VALUE, None),
            _ => (CuResult::UNKNOWN, None),
        }
    }

    // A forked child ([`crate::fork`]).
    const FORK_RULE: &'static Rule = &rules::FORK_001;
    const STATELESS: &'static [&'static str] = &["cuGetErrorName", "cuGetErrorString", "cuDriverGetVersion"];
}

crate::dialect::code_table_test!(
    Cuda,
    // Not mapped: 1 everywhere, under the rule of the call.
    (Op::Unmap, CoreError::NotMapped(1), Both(CuResult::INVALID_VALUE, &rules::VMM_011)),
    (Op::IpcClose, CoreError::NotMapped(1), Rule(&rules::IPC_009)),
    // An unknown key: 400 from an IPC open, 1 from a VMM import.
    (Op::IpcOpen, CoreError::UnknownShareable(5), Code(CuResult::INVALID_HANDLE)),
    (Op::Import, CoreError::UnknownShareable(5), Code(CuResult::INVALID_VALUE)),
    (
        Op::IpcOpen,
        CoreError::SameProcessImport { key: 1, place: Place::Device(0) },
        Both(CuResult::INVALID_CONTEXT, &rules::IPC_005),
    ),
    // A size off the granularity: 1 from cuMemCreate, 2 never.
    (Op::Create, CoreError::SizeNotAligned { size: 1, granule: 2 }, Both(CuResult::INVALID_VALUE, &rules::VMM_002),),
    // Out of memory is 2 everywhere.
    (Op::Alloc, out_of_memory(), Code(CuResult::OUT_OF_MEMORY)),
    (Op::Create, out_of_memory(), Code(CuResult::OUT_OF_MEMORY)),
    // Mapping over a mapping is its own (undetermined) rule.
    (Op::Map, CoreError::AlreadyMapped { addr: 0, size: 1, existing: 0 }, Rule(&rules::VMM_010)),
);
