//! The ACL rules: every rule of reference acl.md §4 (ids kept), the combined
//! cases of §5 (`ACL-ORD-*`) and the sample flows of §7 (`ACL-FLOW-*`).
//!
//! One `const` per rule, in the reference's order; [`ACL_RULES`] lists them.
//! Fields left out take the defaults of [`ACL`]: dialect ACL, no note, no
//! equivalents yet, no requirements. Expected codes are the reference's;
//! where it marks a point undetermined, the expected value is its
//! recommended emulator behaviour and the confidence says `undetermined`.
#![forbid(unsafe_code)]

use crate::checks::acl::*;
use crate::rule::Confidence::{Doc, Inferred, Source as Src, Undetermined};
use crate::rule::Expect::{Behaviour, Codes, Observed};
use crate::rule::Source::{Doc as Page, Driver, Reference, Runtime};
use crate::rule::{Check, Dialect, Expect, Need, Rule, Source};
use crate::{acl, rule_id};

// ---- groups (JUnit classnames, report sections) -----------------------------

const DEVICE: &str = "acl.device";
const GRANULARITY: &str = "acl.vmm.granularity";
const PHYSICAL: &str = "acl.vmm.physical";
const RESERVE: &str = "acl.vmm.reserve";
const MAP: &str = "acl.vmm.map";
const ACCESS: &str = "acl.vmm.access";
const RETAIN: &str = "acl.vmm.retain";
const EXPORT: &str = "acl.share.export";
const TRUSTLIST: &str = "acl.share.trustlist";
const IMPORT: &str = "acl.share.import";
const LIFETIME: &str = "acl.share.lifetime";
const PEER: &str = "acl.peer";
const MEMORY: &str = "acl.memory";
const ORDER: &str = "acl.order";
const SAMPLE: &str = "acl.sample";

// ---- sources, as the reference names them ------------------------------------

const ACL_CPP: Source = Runtime("src/acl/aclrt_impl/acl.cpp");
const MEMORY_CPP: Source = Runtime("src/acl/aclrt_impl/memory.cpp");
const API_ERROR: Source = Runtime("src/runtime/api/impl/api_error.cc");
const API_IMPL: Source = Runtime("src/runtime/api/impl/api_impl.cc");
const API_C_DEVICE: Source = Runtime("src/runtime/api/api_c_device.cc");
const NPU_DRIVER: Source = Runtime("src/runtime/driver/npu_driver.cc");
const RUNTIME: Source = Runtime("runtime core");
const CMODEL: Source = Runtime("src/cmodel_driver, npu_driver_base.hpp");
const DEVMM: Source = Driver("src/ascend_hal/svm/v2/devmm/devmm_svm.c");
const MEM_CREATE: Source = Driver("src/sdk_driver/svm/v2/master/comm/svm_master_mem_create.c");
const MEM_MAP: Source = Driver("src/sdk_driver/svm/v2/master/comm/svm_master_mem_map.c");
const MEM_SHARE: Source = Driver("src/sdk_driver/svm/v2/master/comm/svm_master_mem_share.c");
const KERNEL: Source = Driver("kernel SVM module");
const ALLOCATOR: Source = Driver("VA allocator");

// ---- markings of §6 ------------------------------------------------------------

const DOC_VS_SOURCE: Option<&str> =
    Some("doc-vs-source: emulator follows source; real-hardware result recorded as observed");

/// The defaults of an ACL rule. Its check reports a suite defect, so a
/// rule that forgot its own check cannot pass.
pub const ACL: Rule = Rule {
    id: rule_id!("ACL-BASE-000"),
    dialect: Dialect::Acl,
    group: "acl",
    text: "",
    apis: &[],
    sources: &[],
    confidence: &[],
    note: None,
    expect: Expect::Behaviour,
    equivalents: &[],
    requires: &[],
    check: Check::Acl(missing_check),
};

const PEERS: &[Need] = &[Need::Peers];
const TWO_DEVICES: &[Need] = &[Need::Devices(2)];
const EXPORT_V2: Need = Need::Symbol("aclrtMemExportToShareableHandleV2");
const IMPORT_V2: Need = Need::Symbol("aclrtMemImportFromShareableHandleV2");

// ==== 4.1 General, initialisation and devices (ACL-GEN) =======================

pub const ACL_GEN_001: Rule = Rule {
    id: rule_id!("ACL-GEN-001"),
    group: DEVICE,
    text: "aclInit may be called once; a second call while initialised fails (and still counts a reference).",
    apis: &["aclInit"],
    sources: &[ACL_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(REPEAT_INITIALIZE)]),
    check: Check::Acl(general::init_twice),
    ..ACL
};

pub const ACL_GEN_002: Rule = Rule {
    id: rule_id!("ACL-GEN-002"),
    group: DEVICE,
    text: "aclFinalize tears everything down whatever the reference count; a second aclFinalize fails.",
    apis: &["aclFinalize"],
    sources: &[ACL_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(REPEAT_FINALIZE)]),
    check: Check::Acl(general::finalize_twice),
    ..ACL
};

pub const ACL_GEN_003: Rule = Rule {
    id: rule_id!("ACL-GEN-003"),
    group: DEVICE,
    text: "aclrtSetDevice requires 0 <= id < device count.",
    apis: &["aclrtSetDevice"],
    sources: &[API_ERROR],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_INVALID_DEVICEID)]),
    check: Check::Acl(general::set_device_out_of_range),
    ..ACL
};

pub const ACL_GEN_004: Rule = Rule {
    id: rule_id!("ACL-GEN-004"),
    group: DEVICE,
    text: "aclrtGetDevice fails when the thread has no current device.",
    apis: &["aclrtGetDevice"],
    sources: &[API_C_DEVICE],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_CONTEXT_NULL)]),
    check: Check::Acl(general::get_device_without_current),
    ..ACL
};

pub const ACL_GEN_005: Rule = Rule {
    id: rule_id!("ACL-GEN-005"),
    group: DEVICE,
    text: "Memcpy, CreateStream, Enable/DisablePeerAccess, Import V1/V2, Export V2 FABRIC and MallocPhysical with \
           HOST_NUMA need a current device or context.",
    apis: &[
        "aclrtMemcpy",
        "aclrtCreateStream",
        "aclrtDeviceEnablePeerAccess",
        "aclrtDeviceDisablePeerAccess",
        "aclrtMallocPhysical",
    ],
    sources: &[API_IMPL, MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_CONTEXT_NULL)]),
    check: Check::Acl(general::current_device_required),
    ..ACL
};

pub const ACL_GEN_006: Rule = Rule {
    id: rule_id!("ACL-GEN-006"),
    group: DEVICE,
    text: "Device ids passed to VMM APIs (DEVICE prop.location.id, Import deviceId) must be in [0, count-1].",
    apis: &["aclrtMallocPhysical", "aclrtMemImportFromShareableHandle"],
    sources: &[Page("aclrtMemImportFromShareableHandle page"), API_ERROR],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(RT_INVALID_DEVICEID)]),
    check: Check::Acl(general::vmm_device_ids),
    ..ACL
};

pub const ACL_GEN_007: Rule = Rule {
    id: rule_id!("ACL-GEN-007"),
    group: DEVICE,
    text: "Reserve, MallocPhysical (DEVICE), MapMem, granularity and Export V1 called before any aclrtSetDevice \
           (emulator: allowed).",
    apis: &[
        "aclrtReserveMemAddress",
        "aclrtMallocPhysical",
        "aclrtMapMem",
        "aclrtMemGetAllocationGranularity",
        "aclrtMemExportToShareableHandle",
    ],
    sources: &[],
    confidence: &[Undetermined],
    note: Some("undetermined: emulator choice (allow)"),
    expect: Codes(&[acl!(SUCCESS)]),
    check: Check::Acl(general::vmm_before_set_device),
    ..ACL
};

pub const ACL_GEN_008: Rule = Rule {
    id: rule_id!("ACL-GEN-008"),
    group: DEVICE,
    text: "VMM APIs called before aclInit (emulator: allowed).",
    apis: &["aclrtMemGetAllocationGranularity", "aclrtMallocPhysical", "aclrtReserveMemAddress", "aclrtMapMem"],
    sources: &[],
    confidence: &[Undetermined],
    note: Some("undetermined: emulator choice (allow)"),
    expect: Codes(&[acl!(SUCCESS)]),
    check: Check::Acl(general::vmm_before_init),
    ..ACL
};

pub const ACL_GEN_009: Rule = Rule {
    id: rule_id!("ACL-GEN-009"),
    group: DEVICE,
    text: "Export, import and set-pid are unsupported in compute-group (split) mode and in virtual instances.",
    apis: &["aclrtMemExportToShareableHandle", "aclrtMemImportFromShareableHandle", "aclrtMemSetPidToShareableHandle"],
    sources: &[Page("aclrtMemExportToShareableHandle page"), DEVMM],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
    check: Check::Acl(unreachable::compute_group_mode),
    ..ACL
};

pub const ACL_GEN_010: Rule = Rule {
    id: rule_id!("ACL-GEN-010"),
    group: DEVICE,
    text: "On the chip simulator (C-model driver stub) every VMM API returns not supported.",
    apis: &["aclrtMallocPhysical", "aclrtReserveMemAddress", "aclrtMapMem"],
    sources: &[CMODEL],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
    check: Check::Acl(unreachable::chip_simulator),
    ..ACL
};

// ==== 4.2 Granularity (ACL-GRAN) ================================================

pub const ACL_GRAN_001: Rule = Rule {
    id: rule_id!("ACL-GRAN-001"),
    group: GRANULARITY,
    text: "`prop` and `granularity` must be non-NULL.",
    apis: &["aclrtMemGetAllocationGranularity"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(granularity::null_pointers),
    ..ACL
};

pub const ACL_GRAN_002: Rule = Rule {
    id: rule_id!("ACL-GRAN-002"),
    group: GRANULARITY,
    text: "DDR attrs (2, 3, 6, 7) are host-only; with a DEVICE location they are rejected.",
    apis: &["aclrtMemGetAllocationGranularity"],
    sources: &[Page("aclrtMallocPhysical page"), MEMORY_CPP],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(granularity::ddr_on_device),
    ..ACL
};

pub const ACL_GRAN_003: Rule = Rule {
    id: rule_id!("ACL-GRAN-003"),
    group: GRANULARITY,
    text: "memAttr must be one of 2-7, 10, 12-17; 0, 1, 8, 9, 11 and out-of-range values are rejected.",
    apis: &["aclrtMemGetAllocationGranularity"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(granularity::unknown_attr),
    ..ACL
};

pub const ACL_GRAN_004: Rule = Rule {
    id: rule_id!("ACL-GRAN-004"),
    group: GRANULARITY,
    text: "A DEVICE location id must be a valid device.",
    apis: &["aclrtMemGetAllocationGranularity"],
    sources: &[API_ERROR],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_INVALID_DEVICEID)]),
    check: Check::Acl(granularity::bad_device),
    ..ACL
};

pub const ACL_GRAN_005: Rule = Rule {
    id: rule_id!("ACL-GRAN-005"),
    group: GRANULARITY,
    text: "`option` must be MINIMUM (0) or RECOMMENDED (1); UNDEF (0xFFFF) and any other value are rejected.",
    apis: &["aclrtMemGetAllocationGranularity"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
    check: Check::Acl(granularity::bad_option),
    ..ACL
};

pub const ACL_GRAN_006: Rule = Rule {
    id: rule_id!("ACL-GRAN-006"),
    group: GRANULARITY,
    text: "Location type MANAGED (3) or >= 5 is rejected.",
    apis: &["aclrtMemGetAllocationGranularity"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(granularity::bad_location_type),
    ..ACL
};

pub const ACL_GRAN_007: Rule = Rule {
    id: rule_id!("ACL-GRAN-007"),
    group: GRANULARITY,
    text: "`prop.reserve` must be 0.",
    apis: &["aclrtMemGetAllocationGranularity"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(granularity::reserve_nonzero),
    ..ACL
};

pub const ACL_GRAN_008: Rule = Rule {
    id: rule_id!("ACL-GRAN-008"),
    group: GRANULARITY,
    text: "1G attrs need giant-page support: a device without it is rejected, and so is a host location with any 1G \
           attr other than 17.",
    apis: &["aclrtMemGetAllocationGranularity"],
    sources: &[DEVMM],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
    check: Check::Acl(granularity::giant_pages),
    ..ACL
};

pub const ACL_GRAN_009: Rule = Rule {
    id: rule_id!("ACL-GRAN-009"),
    group: GRANULARITY,
    text: "The result is 2 MiB for every accepted non-1G attr and 1 GiB for attrs 10, 14, 17; MINIMUM and \
           RECOMMENDED agree.",
    apis: &["aclrtMemGetAllocationGranularity"],
    sources: &[DEVMM],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(SUCCESS)]),
    check: Check::Acl(granularity::values),
    ..ACL
};

pub const ACL_GRAN_010: Rule = Rule {
    id: rule_id!("ACL-GRAN-010"),
    group: GRANULARITY,
    text: "HBM attrs with a HOST location are accepted (torch's host allocator relies on this).",
    apis: &["aclrtMemGetAllocationGranularity"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(SUCCESS)]),
    check: Check::Acl(granularity::hbm_on_host),
    ..ACL
};

// ==== 4.3 Physical allocation (ACL-MP) and free (ACL-FP) ========================

pub const ACL_MP_001: Rule = Rule {
    id: rule_id!("ACL-MP-001"),
    group: PHYSICAL,
    text: "`handle` and `prop` must be non-NULL.",
    apis: &["aclrtMallocPhysical"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(physical::null_pointers),
    ..ACL
};

pub const ACL_MP_002: Rule = Rule {
    id: rule_id!("ACL-MP-002"),
    group: PHYSICAL,
    text: "`size` must be non-zero.",
    apis: &["aclrtMallocPhysical"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(physical::zero_size),
    ..ACL
};

pub const ACL_MP_003: Rule = Rule {
    id: rule_id!("ACL-MP-003"),
    group: PHYSICAL,
    text: "`flags` must be 0.",
    apis: &["aclrtMallocPhysical"],
    sources: &[Page("aclrtMallocPhysical page"), MEMORY_CPP],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(physical::nonzero_flags),
    ..ACL
};

pub const ACL_MP_004: Rule = Rule {
    id: rule_id!("ACL-MP-004"),
    group: PHYSICAL,
    text: "`prop.handleType` must be NONE (POSIX = 2 is rejected).",
    apis: &["aclrtMallocPhysical"],
    sources: &[Page("aclrtPhysicalMemProp struct page"), MEMORY_CPP],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(physical::handle_type),
    ..ACL
};

pub const ACL_MP_005: Rule = Rule {
    id: rule_id!("ACL-MP-005"),
    group: PHYSICAL,
    text: "`prop.allocationType` must be PINNED.",
    apis: &["aclrtMallocPhysical"],
    sources: &[Page("aclrtPhysicalMemProp struct page"), MEMORY_CPP],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(physical::allocation_type),
    ..ACL
};

pub const ACL_MP_006: Rule = Rule {
    id: rule_id!("ACL-MP-006"),
    group: PHYSICAL,
    text: "Location types UNREGISTERED and MANAGED are rejected.",
    apis: &["aclrtMallocPhysical"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(physical::unsupported_location),
    ..ACL
};

pub const ACL_MP_007: Rule = Rule {
    id: rule_id!("ACL-MP-007"),
    group: PHYSICAL,
    text: "Attribute rules as in ACL-GRAN-002 and ACL-GRAN-003 (DDR attrs host-only, unknown attrs rejected).",
    apis: &["aclrtMallocPhysical"],
    sources: &[MEMORY_CPP],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(physical::bad_attr),
    ..ACL
};

pub const ACL_MP_008: Rule = Rule {
    id: rule_id!("ACL-MP-008"),
    group: PHYSICAL,
    text: "A DEVICE location id must be a valid device.",
    apis: &["aclrtMallocPhysical"],
    sources: &[API_ERROR],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(RT_INVALID_DEVICEID)]),
    check: Check::Acl(physical::bad_device),
    ..ACL
};

pub const ACL_MP_009: Rule = Rule {
    id: rule_id!("ACL-MP-009"),
    group: PHYSICAL,
    text: "HOST_NUMA needs a current context (else 107002) and driver support (else 207000).",
    apis: &["aclrtMallocPhysical"],
    sources: &[API_ERROR],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_CONTEXT_NULL), acl!(RT_FEATURE_NOT_SUPPORT)]),
    check: Check::Acl(physical::host_numa),
    ..ACL
};

pub const ACL_MP_010: Rule = Rule {
    id: rule_id!("ACL-MP-010"),
    group: PHYSICAL,
    text: "A 1G attr on a chip or driver without 1G pages is rejected.",
    apis: &["aclrtMallocPhysical"],
    sources: &[Page("aclrtMallocPhysical page"), NPU_DRIVER, DEVMM],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
    check: Check::Acl(physical::giant_pages_unsupported),
    ..ACL
};

pub const ACL_MP_011: Rule = Rule {
    id: rule_id!("ACL-MP-011"),
    group: PHYSICAL,
    text: "A HOST location must have id 0.",
    apis: &["aclrtMallocPhysical"],
    sources: &[DEVMM],
    confidence: &[Src],
    note: Some("doc-vs-source (D8): the doc says the id is ignored; emulator follows source"),
    expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
    check: Check::Acl(physical::host_id_nonzero),
    ..ACL
};

pub const ACL_MP_012: Rule = Rule {
    id: rule_id!("ACL-MP-012"),
    group: PHYSICAL,
    text: "Location type >= 5 is rejected, and so is `prop.reserve` != 0.",
    apis: &["aclrtMallocPhysical"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(physical::location_type_or_reserve),
    ..ACL
};

pub const ACL_MP_013: Rule = Rule {
    id: rule_id!("ACL-MP-013"),
    group: PHYSICAL,
    text: "For non-1G attrs the size must be a multiple of 2 MiB.",
    apis: &["aclrtMallocPhysical"],
    sources: &[Page("aclrtMallocPhysical page (English)"), MEM_CREATE],
    confidence: &[Doc, Src],
    note: Some("D6: the Chinese page only recommends alignment"),
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    check: Check::Acl(physical::size_not_2mib_multiple),
    ..ACL
};

pub const ACL_MP_014: Rule = Rule {
    id: rule_id!("ACL-MP-014"),
    group: PHYSICAL,
    text: "For 1G attrs any nonzero size is accepted and silently rounded up to a multiple of 1 GiB.",
    apis: &["aclrtMallocPhysical"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Codes(&[acl!(SUCCESS)]),
    check: Check::Acl(physical::giant_size_rounded),
    ..ACL
};

pub const ACL_MP_015: Rule = Rule {
    id: rule_id!("ACL-MP-015"),
    group: PHYSICAL,
    text: "Insufficient physical memory fails the allocation.",
    apis: &["aclrtMallocPhysical"],
    sources: &[Driver("kernel ENOMEM")],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_MEMORY_ALLOCATION)]),
    requires: &[Need::DeviceMemory(16 << 20)],
    check: Check::Acl(physical::out_of_memory),
    ..ACL
};

pub const ACL_MP_016: Rule = Rule {
    id: rule_id!("ACL-MP-016"),
    group: PHYSICAL,
    text: "\"Normal\" attrs (5, 12, 15) are still backed by 2 MiB pages.",
    apis: &["aclrtMallocPhysical", "aclrtMemGetAllocationGranularity"],
    sources: &[Page("aclrtMallocPhysical page"), KERNEL],
    confidence: &[Doc, Src],
    expect: Behaviour,
    check: Check::Acl(physical::normal_attrs_2mib_pages),
    ..ACL
};

pub const ACL_MP_017: Rule = Rule {
    id: rule_id!("ACL-MP-017"),
    group: PHYSICAL,
    text: "The returned handle is valid only in the calling process.",
    apis: &["aclrtMallocPhysical", "aclrtMapMem"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Behaviour,
    requires: PEERS,
    check: Check::Acl(physical::handle_is_process_local),
    ..ACL
};

pub const ACL_FP_001: Rule = Rule {
    id: rule_id!("ACL-FP-001"),
    group: PHYSICAL,
    text: "`handle` must be non-NULL.",
    apis: &["aclrtFreePhysical"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(physical::free_null),
    ..ACL
};

pub const ACL_FP_002: Rule = Rule {
    id: rule_id!("ACL-FP-002"),
    group: PHYSICAL,
    text: "Freeing a handle that is still mapped succeeds; the memory is released at the last unmap.",
    apis: &["aclrtFreePhysical", "aclrtUnmapMem"],
    sources: &[Page("aclrtFreePhysical page"), DEVMM],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(SUCCESS)]),
    check: Check::Acl(physical::free_while_mapped),
    ..ACL
};

pub const ACL_FP_003: Rule = Rule {
    id: rule_id!("ACL-FP-003"),
    group: PHYSICAL,
    text: "Freeing once more when only mapping references remain (freed but still mapped) is rejected.",
    apis: &["aclrtFreePhysical"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(physical::free_beyond_references),
    ..ACL
};

pub const ACL_FP_004: Rule = Rule {
    id: rule_id!("ACL-FP-004"),
    group: PHYSICAL,
    text: "Freeing an unknown or already destroyed handle (a use-after-free in the real library; emulator: 107000).",
    apis: &["aclrtFreePhysical"],
    sources: &[],
    confidence: &[Undetermined],
    note: Some("undetermined: emulator choice (validate against the live-handle table)"),
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(physical::free_stale),
    ..ACL
};

pub const ACL_FP_005: Rule = Rule {
    id: rule_id!("ACL-FP-005"),
    group: PHYSICAL,
    text: "Each MallocPhysical, each successful import and each RetainAllocationHandle needs exactly one FreePhysical.",
    apis: &["aclrtFreePhysical", "aclrtMemRetainAllocationHandle"],
    sources: &[Page("aclrtMemRetainAllocationHandle page"), KERNEL],
    confidence: &[Doc, Src],
    expect: Behaviour,
    check: Check::Acl(physical::one_free_per_reference),
    ..ACL
};

// ==== 4.4 Reservation (ACL-RSV) and release (ACL-REL) ============================

pub const ACL_RSV_001: Rule = Rule {
    id: rule_id!("ACL-RSV-001"),
    group: RESERVE,
    text: "`virPtr` must be non-NULL.",
    apis: &["aclrtReserveMemAddress"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(reservation::null_out),
    ..ACL
};

pub const ACL_RSV_002: Rule = Rule {
    id: rule_id!("ACL-RSV-002"),
    group: RESERVE,
    text: "`size` must be non-zero.",
    apis: &["aclrtReserveMemAddress"],
    sources: &[Page("aclrtReserveMemAddress page"), MEMORY_CPP],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(reservation::zero_size),
    ..ACL
};

pub const ACL_RSV_003: Rule = Rule {
    id: rule_id!("ACL-RSV-003"),
    group: RESERVE,
    text: "`flags` must be 0 or 1 (1 is kept for backward compatibility and used by most clients).",
    apis: &["aclrtReserveMemAddress"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    note: Some("D7: the doc says 0"),
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(reservation::flags),
    ..ACL
};

pub const ACL_RSV_004: Rule = Rule {
    id: rule_id!("ACL-RSV-004"),
    group: RESERVE,
    text: "`alignment` must be 0; the ACL layer does not check it, the driver does.",
    apis: &["aclrtReserveMemAddress"],
    sources: &[Page("aclrtReserveMemAddress page"), DEVMM],
    confidence: &[Doc, Src],
    note: Some("D5: 107000, not 100000"),
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(reservation::alignment),
    ..ACL
};

pub const ACL_RSV_005: Rule = Rule {
    id: rule_id!("ACL-RSV-005"),
    group: RESERVE,
    text: "A non-NULL `expectPtr` must be aligned: 1 GiB above 512 MiB, else 2 MiB and, above 2 MiB, the smallest \
           power of two >= size.",
    apis: &["aclrtReserveMemAddress"],
    sources: &[DEVMM],
    confidence: &[Src],
    note: Some("doc-vs-source (D4): doc thresholds differ; emulator follows source"),
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(reservation::expect_ptr_alignment),
    ..ACL
};

pub const ACL_RSV_006: Rule = Rule {
    id: rule_id!("ACL-RSV-006"),
    group: RESERVE,
    text: "`expectPtr` must lie in the 16-24 TiB window and not overlap a reservation (occupied: 507899; outside the \
           window: emulator 107000).",
    apis: &["aclrtReserveMemAddress"],
    sources: &[Page("aclrtReserveMemAddress page"), ALLOCATOR],
    confidence: &[Doc, Inferred],
    note: Some("outside the window: undetermined, emulator choice"),
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR), acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(reservation::expect_ptr_placement),
    ..ACL
};

pub const ACL_RSV_007: Rule = Rule {
    id: rule_id!("ACL-RSV-007"),
    group: RESERVE,
    text: "0 < size < 2 MiB succeeds and reserves 2 MiB (torch probes with size 512 and flags 1).",
    apis: &["aclrtReserveMemAddress"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Codes(&[acl!(SUCCESS)]),
    check: Check::Acl(reservation::small_request),
    ..ACL
};

pub const ACL_RSV_008: Rule = Rule {
    id: rule_id!("ACL-RSV-008"),
    group: RESERVE,
    text: "Returned addresses lie in [16 TiB, 24 TiB) and are at least 2 MiB aligned.",
    apis: &["aclrtReserveMemAddress"],
    sources: &[KERNEL],
    confidence: &[Src],
    expect: Behaviour,
    check: Check::Acl(reservation::address_window),
    ..ACL
};

pub const ACL_RSV_009: Rule = Rule {
    id: rule_id!("ACL-RSV-009"),
    group: RESERVE,
    text: "A request larger than the window, or with no free range left, fails.",
    apis: &["aclrtReserveMemAddress"],
    sources: &[ALLOCATOR],
    confidence: &[Inferred],
    expect: Codes(&[acl!(RT_MEMORY_ALLOCATION)]),
    check: Check::Acl(reservation::too_large),
    ..ACL
};

pub const ACL_RSV_010: Rule = Rule {
    id: rule_id!("ACL-RSV-010"),
    group: RESERVE,
    text: "A reservation is not bound to any device until its first successful MapMem.",
    apis: &["aclrtReserveMemAddress", "aclrtMapMem"],
    sources: &[KERNEL],
    confidence: &[Src],
    expect: Behaviour,
    requires: TWO_DEVICES,
    check: Check::Acl(reservation::unbound_until_mapped),
    ..ACL
};

pub const ACL_REL_001: Rule = Rule {
    id: rule_id!("ACL-REL-001"),
    group: RESERVE,
    text: "`virPtr` must be non-NULL.",
    apis: &["aclrtReleaseMemAddress"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(reservation::release_null),
    ..ACL
};

pub const ACL_REL_002: Rule = Rule {
    id: rule_id!("ACL-REL-002"),
    group: RESERVE,
    text: "`virPtr` must be the start of a live reservation; unknown, interior and aclrtMalloc addresses are rejected.",
    apis: &["aclrtReleaseMemAddress"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(reservation::release_not_start),
    ..ACL
};

pub const ACL_REL_003: Rule = Rule {
    id: rule_id!("ACL-REL-003"),
    group: RESERVE,
    text: "aclrtFree on a reserved address is rejected.",
    apis: &["aclrtFree"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(reservation::free_on_reservation),
    ..ACL
};

pub const ACL_REL_004: Rule = Rule {
    id: rule_id!("ACL-REL-004"),
    group: RESERVE,
    text: "Releasing a reservation that still has mappings (emulator: succeeds and unmaps them implicitly).",
    apis: &["aclrtReleaseMemAddress"],
    sources: &[Page("aclrtReleaseMemAddress page")],
    confidence: &[Doc, Undetermined],
    note: Some("doc requires unmapping first; no enforcing check found; emulator choice: 0 plus implicit unmap"),
    expect: Codes(&[acl!(SUCCESS)]),
    check: Check::Acl(reservation::release_with_mappings),
    ..ACL
};

// ==== 4.5 Mapping (ACL-MAP, ACL-UNMAP) ===========================================

pub const ACL_MAP_001: Rule = Rule {
    id: rule_id!("ACL-MAP-001"),
    group: MAP,
    text: "`virPtr` and `handle` must be non-NULL.",
    apis: &["aclrtMapMem"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(mapping::null_pointers),
    ..ACL
};

pub const ACL_MAP_002: Rule = Rule {
    id: rule_id!("ACL-MAP-002"),
    group: MAP,
    text: "`size` must be non-zero.",
    apis: &["aclrtMapMem"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(mapping::zero_size),
    ..ACL
};

pub const ACL_MAP_003: Rule = Rule {
    id: rule_id!("ACL-MAP-003"),
    group: MAP,
    text: "`flags` must be 0.",
    apis: &["aclrtMapMem"],
    sources: &[Page("aclrtMapMem page"), MEMORY_CPP],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(mapping::nonzero_flags),
    ..ACL
};

pub const ACL_MAP_004: Rule = Rule {
    id: rule_id!("ACL-MAP-004"),
    group: MAP,
    text: "`offset` must be 0; the ACL layer does not check it, the driver does.",
    apis: &["aclrtMapMem"],
    sources: &[Page("aclrtMapMem page"), DEVMM],
    confidence: &[Doc, Src],
    note: Some("D5: 107000, not 100000"),
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(mapping::nonzero_offset),
    ..ACL
};

pub const ACL_MAP_005: Rule = Rule {
    id: rule_id!("ACL-MAP-005"),
    group: MAP,
    text: "`handle` must be a live handle of this process.",
    apis: &["aclrtMapMem"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(mapping::dead_handle),
    ..ACL
};

pub const ACL_MAP_006: Rule = Rule {
    id: rule_id!("ACL-MAP-006"),
    group: MAP,
    text: "`virPtr` must lie inside a live reservation; an aclrtMalloc or random address is rejected.",
    apis: &["aclrtMapMem"],
    sources: &[MEM_MAP],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    check: Check::Acl(mapping::outside_reservation),
    ..ACL
};

pub const ACL_MAP_007: Rule = Rule {
    id: rule_id!("ACL-MAP-007"),
    group: MAP,
    text: "`virPtr` and `size` must be multiples of 2 MiB (1 GiB for 1G handles).",
    apis: &["aclrtMapMem"],
    sources: &[Page("aclrtMapMem page"), KERNEL],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    check: Check::Acl(mapping::misaligned),
    ..ACL
};

pub const ACL_MAP_008: Rule = Rule {
    id: rule_id!("ACL-MAP-008"),
    group: MAP,
    text: "`virPtr + size` must not pass the end of the reservation.",
    apis: &["aclrtMapMem"],
    sources: &[MEM_MAP],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    check: Check::Acl(mapping::past_end),
    ..ACL
};

pub const ACL_MAP_009: Rule = Rule {
    id: rule_id!("ACL-MAP-009"),
    group: MAP,
    text: "No page of the range may already be mapped.",
    apis: &["aclrtMapMem"],
    sources: &[MEM_MAP],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    check: Check::Acl(mapping::already_mapped),
    ..ACL
};

pub const ACL_MAP_010: Rule = Rule {
    id: rule_id!("ACL-MAP-010"),
    group: MAP,
    text: "A reservation holds memory of one device: the first successful map binds it, the binding remains after \
           unmapping, and another device's handle is rejected.",
    apis: &["aclrtMapMem"],
    sources: &[Page("aclrtMapMem page"), MEM_MAP],
    confidence: &[Doc, Src],
    note: Some("D14: source is stricter than the doc (binding is sticky)"),
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    requires: TWO_DEVICES,
    check: Check::Acl(mapping::one_device_per_reservation),
    ..ACL
};

pub const ACL_MAP_011: Rule = Rule {
    id: rule_id!("ACL-MAP-011"),
    group: MAP,
    text: "`virPtr` need not be the reservation start; several handles can be mapped side by side in one reservation.",
    apis: &["aclrtMapMem"],
    sources: &[Page("aclrtMapMem page")],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(SUCCESS)]),
    check: Check::Acl(mapping::side_by_side),
    ..ACL
};

pub const ACL_MAP_012: Rule = Rule {
    id: rule_id!("ACL-MAP-012"),
    group: MAP,
    text: "`size` must equal the physical allocation's size (doc; emulator: 507899).",
    apis: &["aclrtMapMem"],
    sources: &[Page("aclrtMapMem page")],
    confidence: &[Doc, Undetermined],
    note: Some("D12: undetermined (device firmware); real result recorded as observed"),
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    check: Check::Acl(mapping::size_differs),
    ..ACL
};

pub const ACL_MAP_013: Rule = Rule {
    id: rule_id!("ACL-MAP-013"),
    group: MAP,
    text: "Mixing locally allocated and imported handles in one reservation is not checked (the doc forbids it; \
           shmem does it): allowed.",
    apis: &["aclrtMapMem"],
    sources: &[Page("aclrtMapMem page")],
    confidence: &[Doc, Undetermined],
    note: Some("D13: doc-only rule; emulator permissive; real result recorded"),
    expect: Codes(&[acl!(SUCCESS)]),
    requires: PEERS,
    check: Check::Acl(mapping::mixed_local_imported),
    ..ACL
};

pub const ACL_MAP_014: Rule = Rule {
    id: rule_id!("ACL-MAP-014"),
    group: MAP,
    text: "The same handle may be mapped at several VAs at once.",
    apis: &["aclrtMapMem"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Codes(&[acl!(SUCCESS)]),
    check: Check::Acl(mapping::same_handle_twice),
    ..ACL
};

pub const ACL_MAP_015: Rule = Rule {
    id: rule_id!("ACL-MAP-015"),
    group: MAP,
    text: "Unmap followed by a new map at the same VA works, with the same or a new handle of the same device.",
    apis: &["aclrtMapMem", "aclrtUnmapMem"],
    sources: &[KERNEL],
    confidence: &[Src],
    expect: Codes(&[acl!(SUCCESS)]),
    check: Check::Acl(mapping::remap_same_va),
    ..ACL
};

pub const ACL_MAP_016: Rule = Rule {
    id: rule_id!("ACL-MAP-016"),
    group: MAP,
    text: "An imported handle belongs to the importing device (the `deviceId` passed, or the current device for V2).",
    apis: &["aclrtMemImportFromShareableHandle", "aclrtMapMem"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Behaviour,
    requires: &[Need::Devices(2), Need::Peers],
    check: Check::Acl(mapping::imported_handle_device),
    ..ACL
};

pub const ACL_UNMAP_001: Rule = Rule {
    id: rule_id!("ACL-UNMAP-001"),
    group: MAP,
    text: "`virPtr` must be non-NULL.",
    apis: &["aclrtUnmapMem"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(mapping::unmap_null),
    ..ACL
};

pub const ACL_UNMAP_002: Rule = Rule {
    id: rule_id!("ACL-UNMAP-002"),
    group: MAP,
    text: "`virPtr` must be the exact start of a live mapping; interior and unmapped addresses are rejected.",
    apis: &["aclrtUnmapMem"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    check: Check::Acl(mapping::unmap_not_start),
    ..ACL
};

pub const ACL_UNMAP_003: Rule = Rule {
    id: rule_id!("ACL-UNMAP-003"),
    group: MAP,
    text: "Unmapping the last mapping of an already freed handle releases it.",
    apis: &["aclrtUnmapMem", "aclrtFreePhysical"],
    sources: &[KERNEL],
    confidence: &[Src],
    expect: Codes(&[acl!(SUCCESS)]),
    check: Check::Acl(mapping::unmap_last_releases),
    ..ACL
};

// ==== 4.6 Access rights (ACL-ACC) ===============================================

pub const ACL_ACC_001: Rule = Rule {
    id: rule_id!("ACL-ACC-001"),
    group: ACCESS,
    text: "SetAccess: `virPtr` and `desc` must be non-NULL (checked by RT, not ACL).",
    apis: &["aclrtMemSetAccess"],
    sources: &[API_ERROR],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(access::null_pointers),
    ..ACL
};

pub const ACL_ACC_002: Rule = Rule {
    id: rule_id!("ACL-ACC-002"),
    group: ACCESS,
    text: "SetAccess: `count` must be >= 1.",
    apis: &["aclrtMemSetAccess"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(access::zero_count),
    ..ACL
};

pub const ACL_ACC_003: Rule = Rule {
    id: rule_id!("ACL-ACC-003"),
    group: ACCESS,
    text: "Only READWRITE (3) is supported: NONE (0) and READ (1) are unsupported, any other value is invalid.",
    apis: &["aclrtMemSetAccess"],
    sources: &[Page("aclrtMemAccessDesc struct page"), KERNEL],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT), acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(access::flags),
    ..ACL
};

pub const ACL_ACC_004: Rule = Rule {
    id: rule_id!("ACL-ACC-004"),
    group: ACCESS,
    text: "The location must be HOST with id 0 or DEVICE with id < 64.",
    apis: &["aclrtMemSetAccess"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(access::location),
    ..ACL
};

pub const ACL_ACC_005: Rule = Rule {
    id: rule_id!("ACL-ACC-005"),
    group: ACCESS,
    text: "`virPtr` and `size` must describe a mapped range (the doc: equal to the MapMem values).",
    apis: &["aclrtMemSetAccess"],
    sources: &[Page("aclrtMemSetAccess page"), KERNEL],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    check: Check::Acl(access::unmapped_range),
    ..ACL
};

pub const ACL_ACC_006: Rule = Rule {
    id: rule_id!("ACL-ACC-006"),
    group: ACCESS,
    text: "Granting access to the device that owns the memory is a successful no-op.",
    apis: &["aclrtMemSetAccess"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Codes(&[acl!(SUCCESS)]),
    check: Check::Acl(access::owner_device),
    ..ACL
};

pub const ACL_ACC_007: Rule = Rule {
    id: rule_id!("ACL-ACC-007"),
    group: ACCESS,
    text: "Repeating an identical grant succeeds; a different size for the same location is rejected.",
    apis: &["aclrtMemSetAccess"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR), acl!(SUCCESS)]),
    requires: TWO_DEVICES,
    check: Check::Acl(access::repeat_grant),
    ..ACL
};

pub const ACL_ACC_008: Rule = Rule {
    id: rule_id!("ACL-ACC-008"),
    group: ACCESS,
    text: "With count > 1 the real runtime reads descriptors at the wrong stride (24-byte ACL struct read as 20-byte \
           driver struct); the emulator reads proper 24-byte entries.",
    apis: &["aclrtMemSetAccess"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    note: Some("D11: real-hardware quirk; real result recorded as observed; not a pass/fail criterion"),
    expect: Observed,
    requires: TWO_DEVICES,
    check: Check::Acl(access::several_descriptors),
    ..ACL
};

pub const ACL_ACC_009: Rule = Rule {
    id: rule_id!("ACL-ACC-009"),
    group: ACCESS,
    text: "GetAccess: every pointer must be non-NULL.",
    apis: &["aclrtMemGetAccess"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(access::get_null_pointers),
    ..ACL
};

pub const ACL_ACC_010: Rule = Rule {
    id: rule_id!("ACL-ACC-010"),
    group: ACCESS,
    text: "GetAccess returns the flags `location` has on the mapping at `virPtr` (READWRITE for the owner device); \
           an unmapped `virPtr` is rejected.",
    apis: &["aclrtMemGetAccess"],
    sources: &[Page("aclrtMemGetAccess page"), KERNEL],
    confidence: &[Doc, Inferred],
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR), acl!(SUCCESS)]),
    check: Check::Acl(access::get_flags),
    ..ACL
};

// ==== 4.7 Export (ACL-EXP) ======================================================

pub const ACL_EXP_001: Rule = Rule {
    id: rule_id!("ACL-EXP-001"),
    group: EXPORT,
    text: "V1 checks, in order: `handle` non-NULL, `handleType` == NONE, `shareableHandle` non-NULL.",
    apis: &["aclrtMemExportToShareableHandle"],
    sources: &[Page("aclrtMemExportToShareableHandle page"), MEMORY_CPP],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(export::v1_arguments),
    ..ACL
};

pub const ACL_EXP_002: Rule = Rule {
    id: rule_id!("ACL-EXP-002"),
    group: EXPORT,
    text: "`flags` must be DEFAULT (0) or DISABLE_PID_VALIDATION (1) (V1 and V2).",
    apis: &["aclrtMemExportToShareableHandle", "aclrtMemExportToShareableHandleV2"],
    sources: &[Page("aclrtMemExportToShareableHandle page"), API_ERROR],
    confidence: &[Doc, Src],
    note: Some("D10: the V2 header comment says reserved, must be 0"),
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(export::flags),
    ..ACL
};

pub const ACL_EXP_003: Rule = Rule {
    id: rule_id!("ACL-EXP-003"),
    group: EXPORT,
    text: "V2: `handle` and `shareableHandle` must be non-NULL.",
    apis: &["aclrtMemExportToShareableHandleV2"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    requires: &[EXPORT_V2],
    check: Check::Acl(export::v2_null_pointers),
    ..ACL
};

pub const ACL_EXP_004: Rule = Rule {
    id: rule_id!("ACL-EXP-004"),
    group: EXPORT,
    text: "V2: `shareType` must be DEFAULT (1) or FABRIC (2).",
    apis: &["aclrtMemExportToShareableHandleV2"],
    sources: &[API_ERROR],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    requires: &[EXPORT_V2],
    check: Check::Acl(export::v2_share_type),
    ..ACL
};

pub const ACL_EXP_005: Rule = Rule {
    id: rule_id!("ACL-EXP-005"),
    group: EXPORT,
    text: "V2 FABRIC needs a current context (107002) and a platform with a server id, i.e. A3 (207000 otherwise).",
    apis: &["aclrtMemExportToShareableHandleV2"],
    sources: &[Page("aclrtMemExportToShareableHandleV2 page"), API_IMPL],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(RT_CONTEXT_NULL), acl!(RT_FEATURE_NOT_SUPPORT)]),
    requires: &[EXPORT_V2],
    check: Check::Acl(export::v2_fabric),
    ..ACL
};

pub const ACL_EXP_006: Rule = Rule {
    id: rule_id!("ACL-EXP-006"),
    group: EXPORT,
    text: "`handle` must be a live handle.",
    apis: &["aclrtMemExportToShareableHandle"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(export::dead_handle),
    ..ACL
};

pub const ACL_EXP_007: Rule = Rule {
    id: rule_id!("ACL-EXP-007"),
    group: EXPORT,
    text: "The handle must come from aclrtMallocPhysical in this process (directly or through \
           RetainAllocationHandle); exporting an imported handle is rejected.",
    apis: &["aclrtMemExportToShareableHandle"],
    sources: &[Page("aclrtMemExportToShareableHandle page"), MEM_SHARE],
    confidence: &[Doc, Src, Inferred],
    note: Some("source for host memory, inferred for device memory"),
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    requires: PEERS,
    check: Check::Acl(export::imported_handle),
    ..ACL
};

pub const ACL_EXP_008: Rule = Rule {
    id: rule_id!("ACL-EXP-008"),
    group: EXPORT,
    text: "An allocation can be exported once; a second export of the same allocation is rejected, whatever the flags.",
    apis: &["aclrtMemExportToShareableHandle"],
    sources: &[Page("aclrtMemExportToShareableHandle page"), KERNEL],
    confidence: &[Doc, Src, Inferred],
    note: Some("source for host memory, inferred for device memory (closed firmware)"),
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    check: Check::Acl(export::twice),
    ..ACL
};

pub const ACL_EXP_009: Rule = Rule {
    id: rule_id!("ACL-EXP-009"),
    group: EXPORT,
    text: "With flag 1 the runtime exports first, then switches the trustlist off; a driver without that switch \
           returns 207000 after the handle was created.",
    apis: &["aclrtMemExportToShareableHandle"],
    sources: &[API_IMPL, NPU_DRIVER],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
    check: Check::Acl(unreachable::trustlist_switch_missing),
    ..ACL
};

pub const ACL_EXP_010: Rule = Rule {
    id: rule_id!("ACL-EXP-010"),
    group: EXPORT,
    text: "V1 writes the 64-bit handle (share id in bits 0-31, device in 32-39, zero above); V2 DEFAULT writes the \
           same through `void*`; V2 FABRIC writes a 128-byte fabric handle.",
    apis: &["aclrtMemExportToShareableHandle", "aclrtMemExportToShareableHandleV2"],
    sources: &[DEVMM],
    confidence: &[Src],
    expect: Codes(&[acl!(SUCCESS)]),
    check: Check::Acl(export::handle_layout),
    ..ACL
};

pub const ACL_EXP_011: Rule = Rule {
    id: rule_id!("ACL-EXP-011"),
    group: EXPORT,
    text: "Host-located physical memory can be exported as well (the doc speaks only of device memory).",
    apis: &["aclrtMemExportToShareableHandle"],
    sources: &[KERNEL],
    confidence: &[Src],
    note: Some("D15: the doc says device memory only"),
    expect: Codes(&[acl!(SUCCESS)]),
    check: Check::Acl(export::host_memory),
    ..ACL
};

pub const ACL_EXP_012: Rule = Rule {
    id: rule_id!("ACL-EXP-012"),
    group: EXPORT,
    text: "The trustlist starts empty: with flag 0, only processes added by SetPid may import.",
    apis: &["aclrtMemExportToShareableHandle", "aclrtMemImportFromShareableHandle"],
    sources: &[Page("aclrtMemExportToShareableHandle page")],
    confidence: &[Doc, Src],
    expect: Behaviour,
    requires: PEERS,
    check: Check::Acl(export::trustlist_starts_empty),
    ..ACL
};

// ==== 4.8 Trustlist (ACL-PID) ===================================================

pub const ACL_PID_001: Rule = Rule {
    id: rule_id!("ACL-PID-001"),
    group: TRUSTLIST,
    text: "V1: `pid` must be non-NULL and `pidNum` >= 1.",
    apis: &["aclrtMemSetPidToShareableHandle"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(trustlist::v1_arguments),
    ..ACL
};

pub const ACL_PID_002: Rule = Rule {
    id: rule_id!("ACL-PID-002"),
    group: TRUSTLIST,
    text: "V2: `shareableHandle` and `pid` must be non-NULL and `pidNum` >= 1 (100000); `shareType` must be 1 or 2 \
           (107000).",
    apis: &["aclrtMemSetPidToShareableHandleV2"],
    sources: &[MEMORY_CPP, API_ERROR],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM), acl!(RT_PARAM_INVALID)]),
    requires: &[Need::Symbol("aclrtMemSetPidToShareableHandleV2")],
    check: Check::Acl(trustlist::v2_arguments),
    ..ACL
};

pub const ACL_PID_003: Rule = Rule {
    id: rule_id!("ACL-PID-003"),
    group: TRUSTLIST,
    text: "`pidNum` may not exceed 65,535.",
    apis: &["aclrtMemSetPidToShareableHandle"],
    sources: &[Driver("driver header comment"), DEVMM],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(trustlist::too_many_in_call),
    ..ACL
};

pub const ACL_PID_004: Rule = Rule {
    id: rule_id!("ACL-PID-004"),
    group: TRUSTLIST,
    text: "The trustlist holds at most 65,535 distinct pids in total; adding beyond that fails.",
    apis: &["aclrtMemSetPidToShareableHandle"],
    sources: &[MEM_SHARE],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    check: Check::Acl(trustlist::list_full),
    ..ACL
};

pub const ACL_PID_005: Rule = Rule {
    id: rule_id!("ACL-PID-005"),
    group: TRUSTLIST,
    text: "The shareable handle must exist: exported and not fully released, with a valid device field.",
    apis: &["aclrtMemSetPidToShareableHandle"],
    sources: &[MEM_SHARE],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_INVALID_HANDLE)]),
    check: Check::Acl(trustlist::unknown_handle),
    ..ACL
};

pub const ACL_PID_006: Rule = Rule {
    id: rule_id!("ACL-PID-006"),
    group: TRUSTLIST,
    text: "Only the exporting process may set pids.",
    apis: &["aclrtMemSetPidToShareableHandle"],
    sources: &[Page("aclrtMemSetPidToShareableHandle page"), KERNEL],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    requires: PEERS,
    check: Check::Acl(trustlist::not_exporter),
    ..ACL
};

pub const ACL_PID_007: Rule = Rule {
    id: rule_id!("ACL-PID-007"),
    group: TRUSTLIST,
    text: "SetPid on a handle exported with DISABLE_PID_VALIDATION is refused.",
    apis: &["aclrtMemSetPidToShareableHandle"],
    sources: &[MEM_SHARE],
    confidence: &[Src],
    note: Some("D16: the doc is silent"),
    expect: Codes(&[acl!(RT_NO_PERMISSION)]),
    check: Check::Acl(trustlist::validation_disabled),
    ..ACL
};

pub const ACL_PID_008: Rule = Rule {
    id: rule_id!("ACL-PID-008"),
    group: TRUSTLIST,
    text: "Pid entries equal to 0 are skipped; if every entry is 0 the call fails.",
    apis: &["aclrtMemSetPidToShareableHandle"],
    sources: &[KERNEL],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    requires: PEERS,
    check: Check::Acl(trustlist::zero_pids),
    ..ACL
};

pub const ACL_PID_009: Rule = Rule {
    id: rule_id!("ACL-PID-009"),
    group: TRUSTLIST,
    text: "Setting a pid that is already listed succeeds and refreshes the entry's timestamp.",
    apis: &["aclrtMemSetPidToShareableHandle"],
    sources: &[KERNEL],
    confidence: &[Src],
    expect: Codes(&[acl!(SUCCESS)]),
    requires: PEERS,
    check: Check::Acl(trustlist::repeat_pid),
    ..ACL
};

pub const ACL_PID_010: Rule = Rule {
    id: rule_id!("ACL-PID-010"),
    group: TRUSTLIST,
    text: "An entry only authorises a process already running when it was set; an entry set before the importer \
           started (pid reuse) is treated as absent.",
    apis: &["aclrtMemSetPidToShareableHandle", "aclrtMemImportFromShareableHandle"],
    sources: &[MEM_SHARE],
    confidence: &[Src],
    note: Some("D17: the doc is silent"),
    expect: Behaviour,
    requires: &[Need::Peers, Need::PidSteering],
    check: Check::Acl(trustlist::entry_before_start),
    ..ACL
};

pub const ACL_PID_011: Rule = Rule {
    id: rule_id!("ACL-PID-011"),
    group: TRUSTLIST,
    text: "Pids are host TGIDs as returned by aclrtDeviceGetBareTgid.",
    apis: &["aclrtMemSetPidToShareableHandle", "aclrtDeviceGetBareTgid"],
    sources: &[Page("aclrtMemSetPidToShareableHandle and aclrtDeviceGetBareTgid pages")],
    confidence: &[Doc],
    expect: Behaviour,
    requires: PEERS,
    check: Check::Acl(trustlist::bare_tgid_pids),
    ..ACL
};

pub const ACL_PID_012: Rule = Rule {
    id: rule_id!("ACL-PID-012"),
    group: TRUSTLIST,
    text: "A listed pid need not belong to a live process; nothing is checked at SetPid time.",
    apis: &["aclrtMemSetPidToShareableHandle"],
    sources: &[KERNEL],
    confidence: &[Src],
    expect: Codes(&[acl!(SUCCESS)]),
    check: Check::Acl(trustlist::dead_pid_accepted),
    ..ACL
};

// ==== 4.9 Import (ACL-IMP) ======================================================

pub const ACL_IMP_001: Rule = Rule {
    id: rule_id!("ACL-IMP-001"),
    group: IMPORT,
    text: "V1: the `handle` output must be non-NULL.",
    apis: &["aclrtMemImportFromShareableHandle"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(import::v1_null_out),
    ..ACL
};

pub const ACL_IMP_002: Rule = Rule {
    id: rule_id!("ACL-IMP-002"),
    group: IMPORT,
    text: "V1: `deviceId` must be in [0, count-1].",
    apis: &["aclrtMemImportFromShareableHandle"],
    sources: &[Page("aclrtMemImportFromShareableHandle page"), API_ERROR],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(RT_INVALID_DEVICEID)]),
    check: Check::Acl(import::v1_bad_device),
    ..ACL
};

pub const ACL_IMP_003: Rule = Rule {
    id: rule_id!("ACL-IMP-003"),
    group: IMPORT,
    text: "V2: `shareableHandle` and `handle` must be non-NULL, and `flags` must be 0.",
    apis: &["aclrtMemImportFromShareableHandleV2"],
    sources: &[Page("aclrtMemImportFromShareableHandleV2 page"), MEMORY_CPP],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    requires: &[IMPORT_V2],
    check: Check::Acl(import::v2_arguments),
    ..ACL
};

pub const ACL_IMP_004: Rule = Rule {
    id: rule_id!("ACL-IMP-004"),
    group: IMPORT,
    text: "V2 imports onto the current device, so a current device is required.",
    apis: &["aclrtMemImportFromShareableHandleV2"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_CONTEXT_NULL)]),
    requires: &[IMPORT_V2],
    check: Check::Acl(import::v2_needs_device),
    ..ACL
};

pub const ACL_IMP_005: Rule = Rule {
    id: rule_id!("ACL-IMP-005"),
    group: IMPORT,
    text: "V2: `shareType` must be 1 or 2.",
    apis: &["aclrtMemImportFromShareableHandleV2"],
    sources: &[API_ERROR],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    requires: &[IMPORT_V2],
    check: Check::Acl(import::v2_share_type),
    ..ACL
};

pub const ACL_IMP_006: Rule = Rule {
    id: rule_id!("ACL-IMP-006"),
    group: IMPORT,
    text: "V2 FABRIC needs a server id (else 207000); a fabric handle whose server id equals the local one is \
           imported like a DEFAULT handle.",
    apis: &["aclrtMemImportFromShareableHandleV2"],
    sources: &[API_IMPL],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
    requires: &[EXPORT_V2, IMPORT_V2, Need::Peers],
    check: Check::Acl(import::v2_fabric),
    ..ACL
};

pub const ACL_IMP_007: Rule = Rule {
    id: rule_id!("ACL-IMP-007"),
    group: IMPORT,
    text: "A handle that never existed, or whose memory every holder has released, is rejected.",
    apis: &["aclrtMemImportFromShareableHandle"],
    sources: &[Page("aclrtMemImportFromShareableHandle page"), KERNEL],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(RT_INVALID_HANDLE)]),
    check: Check::Acl(import::unknown_handle),
    ..ACL
};

pub const ACL_IMP_008: Rule = Rule {
    id: rule_id!("ACL-IMP-008"),
    group: IMPORT,
    text: "V1 needs a current context, checked after the handle lookup of ACL-IMP-007.",
    apis: &["aclrtMemImportFromShareableHandle"],
    sources: &[API_IMPL],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_CONTEXT_NULL), acl!(RT_INVALID_HANDLE)]),
    requires: PEERS,
    check: Check::Acl(import::v1_needs_context_after_lookup),
    ..ACL
};

pub const ACL_IMP_009: Rule = Rule {
    id: rule_id!("ACL-IMP-009"),
    group: IMPORT,
    text: "The exporting process importing onto the device where the memory lives is rejected.",
    apis: &["aclrtMemImportFromShareableHandle"],
    sources: &[MEM_SHARE],
    confidence: &[Src],
    note: DOC_VS_SOURCE,
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    check: Check::Acl(import::exporter_same_device),
    ..ACL
};

pub const ACL_IMP_010: Rule = Rule {
    id: rule_id!("ACL-IMP-010"),
    group: IMPORT,
    text: "The exporting process importing onto a different device (or side) succeeds.",
    apis: &["aclrtMemImportFromShareableHandle"],
    sources: &[KERNEL],
    confidence: &[Src],
    note: DOC_VS_SOURCE,
    expect: Codes(&[acl!(SUCCESS)]),
    requires: TWO_DEVICES,
    check: Check::Acl(import::exporter_other_device),
    ..ACL
};

pub const ACL_IMP_011: Rule = Rule {
    id: rule_id!("ACL-IMP-011"),
    group: IMPORT,
    text: "Trustlist on (export flag 0) and the importer's host pid not listed: rejected.",
    apis: &["aclrtMemImportFromShareableHandle"],
    sources: &[Page("aclrtMemExportToShareableHandle page"), KERNEL],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    requires: PEERS,
    check: Check::Acl(import::not_listed),
    ..ACL
};

pub const ACL_IMP_012: Rule = Rule {
    id: rule_id!("ACL-IMP-012"),
    group: IMPORT,
    text: "The importer is listed, but the entry was set before the importer process started: rejected.",
    apis: &["aclrtMemImportFromShareableHandle"],
    sources: &[Driver("timestamp check")],
    confidence: &[Src],
    note: Some("D17: the doc is silent"),
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    requires: &[Need::Peers, Need::PidSteering],
    check: Check::Acl(trustlist::entry_before_start),
    ..ACL
};

pub const ACL_IMP_013: Rule = Rule {
    id: rule_id!("ACL-IMP-013"),
    group: IMPORT,
    text: "Trustlist off (flag 1): any process may import.",
    apis: &["aclrtMemImportFromShareableHandle"],
    sources: &[KERNEL],
    confidence: &[Src],
    expect: Codes(&[acl!(SUCCESS)]),
    requires: PEERS,
    check: Check::Acl(import::validation_disabled),
    ..ACL
};

pub const ACL_IMP_014: Rule = Rule {
    id: rule_id!("ACL-IMP-014"),
    group: IMPORT,
    text: "The same process importing the same shareable handle onto the same device again gets the same handle \
           value with one more reference; each import needs its own FreePhysical.",
    apis: &["aclrtMemImportFromShareableHandle", "aclrtFreePhysical"],
    sources: &[DEVMM],
    confidence: &[Src],
    note: Some("doc-vs-source (D2): the doc says a repeat reports an error; emulator follows source"),
    expect: Codes(&[acl!(SUCCESS)]),
    requires: PEERS,
    check: Check::Acl(import::repeat_same_device),
    ..ACL
};

pub const ACL_IMP_015: Rule = Rule {
    id: rule_id!("ACL-IMP-015"),
    group: IMPORT,
    text: "The same process importing onto another device gets a separate handle.",
    apis: &["aclrtMemImportFromShareableHandle"],
    sources: &[KERNEL],
    confidence: &[Src],
    expect: Codes(&[acl!(SUCCESS)]),
    requires: &[Need::Devices(2), Need::Peers],
    check: Check::Acl(import::other_device_new_handle),
    ..ACL
};

pub const ACL_IMP_016: Rule = Rule {
    id: rule_id!("ACL-IMP-016"),
    group: IMPORT,
    text: "Importing onto a device other than the exporter's succeeds without aclrtDeviceEnablePeerAccess (the \
           runtime enables P2P itself).",
    apis: &["aclrtMemImportFromShareableHandle"],
    sources: &[API_IMPL],
    confidence: &[Src],
    note: Some("doc-vs-source (D3): the doc requires EnablePeerAccess; emulator follows source"),
    expect: Codes(&[acl!(SUCCESS)]),
    requires: &[Need::Devices(2), Need::Peers],
    check: Check::Acl(import::cross_device_without_peer_enable),
    ..ACL
};

pub const ACL_IMP_017: Rule = Rule {
    id: rule_id!("ACL-IMP-017"),
    group: IMPORT,
    text: "The new handle takes its size, page type and memory type from the exporter's allocation, and is bound to \
           the importing device.",
    apis: &["aclrtMemImportFromShareableHandle", "aclrtMemGetAllocationPropertiesFromHandle"],
    sources: &[KERNEL],
    confidence: &[Src],
    expect: Behaviour,
    requires: PEERS,
    check: Check::Acl(import::inherits_properties),
    ..ACL
};

pub const ACL_IMP_018: Rule = Rule {
    id: rule_id!("ACL-IMP-018"),
    group: IMPORT,
    text: "Importing while the shared block is being torn down (a race) fails.",
    apis: &["aclrtMemImportFromShareableHandle"],
    sources: &[KERNEL],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    check: Check::Acl(unreachable::teardown_race),
    ..ACL
};

pub const ACL_IMP_019: Rule = Rule {
    id: rule_id!("ACL-IMP-019"),
    group: IMPORT,
    text: "Importing after the exporter freed, while another importer still holds the memory, succeeds.",
    apis: &["aclrtMemImportFromShareableHandle"],
    sources: &[KERNEL],
    confidence: &[Src],
    expect: Codes(&[acl!(SUCCESS)]),
    requires: PEERS,
    check: Check::Acl(import::after_exporter_free),
    ..ACL
};

pub const ACL_IMP_020: Rule = Rule {
    id: rule_id!("ACL-IMP-020"),
    group: IMPORT,
    text: "Out of memory for the import bookkeeping fails.",
    apis: &["aclrtMemImportFromShareableHandle"],
    sources: &[KERNEL],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_MEMORY_ALLOCATION)]),
    check: Check::Acl(unreachable::bookkeeping_oom),
    ..ACL
};

pub const ACL_IMP_021: Rule = Rule {
    id: rule_id!("ACL-IMP-021"),
    group: IMPORT,
    text: "If the user-space cache is bypassed, the kernel rejects a second import by the same pid onto the same \
           device (unreachable through ACL).",
    apis: &["aclrtMemImportFromShareableHandle"],
    sources: &[KERNEL],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_INVALID_HANDLE)]),
    check: Check::Acl(unreachable::kernel_repeat_import),
    ..ACL
};

// ==== 4.10 Lifetime of shared memory (ACL-LIFE) =================================

pub const ACL_LIFE_001: Rule = Rule {
    id: rule_id!("ACL-LIFE-001"),
    group: LIFETIME,
    text: "Exported memory lives until the exporter and every importing process have dropped all their references \
           (frees and unmaps).",
    apis: &["aclrtFreePhysical", "aclrtUnmapMem", "aclrtMemImportFromShareableHandle"],
    sources: &[Page("aclrtMemExportToShareableHandle and import pages"), MEM_SHARE],
    confidence: &[Doc, Src],
    expect: Behaviour,
    requires: PEERS,
    check: Check::Acl(lifetime::lives_until_last_holder),
    ..ACL
};

pub const ACL_LIFE_002: Rule = Rule {
    id: rule_id!("ACL-LIFE-002"),
    group: LIFETIME,
    text: "The exporter's free does not disturb importers: their mappings stay valid and keep the data.",
    apis: &["aclrtFreePhysical"],
    sources: &[KERNEL],
    confidence: &[Src],
    expect: Behaviour,
    requires: PEERS,
    check: Check::Acl(lifetime::exporter_free_keeps_importers),
    ..ACL
};

pub const ACL_LIFE_003: Rule = Rule {
    id: rule_id!("ACL-LIFE-003"),
    group: LIFETIME,
    text: "When the last holder releases, the shareable handle becomes invalid: import and SetPid then fail.",
    apis: &["aclrtMemImportFromShareableHandle", "aclrtMemSetPidToShareableHandle"],
    sources: &[KERNEL],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_INVALID_HANDLE)]),
    requires: PEERS,
    check: Check::Acl(lifetime::handle_invalid_after_last),
    ..ACL
};

pub const ACL_LIFE_004: Rule = Rule {
    id: rule_id!("ACL-LIFE-004"),
    group: LIFETIME,
    text: "Process exit releases all of that process's handles, mappings and share counts.",
    apis: &["aclrtMemImportFromShareableHandle"],
    sources: &[KERNEL],
    confidence: &[Src],
    expect: Behaviour,
    requires: &[Need::Peers, Need::DeviceMemory(4 << 20)],
    check: Check::Acl(lifetime::process_exit_releases),
    ..ACL
};

pub const ACL_LIFE_005: Rule = Rule {
    id: rule_id!("ACL-LIFE-005"),
    group: LIFETIME,
    text: "A handle used after its memory was really released behaves undefined.",
    apis: &["aclrtMapMem"],
    sources: &[Page("aclrtMemExportToShareableHandle page")],
    confidence: &[Doc],
    expect: Observed,
    check: Check::Acl(lifetime::use_after_release),
    ..ACL
};

// ==== 4.11 Peer access (ACL-PEER), process id (ACL-TGID), copies (ACL-CPY), retain (ACL-RET)

pub const ACL_PEER_001: Rule = Rule {
    id: rule_id!("ACL-PEER-001"),
    group: PEER,
    text: "CanAccessPeer: `deviceId` and `peerDeviceId` must differ.",
    apis: &["aclrtDeviceCanAccessPeer"],
    sources: &[MEMORY_CPP],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(peer_access::can_access_same),
    ..ACL
};

pub const ACL_PEER_002: Rule = Rule {
    id: rule_id!("ACL-PEER-002"),
    group: PEER,
    text: "CanAccessPeer: ids >= 64 or a NULL output are rejected.",
    apis: &["aclrtDeviceCanAccessPeer"],
    sources: &[API_ERROR],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(peer_access::can_access_bad_id),
    ..ACL
};

pub const ACL_PEER_003: Rule = Rule {
    id: rule_id!("ACL-PEER-003"),
    group: PEER,
    text: "EnablePeerAccess: `flags` must be 0.",
    apis: &["aclrtDeviceEnablePeerAccess"],
    sources: &[Page("device management pages"), MEMORY_CPP],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(FEATURE_UNSUPPORTED)]),
    check: Check::Acl(peer_access::enable_flags),
    ..ACL
};

pub const ACL_PEER_004: Rule = Rule {
    id: rule_id!("ACL-PEER-004"),
    group: PEER,
    text: "EnablePeerAccess and DisablePeerAccess need a current device.",
    apis: &["aclrtDeviceEnablePeerAccess", "aclrtDeviceDisablePeerAccess"],
    sources: &[RUNTIME],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_CONTEXT_NULL)]),
    check: Check::Acl(peer_access::needs_device),
    ..ACL
};

pub const ACL_PEER_005: Rule = Rule {
    id: rule_id!("ACL-PEER-005"),
    group: PEER,
    text: "EnablePeerAccess with the peer equal to the current device is rejected.",
    apis: &["aclrtDeviceEnablePeerAccess"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(peer_access::enable_self),
    ..ACL
};

pub const ACL_PEER_006: Rule = Rule {
    id: rule_id!("ACL-PEER-006"),
    group: PEER,
    text: "A chip without P2P rejects EnablePeerAccess.",
    apis: &["aclrtDeviceEnablePeerAccess"],
    sources: &[NPU_DRIVER],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
    requires: TWO_DEVICES,
    check: Check::Acl(peer_access::no_p2p),
    ..ACL
};

pub const ACL_PEER_007: Rule = Rule {
    id: rule_id!("ACL-PEER-007"),
    group: PEER,
    text: "Enabling peer access twice (emulator: succeeds).",
    apis: &["aclrtDeviceEnablePeerAccess"],
    sources: &[],
    confidence: &[Undetermined],
    note: Some("undetermined: emulator choice (0)"),
    expect: Codes(&[acl!(SUCCESS)]),
    requires: TWO_DEVICES,
    check: Check::Acl(peer_access::enable_twice),
    ..ACL
};

pub const ACL_TGID_001: Rule = Rule {
    id: rule_id!("ACL-TGID-001"),
    group: DEVICE,
    text: "aclrtDeviceGetBareTgid: the pointer must be non-NULL.",
    apis: &["aclrtDeviceGetBareTgid"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(general::bare_tgid_null),
    ..ACL
};

pub const ACL_TGID_002: Rule = Rule {
    id: rule_id!("ACL-TGID-002"),
    group: DEVICE,
    text: "aclrtDeviceGetBareTgid returns the host-namespace TGID, which equals getpid() outside containers.",
    apis: &["aclrtDeviceGetBareTgid"],
    sources: &[Page("aclrtDeviceGetBareTgid page"), KERNEL],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(SUCCESS)]),
    check: Check::Acl(general::bare_tgid_is_host_pid),
    ..ACL
};

pub const ACL_CPY_001: Rule = Rule {
    id: rule_id!("ACL-CPY-001"),
    group: MEMORY,
    text: "aclrtMemcpy with count 0 returns success without checking anything.",
    apis: &["aclrtMemcpy"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(SUCCESS)]),
    check: Check::Acl(copy::memcpy_zero),
    ..ACL
};

pub const ACL_CPY_002: Rule = Rule {
    id: rule_id!("ACL-CPY-002"),
    group: MEMORY,
    text: "aclrtMemcpy: NULL dst or src is rejected, and `kind` must be 0-5 (6 and 7 are rejected).",
    apis: &["aclrtMemcpy"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(copy::memcpy_null_or_kind),
    ..ACL
};

pub const ACL_CPY_003: Rule = Rule {
    id: rule_id!("ACL-CPY-003"),
    group: MEMORY,
    text: "aclrtMemcpy: `destMax` = 0 or `count` > `destMax` is rejected; dst == src is a successful no-op.",
    apis: &["aclrtMemcpy"],
    sources: &[API_ERROR],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_PARAM_INVALID), acl!(SUCCESS)]),
    check: Check::Acl(copy::memcpy_dest_max),
    ..ACL
};

pub const ACL_CPY_004: Rule = Rule {
    id: rule_id!("ACL-CPY-004"),
    group: MEMORY,
    text: "aclrtMemset: count 0 succeeds, NULL is rejected (100000), count > maxCount is rejected (107000), and on an \
           ordinary host pointer it performs a plain memset.",
    apis: &["aclrtMemset"],
    sources: &[MEMORY_CPP, KERNEL],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM), acl!(RT_PARAM_INVALID), acl!(SUCCESS)]),
    check: Check::Acl(copy::memset),
    ..ACL
};

pub const ACL_CPY_005: Rule = Rule {
    id: rule_id!("ACL-CPY-005"),
    group: MEMORY,
    text: "aclrtMallocHost: NULL output or size 0 is rejected; aclrtFreeHost(NULL) is rejected.",
    apis: &["aclrtMallocHost", "aclrtFreeHost"],
    sources: &[MEMORY_CPP],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(copy::host_alloc),
    ..ACL
};

pub const ACL_RET_001: Rule = Rule {
    id: rule_id!("ACL-RET-001"),
    group: RETAIN,
    text: "RetainAllocationHandle on a mapped VA returns that mapping's handle with one more reference (which needs \
           its own FreePhysical); on an unmapped VA it is rejected.",
    apis: &["aclrtMemRetainAllocationHandle"],
    sources: &[Page("aclrtMemRetainAllocationHandle page"), KERNEL],
    confidence: &[Doc, Src],
    expect: Codes(&[acl!(RT_PARAM_INVALID), acl!(SUCCESS)]),
    check: Check::Acl(retain::retain),
    ..ACL
};

pub const ACL_RET_002: Rule = Rule {
    id: rule_id!("ACL-RET-002"),
    group: RETAIN,
    text: "GetAddressRange on an address inside a mapped VMM block returns the block's mapped base and size.",
    apis: &["aclrtMemGetAddressRange"],
    sources: &[Page("aclrtMemGetAddressRange page")],
    confidence: &[Doc],
    expect: Codes(&[acl!(SUCCESS)]),
    requires: &[Need::Symbol("aclrtMemGetAddressRange")],
    check: Check::Acl(retain::address_range),
    ..ACL
};

// ==== §5 Combined cases (ACL-ORD) ================================================

pub const ACL_ORD_001: Rule = Rule {
    id: rule_id!("ACL-ORD-001"),
    group: ORDER,
    text: "Import of an unknown handle without any SetDevice returns 107017 with V1 but 107002 with V2.",
    apis: &["aclrtMemImportFromShareableHandle", "aclrtMemImportFromShareableHandleV2"],
    sources: &[Reference("acl.md §5, Import V1 and V2 orders")],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_INVALID_HANDLE), acl!(RT_CONTEXT_NULL)]),
    requires: &[IMPORT_V2],
    check: Check::Acl(order::import_unknown_without_device),
    ..ACL
};

pub const ACL_ORD_002: Rule = Rule {
    id: rule_id!("ACL-ORD-002"),
    group: ORDER,
    text: "Export V1 with a NULL handle and flags 5 returns 100000.",
    apis: &["aclrtMemExportToShareableHandle"],
    sources: &[Reference("acl.md §5, Export V1 order")],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(order::export_null_and_flags),
    ..ACL
};

pub const ACL_ORD_003: Rule = Rule {
    id: rule_id!("ACL-ORD-003"),
    group: ORDER,
    text: "MapMem with offset != 0 and flags != 0 returns 100000.",
    apis: &["aclrtMapMem"],
    sources: &[Reference("acl.md §5, MapMem order")],
    confidence: &[Src],
    expect: Codes(&[acl!(INVALID_PARAM)]),
    check: Check::Acl(order::map_offset_and_flags),
    ..ACL
};

pub const ACL_ORD_004: Rule = Rule {
    id: rule_id!("ACL-ORD-004"),
    group: ORDER,
    text: "MapMem with offset != 0 and a VA outside any reservation returns 107000.",
    apis: &["aclrtMapMem"],
    sources: &[Reference("acl.md §5, MapMem order")],
    confidence: &[Src],
    expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    check: Check::Acl(order::map_offset_outside),
    ..ACL
};

// ==== §7 Sample flows (ACL-FLOW) =================================================

pub const ACL_FLOW_001: Rule = Rule {
    id: rule_id!("ACL-FLOW-001"),
    group: SAMPLE,
    text: "Sample 7 (trustlist): A exports a 2 MiB pattern with flags 0 and lists B's bare tgid; B imports, maps and \
           reads it, writes back; A sees B's write; both release concurrently.",
    apis: &[
        "aclrtMemExportToShareableHandle",
        "aclrtMemSetPidToShareableHandle",
        "aclrtMemImportFromShareableHandle",
        "aclrtMapMem",
        "aclrtMemSetAccess",
        "aclrtMemcpy",
    ],
    sources: &[Reference("acl.md §7.1, sample 7_physical_memory_sharing_withpid")],
    confidence: &[Doc, Src],
    expect: Behaviour,
    requires: PEERS,
    check: Check::Acl(sample::with_trustlist),
    ..ACL
};

pub const ACL_FLOW_002: Rule = Rule {
    id: rule_id!("ACL-FLOW-002"),
    group: SAMPLE,
    text: "Sample 8 (no trustlist): as sample 7 with export flag 1 and no pid exchange.",
    apis: &["aclrtMemExportToShareableHandle", "aclrtMemImportFromShareableHandle", "aclrtMapMem", "aclrtMemcpy"],
    sources: &[Reference("acl.md §7.2, sample 8_physical_memory_sharing_withoutpid")],
    confidence: &[Doc, Src],
    expect: Behaviour,
    requires: PEERS,
    check: Check::Acl(sample::without_trustlist),
    ..ACL
};

pub const ACL_FLOW_003: Rule = Rule {
    id: rule_id!("ACL-FLOW-003"),
    group: SAMPLE,
    text: "Sample 12 (FABRIC, one host): the server exports a V2 FABRIC handle with flag 1; the client imports it with \
           V2 onto its current device, maps it, sets access and both release.",
    apis: &["aclrtMemExportToShareableHandleV2", "aclrtMemImportFromShareableHandleV2", "aclrtMapMem"],
    sources: &[Reference("acl.md §7.3, sample 12_cross_server_physical_memory_sharing_withoutpid")],
    confidence: &[Doc, Src],
    expect: Behaviour,
    requires: &[EXPORT_V2, IMPORT_V2, Need::Peers],
    check: Check::Acl(sample::fabric_loopback),
    ..ACL
};

/// Every ACL rule, in the reference's order.
#[rustfmt::skip]
pub const ACL_RULES: &[&Rule] = &[
    &ACL_GEN_001, &ACL_GEN_002, &ACL_GEN_003, &ACL_GEN_004, &ACL_GEN_005,
    &ACL_GEN_006, &ACL_GEN_007, &ACL_GEN_008, &ACL_GEN_009, &ACL_GEN_010,
    &ACL_GRAN_001, &ACL_GRAN_002, &ACL_GRAN_003, &ACL_GRAN_004, &ACL_GRAN_005,
    &ACL_GRAN_006, &ACL_GRAN_007, &ACL_GRAN_008, &ACL_GRAN_009, &ACL_GRAN_010,
    &ACL_MP_001, &ACL_MP_002, &ACL_MP_003, &ACL_MP_004, &ACL_MP_005, &ACL_MP_006,
    &ACL_MP_007, &ACL_MP_008, &ACL_MP_009, &ACL_MP_010, &ACL_MP_011, &ACL_MP_012,
    &ACL_MP_013, &ACL_MP_014, &ACL_MP_015, &ACL_MP_016, &ACL_MP_017,
    &ACL_FP_001, &ACL_FP_002, &ACL_FP_003, &ACL_FP_004, &ACL_FP_005,
    &ACL_RSV_001, &ACL_RSV_002, &ACL_RSV_003, &ACL_RSV_004, &ACL_RSV_005,
    &ACL_RSV_006, &ACL_RSV_007, &ACL_RSV_008, &ACL_RSV_009, &ACL_RSV_010,
    &ACL_REL_001, &ACL_REL_002, &ACL_REL_003, &ACL_REL_004,
    &ACL_MAP_001, &ACL_MAP_002, &ACL_MAP_003, &ACL_MAP_004, &ACL_MAP_005, &ACL_MAP_006,
    &ACL_MAP_007, &ACL_MAP_008, &ACL_MAP_009, &ACL_MAP_010, &ACL_MAP_011, &ACL_MAP_012,
    &ACL_MAP_013, &ACL_MAP_014, &ACL_MAP_015, &ACL_MAP_016,
    &ACL_UNMAP_001, &ACL_UNMAP_002, &ACL_UNMAP_003,
    &ACL_ACC_001, &ACL_ACC_002, &ACL_ACC_003, &ACL_ACC_004, &ACL_ACC_005,
    &ACL_ACC_006, &ACL_ACC_007, &ACL_ACC_008, &ACL_ACC_009, &ACL_ACC_010,
    &ACL_EXP_001, &ACL_EXP_002, &ACL_EXP_003, &ACL_EXP_004, &ACL_EXP_005, &ACL_EXP_006,
    &ACL_EXP_007, &ACL_EXP_008, &ACL_EXP_009, &ACL_EXP_010, &ACL_EXP_011, &ACL_EXP_012,
    &ACL_PID_001, &ACL_PID_002, &ACL_PID_003, &ACL_PID_004, &ACL_PID_005, &ACL_PID_006,
    &ACL_PID_007, &ACL_PID_008, &ACL_PID_009, &ACL_PID_010, &ACL_PID_011, &ACL_PID_012,
    &ACL_IMP_001, &ACL_IMP_002, &ACL_IMP_003, &ACL_IMP_004, &ACL_IMP_005, &ACL_IMP_006,
    &ACL_IMP_007, &ACL_IMP_008, &ACL_IMP_009, &ACL_IMP_010, &ACL_IMP_011, &ACL_IMP_012,
    &ACL_IMP_013, &ACL_IMP_014, &ACL_IMP_015, &ACL_IMP_016, &ACL_IMP_017, &ACL_IMP_018,
    &ACL_IMP_019, &ACL_IMP_020, &ACL_IMP_021,
    &ACL_LIFE_001, &ACL_LIFE_002, &ACL_LIFE_003, &ACL_LIFE_004, &ACL_LIFE_005,
    &ACL_PEER_001, &ACL_PEER_002, &ACL_PEER_003, &ACL_PEER_004, &ACL_PEER_005,
    &ACL_PEER_006, &ACL_PEER_007,
    &ACL_TGID_001, &ACL_TGID_002,
    &ACL_CPY_001, &ACL_CPY_002, &ACL_CPY_003, &ACL_CPY_004, &ACL_CPY_005,
    &ACL_RET_001, &ACL_RET_002,
    &ACL_ORD_001, &ACL_ORD_002, &ACL_ORD_003, &ACL_ORD_004,
    &ACL_FLOW_001, &ACL_FLOW_002, &ACL_FLOW_003,
];

// Ids are distinct: checked when the crate compiles.
const _: () = assert!(crate::rule::ids_unique(ACL_RULES), "two ACL rules share an id");
