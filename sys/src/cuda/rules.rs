//! The CUDA rule table: every rule vmmkit knows of this vendor, written once.
//!
//! The emulator enforces these (its code for a broken rule is the record's),
//! the conformance suite binds each to the check that provokes it, and the
//! reports and docs show them. Each `static` is named for its id without the
//! `CUDA-` prefix: `MAP_003`-style names, derived into the id by
//! [`rules!`](crate::rules). Fields left out take [`Rule::defaults`](crate::rule::Rule::defaults).
//!
//! From the conformance catalog of the first wave:
//! The CUDA rules: the rules of reference cuda.md §3 (ids kept) that a
//! process and a peer can provoke, with the reference's codes; where it marks a point
//! undetermined (the probes of §3.4), the expected value is its emulator
//! choice and the confidence says `undetermined`, so a run on a real driver
//! answers the probe. One `const` per rule, in the reference's order;
//! [`ALL`] lists them. Fields left out take [`Rule::defaults`](crate::rule::Rule::defaults).
//! `equivalents` name the HIP and ACL rules the reference pairs with each
//! (codes and sometimes behaviour differ by vendor).
//!
//! Rules about a second process ([CUDA-IPC-006](crate::cuda::rules::IPC_006), -008, -010, -011, [CUDA-VMM-017](crate::cuda::rules::VMM_017),
//! -020) run a CUDA peer that opens the handle or receives the fd
//! (`Need::Peers`).
//!
//! Not here, and why:
//! * CUDA-IPC-007: it needs a second context on one device, which the
//!   table's primary contexts cannot make.
//! * CUDA-VMM-014: a rule for test writers (never dereference device memory
//!   on the host), with nothing to provoke.
#![forbid(unsafe_code)]

use crate::rule::Confidence::{Doc, Inferred, Source as Src, Undetermined};
use crate::rule::Expect::{Behaviour, Codes, Observed};
use crate::rule::Source::{CudaDoc, Project, Reference};
use crate::rule::{Dialect, Need, Source};
use crate::{cuda, rules};

// ---- groups (JUnit classnames, report sections): one per id family ----------

const GEN: &str = "cuda.general";
const IPC: &str = "cuda.ipc";
const VMM: &str = "cuda.vmm";
const POOL: &str = "cuda.pool";
const CPY: &str = "cuda.cpy";

// ---- sources, as the reference names them ------------------------------------

const DOCS: Source = CudaDoc("CUDA 12.6 driver API");
const D_INIT: Source = CudaDoc("cuInit");
const D_ENV: Source = CudaDoc("CUDA C++ Programming Guide, CUDA Environment Variables: CUDA_VISIBLE_DEVICES");
const D_MEM_FREE: Source = CudaDoc("§6.13 Memory Management, cuMemFree: group__CUDA__MEM.html");
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

rules! {
    prefix: "CUDA", dialect: Dialect::Cuda;

    // ==== 3.1 General ===============================================================
    GEN_001 {
        group: GEN,
        text: "cuInit: `Flags` must be 0.",
        apis: &["cuInit"],
        sources: &[D_INIT],
        confidence: &[Doc],
        expect: Codes(&[cuda!(INVALID_VALUE)]),
    }

    GEN_002 {
        group: GEN,
        text: "Memory, VMM and IPC calls need a current context on the calling thread: without one, 201.",
        apis: &["cuMemAlloc", "cuCtxSetCurrent", "cuDevicePrimaryCtxRetain"],
        sources: &[DOCS, UCX_10618],
        confidence: &[Doc],
        expect: Codes(&[cuda!(INVALID_CONTEXT)]),
        equivalents: &[&crate::acl::rules::GEN_005],
    }

    GEN_003 {
        group: GEN,
        text: "cuGetErrorName and cuGetErrorString of an unknown code return 1.",
        apis: &["cuGetErrorName", "cuGetErrorString"],
        sources: &[DOCS],
        confidence: &[Doc],
        expect: Codes(&[cuda!(INVALID_VALUE)]),
    }

    GEN_004 {
        group: GEN,
        text: "CUDA_VISIBLE_DEVICES chooses and orders the devices a process sees, numbered from 0; the list stops at \
               its first entry that is not a device index (or repeats one); memory keeps its physical device across \
               processes that see other lists (its PCI address follows it). A list that leaves no device makes cuInit \
               100 (CUDA_ERROR_NO_DEVICE).",
        apis: &["cuInit", "cuDeviceGetCount", "cuDeviceGetPCIBusId"],
        sources: &[D_ENV],
        confidence: &[Doc, Undetermined],
        note: Some("CUDA C++ Programming Guide, \"CUDA Environment Variables\": \"only the devices whose index is \
                    present in the sequence are visible ... If one of the indices is invalid, only the devices whose \
                    index precedes the invalid index are visible\". A repeated index and the code of an empty list \
                    are not documented (undetermined): the emulator ends the list at a repeat, and cuInit answers 100"),
        expect: Codes(&[cuda!(NO_DEVICE)]),
        equivalents: &[&crate::hip::rules::INIT_009],
        requires: &[Need::Peers, Need::Devices(3)],
    }

    // ==== 3.2 Legacy IPC ============================================================

    IPC_001 {
        group: IPC,
        text: "cuIpcGetMemHandle is for cuMemAlloc memory: pool memory is refused, VMM (cuMemMap'ed) memory is not eligible.",
        apis: &["cuIpcGetMemHandle"],
        sources: &[D_IPC_GET, CUDARC_521],
        confidence: &[Doc],
        expect: Codes(&[cuda!(INVALID_VALUE)]),
        equivalents: &[&crate::hip::rules::IPC_002, &crate::hip::rules::IPC_007],
    }

    IPC_002 {
        group: IPC,
        text: "cuIpcGetMemHandle on an interior pointer is undocumented; the emulator accepts it (as HIP-IPC-003).",
        apis: &["cuIpcGetMemHandle"],
        sources: &[PROBES],
        confidence: &[Undetermined],
        note: UNDETERMINED_P9,
        expect: Behaviour,
        equivalents: &[&crate::hip::rules::IPC_003],
    }

    IPC_003 {
        group: IPC,
        text: "cuIpcGetMemHandle is cheap and repeatable; memory freed and allocated again at the same address gets a different handle.",
        apis: &["cuIpcGetMemHandle"],
        sources: &[D_IPC_GET],
        confidence: &[Doc],
        expect: Behaviour,
        equivalents: &[&crate::hip::rules::IPC_004, &crate::hip::rules::IPC_006],
    }

    IPC_004 {
        group: IPC,
        text: "cuIpcOpenMemHandle flags must be CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS; the emulator refuses anything outside {0, 1} with 1.",
        apis: &["cuIpcOpenMemHandle"],
        sources: &[D_IPC_OPEN],
        confidence: &[Doc, Undetermined],
        note: UNDETERMINED_P9,
        expect: Codes(&[cuda!(INVALID_VALUE)]),
        equivalents: &[&crate::hip::rules::IPC_021],
    }

    IPC_005 {
        group: IPC,
        text: "Opening a handle in the process that created it fails with 201.",
        apis: &["cuIpcOpenMemHandle"],
        sources: &[UCX_11603],
        confidence: &[Inferred],
        expect: Codes(&[cuda!(INVALID_CONTEXT)]),
        equivalents: &[&crate::hip::rules::IPC_024, &crate::acl::rules::IMP_009],
    }

    IPC_006 {
        group: IPC,
        text: "A second cuIpcOpenMemHandle of the same handle in the same context returns the same pointer and counts one more open.",
        apis: &["cuIpcOpenMemHandle", "cuIpcCloseMemHandle"],
        sources: &[D_IPC_OPEN, UCX_3192],
        confidence: &[Doc],
        expect: Behaviour,
        equivalents: &[&crate::hip::rules::IPC_027, &crate::acl::rules::IMP_014],
        requires: PEERS,
    }

    IPC_008 {
        group: IPC,
        text: "The address cuIpcOpenMemHandle returns need not equal the exporter's.",
        apis: &["cuIpcOpenMemHandle"],
        sources: &[D_IPC_OPEN],
        confidence: &[Doc],
        expect: Observed,
        equivalents: &[&crate::hip::rules::IPC_028],
        requires: PEERS,
    }

    IPC_009 {
        group: IPC,
        text: "cuIpcCloseMemHandle drops one open; closing a pointer that was never opened is undocumented, 1 on the emulator.",
        apis: &["cuIpcCloseMemHandle"],
        sources: &[D_IPC_CLOSE],
        confidence: &[Doc, Undetermined],
        note: UNDETERMINED_P9,
        expect: Codes(&[cuda!(INVALID_VALUE)]),
        equivalents: &[&crate::hip::rules::IPC_041, &crate::hip::rules::IPC_042],
    }

    IPC_010 {
        group: IPC,
        text: "Freeing exported memory before its importers close it is undefined; the emulator answers as HIP-IPC-046 (the exporter's free is 0).",
        apis: &["cuMemFree", "cuIpcCloseMemHandle"],
        sources: &[D_IPC_OPEN],
        confidence: &[Doc],
        note: UNDEFINED,
        expect: Observed,
        equivalents: &[&crate::hip::rules::IPC_046, &crate::acl::rules::LIFE_002],
        requires: PEERS,
    }

    IPC_011 {
        group: IPC,
        text: "The IPC handle is a plain 64-byte blob: its bytes, carried over any channel, open the memory in another process.",
        apis: &["cuIpcGetMemHandle", "cuIpcOpenMemHandle"],
        sources: &[SIMPLE_IPC],
        confidence: &[Src],
        expect: Behaviour,
        equivalents: &[&crate::hip::rules::IPC_049],
        requires: PEERS,
    }

    // ==== 3.3 VMM ===================================================================

    VMM_001 {
        group: VMM,
        text: "The MINIMUM granularity is the required multiple for cuMemCreate sizes and cuMemMap pointers, sizes and offsets; query it, never hard-code it.",
        apis: &["cuMemGetAllocationGranularity", "cuMemCreate"],
        sources: &[D_GRAN, TMS_82],
        confidence: &[Doc],
        expect: Behaviour,
        equivalents: &[&crate::hip::rules::VMM_002, &crate::acl::rules::GRAN_009],
    }

    VMM_002 {
        group: VMM,
        text: "cuMemCreate: the size must be a multiple of the MINIMUM granularity.",
        apis: &["cuMemCreate"],
        sources: &[D_CREATE, TMS_82],
        confidence: &[Doc, Inferred],
        expect: Codes(&[cuda!(INVALID_VALUE)]),
        equivalents: &[&crate::hip::rules::VMM_006, &crate::acl::rules::MP_013],
    }

    VMM_003 {
        group: VMM,
        text: "`flags` must be 0 for cuMemCreate, cuMemAddressReserve, cuMemMap and cuMemExportToShareableHandle.",
        apis: &["cuMemCreate", "cuMemAddressReserve", "cuMemMap", "cuMemExportToShareableHandle"],
        sources: &[DOCS],
        confidence: &[Doc, Inferred],
        note: CODE_INFERRED,
        expect: Codes(&[cuda!(INVALID_VALUE)]),
        equivalents: &[&crate::hip::rules::VMM_003, &crate::hip::rules::VMM_010, &crate::hip::rules::VMM_014, &crate::hip::rules::VMM_024, &crate::acl::rules::MP_003, &crate::acl::rules::MAP_003],
    }

    VMM_004 {
        group: VMM,
        text: "cuMemCreate at location HOST or HOST_NUMA_CURRENT → 1; FABRIC handles without IMEX → 800.",
        apis: &["cuMemCreate"],
        sources: &[D_CREATE],
        confidence: &[Doc],
        expect: Codes(&[cuda!(INVALID_VALUE), cuda!(NOT_PERMITTED)]),
        equivalents: &[&crate::acl::rules::MP_017],
    }

    VMM_005 {
        group: VMM,
        text: "Release while mapped is allowed: the memory goes when every mapping is unmapped and every reference released.",
        apis: &["cuMemRelease"],
        sources: &[D_RELEASE],
        confidence: &[Doc],
        expect: Behaviour,
        equivalents: &[&crate::hip::rules::VMM_008, &crate::hip::rules::VMM_030, &crate::acl::rules::FP_002, &crate::acl::rules::FP_005, &crate::acl::rules::LIFE_001],
    }

    VMM_006 {
        group: VMM,
        text: "cuMemAddressReserve: `alignment` is 0 or a power of two, `addr` is a hint, flags must be 0.",
        apis: &["cuMemAddressReserve"],
        sources: &[D_RESERVE],
        confidence: &[Doc],
        expect: Codes(&[cuda!(INVALID_VALUE)]),
        equivalents: &[&crate::hip::rules::VMM_011, &crate::acl::rules::RSV_004],
    }

    VMM_007 {
        group: VMM,
        text: "cuMemAddressFree: ptr and size must match the reservation exactly.",
        apis: &["cuMemAddressFree"],
        sources: &[D_ADDRESS_FREE],
        confidence: &[Doc, Inferred],
        note: CODE_INFERRED,
        expect: Codes(&[cuda!(INVALID_VALUE)]),
        equivalents: &[&crate::acl::rules::REL_002],
    }

    VMM_008 {
        group: VMM,
        text: "cuMemMap: inside a reservation and not mapped already; ptr, size and offset multiples of the MINIMUM granularity; offset must be 0; flags must be 0.",
        apis: &["cuMemMap"],
        sources: &[D_MAP],
        confidence: &[Doc],
        expect: Codes(&[cuda!(INVALID_VALUE)]),
        equivalents: &[&crate::hip::rules::VMM_014, &crate::acl::rules::MAP_004, &crate::acl::rules::MAP_003],
    }

    VMM_009 {
        group: VMM,
        text: "A partial map (size below the allocation's, offset 0) is documented but was refused in practice (mscclpp PR #501); the emulator allows it.",
        apis: &["cuMemMap"],
        sources: &[MSCCLPP_501, PROBES],
        confidence: &[Undetermined],
        note: UNDETERMINED_P1,
        expect: Behaviour,
        equivalents: &[&crate::hip::rules::VMM_016, &crate::acl::rules::MAP_012],
    }

    VMM_010 {
        group: VMM,
        text: "cuMemMap over an already-mapped range: 1 or 208 is undetermined; the emulator answers 1.",
        apis: &["cuMemMap"],
        sources: &[UR_1174, PROBES],
        confidence: &[Undetermined],
        note: UNDETERMINED_P3,
        expect: Codes(&[cuda!(INVALID_VALUE)]),
        equivalents: &[&crate::acl::rules::MAP_009],
    }

    VMM_011 {
        group: VMM,
        text: "cuMemUnmap must cover exactly a whole mapped range, no sub-range; the range reverts to a reservation and a re-map starts with no access.",
        apis: &["cuMemUnmap"],
        sources: &[D_UNMAP, HIP_TESTS],
        confidence: &[Doc, Inferred],
        expect: Codes(&[cuda!(INVALID_VALUE)]),
        equivalents: &[&crate::hip::rules::VMM_019, &crate::acl::rules::UNMAP_002],
    }

    VMM_012 {
        group: VMM,
        text: "A mapping grants no access: cuMemSetAccess is required, and a copy into a no-access or read-only range fails.",
        apis: &["cuMemSetAccess", "cuMemcpyHtoD"],
        sources: &[DOCS, HIP_TESTS],
        confidence: &[Doc, Inferred],
        expect: Codes(&[cuda!(INVALID_VALUE)]),
        equivalents: &[&crate::hip::rules::VMM_023, &crate::acl::rules::ACC_003],
    }

    VMM_013 {
        group: VMM,
        text: "cuMemSetAccess: the range must be fully mapped; a host location on device memory → 801.",
        apis: &["cuMemSetAccess"],
        sources: &[D_SET_ACCESS, HIP_TESTS],
        confidence: &[Doc, Inferred],
        expect: Codes(&[cuda!(INVALID_VALUE), cuda!(NOT_SUPPORTED)]),
        equivalents: &[&crate::hip::rules::VMM_021, &crate::acl::rules::ACC_005],
    }

    VMM_015 {
        group: VMM,
        text: "cuMemExportToShareableHandle: flags must be 0 and the type must have been requested at cuMemCreate; the code of a mismatch is undetermined, 1 on the emulator.",
        apis: &["cuMemExportToShareableHandle"],
        sources: &[D_EXPORT, MEMMAP_IPC],
        confidence: &[Doc, Undetermined],
        note: UNDETERMINED_P6,
        expect: Codes(&[cuda!(INVALID_VALUE)]),
        equivalents: &[&crate::hip::rules::VMM_024, &crate::acl::rules::EXP_001],
    }

    VMM_016 {
        group: VMM,
        text: "Export of a POSIX fd writes an int; every export makes a new fd owned by the caller.",
        apis: &["cuMemExportToShareableHandle"],
        sources: &[D_EXPORT],
        confidence: &[Doc],
        expect: Behaviour,
        equivalents: &[&crate::hip::rules::VMM_025, &crate::acl::rules::EXP_008],
    }

    VMM_017 {
        group: VMM,
        text: "Import takes the fd value; the caller keeps the fd and may close it; every import needs its own cuMemRelease.",
        apis: &["cuMemImportFromShareableHandle"],
        sources: &[D_IMPORT, MEMMAP_IPC],
        confidence: &[Doc],
        expect: Behaviour,
        equivalents: &[&crate::hip::rules::VMM_026, &crate::acl::rules::IMP_014],
        requires: PEERS,
    }

    VMM_018 {
        group: VMM,
        text: "Import inside the exporting process (and a double import) is undocumented; the emulator allows it.",
        apis: &["cuMemImportFromShareableHandle"],
        sources: &[PROBES],
        confidence: &[Undetermined],
        note: UNDETERMINED_P7,
        expect: Behaviour,
        equivalents: &[&crate::hip::rules::VMM_028, &crate::acl::rules::IMP_009],
    }

    VMM_019 {
        group: VMM,
        text: "cuMemRetainAllocationHandle on any address inside a mapping returns the mapped handle; each call needs a cuMemRelease.",
        apis: &["cuMemRetainAllocationHandle"],
        sources: &[D_RETAIN],
        confidence: &[Doc],
        expect: Behaviour,
        equivalents: &[&crate::hip::rules::VMM_033, &crate::acl::rules::RET_001],
    }

    VMM_020 {
        group: VMM,
        text: "The data survives releasing every handle, closing every fd, and a peer exiting, while a mapping remains.",
        apis: &["cuMemRelease", "cuMemExportToShareableHandle"],
        sources: &[D_RELEASE],
        confidence: &[Doc],
        expect: Behaviour,
        equivalents: &[&crate::hip::rules::VMM_030, &crate::acl::rules::LIFE_002],
        requires: PEERS,
    }

    // ==== Copies =============================================================
    CPY_001 {
        group: CPY,
        text: "cuMemcpyHtoD, cuMemcpyDtoH: a host pointer taken for no memory (the low 64 KiB, such as 0x1000, or \
               past the user address space) is refused, not dereferenced.",
        apis: &["cuMemcpyHtoD", "cuMemcpyDtoH"],
        sources: &[Reference("cuda.md: no source; the emulator's choice")],
        confidence: &[Undetermined],
        note: Some("undetermined: a real driver dereferences the host pointer; the emulator answers 1"),
        expect: Codes(&[cuda!(INVALID_VALUE)]),
    }

    // ==== Processes forked after initialisation ===========================

    FORK_001 {
        group: "cuda.fork",
        text: "A process forked after the parent called cuInit cannot use CUDA: every driver call, cuInit included, \
               returns CUDA_ERROR_NOT_INITIALIZED (3).",
        apis: &["cuInit", "cuDeviceGetCount", "cuMemCreate", "cuMemImportFromShareableHandle", "cuMemRelease"],
        sources: &[
            Project("NVIDIA CUDA C++ Guidelines for robust and safety-critical programming, rule 1.6 (fork)"),
            Project("triton-lang/triton PR #10443 (cuInit and cuDeviceGetCount return 3 in a forked child)"),
            Project("tensorflow/tensorflow issue #57877 (CUDA_ERROR_NOT_INITIALIZED after fork)"),
        ],
        confidence: &[Inferred],
        note: Some("undefined behaviour in NVIDIA's guidelines; 3 is what drivers are reported to return"),
        expect: Codes(&[cuda!(NOT_INITIALIZED)]),
        equivalents: &[&crate::acl::rules::FORK_001, &crate::hip::rules::FORK_001],
        requires: PEERS,
    }

    // ==== Stream-ordered memory pools =========================================
    POOL_001 {
        group: POOL,
        text: "cuMemPoolCreate: NULL arguments, an allocType other than PINNED and a location that is not a device \
               of this machine are 1.",
        apis: &["cuMemPoolCreate"],
        sources: &[CudaDoc("cuMemPoolCreate")],
        confidence: &[Doc, Inferred],
        note: Some("the docs list CUDA_ERROR_INVALID_VALUE; which argument maps to it is inferred"),
        expect: Codes(&[cuda!(INVALID_VALUE)]),
    }

    POOL_002 {
        group: POOL,
        text: "cuMemPoolDestroy: a device's default pool cannot be destroyed (1); destroying the current pool makes \
               the default current again.",
        apis: &["cuMemPoolDestroy", "cuDeviceGetMemPool"],
        sources: &[CudaDoc("cuMemPoolDestroy")],
        confidence: &[Doc, Inferred],
        note: Some("the code for the default pool is not documented: 1 inferred"),
        expect: Codes(&[cuda!(INVALID_VALUE)]),
    }

    POOL_003 {
        group: POOL,
        text: "cuDeviceGetDefaultMemPool, cuDeviceGetMemPool: a NULL out-pointer is 1, a device that is not one is 101.",
        apis: &["cuDeviceGetDefaultMemPool", "cuDeviceGetMemPool"],
        sources: &[CudaDoc("cuDeviceGetDefaultMemPool"), CudaDoc("cuDeviceGetMemPool")],
        confidence: &[Doc],
        expect: Codes(&[cuda!(INVALID_VALUE), cuda!(INVALID_DEVICE)]),
    }

    POOL_004 {
        group: POOL,
        text: "cuDeviceSetMemPool: the pool must be local to the device and not imported; otherwise 1.",
        apis: &["cuDeviceSetMemPool"],
        sources: &[CudaDoc("cuDeviceSetMemPool"), CudaDoc("cuMemPoolImportFromShareableHandle")],
        confidence: &[Doc, Inferred],
        expect: Codes(&[cuda!(INVALID_VALUE)]),
    }

    POOL_005 {
        group: POOL,
        text: "cuMemAllocAsync, cuMemAllocFromPoolAsync: a NULL dptr is 1, a stream that is not one is 400, an \
               imported pool is 1 (imported pools do not allocate).",
        apis: &["cuMemAllocAsync", "cuMemAllocFromPoolAsync"],
        sources: &[CudaDoc("cuMemAllocFromPoolAsync"), CudaDoc("cuMemPoolImportFromShareableHandle")],
        confidence: &[Doc, Inferred],
        note: Some("the emulator has no streams yet: NULL, CU_STREAM_LEGACY (1) and CU_STREAM_PER_THREAD (2) are valid"),
        expect: Codes(&[cuda!(INVALID_VALUE), cuda!(INVALID_HANDLE)]),
    }

    POOL_006 {
        group: POOL,
        text: "cuMemFreeAsync: an address that is no allocation is 1, a stream that is not one is 400.",
        apis: &["cuMemFreeAsync"],
        sources: &[CudaDoc("cuMemFreeAsync")],
        confidence: &[Doc, Inferred],
        expect: Codes(&[cuda!(INVALID_VALUE), cuda!(INVALID_HANDLE)]),
    }

    POOL_007 {
        group: POOL,
        text: "cuMemPoolSetAttribute: RESERVED_MEM_CURRENT and USED_MEM_CURRENT are read only, and the high-water \
               marks can only be reset to 0; otherwise 1.",
        apis: &["cuMemPoolSetAttribute", "cuMemPoolGetAttribute"],
        sources: &[CudaDoc("CUmemPool_attribute")],
        confidence: &[Doc],
        expect: Codes(&[cuda!(INVALID_VALUE)]),
    }

    POOL_008 {
        group: POOL,
        text: "A pool counts what it holds: after an allocation of n bytes USED and RESERVED are n; after its free \
               USED is 0 and RESERVED stays n until cuMemPoolTrimTo(0) releases it.",
        apis: &["cuMemAllocFromPoolAsync", "cuMemFreeAsync", "cuMemPoolTrimTo", "cuMemPoolGetAttribute"],
        sources: &[CudaDoc("CUmemPool_attribute"), CudaDoc("cuMemPoolTrimTo")],
        confidence: &[Doc, Inferred],
        note: Some("sizes in whole 2 MiB granules, where the driver's rounding does not matter"),
        expect: Behaviour,
    }

    POOL_009 {
        group: POOL,
        text: "cuMemPoolGetAccess, cuMemPoolSetAccess: a location that is not a device is 1; the pool's device reads \
               READWRITE, another NONE until granted.",
        apis: &["cuMemPoolGetAccess", "cuMemPoolSetAccess"],
        sources: &[CudaDoc("cuMemPoolSetAccess"), CudaDoc("cuMemPoolGetAccess")],
        confidence: &[Doc, Inferred],
        expect: Codes(&[cuda!(INVALID_VALUE)]),
    }

    POOL_010 {
        group: POOL,
        text: "cuMemPoolExportToShareableHandle: flags other than 0, and a pool made with handle type NONE, are 1.",
        apis: &["cuMemPoolExportToShareableHandle"],
        sources: &[CudaDoc("cuMemPoolExportToShareableHandle"), CudaDoc("cuMemPoolCreate")],
        confidence: &[Doc],
        expect: Codes(&[cuda!(INVALID_VALUE)]),
    }

    POOL_011 {
        group: POOL,
        text: "cuMemPoolImportFromShareableHandle: flags other than 0, handle type NONE, and a handle that is no \
               exported pool's fd are 1; the handle is the fd value cast to a pointer.",
        apis: &["cuMemPoolImportFromShareableHandle"],
        sources: &[CudaDoc("cuMemPoolImportFromShareableHandle")],
        confidence: &[Doc],
        expect: Codes(&[cuda!(INVALID_VALUE)]),
    }

    POOL_012 {
        group: POOL,
        text: "cuMemPoolExportPointer: an address that is not an allocation of an exportable pool is 1.",
        apis: &["cuMemPoolExportPointer"],
        sources: &[CudaDoc("cuMemPoolExportPointer")],
        confidence: &[Doc, Inferred],
        expect: Codes(&[cuda!(INVALID_VALUE)]),
    }

    POOL_013 {
        group: POOL,
        text: "Across processes: the pool's fd and a pointer's export data let another process import the allocation \
               into its imported pool and read what the exporter wrote; it frees it with cuMemFreeAsync.",
        apis: &[
            "cuMemPoolExportToShareableHandle",
            "cuMemPoolImportFromShareableHandle",
            "cuMemPoolExportPointer",
            "cuMemPoolImportPointer",
            "cuMemFreeAsync",
        ],
        sources: &[CudaDoc("cuMemPoolImportPointer")],
        confidence: &[Doc],
        note: Some("the docs ask importers to free before the exporter does; the other order is undefined there"),
        expect: Behaviour,
        requires: PEERS,
    }

    // ==== Streams, events and IPC events ==================================
    // Sources: the CUDA driver API docs, §6.15 Stream Management (S_*), §6.16
    // Event Management (E_*), §6.9 Memory Management for the IPC event
    // functions and async copies (M_*). Pages cited by URL in the constants below.

    STM_001 {
        group: STM,
        text: "cuStreamCreate, cuStreamCreateWithPriority: a NULL phStream, or Flags other than CU_STREAM_DEFAULT (0) \
               and CU_STREAM_NON_BLOCKING (1), are 1.",
        apis: &["cuStreamCreate", "cuStreamCreateWithPriority"],
        sources: &[S_CREATE],
        confidence: &[Doc, Inferred],
        note: CODE_INFERRED,
        expect: Codes(&[cuda!(INVALID_VALUE)]),
    }

    STM_002 {
        group: STM,
        text: "A stream argument that is not NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD or a live stream is 400 \
               (cuStreamSynchronize, cuStreamQuery, cuStreamDestroy, cuEventRecord, the async copies); destroying \
               the NULL stream is 400 too.",
        apis: &["cuStreamSynchronize", "cuStreamQuery", "cuStreamDestroy", "cuMemcpyHtoDAsync"],
        sources: &[S_SYNC, S_DESTROY],
        confidence: &[Doc, Inferred],
        expect: Codes(&[cuda!(INVALID_HANDLE)]),
    }

    STM_003 {
        group: STM,
        text: "cuStreamQuery: CUDA_ERROR_NOT_READY (600) while work enqueued on the stream has not completed, 0 once \
               it has.",
        apis: &["cuStreamQuery", "cuStreamWaitValue32"],
        sources: &[S_QUERY],
        confidence: &[Doc],
        expect: Codes(&[cuda!(NOT_READY)]),
    }

    STM_004 {
        group: STM,
        text: "Work on one stream runs in the order it was enqueued, apart from the host; cuStreamSynchronize returns \
               when all of it has completed (an async copy to the device and back is then seen by the host).",
        apis: &["cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync", "cuStreamSynchronize"],
        sources: &[S_SYNC, M_HTOD_ASYNC],
        confidence: &[Doc],
        expect: Behaviour,
    }

    STM_005 {
        group: STM,
        text: "cuStreamDestroy with work pending returns at once; the work still completes (cuCtxSynchronize waits \
               for it).",
        apis: &["cuStreamDestroy", "cuCtxSynchronize"],
        sources: &[S_DESTROY],
        confidence: &[Doc],
        expect: Behaviour,
    }

    STM_006 {
        group: STM,
        text: "cuStreamWaitEvent: Flags other than CU_EVENT_WAIT_DEFAULT (0) and CU_EVENT_WAIT_EXTERNAL (1) are 1.",
        apis: &["cuStreamWaitEvent"],
        sources: &[S_WAIT_EVENT],
        confidence: &[Doc, Inferred],
        note: CODE_INFERRED,
        expect: Codes(&[cuda!(INVALID_VALUE)]),
    }

    STM_007 {
        group: STM,
        text: "cuStreamWaitEvent: work enqueued on the stream afterwards waits for the event's last record, made on \
               another stream; other streams are not ordered with it.",
        apis: &["cuStreamWaitEvent", "cuEventRecord", "cuStreamQuery"],
        sources: &[S_WAIT_EVENT],
        confidence: &[Doc],
        expect: Behaviour,
    }

    STM_008 {
        group: STM,
        text: "The legacy NULL stream waits for the earlier work of the context's blocking streams; a stream made with \
               CU_STREAM_NON_BLOCKING is not ordered with it.",
        apis: &["cuStreamCreate", "cuMemsetD8Async", "cuStreamQuery"],
        sources: &[S_CREATE, STREAM_SYNC_BEHAVIOR],
        confidence: &[Doc],
        expect: Behaviour,
    }

    STM_009 {
        group: STM,
        text: "cuStreamGetFlags and cuStreamGetPriority give back the flags and priority the stream was made with; a \
               priority outside [greatest, least] = [-5, 0] is clamped into it.",
        apis: &["cuStreamGetFlags", "cuStreamGetPriority", "cuStreamCreateWithPriority"],
        sources: &[S_CREATE_PRIO, S_GET_FLAGS],
        confidence: &[Doc, Undetermined],
        note: Some("undetermined: the range is the device's (cuCtxGetStreamPriorityRange); [-5, 0] is the emulator's choice"),
        expect: Behaviour,
    }

    STM_010 {
        group: STM,
        text: "cuStreamWaitValue32/64: flags other than GEQ (0), EQ (1), AND (2), NOR (3), optionally with FLUSH, are \
               1; cuStreamWriteValue32/64: flags other than 0 and NO_MEMORY_BARRIER (1) are 1. A write on one stream \
               releases a wait on another.",
        apis: &["cuStreamWaitValue32", "cuStreamWriteValue32", "cuStreamWaitValue64", "cuStreamWriteValue64"],
        sources: &[S_WAIT_VALUE, S_WRITE_VALUE],
        confidence: &[Doc, Inferred],
        note: CODE_INFERRED,
        expect: Codes(&[cuda!(INVALID_VALUE)]),
    }

    STM_011 {
        group: STM,
        text: "cuLaunchHostFunc and cuStreamAddCallback run the host function after the stream's earlier work; a NULL \
               function, or cuStreamAddCallback's flags other than 0, are 1.",
        apis: &["cuLaunchHostFunc", "cuStreamAddCallback"],
        sources: &[S_HOST_FUNC, S_ADD_CALLBACK],
        confidence: &[Doc],
        expect: Codes(&[cuda!(INVALID_VALUE)]),
    }

    STM_012 {
        group: STM,
        text: "The synchronous copies and memsets (cuMemcpy*, cuMemsetD*) are ordered on the legacy NULL stream: they \
               start after the earlier work of the context's blocking streams, so a cuMemcpyDtoH reads what an earlier \
               cuMemsetD8Async on a blocking stream wrote; a non-blocking stream's earlier work is not waited for.",
        apis: &["cuMemcpyDtoH", "cuMemsetD8", "cuMemsetD8Async", "cuStreamCreate"],
        sources: &[API_SYNC_BEHAVIOR, STREAM_SYNC_BEHAVIOR],
        confidence: &[Doc],
        note: Some("api-sync-behavior: a synchronous transfer from device memory returns only once the copy has \
                    completed; stream-sync-behavior: work on the legacy default stream waits for the blocking streams"),
        expect: Behaviour,
    }

    STM_013 {
        group: STM,
        text: "cuMemFree of memory from cuMemAlloc waits for the work of the device's streams before it frees: right \
               after it, cuStreamQuery on the NULL stream is 0. Memory from cuMemAllocAsync or \
               cuMemAllocFromPoolAsync is freed without waiting.",
        apis: &["cuMemFree"],
        sources: &[D_MEM_FREE],
        confidence: &[Doc],
        note: Some("the driver API's cuMemFree: \"This API will not perform any implicit synchronization when the \
                    pointer was allocated with cuMemAllocAsync or cuMemAllocFromPoolAsync ... For all other pointers, \
                    this API may perform implicit synchronization\"; vmmkit does, as HIP's hipFree (HIP-MEM-003)"),
        expect: Behaviour,
    }

    EVT_001 {
        group: EVT,
        text: "cuEventCreate: a NULL phEvent, flags outside DEFAULT|BLOCKING_SYNC|DISABLE_TIMING|INTERPROCESS, and \
               CU_EVENT_INTERPROCESS without CU_EVENT_DISABLE_TIMING, are 1.",
        apis: &["cuEventCreate"],
        sources: &[E_CREATE],
        confidence: &[Doc, Inferred],
        note: CODE_INFERRED,
        expect: Codes(&[cuda!(INVALID_VALUE)]),
    }

    EVT_002 {
        group: EVT,
        text: "cuEventQuery: CUDA_ERROR_NOT_READY (600) while the work before its last record has not completed; 0 \
               once it has, and for an event never recorded.",
        apis: &["cuEventQuery", "cuEventRecord"],
        sources: &[E_QUERY],
        confidence: &[Doc],
        expect: Codes(&[cuda!(NOT_READY)]),
    }

    EVT_003 {
        group: EVT,
        text: "cuEventSynchronize returns once the work before the event's last record has completed.",
        apis: &["cuEventSynchronize", "cuEventRecord", "cuMemcpyDtoHAsync"],
        sources: &[E_SYNC],
        confidence: &[Doc],
        expect: Behaviour,
    }

    EVT_004 {
        group: EVT,
        text: "cuEventElapsedTime: an event made with CU_EVENT_DISABLE_TIMING, or never recorded, is 400; a NULL \
               pMilliseconds is 1.",
        apis: &["cuEventElapsedTime"],
        sources: &[E_ELAPSED],
        confidence: &[Doc],
        expect: Codes(&[cuda!(INVALID_HANDLE), cuda!(INVALID_VALUE)]),
    }

    EVT_005 {
        group: EVT,
        text: "cuEventElapsedTime: when either event's last record has not completed, 600.",
        apis: &["cuEventElapsedTime"],
        sources: &[E_ELAPSED],
        confidence: &[Doc],
        expect: Codes(&[cuda!(NOT_READY)]),
    }

    EVT_006 {
        group: EVT,
        text: "A NULL event is 400 (cuEventRecord, cuEventQuery, cuEventSynchronize, cuStreamWaitEvent, cuEventDestroy).",
        apis: &["cuEventRecord", "cuEventQuery", "cuEventSynchronize", "cuStreamWaitEvent", "cuEventDestroy"],
        sources: &[E_RECORD],
        confidence: &[Doc, Inferred],
        expect: Codes(&[cuda!(INVALID_HANDLE)]),
    }

    IEV_001 {
        group: IEV,
        text: "cuIpcGetEventHandle: a NULL pHandle is 1; an event made without CU_EVENT_INTERPROCESS is 400.",
        apis: &["cuIpcGetEventHandle"],
        sources: &[M_IPC_GET_EVENT, HIP_2882],
        confidence: &[Doc, Inferred],
        expect: Codes(&[cuda!(INVALID_HANDLE), cuda!(INVALID_VALUE)]),
    }

    IEV_002 {
        group: IEV,
        text: "cuIpcOpenEventHandle in the process that exported the event is 201 (CUDA_ERROR_INVALID_CONTEXT).",
        apis: &["cuIpcOpenEventHandle"],
        sources: &[HIP_1984, HIP_2882],
        confidence: &[Inferred],
        note: Some("not in the docs: a CUDA 10 run of HIP's IPC event test on NVIDIA (ROCm/hip PR #1984) got 201, \
                    and hip-tests expect the same of HIP (PR #2882)"),
        expect: Codes(&[cuda!(INVALID_CONTEXT)]),
    }

    IEV_003 {
        group: IEV,
        text: "Across processes: after the exporter records the interprocess event behind an async copy, the \
               importer's cuStreamWaitEvent + cuStreamSynchronize (or cuEventSynchronize) on the opened event return \
               after the copy, and the importer reads the data; the opened event has timing disabled (400 from \
               cuEventElapsedTime).",
        apis: &["cuIpcGetEventHandle", "cuIpcOpenEventHandle", "cuStreamWaitEvent", "cuEventSynchronize"],
        sources: &[M_IPC_GET_EVENT, M_IPC_OPEN_EVENT],
        confidence: &[Doc],
        expect: Behaviour,
        requires: PEERS,
    }

    // ==== Graphs and stream capture ==========================================

    GRF_001 {
        group: GRF,
        text: "cuGraphCreate: a NULL graph pointer or flags other than 0 is 1. The node adds (cuGraphAddMemsetNode, \
               cuGraphAddHostNode, cuGraphAddEventRecordNode, cuGraphAddEventWaitNode, cuGraphAddEmptyNode): a NULL \
               node pointer, graph, parameters, host function or event, dependencies NULL with a count, or a \
               dependency that is no node of the graph, is 1. cuGraphDestroy(NULL) is 1.",
        apis: &["cuGraphCreate", "cuGraphAddEmptyNode", "cuGraphAddHostNode", "cuGraphAddMemsetNode", "cuGraphDestroy"],
        sources: &[G_CREATE, G_ADD_EMPTY],
        confidence: &[Doc],
        note: Some("the driver API: cuGraphCreate \"flags - Graph creation flags, must be 0\"; each add returns \
                    CUDA_ERROR_INVALID_VALUE; \"dependencies may not have any duplicate entries\""),
        expect: Codes(&[cuda!(INVALID_VALUE)]),
    }

    GRF_002 {
        group: GRF,
        text: "cuGraphLaunch runs the graph's nodes in an order that respects every dependency, behind the work \
               enqueued on the stream before it and behind the graph's earlier launches; the graph runs again at each \
               launch.",
        apis: &["cuGraphLaunch", "cuGraphInstantiateWithFlags"],
        sources: &[G_LAUNCH],
        confidence: &[Doc],
        note: Some("cuGraphLaunch: \"Each launch is ordered behind both any previous work in hStream and any previous \
                    launches of hGraphExec\""),
        expect: Behaviour,
    }

    GRF_003 {
        group: GRF,
        text: "cuGraphInstantiateWithFlags with a NULL exec pointer or graph, cuGraphLaunch of a NULL or destroyed \
               instantiated graph, and cuGraphExecDestroy(NULL) are 1.",
        apis: &["cuGraphInstantiateWithFlags", "cuGraphLaunch", "cuGraphExecDestroy"],
        sources: &[G_INSTANTIATE, G_LAUNCH],
        confidence: &[Doc, Inferred],
        note: Some("each documents CUDA_ERROR_INVALID_VALUE; that a destroyed exec is refused rather than used is \
                    the emulator's choice (it looks values up)"),
        expect: Codes(&[cuda!(INVALID_VALUE)]),
    }

    GRF_004 {
        group: GRF,
        text: "cuStreamBeginCapture: the legacy stream or a mode outside Global … Relaxed is 1; a stream already \
               capturing is 401. cuStreamEndCapture: a NULL graph pointer is 1, a stream not capturing is 401, a \
               thread other than the one that began a capture not in relaxed mode is 908.",
        apis: &["cuStreamBeginCapture", "cuStreamEndCapture"],
        sources: &[G_BEGIN, G_END],
        confidence: &[Doc, Inferred],
        note: Some("cuStreamBeginCapture: \"Capture may not be initiated if stream is CU_STREAM_LEGACY\" with \
                    CUDA_ERROR_INVALID_VALUE the only argument code; cuStreamEndCapture documents \
                    CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD. 401 for a stream already capturing, or not capturing, is \
                    CUDA_ERROR_ILLEGAL_STATE's \"the operation cannot be performed in the present state\", inferred"),
        expect: Codes(&[cuda!(INVALID_VALUE), cuda!(ILLEGAL_STATE), cuda!(STREAM_CAPTURE_WRONG_THREAD)]),
    }

    GRF_005 {
        group: GRF,
        text: "While a stream captures, the copies, memsets and host functions enqueued on it are not run but become \
               nodes of the capture's graph; cuStreamIsCapturing says Active until cuStreamEndCapture returns the \
               graph, which, instantiated and launched, does the work.",
        apis: &["cuStreamBeginCapture", "cuStreamEndCapture", "cuStreamIsCapturing", "cuMemcpyHtoDAsync",
                "cuMemsetD8Async", "cuLaunchHostFunc"],
        sources: &[G_BEGIN, G_IS_CAPTURING],
        confidence: &[Doc],
        note: Some("cuStreamBeginCapture: \"When a stream is in capture mode, all operations pushed into the stream will \
                    not be executed, but will instead be captured into a graph\""),
        expect: Behaviour,
    }

    GRF_006 {
        group: GRF,
        text: "cuStreamSynchronize and cuStreamQuery of a capturing stream are 900 \
               (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) and invalidate the capture: work enqueued on the stream is then \
               901 (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED), and cuStreamEndCapture is 901 with a NULL graph.",
        apis: &["cuStreamSynchronize", "cuStreamQuery", "cuStreamEndCapture"],
        sources: &[G_END, G_ERRORS],
        confidence: &[Doc],
        note: Some("CUresult: STREAM_CAPTURE_UNSUPPORTED \"the operation is not permitted when the stream is capturing\", \
                    STREAM_CAPTURE_INVALIDATED \"the current capture sequence on the stream has been invalidated due \
                    to a previous error\"; cuStreamEndCapture: \"If capture was invalidated ... a NULL graph will be \
                    returned\""),
        expect: Codes(&[cuda!(STREAM_CAPTURE_UNSUPPORTED), cuda!(STREAM_CAPTURE_INVALIDATED)]),
    }
}

// ---- streams and events: groups and sources ------------------------------

const STM: &str = "cuda.stm";
const EVT: &str = "cuda.evt";
const IEV: &str = "cuda.iev";

const S_CREATE: Source = CudaDoc("§6.15 Stream Management, cuStreamCreate: group__CUDA__STREAM.html");
const S_CREATE_PRIO: Source = CudaDoc("§6.15 Stream Management, cuStreamCreateWithPriority: group__CUDA__STREAM.html");
const S_DESTROY: Source = CudaDoc("§6.15 Stream Management, cuStreamDestroy: group__CUDA__STREAM.html");
const S_SYNC: Source = CudaDoc("§6.15 Stream Management, cuStreamSynchronize: group__CUDA__STREAM.html");
const S_QUERY: Source = CudaDoc("§6.15 Stream Management, cuStreamQuery: group__CUDA__STREAM.html");
const S_WAIT_EVENT: Source = CudaDoc("§6.15 Stream Management, cuStreamWaitEvent: group__CUDA__STREAM.html");
const S_GET_FLAGS: Source = CudaDoc("§6.15 Stream Management, cuStreamGetFlags: group__CUDA__STREAM.html");
const S_HOST_FUNC: Source = CudaDoc("§6.22 Execution Control, cuLaunchHostFunc: group__CUDA__EXEC.html");
const S_ADD_CALLBACK: Source = CudaDoc("§6.15 Stream Management, cuStreamAddCallback: group__CUDA__STREAM.html");
const S_WAIT_VALUE: Source = CudaDoc("§6.20 Stream Memory Operations, cuStreamWaitValue32: group__CUDA__MEMOP.html");
const S_WRITE_VALUE: Source = CudaDoc("§6.20 Stream Memory Operations, cuStreamWriteValue32: group__CUDA__MEMOP.html");
const API_SYNC_BEHAVIOR: Source = CudaDoc("§2 API synchronization behavior, memcpy: api-sync-behavior.html");
const STREAM_SYNC_BEHAVIOR: Source =
    CudaDoc("§3 API synchronization behavior, stream synchronization behavior: stream-sync-behavior.html");
const E_CREATE: Source = CudaDoc("§6.16 Event Management, cuEventCreate: group__CUDA__EVENT.html");
const E_RECORD: Source = CudaDoc("§6.16 Event Management, cuEventRecord: group__CUDA__EVENT.html");
const E_QUERY: Source = CudaDoc("§6.16 Event Management, cuEventQuery: group__CUDA__EVENT.html");
const E_SYNC: Source = CudaDoc("§6.16 Event Management, cuEventSynchronize: group__CUDA__EVENT.html");
const E_ELAPSED: Source = CudaDoc("§6.16 Event Management, cuEventElapsedTime: group__CUDA__EVENT.html");
const M_HTOD_ASYNC: Source = CudaDoc("§6.13 Memory Management, cuMemcpyHtoDAsync: group__CUDA__MEM.html");
const M_IPC_GET_EVENT: Source = CudaDoc("§6.13 Memory Management, cuIpcGetEventHandle: group__CUDA__MEM.html");
const M_IPC_OPEN_EVENT: Source = CudaDoc("§6.13 Memory Management, cuIpcOpenEventHandle: group__CUDA__MEM.html");
const HIP_1984: Source = Project("ROCm/hip PR #1984 (hipEventIpc test on CUDA 10: 201 from the open)");
const HIP_2882: Source = Project("ROCm/hip PR #2882 (hip-tests hipIpcEventHandle.cc parameter validation)");

/// The base URL of the pages the sources above name (`group__CUDA__STREAM.html` is
/// `https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html`).
pub const CUDA_DRIVER_API_DOCS: &str = "https://docs.nvidia.com/cuda/cuda-driver-api/";

// ---- graphs and stream capture: group and sources ------------------------

const GRF: &str = "cuda.grf";
const G_CREATE: Source = CudaDoc("§6.24 Graph Management, cuGraphCreate: group__CUDA__GRAPH.html");
const G_ADD_EMPTY: Source = CudaDoc("§6.24 Graph Management, cuGraphAddEmptyNode: group__CUDA__GRAPH.html");
const G_INSTANTIATE: Source = CudaDoc("§6.24 Graph Management, cuGraphInstantiateWithFlags: group__CUDA__GRAPH.html");
const G_LAUNCH: Source = CudaDoc("§6.24 Graph Management, cuGraphLaunch: group__CUDA__GRAPH.html");
const G_BEGIN: Source = CudaDoc("§6.15 Stream Management, cuStreamBeginCapture: group__CUDA__STREAM.html");
const G_END: Source = CudaDoc("§6.15 Stream Management, cuStreamEndCapture: group__CUDA__STREAM.html");
const G_IS_CAPTURING: Source = CudaDoc("§6.15 Stream Management, cuStreamIsCapturing: group__CUDA__STREAM.html");
const G_ERRORS: Source = CudaDoc("§6.1 Data types, CUresult: group__CUDA__TYPES.html");
