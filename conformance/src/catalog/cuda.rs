//! The CUDA rules: the rules of reference cuda.md §3 (ids kept) that a
//! process and a peer can provoke, with the reference's codes; where it marks a point
//! undetermined (the probes of §3.4), the expected value is its emulator
//! choice and the confidence says `undetermined`, so a run on a real driver
//! answers the probe. One `const` per rule, in the reference's order;
//! [`CUDA_RULES`] lists them. Fields left out take the defaults of [`CUDA`].
//! `equivalents` name the HIP and ACL rules the reference pairs with each
//! (codes and sometimes behaviour differ by vendor).
//!
//! Rules about a second process (CUDA-IPC-006, -008, -010, -011, CUDA-VMM-017,
//! -020) run a CUDA peer that opens the handle or receives the fd
//! (`Need::Peers`).
//!
//! Not here, and why:
//! * CUDA-IPC-007: it needs a second context on one device, which the
//!   table's primary contexts cannot make.
//! * CUDA-VMM-014: a rule for test writers (never dereference device memory
//!   on the host), with nothing to provoke.
#![forbid(unsafe_code)]

use crate::checks::cuda::*;
use crate::rule::Confidence::{Doc, Inferred, Source as Src, Undetermined};
use crate::rule::Expect::{Behaviour, Codes, Observed};
use crate::rule::Source::{CudaDoc, Project, Reference};
use crate::rule::{Check, Dialect, Expect, Need, Rule, Source};
use crate::{cuda, rule_id};

// ---- groups (JUnit classnames, report sections): one per id family ----------

const GEN: &str = "cuda.general";
const IPC: &str = "cuda.ipc";
const VMM: &str = "cuda.vmm";

// ---- sources, as the reference names them ------------------------------------

const DOCS: Source = CudaDoc("CUDA 12.6 driver API");
const D_INIT: Source = CudaDoc("cuInit");
const D_IPC_GET: Source = CudaDoc("cuIpcGetMemHandle");
const D_IPC_OPEN: Source = CudaDoc("cuIpcOpenMemHandle");
const D_IPC_CLOSE: Source = CudaDoc("cuIpcCloseMemHandle");
const D_GRAN: Source = CudaDoc("cuMemGetAllocationGranularity");
const D_CREATE: Source = CudaDoc("cuMemCreate");
const D_RELEASE: Source = CudaDoc("cuMemRelease");
const D_RESERVE: Source = CudaDoc("cuMemAddressReserve");
const D_ADDRESS_FREE: Source = CudaDoc("cuMemAddressFree");
const D_MAP: Source = CudaDoc("cuMemMap");
const D_UNMAP: Source = CudaDoc("cuMemUnmap");
const D_SET_ACCESS: Source = CudaDoc("cuMemSetAccess");
const D_EXPORT: Source = CudaDoc("cuMemExportToShareableHandle");
const D_IMPORT: Source = CudaDoc("cuMemImportFromShareableHandle");
const D_RETAIN: Source = CudaDoc("cuMemRetainAllocationHandle");
const UCX_10618: Source = Project("openucx/ucx PR #10618");
const UCX_11603: Source = Project("openucx/ucx PRs #11603, #11226");
const CUDARC_521: Source = Project("cudarc issue #521");
const TMS_82: Source = Project("torch_memory_saver PR #82");
const MSCCLPP_501: Source = Project("mscclpp PR #501");
const UR_1174: Source = Project("unified-runtime issue #1174");
const HIP_TESTS: Source = Project("ROCm/hip-tests, NVIDIA-only sections");
const MEMMAP_IPC: Source = Project("NVIDIA/cuda-samples memMapIPCDrv");
const PROBES: Source = Reference("cuda.md §3.4, probes for a real NVIDIA GPU");
const UCX_3192: Source = Project("openucx/ucx issue #3192 (pre-2019 drivers)");
const SIMPLE_IPC: Source = Project("NVIDIA/cuda-samples simpleIPC");

const PEERS: &[Need] = &[Need::Peers];

// ---- markings ---------------------------------------------------------------------

const UNDETERMINED_P1: Option<&str> = Some("undetermined (probe P1): the expected value is the emulator's choice");
const UNDETERMINED_P3: Option<&str> = Some("undetermined (probe P3): the expected value is the emulator's choice");
const UNDETERMINED_P6: Option<&str> = Some("undetermined (probe P6): the expected value is the emulator's choice");
const UNDETERMINED_P7: Option<&str> = Some("undetermined (probe P7): the expected value is the emulator's choice");
const UNDETERMINED_P9: Option<&str> = Some("undetermined (probe P9): the expected value is the emulator's choice");
const CODE_INFERRED: Option<&str> = Some("the rule is documented; its code is inferred");
const UNDEFINED: Option<&str> = Some("undefined behaviour in CUDA: recorded, not judged");

/// The defaults of a CUDA rule. Its check reports a suite defect, so a rule
/// that forgot its own check cannot pass.
pub const CUDA: Rule = Rule {
    id: rule_id!("CUDA-BASE-000"),
    dialect: Dialect::Cuda,
    group: "cuda",
    text: "",
    apis: &[],
    sources: &[],
    confidence: &[],
    note: None,
    expect: Expect::Behaviour,
    equivalents: &[],
    requires: &[],
    check: Check::Cuda(missing_check),
};

// ==== 3.1 General ===============================================================

pub const CUDA_GEN_001: Rule = Rule {
    id: rule_id!("CUDA-GEN-001"),
    group: GEN,
    text: "cuInit: `Flags` must be 0.",
    apis: &["cuInit"],
    sources: &[D_INIT],
    confidence: &[Doc],
    expect: Codes(&[cuda!(INVALID_VALUE)]),
    check: Check::Cuda(general::init_flags),
    ..CUDA
};

pub const CUDA_GEN_002: Rule = Rule {
    id: rule_id!("CUDA-GEN-002"),
    group: GEN,
    text: "Memory, VMM and IPC calls need a current context on the calling thread: without one, 201.",
    apis: &["cuMemAlloc", "cuCtxSetCurrent", "cuDevicePrimaryCtxRetain"],
    sources: &[DOCS, UCX_10618],
    confidence: &[Doc],
    expect: Codes(&[cuda!(INVALID_CONTEXT)]),
    equivalents: &["ACL-GEN-005"],
    check: Check::Cuda(general::needs_context),
    ..CUDA
};

pub const CUDA_GEN_003: Rule = Rule {
    id: rule_id!("CUDA-GEN-003"),
    group: GEN,
    text: "cuGetErrorName and cuGetErrorString of an unknown code return 1.",
    apis: &["cuGetErrorName", "cuGetErrorString"],
    sources: &[DOCS],
    confidence: &[Doc],
    expect: Codes(&[cuda!(INVALID_VALUE)]),
    check: Check::Cuda(general::error_strings),
    ..CUDA
};

// ==== 3.2 Legacy IPC ============================================================

pub const CUDA_IPC_001: Rule = Rule {
    id: rule_id!("CUDA-IPC-001"),
    group: IPC,
    text: "cuIpcGetMemHandle is for cuMemAlloc memory: pool memory is refused, VMM (cuMemMap'ed) memory is not eligible.",
    apis: &["cuIpcGetMemHandle"],
    sources: &[D_IPC_GET, CUDARC_521],
    confidence: &[Doc],
    expect: Codes(&[cuda!(INVALID_VALUE)]),
    equivalents: &["HIP-IPC-002", "HIP-IPC-007"],
    check: Check::Cuda(ipc::get_vmm_memory),
    ..CUDA
};

pub const CUDA_IPC_002: Rule = Rule {
    id: rule_id!("CUDA-IPC-002"),
    group: IPC,
    text: "cuIpcGetMemHandle on an interior pointer is undocumented; the emulator accepts it (as HIP-IPC-003).",
    apis: &["cuIpcGetMemHandle"],
    sources: &[PROBES],
    confidence: &[Undetermined],
    note: UNDETERMINED_P9,
    expect: Behaviour,
    equivalents: &["HIP-IPC-003"],
    check: Check::Cuda(ipc::get_interior),
    ..CUDA
};

pub const CUDA_IPC_003: Rule = Rule {
    id: rule_id!("CUDA-IPC-003"),
    group: IPC,
    text: "cuIpcGetMemHandle is cheap and repeatable; memory freed and allocated again at the same address gets a different handle.",
    apis: &["cuIpcGetMemHandle"],
    sources: &[D_IPC_GET],
    confidence: &[Doc],
    expect: Behaviour,
    equivalents: &["HIP-IPC-004", "HIP-IPC-006"],
    check: Check::Cuda(ipc::get_repeat_and_realloc),
    ..CUDA
};

pub const CUDA_IPC_004: Rule = Rule {
    id: rule_id!("CUDA-IPC-004"),
    group: IPC,
    text: "cuIpcOpenMemHandle flags must be CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS; the emulator refuses anything outside {0, 1} with 1.",
    apis: &["cuIpcOpenMemHandle"],
    sources: &[D_IPC_OPEN],
    confidence: &[Doc, Undetermined],
    note: UNDETERMINED_P9,
    expect: Codes(&[cuda!(INVALID_VALUE)]),
    equivalents: &["HIP-IPC-021"],
    check: Check::Cuda(ipc::open_flags),
    ..CUDA
};

pub const CUDA_IPC_005: Rule = Rule {
    id: rule_id!("CUDA-IPC-005"),
    group: IPC,
    text: "Opening a handle in the process that created it fails with 201.",
    apis: &["cuIpcOpenMemHandle"],
    sources: &[UCX_11603],
    confidence: &[Inferred],
    expect: Codes(&[cuda!(INVALID_CONTEXT)]),
    equivalents: &["HIP-IPC-024", "ACL-IMP-009"],
    check: Check::Cuda(ipc::open_own),
    ..CUDA
};

pub const CUDA_IPC_006: Rule = Rule {
    id: rule_id!("CUDA-IPC-006"),
    group: IPC,
    text: "A second cuIpcOpenMemHandle of the same handle in the same context returns the same pointer and counts one more open.",
    apis: &["cuIpcOpenMemHandle", "cuIpcCloseMemHandle"],
    sources: &[D_IPC_OPEN, UCX_3192],
    confidence: &[Doc],
    expect: Behaviour,
    equivalents: &["HIP-IPC-027", "ACL-IMP-014"],
    requires: PEERS,
    check: Check::Cuda(ipc::open_twice),
    ..CUDA
};

pub const CUDA_IPC_008: Rule = Rule {
    id: rule_id!("CUDA-IPC-008"),
    group: IPC,
    text: "The address cuIpcOpenMemHandle returns need not equal the exporter's.",
    apis: &["cuIpcOpenMemHandle"],
    sources: &[D_IPC_OPEN],
    confidence: &[Doc],
    expect: Observed,
    equivalents: &["HIP-IPC-028"],
    requires: PEERS,
    check: Check::Cuda(ipc::importer_address),
    ..CUDA
};

pub const CUDA_IPC_009: Rule = Rule {
    id: rule_id!("CUDA-IPC-009"),
    group: IPC,
    text: "cuIpcCloseMemHandle drops one open; closing a pointer that was never opened is undocumented, 1 on the emulator.",
    apis: &["cuIpcCloseMemHandle"],
    sources: &[D_IPC_CLOSE],
    confidence: &[Doc, Undetermined],
    note: UNDETERMINED_P9,
    expect: Codes(&[cuda!(INVALID_VALUE)]),
    equivalents: &["HIP-IPC-041", "HIP-IPC-042"],
    check: Check::Cuda(ipc::close_never_opened),
    ..CUDA
};

pub const CUDA_IPC_010: Rule = Rule {
    id: rule_id!("CUDA-IPC-010"),
    group: IPC,
    text: "Freeing exported memory before its importers close it is undefined; the emulator answers as HIP-IPC-046 (the exporter's free is 0).",
    apis: &["cuMemFree", "cuIpcCloseMemHandle"],
    sources: &[D_IPC_OPEN],
    confidence: &[Doc],
    note: UNDEFINED,
    expect: Observed,
    equivalents: &["HIP-IPC-046", "ACL-LIFE-002"],
    requires: PEERS,
    check: Check::Cuda(ipc::free_while_open),
    ..CUDA
};

pub const CUDA_IPC_011: Rule = Rule {
    id: rule_id!("CUDA-IPC-011"),
    group: IPC,
    text: "The IPC handle is a plain 64-byte blob: its bytes, carried over any channel, open the memory in another process.",
    apis: &["cuIpcGetMemHandle", "cuIpcOpenMemHandle"],
    sources: &[SIMPLE_IPC],
    confidence: &[Src],
    expect: Behaviour,
    equivalents: &["HIP-IPC-049"],
    requires: PEERS,
    check: Check::Cuda(ipc::handle_is_bytes),
    ..CUDA
};

// ==== 3.3 VMM ===================================================================

pub const CUDA_VMM_001: Rule = Rule {
    id: rule_id!("CUDA-VMM-001"),
    group: VMM,
    text: "The MINIMUM granularity is the required multiple for cuMemCreate sizes and cuMemMap pointers, sizes and offsets; query it, never hard-code it.",
    apis: &["cuMemGetAllocationGranularity", "cuMemCreate"],
    sources: &[D_GRAN, TMS_82],
    confidence: &[Doc],
    expect: Behaviour,
    equivalents: &["HIP-VMM-002", "ACL-GRAN-009"],
    check: Check::Cuda(vmm::granularity),
    ..CUDA
};

pub const CUDA_VMM_002: Rule = Rule {
    id: rule_id!("CUDA-VMM-002"),
    group: VMM,
    text: "cuMemCreate: the size must be a multiple of the MINIMUM granularity.",
    apis: &["cuMemCreate"],
    sources: &[D_CREATE, TMS_82],
    confidence: &[Doc, Inferred],
    expect: Codes(&[cuda!(INVALID_VALUE)]),
    equivalents: &["HIP-VMM-006", "ACL-MP-013"],
    check: Check::Cuda(vmm::create_size),
    ..CUDA
};

pub const CUDA_VMM_003: Rule = Rule {
    id: rule_id!("CUDA-VMM-003"),
    group: VMM,
    text: "`flags` must be 0 for cuMemCreate, cuMemAddressReserve, cuMemMap and cuMemExportToShareableHandle.",
    apis: &["cuMemCreate", "cuMemAddressReserve", "cuMemMap", "cuMemExportToShareableHandle"],
    sources: &[DOCS],
    confidence: &[Doc, Inferred],
    note: CODE_INFERRED,
    expect: Codes(&[cuda!(INVALID_VALUE)]),
    equivalents: &["HIP-VMM-003", "HIP-VMM-010", "HIP-VMM-014", "HIP-VMM-024", "ACL-MP-003", "ACL-MAP-003"],
    check: Check::Cuda(vmm::flags_nonzero),
    ..CUDA
};

pub const CUDA_VMM_004: Rule = Rule {
    id: rule_id!("CUDA-VMM-004"),
    group: VMM,
    text: "cuMemCreate at location HOST or HOST_NUMA_CURRENT → 1; FABRIC handles without IMEX → 800.",
    apis: &["cuMemCreate"],
    sources: &[D_CREATE],
    confidence: &[Doc],
    expect: Codes(&[cuda!(INVALID_VALUE), cuda!(NOT_PERMITTED)]),
    equivalents: &["ACL-MP-017"],
    check: Check::Cuda(vmm::create_location),
    ..CUDA
};

pub const CUDA_VMM_005: Rule = Rule {
    id: rule_id!("CUDA-VMM-005"),
    group: VMM,
    text: "Release while mapped is allowed: the memory goes when every mapping is unmapped and every reference released.",
    apis: &["cuMemRelease"],
    sources: &[D_RELEASE],
    confidence: &[Doc],
    expect: Behaviour,
    equivalents: &["HIP-VMM-008", "HIP-VMM-030", "ACL-FP-002", "ACL-FP-005", "ACL-LIFE-001"],
    check: Check::Cuda(vmm::release_while_mapped),
    ..CUDA
};

pub const CUDA_VMM_006: Rule = Rule {
    id: rule_id!("CUDA-VMM-006"),
    group: VMM,
    text: "cuMemAddressReserve: `alignment` is 0 or a power of two, `addr` is a hint, flags must be 0.",
    apis: &["cuMemAddressReserve"],
    sources: &[D_RESERVE],
    confidence: &[Doc],
    expect: Codes(&[cuda!(INVALID_VALUE)]),
    equivalents: &["HIP-VMM-011", "ACL-RSV-004"],
    check: Check::Cuda(vmm::reserve_alignment),
    ..CUDA
};

pub const CUDA_VMM_007: Rule = Rule {
    id: rule_id!("CUDA-VMM-007"),
    group: VMM,
    text: "cuMemAddressFree: ptr and size must match the reservation exactly.",
    apis: &["cuMemAddressFree"],
    sources: &[D_ADDRESS_FREE],
    confidence: &[Doc, Inferred],
    note: CODE_INFERRED,
    expect: Codes(&[cuda!(INVALID_VALUE)]),
    equivalents: &["ACL-REL-002"],
    check: Check::Cuda(vmm::address_free_exact),
    ..CUDA
};

pub const CUDA_VMM_008: Rule = Rule {
    id: rule_id!("CUDA-VMM-008"),
    group: VMM,
    text: "cuMemMap: inside a reservation and not mapped already; ptr, size and offset multiples of the MINIMUM granularity; offset must be 0; flags must be 0.",
    apis: &["cuMemMap"],
    sources: &[D_MAP],
    confidence: &[Doc],
    expect: Codes(&[cuda!(INVALID_VALUE)]),
    equivalents: &["HIP-VMM-014", "ACL-MAP-004", "ACL-MAP-003"],
    check: Check::Cuda(vmm::map_args),
    ..CUDA
};

pub const CUDA_VMM_009: Rule = Rule {
    id: rule_id!("CUDA-VMM-009"),
    group: VMM,
    text: "A partial map (size below the allocation's, offset 0) is documented but was refused in practice (mscclpp PR #501); the emulator allows it.",
    apis: &["cuMemMap"],
    sources: &[MSCCLPP_501, PROBES],
    confidence: &[Undetermined],
    note: UNDETERMINED_P1,
    expect: Behaviour,
    equivalents: &["HIP-VMM-016", "ACL-MAP-012"],
    check: Check::Cuda(vmm::partial_map),
    ..CUDA
};

pub const CUDA_VMM_010: Rule = Rule {
    id: rule_id!("CUDA-VMM-010"),
    group: VMM,
    text: "cuMemMap over an already-mapped range: 1 or 208 is undetermined; the emulator answers 1.",
    apis: &["cuMemMap"],
    sources: &[UR_1174, PROBES],
    confidence: &[Undetermined],
    note: UNDETERMINED_P3,
    expect: Codes(&[cuda!(INVALID_VALUE)]),
    equivalents: &["ACL-MAP-009"],
    check: Check::Cuda(vmm::map_over_mapping),
    ..CUDA
};

pub const CUDA_VMM_011: Rule = Rule {
    id: rule_id!("CUDA-VMM-011"),
    group: VMM,
    text: "cuMemUnmap must cover exactly a whole mapped range, no sub-range; the range reverts to a reservation and a re-map starts with no access.",
    apis: &["cuMemUnmap"],
    sources: &[D_UNMAP, HIP_TESTS],
    confidence: &[Doc, Inferred],
    expect: Codes(&[cuda!(INVALID_VALUE)]),
    equivalents: &["HIP-VMM-019", "ACL-UNMAP-002"],
    check: Check::Cuda(vmm::unmap_whole),
    ..CUDA
};

pub const CUDA_VMM_012: Rule = Rule {
    id: rule_id!("CUDA-VMM-012"),
    group: VMM,
    text: "A mapping grants no access: cuMemSetAccess is required, and a copy into a no-access or read-only range fails.",
    apis: &["cuMemSetAccess", "cuMemcpyHtoD"],
    sources: &[DOCS, HIP_TESTS],
    confidence: &[Doc, Inferred],
    expect: Codes(&[cuda!(INVALID_VALUE)]),
    equivalents: &["HIP-VMM-023", "ACL-ACC-003"],
    check: Check::Cuda(vmm::access_required),
    ..CUDA
};

pub const CUDA_VMM_013: Rule = Rule {
    id: rule_id!("CUDA-VMM-013"),
    group: VMM,
    text: "cuMemSetAccess: the range must be fully mapped; a host location on device memory → 801.",
    apis: &["cuMemSetAccess"],
    sources: &[D_SET_ACCESS, HIP_TESTS],
    confidence: &[Doc, Inferred],
    expect: Codes(&[cuda!(INVALID_VALUE), cuda!(NOT_SUPPORTED)]),
    equivalents: &["HIP-VMM-021", "ACL-ACC-005"],
    check: Check::Cuda(vmm::set_access_rules),
    ..CUDA
};

pub const CUDA_VMM_015: Rule = Rule {
    id: rule_id!("CUDA-VMM-015"),
    group: VMM,
    text: "cuMemExportToShareableHandle: flags must be 0 and the type must have been requested at cuMemCreate; the code of a mismatch is undetermined, 1 on the emulator.",
    apis: &["cuMemExportToShareableHandle"],
    sources: &[D_EXPORT, MEMMAP_IPC],
    confidence: &[Doc, Undetermined],
    note: UNDETERMINED_P6,
    expect: Codes(&[cuda!(INVALID_VALUE)]),
    equivalents: &["HIP-VMM-024", "ACL-EXP-001"],
    check: Check::Cuda(share::export_not_requested),
    ..CUDA
};

pub const CUDA_VMM_016: Rule = Rule {
    id: rule_id!("CUDA-VMM-016"),
    group: VMM,
    text: "Export of a POSIX fd writes an int; every export makes a new fd owned by the caller.",
    apis: &["cuMemExportToShareableHandle"],
    sources: &[D_EXPORT],
    confidence: &[Doc],
    expect: Behaviour,
    equivalents: &["HIP-VMM-025", "ACL-EXP-008"],
    check: Check::Cuda(share::export_writes_int),
    ..CUDA
};

pub const CUDA_VMM_017: Rule = Rule {
    id: rule_id!("CUDA-VMM-017"),
    group: VMM,
    text: "Import takes the fd value; the caller keeps the fd and may close it; every import needs its own cuMemRelease.",
    apis: &["cuMemImportFromShareableHandle"],
    sources: &[D_IMPORT, MEMMAP_IPC],
    confidence: &[Doc],
    expect: Behaviour,
    equivalents: &["HIP-VMM-026", "ACL-IMP-014"],
    requires: PEERS,
    check: Check::Cuda(share::import_in_peer),
    ..CUDA
};

pub const CUDA_VMM_018: Rule = Rule {
    id: rule_id!("CUDA-VMM-018"),
    group: VMM,
    text: "Import inside the exporting process (and a double import) is undocumented; the emulator allows it.",
    apis: &["cuMemImportFromShareableHandle"],
    sources: &[PROBES],
    confidence: &[Undetermined],
    note: UNDETERMINED_P7,
    expect: Behaviour,
    equivalents: &["HIP-VMM-028", "ACL-IMP-009"],
    check: Check::Cuda(share::import_in_exporter),
    ..CUDA
};

pub const CUDA_VMM_019: Rule = Rule {
    id: rule_id!("CUDA-VMM-019"),
    group: VMM,
    text: "cuMemRetainAllocationHandle on any address inside a mapping returns the mapped handle; each call needs a cuMemRelease.",
    apis: &["cuMemRetainAllocationHandle"],
    sources: &[D_RETAIN],
    confidence: &[Doc],
    expect: Behaviour,
    equivalents: &["HIP-VMM-033", "ACL-RET-001"],
    check: Check::Cuda(vmm::retain_inside),
    ..CUDA
};

pub const CUDA_VMM_020: Rule = Rule {
    id: rule_id!("CUDA-VMM-020"),
    group: VMM,
    text: "The data survives releasing every handle, closing every fd, and a peer exiting, while a mapping remains.",
    apis: &["cuMemRelease", "cuMemExportToShareableHandle"],
    sources: &[D_RELEASE],
    confidence: &[Doc],
    expect: Behaviour,
    equivalents: &["HIP-VMM-030", "ACL-LIFE-002"],
    requires: PEERS,
    check: Check::Cuda(share::data_outlives_handles),
    ..CUDA
};

/// Every CUDA rule, in the reference's order.
pub const CUDA_RULES: &[&Rule] = &[
    &CUDA_GEN_001,
    &CUDA_GEN_002,
    &CUDA_GEN_003,
    &CUDA_IPC_001,
    &CUDA_IPC_002,
    &CUDA_IPC_003,
    &CUDA_IPC_004,
    &CUDA_IPC_005,
    &CUDA_IPC_006,
    &CUDA_IPC_008,
    &CUDA_IPC_009,
    &CUDA_IPC_010,
    &CUDA_IPC_011,
    &CUDA_VMM_001,
    &CUDA_VMM_002,
    &CUDA_VMM_003,
    &CUDA_VMM_004,
    &CUDA_VMM_005,
    &CUDA_VMM_006,
    &CUDA_VMM_007,
    &CUDA_VMM_008,
    &CUDA_VMM_009,
    &CUDA_VMM_010,
    &CUDA_VMM_011,
    &CUDA_VMM_012,
    &CUDA_VMM_013,
    &CUDA_VMM_015,
    &CUDA_VMM_016,
    &CUDA_VMM_017,
    &CUDA_VMM_018,
    &CUDA_VMM_019,
    &CUDA_VMM_020,
];
