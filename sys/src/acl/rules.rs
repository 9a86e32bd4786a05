//! The ACL rule table: every rule vmmkit knows of this vendor, written once.
//!
//! The emulator enforces these (its code for a broken rule is the record's),
//! the conformance suite binds each to the check that provokes it, and the
//! reports and docs show them. Each `static` is named for its id without the
//! `ACL-` prefix: [`MAP_003`]-style names, derived into the id by
//! [`rules!`](crate::rules). Fields left out take [`Rule::defaults`](crate::rule::Rule::defaults).
//!
//! From the conformance catalog of the first wave:
//! The ACL rules: every rule of reference acl.md §4 (ids kept), the combined
//! cases of §5 (`ACL-ORD-*`) and the sample flows of §7 (`ACL-FLOW-*`).
//!
//! One `const` per rule, in the reference's order; [`ALL`] lists them.
//! Fields left out take [`Rule::defaults`](crate::rule::Rule::defaults): dialect ACL, no note, no
//! equivalents, no requirements. ACL, the first vendor, names no other
//! vendor's rule: the HIP and CUDA tables name their ACL equivalents, so
//! the tables depend one way (`cuda` → `hip` → `acl`). Expected codes are the reference's;
//! where it marks a point undetermined, the expected value is its
//! recommended emulator behaviour and the confidence says `undetermined`.
#![forbid(unsafe_code)]

use crate::acl::chips::{PROFILE_910B, PROFILE_A3};
use crate::rule::Confidence::{Doc, Inferred, Source as Src, Undetermined};
use crate::rule::Expect::{Behaviour, Codes, Observed};
use crate::rule::Source::{Doc as Page, Driver, Reference, Runtime};
use crate::rule::{Dialect, Need, ProfileExpect, Source};
use crate::{acl, rules};

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
const IPC_KEY: &str = "acl.ipc.key";
const STREAM: &str = "acl.stream";
const EVENT: &str = "acl.event";

// ---- sources, as the reference names them ------------------------------------

const ACL_CPP: Source = Runtime("src/acl/aclrt_impl/acl.cpp");
const MEMORY_CPP: Source = Runtime("src/acl/aclrt_impl/memory.cpp");
const API_ERROR: Source = Runtime("src/runtime/core/src/api_impl/api_error.cc");
const API_IMPL: Source = Runtime("src/runtime/core/src/api_impl/api_impl.cc");
const RUNTIME_CC: Source = Runtime("src/runtime/core/src/runtime.cc");
const API_C_DEVICE: Source = Runtime("src/runtime/api/api_c_device.cc");
const NPU_DRIVER: Source = Runtime("src/runtime/driver/npu_driver.cc");
const RUNTIME: Source = Runtime("runtime core");
const CMODEL: Source = Runtime("src/cmodel_driver, npu_driver_base.hpp");
const DEVMM: Source = Driver("src/ascend_hal/svm/v2/devmm/devmm_svm.c");
const MEM_CREATE: Source = Driver("src/sdk_driver/svm/v2/master/comm/svm_master_mem_create.c");
const MEM_MAP: Source = Driver("src/sdk_driver/svm/v2/master/comm/svm_master_mem_map.c");
const MEM_SHARE: Source = Driver("src/sdk_driver/svm/v2/master/comm/svm_master_mem_share.c");
const KERNEL: Source = Driver("kernel SVM module");
const API_IMPL_SOC: Source = Runtime("src/runtime/core/src/api_impl/api_impl_standard_soc.cc");
const ERRCODE: Source = Runtime("src/runtime/core/src/common/errcode_manage.cc");
const IPC_KMOD: Source = Driver("src/sdk_driver/svm/v2/master/pmaster/svm_shmem_interprocess.c");
const IPC_NODE: Source = Driver("src/sdk_driver/svm/v2/master/pmaster/svm_shmem_node.c");
const PROC_INFO: Source = Driver("src/sdk_driver/svm/v2/master/comm/devmm_proc_info.c");
const ALLOCATOR: Source = Driver("VA allocator");
const NPU_DRIVER_MEM: Source = Runtime("src/runtime/driver/npu_driver_mem.cc");
const ACL_RT_H: Source = Runtime("include/external/acl/acl_rt.h");
const STREAM_CPP: Source = Runtime("src/acl/aclrt_impl/stream.cpp");
const DEVICE_CPP: Source = Runtime("src/acl/aclrt_impl/device.cpp");
const EVENT_CPP: Source = Runtime("src/acl/aclrt_impl/event.cpp");
const CONTEXT_CC: Source = Runtime("src/runtime/core/src/context/context.cc");
const STREAM_CC: Source = Runtime("src/runtime/core/src/stream/stream.cc");
const EVENT_CC: Source = Runtime("src/runtime/core/src/event/event.cc");
const EVENT_TASK_CC: Source = Runtime("src/runtime/core/src/task/task_info/event/event_task.cc");
const HAL_TYPES: Source = Driver("pkg_inc/hal_pkg/common_pkg.h");
const ERRNO_MAP: Source = Driver("src/ascend_hal/dmc/logdrv/drv_log_user_kernel_api.c");

// ---- markings of §6 ------------------------------------------------------------

const DOC_VS_SOURCE: Option<&str> =
    Some("doc-vs-source: emulator follows source; real-hardware result recorded as observed");

const PEERS: &[Need] = &[Need::Peers];
const TWO_DEVICES: &[Need] = &[Need::Devices(2)];
const EXPORT_V2: Need = Need::Symbol("aclrtMemExportToShareableHandleV2");
const IMPORT_V2: Need = Need::Symbol("aclrtMemImportFromShareableHandleV2");
const V2_PEERS: &[Need] = &[EXPORT_V2, IMPORT_V2, Need::Peers];
/// FABRIC handles need a server id: the A3 profile (`chips.rs`).
const FABRIC: Need = Need::Profile(PROFILE_A3);
const FABRIC_PEERS: &[Need] = &[EXPORT_V2, IMPORT_V2, Need::Peers, FABRIC];
const SHR_ID_USER: Source = Driver("src/ascend_hal/trs/shr_id/trs_shr_id_user.c");
const SHR_ID_NODE: Source = Driver("src/sdk_driver/trsdrv/trs/shr_id/trs_shr_id_node.c");
const NO_UC: Need = Need::Symbol("aclrtReserveMemAddressNoUCMemory");
/// The dynamic window of NoUCMemory reservations: the A3 profile.
const DYNAMIC_WINDOW: Need = Need::Profile(PROFILE_A3);
const DYN_ADDR: Source = Driver("src/ascend_hal/svm/v2/devmm/devmm_dynamic_addr.c");
const SVM_DEFINE: Source = Driver("src/sdk_driver/svm/v2/command/ioctl/svm_define.h");
const NO_UC_PAGE: Source = Runtime("docs/03_api_ref/11-04_虚拟内存管理.md");

const V2: &str = "acl.share.v2";
const QUERY: &str = "acl.vmm.query";

rules! {
    prefix: "ACL", dialect: Dialect::Acl;

    // ==== 4.1 General, initialisation and devices (ACL-GEN) =======================
    GEN_001 {
        group: DEVICE,
        text: "aclInit may be called once; a second call while initialised fails (and still counts a reference).",
        apis: &["aclInit"],
        sources: &[ACL_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(REPEAT_INITIALIZE)]),
    }

    GEN_002 {
        group: DEVICE,
        text: "aclFinalize tears everything down whatever the reference count; a second aclFinalize fails.",
        apis: &["aclFinalize"],
        sources: &[ACL_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(REPEAT_FINALIZE)]),
    }

    GEN_003 {
        group: DEVICE,
        text: "aclrtSetDevice requires 0 <= id < device count.",
        apis: &["aclrtSetDevice"],
        sources: &[API_ERROR],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_INVALID_DEVICEID)]),
    }

    GEN_004 {
        group: DEVICE,
        text: "aclrtGetDevice fails when the thread has no current device.",
        apis: &["aclrtGetDevice"],
        sources: &[API_C_DEVICE],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_CONTEXT_NULL)]),
    }

    GEN_005 {
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
    }

    GEN_006 {
        group: DEVICE,
        text: "Device ids passed to VMM APIs (DEVICE prop.location.id, Import deviceId) must be in [0, count-1].",
        apis: &["aclrtMallocPhysical", "aclrtMemImportFromShareableHandle"],
        sources: &[Page("aclrtMemImportFromShareableHandle page"), API_ERROR],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(RT_INVALID_DEVICEID)]),
        enforced_by: &[&MP_008, &IMP_002],
    }

    GEN_007 {
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
    }

    GEN_008 {
        group: DEVICE,
        text: "VMM APIs called before aclInit (emulator: allowed).",
        apis: &["aclrtMemGetAllocationGranularity", "aclrtMallocPhysical", "aclrtReserveMemAddress", "aclrtMapMem"],
        sources: &[],
        confidence: &[Undetermined],
        note: Some("undetermined: emulator choice (allow)"),
        expect: Codes(&[acl!(SUCCESS)]),
    }

    GEN_009 {
        group: DEVICE,
        text: "Export, import and set-pid are unsupported in compute-group (split) mode and in virtual instances.",
        apis: &["aclrtMemExportToShareableHandle", "aclrtMemImportFromShareableHandle", "aclrtMemSetPidToShareableHandle"],
        sources: &[Page("aclrtMemExportToShareableHandle page"), DEVMM],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
    }

    GEN_010 {
        group: DEVICE,
        text: "On the chip simulator (C-model driver stub) every VMM API returns not supported.",
        apis: &["aclrtMallocPhysical", "aclrtReserveMemAddress", "aclrtMapMem"],
        sources: &[CMODEL],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
    }

    GEN_011 {
        group: DEVICE,
        text: "ASCEND_RT_VISIBLE_DEVICES chooses the devices a process sees, numbered from 0 in the list's order: \
               the value must start with a digit; indexes are separated by single commas, and any other character, a \
               second comma or an index beyond the devices ends the list. An index not above the one before it \
               (out of ascending order, or repeated), or a list with no index, is refused: aclrtGetDeviceCount is \
               207004 and no device can be set. Memory keeps its physical device across processes that see other lists.",
        apis: &["aclrtGetDeviceCount", "aclrtSetDevice", "aclrtMemImportFromShareableHandle"],
        sources: &[RUNTIME_CC, API_IMPL, ERRCODE],
        confidence: &[Src],
        note: Some("hicann/runtime@681ef76 src/runtime/core/src/runtime.cc:4725-4768 (SplitString), :4955-5061 \
                    (GetVisibleDevices: stoi, beyond the devices ends it, :5021-5036 order and repeat refused, :5056-5060 \
                    no index refused); src/runtime/api/impl/api_impl.cc:3403-3441 (GetDeviceCount: a refused list is \
                    RT_ERROR_DRV_NO_DEVICE); src/runtime/core/src/common/errcode_manage.cc:84 (ACL_ERROR_RT_NO_DEVICE)"),
        expect: Codes(&[acl!(RT_NO_DEVICE)]),
        requires: &[Need::Peers, Need::Devices(3)],
    }

    GEN_012 {
        group: DEVICE,
        text: "aclrtGetLogicDevIdByUserDevId, aclrtGetUserDevIdByLogicDevId, aclrtGetPhyDevIdByUserDevId and \
               aclrtGetUserDevIdByPhyDevId translate between the process's ids (places in ASCEND_RT_VISIBLE_DEVICES) \
               and the machine's; logic and physical ids are one. An id that is negative or names no device the \
               process sees is 107001.",
        apis: &["aclrtGetLogicDevIdByUserDevId", "aclrtGetUserDevIdByLogicDevId", "aclrtGetPhyDevIdByLogicDevId"],
        sources: &[RUNTIME_CC, API_ERROR, API_IMPL],
        confidence: &[Src],
        note: Some("hicann/runtime@681ef76 src/runtime/core/src/runtime.cc:4799-4853 (ChgUserDevIdToDeviceId, \
                    GetUserDevIdByDeviceId: RT_ERROR_DEVICE_ID), src/runtime/api/impl/api_error.cc:6896-6926 (a \
                    negative id), src/runtime/api/impl/api_impl.cc:8100-8121. The emulator's logic id is the physical one"),
        expect: Codes(&[acl!(RT_INVALID_DEVICEID)]),
        requires: &[Need::Peers, Need::Devices(3)],
    }

    // ==== 4.2 Granularity (ACL-GRAN) ================================================

    GRAN_001 {
        group: GRANULARITY,
        text: "`prop` and `granularity` must be non-NULL.",
        apis: &["aclrtMemGetAllocationGranularity"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    GRAN_002 {
        group: GRANULARITY,
        text: "DDR attrs (2, 3, 6, 7) are host-only; with a DEVICE location they are rejected.",
        apis: &["aclrtMemGetAllocationGranularity"],
        sources: &[Page("aclrtMallocPhysical page"), MEMORY_CPP],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    GRAN_003 {
        group: GRANULARITY,
        text: "memAttr must be one of 2-7, 10, 12-17; 0, 1, 8, 9, 11 and out-of-range values are rejected.",
        apis: &["aclrtMemGetAllocationGranularity"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    GRAN_004 {
        group: GRANULARITY,
        text: "A DEVICE location id must be a valid device.",
        apis: &["aclrtMemGetAllocationGranularity"],
        sources: &[API_ERROR],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_INVALID_DEVICEID)]),
    }

    GRAN_005 {
        group: GRANULARITY,
        text: "`option` must be MINIMUM (0) or RECOMMENDED (1); UNDEF (0xFFFF) and any other value are rejected. The \
               driver checks it before the property checks (location type, reserve, giant pages).",
        apis: &["aclrtMemGetAllocationGranularity"],
        sources: &[DEVMM],
        confidence: &[Src],
        note: Some("devmm_svm.c:6383 (option) before 6392 (devmm_mem_prop_check)"),
        expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
    }

    GRAN_006 {
        group: GRANULARITY,
        text: "Location type MANAGED (3) or >= 5 is rejected.",
        apis: &["aclrtMemGetAllocationGranularity"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    GRAN_007 {
        group: GRANULARITY,
        text: "`prop.reserve` must be 0.",
        apis: &["aclrtMemGetAllocationGranularity"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    GRAN_008 {
        group: GRANULARITY,
        text: "1G attrs need giant-page support: a device without it is rejected, and so is a host location with any 1G \
               attr other than 17.",
        apis: &["aclrtMemGetAllocationGranularity"],
        sources: &[DEVMM],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
    }

    GRAN_009 {
        group: GRANULARITY,
        text: "The result is 2 MiB for every accepted non-1G attr and 1 GiB for attrs 10, 14, 17; MINIMUM and \
               RECOMMENDED agree.",
        apis: &["aclrtMemGetAllocationGranularity"],
        sources: &[DEVMM],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(SUCCESS)]),
    }

    GRAN_010 {
        group: GRANULARITY,
        text: "HBM attrs with a HOST location are accepted (torch's host allocator relies on this).",
        apis: &["aclrtMemGetAllocationGranularity"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(SUCCESS)]),
    }

    // ==== 4.3 Physical allocation (ACL-MP) and free (ACL-FP) ========================

    MP_001 {
        group: PHYSICAL,
        text: "`handle` and `prop` must be non-NULL.",
        apis: &["aclrtMallocPhysical"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    MP_002 {
        group: PHYSICAL,
        text: "`size` must be non-zero.",
        apis: &["aclrtMallocPhysical"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    MP_003 {
        group: PHYSICAL,
        text: "`flags` must be 0.",
        apis: &["aclrtMallocPhysical"],
        sources: &[Page("aclrtMallocPhysical page"), MEMORY_CPP],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    MP_004 {
        group: PHYSICAL,
        text: "`prop.handleType` must be NONE (POSIX = 2 is rejected).",
        apis: &["aclrtMallocPhysical"],
        sources: &[Page("aclrtPhysicalMemProp struct page"), MEMORY_CPP],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    MP_005 {
        group: PHYSICAL,
        text: "`prop.allocationType` must be PINNED.",
        apis: &["aclrtMallocPhysical"],
        sources: &[Page("aclrtPhysicalMemProp struct page"), MEMORY_CPP],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    MP_006 {
        group: PHYSICAL,
        text: "Location types UNREGISTERED and MANAGED are rejected.",
        apis: &["aclrtMallocPhysical"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    MP_007 {
        group: PHYSICAL,
        text: "Attribute rules as in ACL-GRAN-002 and ACL-GRAN-003 (DDR attrs host-only, unknown attrs rejected).",
        apis: &["aclrtMallocPhysical"],
        sources: &[MEMORY_CPP],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    MP_008 {
        group: PHYSICAL,
        text: "A DEVICE location id must be a valid device.",
        apis: &["aclrtMallocPhysical"],
        sources: &[API_ERROR],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(RT_INVALID_DEVICEID)]),
    }

    MP_009 {
        group: PHYSICAL,
        text: "HOST_NUMA needs a current context (else 107002) and driver support (else 207000).",
        apis: &["aclrtMallocPhysical"],
        sources: &[API_ERROR],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_CONTEXT_NULL), acl!(RT_FEATURE_NOT_SUPPORT)]),
    }

    MP_010 {
        group: PHYSICAL,
        text: "A 1G attr on a chip or driver without 1G pages is rejected.",
        apis: &["aclrtMallocPhysical"],
        sources: &[Page("aclrtMallocPhysical page"), NPU_DRIVER, DEVMM],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
    }

    MP_011 {
        group: PHYSICAL,
        text: "A HOST location must have id 0: ids 1-63 are not supported (207000, after the giant-page and reserve \
               checks); ids >= 64 fail the driver's device-id check first (107000).",
        apis: &["aclrtMallocPhysical"],
        sources: &[DEVMM],
        confidence: &[Src],
        note: Some("doc-vs-source (D8): the doc says the id is ignored; emulator follows source \
                    (devmm_svm.c:4420-4431 id >= 64 invalid value, 4484-4487 HOST id != 0 not supported)"),
        expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT), acl!(RT_PARAM_INVALID)]),
    }

    MP_012 {
        group: PHYSICAL,
        text: "Location type >= 5 is rejected, and so is `prop.reserve` != 0 (checked after the giant-page checks of \
               ACL-MP-010, which win with 207000).",
        apis: &["aclrtMallocPhysical"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    MP_013 {
        group: PHYSICAL,
        text: "For non-1G attrs the size must be a multiple of 2 MiB.",
        apis: &["aclrtMallocPhysical"],
        sources: &[Page("aclrtMallocPhysical page (English)"), MEM_CREATE],
        confidence: &[Doc, Src],
        note: Some("D6: the Chinese page only recommends alignment"),
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    }

    MP_014 {
        group: PHYSICAL,
        text: "For 1G attrs any nonzero size is accepted and silently rounded up to a multiple of 1 GiB.",
        apis: &["aclrtMallocPhysical"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(SUCCESS)]),
    }

    MP_015 {
        group: PHYSICAL,
        text: "Insufficient physical memory fails the allocation.",
        apis: &["aclrtMallocPhysical"],
        sources: &[Driver("kernel ENOMEM")],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_MEMORY_ALLOCATION)]),
        requires: &[Need::DeviceMemory(16 << 20)],
    }

    MP_016 {
        group: PHYSICAL,
        text: "\"Normal\" attrs (5, 12, 15) are still backed by 2 MiB pages.",
        apis: &["aclrtMallocPhysical", "aclrtMemGetAllocationGranularity"],
        sources: &[Page("aclrtMallocPhysical page"), KERNEL],
        confidence: &[Doc, Src],
        expect: Behaviour,
    }

    MP_017 {
        group: PHYSICAL,
        text: "The returned handle is valid only in the calling process.",
        apis: &["aclrtMallocPhysical", "aclrtMapMem"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Behaviour,
        requires: PEERS,
    }

    FP_001 {
        group: PHYSICAL,
        text: "`handle` must be non-NULL.",
        apis: &["aclrtFreePhysical"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    FP_002 {
        group: PHYSICAL,
        text: "Freeing a handle that is still mapped succeeds; the memory is released at the last unmap.",
        apis: &["aclrtFreePhysical", "aclrtUnmapMem"],
        sources: &[Page("aclrtFreePhysical page"), DEVMM],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(SUCCESS)]),
    }

    FP_003 {
        group: PHYSICAL,
        text: "Freeing once more when only mapping references remain (freed but still mapped) is rejected.",
        apis: &["aclrtFreePhysical"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    FP_004 {
        group: PHYSICAL,
        text: "Freeing an unknown or already destroyed handle (a use-after-free in the real library; emulator: 107000).",
        apis: &["aclrtFreePhysical"],
        sources: &[],
        confidence: &[Undetermined],
        note: Some("undetermined: emulator choice (validate against the live-handle table)"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    FP_005 {
        group: PHYSICAL,
        text: "Each MallocPhysical, each successful import and each RetainAllocationHandle needs exactly one FreePhysical.",
        apis: &["aclrtFreePhysical", "aclrtMemRetainAllocationHandle"],
        sources: &[Page("aclrtMemRetainAllocationHandle page"), KERNEL],
        confidence: &[Doc, Src],
        expect: Behaviour,
    }

    // ==== 4.4 Reservation (ACL-RSV) and release (ACL-REL) ============================

    RSV_001 {
        group: RESERVE,
        text: "`virPtr` must be non-NULL.",
        apis: &["aclrtReserveMemAddress"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    RSV_002 {
        group: RESERVE,
        text: "`size` must be non-zero.",
        apis: &["aclrtReserveMemAddress"],
        sources: &[Page("aclrtReserveMemAddress page"), MEMORY_CPP],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    RSV_003 {
        group: RESERVE,
        text: "`flags` must be 0 or 1 (1 is kept for backward compatibility and used by most clients).",
        apis: &["aclrtReserveMemAddress"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        note: Some("D7: the doc says 0"),
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    RSV_004 {
        group: RESERVE,
        text: "`alignment` must be 0; the ACL layer does not check it, the driver does.",
        apis: &["aclrtReserveMemAddress"],
        sources: &[Page("aclrtReserveMemAddress page"), DEVMM],
        confidence: &[Doc, Src],
        note: Some("D5: 107000, not 100000"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    RSV_005 {
        group: RESERVE,
        text: "A non-NULL `expectPtr` must be aligned: 1 GiB above 512 MiB, else 2 MiB and, above 2 MiB, the smallest \
               power of two >= size.",
        apis: &["aclrtReserveMemAddress"],
        sources: &[DEVMM],
        confidence: &[Src],
        note: Some("doc-vs-source (D4): doc thresholds differ; emulator follows source"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    RSV_006 {
        group: RESERVE,
        text: "`expectPtr` must lie in the 16-24 TiB window and not overlap a reservation: either way the allocator \
               finds no free heap at the fixed address and reports BUSY (507899).",
        apis: &["aclrtReserveMemAddress"],
        sources: &[Page("aclrtReserveMemAddress page"), ALLOCATOR, Driver("src/ascend_hal/svm/v2/devmm/devmm_virt_interface.c")],
        confidence: &[Doc, Src],
        note: Some("a fixed address with no free heap is DRV_ERROR_BUSY (devmm_virt_interface.c:1335), unmapped by the \
                    runtime's table: 507899 (errcode_manage.cc:580)"),
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    }

    RSV_007 {
        group: RESERVE,
        text: "0 < size < 2 MiB succeeds and reserves 2 MiB (torch probes with size 512 and flags 1).",
        apis: &["aclrtReserveMemAddress"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(SUCCESS)]),
    }

    RSV_008 {
        group: RESERVE,
        text: "Returned addresses lie in [16 TiB, 24 TiB) and are at least 2 MiB aligned.",
        apis: &["aclrtReserveMemAddress"],
        sources: &[KERNEL],
        confidence: &[Src],
        expect: Behaviour,
    }

    RSV_009 {
        group: RESERVE,
        text: "A request larger than the window, or with no free range left, fails.",
        apis: &["aclrtReserveMemAddress"],
        sources: &[ALLOCATOR],
        confidence: &[Inferred],
        expect: Codes(&[acl!(RT_MEMORY_ALLOCATION)]),
    }

    RSV_010 {
        group: RESERVE,
        text: "A reservation is not bound to any device until its first successful MapMem.",
        apis: &["aclrtReserveMemAddress", "aclrtMapMem"],
        sources: &[KERNEL],
        confidence: &[Src],
        expect: Behaviour,
        requires: TWO_DEVICES,
    }

    RSV_011 {
        group: RESERVE,
        text: "`aclrtReserveMemAddressNoUCMemory` at a chosen 1 GiB-aligned address of whole GiB in [24 TiB, 256 TiB) \
               (Mooncake's A3 shared segment: 78 TiB, flags 1) reserves exactly there on A3; on 910B, where its page \
               says the call is unsupported, the fixed address lies outside the 16-24 TiB window and is refused as \
               ACL-RSV-006 (507899).",
        apis: &["aclrtReserveMemAddressNoUCMemory"],
        sources: &[MEMORY_CPP, DEVMM, DYN_ADDR, SVM_DEFINE, NO_UC_PAGE],
        confidence: &[Doc, Src],
        note: Some("A3: memory.cpp:1908-1919 sets flag bit 9 (MEM_RSV_TYPE_REMOTE_MAP, ascend_hal_define.h:749-750); \
                    halMemAddressReserve devmm_svm.c:5132-5134 reserves in the dynamic window \
                    (svm_define.h:106-108) at the fixed address (devmm_dynamic_addr.c:194-217, 292-299). 910B: \
                    11-04_虚拟内存管理.md:217-219 (A3 supported, A2 not)"),
        expect: Codes(&[acl!(SUCCESS)]),
        profiles: &[ProfileExpect::new(PROFILE_910B, Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]))
            .note("unsupported on 910B: a fixed address outside [16 TiB, 24 TiB) is refused as ACL-RSV-006")],
        requires: &[NO_UC],
    }

    RSV_012 {
        group: RESERVE,
        text: "A3 only: `aclrtReserveMemAddressNoUCMemory` without a chosen address (`expectPtr` NULL) is refused as \
               not supported (207000), the dynamic window taking fixed addresses only.",
        apis: &["aclrtReserveMemAddressNoUCMemory"],
        sources: &[MEMORY_CPP, DEVMM, NPU_DRIVER_MEM, NO_UC_PAGE],
        confidence: &[Doc, Src],
        note: Some("devmm_svm.c:5033-5037 (REMOTE_MAP with addr 0: DRV_ERROR_NOT_SUPPORT), npu_driver_mem.cc:320-321 \
                    (RT_ERROR_FEATURE_NOT_SUPPORT), memory.cpp:1919 (ACL_REQUIRES_RTS_OK_WARN_NOT_SUPPORT); the page \
                    (11-04_虚拟内存管理.md:228): the start address cannot be chosen by the system. \
                    910B (no dynamic window): the emulator reserves as aclrtReserveMemAddress"),
        expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
        requires: &[NO_UC, DYNAMIC_WINDOW],
    }

    RSV_013 {
        group: RESERVE,
        text: "A3 only: a `aclrtReserveMemAddressNoUCMemory` size that is not whole GiB is refused (107000) at an \
               otherwise good address, and nothing is reserved.",
        apis: &["aclrtReserveMemAddressNoUCMemory"],
        sources: &[DYN_ADDR, NO_UC_PAGE],
        confidence: &[Doc, Src],
        note: Some("svm_da_alloc devmm_dynamic_addr.c:336-339 (size not DEVMM_HEAP_SIZE-aligned: \
                    DRV_ERROR_INVALID_VALUE, 107000 as ACL-RSV-005); the page (11-04_虚拟内存管理.md:236): size only whole GiB, at least 1 GiB"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
        requires: &[NO_UC, DYNAMIC_WINDOW],
    }

    REL_001 {
        group: RESERVE,
        text: "`virPtr` must be non-NULL.",
        apis: &["aclrtReleaseMemAddress"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    REL_002 {
        group: RESERVE,
        text: "`virPtr` must be the start of a live reservation; unknown, interior and aclrtMalloc addresses are rejected.",
        apis: &["aclrtReleaseMemAddress"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    REL_003 {
        group: RESERVE,
        text: "aclrtFree on a reserved address is rejected.",
        apis: &["aclrtFree"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    REL_004 {
        group: RESERVE,
        text: "Releasing a reservation that still has mappings (emulator: succeeds and unmaps them implicitly).",
        apis: &["aclrtReleaseMemAddress"],
        sources: &[Page("aclrtReleaseMemAddress page")],
        confidence: &[Doc, Undetermined],
        note: Some("doc requires unmapping first; no enforcing check found; emulator choice: 0 plus implicit unmap"),
        expect: Codes(&[acl!(SUCCESS)]),
    }

    // ==== 4.5 Mapping (ACL-MAP, ACL-UNMAP) ===========================================

    MAP_001 {
        group: MAP,
        text: "`virPtr` and `handle` must be non-NULL.",
        apis: &["aclrtMapMem"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    MAP_002 {
        group: MAP,
        text: "`size` must be non-zero.",
        apis: &["aclrtMapMem"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    MAP_003 {
        group: MAP,
        text: "`flags` must be 0.",
        apis: &["aclrtMapMem"],
        sources: &[Page("aclrtMapMem page"), MEMORY_CPP],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    MAP_004 {
        group: MAP,
        text: "`offset` must be 0; the ACL layer does not check it, the driver does.",
        apis: &["aclrtMapMem"],
        sources: &[Page("aclrtMapMem page"), DEVMM],
        confidence: &[Doc, Src],
        note: Some("D5: 107000, not 100000"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    MAP_005 {
        group: MAP,
        text: "`handle` must be a live handle of this process.",
        apis: &["aclrtMapMem"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    MAP_006 {
        group: MAP,
        text: "`virPtr` must lie inside a live reservation; an aclrtMalloc or random address is rejected.",
        apis: &["aclrtMapMem"],
        sources: &[MEM_MAP],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    }

    MAP_007 {
        group: MAP,
        text: "`virPtr` and `size` must be multiples of 2 MiB (1 GiB for 1G handles).",
        apis: &["aclrtMapMem"],
        sources: &[Page("aclrtMapMem page"), KERNEL],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    }

    MAP_008 {
        group: MAP,
        text: "`virPtr + size` must not pass the end of the reservation.",
        apis: &["aclrtMapMem"],
        sources: &[MEM_MAP],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    }

    MAP_009 {
        group: MAP,
        text: "No page of the range may already be mapped.",
        apis: &["aclrtMapMem"],
        sources: &[MEM_MAP],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    }

    MAP_010 {
        group: MAP,
        text: "A reservation holds memory of one device: the first successful map binds it, the binding remains after \
               unmapping, and another device's handle is rejected.",
        apis: &["aclrtMapMem"],
        sources: &[Page("aclrtMapMem page"), MEM_MAP],
        confidence: &[Doc, Src],
        note: Some("D14: source is stricter than the doc (binding is sticky)"),
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
        requires: TWO_DEVICES,
    }

    MAP_011 {
        group: MAP,
        text: "`virPtr` need not be the reservation start; several handles can be mapped side by side in one reservation.",
        apis: &["aclrtMapMem"],
        sources: &[Page("aclrtMapMem page")],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(SUCCESS)]),
    }

    MAP_012 {
        group: MAP,
        text: "`size` must equal the physical allocation's size (doc; emulator: 507899).",
        apis: &["aclrtMapMem"],
        sources: &[Page("aclrtMapMem page")],
        confidence: &[Doc, Undetermined],
        note: Some("D12: undetermined (device firmware); real result recorded as observed"),
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    }

    MAP_013 {
        group: MAP,
        text: "Mixing locally allocated and imported handles in one reservation is not checked (the doc forbids it; \
               shmem does it): allowed.",
        apis: &["aclrtMapMem"],
        sources: &[Page("aclrtMapMem page")],
        confidence: &[Doc, Src],
        note: Some("D13: doc-only rule; emulator permissive; real result recorded"),
        expect: Codes(&[acl!(SUCCESS)]),
        requires: PEERS,
    }

    MAP_014 {
        group: MAP,
        text: "The same handle may be mapped at several VAs at once.",
        apis: &["aclrtMapMem"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(SUCCESS)]),
    }

    MAP_015 {
        group: MAP,
        text: "Unmap followed by a new map at the same VA works, with the same or a new handle of the same device.",
        apis: &["aclrtMapMem", "aclrtUnmapMem"],
        sources: &[KERNEL],
        confidence: &[Src],
        expect: Codes(&[acl!(SUCCESS)]),
    }

    MAP_016 {
        group: MAP,
        text: "An imported handle belongs to the importing device (the `deviceId` passed, or the current device for V2).",
        apis: &["aclrtMemImportFromShareableHandle", "aclrtMapMem"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Behaviour,
        requires: &[Need::Devices(2), Need::Peers],
    }

    UNMAP_001 {
        group: MAP,
        text: "`virPtr` must be non-NULL.",
        apis: &["aclrtUnmapMem"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    UNMAP_002 {
        group: MAP,
        text: "`virPtr` must be the exact start of a live mapping; interior and unmapped addresses are rejected.",
        apis: &["aclrtUnmapMem"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    }

    UNMAP_003 {
        group: MAP,
        text: "Unmapping the last mapping of an already freed handle releases it.",
        apis: &["aclrtUnmapMem", "aclrtFreePhysical"],
        sources: &[KERNEL],
        confidence: &[Src],
        expect: Codes(&[acl!(SUCCESS)]),
    }

    // ==== 4.6 Access rights (ACL-ACC) ===============================================

    ACC_001 {
        group: ACCESS,
        text: "SetAccess: `virPtr` and `desc` must be non-NULL (checked by RT, not ACL).",
        apis: &["aclrtMemSetAccess"],
        sources: &[API_ERROR],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    ACC_002 {
        group: ACCESS,
        text: "SetAccess: `count` must be >= 1.",
        apis: &["aclrtMemSetAccess"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    ACC_003 {
        group: ACCESS,
        text: "Only READWRITE (3) is supported: NONE (0) and READ (1) are unsupported, any other value is invalid.",
        apis: &["aclrtMemSetAccess"],
        sources: &[Page("aclrtMemAccessDesc struct page"), KERNEL],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT), acl!(RT_PARAM_INVALID)]),
    }

    ACC_004 {
        group: ACCESS,
        text: "The location must be HOST with id 0 or DEVICE with id < 64.",
        apis: &["aclrtMemSetAccess"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    ACC_005 {
        group: ACCESS,
        text: "`virPtr` and `size` must describe a mapped range (the doc: equal to the MapMem values).",
        apis: &["aclrtMemSetAccess"],
        sources: &[Page("aclrtMemSetAccess page"), KERNEL],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    }

    ACC_006 {
        group: ACCESS,
        text: "Granting access to the device that owns the memory is a successful no-op.",
        apis: &["aclrtMemSetAccess"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(SUCCESS)]),
    }

    ACC_007 {
        group: ACCESS,
        text: "Repeating an identical grant succeeds; a different size for the same location is rejected.",
        apis: &["aclrtMemSetAccess"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR), acl!(SUCCESS)]),
        requires: TWO_DEVICES,
    }

    ACC_008 {
        group: ACCESS,
        text: "With count > 1 the real runtime reads descriptors at the wrong stride (24-byte ACL struct read as 20-byte \
               driver struct); the emulator reads proper 24-byte entries.",
        apis: &["aclrtMemSetAccess"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        note: Some("D11: real-hardware quirk; real result recorded as observed; not a pass/fail criterion"),
        expect: Observed,
        requires: TWO_DEVICES,
    }

    ACC_009 {
        group: ACCESS,
        text: "GetAccess: every pointer must be non-NULL.",
        apis: &["aclrtMemGetAccess"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    ACC_010 {
        group: ACCESS,
        text: "GetAccess returns the flags `location` has on the mapping at `virPtr` (READWRITE for the owner device); \
               an unmapped `virPtr` is rejected.",
        apis: &["aclrtMemGetAccess"],
        sources: &[Page("aclrtMemGetAccess page"), KERNEL],
        confidence: &[Doc, Inferred],
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR), acl!(SUCCESS)]),
    }

    // ==== 4.7 Export (ACL-EXP) ======================================================

    EXP_001 {
        group: EXPORT,
        text: "V1 checks, in order: `handle` non-NULL, `handleType` == NONE, `shareableHandle` non-NULL.",
        apis: &["aclrtMemExportToShareableHandle"],
        sources: &[Page("aclrtMemExportToShareableHandle page"), MEMORY_CPP],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    EXP_002 {
        group: EXPORT,
        text: "`flags` must be DEFAULT (0) or DISABLE_PID_VALIDATION (1) (V1 and V2).",
        apis: &["aclrtMemExportToShareableHandle", "aclrtMemExportToShareableHandleV2"],
        sources: &[Page("aclrtMemExportToShareableHandle page"), API_ERROR],
        confidence: &[Doc, Src],
        note: Some("D10: the V2 header comment says reserved, must be 0"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    EXP_003 {
        group: EXPORT,
        text: "V2: `handle` and `shareableHandle` must be non-NULL.",
        apis: &["aclrtMemExportToShareableHandleV2"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
        requires: &[EXPORT_V2],
    }

    EXP_004 {
        group: EXPORT,
        text: "V2: `shareType` must be DEFAULT (1) or FABRIC (2).",
        apis: &["aclrtMemExportToShareableHandleV2"],
        sources: &[API_ERROR],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
        requires: &[EXPORT_V2],
    }

    EXP_005 {
        group: EXPORT,
        text: "V2 FABRIC needs a current context (107002) and a platform with a server id: A3 exports (0), 910B \
               refuses (207000).",
        apis: &["aclrtMemExportToShareableHandleV2"],
        sources: &[Page("aclrtMemExportToShareableHandleV2 page"), API_IMPL, NPU_DRIVER],
        confidence: &[Doc, Src],
        note: Some("api_impl.cc:7095-7108 (context, then GetServerId), npu_driver.cc:1415-1423 (no server id: \
                    RT_ERROR_DRV_NOT_SUPPORT, 207000)"),
        expect: Codes(&[acl!(RT_CONTEXT_NULL), acl!(SUCCESS)]),
        profiles: &[ProfileExpect::new(PROFILE_910B, Codes(&[acl!(RT_CONTEXT_NULL), acl!(RT_FEATURE_NOT_SUPPORT)]))],
        requires: &[EXPORT_V2],
    }

    EXP_006 {
        group: EXPORT,
        text: "`handle` must be a live handle.",
        apis: &["aclrtMemExportToShareableHandle"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    EXP_007 {
        group: EXPORT,
        text: "The handle must come from aclrtMallocPhysical in this process (directly or through \
               RetainAllocationHandle); exporting an imported handle is rejected.",
        apis: &["aclrtMemExportToShareableHandle"],
        sources: &[Page("aclrtMemExportToShareableHandle page"), MEM_SHARE],
        confidence: &[Doc, Src, Inferred],
        note: Some("source for host memory, inferred for device memory"),
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
        requires: PEERS,
    }

    EXP_008 {
        group: EXPORT,
        text: "An allocation can be exported once; a second export of the same allocation is rejected, whatever the flags.",
        apis: &["aclrtMemExportToShareableHandle"],
        sources: &[Page("aclrtMemExportToShareableHandle page"), KERNEL],
        confidence: &[Doc, Src, Inferred],
        note: Some("source for host memory, inferred for device memory (closed firmware)"),
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    }

    EXP_009 {
        group: EXPORT,
        text: "With flag 1 the runtime exports first, then switches the trustlist off; a driver without that switch \
               returns 207000 after the handle was created.",
        apis: &["aclrtMemExportToShareableHandle"],
        sources: &[API_IMPL, NPU_DRIVER],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
    }

    EXP_010 {
        group: EXPORT,
        text: "V1 writes the 64-bit handle (share id in bits 0-31, device in 32-39, zero above); V2 DEFAULT writes the \
               same through `void*`; V2 FABRIC writes a 128-byte fabric handle.",
        apis: &["aclrtMemExportToShareableHandle", "aclrtMemExportToShareableHandleV2"],
        sources: &[DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(SUCCESS)]),
    }

    EXP_011 {
        group: EXPORT,
        text: "Host-located physical memory can be exported as well (the doc speaks only of device memory).",
        apis: &["aclrtMemExportToShareableHandle"],
        sources: &[KERNEL],
        confidence: &[Src],
        note: Some("D15: the doc says device memory only"),
        expect: Codes(&[acl!(SUCCESS)]),
    }

    EXP_012 {
        group: EXPORT,
        text: "The trustlist starts empty: with flag 0, only processes added by SetPid may import.",
        apis: &["aclrtMemExportToShareableHandle", "aclrtMemImportFromShareableHandle"],
        sources: &[Page("aclrtMemExportToShareableHandle page")],
        confidence: &[Doc, Src],
        expect: Behaviour,
        requires: PEERS,
    }

    // ==== 4.8 Trustlist (ACL-PID) ===================================================

    PID_001 {
        group: TRUSTLIST,
        text: "V1: `pid` must be non-NULL and `pidNum` >= 1.",
        apis: &["aclrtMemSetPidToShareableHandle"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    PID_002 {
        group: TRUSTLIST,
        text: "V2: `shareableHandle` and `pid` must be non-NULL and `pidNum` >= 1 (100000); `shareType` must be 1 or 2 \
               (107000).",
        apis: &["aclrtMemSetPidToShareableHandleV2"],
        sources: &[MEMORY_CPP, API_ERROR],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM), acl!(RT_PARAM_INVALID)]),
        requires: &[Need::Symbol("aclrtMemSetPidToShareableHandleV2")],
    }

    PID_003 {
        group: TRUSTLIST,
        text: "`pidNum` may not exceed 65,535.",
        apis: &["aclrtMemSetPidToShareableHandle"],
        sources: &[Driver("driver header comment"), DEVMM],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    PID_004 {
        group: TRUSTLIST,
        text: "The trustlist holds at most 65,535 distinct pids in total; adding beyond that fails.",
        apis: &["aclrtMemSetPidToShareableHandle"],
        sources: &[MEM_SHARE],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    }

    PID_005 {
        group: TRUSTLIST,
        text: "The shareable handle must exist: exported and not fully released, with a valid device field. Bits \
               40-63 are ignored (the driver reads share id and device only).",
        apis: &["aclrtMemSetPidToShareableHandle"],
        sources: &[MEM_SHARE, DEVMM],
        confidence: &[Src],
        note: Some("devmm_get_share_id / devmm_get_share_devid devmm_svm.c:5810-5818 mask bits 0-31 and 32-39"),
        expect: Codes(&[acl!(RT_INVALID_HANDLE)]),
    }

    PID_006 {
        group: TRUSTLIST,
        text: "Only the exporting process may set pids.",
        apis: &["aclrtMemSetPidToShareableHandle"],
        sources: &[Page("aclrtMemSetPidToShareableHandle page"), KERNEL],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
        requires: PEERS,
    }

    PID_007 {
        group: TRUSTLIST,
        text: "SetPid on a handle exported with DISABLE_PID_VALIDATION is refused.",
        apis: &["aclrtMemSetPidToShareableHandle"],
        sources: &[MEM_SHARE],
        confidence: &[Src],
        note: Some("D16: the doc is silent"),
        expect: Codes(&[acl!(RT_NO_PERMISSION)]),
    }

    PID_008 {
        group: TRUSTLIST,
        text: "Pid entries equal to 0 are skipped; if every entry is 0 the call fails.",
        apis: &["aclrtMemSetPidToShareableHandle"],
        sources: &[KERNEL],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
        requires: PEERS,
    }

    PID_009 {
        group: TRUSTLIST,
        text: "Setting a pid that is already listed succeeds and refreshes the entry's timestamp.",
        apis: &["aclrtMemSetPidToShareableHandle"],
        sources: &[KERNEL],
        confidence: &[Src],
        expect: Codes(&[acl!(SUCCESS)]),
        requires: PEERS,
    }

    PID_010 {
        group: TRUSTLIST,
        text: "An entry only authorises a process already running when it was set; an entry set before the importer \
               started (pid reuse) is treated as absent.",
        apis: &["aclrtMemSetPidToShareableHandle", "aclrtMemImportFromShareableHandle"],
        sources: &[MEM_SHARE],
        confidence: &[Src],
        note: Some("D17: the doc is silent"),
        expect: Behaviour,
        requires: &[Need::Peers, Need::PidSteering],
    }

    PID_011 {
        group: TRUSTLIST,
        text: "Pids are host TGIDs as returned by aclrtDeviceGetBareTgid.",
        apis: &["aclrtMemSetPidToShareableHandle", "aclrtDeviceGetBareTgid"],
        sources: &[Page("aclrtMemSetPidToShareableHandle and aclrtDeviceGetBareTgid pages")],
        confidence: &[Doc],
        expect: Behaviour,
        requires: PEERS,
    }

    PID_012 {
        group: TRUSTLIST,
        text: "A listed pid need not belong to a live process; nothing is checked at SetPid time.",
        apis: &["aclrtMemSetPidToShareableHandle"],
        sources: &[KERNEL],
        confidence: &[Src],
        expect: Codes(&[acl!(SUCCESS)]),
    }

    // ==== 4.9 Import (ACL-IMP) ======================================================

    IMP_001 {
        group: IMPORT,
        text: "V1: the `handle` output must be non-NULL.",
        apis: &["aclrtMemImportFromShareableHandle"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    IMP_002 {
        group: IMPORT,
        text: "V1: `deviceId` must be in [0, count-1].",
        apis: &["aclrtMemImportFromShareableHandle"],
        sources: &[Page("aclrtMemImportFromShareableHandle page"), API_ERROR],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(RT_INVALID_DEVICEID)]),
    }

    IMP_003 {
        group: IMPORT,
        text: "V2: `shareableHandle` and `handle` must be non-NULL, and `flags` must be 0.",
        apis: &["aclrtMemImportFromShareableHandleV2"],
        sources: &[Page("aclrtMemImportFromShareableHandleV2 page"), MEMORY_CPP],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
        requires: &[IMPORT_V2],
    }

    IMP_004 {
        group: IMPORT,
        text: "V2 imports onto the current device, so a current device is required.",
        apis: &["aclrtMemImportFromShareableHandleV2"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_CONTEXT_NULL)]),
        requires: &[IMPORT_V2],
    }

    IMP_005 {
        group: IMPORT,
        text: "V2: `shareType` must be 1 or 2.",
        apis: &["aclrtMemImportFromShareableHandleV2"],
        sources: &[API_ERROR],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
        requires: &[IMPORT_V2],
    }

    IMP_006 {
        group: IMPORT,
        text: "V2 FABRIC needs a server id (910B: 207000); on A3 a fabric handle whose server id equals the local \
               one is imported like a DEFAULT handle.",
        apis: &["aclrtMemImportFromShareableHandleV2"],
        sources: &[API_IMPL, NPU_DRIVER],
        confidence: &[Src],
        note: Some("api_impl.cc:7156-7164 (GetServerId first), 7170-7186 (same server: local import); \
                    npu_driver.cc:1415-1423"),
        expect: Codes(&[acl!(SUCCESS)]),
        profiles: &[ProfileExpect::new(PROFILE_910B, Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]))],
        requires: &[EXPORT_V2, IMPORT_V2, Need::Peers],
    }

    IMP_007 {
        group: IMPORT,
        text: "A handle that never existed, or whose memory every holder has released, is rejected.",
        apis: &["aclrtMemImportFromShareableHandle"],
        sources: &[Page("aclrtMemImportFromShareableHandle page"), KERNEL],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(RT_INVALID_HANDLE)]),
    }

    IMP_008 {
        group: IMPORT,
        text: "V1 needs a current context, checked after the handle lookup of ACL-IMP-007.",
        apis: &["aclrtMemImportFromShareableHandle"],
        sources: &[API_IMPL],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_CONTEXT_NULL), acl!(RT_INVALID_HANDLE)]),
        requires: PEERS,
    }

    IMP_009 {
        group: IMPORT,
        text: "The exporting process importing onto the device where the memory lives is rejected.",
        apis: &["aclrtMemImportFromShareableHandle"],
        sources: &[MEM_SHARE],
        confidence: &[Src],
        note: DOC_VS_SOURCE,
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    }

    IMP_010 {
        group: IMPORT,
        text: "The exporting process importing onto a different device (or side) succeeds.",
        apis: &["aclrtMemImportFromShareableHandle"],
        sources: &[KERNEL],
        confidence: &[Src],
        note: DOC_VS_SOURCE,
        expect: Codes(&[acl!(SUCCESS)]),
        requires: TWO_DEVICES,
    }

    IMP_011 {
        group: IMPORT,
        text: "Trustlist on (export flag 0) and the importer's host pid not listed: rejected.",
        apis: &["aclrtMemImportFromShareableHandle"],
        sources: &[Page("aclrtMemExportToShareableHandle page"), KERNEL],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
        requires: PEERS,
    }

    IMP_012 {
        group: IMPORT,
        text: "The importer is listed, but the entry was set before the importer process started: rejected.",
        apis: &["aclrtMemImportFromShareableHandle"],
        sources: &[Driver("timestamp check")],
        confidence: &[Src],
        note: Some("D17: the doc is silent"),
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
        requires: &[Need::Peers, Need::PidSteering],
    }

    IMP_013 {
        group: IMPORT,
        text: "Trustlist off (flag 1): any process may import.",
        apis: &["aclrtMemImportFromShareableHandle"],
        sources: &[KERNEL],
        confidence: &[Src],
        expect: Codes(&[acl!(SUCCESS)]),
        requires: PEERS,
    }

    IMP_014 {
        group: IMPORT,
        text: "The same process importing the same shareable handle onto the same device again gets the same handle \
               value with one more reference; each import needs its own FreePhysical.",
        apis: &["aclrtMemImportFromShareableHandle", "aclrtFreePhysical"],
        sources: &[DEVMM],
        confidence: &[Src],
        note: Some("doc-vs-source (D2): the doc says a repeat reports an error; emulator follows source"),
        expect: Codes(&[acl!(SUCCESS)]),
        requires: PEERS,
    }

    IMP_015 {
        group: IMPORT,
        text: "The same process importing onto another device gets a separate handle.",
        apis: &["aclrtMemImportFromShareableHandle"],
        sources: &[KERNEL],
        confidence: &[Src],
        expect: Codes(&[acl!(SUCCESS)]),
        requires: &[Need::Devices(2), Need::Peers],
    }

    IMP_016 {
        group: IMPORT,
        text: "Importing onto a device other than the exporter's succeeds without aclrtDeviceEnablePeerAccess (the \
               runtime enables P2P itself).",
        apis: &["aclrtMemImportFromShareableHandle"],
        sources: &[API_IMPL],
        confidence: &[Src],
        note: Some("doc-vs-source (D3): the doc requires EnablePeerAccess; emulator follows source"),
        expect: Codes(&[acl!(SUCCESS)]),
        requires: &[Need::Devices(2), Need::Peers],
    }

    IMP_017 {
        group: IMPORT,
        text: "The new handle takes its size, page type and memory type from the exporter's allocation, and is bound to \
               the importing device.",
        apis: &["aclrtMemImportFromShareableHandle", "aclrtMemGetAllocationPropertiesFromHandle"],
        sources: &[KERNEL],
        confidence: &[Src],
        expect: Behaviour,
        requires: PEERS,
    }

    IMP_018 {
        group: IMPORT,
        text: "Importing while the shared block is being torn down (a race) fails.",
        apis: &["aclrtMemImportFromShareableHandle"],
        sources: &[KERNEL],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    }

    IMP_019 {
        group: IMPORT,
        text: "Importing after the exporter freed, while another importer still holds the memory, succeeds.",
        apis: &["aclrtMemImportFromShareableHandle"],
        sources: &[KERNEL],
        confidence: &[Src],
        expect: Codes(&[acl!(SUCCESS)]),
        requires: PEERS,
    }

    IMP_020 {
        group: IMPORT,
        text: "Out of memory for the import bookkeeping fails.",
        apis: &["aclrtMemImportFromShareableHandle"],
        sources: &[KERNEL],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_MEMORY_ALLOCATION)]),
    }

    IMP_021 {
        group: IMPORT,
        text: "If the user-space cache is bypassed, the kernel rejects a second import by the same pid onto the same \
               device (unreachable through ACL).",
        apis: &["aclrtMemImportFromShareableHandle"],
        sources: &[KERNEL],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_INVALID_HANDLE)]),
    }

    // ==== 4.10 Lifetime of shared memory (ACL-LIFE) =================================

    LIFE_001 {
        group: LIFETIME,
        text: "Exported memory lives until the exporter and every importing process have dropped all their references \
               (frees and unmaps).",
        apis: &["aclrtFreePhysical", "aclrtUnmapMem", "aclrtMemImportFromShareableHandle"],
        sources: &[Page("aclrtMemExportToShareableHandle and import pages"), MEM_SHARE],
        confidence: &[Doc, Src],
        expect: Behaviour,
        requires: PEERS,
    }

    LIFE_002 {
        group: LIFETIME,
        text: "The exporter's free does not disturb importers: their mappings stay valid and keep the data.",
        apis: &["aclrtFreePhysical"],
        sources: &[KERNEL],
        confidence: &[Src],
        expect: Behaviour,
        requires: PEERS,
    }

    LIFE_003 {
        group: LIFETIME,
        text: "When the last holder releases, the shareable handle becomes invalid: import and SetPid then fail.",
        apis: &["aclrtMemImportFromShareableHandle", "aclrtMemSetPidToShareableHandle"],
        sources: &[KERNEL],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_INVALID_HANDLE)]),
        requires: PEERS,
    }

    LIFE_004 {
        group: LIFETIME,
        text: "Process exit releases all of that process's handles, mappings and share counts.",
        apis: &["aclrtMemImportFromShareableHandle"],
        sources: &[KERNEL],
        confidence: &[Src],
        expect: Behaviour,
        requires: &[Need::Peers, Need::DeviceMemory(4 << 20)],
    }

    LIFE_005 {
        group: LIFETIME,
        text: "A handle used after its memory was really released behaves undefined.",
        apis: &["aclrtMapMem"],
        sources: &[Page("aclrtMemExportToShareableHandle page")],
        confidence: &[Doc],
        expect: Observed,
    }

    // ==== 4.11 Peer access (ACL-PEER), process id (ACL-TGID), copies (ACL-CPY), retain (ACL-RET)

    PEER_001 {
        group: PEER,
        text: "CanAccessPeer: `deviceId` and `peerDeviceId` must differ.",
        apis: &["aclrtDeviceCanAccessPeer"],
        sources: &[MEMORY_CPP],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    PEER_002 {
        group: PEER,
        text: "CanAccessPeer: ids >= 64 or a NULL output are rejected.",
        apis: &["aclrtDeviceCanAccessPeer"],
        sources: &[API_ERROR],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    PEER_003 {
        group: PEER,
        text: "EnablePeerAccess: `flags` must be 0.",
        apis: &["aclrtDeviceEnablePeerAccess"],
        sources: &[Page("device management pages"), MEMORY_CPP],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(FEATURE_UNSUPPORTED)]),
    }

    PEER_004 {
        group: PEER,
        text: "EnablePeerAccess and DisablePeerAccess need a current device.",
        apis: &["aclrtDeviceEnablePeerAccess", "aclrtDeviceDisablePeerAccess"],
        sources: &[RUNTIME],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_CONTEXT_NULL)]),
    }

    PEER_005 {
        group: PEER,
        text: "EnablePeerAccess with the peer equal to the current device is rejected.",
        apis: &["aclrtDeviceEnablePeerAccess"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    PEER_006 {
        group: PEER,
        text: "A chip without P2P rejects EnablePeerAccess.",
        apis: &["aclrtDeviceEnablePeerAccess"],
        sources: &[NPU_DRIVER],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
        requires: TWO_DEVICES,
    }

    PEER_007 {
        group: PEER,
        text: "Enabling peer access twice (emulator: succeeds).",
        apis: &["aclrtDeviceEnablePeerAccess"],
        sources: &[],
        confidence: &[Undetermined],
        note: Some("undetermined: emulator choice (0)"),
        expect: Codes(&[acl!(SUCCESS)]),
        requires: TWO_DEVICES,
    }

    TGID_001 {
        group: DEVICE,
        text: "aclrtDeviceGetBareTgid: the pointer must be non-NULL.",
        apis: &["aclrtDeviceGetBareTgid"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    TGID_002 {
        group: DEVICE,
        text: "aclrtDeviceGetBareTgid returns the host-namespace TGID, which equals getpid() outside containers.",
        apis: &["aclrtDeviceGetBareTgid"],
        sources: &[Page("aclrtDeviceGetBareTgid page"), KERNEL],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(SUCCESS)]),
    }

    CPY_001 {
        group: MEMORY,
        text: "aclrtMemcpy with count 0 returns success without checking anything.",
        apis: &["aclrtMemcpy"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(SUCCESS)]),
    }

    CPY_002 {
        group: MEMORY,
        text: "aclrtMemcpy: NULL dst or src is rejected, and `kind` must be 0-5 (6 and 7 are rejected).",
        apis: &["aclrtMemcpy"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    CPY_003 {
        group: MEMORY,
        text: "aclrtMemcpy: `destMax` = 0 or `count` > `destMax` is rejected; dst == src is a successful no-op.",
        apis: &["aclrtMemcpy"],
        sources: &[API_ERROR],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_PARAM_INVALID), acl!(SUCCESS)]),
    }

    CPY_004 {
        group: MEMORY,
        text: "aclrtMemset: count 0 succeeds, NULL is rejected (100000), count > maxCount is rejected (107000), and on an \
               ordinary host pointer it performs a plain memset.",
        apis: &["aclrtMemset"],
        sources: &[MEMORY_CPP, KERNEL],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM), acl!(RT_PARAM_INVALID), acl!(SUCCESS)]),
    }

    CPY_005 {
        group: MEMORY,
        text: "aclrtMallocHost: NULL output or size 0 is rejected; aclrtFreeHost(NULL) is rejected.",
        apis: &["aclrtMallocHost", "aclrtFreeHost"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    CPY_006 {
        group: MEMORY,
        text: "aclrtMemcpy and aclrtMemcpyAsync: the kind is advisory. Each pointer is taken for what its address is, \
               so host buffers under a device kind (HOST_TO_DEVICE, HOST_TO_BUF_TO_DEVICE, DEVICE_TO_HOST, \
               DEVICE_TO_DEVICE) are copied and the call returns 0.",
        apis: &["aclrtMemcpy", "aclrtMemcpyAsync"],
        sources: &[
            Page("aclrtMemcpy page (kind: the system decides from the addresses)"),
            Runtime("src/runtime/driver/npu_driver_mem.cc (drvMemcpy is given no kind)"),
            Runtime("src/runtime/core/src/api_impl/api_error.cc (MemcpyKindAutoCorrect: async kinds are corrected)"),
        ],
        confidence: &[Src],
        note: Some(
            "wave 1 refused the mismatch with 107000; the runtime's source decides from the addresses, so \
             the emulator copies. A stray address outside the SVM range is host memory to the driver and faults \
             there; the emulator refuses the addresses no process can map (ACL-CPY-007)",
        ),
        expect: Behaviour,
    }

    CPY_007 {
        group: MEMORY,
        text: "aclrtMemcpy, aclrtMemcpyAsync, aclrtMemset: a host-side address taken for no memory (the low \
               64 KiB, such as 0x1000, or past the user address space), or one the copy kind names as device memory \
               with nothing mapped there, is refused, not dereferenced.",
        apis: &["aclrtMemcpy", "aclrtMemcpyAsync", "aclrtMemset"],
        sources: &[DEVMM, KERNEL],
        confidence: &[Src],
        note: Some(
            "the driver memsets or copies an address outside the SVM range as host memory (drvMemsetD8: not in range \
             means the host), which faults; the emulator answers 107000. Real-hardware result recorded as observed",
        ),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
    }

    RET_001 {
        group: RETAIN,
        text: "RetainAllocationHandle on the VA a mapping starts at returns that mapping's handle with one more \
               reference (which needs its own FreePhysical). Any other VA is rejected: the map record is found by its \
               exact VA, so a reserved never-mapped VA, an interior address of a mapping and an unmapped VA give \
               507899; a never-mapped reservation over 512 MiB gives 107017 (its heap has no side yet).",
        apis: &["aclrtMemRetainAllocationHandle"],
        sources: &[Page("aclrtMemRetainAllocationHandle page"), DEVMM, NPU_DRIVER],
        confidence: &[Doc, Src],
        note: Some("devmm_svm.c:5590-5621 (attribute, then the record keyed by the exact VA, 5986-6003: NOT_EXIST); \
                    devmm_svm.c:2157 (no side: INVALID_HANDLE); npu_driver.cc:1516-1527; a driver without the call: \
                    207000"),
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR), acl!(RT_INVALID_HANDLE), acl!(SUCCESS)]),
    }

    RET_002 {
        group: RETAIN,
        text: "GetAddressRange on an address inside a mapped VMM block returns the block's mapped base and size.",
        apis: &["aclrtMemGetAddressRange"],
        sources: &[Page("aclrtMemGetAddressRange page")],
        confidence: &[Doc],
        expect: Codes(&[acl!(SUCCESS)]),
        requires: &[Need::Symbol("aclrtMemGetAddressRange")],
    }

    // ==== §5 Combined cases (ACL-ORD) ================================================

    ORD_001 {
        group: ORDER,
        text: "Import of an unknown handle without any SetDevice returns 107017 with V1 but 107002 with V2.",
        apis: &["aclrtMemImportFromShareableHandle", "aclrtMemImportFromShareableHandleV2"],
        sources: &[Reference("acl.md §5, Import V1 and V2 orders")],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_INVALID_HANDLE), acl!(RT_CONTEXT_NULL)]),
        requires: &[IMPORT_V2],
        enforced_by: &[&IMP_007, &IMP_004],
    }

    ORD_002 {
        group: ORDER,
        text: "Export V1 with a NULL handle and flags 5 returns 100000.",
        apis: &["aclrtMemExportToShareableHandle"],
        sources: &[Reference("acl.md §5, Export V1 order")],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
        enforced_by: &[&EXP_001],
    }

    ORD_003 {
        group: ORDER,
        text: "MapMem with offset != 0 and flags != 0 returns 100000.",
        apis: &["aclrtMapMem"],
        sources: &[Reference("acl.md §5, MapMem order")],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM)]),
        enforced_by: &[&MAP_003],
    }

    ORD_004 {
        group: ORDER,
        text: "MapMem with offset != 0 and a VA outside any reservation returns 107000.",
        apis: &["aclrtMapMem"],
        sources: &[Reference("acl.md §5, MapMem order")],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
        enforced_by: &[&MAP_004],
    }

    // ==== §7 Sample flows (ACL-FLOW) =================================================

    FLOW_001 {
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
    }

    FLOW_002 {
        group: SAMPLE,
        text: "Sample 8 (no trustlist): as sample 7 with export flag 1 and no pid exchange.",
        apis: &["aclrtMemExportToShareableHandle", "aclrtMemImportFromShareableHandle", "aclrtMapMem", "aclrtMemcpy"],
        sources: &[Reference("acl.md §7.2, sample 8_physical_memory_sharing_withoutpid")],
        confidence: &[Doc, Src],
        expect: Behaviour,
        requires: PEERS,
    }

    FLOW_003 {
        group: SAMPLE,
        text: "Sample 12 (FABRIC, one host): the server exports a V2 FABRIC handle with flag 1; the client imports it with \
               V2 onto its current device, maps it, sets access and both release.",
        apis: &["aclrtMemExportToShareableHandleV2", "aclrtMemImportFromShareableHandleV2", "aclrtMapMem"],
        sources: &[Reference("acl.md §7.3, sample 12_cross_server_physical_memory_sharing_withoutpid")],
        confidence: &[Doc, Src],
        expect: Behaviour,
        requires: FABRIC_PEERS,
    }

    // ==== Processes forked after initialisation ===========================

    FORK_001 {
        group: "acl.fork",
        text: "A process forked after the parent initialised ACL must not call ACL: CANN does not support it (\"errors or \
               hangs\"); the emulator refuses every call in such a child with 100001 and a message naming the parent.",
        apis: &["aclInit", "aclrtMallocPhysical", "aclrtMemImportFromShareableHandle", "aclrtFreePhysical"],
        sources: &[Page("使用约束 (constraints): 关于进程, fork"), Reference("emulator.md, processes forked after initialisation")],
        confidence: &[Doc, Undetermined],
        note: Some("the documentation says unsupported (errors or hangs), no code: the code is the emulator's choice"),
        expect: Codes(&[acl!(UNINITIALIZE)]),
        requires: PEERS,
    }

    // ==== IPC by key: aclrtIpcMem* on aclrtMalloc memory (ACL-IPK) =========
    // Sources: the runtime's ACL and rts layers, the driver's user library
    // (devmm v2) and kernel module (svm v2 shmem); see docs/audit/acl-ipc-key.md.

    IPK_001 {
        group: IPC_KEY,
        text: "aclrtIpcMemGetExportKey writes a NUL-terminated key of 64 printable characters (65 bytes with the NUL); a \
               key names one export of one process and is passed to other processes as text.",
        apis: &["aclrtIpcMemGetExportKey"],
        sources: &[IPC_KMOD, IPC_NODE, DEVMM],
        confidence: &[Src],
        expect: Behaviour,
    }

    IPK_002 {
        group: IPC_KEY,
        text: "aclrtIpcMemGetExportKey: a NULL devPtr or key is 100000; size 0, len 0, flags above 1 and a key buffer \
               shorter than 65 bytes are 107000.",
        apis: &["aclrtIpcMemGetExportKey"],
        sources: &[MEMORY_CPP, API_ERROR, DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM), acl!(RT_PARAM_INVALID)]),
    }

    IPK_003 {
        group: IPC_KEY,
        text: "aclrtIpcMemGetExportKey exports a range of device memory that starts on a page of it: inside an \
               aclrtMalloc allocation (its start or any page after it) or inside a VMM mapping whose physical memory \
               was neither exported as a shareable handle nor imported; an importer sees the range. Host memory, an \
               address off the memory's pages, a size past the allocation and VMM memory shared as a shareable \
               handle are refused by the kernel (507899).",
        apis: &["aclrtIpcMemGetExportKey", "aclrtIpcMemImportByKey"],
        sources: &[IPC_KMOD, ERRCODE],
        confidence: &[Src],
        note: Some("the kernel checks the page flags of every page of the range (svm_shmem_interprocess.c:169-225) \
                    and counts a VMM reservation's use (:227-246); the emulator's page is the memory's granule (2 MiB \
                    for aclrtMalloc), and a VMM range must lie inside one mapping"),
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
        requires: PEERS,
    }

    IPK_004 {
        group: IPC_KEY,
        text: "aclrtIpcMemGetExportKey called again on the same block succeeds with a new, different key; every key \
               imports the same memory.",
        apis: &["aclrtIpcMemGetExportKey", "aclrtIpcMemImportByKey"],
        sources: &[IPC_KMOD, IPC_NODE],
        confidence: &[Src],
        expect: Behaviour,
        requires: PEERS,
    }

    IPK_005 {
        group: IPC_KEY,
        text: "aclrtIpcMemSetImportPid: a NULL key or pid is 100000; num 0, num above 31, an empty key and one without a \
               NUL in its first 65 bytes are 107000.",
        apis: &["aclrtIpcMemSetImportPid"],
        sources: &[MEMORY_CPP, API_ERROR, DEVMM],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM), acl!(RT_PARAM_INVALID)]),
    }

    IPK_006 {
        group: IPC_KEY,
        text: "aclrtIpcMemSetImportPid is refused by the kernel (507899) for a key that names no export, from a process \
               that did not create the key, for a list of only zeros or the creator's own pid, and when the key's list \
               would pass 32,768 pids; zeros and the own pid beside others are skipped.",
        apis: &["aclrtIpcMemSetImportPid"],
        sources: &[IPC_NODE, ERRCODE],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
        requires: PEERS,
    }

    IPK_007 {
        group: IPC_KEY,
        text: "With export flag 0 the trustlist is read at import: a process not on it is refused (507899) while one on \
               it imports and reads the data; a pid listed after a refused import lets the next import succeed.",
        apis: &["aclrtIpcMemSetImportPid", "aclrtIpcMemImportByKey"],
        sources: &[IPC_NODE, ERRCODE],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
        requires: PEERS,
    }

    IPK_008 {
        group: IPC_KEY,
        text: "With export flag 1 (DISABLE_PID_VALIDATION) any process imports the key without aclrtIpcMemSetImportPid.",
        apis: &["aclrtIpcMemGetExportKey", "aclrtIpcMemImportByKey"],
        sources: &[API_IMPL_SOC, IPC_NODE],
        confidence: &[Src],
        expect: Behaviour,
        requires: PEERS,
    }

    IPK_009 {
        group: IPC_KEY,
        text: "Importing a key in the process that created it: with flag 0 it is refused (507899: the creator is never \
               on its own list); with flag 1 it succeeds at a second address that shows the same memory.",
        apis: &["aclrtIpcMemImportByKey"],
        sources: &[IPC_NODE, ERRCODE],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    }

    IPK_010 {
        group: IPC_KEY,
        text: "A process that imports a key again onto the same device gets 0 and the same address, and needs one \
               aclrtIpcMemClose per import (the mapping stays until the last); importing it onto another device while it \
               is open is refused (507899).",
        apis: &["aclrtIpcMemImportByKey", "aclrtIpcMemClose"],
        sources: &[DEVMM, IPC_NODE],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
        requires: &[Need::Devices(2), Need::Peers],
    }

    IPK_011 {
        group: IPC_KEY,
        text: "A key imports onto a device other than the exporter's without peer access; with ENABLE_PEER_ACCESS the \
               runtime first enables access from the importing device to the exporter's.",
        apis: &["aclrtIpcMemImportByKey", "aclrtDevicePeerAccessStatus"],
        sources: &[API_IMPL_SOC, DEVMM],
        confidence: &[Src, Undetermined],
        note: Some("the open path of devmm v2 checks no P2P link; a real board without one may fail the prefetch"),
        expect: Behaviour,
        requires: &[Need::Devices(2), Need::Peers],
    }

    IPK_012 {
        group: IPC_KEY,
        text: "aclrtIpcMemClose in the creating process destroys the key: later imports by any process are refused \
               (507899), while importers that have it open keep it and their close returns 0.",
        apis: &["aclrtIpcMemClose", "aclrtIpcMemImportByKey"],
        sources: &[API_IMPL_SOC, IPC_KMOD, IPC_NODE, Page("aclrtIpcMemClose page")],
        confidence: &[Src, Doc],
        note: Some("the documentation asks importers to close first; the source lets them close after"),
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
        requires: PEERS,
    }

    IPK_013 {
        group: IPC_KEY,
        text: "aclrtIpcMemClose: NULL is 100000, an empty key 107000; a key this process neither created nor has open \
               (another process's key, an unknown key) is 507899. A second close by the creator is 107017 while \
               another process still has the key open (the destroyed node lives on, no longer valid), and 507899 \
               once none does.",
        apis: &["aclrtIpcMemClose"],
        sources: &[MEMORY_CPP, API_IMPL_SOC, DEVMM, IPC_KMOD, IPC_NODE, ERRNO_MAP],
        confidence: &[Src],
        note: Some("the driver keeps one node per key; the emulator counts another process as holding the key when \
                    it holds an import of the key's memory, so an import through another key of the same allocation \
                    counts too"),
        expect: Codes(&[acl!(INVALID_PARAM), acl!(RT_PARAM_INVALID), acl!(RT_DRV_INTERNAL_ERROR), acl!(RT_INVALID_HANDLE)]),
        requires: PEERS,
    }

    IPK_014 {
        group: IPC_KEY,
        text: "aclrtFree of an exported block while importers have it open returns 0; later imports of its key are \
               refused (507899) and the importers' close returns 0.",
        apis: &["aclrtFree", "aclrtIpcMemImportByKey", "aclrtIpcMemClose"],
        sources: &[PROC_INFO, IPC_NODE],
        confidence: &[Src],
        note: Some("the driver frees the importers' pages; what they read afterwards is undefined and not checked"),
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
        requires: PEERS,
    }

    IPK_015 {
        group: IPC_KEY,
        text: "After the exporting process exits its keys are gone: an import is refused (507899); a process that \
               imported before keeps its mapping and its close returns 0.",
        apis: &["aclrtIpcMemImportByKey", "aclrtIpcMemClose"],
        sources: &[IPC_NODE, ERRCODE],
        confidence: &[Src],
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
        requires: PEERS,
    }

    IPK_016 {
        group: IPC_KEY,
        text: "aclrtIpcMemImportByKey: a NULL devPtr or key is 100000; flags above 1 and an empty key are 107000; a \
               well-formed key that names no export is 507899.",
        apis: &["aclrtIpcMemImportByKey"],
        sources: &[MEMORY_CPP, API_ERROR, DEVMM, IPC_KMOD, ERRCODE],
        confidence: &[Src],
        expect: Codes(&[acl!(INVALID_PARAM), acl!(RT_PARAM_INVALID), acl!(RT_DRV_INTERNAL_ERROR)]),
    }

    // ==== V2 export and import, FABRIC handles =============================

    SHV_001 {
        group: V2,
        text: "A FABRIC handle is 128 bytes: u32 driver handle type FABRIC (1) at 0, the server's sdid at 4, the \
               exporter's device at 8, its physical device at 12, the share id at 16, zeros after. Its u64 form \
               (share id | device << 32) names the same export, and another process on the same server imports it \
               with V1.",
        apis: &["aclrtMemExportToShareableHandleV2", "aclrtMemImportFromShareableHandle"],
        sources: &[DEVMM, HAL_TYPES, ACL_RT_H],
        confidence: &[Src],
        note: Some("struct devmm_share_handle devmm_svm.c:5851-5857, filled 5894-5898; u64 packing 5800-5818 and \
                    halMemTransShareableHandle 5958-5987; drv_mem_handle_type common_pkg.h:147-152"),
        expect: Codes(&[acl!(SUCCESS)]),
        requires: FABRIC_PEERS,
    }

    SHV_002 {
        group: V2,
        text: "V2 with shareType DEFAULT (1) writes only the 8-byte u64 form through the `void*` (the rest of the \
               caller's buffer is untouched), and a u64 handle from V1 imports with V2 DEFAULT in another process.",
        apis: &["aclrtMemExportToShareableHandleV2", "aclrtMemImportFromShareableHandleV2"],
        sources: &[NPU_DRIVER_MEM],
        confidence: &[Src],
        note: Some("npu_driver_mem.cc:534-537 (export DEFAULT is V1 through a uint64_t*), 582-585 (import DEFAULT \
                    reads a uint64_t)"),
        expect: Codes(&[acl!(SUCCESS)]),
        requires: V2_PEERS,
    }

    SHV_003 {
        group: V2,
        text: "A fabric handle whose type word is not FABRIC (1), e.g. NONE (0) or POSIX (2), is rejected by import \
               V2 and SetPid V2 with shareType FABRIC (the driver's translation to the u64 form refuses it).",
        apis: &["aclrtMemImportFromShareableHandleV2", "aclrtMemSetPidToShareableHandleV2"],
        sources: &[DEVMM, NPU_DRIVER_MEM, ERRCODE],
        confidence: &[Src],
        note: Some("halMemTransShareableHandle devmm_svm.c:5969-5974 (DRV_ERROR_INVALID_VALUE), reached from \
                    GetServerIdAndshareableHandle npu_driver_mem.cc:634-650; errcode_manage.cc:546 and :84 map it to \
                    107000"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
        requires: &[EXPORT_V2, IMPORT_V2, FABRIC],
    }

    SHV_004 {
        group: V2,
        text: "A FABRIC export with flags 0 keeps the trustlist: a third process that is not listed is refused \
               (507899) while the process listed through SetPid V2 with the fabric handle imports (0).",
        apis: &[
            "aclrtMemExportToShareableHandleV2",
            "aclrtMemSetPidToShareableHandleV2",
            "aclrtMemImportFromShareableHandleV2",
        ],
        sources: &[API_IMPL, MEM_SHARE],
        confidence: &[Src, Inferred],
        note: Some("api_impl.cc:7091-7120 (driver export with flags 0; DISABLE_PID_VALIDATION applied only for flag \
                    1), 7195-7206 (SetPid V2 translates to the u64 form); the kernel's trustlist as ACL-IMP-011"),
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR), acl!(SUCCESS)]),
        enforced_by: &[&IMP_011],
        requires: FABRIC_PEERS,
    }

    SHV_005 {
        group: V2,
        text: "Cross-device V2: the exporting process importing its own FABRIC handle onto the device the memory lives \
               on is refused (507899); onto another current device it gets a handle of that device (0).",
        apis: &["aclrtMemImportFromShareableHandleV2", "aclrtMemGetAllocationPropertiesFromHandle"],
        sources: &[API_IMPL, MEM_SHARE],
        confidence: &[Src],
        note: Some("api_impl.cc:7148-7186 (same server: local import onto the current device, P2P enabled toward \
                    the exporter), then as ACL-IMP-009 and ACL-MAP-016"),
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR), acl!(SUCCESS)]),
        enforced_by: &[&IMP_009],
        requires: &[EXPORT_V2, IMPORT_V2, Need::Devices(2), FABRIC],
    }

    SHV_006 {
        group: V2,
        text: "Sample 12 across servers: a FABRIC handle exported with flag 1 on one server imports with V2 on \
               another server (a peer in another network namespace sharing the root), whose exports carry another \
               sdid; the client maps it, sees the server's data, and both release.",
        apis: &["aclrtMemExportToShareableHandleV2", "aclrtMemImportFromShareableHandleV2", "aclrtMapMem"],
        sources: &[API_IMPL, Reference("acl.md §7.3, sample 12_cross_server_physical_memory_sharing_withoutpid")],
        confidence: &[Doc, Src, Undetermined],
        note: Some("api_impl.cc:7166-7185: another server id skips the local conversion and imports the fabric \
                    handle itself; the emulator names a server by its network namespace"),
        expect: Codes(&[acl!(SUCCESS)]),
        requires: FABRIC_PEERS,
    }

    // ==== Retain =============================================================

    RET_003 {
        group: RETAIN,
        text: "Each retain adds one reference: a mapping retained twice needs three FreePhysical calls (the malloc's \
               and one per retain) before its device memory comes back.",
        apis: &["aclrtMemRetainAllocationHandle", "aclrtFreePhysical", "aclrtGetMemInfo"],
        sources: &[Page("aclrtMemRetainAllocationHandle page"), DEVMM],
        confidence: &[Doc, Src],
        note: Some("devmm_svm.c:5615 (devmm_vmm_handle_ref_inc per retain), :6047 (per import); halMemRelease drops one"),
        expect: Codes(&[acl!(SUCCESS)]),
    }

    RET_004 {
        group: RETAIN,
        text: "Retain once, free once (Mooncake's fabric path): the reference the retain added keeps the 4 MiB \
               allocation charged on the device after unmap and free, on the exporting side and on the importing \
               side; only the second FreePhysical gives it back.",
        apis: &["aclrtMemRetainAllocationHandle", "aclrtFreePhysical", "aclrtMemImportFromShareableHandleV2"],
        sources: &[Page("aclrtMemRetainAllocationHandle page"), DEVMM],
        confidence: &[Doc, Src],
        expect: Codes(&[acl!(SUCCESS)]),
        requires: FABRIC_PEERS,
    }

    RET_005 {
        group: RETAIN,
        text: "Retain after unmap: the map record is gone, so the VA is refused (507899) although its reservation \
               stays bound; mapped again, the VA retains the new mapping's handle.",
        apis: &["aclrtMemRetainAllocationHandle", "aclrtUnmapMem"],
        sources: &[DEVMM, ERRCODE],
        confidence: &[Src],
        note: Some("halMemUnmap destroys the record (devmm_svm.c:5583); lookup misses with NOT_EXIST (5488-5506), \
                    unmapped by errcode_manage.cc:580: 507899"),
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    }

    RET_006 {
        group: RETAIN,
        text: "Retain on aclrtMalloc memory is refused (507899): it has no VMM map record.",
        apis: &["aclrtMemRetainAllocationHandle", "aclrtMalloc"],
        sources: &[DEVMM, ERRCODE],
        confidence: &[Src],
        note: Some("drvMemGetAttribute succeeds on the SVM heap (devmm_svm.c:2188-2226), the record lookup does not \
                    (5609)"),
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
    }

    // ==== Address queries ======================================================

    QRY_001 {
        group: QUERY,
        text: "aclrtMemGetAddressRange of an address no device allocation covers (host memory) is refused: the \
               driver finds no range (107000).",
        apis: &["aclrtMemGetAddressRange"],
        sources: &[DEVMM, NPU_DRIVER],
        confidence: &[Src],
        note: Some("halMemGetAddressRange devmm_svm.c:6456-6459 (DRV_ERROR_INVALID_VALUE); npu_driver.cc:1544-1556"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
        requires: &[Need::Symbol("aclrtMemGetAddressRange")],
    }

    QRY_002 {
        group: QUERY,
        text: "aclrtPointerGetAttributes: a VMM mapping (start or interior) and aclrtMalloc memory are DEVICE with \
               their device id and 2 MiB pages; an imported mapping is DEVICE of the importing device; \
               aclrtMallocHost memory is HOST 0; ordinary host memory is UNREGISTERED (2) with 4 KiB pages.",
        apis: &["aclrtPointerGetAttributes"],
        sources: &[NPU_DRIVER_MEM, DEVMM],
        confidence: &[Src],
        note: Some("PtrGetAttributes npu_driver_mem.cc:2091-2134 (memType to location; id only for device); \
                    drvMemGetAttribute devmm_svm.c:2188-2226"),
        expect: Codes(&[acl!(SUCCESS)]),
        requires: &[Need::Devices(2)],
    }

    QRY_003 {
        group: QUERY,
        text: "aclrtPointerGetAttributes of a never-mapped reservation over 512 MiB is refused (107017): its heap \
               has no side yet.",
        apis: &["aclrtPointerGetAttributes"],
        sources: &[DEVMM],
        confidence: &[Src],
        note: Some("devmm_get_reserve_addr_attr devmm_svm.c:2144-2159 (DRV_ERROR_INVALID_HANDLE); reservations over \
                    DEVMM_LARGE_MEM_THRESHOLD_SIZE (devmm_svm.h:47) are heaps of their own. Under 512 MiB: \
                    undetermined (the node's initial side)"),
        expect: Codes(&[acl!(RT_INVALID_HANDLE)]),
    }

    // ==== Streams and events ===================================================

    STM_001 {
        group: STREAM,
        text: "aclrtCreateStream, aclrtDestroyStream and aclrtStreamQuery refuse a NULL out-pointer or stream \
               (100000), before the runtime sees the call.",
        apis: &["aclrtCreateStream", "aclrtDestroyStream", "aclrtStreamQuery"],
        sources: &[STREAM_CPP],
        confidence: &[Src],
        note: Some("ACL_REQUIRES_NOT_NULL_WITH_INPUT_REPORT stream.cpp:42 (create), :98 (destroy), :169 (query status)"),
        expect: Codes(&[acl!(INVALID_PARAM)]),
    }

    STM_002 {
        group: STREAM,
        text: "aclrtSynchronizeStreamWithTimeout and aclrtSynchronizeDeviceWithTimeout refuse a timeout below -1 \
               (the ACL front end) and a timeout of 0 (the runtime), both 107000; -1 waits without bound.",
        apis: &["aclrtSynchronizeStreamWithTimeout", "aclrtSynchronizeDeviceWithTimeout"],
        sources: &[STREAM_CPP, DEVICE_CPP, API_ERROR],
        confidence: &[Src],
        note: Some("stream.cpp:139-149 and device.cpp:167-168 (timeout < -1); ApiErrorDecorator::StreamSynchronize \
                    api_error.cc:1074-1075 and DeviceSynchronize :2813-2814 refuse 0 (RT_ERROR_INVALID_VALUE, \
                    107000), although acl_rt.h:2762-2769 calls 0 an immediate check: doc-vs-source, source followed"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
        requires: &[Need::Symbol("aclrtSynchronizeStreamWithTimeout")],
    }

    STM_003 {
        group: STREAM,
        text: "aclrtSynchronizeStreamWithTimeout whose stream's work outlasts the timeout fails with 507046 \
               (ACL_ERROR_RT_STREAM_SYNC_TIMEOUT); the work still completes.",
        apis: &["aclrtSynchronizeStreamWithTimeout", "aclrtMemcpyAsync", "aclrtValueWait", "aclrtValueWrite"],
        sources: &[STREAM_CPP, ERRCODE],
        confidence: &[Src],
        note: Some("stream.cpp:151-153 returns the runtime's timeout as is; errcode_manage.cc:132"),
        expect: Codes(&[acl!(RT_STREAM_SYNC_TIMEOUT)]),
        requires: &[Need::Symbol("aclrtSynchronizeStreamWithTimeout"), Need::Symbol("aclrtValueWait")],
    }

    STM_004 {
        group: STREAM,
        text: "aclrtMemcpyAsync is asynchronous: after aclrtSynchronizeStream the copied bytes are there \
               (host to device, then device to host on the same stream).",
        apis: &["aclrtMemcpyAsync", "aclrtSynchronizeStream"],
        sources: &[ACL_RT_H],
        confidence: &[Doc],
        note: Some("acl_rt.h:2226-2249: call aclrtSynchronizeStream to ensure the copy has completed"),
        expect: Behaviour,
    }

    STM_005 {
        group: STREAM,
        text: "aclrtDestroyStream waits for the stream's pending tasks: work enqueued before it completes.",
        apis: &["aclrtDestroyStream", "aclrtMemcpyAsync"],
        sources: &[STREAM_CC],
        confidence: &[Src],
        note: Some("rtStreamDestroy passes force=false (api_c_stream.cc:98); Stream::TearDown submits the \
                    recycle and waits for pendingNum_ (stream.cc:1441-1493); aclrtDestroyStreamForce passes \
                    true (api_c_stream.cc:113): pending tasks are force-recycled"),
        expect: Behaviour,
    }

    STM_006 {
        group: STREAM,
        text: "aclrtStreamQuery of a stream with no pending work writes ACL_STREAM_STATUS_COMPLETE (0).",
        apis: &["aclrtStreamQuery"],
        sources: &[STREAM_CPP],
        confidence: &[Src],
        note: Some("stream.cpp:171-176: RT_ERROR_NONE -> COMPLETE, ACL_ERROR_RT_STREAM_NOT_COMPLETE -> NOT_READY"),
        expect: Codes(&[acl!(SUCCESS)]),
        requires: &[Need::Symbol("aclrtStreamQuery")],
    }

    STM_007 {
        group: STREAM,
        text: "aclrtResetDevice (the last reference) with work pending on a stream returns 0 without running it: \
               the context's streams are torn down with force, so work not yet started is dropped, and the device \
               is usable again after aclrtSetDevice.",
        apis: &["aclrtResetDevice", "aclrtMemcpyAsync"],
        sources: &[CONTEXT_CC, STREAM_CC],
        confidence: &[Src],
        note: Some("Context::TearDown context.cc:529-564 -> TearDownStream, flag defaulting to true \
                    (context.hpp:542), passed to Stream::TearDown (context.cc:588): force recycle as \
                    aclrtDestroyStreamForce (stream.cc:1441-1493)"),
        expect: Behaviour,
    }

    STM_008 {
        group: STREAM,
        text: "aclrtStreamAbort or aclrtDestroyStreamForce of a stream with an aclrtRecordEvent not yet run: the \
               record is reclaimed with the stream's other tasks and the event counts as complete, so \
               aclrtSynchronizeEvent returns 0 and a stream waiting on it (aclrtStreamWaitEvent) runs; a wait the \
               aborted stream was running stops, and the stream takes new work.",
        apis: &["aclrtStreamAbort", "aclrtDestroyStreamForce", "aclrtRecordEvent", "aclrtStreamWaitEvent"],
        sources: &[STREAM_CC, EVENT_CC, EVENT_TASK_CC, CONTEXT_CC],
        confidence: &[Src],
        note: Some("Stream::StreamAbort stream.cc:1184-1227 and Context::StreamAbort context.cc:2217-2309 kill the \
                    task queue and reclaim every pending task (ResClear stream.cc:4451-4488, TaskReclaim); a reclaimed \
                    record task completes (DoCompleteSuccessForEventRecordTask event_task.cc:197-224 -> \
                    Event::RecordComplete event.cc:635-639: RECORDED) and under abort clears the record status \
                    (ClearRecordStatus event.cc:1104-1116: INIT), either of which a query or synchronize reads as \
                    complete (event.cc:972-974); force destroy reclaims the same way (stream.cc:1478-1517)"),
        expect: Behaviour,
        requires: &[Need::Symbol("aclrtStreamAbort")],
    }

    EVT_001 {
        group: EVENT,
        text: "aclrtCreateEvent, aclrtCreateEventWithFlag, aclrtDestroyEvent, aclrtRecordEvent and \
               aclrtSynchronizeEvent refuse a NULL event (100000).",
        apis: &["aclrtCreateEvent", "aclrtCreateEventWithFlag", "aclrtDestroyEvent", "aclrtRecordEvent"],
        sources: &[EVENT_CPP],
        confidence: &[Src],
        note: Some("ACL_REQUIRES_NOT_NULL_WITH_INPUT_REPORT event.cpp:31, :47, :75, :87, :177"),
        expect: Codes(&[acl!(INVALID_PARAM)]),
        requires: &[Need::Symbol("aclrtCreateEvent")],
    }

    EVT_002 {
        group: EVENT,
        text: "aclrtCreateEventWithFlag refuses flag 0 and flags outside 0x3f, and 0x10/0x20 combined with others \
               (107000).",
        apis: &["aclrtCreateEventWithFlag"],
        sources: &[API_ERROR],
        confidence: &[Src],
        note: Some("ApiErrorDecorator::EventCreate api_error.cc:1246-1257 (RT_ERROR_INVALID_VALUE, \
                    errcode_manage.cc:301: 107000); RT_EVENT_FLAG_MAX event.hpp:37"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
        requires: &[Need::Symbol("aclrtCreateEventWithFlag")],
    }

    EVT_003 {
        group: EVENT,
        text: "aclrtSynchronizeEventWithTimeout checks the timeout (below -1: 107000) before the event (NULL: \
               100000); the runtime then refuses a timeout of 0 (107000).",
        apis: &["aclrtSynchronizeEventWithTimeout"],
        sources: &[EVENT_CPP, API_ERROR],
        confidence: &[Src],
        note: Some("event.cpp:168-170; ApiErrorDecorator::EventSynchronize api_error.cc:1355-1357 (timeout 0: \
                    RT_ERROR_INVALID_VALUE) although acl_rt.h:1763 calls 0 an immediate check"),
        expect: Codes(&[acl!(RT_PARAM_INVALID), acl!(INVALID_PARAM)]),
        requires: &[Need::Symbol("aclrtSynchronizeEventWithTimeout")],
    }

    EVT_004 {
        group: EVENT,
        text: "aclrtQueryEventStatus: an event of aclrtCreateEvent never recorded is NOT_READY (0), one of \
               aclrtCreateEventExWithFlag COMPLETE (1); once its record has run, COMPLETE (1). A NULL status is \
               refused (100000).",
        apis: &["aclrtQueryEventStatus", "aclrtRecordEvent"],
        sources: &[EVENT_CPP],
        confidence: &[Src],
        note: Some("event.cpp:125-134: only RT_EVENT_RECORDED gives COMPLETE; Event::QueryEventStatus \
                    event.cc:984-989: no record gives RT_EVENT_RECORDED in the new mode, RT_EVENT_INIT in the old"),
        expect: Codes(&[acl!(INVALID_PARAM)]),
        requires: &[Need::Symbol("aclrtQueryEventStatus")],
    }

    EVT_005 {
        group: EVENT,
        text: "aclrtEventElapsedTime: NULL ms or event is refused (100000); an event never recorded gives 507000.",
        apis: &["aclrtEventElapsedTime"],
        sources: &[EVENT_CPP, EVENT_CC, ERRCODE],
        confidence: &[Src],
        note: Some("event.cpp:185-187; Event::ElapsedTime event.cc:1035-1037 (RT_ERROR_EVENT_RECORDER_NULL, \
                    errcode_manage.cc:187: 507000)"),
        expect: Codes(&[acl!(INVALID_PARAM), acl!(RT_INTERNAL_ERROR)]),
        requires: &[Need::Symbol("aclrtEventElapsedTime")],
    }

    EVT_006 {
        group: EVENT,
        text: "aclrtEventElapsedTime needs events that keep time: aclrtCreateEvent's (RT_EVENT_DEFAULT includes \
               RT_EVENT_TIME_LINE) or ACL_EVENT_TIME_LINE (0x8); an ACL_EVENT_SYNC-only event gives 107006.",
        apis: &["aclrtEventElapsedTime", "aclrtCreateEventWithFlag"],
        sources: &[EVENT_CC, ERRCODE],
        confidence: &[Src, Inferred, Undetermined],
        note: Some("RT_EVENT_DEFAULT event.h:61; timestamps kept only with RT_EVENT_TIME_LINE (event.cc:699, \
                    :757); UINT64_MAX stamps give RT_ERROR_EVENT_TIMESTAMP_INVALID (event.cc:1050-1054, \
                    errcode_manage.cc:188)"),
        expect: Codes(&[acl!(RT_EVENT_TIMESTAMP_INVALID)]),
        requires: &[Need::Symbol("aclrtEventElapsedTime")],
    }

    EVT_007 {
        group: EVENT,
        text: "An event recorded on stream 1 after an async copy and waited by stream 2 (aclrtStreamWaitEvent) \
               orders stream 2's later copy after it: the copy reads the bytes stream 1 wrote.",
        apis: &["aclrtRecordEvent", "aclrtStreamWaitEvent", "aclrtMemcpyAsync"],
        sources: &[ACL_RT_H, API_IMPL],
        confidence: &[Doc],
        note: Some("acl_rt.h:1693 (aclrtRecordEvent), :2819 (aclrtStreamWaitEvent)"),
        expect: Behaviour,
        requires: &[Need::Symbol("aclrtStreamWaitEvent")],
    }

    EVT_008 {
        group: EVENT,
        text: "aclrtQueryEvent and aclrtQueryEventWaitStatus refuse an event made by aclrtCreateEventExWithFlag \
               (the runtime's new mode) with 207000; aclrtQueryEventStatus answers for it. aclrtQueryEvent of an \
               aclrtCreateEvent event never recorded is COMPLETE (0).",
        apis: &["aclrtQueryEvent", "aclrtQueryEventWaitStatus", "aclrtCreateEventExWithFlag"],
        sources: &[API_ERROR, API_IMPL],
        confidence: &[Src],
        note: Some("ApiErrorDecorator::EventQuery api_error.cc:1371-1372 and EventQueryWaitStatus :1397-1398 \
                    (IsNewMode: RT_ERROR_FEATURE_NOT_SUPPORT, errcode_manage.cc:314: 207000); EventCreateEx makes \
                    new-mode events (api_impl.cc:1983); Event::Query event.cc:973-974 (only RECORDING is not complete)"),
        expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
        requires: &[Need::Symbol("aclrtCreateEventExWithFlag"), Need::Symbol("aclrtQueryEvent")],
    }

    // ==== Notifies and IPC events : ACL-NTF, ACL-IEV =================
    // Sources: the ACL layer (notify.cpp, event.cpp), the rts layer
    // (api_c_event.cc, api_c_standard_soc.cc), the error decorator and
    // implementation (api_error.cc, api_impl.cc, api_impl_event.cc), the
    // notify and IPC event objects; see docs/audit/acl-notify.md. Where the
    // source ends at the driver library (halShrId*), the rule says so.

    NTF_001 {
        group: NOTIFY,
        text: "aclrtCreateNotify: a NULL notify is 100000; a flag other than ACL_NOTIFY_DEFAULT (0) or \
               ACL_NOTIFY_DEVICE_USE_ONLY (1) is 107000.",
        apis: &["aclrtCreateNotify"],
        sources: &[NOTIFY_CPP, API_C_EVENT],
        confidence: &[Src],
        note: Some("notify.cpp:25-35 (ACL_REQUIRES_NOT_NULL); api_c_event.cc:140-147 (rtsNotifyCreate's flag check)"),
        expect: Codes(&[acl!(INVALID_PARAM), acl!(RT_PARAM_INVALID)]),
        requires: &[Need::Symbol("aclrtCreateNotify")],
    }

    NTF_002 {
        group: NOTIFY,
        text: "A NULL notify given to aclrtDestroyNotify, aclrtRecordNotify, aclrtWaitAndResetNotify, \
               aclrtGetNotifyId, aclrtNotifyGetExportKey or aclrtNotifySetImportPid, or a NULL notifyId, key, pid or \
               output notify, is 100000 (the ACL layer checks them).",
        apis: &[
            "aclrtDestroyNotify",
            "aclrtRecordNotify",
            "aclrtWaitAndResetNotify",
            "aclrtGetNotifyId",
            "aclrtNotifyGetExportKey",
            "aclrtNotifyImportByKey",
            "aclrtNotifySetImportPid",
        ],
        sources: &[NOTIFY_CPP],
        confidence: &[Src],
        note: Some("notify.cpp:37-130, every entry point's ACL_REQUIRES_NOT_NULL_WITH_INPUT_REPORT"),
        expect: Codes(&[acl!(INVALID_PARAM)]),
        requires: &[Need::Symbol("aclrtNotifyGetExportKey")],
    }

    NTF_003 {
        group: NOTIFY,
        text: "aclrtNotifyGetExportKey: len 0 and flags other than 0 or \
               ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION (2) are 107000; so is a key buffer shorter than the \
               key (65 bytes with its NUL).",
        apis: &["aclrtNotifyGetExportKey"],
        sources: &[API_ERROR, NPU_DRIVER],
        confidence: &[Src, Undetermined],
        note: Some("api_error.cc:3679-3698 (len 0, flags); the name's length is the driver's (halShrIdCreate, beyond \
                    the source): the emulator writes 64 characters and a NUL, as its IPC memory keys"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
        requires: &[Need::Symbol("aclrtNotifyGetExportKey")],
    }

    NTF_004 {
        group: NOTIFY,
        text: "aclrtNotifyGetExportKey on a notify that is already an IPC notify (exported before, or imported) is \
               507000.",
        apis: &["aclrtNotifyGetExportKey", "aclrtNotifyImportByKey"],
        sources: &[NOTIFY_CC, ERRCODE],
        confidence: &[Src],
        note: Some("Notify::CreateIpcNotify notify.cc:351-353 (isIpcNotify_: RT_ERROR_NOTIFY_TYPE), \
                    errcode_manage.cc:202 (507000)"),
        expect: Codes(&[acl!(RT_INTERNAL_ERROR)]),
        requires: &[Need::Symbol("aclrtNotifyGetExportKey")],
    }

    NTF_005 {
        group: NOTIFY,
        text: "aclrtNotifyImportByKey: flags above 3 (DOWNLOAD_TO_DEV | ENABLE_PEER_ACCESS) are 107000; a key that \
               names no exported notify is refused by the driver (507899).",
        apis: &["aclrtNotifyImportByKey"],
        sources: &[API_ERROR, NOTIFY_CC],
        confidence: &[Src, Undetermined],
        note: Some("api_error.cc:3701-3709; the unknown name is refused by halShrIdOpen (beyond the source): the \
                    emulator gives 507899, as for IPC memory keys (ACL-IPK-006)"),
        expect: Codes(&[acl!(RT_PARAM_INVALID), acl!(RT_DRV_INTERNAL_ERROR)]),
        requires: &[Need::Symbol("aclrtNotifyImportByKey")],
    }

    NTF_006 {
        group: NOTIFY,
        text: "aclrtNotifySetImportPid: num 0 is 107000; a notify that was never exported (it has no name) is \
               refused by the driver's name check (107000).",
        apis: &["aclrtNotifySetImportPid"],
        sources: &[API_ERROR, API_C_SOC, SHR_ID_USER, ERRCODE],
        confidence: &[Src],
        note: Some("api_error.cc:3115-3122 (num <= 0 after the int32 cast); api_c_standard_soc.cc:1733-1752 passes \
                    the notify's empty IPC name to halShrIdSetPid, which refuses an empty name with \
                    DRV_ERROR_INVALID_VALUE (trs_shr_id_user.c:313-316; devdrv_hccl.c:431-434 likewise), \
                    RT_ERROR_DRV_INPUT (errcode_manage.cc:546), 107000"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
        requires: &[Need::Symbol("aclrtNotifySetImportPid")],
    }

    NTF_007 {
        group: NOTIFY,
        text: "With export flag 0 a process not on the notify's trustlist cannot import it (507899), and once \
               aclrtNotifySetImportPid lists it, it can; with DISABLE_PID_VALIDATION any process imports. The creating \
               process may import its own notify: it is the list's first entry.",
        apis: &["aclrtNotifySetImportPid", "aclrtNotifyImportByKey", "aclrtNotifyGetExportKey"],
        sources: &[API_IMPL, NPU_DRIVER, SHR_ID_NODE, SHR_ID_USER, ERRCODE],
        confidence: &[Src],
        note: Some("ApiImpl::IpcSetNotifyName api_impl.cc:4686-4699 turns the list off only with the flag \
                    (SetIpcNotifyDisablePidVerify); the driver puts the creator in wlist[0] \
                    (trs_shr_id_node.c:86) and open finds it there (:611-616); an unlisted open is -EBUSY (:617-619), \
                    and halShrIdOpen turns any failed ioctl into DRV_ERROR_IOCRL_FAIL (trs_shr_id_user.c:62-64): \
                    RT_ERROR_DRV_IOCTRL, 507899 (errcode_manage.cc:569, :81)"),
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
        requires: &[Need::Peers, Need::Symbol("aclrtNotifyImportByKey")],
    }

    NTF_008 {
        group: NOTIFY,
        text: "Across processes: A copies into shared memory with aclrtMemcpyAsync and records a notify on the same \
               stream; B's aclrtWaitAndResetNotify on its stream holds B's later copy until the record, so B reads \
               A's data; the wait resets the notify, so a second wait waits for a new record.",
        apis: &["aclrtRecordNotify", "aclrtWaitAndResetNotify", "aclrtMemcpyAsync"],
        sources: &[ACL_RT_H, API_IMPL],
        confidence: &[Doc],
        note: Some("acl_rt.h:3832-3850 (record; wait with timeout, then reset)"),
        expect: Behaviour,
        requires: &[
            Need::Peers,
            Need::Symbol("aclrtWaitAndResetNotify"),
            Need::Symbol("aclrtSynchronizeStreamWithTimeout"),
        ],
    }

    NTF_009 {
        group: NOTIFY,
        text: "aclrtNotifySetImportPidInterServer: a NULL notify or serverPids, num 0, or an entry with a NULL pid or \
               a num other than 1 is 107000 (the runtime checks them; the ACL layer checks nothing); then each \
               entry's pid is listed, as aclrtNotifySetImportPid lists it (until then its import is 507899).",
        apis: &["aclrtNotifySetImportPidInterServer", "aclrtNotifyImportByKey"],
        sources: &[API_C_SOC],
        confidence: &[Src],
        note: Some("api_c_standard_soc.cc:1302-1316 (PARAM_NULL_RETURN for notify and serverPids, num == 0, then per \
                    entry pid == nullptr and num != 1, all RT_ERROR_INVALID_VALUE); notify.cpp:133-140 passes through"),
        expect: Codes(&[acl!(RT_PARAM_INVALID), acl!(RT_DRV_INTERNAL_ERROR)]),
        requires: &[Need::Peers, Need::Symbol("aclrtNotifySetImportPidInterServer")],
    }

    IEV_001 {
        group: IPC_EVENT,
        text: "aclrtIpcGetEventHandle: a NULL handle (checked first) or event is 100000; aclrtIpcOpenEventHandle: a \
               NULL event is 100000.",
        apis: &["aclrtIpcGetEventHandle", "aclrtIpcOpenEventHandle"],
        sources: &[EVENT_CPP],
        confidence: &[Src],
        note: Some("event.cpp:424-444"),
        expect: Codes(&[acl!(INVALID_PARAM)]),
        requires: &[Need::Symbol("aclrtIpcGetEventHandle")],
    }

    IEV_002 {
        group: IPC_EVENT,
        text: "aclrtIpcGetEventHandle of an event made without ACL_EVENT_IPC is 107000.",
        apis: &["aclrtIpcGetEventHandle", "aclrtCreateEventExWithFlag"],
        sources: &[API_ERROR_SOC],
        confidence: &[Src],
        note: Some("ApiErrorDecorator::IpcGetEventHandle api_error_standard_soc.cc:473-475 (eventFlag_ != RT_EVENT_IPC)"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
        requires: &[Need::Symbol("aclrtIpcGetEventHandle")],
    }

    IEV_003 {
        group: IPC_EVENT,
        text: "aclrtIpcGetEventHandle gives the same handle each time for one event; aclrtIpcOpenEventHandle of a \
               handle that names no IPC event (all zeros, or of an event destroyed by its only holder) is 107017.",
        apis: &["aclrtIpcGetEventHandle", "aclrtIpcOpenEventHandle"],
        sources: &[IPC_EVENT_CC],
        confidence: &[Src, Inferred, Undetermined],
        note: Some("IpcEvent::IpcGetEventHandle copies the event's shareable handle (ipc_event.cc:164-171); \
                    IpcHandleAllocAndImport imports it (ipc_event.cc:181-192), as ACL-IMP-007 an unknown one"),
        expect: Codes(&[acl!(RT_INVALID_HANDLE)]),
        requires: &[Need::Symbol("aclrtIpcOpenEventHandle")],
    }

    IEV_004 {
        group: IPC_EVENT,
        text: "Across processes: A copies with aclrtMemcpyAsync and records an ACL_EVENT_IPC event; B opens its \
               handle and aclrtStreamWaitEvent orders B's later copy after A's record, so B reads A's data.",
        apis: &["aclrtIpcGetEventHandle", "aclrtIpcOpenEventHandle", "aclrtStreamWaitEvent", "aclrtRecordEvent"],
        sources: &[ACL_RT_H, IPC_EVENT_CC],
        confidence: &[Doc],
        note: Some("acl_rt.h:5625-5648"),
        expect: Behaviour,
        requires: &[Need::Peers, Need::Symbol("aclrtIpcOpenEventHandle")],
    }

    IEV_005 {
        group: IPC_EVENT,
        text: "A wait on an IPC event whose pending record was taken by a process that has died \
               (aclrtSynchronizeEvent, aclrtSynchronizeEventWithTimeout, aclrtQueryEventStatus, or a stream's \
               aclrtStreamWaitEvent, in the creator or any process that opened it) ends with 507899 instead of \
               waiting for good; a stopped recorder is waited for (it may go on), within the caller's timeout.",
        apis: &["aclrtIpcOpenEventHandle", "aclrtRecordEvent", "aclrtSynchronizeEventWithTimeout"],
        sources: &[IPC_EVENT_CC, Reference("§3, 507899: the driver-side failure")],
        confidence: &[Src, Undetermined],
        note: Some("IpcEvent::IpcEventSync ipc_event.cc:443-474 polls the event's host byte until it is set or the \
                    timeout passes, with no check of the recorder: without a timeout CANN waits for good. The code is \
                    the emulator's choice: 507899, the driver-side failure (acl.md §3), as for the other work a dead \
                    peer leaves undone"),
        expect: Codes(&[acl!(RT_DRV_INTERNAL_ERROR)]),
        requires: &[Need::Peers, Need::Symbol("aclrtIpcOpenEventHandle")],
    }

    // ==== Stream-ordered value writes and waits (ACL-VAL) ===============
    VAL_001 {
        group: VALUE,
        text: "aclrtValueWrite takes flag 0 only, aclrtValueWait a flag below 4 (ACL_STREAM_WAIT_VALUE_GEQ, _EQ, \
               _AND, _NOR); any other flag fails and nothing is enqueued.",
        apis: &["aclrtValueWrite", "aclrtValueWait"],
        sources: &[API_ERROR],
        confidence: &[Src],
        note: Some("ApiErrorDecorator::MemWriteValue api_error.cc:6153 (flag != 0), MemWaitValue :6170-6171 \
                    (flag >= MEM_WAIT_VALUE_TYPE_MAX): RT_ERROR_INVALID_VALUE"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
        requires: &[Need::Symbol("aclrtValueWrite"), Need::Symbol("aclrtValueWait")],
    }

    VAL_002 {
        group: VALUE,
        text: "aclrtValueWrite and aclrtValueWait take an address of device memory; a host address fails and \
               nothing is enqueued.",
        apis: &["aclrtValueWrite", "aclrtValueWait"],
        sources: &[API_ERROR],
        confidence: &[Src],
        note: Some("api_error.cc:6156-6162 and :7282-7293: PtrGetAttributes, location type must be \
                    RT_MEMORY_LOC_DEVICE, else RT_ERROR_INVALID_VALUE"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
        requires: &[Need::Symbol("aclrtValueWrite"), Need::Symbol("aclrtValueWait")],
    }

    // ---- Memory --------------------------------------------------

    IPK_017 {
        group: IPC_KEY,
        text: "aclrtIpcMemSetAttr: a NULL key, a type other than ACL_RT_IPC_MEM_ATTR_ACCESS_LINK (0) and a link over 3 \
               are 107000, then a key that names no export of this process is 507899; \
               aclrtIpcMemImportPidInterServer: NULL key or serverPids, num 0 and an entry with a NULL pid are \
               107000; then every entry's pids join the key's trustlist as aclrtIpcMemSetImportPid's.",
        apis: &["aclrtIpcMemSetAttr", "aclrtIpcMemImportPidInterServer"],
        sources: &[API_ERROR, API_C_SOC],
        confidence: &[Src, Inferred],
        note: Some("api_error.cc:3089-3097 (IpcSetMemoryAttr), api_c_standard_soc.cc:956-973 \
                    (rtIpcMemImportPidInterServer, then rtSetIpcMemorySuperPodPid per entry); the emulator's servers \
                    share one pid space, so the sdid names no separate list (inferred)"),
        expect: Codes(&[acl!(RT_PARAM_INVALID), acl!(RT_DRV_INTERNAL_ERROR)]),
        requires: &[Need::Symbol("aclrtIpcMemSetAttr"), Need::Symbol("aclrtIpcMemImportPidInterServer")],
    }

    REG_001 {
        group: HOST_REGISTER,
        text: "aclrtHostRegister and aclrtHostRegisterV2 of a host range that overlaps a range registered before (and \
               not unregistered) are 507910 ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED; the earlier registration stays.",
        apis: &["aclrtHostRegister", "aclrtHostRegisterV2"],
        sources: &[REGISTER_MEMORY, API_ERROR, ERRCODE],
        confidence: &[Src],
        note: Some("CheckMemoryRangeRegistered register_memory.cc:62-78 (FindOverlappingMemory), called by \
                    ApiErrorDecorator::HostRegisterV2 before the driver (api_error.cc:1572-1573), \
                    errcode_manage.cc:535-536 (507910)"),
        expect: Codes(&[acl!(HOST_MEMORY_ALREADY_REGISTERED)]),
        requires: &[Need::Symbol("aclrtHostRegisterV2")],
    }

    REG_002 {
        group: HOST_REGISTER,
        text: "aclrtHostUnregister of an address that starts no registered range (never registered, inside one, or \
               already unregistered) is 507911 ACL_ERROR_HOST_MEMORY_NOT_REGISTERED.",
        apis: &["aclrtHostUnregister"],
        sources: &[API_IMPL, API_ERROR, ERRCODE],
        confidence: &[Src],
        note: Some("ApiImpl::HostUnregister api_impl.cc:2448-2465 (IsMappedMemoryBase / IsPinnedMemoryBase: the start \
                    only), api_error.cc:1580-1586, errcode_manage.cc:537-538 (507911)"),
        expect: Codes(&[acl!(HOST_MEMORY_NOT_REGISTERED)]),
        requires: &[Need::Symbol("aclrtHostUnregister")],
    }

    FILL_001 {
        group: MEMORY,
        text: "aclrtMemsetD32 and aclrtMemsetD32Async: N 0 succeeds with nothing checked; an address that is not \
               4-byte aligned, N * 4 over memSize, and memory that is neither device memory nor aclrtMallocHost's \
               (a pageable host buffer) are 100000; otherwise N 32-bit words of the value are written.",
        apis: &["aclrtMemsetD32", "aclrtMemsetD32Async"],
        sources: &[MEMORY_CPP],
        confidence: &[Src],
        note: Some("aclrtMemsetD32Impl memory.cpp:698-751 (alignment, memSize, IsAclPinnedMemory)"),
        expect: Codes(&[acl!(INVALID_PARAM)]),
        requires: &[Need::Symbol("aclrtMemsetD32")],
    }
    // ==== Model capture (ACL-MRI), hicann/runtime@0b4af8a ============================
    MRI_001 {
        group: MODEL,
        text: "Model capture's NULL arguments are 100000 at the ACL front end: the stream of aclmdlRICaptureBegin, \
               aclmdlRICaptureGetInfo and aclmdlRICaptureEnd, the modelRI of aclmdlRIExecuteAsync, aclmdlRIDestroy \
               and aclmdlRIExecute, the mode of aclmdlRICaptureThreadExchangeMode, and aclmdlRICaptureGetInfo's \
               status and modelRI when both are NULL.",
        apis: &["aclmdlRICaptureBegin", "aclmdlRICaptureGetInfo", "aclmdlRICaptureEnd", "aclmdlRIExecuteAsync",
                "aclmdlRIDestroy", "aclmdlRIExecute", "aclmdlRICaptureThreadExchangeMode"],
        sources: &[MODEL_RI_CPP],
        confidence: &[Src],
        note: Some("model_ri.cpp:29, 40, 51, 62-69, 93, 134, 256 (ACL_REQUIRES_NOT_NULL_WITH_INPUT_REPORT)"),
        expect: Codes(&[acl!(INVALID_PARAM)]),
        requires: &[Need::Symbol("aclmdlRICaptureBegin")],
    }

    MRI_002 {
        group: MODEL,
        text: "A capture mode outside GLOBAL (0), THREAD_LOCAL (1) and RELAXED (2) is 107000, from \
               aclmdlRICaptureBegin and from aclmdlRICaptureThreadExchangeMode.",
        apis: &["aclmdlRICaptureBegin", "aclmdlRICaptureThreadExchangeMode"],
        sources: &[API_ERROR_ACLGRAPH],
        confidence: &[Src],
        note: Some("ApiErrorDecorator::StreamBeginCapture api_error_aclgraph.cc:39-42, ThreadExchangeCaptureMode \
                    :141-143: RT_ERROR_INVALID_VALUE, errcode_manage.cc:301"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
        requires: &[Need::Symbol("aclmdlRICaptureBegin")],
    }

    MRI_003 {
        group: MODEL,
        text: "aclmdlRICaptureBegin on a stream that already captures is 107027; the capture goes on.",
        apis: &["aclmdlRICaptureBegin"],
        sources: &[CONTEXT_ACLGRAPH],
        confidence: &[Src],
        note: Some("Context::StreamBeginCapture context_aclgraph.cc:275 (RT_ERROR_STREAM_CAPTURED), errcode_manage.cc:141"),
        expect: Codes(&[acl!(RT_STREAM_CAPTURED)]),
        requires: &[Need::Symbol("aclmdlRICaptureBegin")],
    }

    MRI_004 {
        group: MODEL,
        text: "aclmdlRICaptureEnd on a stream that does not capture is 107029 (modelRI untouched).",
        apis: &["aclmdlRICaptureEnd"],
        sources: &[CONTEXT_ACLGRAPH],
        confidence: &[Src],
        note: Some("Context::StreamEndCapture context_aclgraph.cc:477 (RT_ERROR_STREAM_NOT_CAPTURED), errcode_manage.cc:144"),
        expect: Codes(&[acl!(RT_STREAM_NOT_CAPTURED)]),
        requires: &[Need::Symbol("aclmdlRICaptureEnd")],
    }

    MRI_005 {
        group: MODEL,
        text: "aclmdlRICaptureEnd with a NULL modelRI on a capturing stream is 107000 (not the front end's \
               100000: the ACL layer passes it through), and the capture goes on.",
        apis: &["aclmdlRICaptureEnd"],
        sources: &[API_IMPL_ACLGRAPH],
        confidence: &[Src],
        note: Some("ApiImpl::StreamEndCapture api_impl_aclgraph.cc:39-46: checked only when the stream's capture \
                    model is not a sub-model; model_ri.cpp:89-98 checks only the stream"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
        requires: &[Need::Symbol("aclmdlRICaptureEnd")],
    }

    MRI_006 {
        group: MODEL,
        text: "aclmdlRICaptureEnd on a stream that joined the capture (by waiting for an event recorded in it), \
               not the one that began it, is 107036.",
        apis: &["aclmdlRICaptureEnd", "aclrtStreamWaitEvent"],
        sources: &[CONTEXT_ACLGRAPH],
        confidence: &[Src],
        note: Some("Context::StreamEndCapture context_aclgraph.cc:484-488 (!IsOrigCaptureStream), errcode_manage.cc:159"),
        expect: Codes(&[acl!(RT_STREAM_CAPTURE_UNMATCHED)]),
        requires: &[Need::Symbol("aclmdlRICaptureEnd")],
    }

    MRI_007 {
        group: MODEL,
        text: "aclmdlRICaptureEnd by a thread other than the one that began a capture not in RELAXED mode is \
               107038, and the stream leaves the capture (a later end is 107029).",
        apis: &["aclmdlRICaptureEnd"],
        sources: &[CONTEXT_ACLGRAPH, CAPTURE_UTILS],
        confidence: &[Src],
        note: Some("CheckCaptureStreamThreadIsMatch capture_model_utils.cc:58-70; context_aclgraph.cc:490-493 \
                    (CaptureModeExit, ClearCaptureModel: ExitCapture), errcode_manage.cc:161"),
        expect: Codes(&[acl!(RT_STREAM_CAPTURE_WRONG_THREAD)]),
        requires: &[Need::Symbol("aclmdlRICaptureEnd")],
    }

    MRI_008 {
        group: MODEL,
        text: "aclmdlRICaptureEnd while a stream that joined the capture has work the origin stream does not \
               wait for (no event recorded after it and waited for) is 107025; the capture ends with no model.",
        apis: &["aclmdlRICaptureEnd", "aclrtRecordEvent", "aclrtStreamWaitEvent"],
        sources: &[CONTEXT_ACLGRAPH],
        confidence: &[Src],
        note: Some("Context::CheckCaptureModelValidity context_aclgraph.cc:322-373 (RT_ERROR_STREAM_UNJOINED), \
                    called at :521 with ClearCaptureModel; errcode_manage.cc:244"),
        expect: Codes(&[acl!(RT_STREAM_UNJOINED)]),
        requires: &[Need::Symbol("aclmdlRICaptureEnd")],
    }

    MRI_009 {
        group: MODEL,
        text: "aclmdlRICaptureGetInfo: NONE (0) and a NULL model for a stream that does not capture; ACTIVE (1) \
               and the model aclmdlRICaptureEnd will return while it captures; NONE again after the end.",
        apis: &["aclmdlRICaptureGetInfo", "aclmdlRICaptureEnd"],
        sources: &[CONTEXT_ACLGRAPH, API_IMPL_ACLGRAPH],
        confidence: &[Src],
        note: Some("Context::StreamGetCaptureInfo context_aclgraph.cc:590-620 (the capture stream's model while \
                    the status is not NONE), model_ri.cpp:71-84"),
        expect: Behaviour,
        requires: &[Need::Symbol("aclmdlRICaptureGetInfo")],
    }

    MRI_010 {
        group: MODEL,
        text: "aclrtSynchronizeStream, aclrtSynchronizeStreamWithTimeout, aclrtStreamQuery and aclrtDestroyStream \
               of a capturing stream are 107027; the capture goes on (still ACTIVE).",
        apis: &["aclrtSynchronizeStream", "aclrtStreamQuery", "aclrtDestroyStream"],
        sources: &[API_ERROR],
        confidence: &[Src],
        note: Some("ApiErrorDecorator::StreamDestroy api_error.cc:1049, StreamSynchronize :1078 (after the timeout \
                    check), StreamQuery :1113: IsCapturing, RT_ERROR_STREAM_CAPTURED"),
        expect: Codes(&[acl!(RT_STREAM_CAPTURED)]),
        requires: &[Need::Symbol("aclmdlRICaptureBegin")],
    }

    MRI_011 {
        group: MODEL,
        text: "aclrtSynchronizeEvent, aclrtSynchronizeEventWithTimeout and aclrtQueryEventStatus of an event \
               recorded in a capture that goes on are 107028.",
        apis: &["aclrtSynchronizeEvent", "aclrtQueryEventStatus", "aclrtRecordEvent"],
        sources: &[API_ERROR],
        confidence: &[Src],
        note: Some("ApiErrorDecorator::EventSynchronize api_error.cc:1361, EventQueryStatus :1388 (Event::IsCapturing, \
                    event.cc:1142-1149), errcode_manage.cc:193"),
        expect: Codes(&[acl!(RT_EVENT_CAPTURED)]),
        requires: &[Need::Symbol("aclmdlRICaptureBegin")],
    }

    MRI_012 {
        group: MODEL,
        text: "aclrtMemcpy, aclrtMemset and aclrtMemcpy2d (synchronous) while a GLOBAL capture goes on are 107030 \
               and the capture goes on; after aclmdlRICaptureThreadExchangeMode(RELAXED) (the thread's mode is \
               GLOBAL at first, and the old mode is handed back) they run; a RELAXED capture refuses none.",
        apis: &["aclrtMemcpy", "aclrtMemset", "aclmdlRICaptureThreadExchangeMode"],
        sources: &[API_IMPL, CONTEXT_ACLGRAPH],
        confidence: &[Src],
        note: Some("ApiImpl::MemCopySync api_impl.cc:2598, MemSetSync :3008, MemCopy2DSync :6529 \
                    (CHECK_CAPTURE_MODE_SUPPORT_AND_RETURN, error_message_manage.hpp:247-252); \
                    Context::IsCaptureModeSupport context_aclgraph.cc:216-245; inner_thread_local.cpp:22; \
                    errcode_manage.cc:145"),
        expect: Codes(&[acl!(RT_CAPTURE_MODE_NOT_SUPPORT)]),
        requires: &[Need::Symbol("aclmdlRICaptureBegin")],
    }

    MRI_013 {
        group: MODEL,
        text: "Work given to a capturing stream (async copies and fills, host functions) does not run; each \
               aclmdlRIExecuteAsync of the model runs it again, in the order it was given, on the stream named.",
        apis: &["aclmdlRICaptureBegin", "aclmdlRICaptureEnd", "aclmdlRIExecuteAsync", "aclrtMemcpyAsync",
                "aclrtMemsetAsync", "aclrtLaunchHostFunc"],
        sources: &[Page("docs/02_dev_guide/04-01 (single-stream capture)")],
        confidence: &[Doc],
        note: Some("docs/02_dev_guide/04-01_单流捕获.md:5: tasks issued between aclmdlRICaptureBegin and \
                    aclmdlRICaptureEnd are not executed but kept in the model, and run by aclmdlRIExecuteAsync, \
                    as many times as it is called"),
        expect: Behaviour,
        requires: &[Need::Symbol("aclmdlRIExecuteAsync")],
    }

    MRI_014 {
        group: MODEL,
        text: "aclmdlRIExecuteAsync on a stream that captures is 107027.",
        apis: &["aclmdlRIExecuteAsync"],
        sources: &[API_ERROR],
        confidence: &[Src],
        note: Some("ApiErrorDecorator::ModelExecute api_error.cc:3269-3279 (rtModelExecute, api_c.cc:1672): \
                    IsCapturing, RT_ERROR_STREAM_CAPTURED"),
        expect: Codes(&[acl!(RT_STREAM_CAPTURED)]),
        requires: &[Need::Symbol("aclmdlRIExecuteAsync")],
    }

    MRI_015 {
        group: MODEL,
        text: "aclmdlRIExecute (synchronous) of a captured model is 107000: a timeout below -1 or 0 first, then \
               the model itself (the runtime runs no ACL graph synchronously).",
        apis: &["aclmdlRIExecute"],
        sources: &[API_ERROR],
        confidence: &[Src],
        note: Some("rtsModelExecute api_c_model.cc:133-143 -> ApiErrorDecorator::ModelExecuteSync api_error.cc:3304-3313 \
                    (RT_MODEL_CAPTURE_MODEL: RT_ERROR_INVALID_VALUE)"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
        requires: &[Need::Symbol("aclmdlRIExecute")],
    }

    MRI_016 {
        group: MODEL,
        text: "aclmdlRIExecuteAsync, aclmdlRIExecute and aclmdlRIDestroy of a model already destroyed are 107017.",
        apis: &["aclmdlRIExecuteAsync", "aclmdlRIExecute", "aclmdlRIDestroy"],
        sources: &[API_C_CC, HANDLE_GUARD],
        confidence: &[Src],
        note: Some("RT_VALIDATE_AND_UNWRAP_OBJECT (api_c.cc:1626, 1677; api_c_model.cc:138): ValidateInnerObject \
                    runtime_handle_guard.cc:57-74 (magic cleared: RT_ERROR_INVALID_HANDLE), errcode_manage.cc:320. \
                    The emulator keeps a table of live models and never dereferences the value"),
        expect: Codes(&[acl!(RT_INVALID_HANDLE)]),
        requires: &[Need::Symbol("aclmdlRIDestroy")],
    }

    MRI_017 {
        group: MODEL,
        text: "aclmdlRIExecuteAsync and aclmdlRIDestroy of a model whose capture has not ended (from \
               aclmdlRICaptureGetInfo) (emulator: 107000, the capture goes on).",
        apis: &["aclmdlRIExecuteAsync", "aclmdlRIDestroy", "aclmdlRICaptureGetInfo"],
        sources: &[],
        confidence: &[Undetermined],
        note: Some("ModelExecute and ModelDestroy of a capture model that is still capturing go into the model \
                    object's state (capture_model.cc), not read to the end"),
        expect: Codes(&[acl!(RT_PARAM_INVALID)]),
        requires: &[Need::Symbol("aclmdlRIExecuteAsync")],
    }

    MRI_018 {
        group: MODEL,
        text: "aclmdlRICaptureBegin and aclmdlRICaptureEnd on the default stream (the handle of \
               aclrtCtxGetCurrentDefaultStream) are 207000.",
        apis: &["aclmdlRICaptureBegin", "aclmdlRICaptureEnd", "aclrtCtxGetCurrentDefaultStream"],
        sources: &[API_IMPL_ACLGRAPH],
        confidence: &[Src],
        note: Some("ApiImpl::StreamBeginCapture api_impl_aclgraph.cc:33, StreamEndCapture :54 \
                    (RT_ERROR_FEATURE_NOT_SUPPORT), errcode_manage.cc:314"),
        expect: Codes(&[acl!(RT_FEATURE_NOT_SUPPORT)]),
        requires: &[Need::Symbol("aclrtCtxGetCurrentDefaultStream")],
    }
}

// ---- group of the value rules ---------------------------------------

const VALUE: &str = "acl.value";

// ---- groups and sources of the notify and IPC event rules -----

const NOTIFY: &str = "acl.notify";
const IPC_EVENT: &str = "acl.ipc.event";
const NOTIFY_CPP: Source = Runtime("src/acl/aclrt_impl/notify.cpp");
const API_C_EVENT: Source = Runtime("src/runtime/api/api_c_event.cc");
const API_C_SOC: Source = Runtime("src/runtime/api/api_c_standard_soc.cc");
const NOTIFY_CC: Source = Runtime("src/runtime/core/src/notify/notify.cc");
const API_ERROR_SOC: Source = Runtime("src/runtime/core/src/api_impl/api_error_standard_soc.cc");
const IPC_EVENT_CC: Source = Runtime("src/runtime/core/src/event/ipc_event.cc");

// ---- groups and sources of the memory rules ------------------------

const HOST_REGISTER: &str = "acl.memory.register";
const REGISTER_MEMORY: Source = Runtime("src/runtime/core/src/common/register_memory.cc");

// ---- group and sources of the model capture rules ------------------

const MODEL: &str = "acl.model";
const MODEL_RI_CPP: Source = Runtime("src/acl/aclrt_impl/model_ri.cpp");
const API_ERROR_ACLGRAPH: Source = Runtime("src/runtime/feature/aclgraph/api_error_aclgraph.cc");
const API_IMPL_ACLGRAPH: Source = Runtime("src/runtime/feature/aclgraph/v100/api_impl_aclgraph.cc");
const CONTEXT_ACLGRAPH: Source = Runtime("src/runtime/feature/aclgraph/context_aclgraph.cc");
const CAPTURE_UTILS: Source = Runtime("src/runtime/feature/aclgraph/capture_model_utils.cc");
const API_C_CC: Source = Runtime("src/runtime/api/api_c.cc");
const HANDLE_GUARD: Source = Runtime("src/runtime/core/src/common/runtime_handle_guard.cc");
