//! The HIP rule table: every rule vmmkit knows of this vendor, written once.
//!
//! The emulator enforces these (its code for a broken rule is the record's),
//! the conformance suite binds each to the check that provokes it, and the
//! reports and docs show them. Each `static` is named for its id without the
//! `HIP-` prefix: `MAP_003`-style names, derived into the id by
//! [`rules!`](crate::rules). Fields left out take [`Rule::defaults`](crate::rule::Rule::defaults).
//!
//! The rules of reference hip.md §4 (ids kept), in the reference's order,
//! with the codes of the 6.x profile (the reference's default) in `expect`
//! and, where ROCm 7.x answers differently or the vendor crashes, one
//! [`ProfileExpect`] per profile in `profiles` ([`PROFILE_6`], [`PROFILE_7`];
//! sources per profile in docs/audit/hip.md). `equivalents` name the ACL
//! rules that state the same rule (codes differ by vendor). The
//! multi-process rules run in the suite with a HIP peer.
//!
//! Not here, and why (the rest of §4 is):
//! * HIP-INIT-004: how hip-tests orders its processes (they fork before
//!   HIP starts, and exec); the emulator's side of it is in other records:
//!   a child forked after the start is refused ([HIP-FORK-001](crate::hip::rules::FORK_001)), and every
//!   peer rule runs a process forked and exec'd before it starts HIP. The
//!   project's own INIT rules start at [HIP-INIT-005](crate::hip::rules::INIT_005), so an id keeps the
//!   reference's meaning.
//! * HIP-IPC-030: the importer's hipMemGetAddressRange, which the peers'
//!   request vocabulary (`Request` in the suite's `peer::device`) does not
//!   ask; the emulator tests' importer (emulator/tests/common/sharing/)
//!   checks it on the emulator.
//! * HIP-IPC-032: it needs a second context in the importer (hipCtxCreate),
//!   which the peers cannot make; the hip-tests case never checks its child.
//! * HIP-IPC-047: not asserted: the docs require a close, the 6.3 path is
//!   undetermined, and the emulator's choice (one close) is no vendor rule.
//! * HIP-IPC-048: it needs an exporter that is not the rule's process (the
//!   peers only import); emulator/tests/hip_ipc.rs runs it on the emulator.
//! * HIP-VMM-031: a rule for test writers (only the fd crosses, by
//!   SCM_RIGHTS or fork), with nothing to provoke; [HIP-VMM-026](crate::hip::rules::VMM_026)'s check
//!   sends the fd so.
#![forbid(unsafe_code)]

use crate::rule::Confidence::{Doc as DocTag, Inferred, Source as Src, Undetermined};
use crate::rule::Expect::{Behaviour, Codes, Observed};
use crate::rule::Source::{HipDoc, Project, Reference, Rocm};
use crate::rule::{Dialect, Need, ProfileExpect, Source};
use crate::{hip, rules};

// ---- groups (JUnit classnames, report sections): one per id family ----------

const INIT: &str = "hip.init";
const IPC: &str = "hip.ipc";
const VMM: &str = "hip.vmm";
const CPY: &str = "hip.cpy";
const POOL: &str = "hip.pool";
const STM: &str = "hip.stm";
const EVT: &str = "hip.evt";
const IEV: &str = "hip.iev";
const MEM: &str = "hip.mem";
const GRF: &str = "hip.grf";

// ---- sources, as the reference tags them -------------------------------------

const CLR_MEM: Source = Rocm("ROCm/clr hipamd/src/hip_memory.cpp");
const CLR_PEER: Source = Rocm("ROCm/clr hipamd/src/hip_peer.cpp");
const CLR_VM: Source = Rocm("ROCm/clr hipamd/src/hip_vm.cpp");
const CLR_DEV: Source = Rocm("ROCm/clr rocclr/device/device.cpp");
const CLR_INT: Source = Rocm("ROCm/clr hipamd/src/hip_internal.hpp");
const CLR_POOL: Source = Rocm("ROCm/clr hipamd/src/hip_mempool.cpp");
const CLR_POOL_IMPL: Source = Rocm("ROCm/clr hipamd/src/hip_mempool_impl.cpp");
const T_IPC: Source = Rocm("ROCm/hip-tests catch/unit/device/hipIpc{Get,Open,Close}MemHandle.cc");
const T_VMM: Source = Rocm("ROCm/hip-tests catch/unit/virtualMemoryManagement");
const T_NO_GPU: Source = Rocm("ROCm/hip-tests catch/multiproc/hipNoGpuTsts.cc");
const T_FREE: Source = Rocm("ROCm/hip-tests catch/unit/memory/hipFree.cc");
const T_COHERENCY: Source = Rocm("ROCm/hip-tests catch/unit/memory/hipMemCoherencyTst.cc");
const T_MANAGED_RANGE: Source =
    Rocm("ROCm/hip-tests catch/unit/memory/hipMemRangeGetAttribute.cc, hipMemAdvise.cc, hipMemPrefetchAsync.cc");
const T_MEMSET_SYNC: Source = Rocm("ROCm/hip-tests catch/unit/memory/hipMemsetSync.cc");
const T_STREAM_FLAGS: Source = Rocm("ROCm/hip-tests catch/unit/stream/hipStreamCreateWithFlags.cc");
const T_COPY_SYNC: Source = Rocm("ROCm/hip-tests catch/unit/memory/hipMemcpyPeer.cc, hipPointerSetAttribute.cc");
const T_PARAM2D_SYNC: Source = Rocm("ROCm/hip-tests catch/unit/memory/hipMemcpyParam2D.cc");
const CLR_MEMORY_OBJ: Source = Rocm("ROCm/clr rocclr/platform/memory.cpp");
const T_MIPMAP: Source = Rocm("ROCm/hip-tests catch/unit/memory/hipMallocMipmappedArray.cc, hipFreeMipmappedArray.cc");
const T_POINTER_ATTR: Source = Rocm("ROCm/hip-tests catch/unit/memory/hipPointerGetAttribute.cc");
const T_POOL_SHARE: Source = Rocm("ROCm/hip-tests catch/unit/memory/hipMemPoolExportToShareableHandle.cc");
const T_PROC_MEMORY: Source = Rocm("ROCm/hip-tests catch/unit/memory/hipGetProcAddress_Memory_APIs.cc");
const DEVELOP: Source = Rocm("ROCm/rocm-systems develop");
/// hip.md gives no source for the point: the reference records it as undetermined.
const UNSETTLED: Source = Reference("hip.md §4: no vendor source; the emulator's choice");
const HIP_523: Source = Project("Debian libamdhip64-5 5.2.3, no device");

const PEERS: &[Need] = &[Need::Peers];

// Streams and events: clr rocm-6.3.0 (fa1d09c); rows in docs/audit/hip-stream.md.
const CLR_STREAM: Source = Rocm("ROCm/clr hipamd/src/hip_stream.cpp");
// Graphs and stream capture: clr rocm-6.3.0 (fa1d09c); rows in docs/audit/hip-graph.md.
const CLR_GRAPH: Source = Rocm("ROCm/clr hipamd/src/hip_graph.cpp");
const CLR_GRAPH_INT: Source = Rocm("ROCm/clr hipamd/src/hip_graph_internal.cpp");
const CLR_EVENT: Source = Rocm("ROCm/clr hipamd/src/hip_event.cpp");
const CLR_EVENT_IPC: Source = Rocm("ROCm/clr hipamd/src/hip_event_ipc.cpp");
const CLR_DEVICE: Source = Rocm("ROCm/clr hipamd/src/hip_device.cpp");
const T_EVENT: Source = Rocm("ROCm/hip-tests catch/unit/event, catch/multiproc/hipIpcEventHandle.cc");
// Devices, contexts, stream memory operations.
const CLR_CONTEXT: Source = Rocm("ROCm/clr hipamd/src/hip_context.cpp");
const CLR_DEVICE_RT: Source = Rocm("ROCm/clr hipamd/src/hip_device_runtime.cpp");
const CLR_STREAM_OPS: Source = Rocm("ROCm/clr hipamd/src/hip_stream_ops.cpp");
const CLR_DEVICE_RT_7: Source = Rocm("ROCm/rocm-systems projects/clr/hipamd/src/hip_device_runtime.cpp (7.x)");

// ---- version profiles (docs/hip.md "Version profiles") -------------------------

/// The 6.x profile (ROCm clr 6.0–6.4; the sources cited are 6.3): the default.
pub const PROFILE_6: &str = "6";
/// The 7.x profile (ROCm 7.x, clr in ROCm/rocm-systems `projects/clr`).
pub const PROFILE_7: &str = "7";
/// Every profile, the default first.
pub const PROFILES: &[&str] = &[PROFILE_6, PROFILE_7];

const CLR_VM_7: Source = Rocm("ROCm/rocm-systems projects/clr/hipamd/src/hip_vm.cpp (7.x)");
const ROCR: Source = Rocm("ROCm/ROCR-Runtime src/core/runtime/runtime.cpp (ROCr)");
const CLR_ROCDEVICE: Source = Rocm("ROCm/clr rocclr/device/rocm/rocdevice.cpp");
const ROCR_FILTER: Source =
    Rocm("ROCm/rocm-systems projects/rocr-runtime/runtime/hsa-runtime/core/runtime/amd_filter_device.cpp");

rules! {
    prefix: "HIP", dialect: Dialect::Hip;

    // ==== 4.1 Global =================================================================
    INIT_001 {
        group: INIT,
        text: "A runtime that cannot start answers 101 from most calls; hipGetDeviceCount answers 100 with a count of 0.",
        apis: &["hipGetDeviceCount", "hipMalloc"],
        sources: &[HIP_523],
        confidence: &[Src],
        note: Some("observed on the 5.2.3 library with no device"),
        expect: Codes(&[hip!(INVALID_DEVICE), hip!(NO_DEVICE)]),
    }

    INIT_002 {
        group: INIT,
        text: "With no device visible every call answers 100 (hipErrorNoDevice): hipGetDeviceCount, hipSetDevice, \
               hipIpcOpenMemHandle, hipMemcpy, hipIpcCloseMemHandle alike.",
        apis: &["hipGetDeviceCount", "hipSetDevice", "hipIpcOpenMemHandle", "hipMemcpy", "hipIpcCloseMemHandle"],
        sources: &[CLR_INT, T_NO_GPU],
        confidence: &[Src],
        note: Some("HIP_INIT_API returns 100 before any argument check when g_devices is empty; the emulator enforces \
                    it as HIP-INIT-009's last sentence (a visibility list that leaves nothing)"),
        expect: Codes(&[hip!(NO_DEVICE)]),
        requires: PEERS,
        enforced_by: &[&INIT_009],
    }

    INIT_003 {
        group: INIT,
        text: "The last error is per thread; hipGetLastError returns it and resets it, hipPeekAtLastError does not.",
        apis: &["hipGetLastError", "hipPeekAtLastError"],
        sources: &[CLR_INT],
        confidence: &[Src],
        expect: Behaviour,
    }

    // ==== Contexts, device settings, device reset ==========================

    INIT_005 {
        group: INIT,
        text: "Contexts (deprecated) are devices, and each thread has a context stack: hipCtxPopCurrent on an empty \
               stack and hipCtxPushCurrent(NULL) are 201; hipDevicePrimaryCtxSetFlags on a device is 216 (its \
               primary context is always in use); hipCtxCreate with a device out of range is 1.",
        apis: &["hipCtxPopCurrent", "hipCtxPushCurrent", "hipDevicePrimaryCtxSetFlags", "hipCtxCreate"],
        sources: &[CLR_CONTEXT],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_CONTEXT), hip!(CONTEXT_ALREADY_IN_USE), hip!(INVALID_VALUE)]),
    }

    INIT_006 {
        group: INIT,
        text: "hipDeviceSetLimit: the stack at most 128 KiB − 16 (rounded up to 16) and the heap below the device's \
               memory, else 1; hipLimitPrintfFifoSize and the scratch limits are 215, a value from hipLimitRange on \
               is 1; hipSetDeviceFlags: more than one scheduling flag or an unknown flag is 1.",
        apis: &["hipDeviceSetLimit", "hipDeviceGetLimit", "hipSetDeviceFlags", "hipGetDeviceFlags"],
        sources: &[CLR_DEVICE_RT, CLR_DEV],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE), hip!(UNSUPPORTED_LIMIT)]),
    }

    INIT_007 {
        group: INIT,
        text: "hipDeviceReset releases what the process holds on the current device: its streams (709 afterwards), \
               its allocations and mappings, and the device's flags go back to hipDeviceScheduleSpin.",
        apis: &["hipDeviceReset"],
        sources: &[CLR_DEVICE_RT, CLR_DEVICE],
        confidence: &[Src],
        note: Some("clr Device::Reset: releases the memory pools, destroys all streams, purges the memory objects \
                    of the device and sets the flags back to hipDeviceScheduleSpin"),
        expect: Behaviour,
    }

    INIT_008 {
        group: INIT,
        text: "hipSetValidDevices: 6.x does not implement it (801). 7.x: len 0 is 0; a NULL list, len < 0 or len > \
               the device count is 1; a device out of range is 101; otherwise the first device becomes current, \
               unless the thread has called hipSetDevice.",
        apis: &["hipSetValidDevices"],
        sources: &[CLR_DEVICE_RT, CLR_DEVICE_RT_7],
        confidence: &[Src],
        expect: Codes(&[hip!(NOT_SUPPORTED)]),
        profiles: &[ProfileExpect::new(PROFILE_7, Codes(&[hip!(INVALID_VALUE), hip!(INVALID_DEVICE)]))],
    }

    INIT_009 {
        group: INIT,
        text: "ROCR_VISIBLE_DEVICES (ROCr) chooses and orders the devices first, then HIP_VISIBLE_DEVICES (or \
               CUDA_VISIBLE_DEVICES when it is unset or empty) indexes what is left; the process numbers them from 0. \
               ROCr: set and empty is no device; the first index out of range, repeated or malformed ends the list. \
               clr: an entry that is not the plain decimal spelling of an index in range ends the list; a repeat is \
               skipped. A device's uuid and PCI address stay those of the physical device, and memory shared between \
               processes that see other lists stays on its physical device. With no device left every call is 100.",
        apis: &["hipGetDeviceCount", "hipDeviceGetPCIBusId", "hipDeviceGetUuid", "hipIpcOpenMemHandle"],
        sources: &[CLR_ROCDEVICE, ROCR_FILTER, CLR_INT],
        confidence: &[Src],
        note: Some("ROCm/clr@f9f995c rocclr/device/rocm/rocdevice.cpp:496-541 (the ordinals over the agents ROCr \
                    reports; str_id != std::to_string(index) ends the list, a repeat is skipped); \
                    ROCm/rocm-systems@1b1610fc2 projects/rocr-runtime/runtime/hsa-runtime/core/runtime/\
                    amd_filter_device.cpp:73-89 (tokens, trimmed), :151-198 (strtol base 0; out of range or repeated \
                    ends the list), core/inc/amd_filter_device.h:85, :115-126 (empty: zero devices); hip_internal.hpp:161-164 \
                    (HIP_INIT_API: no device, 100) and hip_device.cpp:385-397. `GPU-` uuids in either list match no \
                    emulated device and end it"),
        expect: Codes(&[hip!(NO_DEVICE)]),
        requires: &[Need::Peers, Need::Devices(3)],
    }

    // ==== 4.2 IPC: hipIpcGetMemHandle ==================================================

    IPC_001 {
        group: IPC,
        text: "hipIpcGetMemHandle: `handle` and `devPtr` must be non-NULL.",
        apis: &["hipIpcGetMemHandle"],
        sources: &[CLR_MEM, T_IPC],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    IPC_002 {
        group: IPC,
        text: "`devPtr` must lie inside a live hipMalloc allocation, half-open; freed memory, host memory and one-past-end are rejected.",
        apis: &["hipIpcGetMemHandle"],
        sources: &[CLR_DEV, T_IPC],
        confidence: &[Src],
        note: Some("5.5+ value; ≤5.4 gave 17. The docs list 400/2/205, which are never returned"),
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    IPC_003 {
        group: IPC,
        text: "An interior pointer is accepted; the handle names the whole allocation.",
        apis: &["hipIpcGetMemHandle"],
        sources: &[CLR_DEV],
        confidence: &[Src],
        note: Some("the docs say \"base pointer\"; the code accepts any address inside"),
        expect: Behaviour,
    }

    IPC_004 {
        group: IPC,
        text: "hipIpcGetMemHandle is cheap and may be repeated on the same allocation.",
        apis: &["hipIpcGetMemHandle"],
        sources: &[HipDoc("hipIpcGetMemHandle")],
        confidence: &[DocTag],
        expect: Codes(&[hip!(SUCCESS)]),
    }

    IPC_005 {
        group: IPC,
        text: "Two hipIpcGetMemHandle calls on the same pointer give byte-identical handles in the emulator; on a \
               real runtime the kernel driver decides.",
        apis: &["hipIpcGetMemHandle"],
        sources: &[UNSETTLED],
        confidence: &[Undetermined],
        note: Some("undetermined: the handle holds ROCr's export of the memory object (device.cpp IpcCreate), whose \
                    bytes the kernel driver chooses; the check judges the emulator and notes what another backend gives"),
        expect: Behaviour,
    }

    IPC_006 {
        group: IPC,
        text: "Freeing and allocating again at the same address gives a different IPC handle.",
        apis: &["hipIpcGetMemHandle", "hipFree", "hipMalloc"],
        sources: &[HipDoc("hipIpcGetMemHandle")],
        confidence: &[DocTag],
        note: Some("the hip-tests case is disabled on some GPUs"),
        expect: Behaviour,
    }

    IPC_007 {
        group: IPC,
        text: "A hipMemMap'ed VMM address is not exportable through hipIpcGetMemHandle.",
        apis: &["hipIpcGetMemHandle"],
        sources: &[CLR_DEV, DEVELOP],
        confidence: &[Undetermined],
        note: Some(
            "undetermined: clr 6.x finds the VMM sub-buffer and hands it to ROCr's IPC export \
             (device.cpp IpcCreate), whose answer for a VMM range the source does not settle; emulator: 1",
        ),
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }


    IPC_008 {
        group: IPC,
        text: "Exporting hipHostMalloc memory, or re-exporting an opened pointer, is not settled; the emulator answers 1.",
        apis: &["hipIpcGetMemHandle", "hipHostMalloc"],
        sources: &[UNSETTLED],
        confidence: &[Undetermined],
        note: Some("tests do not assert it"),
        expect: Observed,
    }

    IPC_009 {
        group: IPC,
        text: "A failed hipIpcGetMemHandle leaves the handle zeroed in the emulator; the real runtime may leave part \
               of it written.",
        apis: &["hipIpcGetMemHandle"],
        sources: &[CLR_MEM, CLR_DEV],
        confidence: &[Src],
        note: Some("IpcCreate writes the size and offset fields before ROCr's export can fail; tests do not read the \
                    handle after a failure, so the check judges the emulator and notes what another backend leaves"),
        expect: Behaviour,
    }

    IPC_010 {
        group: IPC,
        text: "Any allocation size shares: 1 byte and 257 bytes of hipMalloc memory export, open in another \
               process and carry their bytes both ways.",
        apis: &["hipIpcGetMemHandle", "hipIpcOpenMemHandle"],
        sources: &[CLR_DEV, Project("HIP issue #2257 (fixed); ROCm/hrx-system tests")],
        confidence: &[Inferred],
        note: Some("IpcCreate exports the memory object's size as allocated; nothing rounds or refuses a small size"),
        expect: Behaviour,
        requires: PEERS,
    }

    // ==== 4.3 IPC: hipIpcOpenMemHandle =================================================
    IPC_020 {
        group: IPC,
        text: "hipIpcOpenMemHandle: the `devPtr` out-pointer must be non-NULL.",
        apis: &["hipIpcOpenMemHandle"],
        sources: &[CLR_MEM],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    IPC_021 {
        group: IPC,
        text: "`flags` must be the lazy-peer flag, checked before the handle: one's own handle with flags 123 gives 1, not 201.",
        apis: &["hipIpcOpenMemHandle"],
        sources: &[CLR_MEM, HipDoc("hipIpcOpenMemHandle"), T_IPC],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    IPC_022 {
        group: IPC,
        text: "The handle's size field must be non-zero, checked before the pid: an all-zero handle, or one's own with size 0, gives 1.",
        apis: &["hipIpcOpenMemHandle"],
        sources: &[CLR_MEM],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    IPC_023 {
        group: IPC,
        text: "A garbage or uninitialised handle fails.",
        apis: &["hipIpcOpenMemHandle"],
        sources: &[T_IPC],
        confidence: &[Src],
        note: Some("the hip-tests case accepts 1 or 17; the emulator gives 1 without its magic"),
        expect: Codes(&[hip!(INVALID_VALUE), hip!(INVALID_DEVICE_POINTER)]),
    }

    IPC_024 {
        group: IPC,
        text: "A process cannot open its own handle (the pid in bytes 48–51 is its own).",
        apis: &["hipIpcOpenMemHandle"],
        sources: &[CLR_MEM, T_IPC],
        confidence: &[Src],
        note: Some("5.5+; ≤5.4 had no check. CUDA also gives 201"),
        expect: Codes(&[hip!(INVALID_CONTEXT)]),
    }

    IPC_025 {
        group: IPC,
        text: "The token must resolve to a live exported allocation; a forged one fails.",
        apis: &["hipIpcOpenMemHandle"],
        sources: &[CLR_DEV, CLR_MEM],
        confidence: &[Undetermined],
        note: Some(
            "undetermined: clr passes the token to ROCr's hsa_amd_ipc_memory_attach (device.cpp IpcAttach) and \
             answers 17 when it fails; whether a forged token fails there is ROCr's and the kernel's; real clr \
             would probably attach a live one",
        ),
        expect: Codes(&[hip!(INVALID_DEVICE_POINTER)]),
    }

    IPC_026 {
        group: IPC,
        text: "hipIpcOpenMemHandle returns the base of the exporter's allocation, not base plus the offset the handle \
               records: a handle made from ptr+128 opens at element 0.",
        apis: &["hipIpcOpenMemHandle", "hipIpcGetMemHandle"],
        sources: &[CLR_DEV, Project("ROCm/HIP tests/src/ipc/hipMultiProcIpcMem.cpp")],
        confidence: &[Src],
        note: Some("IpcAttach hands back the attached buffer's own address; programs that export interior pointers \
                    send the offset themselves"),
        expect: Behaviour,
        requires: PEERS,
    }


    IPC_027 {
        group: IPC,
        text: "Opening the same handle again in one process returns the same pointer and counts a reference.",
        apis: &["hipIpcOpenMemHandle"],
        sources: &[CLR_DEV, T_IPC],
        confidence: &[Src],
        note: Some("the docs disclaim this; clr's IpcAttach and hip-tests Reference_Counting (ptr1 == ptr2) show it"),
        expect: Codes(&[hip!(SUCCESS)]),
        requires: PEERS,
    }

    IPC_028 {
        group: IPC,
        text: "The imported address is process-local: it may differ from the exporter's and from another importer's.",
        apis: &["hipIpcOpenMemHandle"],
        sources: &[HipDoc("hipIpcOpenMemHandle")],
        confidence: &[DocTag],
        expect: Behaviour,
        requires: PEERS,
    }

    IPC_029 {
        group: IPC,
        text: "Exporter and importer see the same bytes: what either side copies in after the open is what the \
               other reads once the copy has returned.",
        apis: &["hipIpcOpenMemHandle", "hipMemcpy"],
        sources: &[T_IPC],
        confidence: &[Inferred],
        expect: Behaviour,
        requires: PEERS,
    }

    IPC_031 {
        group: IPC,
        text: "The opened memory belongs to the importer's current device (hipPointerGetAttributes.device), which \
               may differ from the exporter's; the importer reads it there.",
        apis: &["hipIpcOpenMemHandle", "hipPointerGetAttributes"],
        sources: &[CLR_MEM],
        confidence: &[Src],
        note: Some("hipIpcOpenMemHandle sets the attached object's device to the current one; peer access is enabled \
                    implicitly (the lazy flag)"),
        expect: Behaviour,
        requires: &[Need::Peers, Need::Devices(2)],
    }

    // ==== 4.4 IPC: close ===============================================================
    IPC_040 {
        group: IPC,
        text: "hipIpcCloseMemHandle: `devPtr` must be non-NULL.",
        apis: &["hipIpcCloseMemHandle"],
        sources: &[CLR_MEM, T_IPC],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    IPC_041 {
        group: IPC,
        text: "`devPtr` must come from hipIpcOpenMemHandle; the exporter's own hipMalloc pointer fails.",
        apis: &["hipIpcCloseMemHandle"],
        sources: &[CLR_DEV, T_IPC],
        confidence: &[Src],
        note: Some("5.5+ value; ≤5.4 gave 400. The docs list 205/400"),
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    IPC_042 {
        group: IPC,
        text: "Each close drops one reference and the memory stays mapped until the last; closing once more than opened fails.",
        apis: &["hipIpcCloseMemHandle"],
        sources: &[CLR_DEV, T_IPC],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
        requires: PEERS,
    }

    IPC_043 {
        group: IPC,
        text: "hipIpcCloseMemHandle also takes an interior pointer of an opened mapping and closes that mapping.",
        apis: &["hipIpcCloseMemHandle"],
        sources: &[CLR_DEV],
        confidence: &[Src],
        note: Some("IpcDetach finds the memory object by range (FindMemObj); the strict mode the reference \
                    mentions (the exact pointer only) is not built"),
        expect: Behaviour,
        requires: PEERS,
    }

    IPC_044 {
        group: IPC,
        text: "After the last close the pointer is unknown to its process: hipPointerGetAttributes answers 0 with \
               device −2 (hipInvalidDeviceId).",
        apis: &["hipIpcCloseMemHandle", "hipPointerGetAttributes"],
        sources: &[CLR_MEM],
        confidence: &[Src],
        note: Some("6.0 on; ≤5.7 answered 1. The hip-tests assertion of 1 is stale"),
        expect: Behaviour,
        requires: PEERS,
    }

    IPC_045 {
        group: IPC,
        text: "hipIpcCloseMemHandle touches only the caller's mapping: the exporter and other importers keep \
               reading and writing the memory.",
        apis: &["hipIpcCloseMemHandle"],
        sources: &[HipDoc("hipIpcCloseMemHandle"), CLR_DEV],
        confidence: &[DocTag],
        expect: Behaviour,
        requires: PEERS,
    }

    IPC_046 {
        group: IPC,
        text: "The exporter's hipFree while an importer has the memory open returns 0; importers keep it until their \
               last close, and a new open fails with 17.",
        apis: &["hipFree", "hipIpcOpenMemHandle"],
        sources: &[HipDoc("hipIpcOpenMemHandle"), CLR_MEM],
        confidence: &[DocTag, Inferred],
        note: Some("the docs call it undefined; tests assert only the exporter's code"),
        expect: Codes(&[hip!(SUCCESS), hip!(INVALID_DEVICE_POINTER)]),
        requires: PEERS,
    }

    IPC_049 {
        group: IPC,
        text: "The handle is plain bytes: any channel carries it between two processes of the same user.",
        apis: &["hipIpcGetMemHandle", "hipIpcOpenMemHandle"],
        sources: &[T_IPC],
        confidence: &[Src],
        expect: Behaviour,
        requires: PEERS,
    }

    // ==== 4.5 VMM ======================================================================

    VMM_001 {
        group: VMM,
        text: "Granularity: out-pointer and prop non-NULL, type Pinned, location Device, 0 ≤ id < count, option 0 or 1.",
        apis: &["hipMemGetAllocationGranularity"],
        sources: &[CLR_VM, T_VMM],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
        equivalents: &[&crate::acl::rules::GRAN_001, &crate::acl::rules::GRAN_005],
    }

    VMM_002 {
        group: VMM,
        text: "Both granularity options answer; AMD GPUs report 4096, develop recommends 2 MiB, so tests query it.",
        apis: &["hipMemGetAllocationGranularity"],
        sources: &[CLR_VM],
        confidence: &[Src],
        expect: Behaviour,
    }

    VMM_003 {
        group: VMM,
        text: "hipMemCreate: handle non-NULL, size > 0, flags 0, prop non-NULL, Pinned (7.x: or Uncached), Device \
               (7.x: or Host), id < count.",
        apis: &["hipMemCreate"],
        sources: &[CLR_VM, CLR_VM_7, T_VMM],
        confidence: &[Src],
        note: Some("profile 6.x: a bad device id is 1; 7.x gives 101, allocates on the current device, and takes \
                    type Uncached and location Host (rocm-systems 804ae76 hip_vm.cpp:75-80)"),
        expect: Codes(&[hip!(INVALID_VALUE)]),
        profiles: &[ProfileExpect::new(PROFILE_7, Codes(&[hip!(INVALID_VALUE), hip!(INVALID_DEVICE)])).note(
            "type Uncached and location Host are accepted (hip_vm.cpp:75-80; Host memory comes from the host \
             context); a device id < 0 or ≥ the count is 101 (checked after the other fields); Device memory is \
             taken on the calling thread's current device and the properties keep location.id",
        )],
        equivalents: &[&crate::acl::rules::MP_001, &crate::acl::rules::MP_002, &crate::acl::rules::MP_003],
    }

    VMM_004 {
        group: VMM,
        text: "hipMemCreate: requestedHandleType must be None or PosixFileDescriptor.",
        apis: &["hipMemCreate"],
        sources: &[CLR_VM],
        confidence: &[Src],
        expect: Codes(&[hip!(NOT_SUPPORTED)]),
    }

    VMM_005 {
        group: VMM,
        text: "hipMemCreate: a size larger than physical memory fails.",
        apis: &["hipMemCreate"],
        sources: &[CLR_VM],
        confidence: &[Src],
        expect: Codes(&[hip!(OUT_OF_MEMORY)]),
        equivalents: &[&crate::acl::rules::MP_015],
    }

    VMM_006 {
        group: VMM,
        text: "hipMemCreate: the size must be a multiple of 2048, not of the granularity.",
        apis: &["hipMemCreate"],
        sources: &[CLR_VM, T_VMM],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    VMM_007 {
        group: VMM,
        text: "hipMemRelease: the handle must be non-NULL.",
        apis: &["hipMemRelease"],
        sources: &[CLR_VM, T_VMM],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
        equivalents: &[&crate::acl::rules::FP_001],
    }

    VMM_008 {
        group: VMM,
        text: "Release while mapped is allowed and deferred: the memory stays usable until the unmap.",
        apis: &["hipMemRelease", "hipMemMap", "hipMemUnmap"],
        sources: &[CLR_VM, T_VMM],
        confidence: &[Src],
        expect: Behaviour,
    }

    VMM_009 {
        group: VMM,
        text: "Releasing a handle that is already gone is undefined (a use after free in the real runtime); the emulator answers 1.",
        apis: &["hipMemRelease"],
        sources: &[UNSETTLED],
        confidence: &[Undetermined],
        note: Some("never run against a real driver"),
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    VMM_010 {
        group: VMM,
        text: "hipMemAddressReserve: ptr non-NULL and flags 0.",
        apis: &["hipMemAddressReserve"],
        sources: &[CLR_VM],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
        equivalents: &[&crate::acl::rules::RSV_001],
    }

    VMM_011 {
        group: VMM,
        text: "hipMemAddressReserve: size > 0 and a granularity multiple, alignment a power of two (0 allowed).",
        apis: &["hipMemAddressReserve"],
        sources: &[CLR_VM, CLR_VM_7, T_VMM],
        confidence: &[Src],
        note: Some("profile 6.x: 2 (hipErrorMemoryAllocation); 7.x and develop give 1; 5.3–6.0 did not check"),
        expect: Codes(&[hip!(OUT_OF_MEMORY)]),
        profiles: &[ProfileExpect::new(PROFILE_7, Codes(&[hip!(INVALID_VALUE)]))],
    }

    VMM_012 {
        group: VMM,
        text: "The reserved pointer is only page aligned (the granularity): `alignment` is checked (HIP-VMM-011) and \
               then dropped, so a larger one is not honoured; `addr` is only a hint.",
        apis: &["hipMemAddressReserve"],
        sources: &[CLR_VM, Rocm("ROCm/clr rocclr/device/rocm/rocdevice.cpp (virtualAlloc)")],
        confidence: &[Src],
        note: Some("virtualAlloc reserves through hsa_amd_vmem_address_reserve without the alignment"),
        expect: Behaviour,
    }

    VMM_013 {
        group: VMM,
        text: "hipMemAddressFree: ptr non-NULL and size > 0; any address inside a reservation frees the whole \
               reservation and returns 0 (size is not compared); an address in no reservation fails.",
        apis: &["hipMemAddressFree"],
        sources: &[CLR_VM, CLR_VM_7],
        confidence: &[Src],
        note: Some("an unknown pointer crashes 6.x and gives 1 in 7.x; emulator: 1"),
        expect: Codes(&[hip!(INVALID_VALUE)]),
        profiles: &[ProfileExpect::crashes(
            PROFILE_6,
            Codes(&[hip!(INVALID_VALUE)]),
            "6.0–6.4: an address in no reservation: virtualFree dereferences the NULL object it did not find",
        )],
        equivalents: &[&crate::acl::rules::REL_001, &crate::acl::rules::REL_002],
    }

    VMM_014 {
        group: VMM,
        text: "hipMemMap: ptr and handle non-NULL, size > 0, offset 0, flags 0.",
        apis: &["hipMemMap"],
        sources: &[CLR_VM, HipDoc("hipMemMap"), T_VMM],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
        equivalents: &[&crate::acl::rules::MAP_001, &crate::acl::rules::MAP_002, &crate::acl::rules::MAP_003, &crate::acl::rules::MAP_004],
    }

    VMM_015 {
        group: VMM,
        text: "hipMemMap: the target lies inside a reservation, is not mapped already, and size ≤ allocation size; \
               handles of several devices may be mapped side by side into one reservation, and a range unmapped \
               may be mapped again with another device's handle.",
        apis: &["hipMemMap"],
        sources: &[CLR_VM, CLR_VM_7, DEVELOP],
        confidence: &[Src],
        note: Some(
            "clr reserves one range for all devices and has no device check in hipMemMap; 6.x returns 0 even \
             when the backend map fails (clr 6.x hip_vm.cpp:263-271, rocvirtual.cpp:2636-2644), which the rule \
             records as the vendor's failure mode; 7.x returns 2 there (rocm-systems 804ae76 hip_vm.cpp:296-299)",
        ),
        expect: Codes(&[hip!(INVALID_VALUE)]),
        profiles: &[
            ProfileExpect::crashes(
                PROFILE_6,
                Codes(&[hip!(INVALID_VALUE)]),
                "6.x: a refused map returns 0 with nothing mapped (the map command's status is dropped, \
                 hip_vm.cpp:263-271, rocvirtual.cpp:2636-2644): the program goes on with an unmapped range; the \
                 emulator answers 1 instead",
            ),
            ProfileExpect::new(PROFILE_7, Codes(&[hip!(OUT_OF_MEMORY)]))
                .note("a refused virtualMap is hipErrorOutOfMemory (hip_vm.cpp:296-299)"),
        ],
        equivalents: &[&crate::acl::rules::MAP_009],
    }

    VMM_016 {
        group: VMM,
        text: "A partial map (size < allocation size) maps the first `size` bytes, into part of a larger reservation.",
        apis: &["hipMemMap"],
        sources: &[T_VMM],
        confidence: &[Src],
        expect: Behaviour,
    }

    VMM_017 {
        group: VMM,
        text: "One handle may be mapped at several addresses, which alias.",
        apis: &["hipMemMap"],
        sources: &[T_VMM],
        confidence: &[Src],
        expect: Behaviour,
    }

    VMM_018 {
        group: VMM,
        text: "hipMemUnmap: ptr non-NULL and size > 0.",
        apis: &["hipMemUnmap"],
        sources: &[CLR_VM, T_VMM],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
        equivalents: &[&crate::acl::rules::UNMAP_001],
    }

    VMM_019 {
        group: VMM,
        text: "hipMemUnmap: ptr starts a mapping and size covers whole consecutive mappings (7.x: else 1); 6.x \
               answers 0 to a partial or interior unmap and unmaps nothing.",
        apis: &["hipMemUnmap"],
        sources: &[CLR_VM, CLR_VM_7, ROCR],
        confidence: &[Src],
        note: Some("6.x: ROCr refuses the partial unmap and clr drops its status; 7.x checks the coverage itself"),
        expect: Codes(&[hip!(INVALID_VALUE), hip!(SUCCESS)]),
        profiles: &[
            ProfileExpect::crashes(
                PROFILE_6,
                Codes(&[hip!(INVALID_VALUE), hip!(SUCCESS)]),
                "6.0–6.4: an address no mapping contains: the NULL object it did not find is dereferenced; an \
                 interior pointer with the whole mapping's size unmaps the whole mapping and then aborts \
                 (device.cpp:324-328)",
            )
            .note("a partial or interior unmap returns 0 and unmaps nothing (clr also drops a handle reference)"),
            ProfileExpect::new(PROFILE_7, Codes(&[hip!(INVALID_VALUE)]))
                .note("a partial or interior unmap is 1 (ValidateSubBufferCoverage)"),
        ],
        equivalents: &[&crate::acl::rules::UNMAP_002],
    }

    VMM_020 {
        group: VMM,
        text: "After hipMemUnmap the range is a plain reservation: it maps again, and its access must be set again \
               (hipMemGetAccess reads 0 until then).",
        apis: &["hipMemUnmap", "hipMemMap", "hipMemGetAccess", "hipMemSetAccess"],
        sources: &[HipDoc("hipMemUnmap"), CLR_VM],
        confidence: &[DocTag],
        note: Some("clr unmaps through ROCr (hsa_amd_vmem_unmap), which drops the range's access with the mapping"),
        expect: Behaviour,
    }

    VMM_021 {
        group: VMM,
        text: "hipMemSetAccess: ptr, size, desc and count set, device ids in range, the range mapped; 7.x also \
               refuses flags other than 0, 1 and 3, where 6.x passes flags 2 on and maps write-only.",
        apis: &["hipMemSetAccess"],
        sources: &[CLR_VM, CLR_VM_7, T_VMM],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
        profiles: &[
            ProfileExpect::new(PROFILE_6, Codes(&[hip!(INVALID_VALUE)]))
                .note("flags 2 (write-only) is passed to ROCr and granted: 0, and hipMemGetAccess reads 2"),
            ProfileExpect::new(PROFILE_7, Codes(&[hip!(INVALID_VALUE)])).note("flags 2 is 1"),
        ],
        equivalents: &[&crate::acl::rules::ACC_001, &crate::acl::rules::ACC_002],
    }

    VMM_022 {
        group: VMM,
        text: "hipMemGetAccess: pointers non-NULL, a Device location in range, ptr inside a mapping; granted flags read back.",
        apis: &["hipMemGetAccess"],
        sources: &[CLR_VM, T_VMM],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
        equivalents: &[&crate::acl::rules::ACC_009, &crate::acl::rules::ACC_010],
    }

    VMM_023 {
        group: VMM,
        text: "hipMemcpy into mapped memory with no access set returns no error on AMD (CUDA gives 1).",
        apis: &["hipMemcpy", "hipMemSetAccess"],
        sources: &[CLR_VM, T_VMM],
        confidence: &[Src],
        expect: Behaviour,
    }

    VMM_024 {
        group: VMM,
        text: "Export: flags 0, handle non-NULL, out-pointer non-NULL, handleType the allocation's requestedHandleType.",
        apis: &["hipMemExportToShareableHandle"],
        sources: &[CLR_VM, T_VMM],
        confidence: &[Src],
        note: Some("a NULL out-pointer crashes 6.x; 7.x and the emulator give 1"),
        expect: Codes(&[hip!(INVALID_VALUE)]),
        profiles: &[ProfileExpect::crashes(
            PROFILE_6,
            Codes(&[hip!(INVALID_VALUE)]),
            "6.2–6.4: a NULL out-pointer is written through by the ROCr export",
        )],
        equivalents: &[&crate::acl::rules::EXP_001],
    }

    VMM_025 {
        group: VMM,
        text: "Export writes a 4-byte int fd, which the caller owns; only the low 4 bytes of the slot are written.",
        apis: &["hipMemExportToShareableHandle"],
        sources: &[CLR_VM, T_VMM],
        confidence: &[Src],
        expect: Behaviour,
    }

    VMM_026 {
        group: VMM,
        text: "hipMemImportFromShareableHandle takes the fd as a pointer to an int (6.2 to mid-2025) or as its value cast \
               to void* (develop); the emulator accepts both: a value below 2^20 is an fd, anything else an int*.",
        apis: &["hipMemImportFromShareableHandle"],
        sources: &[CLR_DEV, Rocm("ROCm/rocm-systems PR #1564")],
        confidence: &[Src],
        note: Some("the release that switched is undetermined (7.0 to 7.2)"),
        expect: Behaviour,
        requires: PEERS,
    }

    VMM_027 {
        group: VMM,
        text: "Import: handle and osHandle non-NULL; an fd that is not an exported allocation fails.",
        apis: &["hipMemImportFromShareableHandle"],
        sources: &[CLR_VM],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
        equivalents: &[&crate::acl::rules::IMP_001],
    }

    VMM_028 {
        group: VMM,
        text: "Importing in the exporting process is allowed (ACL forbids it, ACL-IMP-009).",
        apis: &["hipMemImportFromShareableHandle"],
        sources: &[T_VMM],
        confidence: &[Src],
        expect: Behaviour,
    }

    VMM_029 {
        group: VMM,
        text: "An imported handle works like a created one; its properties are Pinned on {Device, the importer's \
               current device}.",
        apis: &["hipMemImportFromShareableHandle", "hipMemGetAllocationPropertiesFromHandle"],
        sources: &[CLR_VM, T_VMM],
        confidence: &[Src],
        note: Some("6.3 leaves the imported handle's requestedHandleType 0; the emulator reports the import's type, \
                    which the check does not judge"),
        expect: Behaviour,
        requires: &[Need::Devices(2)],
    }

    VMM_030 {
        group: VMM,
        text: "An exporter may release and close its fd right after sending; the importer's handle and mappings keep the \
               memory alive until every handle, fd and mapping is gone.",
        apis: &["hipMemRelease", "hipMemImportFromShareableHandle"],
        sources: &[T_VMM, Project("CUDA docs (cuMemRelease)")],
        confidence: &[Inferred],
        expect: Behaviour,
        requires: PEERS,
    }

    VMM_032 {
        group: VMM,
        text: "hipMemGetAllocationPropertiesFromHandle: prop and handle non-NULL; returns the creation properties.",
        apis: &["hipMemGetAllocationPropertiesFromHandle"],
        sources: &[CLR_VM, T_VMM],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    VMM_033 {
        group: VMM,
        text: "hipMemRetainAllocationHandle: out-pointer and addr non-NULL, addr inside a VMM mapping; returns the same handle.",
        apis: &["hipMemRetainAllocationHandle"],
        sources: &[CLR_VM, T_VMM],
        confidence: &[Src],
        note: Some("a hipMalloc address crashes 6.x and gives 1 in 7.x; emulator: 1"),
        expect: Codes(&[hip!(INVALID_VALUE)]),
        profiles: &[
            ProfileExpect::crashes(
                PROFILE_6,
                Codes(&[hip!(INVALID_VALUE)]),
                "6.2–6.4: a hipMalloc address: its NULL physical object is dereferenced",
            )
            .note("takes no reference: the handle is not released for the retain"),
            ProfileExpect::new(PROFILE_7, Codes(&[hip!(INVALID_VALUE)]))
                .note("takes a reference, released by one more hipMemRelease"),
        ],
        equivalents: &[&crate::acl::rules::RET_001],
    }

    // ==== Copies =============================================================
    CPY_001 {
        group: CPY,
        text: "hipMemcpy, hipMemcpyHtoD, hipMemcpyDtoH: a kind other than HostToHost and Default needs at least one \
               pointer that is memory HIP allocated, mapped or opened in this process; the other is taken for what its \
               address is.",
        apis: &["hipMemcpy", "hipMemcpyHtoD", "hipMemcpyDtoH"],
        sources: &[CLR_MEM],
        confidence: &[Src],
        note: Some(
            "clr hip_memory.cpp IsHtoHMemcpyValid (called by ihipMemcpy_validate); an unknown pointer next to a known \
             one is host memory to clr, so a stray one there is dereferenced as on AMD hardware",
        ),
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    CPY_002 {
        group: CPY,
        text: "hipMemcpy, hipMemcpyHtoD, hipMemcpyDtoH: a host-side address taken for no memory (the low 64 KiB, \
               such as 0x1000, or past the user address space) is refused, not dereferenced.",
        apis: &["hipMemcpy", "hipMemcpyHtoD", "hipMemcpyDtoH"],
        sources: &[UNSETTLED],
        confidence: &[Undetermined],
        note: Some("clr copies host to host with memcpy, which faults; the emulator answers 1"),
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    CPY_003 {
        group: CPY,
        text: "hipDrvMemcpy2DUnaligned copies as hipMemcpyParam2D: the same answer for the same descriptor (a NULL \
               side: 1), and the rectangle copied when it succeeds. A device side is the memory object at its \
               pointer: the rectangle from its origin must end within it, else 1 (hipDrvMemcpy3D too).",
        apis: &["hipDrvMemcpy2DUnaligned", "hipMemcpyParam2D"],
        sources: &[CLR_MEM],
        confidence: &[Src],
        note: Some("ROCm/clr@fa1d09c hipamd/src/hip_memory.cpp:4251-4257 (the 3-D descriptor of the 2-D one, then \
                    ihipMemcpyParam3D on the null stream, as hipMemcpyParam2D's ihipMemcpyParam2D, :2454-2460, :2494-2498); \
                    :1765-1804 (ihipMemcpyDtoDValidate: getMemoryObject of the pointer, then validateRegion of the \
                    rectangle from the origin; DtoH :1839, HtoD :1918 alike); hip-tests \
                    Unit_hipDrvMemcpy2DUnaligned_FuncTst, _NegTst"),
        expect: Behaviour,
    }

    CPY_004 {
        group: CPY,
        text: "A synchronous hipMemcpy between device memory (not fine-grained) of one device does not wait for the \
               copy: it is queued on the NULL stream, and a blocking stream's earlier work is not waited for on the \
               host. hipMemcpyPeer between memory HIP knows does not wait either, but for two sides of one device \
               that are not both device memory. A copy with a host side, or between devices by hipMemcpy, waits. \
               hipMemcpy_spt decides alike, on the calling thread's default stream.",
        apis: &["hipMemcpy", "hipMemcpyPeer", "hipMemcpy_spt", "hipStreamQuery"],
        sources: &[CLR_MEM, CLR_PEER, T_COPY_SYNC],
        confidence: &[Src],
        note: Some("ROCm/clr@fa1d09c hipamd/src/hip_memory.cpp:586-601 (ihipMemcpy: one side unknown → isHostAsync \
                    false; both on one device and both device memory → true), :608-610 (finish only when not \
                    isHostAsync), hipamd/src/hip_peer.cpp:199-200 (hipMemcpyPeer passes isHostAsync true); hip-tests \
                    Unit_hipMemcpyPeer_Positive_Synchronization_Behavior, Unit_hipPointerSetAttribute_Positive_SyncMemops \
                    (its first half). ihipMemcpy does not read SYNC_MEMOPS; hipMemcpy_spt (:717-720) calls \
                    hipMemcpy_common (:695-710) with the per-thread stream"),
        expect: Behaviour,
    }

    CPY_005 {
        group: CPY,
        text: "A synchronous 2-D or 3-D copy (hipMemcpy2D, hipMemcpy3D, hipMemcpyParam2D, hipDrvMemcpy3D) whose two \
               sides are device memory does not wait for the copy: it is queued on the NULL stream. A side is device \
               memory when its descriptor types it so (hipMemcpyDeviceToDevice), or types it unified \
               (hipMemcpyDefault) and the pointer is memory HIP allocated that is neither fine-grained nor host \
               memory. A copy with a host or array side waits. hipMemcpy2D_spt and hipMemcpy3D_spt decide alike, on \
               the calling thread's default stream.",
        apis: &["hipMemcpy2D", "hipMemcpy3D", "hipMemcpyParam2D", "hipDrvMemcpy3D", "hipMemcpy2D_spt", "hipStreamQuery"],
        sources: &[CLR_MEM, T_PARAM2D_SYNC],
        confidence: &[Src],
        note: Some("ROCm/clr@fa1d09c hipamd/src/hip_memory.cpp:2380-2391 (ihipMemcpyParam3D: a host destination, or \
                    host on both sides, waits; device on both sides of the descriptor → isAsync), :2336-2337 \
                    (ihipMemcpyCmdEnqueue finishes the queue only when not isAsync), :2056-2092 \
                    (ihipCopyMemParamSet: a unified side takes the memory object's type), :66-73 (getMemoryType: \
                    device unless fine-grained or host memory), :2407-2437 (ihipMemcpy2D: the types from the kind, \
                    hip_conversions.hpp:598-612); hip-tests Unit_hipMemcpyParam2D_Positive_Synchronization_Behavior \
                    (Device to Device). hipMemcpy2D_spt (:2566-2571) and hipMemcpy3D_spt (:3096-3099) pass the \
                    per-thread stream to the same common functions"),
        expect: Behaviour,
    }

    // ==== Processes forked after initialisation ===========================

    FORK_001 {
        group: "hip.fork",
        text: "A process forked after the parent initialised HIP must not call HIP (undefined behaviour or initialization \
               failures); the emulator refuses every call in such a child with hipErrorNotInitialized (3).",
        apis: &["hipInit", "hipMalloc", "hipMemCreate", "hipMemImportFromShareableHandle", "hipMemRelease"],
        sources: &[
            HipDoc("hipInit, note on fork()"),
            Project("ROCm/rocm-systems PR #7039 (HIP fails in a child forked after initialisation)"),
            Rocm("ROCm/clr rocclr/platform/runtime.cpp (teardown skipped in a forked child)"),
        ],
        confidence: &[DocTag, Undetermined],
        note: Some("documented as undefined or an initialization failure, no code: 3 is the emulator's choice"),
        expect: Codes(&[hip!(NOT_INITIALIZED)]),
        equivalents: &[&crate::acl::rules::FORK_001],
        requires: PEERS,
    }

    // ==== Stream-ordered memory pools, profile 6.x: clr 6.3 ================
    POOL_001 {
        group: POOL,
        text: "hipMemPoolCreate: `mem_pool` and `pool_props` non-NULL, `allocType` Pinned, `location` a device \
               (type Device, id below the device count); each failure is 1.",
        apis: &["hipMemPoolCreate"],
        sources: &[CLR_POOL],
        confidence: &[Src],
        note: Some("hip_mempool.cpp:294-311 hipMemPoolCreate; a negative id converts to SIZE_MAX in clr's unsigned compare with the device count and is refused with 1 like any id too large"),
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    POOL_002 {
        group: POOL,
        text: "hipMemPoolDestroy: NULL, a value that is no live pool, and a device's default pool are refused with 1.",
        apis: &["hipMemPoolDestroy"],
        sources: &[CLR_POOL],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    POOL_003 {
        group: POOL,
        text: "hipDeviceGetDefaultMemPool: a NULL out-pointer is 1, a device outside 0..count is 101.",
        apis: &["hipDeviceGetDefaultMemPool"],
        sources: &[CLR_POOL],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE), hip!(INVALID_DEVICE)]),
    }

    POOL_004 {
        group: POOL,
        text: "hipDeviceSetMemPool: a NULL pool or a device at or past the count is 1; a pool of another device is 101.",
        apis: &["hipDeviceSetMemPool"],
        sources: &[CLR_POOL],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE), hip!(INVALID_DEVICE)]),
    }

    POOL_005 {
        group: POOL,
        text: "hipDeviceGetMemPool: a NULL out-pointer or a device at or past the count is 1; it gives the default \
               pool until hipDeviceSetMemPool, then the pool set, and the default again once that pool is destroyed.",
        apis: &["hipDeviceGetMemPool", "hipDeviceSetMemPool", "hipMemPoolDestroy"],
        sources: &[CLR_POOL],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    POOL_006 {
        group: POOL,
        text: "hipMallocAsync, hipMallocFromPoolAsync: a NULL `dev_ptr` (or pool) is 1, a stream that is not one is \
               400; size 0 succeeds with *dev_ptr NULL.",
        apis: &["hipMallocAsync", "hipMallocFromPoolAsync"],
        sources: &[CLR_POOL],
        confidence: &[Src],
        note: Some("the emulator has no streams yet: NULL, hipStreamLegacy (1) and hipStreamPerThread (2) are the valid ones"),
        expect: Codes(&[hip!(INVALID_VALUE), hip!(INVALID_HANDLE)]),
    }

    POOL_007 {
        group: POOL,
        text: "hipFreeAsync: NULL is 1, a stream that is not one is 400, an address no allocation holds is 1, and so \
               is a pool block freed already (clr releases it from the free heap, then finds no memory object).",
        apis: &["hipFreeAsync"],
        sources: &[CLR_POOL],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE), hip!(INVALID_HANDLE)]),
    }

    POOL_008 {
        group: POOL,
        text: "hipMemPoolSetAttribute, hipMemPoolGetAttribute: NULL pool or value, an unknown attribute, setting \
               ReservedMemCurrent or UsedMemCurrent, and setting a high-water mark to other than 0 are 1.",
        apis: &["hipMemPoolSetAttribute", "hipMemPoolGetAttribute"],
        sources: &[CLR_POOL, CLR_POOL_IMPL],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    POOL_009 {
        group: POOL,
        text: "A pool counts what it holds: after an allocation of n bytes UsedMemCurrent and ReservedMemCurrent are n; \
               after its free Used is 0 and Reserved stays n until hipMemPoolTrimTo(0) (or a synchronisation, \
               HIP-POOL-021); the high-water marks stay until set to 0, and then read 0, memory held or not, until \
               the next allocation; the reuse flags read 1 and the release threshold 0 by default.",
        apis: &["hipMallocFromPoolAsync", "hipFreeAsync", "hipMemPoolTrimTo", "hipMemPoolGetAttribute"],
        sources: &[CLR_POOL_IMPL],
        confidence: &[Src],
        note: Some("clr counts the size asked for; a free goes to the free heap, released by TrimTo, a \
                    synchronisation (HIP-POOL-021), reuse or the pool's destruction"),
        expect: Behaviour,
    }

    POOL_010 {
        group: POOL,
        text: "hipMemPoolSetAccess: NULL pool or list is 1; a count above the device count, a device id at or past \
               it, and ProtNone are 101; flags above ReadWrite and a location that is not a device are 1.",
        apis: &["hipMemPoolSetAccess"],
        sources: &[CLR_POOL],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE), hip!(INVALID_DEVICE)]),
    }

    POOL_011 {
        group: POOL,
        text: "hipMemPoolGetAccess: NULL arguments and a location that is not a device below the count are 1; the \
               pool's device reads ReadWrite, another device None until hipMemPoolSetAccess grants it.",
        apis: &["hipMemPoolGetAccess", "hipMemPoolSetAccess"],
        sources: &[CLR_POOL, CLR_POOL_IMPL],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    POOL_012 {
        group: POOL,
        text: "hipMemPoolTrimTo: a NULL pool is 1.",
        apis: &["hipMemPoolTrimTo"],
        sources: &[CLR_POOL],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    POOL_013 {
        group: POOL,
        text: "hipMemPoolExportToShareableHandle: NULL pool or out-pointer, flags other than 0, and a handle type \
               other than the pool's (or None) are 1; a PosixFileDescriptor pool writes an int fd.",
        apis: &["hipMemPoolExportToShareableHandle"],
        sources: &[CLR_POOL],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    POOL_014 {
        group: POOL,
        text: "hipMemPoolImportFromShareableHandle: NULL out or handle, flags other than 0 and type None are 1; the \
               handle is the fd value cast to a pointer; one that does not open is 2.",
        apis: &["hipMemPoolImportFromShareableHandle"],
        sources: &[CLR_POOL],
        confidence: &[Src],
        note: Some("clr passes the fd on to amd::Os::OpenIpcMemory, a failure there is hipErrorOutOfMemory"),
        expect: Codes(&[hip!(INVALID_VALUE), hip!(OUT_OF_MEMORY)]),
    }

    POOL_015 {
        group: POOL,
        text: "hipMemPoolExportPointer: NULL arguments are 1; an address no allocation holds is 2.",
        apis: &["hipMemPoolExportPointer"],
        sources: &[CLR_POOL],
        confidence: &[Src],
        note: Some("clr exports any allocation it finds (IpcCreate), not only pool memory"),
        expect: Codes(&[hip!(INVALID_VALUE), hip!(OUT_OF_MEMORY)]),
    }

    POOL_016 {
        group: POOL,
        text: "hipMemPoolImportPointer: NULL arguments are 1; export data that names no allocation (all zero) is 2.",
        apis: &["hipMemPoolImportPointer"],
        sources: &[CLR_POOL],
        confidence: &[Src, Inferred, Undetermined],
        note: Some("a failed IpcAttach is hipErrorOutOfMemory; whether ROCr refuses a zero handle is ROCr's"),
        expect: Codes(&[hip!(INVALID_VALUE), hip!(OUT_OF_MEMORY)]),
    }

    POOL_017 {
        group: POOL,
        text: "Across processes: a pool exported as a POSIX fd is imported in another process, a pointer's export \
               data imported into that pool maps the same memory (writes are seen both ways), and the importer frees \
               it with hipFreeAsync or hipFree.",
        apis: &[
            "hipMemPoolExportToShareableHandle",
            "hipMemPoolImportFromShareableHandle",
            "hipMemPoolExportPointer",
            "hipMemPoolImportPointer",
            "hipFreeAsync",
        ],
        sources: &[CLR_POOL, HipDoc("hipMemPoolImportPointer")],
        confidence: &[Src],
        expect: Behaviour,
        requires: PEERS,
    }

    POOL_018 {
        group: POOL,
        text: "Across processes: when the exporter frees (and trims) an allocation an importer has open, the importer's \
               mapping stays readable until it frees it.",
        apis: &["hipFreeAsync", "hipMemPoolTrimTo", "hipMemPoolImportPointer"],
        sources: &[CLR_POOL_IMPL, HipDoc("hipMemPoolImportPointer")],
        confidence: &[Undetermined],
        note: Some("the docs ask importers to free first; clr keeps the block in the exporter's free heap, and after \
                    a trim the importer's attach is ROCr's and KFD's to keep. The emulator keeps it; a process that does \
                    not hold the freed block can no longer import it (2)"),
        expect: Behaviour,
        requires: PEERS,
    }

    POOL_019 {
        group: POOL,
        text: "hipDeviceGetAttribute: MemoryPoolsSupported (88) is 1 and MemoryPoolSupportedHandleTypes (91) includes \
               PosixFileDescriptor (1).",
        apis: &["hipDeviceGetAttribute"],
        sources: &[Rocm("ROCm/clr hipamd/src/hip_device_runtime.cpp")],
        confidence: &[Src],
        note: Some("HIP_MEM_POOL_SUPPORT is 1 on Linux builds"),
        expect: Behaviour,
    }

    POOL_020 {
        group: POOL,
        text: "hipMemPoolImportPointer in the process that exported the pointer (its pool imported from its own \
               export) succeeds: the pointer maps the same memory at an address of its own (writes through either \
               are seen through the other); a repeated import returns the same address; hipFreeAsync gives it back.",
        apis: &["hipMemPoolImportPointer", "hipMemPoolImportFromShareableHandle", "hipMemPoolExportPointer"],
        sources: &[CLR_POOL, CLR_DEV, T_POOL_SHARE],
        confidence: &[Src, Inferred],
        note: Some("ROCm/clr@f9f995c hipamd/src/hip_mempool.cpp:464-483 (IpcAttach on the pool's device, no check of \
                    the exporting process), rocclr/device/device.cpp:986-1017 (Device::IpcAttach: a new IpcBuffer, or \
                    the existing object when the attach lands on a known address); ROCm/rocm-systems@1b1610fc2 \
                    projects/rocr-runtime/runtime/hsa-runtime/core/runtime/runtime.cpp:1382-1509 (IPCAttach imports \
                    the dma-buf again: a new address). hip-tests Unit_hipMemPoolExportToShareableHandle_SameProc \
                    (HIP_VERSION >= 6.2) expects success; that the address differs from the exporter's is inferred"),
        expect: Behaviour,
    }

    POOL_021 {
        group: POOL,
        text: "A synchronisation gives freed pool memory back: after hipStreamSynchronize (of any stream, or NULL), \
               hipEventSynchronize or hipDeviceSynchronize, and the device waits of hipFree and hipHostUnregister, each \
               pool of that device (of the stream, the event, the current device, the memory) releases its freed \
               blocks whose free its stream has passed, smallest first, until it holds at most its release threshold \
               (0 by default): ReservedMemCurrent drops by their size and their addresses name no memory \
               (hipMemPtrGetInfo is 1). A block freed on a stream whose earlier work has not run stays, and so does \
               what the threshold keeps; hipMemPoolTrimTo also leaves a block whose free has not been passed.",
        apis: &[
            "hipStreamSynchronize",
            "hipEventSynchronize",
            "hipDeviceSynchronize",
            "hipFreeAsync",
            "hipMemPoolTrimTo",
            "hipMemPoolSetAttribute",
        ],
        sources: &[CLR_STREAM, CLR_EVENT, CLR_DEVICE, CLR_DEVICE_RT, CLR_POOL_IMPL, T_PROC_MEMORY],
        confidence: &[Src],
        note: Some("ROCm/clr@fa1d09c hipamd/src/hip_stream.cpp:351-354, :363-367 (hipStreamSynchronize: \
                    ReleaseFreedMemory of the current device after NULL, of the stream's device otherwise), \
                    hipamd/src/hip_event.cpp:449-451 (hipEventSynchronize, the event's device), \
                    hipamd/src/hip_device.cpp:113-119, :255-286 (every pool of the device; SyncAllStreams ends with it), \
                    hipamd/src/hip_device_runtime.cpp:617-622 (hipDeviceSynchronize), hipamd/src/hip_memory.cpp:77-79, \
                    :1293-1295 (hipFree, hipHostUnregister wait with SyncAllStreams), \
                    hipamd/src/hip_mempool_impl.cpp:133-146, :319-323 (the free heap, ordered by size, \
                    hip_mempool_impl.hpp:102, down to the release threshold, skipping blocks whose marker has not \
                    retired), :113-130, :333-337 (TrimTo skips them too), :280-294 (hipFreeAsync puts a marker on its \
                    stream). hip-tests \
                    Unit_hipGetProcAddress_MemoryApisStreamOrderedMemory (hipMemPtrGetInfo of a block freed with \
                    hipFreeAsync is 1 after hipStreamSynchronize)"),
        expect: Behaviour,
    }

    // ==== Streams, events and IPC events ====================================

    STM_001 {
        group: STM,
        text: "hipStreamCreate, hipStreamCreateWithFlags and hipStreamCreateWithPriority: a NULL stream pointer is 1; \
               flags other than hipStreamDefault (0) and hipStreamNonBlocking (1) are 1.",
        apis: &["hipStreamCreate", "hipStreamCreateWithFlags", "hipStreamCreateWithPriority"],
        sources: &[CLR_STREAM],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    STM_002 {
        group: STM,
        text: "Priorities: hipDeviceGetStreamPriorityRange gives least 1 and greatest -1; a priority is clamped to \
               that range; hipStreamGetPriority of the NULL stream is 0.",
        apis: &["hipDeviceGetStreamPriorityRange", "hipStreamCreateWithPriority", "hipStreamGetPriority"],
        sources: &[CLR_STREAM, Rocm("ROCm/clr hipamd/src/hip_internal.hpp")],
        confidence: &[Src],
        expect: Behaviour,
    }

    STM_003 {
        group: STM,
        text: "hipStreamDestroy: NULL and hipStreamPerThread are 400; a destroyed stream is 709.",
        apis: &["hipStreamDestroy"],
        sources: &[CLR_STREAM],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_HANDLE), hip!(CONTEXT_IS_DESTROYED)]),
    }

    STM_004 {
        group: STM,
        text: "hipStreamSynchronize, hipStreamQuery, hipStreamGetFlags, hipStreamGetPriority, hipStreamAddCallback and \
               hipLaunchHostFunc on a destroyed stream are 709; hipStreamGetFlags with a NULL stream or NULL flags, \
               and hipStreamGetPriority with NULL priority, are 1.",
        apis: &["hipStreamSynchronize", "hipStreamQuery", "hipStreamGetFlags", "hipStreamGetPriority", "hipStreamAddCallback"],
        sources: &[CLR_STREAM],
        confidence: &[Src],
        expect: Codes(&[hip!(CONTEXT_IS_DESTROYED), hip!(INVALID_VALUE)]),
    }

    STM_005 {
        group: STM,
        text: "hipStreamQuery is 600 while work enqueued on the stream has not run, and 0 once it has.",
        apis: &["hipStreamQuery"],
        sources: &[CLR_STREAM],
        confidence: &[Src],
        expect: Codes(&[hip!(NOT_READY)]),
    }

    STM_006 {
        group: STM,
        text: "hipStreamWaitEvent: a NULL event or a destroyed stream is 400; flags other than 0 are 1; an event never \
               recorded is no wait; work enqueued after the wait runs after the event's record.",
        apis: &["hipStreamWaitEvent"],
        sources: &[CLR_STREAM, CLR_EVENT],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_HANDLE), hip!(INVALID_VALUE)]),
    }

    STM_007 {
        group: STM,
        text: "hipStreamAddCallback: a NULL callback or flags other than 0 are 1; hipLaunchHostFunc: a NULL function \
               is 1. The function runs after the work enqueued before it (a callback with status 0).",
        apis: &["hipStreamAddCallback", "hipLaunchHostFunc"],
        sources: &[CLR_STREAM],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    STM_008 {
        group: STM,
        text: "Work on a stream made with hipStreamDefault runs after the NULL stream's earlier work and the NULL \
               stream's after its earlier work, so a hipMemcpy (NULL stream) reads what an earlier copy on such a \
               stream wrote, and hipStreamSynchronize(NULL) waits for it.",
        apis: &["hipStreamCreate", "hipMemcpyAsync", "hipMemcpy", "hipStreamSynchronize"],
        sources: &[CLR_DEVICE, HipDoc("hipStreamCreateWithFlags")],
        confidence: &[Src],
        note: Some("clr: Device::WaitActiveStreams before a NULL-stream command; hipStreamNonBlocking streams are left out"),
        expect: Behaviour,
    }

    STM_009 {
        group: STM,
        text: "hipMemcpyAsync, hipMemcpyHtoDAsync, hipMemcpyDtoHAsync, hipMemcpyDtoDAsync and hipMemcpyPeerAsync on a \
               destroyed stream are 709.",
        apis: &["hipMemcpyAsync", "hipMemcpyHtoDAsync", "hipMemcpyDtoHAsync", "hipMemcpyDtoDAsync", "hipMemcpyPeerAsync"],
        sources: &[CLR_MEM, Rocm("ROCm/clr hipamd/src/hip_peer.cpp")],
        confidence: &[Src],
        note: Some("clr's hipMemset*Async do not check the stream (ihipMemset); the emulator answers 709 there too"),
        expect: Codes(&[hip!(CONTEXT_IS_DESTROYED)]),
    }

    STM_010 {
        group: STM,
        text: "Async copies and fills run on their stream: after hipStreamSynchronize, hipMemcpyAsync, \
               hipMemcpyDtoDAsync, hipMemsetAsync, hipMemsetD16Async and hipMemsetD32Async have written what they \
               name (D16 and D32 fill 2- and 4-byte elements).",
        apis: &["hipMemcpyAsync", "hipMemcpyDtoDAsync", "hipMemsetAsync", "hipMemsetD16Async", "hipMemsetD32Async"],
        sources: &[CLR_MEM],
        confidence: &[Src],
        expect: Behaviour,
    }

    STM_011 {
        group: STM,
        text: "hipMemcpyAsync with a host side HIP does not know (pageable memory, not hipHostMalloc'd or \
               registered) returns only once its stream has run the copy, so the stream is idle when it returns; with \
               hipHostMalloc memory it returns at once and the copy runs on the stream.",
        apis: &["hipMemcpyAsync", "hipStreamQuery"],
        sources: &[CLR_MEM],
        confidence: &[Src],
        note: Some("clr ihipMemcpy: a copy with one side no memory object sets isHostAsync = false and then waits for \
                    the queue (command->queue()->finish())"),
        expect: Behaviour,
    }

    STM_012 {
        group: STM,
        text: "hipStreamWaitValue32/64, hipStreamWriteValue32/64 and hipStreamBatchMemOp: a NULL ptr, an address that \
               is no memory HIP allocated, or a wait flag other than Gte, Eq, And and Nor is 1. A wait holds the later \
               work of its stream until `*ptr & mask` compares true with the value; a write on another stream \
               releases it.",
        apis: &["hipStreamWaitValue32", "hipStreamWaitValue64", "hipStreamWriteValue32", "hipStreamWriteValue64"],
        sources: &[CLR_STREAM_OPS, HipDoc("hipStreamWaitValue32")],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    STM_013 {
        group: STM,
        text: "hipStreamQuery(NULL) answers for the NULL stream and the blocking streams of the current device: while \
               a blocking stream (hipStreamDefault) has work that has not run, it is hipErrorNotReady; a non-blocking \
               stream's work, and hipStreamQuery(hipStreamPerThread), do not count.",
        apis: &["hipStreamQuery", "hipStreamCreateWithFlags"],
        sources: &[CLR_STREAM, CLR_DEVICE, T_STREAM_FLAGS],
        confidence: &[Src],
        note: Some("ROCm/clr@fa1d09c hipamd/src/hip_stream.cpp:516-517 (the NULL stream is got with wait = true), \
                    hipamd/src/hip_device.cpp:34-46 (NullStream(wait) calls WaitActiveStreams), :158-200 (a marker on \
                    the NULL stream that waits for the last command of every stream without hipStreamNonBlocking), \
                    then hip_stream.cpp:525-543 query that marker; hip-tests \
                    Unit_hipStreamCreateWithFlags_DefaultStreamInteraction"),
        expect: Behaviour,
    }

    EVT_001 {
        group: EVT,
        text: "hipEventCreate and hipEventCreateWithFlags: a NULL event pointer is 1; flags outside the event flags, \
               two release flags, or hipEventInterprocess without hipEventDisableTiming are 1.",
        apis: &["hipEventCreate", "hipEventCreateWithFlags"],
        sources: &[CLR_EVENT, T_EVENT],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    EVT_002 {
        group: EVT,
        text: "hipEventDestroy: NULL is 400; an event destroyed already is 709.",
        apis: &["hipEventDestroy"],
        sources: &[CLR_EVENT],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_HANDLE), hip!(CONTEXT_IS_DESTROYED)]),
    }

    EVT_003 {
        group: EVT,
        text: "hipEventRecord: a NULL event is 400; a destroyed stream is 709; a stream of another device than the \
               event's is 400.",
        apis: &["hipEventRecord"],
        sources: &[CLR_EVENT],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_HANDLE), hip!(CONTEXT_IS_DESTROYED)]),
    }

    EVT_004 {
        group: EVT,
        text: "hipEventQuery: NULL is 400; an event never recorded is 0; 600 while its last record has not completed, \
               0 once it has.",
        apis: &["hipEventQuery"],
        sources: &[CLR_EVENT],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_HANDLE), hip!(NOT_READY)]),
    }

    EVT_005 {
        group: EVT,
        text: "hipEventSynchronize: NULL is 400; an event never recorded returns at once; otherwise it returns once \
               the work before its last record has run.",
        apis: &["hipEventSynchronize"],
        sources: &[CLR_EVENT],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_HANDLE)]),
    }

    EVT_006 {
        group: EVT,
        text: "hipEventElapsedTime: NULL ms is 1; a NULL event, events of two devices, an event never recorded or one \
               made with hipEventDisableTiming are 400; a record not yet complete is 600; the same event twice is 0 ms.",
        apis: &["hipEventElapsedTime"],
        sources: &[CLR_EVENT, T_EVENT],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE), hip!(INVALID_HANDLE), hip!(NOT_READY)]),
    }

    EVT_007 {
        group: EVT,
        text: "An event value that is no live event (destroyed) is 400 in hipEventRecord, hipEventQuery, \
               hipEventSynchronize, hipEventElapsedTime, hipStreamWaitEvent and hipIpcGetEventHandle.",
        apis: &["hipEventRecord", "hipEventQuery", "hipEventSynchronize", "hipEventElapsedTime"],
        sources: &[CLR_EVENT, UNSETTLED],
        confidence: &[Undetermined],
        note: Some("clr dereferences the pointer (only hipEventDestroy looks it up, 709); the emulator's choice is the \
                    code clr gives a NULL event"),
        expect: Codes(&[hip!(INVALID_HANDLE)]),
    }

    IEV_001 {
        group: IEV,
        text: "hipIpcGetEventHandle: a NULL handle or event is 1; an event made without hipEventInterprocess is 9 \
               (hipErrorInvalidConfiguration).",
        apis: &["hipIpcGetEventHandle"],
        sources: &[CLR_EVENT_IPC, Rocm("ROCm/clr hipamd/src/hip_event.hpp")],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE), hip!(INVALID_CONFIGURATION)]),
    }

    IEV_002 {
        group: IEV,
        text: "hipIpcOpenEventHandle: a NULL event pointer is 1; a handle that names no event is 1; a handle made by \
               this process is 201 (hipErrorInvalidContext).",
        apis: &["hipIpcOpenEventHandle"],
        sources: &[CLR_EVENT_IPC, T_EVENT],
        confidence: &[Src],
        expect: Codes(&[hip!(INVALID_VALUE), hip!(INVALID_CONTEXT)]),
    }

    IEV_003 {
        group: IEV,
        text: "Across processes: a process that opens another's IPC event handle and waits on it (hipStreamWaitEvent or \
               hipEventSynchronize) sees the data written before the exporter's record.",
        apis: &["hipIpcGetEventHandle", "hipIpcOpenEventHandle", "hipEventRecord", "hipStreamWaitEvent", "hipEventSynchronize"],
        sources: &[CLR_EVENT_IPC, T_EVENT],
        confidence: &[Src],
        expect: Behaviour,
        requires: PEERS,
    }

    IEV_004 {
        group: IEV,
        text: "A wait on an IPC event whose pending record was taken by a process that has died (hipEventSynchronize, \
               hipEventQuery, a stream's hipStreamWaitEvent, in the exporter or any process that opened it) ends with \
               999 (hipErrorUnknown) instead of waiting for good; a stopped recorder is waited for (it may go on).",
        apis: &["hipIpcOpenEventHandle", "hipEventRecord", "hipEventSynchronize", "hipEventQuery"],
        sources: &[CLR_EVENT_IPC],
        confidence: &[Src, Undetermined],
        note: Some("IPCEvent::synchronize (clr hip_event_ipc.cpp:90-102) sleeps while the record's signal is set, with \
                    no check of the recorder: clr waits for good, and a query says 600 for good. The code is the \
                    emulator's choice: 999, what a stream's failed work gives"),
        expect: Codes(&[hip!(UNKNOWN)]),
        requires: PEERS,
    }

    // ==== Host registration (memory) ========================================

    MEM_001 {
        group: MEM,
        text: "hipHostRegister: a range that overlaps host memory HIP already knows (a registered range, a \
               hipHostMalloc buffer, managed memory) is refused with 712 (hipErrorHostMemoryAlreadyRegistered) and \
               nothing is registered.",
        apis: &["hipHostRegister"],
        sources: &[HipDoc("hipErrorHostMemoryAlreadyRegistered: produced when trying to lock page-locked memory"), UNSETTLED],
        confidence: &[DocTag, Undetermined],
        note: Some("clr (hip_memory.cpp:1245-1278) makes a second buffer over the same pages; 712 is the code the \
                    header's hipError_t names for the case (hip_runtime_api.h 7.2.4:374), the emulator's choice"),
        expect: Codes(&[hip!(HOST_MEMORY_ALREADY_REGISTERED)]),
    }

    MEM_002 {
        group: MEM,
        text: "hipHostUnregister: a pointer that is not the start of a range registered by hipHostRegister (never \
               registered, already unregistered, or a hipHostMalloc buffer) is 713 (hipErrorHostMemoryNotRegistered).",
        apis: &["hipHostUnregister"],
        sources: &[CLR_MEM],
        confidence: &[Src],
        note: Some("clr hip_memory.cpp:1311-1312 (ihipHostUnregister returns 713 when no memory object holds it)"),
        expect: Codes(&[hip!(HOST_MEMORY_NOT_REGISTERED)]),
    }

    MEM_003 {
        group: MEM,
        text: "hipFree, hipHostFree and hipFreeArray of memory HIP knows wait for the work of the device's streams \
               before they free: right after the free, hipStreamQuery(NULL) is 0. NULL waits for nothing; a pointer \
               HIP does not know is 1 without waiting.",
        apis: &["hipFree", "hipHostFree", "hipFreeArray"],
        sources: &[CLR_MEM, T_FREE],
        confidence: &[Src],
        note: Some("clr hip_memory.cpp:69-92 (ihipFree: SyncAllStreams of the allocation's device at :79, before \
                    FreeMemory; hipFree :689-693 and hipHostFree :753-764 call it), :766-790 (ihipArrayDestroy: \
                    SyncAllStreams at :785; hipFreeArray :792-796); hip-tests Unit_hipFreeImplicitSyncDev and \
                    Unit_hipFreeImplicitSyncHost. vmmkit does not record the device of a hipHostMalloc buffer: \
                    hipHostFree and hipFreeArray wait for every device's streams"),
        expect: Behaviour,
    }

    // ==== Graphs and stream capture ===================================    }


    GRF_001 {
        group: GRF,
        text: "hipGraphCreate: a NULL graph pointer or flags other than 0 is 1. hipGraphDestroy: NULL is 1, a graph \
               already destroyed is 401 (hipErrorIllegalState); destroying a graph leaves its instantiated graphs \
               usable (each holds its own copy of the nodes).",
        apis: &["hipGraphCreate", "hipGraphDestroy", "hipGraphLaunch"],
        sources: &[CLR_GRAPH],
        confidence: &[Src],
        note: Some("clr hip_graph.cpp:1081-1088 (hipGraphCreate), :1090-1102 (hipGraphDestroy: isGraphValid false → \
                    401), :1283-1300 (ihipGraphInstantiate clones the graph)"),
        expect: Codes(&[hip!(INVALID_VALUE), hip!(ILLEGAL_STATE)]),
    }

    GRF_002 {
        group: GRF,
        text: "hipGraphAdd{MemcpyNode1D,MemsetNode,HostNode,EventRecordNode,EventWaitNode,EmptyNode,MemAllocNode,\
               MemFreeNode}: a NULL node pointer, a NULL graph, dependencies NULL with a count, NULL parameters, a \
               NULL event or a NULL host function is 1.",
        apis: &["hipGraphAddMemcpyNode1D", "hipGraphAddMemsetNode", "hipGraphAddHostNode", "hipGraphAddEventRecordNode",
                "hipGraphAddEventWaitNode", "hipGraphAddEmptyNode"],
        sources: &[CLR_GRAPH],
        confidence: &[Src],
        note: Some("clr hip_graph.cpp:1158-1166, :1209-1217, :1252-1258, :2253-2261, :2307-2315, :2362-2368, \
                    :2500-2507, :2573-2580"),
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    GRF_003 {
        group: GRF,
        text: "A dependency that is not a node of the graph (a node of another graph), or the same node named twice, \
               is 1 in every hipGraphAdd*Node.",
        apis: &["hipGraphAddEmptyNode", "hipGraphAddMemcpyNode1D"],
        sources: &[CLR_GRAPH],
        confidence: &[Src],
        note: Some("clr hip_graph.cpp:54-68 (ihipGraphAddNode: not a valid node or another parent graph → 1, a \
                    duplicate → 1). clr has already added the node to the graph when it refuses; vmmkit adds nothing"),
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    GRF_004 {
        group: GRF,
        text: "hipGraphAddMemcpyNode1D: a count of 0 is 1, then the copy's checks (NULL, a bad kind, memory HIP does \
               not know for a device kind). hipGraphAddMemsetNode: an element size other than 1, 2 or 4, a height of \
               0, or a pitch below width × element size is 1, then hipMemset's checks.",
        apis: &["hipGraphAddMemcpyNode1D", "hipGraphAddMemsetNode"],
        sources: &[CLR_GRAPH],
        confidence: &[Src],
        note: Some("clr hip_graph.cpp:155-170 (count == 0 → 1, GraphMemcpyNode1D::ValidateParams), :172-214 \
                    (ihipGraphAddMemsetNode)"),
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    GRF_005 {
        group: GRF,
        text: "hipGraphLaunch runs the graph's nodes in an order that respects every dependency, on the stream, after \
               the work enqueued before it and before the work enqueued after it; an instantiated graph runs again at \
               each launch (copies, fills, host functions, event records and waits).",
        apis: &["hipGraphLaunch", "hipGraphInstantiate"],
        sources: &[CLR_GRAPH_INT],
        confidence: &[Src],
        note: Some("clr hip_graph_internal.cpp:820-889 (GraphExec::Run: the topological order enqueued on the launch \
                    stream)"),
        expect: Behaviour,
    }

    GRF_006 {
        group: GRF,
        text: "hipGraphInstantiate and hipGraphInstantiateWithFlags: a NULL exec pointer or a NULL graph is 1; \
               flags other than 0, AutoFreeOnLaunch or UseNodePriority are 1. hipGraphExecDestroy(NULL) is 1.",
        apis: &["hipGraphInstantiate", "hipGraphInstantiateWithFlags", "hipGraphExecDestroy"],
        sources: &[CLR_GRAPH],
        confidence: &[Src],
        note: Some("clr hip_graph.cpp:1335-1347, :1349-1366, :1404-1408"),
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    GRF_007 {
        group: GRF,
        text: "hipGraphLaunch: a NULL or destroyed instantiated graph is 1; a stream that is not live is 709.",
        apis: &["hipGraphLaunch"],
        sources: &[CLR_GRAPH],
        confidence: &[Src],
        note: Some("clr hip_graph.cpp:1429-1437 (hipGraphLaunch_common: NULL or !isGraphExecValid → 1, !isValid → \
                    709)"),
        expect: Codes(&[hip!(INVALID_VALUE), hip!(CONTEXT_IS_DESTROYED)]),
    }

    GRF_008 {
        group: GRF,
        text: "hipStreamBeginCapture: the NULL or legacy stream is 900 (hipErrorStreamCaptureUnsupported), a mode \
               outside Global … Relaxed is 1, a stream already capturing is 401. hipStreamEndCapture: a NULL graph \
               pointer is 1, the NULL stream or a stream not capturing is 401, a stream that joined the capture but \
               did not begin it is 903, a thread other than the one that began a capture not in relaxed mode is 908.",
        apis: &["hipStreamBeginCapture", "hipStreamEndCapture"],
        sources: &[CLR_GRAPH],
        confidence: &[Src],
        note: Some("clr hip_graph.cpp:896-933 (hipStreamBeginCapture_common), :977-1003 (hipStreamEndCapture_common), \
                    :1064-1073"),
        expect: Codes(&[
            hip!(STREAM_CAPTURE_UNSUPPORTED),
            hip!(INVALID_VALUE),
            hip!(ILLEGAL_STATE),
            hip!(STREAM_CAPTURE_UNMATCHED),
            hip!(STREAM_CAPTURE_WRONG_THREAD),
        ]),
    }

    GRF_009 {
        group: GRF,
        text: "While a stream captures, the copies, fills and host functions enqueued on it become nodes of the \
               capture's graph, each after the one before, and do not run; hipStreamIsCapturing and \
               hipStreamGetCaptureInfo say Active (with a capture id) until hipStreamEndCapture, which returns the \
               graph; instantiated and launched, it does the captured work.",
        apis: &["hipStreamBeginCapture", "hipStreamEndCapture", "hipStreamIsCapturing", "hipMemcpyAsync",
                "hipMemsetAsync", "hipLaunchHostFunc"],
        sources: &[CLR_GRAPH, CLR_INT],
        confidence: &[Src],
        note: Some("clr hip_internal.hpp:231-242 (STREAM_CAPTURE), hip_graph.cpp:581-617, :694-718, :772-795 (the \
                    capture of copies, fills and host functions), :851-870, :1790-1813 (the status queries)"),
        expect: Behaviour,
    }

    GRF_010 {
        group: GRF,
        text: "hipStreamSynchronize and hipStreamQuery of a capturing stream are 900 and invalidate its capture: the \
               stream then says Invalidated, work enqueued on it is 901 (hipErrorStreamCaptureInvalidated), and \
               hipStreamEndCapture is 901 with a NULL graph.",
        apis: &["hipStreamSynchronize", "hipStreamQuery", "hipStreamEndCapture", "hipMemsetAsync"],
        sources: &[CLR_STREAM, CLR_INT, CLR_GRAPH],
        confidence: &[Src],
        note: Some("clr hip_stream.cpp:132-166 (StreamCaptureOngoing invalidates), :335-346, :506-515; \
                    hip_internal.hpp:237-242 (an invalidated stream → 901); hip_graph.cpp:1010-1014"),
        expect: Codes(&[hip!(STREAM_CAPTURE_UNSUPPORTED), hip!(STREAM_CAPTURE_INVALIDATED)]),
    }

    GRF_011 {
        group: GRF,
        text: "While any stream captures, in any mode, a synchronous copy or fill (hipMemcpy, hipMemset) is 906 \
               (hipErrorStreamCaptureImplicit) and hipDeviceSynchronize is 900; both invalidate every capture.",
        apis: &["hipMemcpy", "hipMemset", "hipDeviceSynchronize"],
        sources: &[CLR_INT, CLR_MEM],
        confidence: &[Src],
        note: Some("clr hip_internal.hpp:211-229 (CHECK_SUPPORTED_DURING_CAPTURE, CHECK_STREAM_CAPTURING), \
                    hip_memory.cpp:697, :3271; hip_device_runtime.cpp:619"),
        expect: Codes(&[hip!(STREAM_CAPTURE_IMPLICIT), hip!(STREAM_CAPTURE_UNSUPPORTED)]),
    }

    GRF_012 {
        group: GRF,
        text: "hipMalloc and hipFree during a capture in global mode are 900 and invalidate the capture; a thread \
               whose mode is relaxed (hipThreadExchangeStreamCaptureMode) may call them and the capture goes on.",
        apis: &["hipMalloc", "hipFree", "hipThreadExchangeStreamCaptureMode"],
        sources: &[CLR_INT, CLR_MEM],
        confidence: &[Src],
        note: Some("clr hip_internal.hpp:186-209 (CHECK_STREAM_CAPTURE_SUPPORTED), hip_memory.cpp:673-693"),
        expect: Codes(&[hip!(STREAM_CAPTURE_UNSUPPORTED)]),
    }

    GRF_013 {
        group: GRF,
        text: "An event recorded on a capturing stream records nothing: another stream that waits for it joins the \
               capture, and the origin stream waits for the joined stream's work through an event recorded there; \
               ending the capture with joined work the origin does not wait for is 904. hipEventSynchronize and \
               hipEventQuery of an event recorded in an active capture are 907 (hipErrorCapturedEvent).",
        apis: &["hipEventRecord", "hipStreamWaitEvent", "hipStreamEndCapture", "hipEventQuery"],
        sources: &[CLR_EVENT, CLR_STREAM, CLR_GRAPH],
        confidence: &[Src],
        note: Some("clr hip_event.cpp:405-412, :436-447, :458-467; hip_stream.cpp:456-473 (the wait joins); \
                    hip_graph.cpp:1015-1056 (the unjoined check)"),
        expect: Codes(&[hip!(STREAM_CAPTURE_UNJOINED), hip!(CAPTURED_EVENT)]),
    }

    GRF_014 {
        group: GRF,
        text: "hipGraphAddMemAllocNode: NULL parameters, a size of 0, or pool properties other than pinned device \
               memory of a device that exists are 1; the node's address is written at once. hipGraphAddMemFreeNode: \
               a NULL pointer, or memory no allocation node made or that already has a free node, is 1. A graph \
               with allocation or free nodes instantiated a second time is 801; an instantiated graph whose \
               allocations it does not free cannot be launched again (1). hipMallocAsync and hipFreeAsync on a \
               capturing stream add allocation and free nodes.",
        apis: &["hipGraphAddMemAllocNode", "hipGraphAddMemFreeNode", "hipGraphInstantiate", "hipGraphLaunch",
                "hipMallocAsync", "hipFreeAsync"],
        sources: &[CLR_GRAPH, CLR_GRAPH_INT],
        confidence: &[Src],
        note: Some("clr hip_graph.cpp:2500-2531, :2573-2609 (memory of no graph's allocation node → 1), :1285-1292 \
                    (instantiated before with memory nodes → 801), :797-849 (capturehipMallocAsync, \
                    capturehipFreeAsync); hip_graph_internal.cpp:831-838 (a repeat launch with active memory → 1)"),
        expect: Codes(&[hip!(INVALID_VALUE), hip!(NOT_SUPPORTED)]),
    }

    GRF_015 {
        group: GRF,
        text: "hipGraphGetNodes and hipGraphGetRootNodes: a NULL graph or NULL count is 1; a NULL array gives the \
               count; nodes come in a dependency order, roots are the nodes that wait for none.",
        apis: &["hipGraphGetNodes", "hipGraphGetRootNodes"],
        sources: &[CLR_GRAPH],
        confidence: &[Src],
        note: Some("clr hip_graph.cpp:1450-1476, :1478-1500"),
        expect: Codes(&[hip!(INVALID_VALUE)]),
    }

    MEM_004 {
        group: MEM,
        text: "hipPointerGetAttribute(HIP_POINTER_ATTRIBUTE_BUFFER_ID) gives each allocation an id of its own, never 0 \
               for memory HIP knows: memory freed and allocated again at the same address gets another id, and a freed \
               allocation's id is not given again.",
        apis: &["hipPointerGetAttribute", "hipMalloc", "hipFree"],
        sources: &[CLR_MEMORY_OBJ, CLR_MEM, T_POINTER_ATTR],
        confidence: &[Src],
        note: Some("ROCm/clr@f9f995c rocclr/platform/memory.cpp:34 (a process-wide std::atomic<uint32_t> numAllocs), \
                    :324-325 (each memory object created takes ++numAllocs as its uniqueId_); hipamd/src/hip_memory.cpp:3939 \
                    (HIP_POINTER_ATTRIBUTE_BUFFER_ID answers it); hip-tests Unit_hipPointerGetAttribute_BufferID. vmmkit \
                    numbers an allocation at its first query rather than at its creation: ids differ, their order may not \
                    be clr's"),
        expect: Behaviour,
    }

    MEM_005 {
        group: MEM,
        text: "Mipmapped arrays, on devices without mipmap image support (vmmkit's: ImageSupport 0): \
               hipMallocMipmappedArray with a NULL array or desc, or a channel format clr refuses, is 1 (before the \
               support check), otherwise 801; hipMipmappedArrayCreate is 801; hipFreeMipmappedArray and \
               hipMipmappedArrayDestroy of NULL are 1; hipGetMipmappedArrayLevel and hipMipmappedArrayGetLevel with a \
               NULL output are 1, with a NULL array 400. A handle that names no mipmapped array (every one, here) is 1.",
        apis: &["hipMallocMipmappedArray", "hipFreeMipmappedArray", "hipGetMipmappedArrayLevel", "hipMipmappedArrayCreate"],
        sources: &[CLR_MEM, T_MIPMAP],
        confidence: &[Src, Undetermined],
        note: Some("ROCm/clr@f9f995c hipamd/src/hip_memory.cpp:4567-4587 (hipMallocMipmappedArray: NULL → 1 and \
                    CheckArrayFormat → 1 before ihipMipmapArrayCreate), :4384-4399 (no ClKhrMipMapImage → 801, before its \
                    own NULL checks), :4463-4480 (ihipMipmappedArrayDestroy: NULL → 1, invalid memory object → 1), \
                    :4482-4500 (ihipMipmappedArrayGetLevel: NULL output → 1, NULL array → 400); hip-tests \
                    Unit_hipMallocMipmappedArray_Negative_NullArrayPtr, _NullDescPtr, Unit_hipFreeMipmappedArray_Negative_Nullptr, \
                    Unit_hipGetMipmappedArrayLevel_Negative. A handle that names nothing is dereferenced by clr \
                    (undetermined); vmmkit answers 1, as clr's invalid memory object"),
        expect: Codes(&[hip!(INVALID_VALUE), hip!(INVALID_HANDLE), hip!(NOT_SUPPORTED)]),
    }

    MEM_006 {
        group: MEM,
        text: "hipPointerGetAttribute and hipDrvPointerGetAttributes write HIP_POINTER_ATTRIBUTE_RANGE_SIZE as an \
               unsigned 32-bit value (the allocation's size; 0 for memory HIP does not know) and nothing after it.",
        apis: &["hipPointerGetAttribute", "hipDrvPointerGetAttributes"],
        sources: &[CLR_MEM, T_POINTER_ATTR],
        confidence: &[Src],
        note: Some("ROCm/clr@fa1d09c hipamd/src/hip_memory.cpp:3872-3879 (`*reinterpret_cast<uint32_t*>(data)`); \
                    hip-tests Unit_hipDrvPtrGetAttributes_Functional and \
                    Unit_hipGetProcAddress_MemoryApisSetAndGetAttributes read it into an `unsigned int` and an `int`"),
        expect: Behaviour,
    }

    MEM_007 {
        group: MEM,
        text: "hipFree of a hipHostMalloc buffer frees it, as hipHostFree does (0; a second free is 1); hipFree of \
               memory HIP does not know is 1.",
        apis: &["hipFree", "hipHostMalloc", "hipHostFree"],
        sources: &[CLR_MEM, T_FREE],
        confidence: &[Src],
        note: Some("ROCm/clr@fa1d09c hipamd/src/hip_memory.cpp:69-92 (ihipFree: any memory object is freed, \
                    SvmBuffer::free at :88; none → 1 at :93), :689-693 (hipFree); hip-tests \
                    Unit_hipDrvMemcpy2DUnaligned_NegTst frees its hipHostMalloc buffers with hipFree"),
        expect: Behaviour,
    }

    MEM_008 {
        group: MEM,
        text: "hipMemGetAddressRange of an address in a hipMalloc, managed or hipHostMalloc allocation gives the \
               allocation's start and size; of an address HIP did not allocate, hipErrorNotFound.",
        apis: &["hipMemGetAddressRange", "hipHostMalloc"],
        sources: &[CLR_MEM],
        confidence: &[Src],
        note: Some("ROCm/clr@fa1d09c hipamd/src/hip_memory.cpp:798-813 (getMemoryObject of the address: none → \
                    hipErrorNotFound, else its SVM pointer and size); hip-tests Unit_hipMemGetAddressRange_Positive, \
                    section \"Host address range\". A registered range (its memory object's SVM pointer is not \
                    the user's) stays hipErrorNotFound in vmmkit"),
        expect: Behaviour,
    }

    MEM_009 {
        group: MEM,
        text: "Managed memory's advice and prefetch location are kept per 4 KiB page: hipMemAdvise and \
               hipMemPrefetchAsync apply to the pages their range touches, and hipMemRangeGetAttribute(s) over pages \
               that differ answer read-mostly only if every page is, a preferred or last-prefetch location only if \
               every page has it (else hipInvalidDeviceId), and the devices every page is accessed by.",
        apis: &["hipMemRangeGetAttribute", "hipMemRangeGetAttributes", "hipMemAdvise", "hipMemPrefetchAsync"],
        sources: &[CLR_ROCDEVICE, ROCR, T_MANAGED_RANGE],
        confidence: &[Src, Undetermined],
        note: Some("ROCm/clr@fa1d09c hipamd/src/hip_hmm.cpp:171-189 and rocclr/device/rocm/rocdevice.cpp:2701-2880 \
                    (the range goes to hsa_amd_svm_attributes_get as given); ROCm/ROCR-Runtime@df75490 \
                    src/core/runtime/runtime.cpp:2586, :2671 (set and get align the range to 4 KiB pages), :2719 \
                    (read-mostly from the flags set on every page), :2904-2940 (mixed prefetch locations → no agent). \
                    How KFD combines the preferred location and access of split ranges is the kernel's \
                    (svm_range_get_attr); vmmkit follows what hip-tests' Partial_Range and Rounding cases expect"),
        expect: Behaviour,
    }

    MEM_010 {
        group: MEM,
        text: "A synchronous hipMemset, hipMemsetD8/16/32, hipMemset2D or hipMemset3D of device memory (not \
               fine-grained) at the start of its allocation does not wait for the fill: it is queued on the NULL stream \
               as the Async form is, and hipStreamQuery there answers hipErrorNotReady while earlier work runs. So is a \
               1-D fill of memory with SYNC_MEMOPS set. Any other synchronous fill returns after it has run. The \
               `_spt` forms decide alike, on the calling thread's default stream.",
        apis: &["hipMemset", "hipMemsetD32", "hipMemset2D", "hipMemset3D", "hipMemset_spt", "hipStreamQuery"],
        sources: &[CLR_MEM, T_MEMSET_SYNC],
        confidence: &[Src],
        note: Some("ROCm/clr@fa1d09c hipamd/src/hip_memory.cpp:3238-3260 (ihipMemset: offset 0 and none of \
                    SVM_FINE_GRAIN_BUFFER, SVM_ATOMICS, USE_HOST_PTR, or sync_mem_ops_ set → isAsync, no finish), \
                    :3412-3435 (ihipMemset3D, without the sync_mem_ops_ clause); hip-tests Unit_hipMemsetSync, \
                    Unit_hipMemsetDSync, Unit_hipMemset2DSync, Unit_hipMemset3DSync. vmmkit counts hipMalloc memory \
                    (hipExtMallocWithFlags without Finegrained) as device memory. hipMemset_spt (:3275-3278), \
                    hipMemset2D_spt (:3446-3450) and hipMemset3D_spt (:3487-3491) pass the per-thread stream to \
                    the same common functions"),
        expect: Behaviour,
    }

    MEM_011 {
        group: MEM,
        text: "hipMemRangeGetAttribute(hipMemRangeAttributeCoherencyMode) of hipMalloc memory is 0 with \
               hipMemRangeCoherencyModeCoarseGrain (FineGrain for hipExtMallocWithFlags(hipDeviceMallocFinegrained)).",
        apis: &["hipMemRangeGetAttribute", "hipMalloc"],
        sources: &[CLR_ROCDEVICE, ROCR, T_COHERENCY],
        confidence: &[Src],
        note: Some("ROCm/clr@fa1d09c hipamd/src/hip_hmm.cpp:171-189 (no memory-object check), \
                    rocclr/device/rocm/rocdevice.cpp:2703 (SVM tracking off by default, rocsettings.cpp:85), :2714-2731 \
                    (a ROCr allocation's coherency from hsa_amd_pointer_info's global flags), :2763-2765 (no SVM \
                    attribute asked for it), :2864-2871; ROCm/ROCR-Runtime@df75490 src/core/runtime/runtime.cpp:2671-2678 \
                    (no attribute: no KFD query, success); hip-tests Unit_hipMalloc_CoherentTst. Device memory's pool \
                    is coarse-grained"),
        expect: Behaviour,
    }
}
