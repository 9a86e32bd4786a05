//! HIP typedefs, constants and structures (reference hip.md §2 and §3), x86-64 layout.
//!
//! Where the value of a constant changed between ROCm releases, both values
//! are given, suffixed in HIP's own style: `_R0500` for the 5.x value and
//! `_R0600` for the 6.0+ one; the unsuffixed name is the 6.0+ value (the
//! emulator's default profile, hip.md "Eras").
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

use std::ffi::{c_char, c_void};
use std::marker::{PhantomData, PhantomPinned};

/// `hipError_t`: a C `int`, 0 on success. See [`crate::hip::HipError`].
pub type hipError_t = i32;
/// `hipDevice_t`: a device ordinal (`int`).
pub type hipDevice_t = i32;
/// `hipDeviceptr_t`: a device address (`void*`).
pub type hipDeviceptr_t = *mut c_void;
/// `hipMemGenericAllocationHandle_t`: an opaque per-process pointer, 8 bytes; its value means
/// nothing in another process.
pub type hipMemGenericAllocationHandle_t = *mut c_void;
/// `hipStream_t`, used only by `hipMemMapArrayAsync`. hip.md does not define it; the HIP headers
/// make it a pointer to an opaque struct (`struct ihipStream_t*`), so it is pointer-sized here.
pub type hipStream_t = *mut c_void;

/// `hipArrayMapInfo`, used only through a pointer by `hipMemMapArrayAsync`. hip.md gives no
/// layout for it, so it is opaque here: it cannot be built or read from Rust.
#[repr(C)]
#[derive(Debug)]
pub struct hipArrayMapInfo {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// `HIP_VERSION` as both `hipRuntimeGetVersion` and `hipDriverGetVersion` report it:
/// `major * 10000000 + minor * 100000 + patch` (hip.md §1.1).
pub const fn hip_version(major: i32, minor: i32, patch: i32) -> i32 {
    major * 10_000_000 + minor * 100_000 + patch
}

/// The `(major, minor, patch)` of a `HIP_VERSION` value, the inverse of [`hip_version`]
/// (50221153 → (5, 2, 21153)).
pub const fn hip_version_parts(version: i32) -> (i32, i32, i32) {
    (version / 10_000_000, version % 10_000_000 / 100_000, version % 100_000)
}

/// `hipDeviceAttribute_t` (C enum, 4 bytes). Only the attributes hip.md lists.
pub type hipDeviceAttribute_t = i32;
/// `hipDeviceAttributeMemoryPoolsSupported` (5.3+).
pub const hipDeviceAttributeMemoryPoolsSupported: hipDeviceAttribute_t = 88;
/// `hipDeviceAttributeVirtualMemoryManagementSupported` (5.3+; reads 0 on Linux up to 6.0).
pub const hipDeviceAttributeVirtualMemoryManagementSupported: hipDeviceAttribute_t = 89;

/// `hipMemcpyKind`.
pub type hipMemcpyKind = i32;
pub const hipMemcpyHostToHost: hipMemcpyKind = 0;
pub const hipMemcpyHostToDevice: hipMemcpyKind = 1;
pub const hipMemcpyDeviceToHost: hipMemcpyKind = 2;
pub const hipMemcpyDeviceToDevice: hipMemcpyKind = 3;
pub const hipMemcpyDefault: hipMemcpyKind = 4;
pub const hipMemcpyDeviceToDeviceNoCU: hipMemcpyKind = 1024;

/// `hipHostMalloc` flags (`unsigned`).
pub const hipHostMallocDefault: u32 = 0x0;
pub const hipHostMallocPortable: u32 = 0x1;
pub const hipHostMallocMapped: u32 = 0x2;
pub const hipHostMallocWriteCombined: u32 = 0x4;
pub const hipHostMallocNumaUser: u32 = 0x2000_0000;
pub const hipHostMallocCoherent: u32 = 0x4000_0000;
pub const hipHostMallocNonCoherent: u32 = 0x8000_0000;

/// `hipMemoryType` (C enum). Its values changed in 6.0 (hip.md §3.3).
pub type hipMemoryType = i32;
/// 6.0+ `hipMemoryTypeUnregistered`: also what 6.0+ reports for unknown pointers.
pub const hipMemoryTypeUnregistered: hipMemoryType = 0;
pub const hipMemoryTypeHost: hipMemoryType = 1;
pub const hipMemoryTypeDevice: hipMemoryType = 2;
pub const hipMemoryTypeManaged: hipMemoryType = 3;
pub const hipMemoryTypeArray: hipMemoryType = 10;
pub const hipMemoryTypeUnified: hipMemoryType = 11;
/// 5.x `hipMemoryTypeHost`.
pub const hipMemoryTypeHost_R0500: hipMemoryType = 0;
/// 5.x `hipMemoryTypeDevice`.
pub const hipMemoryTypeDevice_R0500: hipMemoryType = 1;
/// 5.x `hipMemoryTypeArray`.
pub const hipMemoryTypeArray_R0500: hipMemoryType = 2;
/// 5.x `hipMemoryTypeUnified`.
pub const hipMemoryTypeUnified_R0500: hipMemoryType = 3;
/// 5.7 `hipMemoryTypeManaged` (added in 5.7).
pub const hipMemoryTypeManaged_R0500: hipMemoryType = 4;

/// `HIP_IPC_HANDLE_SIZE`.
pub const HIP_IPC_HANDLE_SIZE: usize = 64;

/// `hipIpcMemLazyEnablePeerAccess`, the only flag `hipIpcOpenMemHandle` accepts. **ABI break:**
/// 0 in ≤5.7 and 1 from 6.0, and the real Open accepts only its own release's value (hip.md
/// §3.2). This is the 6.0+ value; see the `_R0500` and `_R0600` forms.
pub const hipIpcMemLazyEnablePeerAccess: u32 = hipIpcMemLazyEnablePeerAccess_R0600;
/// `hipIpcMemLazyEnablePeerAccess` of ROCm ≤5.7.
pub const hipIpcMemLazyEnablePeerAccess_R0500: u32 = 0;
/// `hipIpcMemLazyEnablePeerAccess` of ROCm 6.0 and later.
pub const hipIpcMemLazyEnablePeerAccess_R0600: u32 = 1;

/// `hipMemLocationType`.
pub type hipMemLocationType = i32;
pub const hipMemLocationTypeInvalid: hipMemLocationType = 0;
pub const hipMemLocationTypeDevice: hipMemLocationType = 1;
/// 7.2+.
pub const hipMemLocationTypeHost: hipMemLocationType = 2;
/// 7.2+.
pub const hipMemLocationTypeHostNuma: hipMemLocationType = 3;
/// 7.2+.
pub const hipMemLocationTypeHostNumaCurrent: hipMemLocationType = 4;

/// `hipMemAccessFlags`.
pub type hipMemAccessFlags = i32;
pub const hipMemAccessFlagsProtNone: hipMemAccessFlags = 0;
pub const hipMemAccessFlagsProtRead: hipMemAccessFlags = 1;
pub const hipMemAccessFlagsProtReadWrite: hipMemAccessFlags = 3;

/// `hipMemAllocationType`.
pub type hipMemAllocationType = i32;
pub const hipMemAllocationTypeInvalid: hipMemAllocationType = 0;
pub const hipMemAllocationTypePinned: hipMemAllocationType = 1;
/// 7.0.2+.
pub const hipMemAllocationTypeUncached: hipMemAllocationType = 0x4000_0000;
pub const hipMemAllocationTypeMax: hipMemAllocationType = 0x7FFF_FFFF;

/// `hipMemAllocationHandleType` (bit flags).
pub type hipMemAllocationHandleType = i32;
pub const hipMemHandleTypeNone: hipMemAllocationHandleType = 0;
pub const hipMemHandleTypePosixFileDescriptor: hipMemAllocationHandleType = 1;
pub const hipMemHandleTypeWin32: hipMemAllocationHandleType = 2;
pub const hipMemHandleTypeWin32Kmt: hipMemAllocationHandleType = 4;
/// develop branch only.
pub const hipMemHandleTypeFabric: hipMemAllocationHandleType = 8;

/// `hipMemAllocationGranularity_flags`, the `option` of `hipMemGetAllocationGranularity`.
pub type hipMemAllocationGranularity_flags = i32;
pub const hipMemAllocationGranularityMinimum: hipMemAllocationGranularity_flags = 0;
pub const hipMemAllocationGranularityRecommended: hipMemAllocationGranularity_flags = 1;

/// `hipIpcMemHandle_t`: 64 opaque bytes, align 1, passed **by value** to `hipIpcOpenMemHandle`.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct hipIpcMemHandle_t {
    pub reserved: [c_char; HIP_IPC_HANDLE_SIZE],
}

impl Default for hipIpcMemHandle_t {
    fn default() -> Self {
        Self { reserved: [0; HIP_IPC_HANDLE_SIZE] }
    }
}

/// `hipMemLocation`: 8 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct hipMemLocation {
    pub type_: hipMemLocationType,
    pub id: i32,
}

/// `hipMemAccessDesc`: 12 bytes, align 4.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct hipMemAccessDesc {
    pub location: hipMemLocation,
    pub flags: hipMemAccessFlags,
}

/// The `allocFlags` member of [`hipMemAllocationProp`]: 4 bytes at offset 24.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct hipMemAllocationProp_allocFlags {
    pub compressionType: u8,
    pub gpuDirectRDMACapable: u8,
    pub usage: u16,
}

/// `hipMemAllocationProp`, the 5.3+ layout: 32 bytes, align 8, bytes 28–31 padding.
///
/// ROCm 5.2 had another order in the same 32 bytes (hip.md §3.3), a silent break; this type
/// is wrong for a 5.2 library. In 7.0+ `requestedHandleType` is a union with the alias
/// `requestedHandleTypes`, same offset. Start from [`Default`] (all zero).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct hipMemAllocationProp {
    pub type_: hipMemAllocationType,
    pub requestedHandleType: hipMemAllocationHandleType,
    pub location: hipMemLocation,
    /// NULL on Linux.
    pub win32HandleMetaData: *mut c_void,
    pub allocFlags: hipMemAllocationProp_allocFlags,
}

impl Default for hipMemAllocationProp {
    fn default() -> Self {
        Self {
            type_: hipMemAllocationTypeInvalid,
            requestedHandleType: hipMemHandleTypeNone,
            location: hipMemLocation::default(),
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: hipMemAllocationProp_allocFlags::default(),
        }
    }
}

/// `hipPointerAttribute_t`: 32 bytes. hip.md gives the offsets; the 4-byte `isManaged` and
/// `allocationFlags` are `int` and `unsigned` in the HIP headers (hip.md does not say).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct hipPointerAttribute_t {
    /// A [`hipMemoryType`]; its values depend on the release (5.x or 6.0+).
    pub type_: hipMemoryType,
    /// −2 for an unknown pointer in 6.0+.
    pub device: i32,
    pub devicePointer: *mut c_void,
    pub hostPointer: *mut c_void,
    pub isManaged: i32,
    pub allocationFlags: u32,
}

impl Default for hipPointerAttribute_t {
    fn default() -> Self {
        Self {
            type_: 0,
            device: 0,
            devicePointer: std::ptr::null_mut(),
            hostPointer: std::ptr::null_mut(),
            isManaged: 0,
            allocationFlags: 0,
        }
    }
}

/// Size of `hipDeviceProp_t`'s `name` and `gcnArchName` (`char[256]`) in both layouts.
pub const HIP_DEVICE_PROP_NAME_LEN: usize = 256;

/// `hipDeviceProp_t` as the `hipGetDeviceProperties@hip_4.2` entry point fills it: **792 bytes**,
/// kept as an opaque blob because its many fields changed between releases. The offsets hip.md
/// lists are associated constants. Align 8 because `totalGlobalMem` is a `size_t` at 256 (the
/// reference gives offsets, not the alignment).
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct hipDeviceProp_t {
    pub bytes: [u8; 792],
}

impl hipDeviceProp_t {
    /// `char name[256]`.
    pub const name: usize = 0;
    /// `size_t totalGlobalMem`.
    pub const totalGlobalMem: usize = 256;
    pub const warpSize: usize = 276;
    pub const major: usize = 328;
    pub const minor: usize = 332;
    pub const multiProcessorCount: usize = 336;
    pub const pciBusID: usize = 368;
    pub const gcnArch: usize = 392;
    /// `char gcnArchName[256]`.
    pub const gcnArchName: usize = 396;
}

impl Default for hipDeviceProp_t {
    fn default() -> Self {
        Self { bytes: [0; 792] }
    }
}

/// `hipDeviceProp_tR0600` as `hipGetDevicePropertiesR0600@hip_6.0` fills it: **1472 bytes**,
/// opaque like [`hipDeviceProp_t`], with the offsets hip.md lists. Align 8 because
/// `totalGlobalMem` is a `size_t` at 288.
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct hipDeviceProp_tR0600 {
    pub bytes: [u8; 1472],
}

impl hipDeviceProp_tR0600 {
    /// `char name[256]`.
    pub const name: usize = 0;
    /// 16 bytes.
    pub const uuid: usize = 256;
    /// `size_t totalGlobalMem`.
    pub const totalGlobalMem: usize = 288;
    pub const warpSize: usize = 308;
    pub const major: usize = 360;
    pub const minor: usize = 364;
    pub const multiProcessorCount: usize = 388;
    pub const canMapHostMemory: usize = 400;
    pub const pciBusID: usize = 584;
    pub const unifiedAddressing: usize = 604;
    /// `char gcnArchName[256]`.
    pub const gcnArchName: usize = 1160;
}

impl Default for hipDeviceProp_tR0600 {
    fn default() -> Self {
        Self { bytes: [0; 1472] }
    }
}

// ---- Memory pools (hip_runtime_api.h; clr hipamd/src/hip_mempool.cpp) --------------------

/// `hipMemPool_t`: an opaque pool pointer (`struct ihipMemPoolHandle_t*`).
pub type hipMemPool_t = *mut c_void;
/// `hipDeviceAttributeMemoryPoolSupportedHandleTypes`: a mask of `hipMemAllocationHandleType`.
pub const hipDeviceAttributeMemoryPoolSupportedHandleTypes: hipDeviceAttribute_t = 91;
/// `hipDeviceAttributeImageSupport` (`hipDeviceAttributeAmdSpecificBegin` + 14).
pub const hipDeviceAttributeImageSupport: hipDeviceAttribute_t = 10014;

/// `hipMemPoolAttr`: the int attributes (1–3) and the `uint64_t` ones (4–8).
pub type hipMemPoolAttr = i32;
pub const hipMemPoolReuseFollowEventDependencies: hipMemPoolAttr = 1;
pub const hipMemPoolReuseAllowOpportunistic: hipMemPoolAttr = 2;
pub const hipMemPoolReuseAllowInternalDependencies: hipMemPoolAttr = 3;
pub const hipMemPoolAttrReleaseThreshold: hipMemPoolAttr = 4;
pub const hipMemPoolAttrReservedMemCurrent: hipMemPoolAttr = 5;
pub const hipMemPoolAttrReservedMemHigh: hipMemPoolAttr = 6;
pub const hipMemPoolAttrUsedMemCurrent: hipMemPoolAttr = 7;
pub const hipMemPoolAttrUsedMemHigh: hipMemPoolAttr = 8;

/// `hipMemPoolProps`: 88 bytes, align 8; `maxSize` (0: no limit) sits at 24, then 56 reserved
/// bytes that must be 0. Start from [`Default`] (all zero).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct hipMemPoolProps {
    pub allocType: hipMemAllocationType,
    pub handleTypes: hipMemAllocationHandleType,
    pub location: hipMemLocation,
    /// NULL on Linux.
    pub win32SecurityAttributes: *mut c_void,
    pub maxSize: usize,
    pub reserved: [u8; 56],
}

impl Default for hipMemPoolProps {
    fn default() -> Self {
        Self {
            allocType: hipMemAllocationTypeInvalid,
            handleTypes: hipMemHandleTypeNone,
            location: hipMemLocation::default(),
            win32SecurityAttributes: std::ptr::null_mut(),
            maxSize: 0,
            reserved: [0; 56],
        }
    }
}

/// `hipMemPoolPtrExportData`: 64 opaque bytes (clr fills 48: offset, size, a 32-byte IPC handle).
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct hipMemPoolPtrExportData {
    pub reserved: [u8; 64],
}

impl Default for hipMemPoolPtrExportData {
    fn default() -> Self {
        Self { reserved: [0; 64] }
    }
}

// ---- streams and events (values read off the 6.3 and Debian 5.2.3
// headers, hip_runtime_api.h, which agree) ----------------------------------

/// `hipEvent_t`: a pointer to an opaque struct (`struct ihipEvent_t*`).
pub type hipEvent_t = *mut c_void;
/// `hipStreamCallback_t`: `void (*)(hipStream_t stream, hipError_t status, void *userData)`.
pub type hipStreamCallback_t =
    Option<unsafe extern "C" fn(stream: hipStream_t, status: hipError_t, userData: *mut c_void)>;
/// `hipHostFn_t`: `void (*)(void *userData)`.
pub type hipHostFn_t = Option<unsafe extern "C" fn(userData: *mut c_void)>;

/// `hipStreamDefault`: a stream ordered with the NULL stream.
pub const hipStreamDefault: u32 = 0;
/// `hipStreamNonBlocking`: a stream not ordered with the NULL stream.
pub const hipStreamNonBlocking: u32 = 1;
/// `hipStreamLegacy`: the legacy NULL stream, by name.
pub const hipStreamLegacy: hipStream_t = 1 as hipStream_t;
/// `hipStreamPerThread`: the calling thread's default stream.
pub const hipStreamPerThread: hipStream_t = 2 as hipStream_t;

pub const hipEventDefault: u32 = 0;
pub const hipEventBlockingSync: u32 = 1;
pub const hipEventDisableTiming: u32 = 2;
/// Needs [`hipEventDisableTiming`] too (clr `ihipEventCreateWithFlags`).
pub const hipEventInterprocess: u32 = 4;
/// AMD: at most one of the three release flags.
pub const hipEventDisableSystemFence: u32 = 0x2000_0000;
pub const hipEventReleaseToDevice: u32 = 0x4000_0000;
pub const hipEventReleaseToSystem: u32 = 0x8000_0000;

/// `hipIpcEventHandle_t`: 64 opaque bytes, align 1, passed **by value** to `hipIpcOpenEventHandle`.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct hipIpcEventHandle_t {
    pub reserved: [c_char; HIP_IPC_HANDLE_SIZE],
}

impl Default for hipIpcEventHandle_t {
    fn default() -> Self {
        Self { reserved: [0; HIP_IPC_HANDLE_SIZE] }
    }
}

// ---- devices, contexts, streams, events (values read off Debian's
// 7.2.4 hip_runtime_api.h and driver_types.h, offsets checked with g++) -----

/// `hipCtx_t`: a pointer to an opaque struct (`struct ihipCtx_t*`); clr's is its `hip::Device`.
pub type hipCtx_t = *mut c_void;
/// `hipUUID`: 16 bytes (`char bytes[16]`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct hipUUID {
    pub bytes: [c_char; 16],
}
/// `enum hipLimit_t` (C enum, 4 bytes).
pub type hipLimit_t = i32;
pub const hipLimitStackSize: hipLimit_t = 0;
pub const hipLimitPrintfFifoSize: hipLimit_t = 1;
pub const hipLimitMallocHeapSize: hipLimit_t = 2;
/// Read-only, ROCm only.
pub const hipExtLimitScratchMin: hipLimit_t = 0x1000;
pub const hipExtLimitScratchMax: hipLimit_t = 0x1001;
pub const hipExtLimitScratchCurrent: hipLimit_t = 0x1002;
/// `hipLimitRange`: every value from it up is refused with 1.
pub const hipLimitRange: hipLimit_t = 0x1003;
/// `hipFuncCache_t` (C enum): PreferNone 0 … PreferEqual 3.
pub type hipFuncCache_t = i32;
pub const hipFuncCachePreferNone: hipFuncCache_t = 0;
pub const hipFuncCachePreferEqual: hipFuncCache_t = 3;
/// `hipSharedMemConfig` (C enum): BankSizeDefault 0, FourByte 1, EightByte 2.
pub type hipSharedMemConfig = i32;
pub const hipSharedMemBankSizeDefault: hipSharedMemConfig = 0;
pub const hipSharedMemBankSizeFourByte: hipSharedMemConfig = 1;
pub const hipSharedMemBankSizeEightByte: hipSharedMemConfig = 2;
/// `hipDeviceP2PAttr` (C enum).
pub type hipDeviceP2PAttr = i32;
pub const hipDevP2PAttrPerformanceRank: hipDeviceP2PAttr = 0;
pub const hipDevP2PAttrAccessSupported: hipDeviceP2PAttr = 1;
pub const hipDevP2PAttrNativeAtomicSupported: hipDeviceP2PAttr = 2;
pub const hipDevP2PAttrHipArrayAccessSupported: hipDeviceP2PAttr = 3;
/// `hipSetDeviceFlags` flags.
pub const hipDeviceScheduleAuto: u32 = 0;
pub const hipDeviceScheduleSpin: u32 = 1;
pub const hipDeviceScheduleYield: u32 = 2;
pub const hipDeviceScheduleBlockingSync: u32 = 4;
pub const hipDeviceScheduleMask: u32 = 7;
pub const hipDeviceMapHost: u32 = 8;
pub const hipDeviceLmemResizeToMax: u32 = 0x10;
/// `hipEventRecordWithFlags` flags.
pub const hipEventRecordDefault: u32 = 0;
pub const hipEventRecordExternal: u32 = 1;
/// `hipStreamAttrID` (`hipLaunchAttributeID`, C enum).
pub type hipStreamAttrID = i32;
pub const hipLaunchAttributeAccessPolicyWindow: hipStreamAttrID = 1;
pub const hipLaunchAttributeCooperative: hipStreamAttrID = 2;
pub const hipLaunchAttributeSynchronizationPolicy: hipStreamAttrID = 3;
pub const hipLaunchAttributePriority: hipStreamAttrID = 8;
pub const hipLaunchAttributeMemSyncDomainMap: hipStreamAttrID = 9;
pub const hipLaunchAttributeMemSyncDomain: hipStreamAttrID = 10;
/// `hipStreamAttrValue` (`hipLaunchAttributeValue`): a union padded to 64 bytes, align 8
/// (its `hipAccessPolicyWindow` member starts with a pointer).
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct hipStreamAttrValue {
    pub bytes: [u8; 64],
}
impl Default for hipStreamAttrValue {
    fn default() -> Self {
        Self { bytes: [0; 64] }
    }
}
/// `hipStreamWaitValue*` flags (the comparison).
pub const hipStreamWaitValueGte: u32 = 0;
pub const hipStreamWaitValueEq: u32 = 1;
pub const hipStreamWaitValueAnd: u32 = 2;
pub const hipStreamWaitValueNor: u32 = 3;
/// `hipStreamBatchMemOpType` (C enum).
pub const hipStreamMemOpWaitValue32: u32 = 1;
pub const hipStreamMemOpWriteValue32: u32 = 2;
pub const hipStreamMemOpFlushRemoteWrites: u32 = 3;
pub const hipStreamMemOpWaitValue64: u32 = 4;
pub const hipStreamMemOpWriteValue64: u32 = 5;
pub const hipStreamMemOpBarrier: u32 = 6;
/// `hipStreamBatchMemOpParams`: a union of 48 bytes (`uint64_t pad[6]`); the wait and write
/// members are `{ operation@0, address@8, value/value64@16, flags@24, alias@32 }`.
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct hipStreamBatchMemOpParams {
    pub bytes: [u8; 48],
}
impl hipStreamBatchMemOpParams {
    pub const operation: usize = 0;
    pub const address: usize = 8;
    pub const value: usize = 16;
    pub const flags: usize = 24;
}

/// `hipStreamCaptureStatus` (C enum): None 0, Active 1, Invalidated 2.
pub type hipStreamCaptureStatus = i32;
pub const hipStreamCaptureStatusNone: hipStreamCaptureStatus = 0;
pub const hipStreamCaptureStatusActive: hipStreamCaptureStatus = 1;
pub const hipStreamCaptureStatusInvalidated: hipStreamCaptureStatus = 2;
/// `hipStreamCaptureMode` (C enum): Global 0, ThreadLocal 1, Relaxed 2.
pub type hipStreamCaptureMode = i32;
pub const hipStreamCaptureModeGlobal: hipStreamCaptureMode = 0;
pub const hipStreamCaptureModeThreadLocal: hipStreamCaptureMode = 1;
pub const hipStreamCaptureModeRelaxed: hipStreamCaptureMode = 2;
/// `hipGraph_t`, `hipGraphNode_t`: opaque pointers.
pub type hipGraph_t = *mut c_void;
pub type hipGraphNode_t = *mut c_void;
/// `hipGraphExec_t`: an opaque pointer.
pub type hipGraphExec_t = *mut c_void;
/// `hipGraphInstantiateFlags`: the flags hipGraphInstantiateWithFlags takes.
pub const hipGraphInstantiateFlagAutoFreeOnLaunch: u64 = 1;
pub const hipGraphInstantiateFlagUpload: u64 = 2;
pub const hipGraphInstantiateFlagDeviceLaunch: u64 = 4;
pub const hipGraphInstantiateFlagUseNodePriority: u64 = 8;

/// `hipHostNodeParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hipHostNodeParams {
    pub fn_: hipHostFn_t,
    pub userData: *mut c_void,
}

/// `hipMemsetParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hipMemsetParams {
    pub dst: *mut c_void,
    pub elementSize: u32,
    pub height: usize,
    pub pitch: usize,
    pub value: u32,
    pub width: usize,
}

/// `hipMemAllocNodeParams`: `dptr` is written by hipGraphAddMemAllocNode.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hipMemAllocNodeParams {
    pub poolProps: hipMemPoolProps,
    pub accessDescs: *const hipMemAccessDesc,
    pub accessDescCount: usize,
    pub bytesize: usize,
    pub dptr: *mut c_void,
}

// Layouts of reference hip.md §2.1 and §3, checked at compile time.
const _: () = {
    assert!(std::mem::size_of::<hipMemsetParams>() == 48);
    assert!(std::mem::offset_of!(hipMemsetParams, value) == 32);
    assert!(std::mem::size_of::<hipHostNodeParams>() == 16);
    assert!(std::mem::offset_of!(hipMemAllocNodeParams, bytesize) == std::mem::size_of::<hipMemPoolProps>() + 16);
    use std::mem::{align_of, offset_of, size_of};
    assert!(size_of::<hipIpcEventHandle_t>() == 64 && align_of::<hipIpcEventHandle_t>() == 1);
    assert!(size_of::<hipEvent_t>() == 8 && size_of::<hipStreamCallback_t>() == 8 && size_of::<hipHostFn_t>() == 8);
    assert!(size_of::<hipIpcMemHandle_t>() == 64 && align_of::<hipIpcMemHandle_t>() == 1);
    assert!(size_of::<hipMemGenericAllocationHandle_t>() == 8);
    assert!(size_of::<hipMemLocation>() == 8);
    assert!(offset_of!(hipMemLocation, type_) == 0 && offset_of!(hipMemLocation, id) == 4);
    assert!(size_of::<hipMemAccessDesc>() == 12 && align_of::<hipMemAccessDesc>() == 4);
    assert!(offset_of!(hipMemAccessDesc, location) == 0 && offset_of!(hipMemAccessDesc, flags) == 8);
    assert!(size_of::<hipMemAllocationProp>() == 32 && align_of::<hipMemAllocationProp>() == 8);
    assert!(offset_of!(hipMemAllocationProp, type_) == 0);
    assert!(offset_of!(hipMemAllocationProp, requestedHandleType) == 4);
    assert!(offset_of!(hipMemAllocationProp, location) == 8);
    assert!(offset_of!(hipMemAllocationProp, win32HandleMetaData) == 16);
    assert!(offset_of!(hipMemAllocationProp, allocFlags) == 24);
    assert!(offset_of!(hipMemAllocationProp, allocFlags.compressionType) == 24);
    assert!(offset_of!(hipMemAllocationProp, allocFlags.gpuDirectRDMACapable) == 25);
    assert!(offset_of!(hipMemAllocationProp, allocFlags.usage) == 26);
    assert!(size_of::<hipPointerAttribute_t>() == 32);
    assert!(offset_of!(hipPointerAttribute_t, type_) == 0);
    assert!(offset_of!(hipPointerAttribute_t, device) == 4);
    assert!(offset_of!(hipPointerAttribute_t, devicePointer) == 8);
    assert!(offset_of!(hipPointerAttribute_t, hostPointer) == 16);
    assert!(offset_of!(hipPointerAttribute_t, isManaged) == 24);
    assert!(offset_of!(hipPointerAttribute_t, allocationFlags) == 28);
    assert!(size_of::<hipDeviceProp_t>() == 792);
    assert!(hipDeviceProp_t::gcnArchName + HIP_DEVICE_PROP_NAME_LEN <= 792);
    assert!(size_of::<hipDeviceProp_tR0600>() == 1472);
    assert!(hipDeviceProp_tR0600::gcnArchName + HIP_DEVICE_PROP_NAME_LEN <= 1472);
    assert!(hip_version(5, 2, 21153) == 50_221_153);
    assert!(size_of::<hipMemPoolProps>() == 88 && align_of::<hipMemPoolProps>() == 8);
    assert!(offset_of!(hipMemPoolProps, allocType) == 0 && offset_of!(hipMemPoolProps, handleTypes) == 4);
    assert!(offset_of!(hipMemPoolProps, location) == 8);
    assert!(offset_of!(hipMemPoolProps, win32SecurityAttributes) == 16);
    assert!(offset_of!(hipMemPoolProps, maxSize) == 24 && offset_of!(hipMemPoolProps, reserved) == 32);
    assert!(size_of::<hipMemPoolPtrExportData>() == 64 && align_of::<hipMemPoolPtrExportData>() == 1);
    assert!(size_of::<hipMemPool_t>() == 8);
    assert!(size_of::<hipCtx_t>() == 8 && size_of::<hipUUID>() == 16);
    assert!(size_of::<hipStreamAttrValue>() == 64 && align_of::<hipStreamAttrValue>() == 8);
    assert!(size_of::<hipStreamBatchMemOpParams>() == 48);
};

crate::opaque::opaque_debug!(
    hipIpcMemHandle_t.reserved,
    hipMemPoolPtrExportData.reserved,
    hipIpcEventHandle_t.reserved
);
