//! The HIP rules: the rules of reference hip.md §4 (ids kept) that one
//! process can provoke, with the codes of the 6.x profile (the reference's
//! default). One `const` per rule, in the reference's order; [`HIP_RULES`]
//! lists them. Fields left out take the defaults of [`HIP`]. `equivalents`
//! name the ACL rules that state the same rule (codes differ by vendor).
//!
//! The multi-process IPC rules (HIP-IPC-026 … 049) and the fd round trip
//! between processes are exercised by the emulator's and the drop-in
//! library's own tests (`emulator/tests/hip_ipc.rs`, `hip_vmm.rs`,
//! `emulator/shims/amdhip64/tests/real_hip.rs`), not here yet.
#![forbid(unsafe_code)]

use crate::checks::hip::*;
use crate::rule::Confidence::{Inferred, Source as Src, Undetermined};
use crate::rule::Expect::{Behaviour, Codes};
use crate::rule::Source::{HipDoc, Rocm};
use crate::rule::{Check, Dialect, Expect, Rule, Source};
use crate::{hip, rule_id};

// ---- groups (JUnit classnames, report sections): one per id family ----------

const INIT: &str = "hip.init";
const IPC: &str = "hip.ipc";
const VMM: &str = "hip.vmm";

// ---- sources, as the reference tags them -------------------------------------

const CLR_MEM: Source = Rocm("ROCm/clr hipamd/src/hip_memory.cpp");
const CLR_VM: Source = Rocm("ROCm/clr hipamd/src/hip_vm.cpp");
const CLR_DEV: Source = Rocm("ROCm/clr rocclr/device/device.cpp");
const CLR_INT: Source = Rocm("ROCm/clr hipamd/src/hip_internal.hpp");
const T_IPC: Source = Rocm("ROCm/hip-tests catch/unit/device/hipIpc{Get,Open,Close}MemHandle.cc");
const T_VMM: Source = Rocm("ROCm/hip-tests catch/unit/virtualMemoryManagement");
const DEVELOP: Source = Rocm("ROCm/rocm-systems develop");

/// The defaults of a HIP rule. Its check reports a suite defect, so a rule
/// that forgot its own check cannot pass.
pub const HIP: Rule = Rule {
    id: rule_id!("HIP-BASE-000"),
    dialect: Dialect::Hip,
    group: "hip",
    text: "",
    apis: &[],
    sources: &[],
    confidence: &[],
    note: None,
    expect: Expect::Behaviour,
    equivalents: &[],
    requires: &[],
    check: Check::Hip(missing_check),
};

// ==== 4.1 Global =================================================================

pub const HIP_INIT_003: Rule = Rule {
    id: rule_id!("HIP-INIT-003"),
    group: INIT,
    text: "The last error is per thread; hipGetLastError returns it and resets it, hipPeekAtLastError does not.",
    apis: &["hipGetLastError", "hipPeekAtLastError"],
    sources: &[CLR_INT],
    confidence: &[Src],
    expect: Behaviour,
    check: Check::Hip(errors::last_error_per_thread),
    ..HIP
};

// ==== 4.2 IPC: hipIpcGetMemHandle ==================================================

pub const HIP_IPC_001: Rule = Rule {
    id: rule_id!("HIP-IPC-001"),
    group: IPC,
    text: "hipIpcGetMemHandle: `handle` and `devPtr` must be non-NULL.",
    apis: &["hipIpcGetMemHandle"],
    sources: &[CLR_MEM, T_IPC],
    confidence: &[Src],
    expect: Codes(&[hip!(INVALID_VALUE)]),
    check: Check::Hip(ipc::get_null),
    ..HIP
};

pub const HIP_IPC_002: Rule = Rule {
    id: rule_id!("HIP-IPC-002"),
    group: IPC,
    text: "`devPtr` must lie inside a live hipMalloc allocation, half-open; freed memory, host memory and one-past-end are rejected.",
    apis: &["hipIpcGetMemHandle"],
    sources: &[CLR_DEV, T_IPC],
    confidence: &[Src],
    note: Some("5.5+ value; ≤5.4 gave 17. The docs list 400/2/205, which are never returned"),
    expect: Codes(&[hip!(INVALID_VALUE)]),
    check: Check::Hip(ipc::get_not_hipmalloc),
    ..HIP
};

pub const HIP_IPC_003: Rule = Rule {
    id: rule_id!("HIP-IPC-003"),
    group: IPC,
    text: "An interior pointer is accepted; the handle names the whole allocation.",
    apis: &["hipIpcGetMemHandle"],
    sources: &[CLR_DEV],
    confidence: &[Src],
    note: Some("the docs say \"base pointer\"; the code accepts any address inside"),
    expect: Behaviour,
    check: Check::Hip(ipc::get_interior),
    ..HIP
};

pub const HIP_IPC_007: Rule = Rule {
    id: rule_id!("HIP-IPC-007"),
    group: IPC,
    text: "A hipMemMap'ed VMM address is not exportable through hipIpcGetMemHandle.",
    apis: &["hipIpcGetMemHandle"],
    sources: &[DEVELOP],
    confidence: &[Src],
    note: Some("develop gives 1; older releases 0 with a useless handle; emulator: 1"),
    expect: Codes(&[hip!(INVALID_VALUE)]),
    check: Check::Hip(ipc::get_vmm),
    ..HIP
};

// ==== 4.3 IPC: hipIpcOpenMemHandle =================================================

pub const HIP_IPC_020: Rule = Rule {
    id: rule_id!("HIP-IPC-020"),
    group: IPC,
    text: "hipIpcOpenMemHandle: the `devPtr` out-pointer must be non-NULL.",
    apis: &["hipIpcOpenMemHandle"],
    sources: &[CLR_MEM],
    confidence: &[Src],
    expect: Codes(&[hip!(INVALID_VALUE)]),
    check: Check::Hip(ipc::open_null),
    ..HIP
};

pub const HIP_IPC_021: Rule = Rule {
    id: rule_id!("HIP-IPC-021"),
    group: IPC,
    text: "`flags` must be the lazy-peer flag, checked before the handle: one's own handle with flags 123 gives 1, not 201.",
    apis: &["hipIpcOpenMemHandle"],
    sources: &[CLR_MEM, HipDoc("hipIpcOpenMemHandle"), T_IPC],
    confidence: &[Src],
    expect: Codes(&[hip!(INVALID_VALUE)]),
    check: Check::Hip(ipc::open_bad_flags),
    ..HIP
};

pub const HIP_IPC_022: Rule = Rule {
    id: rule_id!("HIP-IPC-022"),
    group: IPC,
    text: "The handle's size field must be non-zero, checked before the pid: an all-zero handle, or one's own with size 0, gives 1.",
    apis: &["hipIpcOpenMemHandle"],
    sources: &[CLR_MEM],
    confidence: &[Src],
    expect: Codes(&[hip!(INVALID_VALUE)]),
    check: Check::Hip(ipc::open_zero),
    ..HIP
};

pub const HIP_IPC_023: Rule = Rule {
    id: rule_id!("HIP-IPC-023"),
    group: IPC,
    text: "A garbage or uninitialised handle fails.",
    apis: &["hipIpcOpenMemHandle"],
    sources: &[T_IPC],
    confidence: &[Src],
    note: Some("the hip-tests case accepts 1 or 17; the emulator gives 1 without its magic"),
    expect: Codes(&[hip!(INVALID_VALUE), hip!(INVALID_DEVICE_POINTER)]),
    check: Check::Hip(ipc::open_garbage),
    ..HIP
};

pub const HIP_IPC_024: Rule = Rule {
    id: rule_id!("HIP-IPC-024"),
    group: IPC,
    text: "A process cannot open its own handle (the pid in bytes 48–51 is its own).",
    apis: &["hipIpcOpenMemHandle"],
    sources: &[CLR_MEM, T_IPC],
    confidence: &[Src],
    note: Some("5.5+; ≤5.4 had no check. CUDA also gives 201"),
    expect: Codes(&[hip!(INVALID_CONTEXT)]),
    check: Check::Hip(ipc::open_own),
    ..HIP
};

pub const HIP_IPC_025: Rule = Rule {
    id: rule_id!("HIP-IPC-025"),
    group: IPC,
    text: "The token must resolve to a live exported allocation; a forged one fails.",
    apis: &["hipIpcOpenMemHandle"],
    sources: &[CLR_DEV],
    confidence: &[Src],
    expect: Codes(&[hip!(INVALID_DEVICE_POINTER)]),
    check: Check::Hip(ipc::open_forged),
    ..HIP
};

// ==== 4.4 IPC: close ===============================================================

pub const HIP_IPC_040: Rule = Rule {
    id: rule_id!("HIP-IPC-040"),
    group: IPC,
    text: "hipIpcCloseMemHandle: `devPtr` must be non-NULL.",
    apis: &["hipIpcCloseMemHandle"],
    sources: &[CLR_MEM, T_IPC],
    confidence: &[Src],
    expect: Codes(&[hip!(INVALID_VALUE)]),
    check: Check::Hip(ipc::close_null),
    ..HIP
};

pub const HIP_IPC_041: Rule = Rule {
    id: rule_id!("HIP-IPC-041"),
    group: IPC,
    text: "`devPtr` must come from hipIpcOpenMemHandle; the exporter's own hipMalloc pointer fails.",
    apis: &["hipIpcCloseMemHandle"],
    sources: &[CLR_DEV, T_IPC],
    confidence: &[Src],
    note: Some("5.5+ value; ≤5.4 gave 400. The docs list 205/400"),
    expect: Codes(&[hip!(INVALID_VALUE)]),
    check: Check::Hip(ipc::close_not_opened),
    ..HIP
};

// ==== 4.5 VMM ======================================================================

pub const HIP_VMM_001: Rule = Rule {
    id: rule_id!("HIP-VMM-001"),
    group: VMM,
    text: "Granularity: out-pointer and prop non-NULL, type Pinned, location Device, 0 ≤ id < count, option 0 or 1.",
    apis: &["hipMemGetAllocationGranularity"],
    sources: &[CLR_VM, T_VMM],
    confidence: &[Src],
    expect: Codes(&[hip!(INVALID_VALUE)]),
    equivalents: &["ACL-GRAN-001", "ACL-GRAN-005"],
    check: Check::Hip(vmm::granularity_args),
    ..HIP
};

pub const HIP_VMM_002: Rule = Rule {
    id: rule_id!("HIP-VMM-002"),
    group: VMM,
    text: "Both granularity options answer; AMD GPUs report 4096, develop recommends 2 MiB, so tests query it.",
    apis: &["hipMemGetAllocationGranularity"],
    sources: &[CLR_VM],
    confidence: &[Src],
    expect: Behaviour,
    check: Check::Hip(vmm::granularity_value),
    ..HIP
};

pub const HIP_VMM_003: Rule = Rule {
    id: rule_id!("HIP-VMM-003"),
    group: VMM,
    text: "hipMemCreate: handle non-NULL, size > 0, flags 0, prop non-NULL, Pinned, Device, id < count.",
    apis: &["hipMemCreate"],
    sources: &[CLR_VM, T_VMM],
    confidence: &[Src],
    note: Some("profile 6.x: a bad device id is 1; 7.x gives 101"),
    expect: Codes(&[hip!(INVALID_VALUE)]),
    equivalents: &["ACL-MP-001", "ACL-MP-002", "ACL-MP-003"],
    check: Check::Hip(vmm::create_args),
    ..HIP
};

pub const HIP_VMM_004: Rule = Rule {
    id: rule_id!("HIP-VMM-004"),
    group: VMM,
    text: "hipMemCreate: requestedHandleType must be None or PosixFileDescriptor.",
    apis: &["hipMemCreate"],
    sources: &[CLR_VM],
    confidence: &[Src],
    expect: Codes(&[hip!(NOT_SUPPORTED)]),
    check: Check::Hip(vmm::create_handle_type),
    ..HIP
};

pub const HIP_VMM_005: Rule = Rule {
    id: rule_id!("HIP-VMM-005"),
    group: VMM,
    text: "hipMemCreate: a size larger than physical memory fails.",
    apis: &["hipMemCreate"],
    sources: &[CLR_VM],
    confidence: &[Src],
    expect: Codes(&[hip!(OUT_OF_MEMORY)]),
    equivalents: &["ACL-MP-015"],
    check: Check::Hip(vmm::create_too_big),
    ..HIP
};

pub const HIP_VMM_006: Rule = Rule {
    id: rule_id!("HIP-VMM-006"),
    group: VMM,
    text: "hipMemCreate: the size must be a multiple of 2048, not of the granularity.",
    apis: &["hipMemCreate"],
    sources: &[CLR_VM, T_VMM],
    confidence: &[Src],
    expect: Codes(&[hip!(INVALID_VALUE)]),
    check: Check::Hip(vmm::create_multiple_of_2048),
    ..HIP
};

pub const HIP_VMM_007: Rule = Rule {
    id: rule_id!("HIP-VMM-007"),
    group: VMM,
    text: "hipMemRelease: the handle must be non-NULL.",
    apis: &["hipMemRelease"],
    sources: &[CLR_VM, T_VMM],
    confidence: &[Src],
    expect: Codes(&[hip!(INVALID_VALUE)]),
    equivalents: &["ACL-FP-001"],
    check: Check::Hip(vmm::release_null),
    ..HIP
};

pub const HIP_VMM_008: Rule = Rule {
    id: rule_id!("HIP-VMM-008"),
    group: VMM,
    text: "Release while mapped is allowed and deferred: the memory stays usable until the unmap.",
    apis: &["hipMemRelease", "hipMemMap", "hipMemUnmap"],
    sources: &[CLR_VM, T_VMM],
    confidence: &[Src],
    expect: Behaviour,
    check: Check::Hip(vmm::release_while_mapped),
    ..HIP
};

pub const HIP_VMM_010: Rule = Rule {
    id: rule_id!("HIP-VMM-010"),
    group: VMM,
    text: "hipMemAddressReserve: ptr non-NULL and flags 0.",
    apis: &["hipMemAddressReserve"],
    sources: &[CLR_VM],
    confidence: &[Src],
    expect: Codes(&[hip!(INVALID_VALUE)]),
    equivalents: &["ACL-RSV-001"],
    check: Check::Hip(vmm::reserve_args),
    ..HIP
};

pub const HIP_VMM_011: Rule = Rule {
    id: rule_id!("HIP-VMM-011"),
    group: VMM,
    text: "hipMemAddressReserve: size > 0 and a granularity multiple, alignment a power of two (0 allowed).",
    apis: &["hipMemAddressReserve"],
    sources: &[CLR_VM, T_VMM],
    confidence: &[Src],
    note: Some("profile 6.x: 2 (hipErrorMemoryAllocation); 7.x and develop give 1; 5.3–6.0 did not check"),
    expect: Codes(&[hip!(OUT_OF_MEMORY)]),
    check: Check::Hip(vmm::reserve_size_alignment),
    ..HIP
};

pub const HIP_VMM_012: Rule = Rule {
    id: rule_id!("HIP-VMM-012"),
    group: VMM,
    text: "The reserved pointer honours `alignment`; `addr` is only a hint.",
    apis: &["hipMemAddressReserve"],
    sources: &[T_VMM],
    confidence: &[Src],
    expect: Behaviour,
    check: Check::Hip(vmm::reserve_alignment_honoured),
    ..HIP
};

pub const HIP_VMM_013: Rule = Rule {
    id: rule_id!("HIP-VMM-013"),
    group: VMM,
    text: "hipMemAddressFree: ptr non-NULL, size > 0, and ptr the start of a reservation.",
    apis: &["hipMemAddressFree"],
    sources: &[CLR_VM, DEVELOP],
    confidence: &[Src, Undetermined],
    note: Some("an unknown pointer crashes 6.x and gives 1 in develop; emulator: 1"),
    expect: Codes(&[hip!(INVALID_VALUE)]),
    equivalents: &["ACL-REL-001", "ACL-REL-002"],
    check: Check::Hip(vmm::address_free_args),
    ..HIP
};

pub const HIP_VMM_014: Rule = Rule {
    id: rule_id!("HIP-VMM-014"),
    group: VMM,
    text: "hipMemMap: ptr and handle non-NULL, size > 0, offset 0, flags 0.",
    apis: &["hipMemMap"],
    sources: &[CLR_VM, HipDoc("hipMemMap"), T_VMM],
    confidence: &[Src],
    expect: Codes(&[hip!(INVALID_VALUE)]),
    equivalents: &["ACL-MAP-001", "ACL-MAP-002", "ACL-MAP-003", "ACL-MAP-004"],
    check: Check::Hip(vmm::map_args),
    ..HIP
};

pub const HIP_VMM_015: Rule = Rule {
    id: rule_id!("HIP-VMM-015"),
    group: VMM,
    text: "hipMemMap: the target lies inside a reservation, is not mapped already, and size ≤ allocation size.",
    apis: &["hipMemMap"],
    sources: &[CLR_VM, DEVELOP],
    confidence: &[Src, Undetermined],
    note: Some("6.x/7.x return 0 even when the backend map fails; develop and the emulator give 1"),
    expect: Codes(&[hip!(INVALID_VALUE)]),
    equivalents: &["ACL-MAP-009"],
    check: Check::Hip(vmm::map_misuse),
    ..HIP
};

pub const HIP_VMM_016: Rule = Rule {
    id: rule_id!("HIP-VMM-016"),
    group: VMM,
    text: "A partial map (size < allocation size) maps the first `size` bytes, into part of a larger reservation.",
    apis: &["hipMemMap"],
    sources: &[T_VMM],
    confidence: &[Src],
    expect: Behaviour,
    check: Check::Hip(vmm::map_partial),
    ..HIP
};

pub const HIP_VMM_017: Rule = Rule {
    id: rule_id!("HIP-VMM-017"),
    group: VMM,
    text: "One handle may be mapped at several addresses, which alias.",
    apis: &["hipMemMap"],
    sources: &[T_VMM],
    confidence: &[Src],
    expect: Behaviour,
    check: Check::Hip(vmm::map_alias),
    ..HIP
};

pub const HIP_VMM_018: Rule = Rule {
    id: rule_id!("HIP-VMM-018"),
    group: VMM,
    text: "hipMemUnmap: ptr non-NULL and size > 0.",
    apis: &["hipMemUnmap"],
    sources: &[CLR_VM, T_VMM],
    confidence: &[Src],
    expect: Codes(&[hip!(INVALID_VALUE)]),
    equivalents: &["ACL-UNMAP-001"],
    check: Check::Hip(vmm::unmap_args),
    ..HIP
};

pub const HIP_VMM_019: Rule = Rule {
    id: rule_id!("HIP-VMM-019"),
    group: VMM,
    text: "hipMemUnmap: ptr starts a mapping and size covers whole consecutive mappings.",
    apis: &["hipMemUnmap"],
    sources: &[CLR_VM, DEVELOP],
    confidence: &[Src, Undetermined],
    note: Some("6.x crashes or does not check; 7.x, develop and the emulator give 1"),
    expect: Codes(&[hip!(INVALID_VALUE)]),
    equivalents: &["ACL-UNMAP-002"],
    check: Check::Hip(vmm::unmap_misuse),
    ..HIP
};

pub const HIP_VMM_021: Rule = Rule {
    id: rule_id!("HIP-VMM-021"),
    group: VMM,
    text: "hipMemSetAccess: ptr, size, desc and count set, device ids in range, the range mapped, flags 0, 1 or 3.",
    apis: &["hipMemSetAccess"],
    sources: &[CLR_VM, T_VMM],
    confidence: &[Src],
    expect: Codes(&[hip!(INVALID_VALUE)]),
    equivalents: &["ACL-ACC-001", "ACL-ACC-002"],
    check: Check::Hip(vmm::set_access_args),
    ..HIP
};

pub const HIP_VMM_022: Rule = Rule {
    id: rule_id!("HIP-VMM-022"),
    group: VMM,
    text: "hipMemGetAccess: pointers non-NULL, a Device location in range, ptr inside a mapping; granted flags read back.",
    apis: &["hipMemGetAccess"],
    sources: &[CLR_VM, T_VMM],
    confidence: &[Src],
    expect: Codes(&[hip!(INVALID_VALUE)]),
    equivalents: &["ACL-ACC-009", "ACL-ACC-010"],
    check: Check::Hip(vmm::get_access_args),
    ..HIP
};

pub const HIP_VMM_024: Rule = Rule {
    id: rule_id!("HIP-VMM-024"),
    group: VMM,
    text: "Export: flags 0, handle non-NULL, out-pointer non-NULL, handleType the allocation's requestedHandleType.",
    apis: &["hipMemExportToShareableHandle"],
    sources: &[CLR_VM, T_VMM],
    confidence: &[Src],
    note: Some("a NULL out-pointer crashes 6.x; 7.x and the emulator give 1"),
    expect: Codes(&[hip!(INVALID_VALUE)]),
    equivalents: &["ACL-EXP-001"],
    check: Check::Hip(share::export_args),
    ..HIP
};

pub const HIP_VMM_025: Rule = Rule {
    id: rule_id!("HIP-VMM-025"),
    group: VMM,
    text: "Export writes a 4-byte int fd, which the caller owns; only the low 4 bytes of the slot are written.",
    apis: &["hipMemExportToShareableHandle"],
    sources: &[CLR_VM, T_VMM],
    confidence: &[Src],
    expect: Behaviour,
    check: Check::Hip(share::export_writes_fd),
    ..HIP
};

pub const HIP_VMM_027: Rule = Rule {
    id: rule_id!("HIP-VMM-027"),
    group: VMM,
    text: "Import: handle and osHandle non-NULL; an fd that is not an exported allocation fails.",
    apis: &["hipMemImportFromShareableHandle"],
    sources: &[CLR_VM],
    confidence: &[Src],
    expect: Codes(&[hip!(INVALID_VALUE)]),
    equivalents: &["ACL-IMP-001"],
    check: Check::Hip(share::import_args),
    ..HIP
};

pub const HIP_VMM_028: Rule = Rule {
    id: rule_id!("HIP-VMM-028"),
    group: VMM,
    text: "Importing in the exporting process is allowed (ACL forbids it, ACL-IMP-009).",
    apis: &["hipMemImportFromShareableHandle"],
    sources: &[T_VMM],
    confidence: &[Src],
    expect: Behaviour,
    check: Check::Hip(share::import_own),
    ..HIP
};

pub const HIP_VMM_032: Rule = Rule {
    id: rule_id!("HIP-VMM-032"),
    group: VMM,
    text: "hipMemGetAllocationPropertiesFromHandle: prop and handle non-NULL; returns the creation properties.",
    apis: &["hipMemGetAllocationPropertiesFromHandle"],
    sources: &[CLR_VM, T_VMM],
    confidence: &[Src],
    expect: Codes(&[hip!(INVALID_VALUE)]),
    check: Check::Hip(vmm::properties),
    ..HIP
};

pub const HIP_VMM_033: Rule = Rule {
    id: rule_id!("HIP-VMM-033"),
    group: VMM,
    text: "hipMemRetainAllocationHandle: out-pointer and addr non-NULL, addr inside a VMM mapping; returns the same handle.",
    apis: &["hipMemRetainAllocationHandle"],
    sources: &[CLR_VM, T_VMM],
    confidence: &[Src, Inferred],
    note: Some("a hipMalloc address crashes 6.x; emulator: 1. The emulator takes a reference, as develop and CUDA"),
    expect: Codes(&[hip!(INVALID_VALUE)]),
    equivalents: &["ACL-RET-001"],
    check: Check::Hip(vmm::retain),
    ..HIP
};

/// Every HIP rule of the catalog, in the reference's order.
#[rustfmt::skip]
pub const HIP_RULES: &[&Rule] = &[
    &HIP_INIT_003,
    &HIP_IPC_001, &HIP_IPC_002, &HIP_IPC_003, &HIP_IPC_007,
    &HIP_IPC_020, &HIP_IPC_021, &HIP_IPC_022, &HIP_IPC_023, &HIP_IPC_024, &HIP_IPC_025,
    &HIP_IPC_040, &HIP_IPC_041,
    &HIP_VMM_001, &HIP_VMM_002, &HIP_VMM_003, &HIP_VMM_004, &HIP_VMM_005, &HIP_VMM_006,
    &HIP_VMM_007, &HIP_VMM_008, &HIP_VMM_010, &HIP_VMM_011, &HIP_VMM_012, &HIP_VMM_013,
    &HIP_VMM_014, &HIP_VMM_015, &HIP_VMM_016, &HIP_VMM_017, &HIP_VMM_018, &HIP_VMM_019,
    &HIP_VMM_021, &HIP_VMM_022, &HIP_VMM_024, &HIP_VMM_025, &HIP_VMM_027, &HIP_VMM_028,
    &HIP_VMM_032, &HIP_VMM_033,
];

const _: () = assert!(crate::rule::ids_unique(HIP_RULES), "two HIP rules share an id");
