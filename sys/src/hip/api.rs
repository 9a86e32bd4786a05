//! `HipApi`: the HIP entry points of reference hip.md §2, as C function pointers.
#![allow(non_snake_case)]

use std::ffi::{c_char, c_void};
use std::path::Path;

use super::mem_types::*;
use super::types::*;
use crate::loader::{LibrarySpec, LoadError, Loaded};

/// Where `libamdhip64` is looked for: `VMMKIT_HIP_LIBRARY` (a file), then
/// `$ROCM_PATH/{lib,lib64}`, then the loader's search path, then ROCm's
/// default prefix. The unversioned developer name comes first, then the
/// sonames from the newest ABI down (hip.md §1.1); `hipRuntimeGetVersion`
/// tells which one was found.
pub const LIBRARY: LibrarySpec = LibrarySpec {
    vendor: "HIP",
    path_env: "VMMKIT_HIP_LIBRARY",
    home_env: Some(("ROCM_PATH", &["lib", "lib64"])),
    names: &["libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"],
    default_dirs: &["/opt/rocm/lib"],
    refused: &[],
};

/// Every HIP function vmmkit uses, once, with its C signature and parameter
/// names, passed to `$cb` after `$pre`. [`HipApi`] is one expansion; the
/// emulator's drop-in `libamdhip64.so` is another. The expansion site must
/// have `vmmkit_sys::hip::*` and `std::ffi::{c_char, c_void}` in scope.
///
/// `required` holds the functions of the `hip_4.2` and `hip_5.1` version
/// nodes, which every release since 5.2 exports (hip.md §1.2); `optional`
/// holds those of later nodes.
#[macro_export]
macro_rules! hip_functions {
    ($cb:path { $($pre:tt)* }) => {
        $cb! {
            $($pre)*
            required {
                hipInit: fn(flags: u32) -> hipError_t;
                hipGetDeviceCount: fn(count: *mut i32) -> hipError_t;
                hipSetDevice: fn(deviceId: i32) -> hipError_t;
                hipGetDevice: fn(deviceId: *mut i32) -> hipError_t;
                hipDeviceSynchronize: fn() -> hipError_t;
                hipDeviceGet: fn(device: *mut hipDevice_t, ordinal: i32) -> hipError_t;
                hipDeviceGetAttribute: fn(pi: *mut i32, attr: hipDeviceAttribute_t, deviceId: i32) -> hipError_t;
                /// The `@hip_4.2` entry point: fills the old 792-byte layout, even in 6.x/7.x.
                hipGetDeviceProperties: fn(prop: *mut hipDeviceProp_t, deviceId: i32) -> hipError_t;
                hipDeviceCanAccessPeer: fn(canAccessPeer: *mut i32, deviceId: i32, peerDeviceId: i32) -> hipError_t;
                hipDeviceEnablePeerAccess: fn(peerDeviceId: i32, flags: u32) -> hipError_t;
                hipDeviceDisablePeerAccess: fn(peerDeviceId: i32) -> hipError_t;
                hipRuntimeGetVersion: fn(runtimeVersion: *mut i32) -> hipError_t;
                hipDriverGetVersion: fn(driverVersion: *mut i32) -> hipError_t;

                hipMalloc: fn(ptr: *mut *mut c_void, size: usize) -> hipError_t;
                hipFree: fn(ptr: *mut c_void) -> hipError_t;
                hipMemcpy: fn(dst: *mut c_void, src: *const c_void, sizeBytes: usize, kind: hipMemcpyKind) -> hipError_t;
                /// `src` became `const` in 7.0; the ABI is unchanged.
                hipMemcpyHtoD: fn(dst: hipDeviceptr_t, src: *mut c_void, sizeBytes: usize) -> hipError_t;
                hipMemcpyDtoH: fn(dst: *mut c_void, src: hipDeviceptr_t, sizeBytes: usize) -> hipError_t;
                hipMemset: fn(dst: *mut c_void, value: i32, sizeBytes: usize) -> hipError_t;
                hipMemsetD8: fn(dest: hipDeviceptr_t, value: u8, count: usize) -> hipError_t;
                hipHostMalloc: fn(ptr: *mut *mut c_void, size: usize, flags: u32) -> hipError_t;
                hipHostFree: fn(ptr: *mut c_void) -> hipError_t;
                hipPointerGetAttributes: fn(attributes: *mut hipPointerAttribute_t, ptr: *const c_void) -> hipError_t;
                hipMemGetAddressRange: fn(pbase: *mut hipDeviceptr_t, psize: *mut usize, dptr: hipDeviceptr_t) -> hipError_t;

                hipGetLastError: fn() -> hipError_t;
                hipPeekAtLastError: fn() -> hipError_t;
                hipGetErrorName: fn(hipError: hipError_t) -> *const c_char;
                hipGetErrorString: fn(hipError: hipError_t) -> *const c_char;

                hipIpcGetMemHandle: fn(handle: *mut hipIpcMemHandle_t, devPtr: *mut c_void) -> hipError_t;
                /// The 64-byte handle is passed by value (in memory, under the SysV x86-64 ABI).
                hipIpcOpenMemHandle: fn(devPtr: *mut *mut c_void, handle: hipIpcMemHandle_t, flags: u32) -> hipError_t;
                hipIpcCloseMemHandle: fn(devPtr: *mut c_void) -> hipError_t;

                hipMemGetAllocationGranularity: fn(granularity: *mut usize, prop: *const hipMemAllocationProp, option: hipMemAllocationGranularity_flags) -> hipError_t;
                hipMemCreate: fn(handle: *mut hipMemGenericAllocationHandle_t, size: usize, prop: *const hipMemAllocationProp, flags: u64) -> hipError_t;
                hipMemRelease: fn(handle: hipMemGenericAllocationHandle_t) -> hipError_t;
                hipMemAddressReserve: fn(ptr: *mut *mut c_void, size: usize, alignment: usize, addr: *mut c_void, flags: u64) -> hipError_t;
                hipMemAddressFree: fn(devPtr: *mut c_void, size: usize) -> hipError_t;
                hipMemMap: fn(ptr: *mut c_void, size: usize, offset: usize, handle: hipMemGenericAllocationHandle_t, flags: u64) -> hipError_t;
                /// Always 801 on AMD once the arguments are non-NULL (hip.md §2.2).
                hipMemMapArrayAsync: fn(mapInfoList: *mut hipArrayMapInfo, count: u32, stream: hipStream_t) -> hipError_t;
                hipMemUnmap: fn(ptr: *mut c_void, size: usize) -> hipError_t;
                hipMemSetAccess: fn(ptr: *mut c_void, size: usize, desc: *const hipMemAccessDesc, count: usize) -> hipError_t;
                hipMemGetAccess: fn(flags: *mut u64, location: *const hipMemLocation, ptr: *mut c_void) -> hipError_t;
                /// For a POSIX fd, writes a 4-byte `int` at `shareableHandle`.
                hipMemExportToShareableHandle: fn(shareableHandle: *mut c_void, handle: hipMemGenericAllocationHandle_t, handleType: hipMemAllocationHandleType, flags: u64) -> hipError_t;
                /// `osHandle` is an `int*` in 6.2–7.x and the fd value itself in develop ([HIP-VMM-026](crate::hip::rules::VMM_026)).
                hipMemImportFromShareableHandle: fn(handle: *mut hipMemGenericAllocationHandle_t, osHandle: *mut c_void, shHandleType: hipMemAllocationHandleType) -> hipError_t;
                hipMemRetainAllocationHandle: fn(handle: *mut hipMemGenericAllocationHandle_t, addr: *mut c_void) -> hipError_t;
                hipMemGetAllocationPropertiesFromHandle: fn(prop: *mut hipMemAllocationProp, handle: hipMemGenericAllocationHandle_t) -> hipError_t;

                // Stream-ordered memory pools, all `@hip_5.1` (clr hip_hcc.map.in).
                hipDeviceGetDefaultMemPool: fn(mem_pool: *mut hipMemPool_t, device: i32) -> hipError_t;
                hipDeviceSetMemPool: fn(device: i32, mem_pool: hipMemPool_t) -> hipError_t;
                hipDeviceGetMemPool: fn(mem_pool: *mut hipMemPool_t, device: i32) -> hipError_t;
                hipMallocAsync: fn(dev_ptr: *mut *mut c_void, size: usize, stream: hipStream_t) -> hipError_t;
                hipFreeAsync: fn(dev_ptr: *mut c_void, stream: hipStream_t) -> hipError_t;
                hipMemPoolTrimTo: fn(mem_pool: hipMemPool_t, min_bytes_to_hold: usize) -> hipError_t;
                hipMemPoolSetAttribute: fn(mem_pool: hipMemPool_t, attr: hipMemPoolAttr, value: *mut c_void) -> hipError_t;
                hipMemPoolGetAttribute: fn(mem_pool: hipMemPool_t, attr: hipMemPoolAttr, value: *mut c_void) -> hipError_t;
                hipMemPoolSetAccess: fn(mem_pool: hipMemPool_t, desc_list: *const hipMemAccessDesc, count: usize) -> hipError_t;
                hipMemPoolGetAccess: fn(flags: *mut hipMemAccessFlags, mem_pool: hipMemPool_t, location: *mut hipMemLocation) -> hipError_t;
                hipMemPoolCreate: fn(mem_pool: *mut hipMemPool_t, pool_props: *const hipMemPoolProps) -> hipError_t;
                hipMemPoolDestroy: fn(mem_pool: hipMemPool_t) -> hipError_t;
                hipMallocFromPoolAsync: fn(dev_ptr: *mut *mut c_void, size: usize, mem_pool: hipMemPool_t, stream: hipStream_t) -> hipError_t;
                /// For a POSIX fd, writes an `int` at `shared_handle`.
                hipMemPoolExportToShareableHandle: fn(shared_handle: *mut c_void, mem_pool: hipMemPool_t, handle_type: hipMemAllocationHandleType, flags: u32) -> hipError_t;
                /// `shared_handle` is the fd value cast to a pointer (clr 6.x and 7.x alike).
                hipMemPoolImportFromShareableHandle: fn(mem_pool: *mut hipMemPool_t, shared_handle: *mut c_void, handle_type: hipMemAllocationHandleType, flags: u32) -> hipError_t;
                hipMemPoolExportPointer: fn(export_data: *mut hipMemPoolPtrExportData, dev_ptr: *mut c_void) -> hipError_t;
                hipMemPoolImportPointer: fn(dev_ptr: *mut *mut c_void, mem_pool: hipMemPool_t, export_data: *mut hipMemPoolPtrExportData) -> hipError_t;

                // Streams, events, IPC events and stream-ordered copies, all `@hip_4.2`
                // (clr hip_hcc.map.in).
                hipStreamCreate: fn(stream: *mut hipStream_t) -> hipError_t;
                hipStreamCreateWithFlags: fn(stream: *mut hipStream_t, flags: u32) -> hipError_t;
                hipStreamCreateWithPriority: fn(stream: *mut hipStream_t, flags: u32, priority: i32) -> hipError_t;
                hipDeviceGetStreamPriorityRange: fn(leastPriority: *mut i32, greatestPriority: *mut i32) -> hipError_t;
                hipStreamDestroy: fn(stream: hipStream_t) -> hipError_t;
                hipStreamSynchronize: fn(stream: hipStream_t) -> hipError_t;
                hipStreamQuery: fn(stream: hipStream_t) -> hipError_t;
                hipStreamWaitEvent: fn(stream: hipStream_t, event: hipEvent_t, flags: u32) -> hipError_t;
                hipStreamGetFlags: fn(stream: hipStream_t, flags: *mut u32) -> hipError_t;
                hipStreamGetPriority: fn(stream: hipStream_t, priority: *mut i32) -> hipError_t;
                hipStreamAddCallback: fn(stream: hipStream_t, callback: hipStreamCallback_t, userData: *mut c_void, flags: u32) -> hipError_t;
                hipEventCreate: fn(event: *mut hipEvent_t) -> hipError_t;
                hipEventCreateWithFlags: fn(event: *mut hipEvent_t, flags: u32) -> hipError_t;
                hipEventRecord: fn(event: hipEvent_t, stream: hipStream_t) -> hipError_t;
                hipEventQuery: fn(event: hipEvent_t) -> hipError_t;
                hipEventSynchronize: fn(event: hipEvent_t) -> hipError_t;
                hipEventElapsedTime: fn(ms: *mut f32, start: hipEvent_t, stop: hipEvent_t) -> hipError_t;
                hipEventDestroy: fn(event: hipEvent_t) -> hipError_t;
                hipIpcGetEventHandle: fn(handle: *mut hipIpcEventHandle_t, event: hipEvent_t) -> hipError_t;
                /// The 64-byte handle is passed by value (in memory, under the SysV x86-64 ABI).
                hipIpcOpenEventHandle: fn(event: *mut hipEvent_t, handle: hipIpcEventHandle_t) -> hipError_t;
                hipMemcpyAsync: fn(dst: *mut c_void, src: *const c_void, sizeBytes: usize, kind: hipMemcpyKind, stream: hipStream_t) -> hipError_t;
                hipMemcpyHtoDAsync: fn(dst: hipDeviceptr_t, src: *mut c_void, sizeBytes: usize, stream: hipStream_t) -> hipError_t;
                hipMemcpyDtoHAsync: fn(dst: *mut c_void, src: hipDeviceptr_t, sizeBytes: usize, stream: hipStream_t) -> hipError_t;
                hipMemcpyDtoDAsync: fn(dst: hipDeviceptr_t, src: hipDeviceptr_t, sizeBytes: usize, stream: hipStream_t) -> hipError_t;
                hipMemcpyDtoD: fn(dst: hipDeviceptr_t, src: hipDeviceptr_t, sizeBytes: usize) -> hipError_t;
                hipMemcpyPeer: fn(dst: *mut c_void, dstDeviceId: i32, src: *const c_void, srcDeviceId: i32, sizeBytes: usize) -> hipError_t;
                hipMemcpyPeerAsync: fn(dst: *mut c_void, dstDeviceId: i32, src: *const c_void, srcDevice: i32, sizeBytes: usize, stream: hipStream_t) -> hipError_t;
                hipMemsetAsync: fn(dst: *mut c_void, value: i32, sizeBytes: usize, stream: hipStream_t) -> hipError_t;
                hipMemsetD8Async: fn(dest: hipDeviceptr_t, value: u8, count: usize, stream: hipStream_t) -> hipError_t;
                hipMemsetD16: fn(dest: hipDeviceptr_t, value: u16, count: usize) -> hipError_t;
                hipMemsetD16Async: fn(dest: hipDeviceptr_t, value: u16, count: usize, stream: hipStream_t) -> hipError_t;
                hipMemsetD32: fn(dest: hipDeviceptr_t, value: i32, count: usize) -> hipError_t;
                hipMemsetD32Async: fn(dst: hipDeviceptr_t, value: i32, count: usize, stream: hipStream_t) -> hipError_t;
                // Devices, contexts, streams, events. `@hip_4.2` but
                // hipDeviceGetUuid (`@hip_5.1`), as Debian's libamdhip64.so.7 (7.2.4) has them.
                hipDeviceReset: fn() -> hipError_t;
                hipDeviceGetPCIBusId: fn(pciBusId: *mut c_char, len: i32, device: i32) -> hipError_t;
                hipDeviceGetByPCIBusId: fn(device: *mut i32, pciBusId: *const c_char) -> hipError_t;
                hipDeviceGetName: fn(name: *mut c_char, len: i32, device: hipDevice_t) -> hipError_t;
                hipDeviceGetUuid: fn(uuid: *mut hipUUID, device: hipDevice_t) -> hipError_t;
                hipDeviceTotalMem: fn(bytes: *mut usize, device: hipDevice_t) -> hipError_t;
                hipDeviceComputeCapability: fn(major: *mut i32, minor: *mut i32, device: hipDevice_t) -> hipError_t;
                hipDeviceGetP2PAttribute: fn(value: *mut i32, attr: hipDeviceP2PAttr, srcDevice: i32, dstDevice: i32) -> hipError_t;
                hipExtGetLinkTypeAndHopCount: fn(device1: i32, device2: i32, linktype: *mut u32, hopcount: *mut u32) -> hipError_t;
                hipSetDeviceFlags: fn(flags: u32) -> hipError_t;
                hipGetDeviceFlags: fn(flags: *mut u32) -> hipError_t;
                hipDeviceGetLimit: fn(pValue: *mut usize, limit: hipLimit_t) -> hipError_t;
                hipDeviceSetCacheConfig: fn(cacheConfig: hipFuncCache_t) -> hipError_t;
                hipDeviceGetCacheConfig: fn(cacheConfig: *mut hipFuncCache_t) -> hipError_t;
                hipDeviceSetSharedMemConfig: fn(config: hipSharedMemConfig) -> hipError_t;
                hipDeviceGetSharedMemConfig: fn(pConfig: *mut hipSharedMemConfig) -> hipError_t;
                /// The `@hip_4.2` entry point: the old 792-byte layout (hipChooseDeviceR0000).
                hipChooseDevice: fn(device: *mut i32, prop: *const hipDeviceProp_t) -> hipError_t;
                hipCtxCreate: fn(ctx: *mut hipCtx_t, flags: u32, device: hipDevice_t) -> hipError_t;
                hipCtxDestroy: fn(ctx: hipCtx_t) -> hipError_t;
                hipCtxPushCurrent: fn(ctx: hipCtx_t) -> hipError_t;
                hipCtxPopCurrent: fn(ctx: *mut hipCtx_t) -> hipError_t;
                hipCtxSetCurrent: fn(ctx: hipCtx_t) -> hipError_t;
                hipCtxGetCurrent: fn(ctx: *mut hipCtx_t) -> hipError_t;
                hipCtxGetDevice: fn(device: *mut hipDevice_t) -> hipError_t;
                hipCtxGetApiVersion: fn(ctx: hipCtx_t, apiVersion: *mut u32) -> hipError_t;
                hipCtxGetCacheConfig: fn(cacheConfig: *mut hipFuncCache_t) -> hipError_t;
                hipCtxSetCacheConfig: fn(cacheConfig: hipFuncCache_t) -> hipError_t;
                hipCtxSetSharedMemConfig: fn(config: hipSharedMemConfig) -> hipError_t;
                hipCtxGetSharedMemConfig: fn(pConfig: *mut hipSharedMemConfig) -> hipError_t;
                hipCtxSynchronize: fn() -> hipError_t;
                hipCtxGetFlags: fn(flags: *mut u32) -> hipError_t;
                hipCtxEnablePeerAccess: fn(peerCtx: hipCtx_t, flags: u32) -> hipError_t;
                hipCtxDisablePeerAccess: fn(peerCtx: hipCtx_t) -> hipError_t;
                hipDevicePrimaryCtxGetState: fn(dev: hipDevice_t, flags: *mut u32, active: *mut i32) -> hipError_t;
                hipDevicePrimaryCtxRelease: fn(dev: hipDevice_t) -> hipError_t;
                hipDevicePrimaryCtxRetain: fn(pctx: *mut hipCtx_t, dev: hipDevice_t) -> hipError_t;
                hipDevicePrimaryCtxReset: fn(dev: hipDevice_t) -> hipError_t;
                hipDevicePrimaryCtxSetFlags: fn(dev: hipDevice_t, flags: u32) -> hipError_t;
                /// Returns the device (an `int`), −1 for a dead stream (clr hip_intercept.cpp).
                hipGetStreamDeviceId: fn(stream: hipStream_t) -> i32;
                hipExtStreamCreateWithCUMask: fn(stream: *mut hipStream_t, cuMaskSize: u32, cuMask: *const u32) -> hipError_t;
                hipExtStreamGetCUMask: fn(stream: hipStream_t, cuMaskSize: u32, cuMask: *mut u32) -> hipError_t;
                hipProfilerStart: fn() -> hipError_t;
                // What a hipcc-built program calls at load and exit for its code
                // objects (`@hip_4.2`): bookkeeping only; launching fails (device code).
                // `uint3*`/`dim3*` parameters are passed as `void*`.
                __hipRegisterFatBinary: fn(data: *const c_void) -> *mut *mut c_void;
                __hipRegisterFunction: fn(modules: *mut *mut c_void, hostFunction: *const c_void, deviceFunction: *mut c_char, deviceName: *const c_char, threadLimit: u32, tid: *mut c_void, bid: *mut c_void, blockDim: *mut c_void, gridDim: *mut c_void, wSize: *mut i32) -> ();
                __hipRegisterVar: fn(modules: *mut *mut c_void, var: *mut c_void, hostVar: *mut c_char, deviceVar: *mut c_char, ext: i32, size: usize, constant: i32, global: i32) -> ();
                __hipUnregisterFatBinary: fn(modules: *mut *mut c_void) -> ();
                hipProfilerStop: fn() -> hipError_t;
                // Memory. All `@hip_4.2` (nm -D of Debian's libamdhip64.so.7, 7.2.4).
                /// `flags` is one of `hipDeviceMalloc*` / `hipMallocSignalMemory`, not a mask.
                hipExtMallocWithFlags: fn(ptr: *mut *mut c_void, sizeBytes: usize, flags: u32) -> hipError_t;
                hipMallocHost: fn(ptr: *mut *mut c_void, size: usize) -> hipError_t;
                hipMemAllocHost: fn(ptr: *mut *mut c_void, size: usize) -> hipError_t;
                hipHostAlloc: fn(ptr: *mut *mut c_void, size: usize, flags: u32) -> hipError_t;
                hipFreeHost: fn(ptr: *mut c_void) -> hipError_t;
                hipMemGetInfo: fn(free: *mut usize, total: *mut usize) -> hipError_t;
                hipMemPtrGetInfo: fn(ptr: *mut c_void, size: *mut usize) -> hipError_t;
                hipMemcpyWithStream: fn(dst: *mut c_void, src: *const c_void, sizeBytes: usize, kind: hipMemcpyKind, stream: hipStream_t) -> hipError_t;
                hipHostRegister: fn(hostPtr: *mut c_void, sizeBytes: usize, flags: u32) -> hipError_t;
                hipHostUnregister: fn(hostPtr: *mut c_void) -> hipError_t;
                hipHostGetDevicePointer: fn(devPtr: *mut *mut c_void, hstPtr: *mut c_void, flags: u32) -> hipError_t;
                hipHostGetFlags: fn(flagsPtr: *mut u32, hostPtr: *mut c_void) -> hipError_t;
                hipMallocManaged: fn(dev_ptr: *mut *mut c_void, size: usize, flags: u32) -> hipError_t;
                hipMemAdvise: fn(dev_ptr: *const c_void, count: usize, advice: hipMemoryAdvise, device: i32) -> hipError_t;
                hipMemPrefetchAsync: fn(dev_ptr: *const c_void, count: usize, device: i32, stream: hipStream_t) -> hipError_t;
                hipMemRangeGetAttribute: fn(data: *mut c_void, data_size: usize, attribute: hipMemRangeAttribute, dev_ptr: *const c_void, count: usize) -> hipError_t;
                hipMemRangeGetAttributes: fn(data: *mut *mut c_void, data_sizes: *mut usize, attributes: *mut hipMemRangeAttribute, num_attributes: usize, dev_ptr: *const c_void, count: usize) -> hipError_t;
                hipStreamAttachMemAsync: fn(stream: hipStream_t, dev_ptr: *mut c_void, length: usize, flags: u32) -> hipError_t;
                hipMallocPitch: fn(ptr: *mut *mut c_void, pitch: *mut usize, width: usize, height: usize) -> hipError_t;
                hipMemAllocPitch: fn(dptr: *mut hipDeviceptr_t, pitch: *mut usize, widthInBytes: usize, height: usize, elementSizeBytes: u32) -> hipError_t;
                hipMalloc3D: fn(pitchedDevPtr: *mut hipPitchedPtr, extent: hipExtent) -> hipError_t;
                hipMemcpy2D: fn(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind) -> hipError_t;
                hipMemcpy2DAsync: fn(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind, stream: hipStream_t) -> hipError_t;
                hipMemcpyParam2D: fn(pCopy: *const hip_Memcpy2D) -> hipError_t;
                hipMemcpyParam2DAsync: fn(pCopy: *const hip_Memcpy2D, stream: hipStream_t) -> hipError_t;
                hipMemcpy3D: fn(p: *const hipMemcpy3DParms) -> hipError_t;
                hipMemcpy3DAsync: fn(p: *const hipMemcpy3DParms, stream: hipStream_t) -> hipError_t;
                hipDrvMemcpy3D: fn(pCopy: *const HIP_MEMCPY3D) -> hipError_t;
                hipDrvMemcpy3DAsync: fn(pCopy: *const HIP_MEMCPY3D, stream: hipStream_t) -> hipError_t;
                // Arrays (in linear memory).
                hipArrayCreate: fn(pHandle: *mut hipArray_t, pAllocateArray: *const HIP_ARRAY_DESCRIPTOR) -> hipError_t;
                hipArray3DCreate: fn(array: *mut hipArray_t, pAllocateArray: *const HIP_ARRAY3D_DESCRIPTOR) -> hipError_t;
                hipMallocArray: fn(array: *mut hipArray_t, desc: *const hipChannelFormatDesc, width: usize, height: usize, flags: u32) -> hipError_t;
                /// `hipExtent` by value (in memory, under the SysV x86-64 ABI).
                hipMalloc3DArray: fn(array: *mut hipArray_t, desc: *const hipChannelFormatDesc, extent: hipExtent, flags: u32) -> hipError_t;
                hipFreeArray: fn(array: hipArray_t) -> hipError_t;
                hipMemcpyHtoA: fn(dstArray: hipArray_t, dstOffset: usize, srcHost: *const c_void, count: usize) -> hipError_t;
                hipMemcpyAtoH: fn(dst: *mut c_void, srcArray: hipArray_t, srcOffset: usize, count: usize) -> hipError_t;
                hipMemcpyToArray: fn(dst: hipArray_t, wOffset: usize, hOffset: usize, src: *const c_void, count: usize, kind: hipMemcpyKind) -> hipError_t;
                hipMemcpyFromArray: fn(dst: *mut c_void, srcArray: hipArray_t, wOffset: usize, hOffset: usize, count: usize, kind: hipMemcpyKind) -> hipError_t;
                hipMemcpy2DToArray: fn(dst: hipArray_t, wOffset: usize, hOffset: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind) -> hipError_t;
                hipMemcpy2DFromArray: fn(dst: *mut c_void, dpitch: usize, src: hipArray_t, wOffset: usize, hOffset: usize, width: usize, height: usize, kind: hipMemcpyKind) -> hipError_t;
                hipMemcpy2DFromArrayAsync: fn(dst: *mut c_void, dpitch: usize, src: hipArray_t, wOffset: usize, hOffset: usize, width: usize, height: usize, kind: hipMemcpyKind, stream: hipStream_t) -> hipError_t;
                hipMemset2D: fn(dst: *mut c_void, pitch: usize, value: i32, width: usize, height: usize) -> hipError_t;
                hipMemset2DAsync: fn(dst: *mut c_void, pitch: usize, value: i32, width: usize, height: usize, stream: hipStream_t) -> hipError_t;
                /// `hipPitchedPtr` and `hipExtent` are passed by value (in memory, under the SysV x86-64 ABI).
                hipMemset3D: fn(pitchedDevPtr: hipPitchedPtr, value: i32, extent: hipExtent) -> hipError_t;
                hipMemset3DAsync: fn(pitchedDevPtr: hipPitchedPtr, value: i32, extent: hipExtent, stream: hipStream_t) -> hipError_t;
            }
            optional {
                /// What the real library exports besides the header's API (docs/hip.md "The export list"):
                /// `@hip_4.2` unless said.
                hipCreateChannelDesc: fn(x: i32, y: i32, z: i32, w: i32, f: i32) -> hipChannelFormatDesc;
                hipGetDevicePropertiesR0000: fn(prop: *mut hipDeviceProp_t, deviceId: i32) -> hipError_t;
                hipChooseDeviceR0000: fn(device: *mut i32, prop: *const hipDeviceProp_t) -> hipError_t;
                __hipRegisterManagedVar: fn(hipModule: *mut c_void, pointer: *mut *mut c_void, init_value: *mut c_void, name: *const c_char, size: usize, align: u32) -> ();
                __hipRegisterSurface: fn(modules: *mut *mut c_void, var: *mut c_void, hostVar: *mut c_char, deviceVar: *mut c_char, type_: i32, ext: i32) -> ();
                __hipRegisterTexture: fn(modules: *mut *mut c_void, var: *mut c_void, hostVar: *mut c_char, deviceVar: *mut c_char, type_: i32, norm: i32, ext: i32) -> ();
                __gnu_h2f_ieee: fn(h: u16) -> f32;
                __gnu_f2h_ieee: fn(f: f32) -> u16;
                /// `@hip_4.5`.
                amd_dbgapi_get_build_name: fn() -> *const c_char;
                /// `@hip_4.5`.
                amd_dbgapi_get_git_hash: fn() -> *const c_char;
                /// `@hip_4.5`.
                amd_dbgapi_get_build_id: fn() -> usize;
                /// `@hip_5.3`.
                hipRegisterTracerCallback: fn(function: *const c_void) -> ();
                /// Mipmapped arrays (`hip_4.2`; optional in the table only because the real
                /// library's may be absent from a build without image support).
                hipMallocMipmappedArray: fn(mipmappedArray: *mut hipMipmappedArray_t, desc: *const hipChannelFormatDesc, extent: hipExtent, numLevels: u32, flags: u32) -> hipError_t;
                hipFreeMipmappedArray: fn(mipmappedArray: hipMipmappedArray_t) -> hipError_t;
                hipGetMipmappedArrayLevel: fn(levelArray: *mut hipArray_t, mipmappedArray: hipMipmappedArray_const_t, level: u32) -> hipError_t;
                hipMipmappedArrayCreate: fn(pHandle: *mut hipMipmappedArray_t, pMipmappedArrayDesc: *mut HIP_ARRAY3D_DESCRIPTOR, numMipmapLevels: u32) -> hipError_t;
                /// `@hip_4.3`: the 2-D driver copy, as hipMemcpyParam2D.
                hipDrvMemcpy2DUnaligned: fn(pCopy: *const hip_Memcpy2D) -> hipError_t;
                hipMipmappedArrayDestroy: fn(hMipmappedArray: hipMipmappedArray_t) -> hipError_t;
                hipMipmappedArrayGetLevel: fn(pLevelArray: *mut hipArray_t, hMipMappedArray: hipMipmappedArray_t, level: u32) -> hipError_t;
                /// `@hip_6.0`: the 1472-byte layout that 6.x/7.x headers redirect `hipGetDeviceProperties` to.
                hipGetDevicePropertiesR0600: fn(prop: *mut hipDeviceProp_tR0600, deviceId: i32) -> hipError_t;
                /// `@hip_6.0`: like `hipGetLastError`.
                hipExtGetLastError: fn() -> hipError_t;
                /// 6.3+: the successor of `hipHostMalloc`, same signature (its 7.x version node is unconfirmed).
                hipExtHostAlloc: fn(ptr: *mut *mut c_void, size: usize, flags: u32) -> hipError_t;
                /// `@hip_5.3` (clr hip_hcc.map.in): a host function on a stream.
                hipLaunchHostFunc: fn(stream: hipStream_t, fn_: hipHostFn_t, userData: *mut c_void) -> hipError_t;

                // Devices, contexts, streams, events, in their later nodes
                // (`nm -D` of Debian's libamdhip64.so.7, 7.2.4).
                /// `@hip_4.2` in 7.x, absent from 5.2.3.
                hipDeviceGetTexture1DLinearMaxWidth: fn(max_width: *mut usize, desc: *const hipChannelFormatDesc, device: i32) -> hipError_t;
                /// `@hip_4.2` in 7.x, absent from 5.2.3.
                hipStreamGetDevice: fn(stream: hipStream_t, device: *mut hipDevice_t) -> hipError_t;
                /// `@hip_5.3`.
                hipDeviceSetLimit: fn(limit: hipLimit_t, value: usize) -> hipError_t;
                /// `@hip_6.2`: clr answers 801.
                hipSetValidDevices: fn(device_arr: *mut i32, len: i32) -> hipError_t;
                /// `@hip_6.0`: the 1472-byte layout that 6.x/7.x headers redirect `hipChooseDevice` to.
                hipChooseDeviceR0600: fn(device: *mut i32, prop: *const hipDeviceProp_tR0600) -> hipError_t;
                /// `@hip_4.4`.
                hipStreamWaitValue32: fn(stream: hipStream_t, ptr: *mut c_void, value: u32, flags: u32, mask: u32) -> hipError_t;
                /// `@hip_4.4`.
                hipStreamWaitValue64: fn(stream: hipStream_t, ptr: *mut c_void, value: u64, flags: u32, mask: u64) -> hipError_t;
                /// `@hip_4.4`.
                hipStreamWriteValue32: fn(stream: hipStream_t, ptr: *mut c_void, value: u32, flags: u32) -> hipError_t;
                /// `@hip_4.4`.
                hipStreamWriteValue64: fn(stream: hipStream_t, ptr: *mut c_void, value: u64, flags: u32) -> hipError_t;
                /// `@hip_6.4`.
                hipStreamBatchMemOp: fn(stream: hipStream_t, count: u32, paramArray: *mut hipStreamBatchMemOpParams, flags: u32) -> hipError_t;
                /// `@hip_6.4`.
                hipEventRecordWithFlags: fn(event: hipEvent_t, stream: hipStream_t, flags: u32) -> hipError_t;
                /// `@hip_7.1`.
                hipStreamGetId: fn(stream: hipStream_t, streamId: *mut u64) -> hipError_t;
                /// `@hip_7.1`.
                hipStreamGetAttribute: fn(stream: hipStream_t, attr: hipStreamAttrID, value_out: *mut hipStreamAttrValue) -> hipError_t;
                /// `@hip_7.1`.
                hipStreamSetAttribute: fn(stream: hipStream_t, attr: hipStreamAttrID, value: *const hipStreamAttrValue) -> hipError_t;
                /// `@hip_7.2`.
                hipStreamCopyAttributes: fn(dst: hipStream_t, src: hipStream_t) -> hipError_t;
                /// `@hip_5.3`.
                hipDrvGetErrorName: fn(hipError: hipError_t, errorString: *mut *const c_char) -> hipError_t;
                /// `@hip_5.3`.
                hipDrvGetErrorString: fn(hipError: hipError_t, errorString: *mut *const c_char) -> hipError_t;
                // The per-thread-stream variants (`_spt`): a NULL stream is the
                // thread's default stream. `@hip_5.2`, AddCallback and LaunchHostFunc `@hip_5.3`.
                hipStreamSynchronize_spt: fn(stream: hipStream_t) -> hipError_t;
                hipStreamQuery_spt: fn(stream: hipStream_t) -> hipError_t;
                hipStreamWaitEvent_spt: fn(stream: hipStream_t, event: hipEvent_t, flags: u32) -> hipError_t;
                hipStreamGetFlags_spt: fn(stream: hipStream_t, flags: *mut u32) -> hipError_t;
                hipStreamGetPriority_spt: fn(stream: hipStream_t, priority: *mut i32) -> hipError_t;
                hipEventRecord_spt: fn(event: hipEvent_t, stream: hipStream_t) -> hipError_t;
                hipStreamAddCallback_spt: fn(stream: hipStream_t, callback: hipStreamCallback_t, userData: *mut c_void, flags: u32) -> hipError_t;
                hipLaunchHostFunc_spt: fn(stream: hipStream_t, fn_: hipHostFn_t, userData: *mut c_void) -> hipError_t;
                // Stream capture and graphs (Graph Management in the header) of the
                // work vmmkit runs: copies, fills, host functions, event records
                // and waits, allocations and frees; kernel nodes are refused.
                // `@hip_4.3` … `@hip_5.5`, the `_spt` ones `@hip_5.3`.
                hipStreamBeginCapture: fn(stream: hipStream_t, mode: hipStreamCaptureMode) -> hipError_t;
                hipStreamBeginCapture_spt: fn(stream: hipStream_t, mode: hipStreamCaptureMode) -> hipError_t;
                hipStreamEndCapture: fn(stream: hipStream_t, pGraph: *mut hipGraph_t) -> hipError_t;
                hipStreamEndCapture_spt: fn(stream: hipStream_t, pGraph: *mut hipGraph_t) -> hipError_t;
                hipGraphCreate: fn(pGraph: *mut hipGraph_t, flags: u32) -> hipError_t;
                hipGraphDestroy: fn(graph: hipGraph_t) -> hipError_t;
                hipGraphAddMemcpyNode1D: fn(pGraphNode: *mut hipGraphNode_t, graph: hipGraph_t, pDependencies: *const hipGraphNode_t, numDependencies: usize, dst: *mut c_void, src: *const c_void, count: usize, kind: hipMemcpyKind) -> hipError_t;
                hipGraphAddMemsetNode: fn(pGraphNode: *mut hipGraphNode_t, graph: hipGraph_t, pDependencies: *const hipGraphNode_t, numDependencies: usize, pMemsetParams: *const hipMemsetParams) -> hipError_t;
                hipGraphAddHostNode: fn(pGraphNode: *mut hipGraphNode_t, graph: hipGraph_t, pDependencies: *const hipGraphNode_t, numDependencies: usize, pNodeParams: *const hipHostNodeParams) -> hipError_t;
                hipGraphAddEventRecordNode: fn(pGraphNode: *mut hipGraphNode_t, graph: hipGraph_t, pDependencies: *const hipGraphNode_t, numDependencies: usize, event: hipEvent_t) -> hipError_t;
                hipGraphAddEventWaitNode: fn(pGraphNode: *mut hipGraphNode_t, graph: hipGraph_t, pDependencies: *const hipGraphNode_t, numDependencies: usize, event: hipEvent_t) -> hipError_t;
                hipGraphAddEmptyNode: fn(pGraphNode: *mut hipGraphNode_t, graph: hipGraph_t, pDependencies: *const hipGraphNode_t, numDependencies: usize) -> hipError_t;
                hipGraphAddMemAllocNode: fn(pGraphNode: *mut hipGraphNode_t, graph: hipGraph_t, pDependencies: *const hipGraphNode_t, numDependencies: usize, pNodeParams: *mut hipMemAllocNodeParams) -> hipError_t;
                hipGraphAddMemFreeNode: fn(pGraphNode: *mut hipGraphNode_t, graph: hipGraph_t, pDependencies: *const hipGraphNode_t, numDependencies: usize, dev_ptr: *mut c_void) -> hipError_t;
                hipGraphGetNodes: fn(graph: hipGraph_t, nodes: *mut hipGraphNode_t, numNodes: *mut usize) -> hipError_t;
                hipGraphGetRootNodes: fn(graph: hipGraph_t, pRootNodes: *mut hipGraphNode_t, pNumRootNodes: *mut usize) -> hipError_t;
                hipGraphInstantiate: fn(pGraphExec: *mut hipGraphExec_t, graph: hipGraph_t, pErrorNode: *mut hipGraphNode_t, pLogBuffer: *mut c_char, bufferSize: usize) -> hipError_t;
                hipGraphInstantiateWithFlags: fn(pGraphExec: *mut hipGraphExec_t, graph: hipGraph_t, flags: u64) -> hipError_t;
                hipGraphLaunch: fn(graphExec: hipGraphExec_t, stream: hipStream_t) -> hipError_t;
                hipGraphLaunch_spt: fn(graphExec: hipGraphExec_t, stream: hipStream_t) -> hipError_t;
                hipGraphExecDestroy: fn(graphExec: hipGraphExec_t) -> hipError_t;
                hipStreamIsCapturing: fn(stream: hipStream_t, pCaptureStatus: *mut hipStreamCaptureStatus) -> hipError_t;
                hipStreamIsCapturing_spt: fn(stream: hipStream_t, pCaptureStatus: *mut hipStreamCaptureStatus) -> hipError_t;
                hipStreamGetCaptureInfo: fn(stream: hipStream_t, pCaptureStatus: *mut hipStreamCaptureStatus, pId: *mut u64) -> hipError_t;
                hipStreamGetCaptureInfo_spt: fn(stream: hipStream_t, pCaptureStatus: *mut hipStreamCaptureStatus, pId: *mut u64) -> hipError_t;
                hipStreamGetCaptureInfo_v2: fn(stream: hipStream_t, captureStatus_out: *mut hipStreamCaptureStatus, id_out: *mut u64, graph_out: *mut hipGraph_t, dependencies_out: *mut *const hipGraphNode_t, numDependencies_out: *mut usize) -> hipError_t;
                hipStreamGetCaptureInfo_v2_spt: fn(stream: hipStream_t, captureStatus_out: *mut hipStreamCaptureStatus, id_out: *mut u64, graph_out: *mut hipGraph_t, dependencies_out: *mut *const hipGraphNode_t, numDependencies_out: *mut usize) -> hipError_t;
                hipThreadExchangeStreamCaptureMode: fn(mode: *mut hipStreamCaptureMode) -> hipError_t;
                // Memory. `@hip_4.2` in 7.2.4, but absent from Debian's 5.2.3 library.
                hipPointerSetAttribute: fn(value: *const c_void, attribute: hipPointer_attribute, ptr: hipDeviceptr_t) -> hipError_t;
                // `@hip_5.0`: the driver-style pointer queries.
                hipPointerGetAttribute: fn(data: *mut c_void, attribute: hipPointer_attribute, ptr: hipDeviceptr_t) -> hipError_t;
                hipDrvPointerGetAttributes: fn(numAttributes: u32, attributes: *mut hipPointer_attribute, data: *mut *mut c_void, ptr: hipDeviceptr_t) -> hipError_t;
                // `@hip_5.2`: on the calling thread's default stream (`hipStreamPerThread`).
                hipMemcpy_spt: fn(dst: *mut c_void, src: *const c_void, sizeBytes: usize, kind: hipMemcpyKind) -> hipError_t;
                hipMemset_spt: fn(dst: *mut c_void, value: i32, sizeBytes: usize) -> hipError_t;
                hipMemcpy2D_spt: fn(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind) -> hipError_t;
                hipMemset2D_spt: fn(dst: *mut c_void, pitch: usize, value: i32, width: usize, height: usize) -> hipError_t;
                hipMemcpy3D_spt: fn(p: *const hipMemcpy3DParms) -> hipError_t;
                hipMemset3D_spt: fn(pitchedDevPtr: hipPitchedPtr, value: i32, extent: hipExtent) -> hipError_t;
                hipMemcpyAsync_spt: fn(dst: *mut c_void, src: *const c_void, sizeBytes: usize, kind: hipMemcpyKind, stream: hipStream_t) -> hipError_t;
                // `@hip_5.3`.
                hipMemsetAsync_spt: fn(dst: *mut c_void, value: i32, sizeBytes: usize, stream: hipStream_t) -> hipError_t;
                hipMemcpy2DAsync_spt: fn(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind, stream: hipStream_t) -> hipError_t;
                hipMemset2DAsync_spt: fn(dst: *mut c_void, pitch: usize, value: i32, width: usize, height: usize, stream: hipStream_t) -> hipError_t;
                hipMemcpy3DAsync_spt: fn(p: *const hipMemcpy3DParms, stream: hipStream_t) -> hipError_t;
                hipMemset3DAsync_spt: fn(pitchedDevPtr: hipPitchedPtr, value: i32, extent: hipExtent, stream: hipStream_t) -> hipError_t;
                /// `@hip_6.1`: `symbolStatus` is a `hipDriverProcAddressQueryResult*` (an `int`).
                hipGetProcAddress: fn(symbol: *const c_char, pfn: *mut *mut c_void, hipVersion: i32, flags: u64, symbolStatus: *mut i32) -> hipError_t;
                // Arrays: `@hip_4.3`.
                hipArrayDestroy: fn(array: hipArray_t) -> hipError_t;
                hipMemcpy2DToArrayAsync: fn(dst: hipArray_t, wOffset: usize, hOffset: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind, stream: hipStream_t) -> hipError_t;
                // `@hip_5.2`.
                hipMemcpy2DToArray_spt: fn(dst: hipArray_t, wOffset: usize, hOffset: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind) -> hipError_t;
                hipMemcpy2DFromArray_spt: fn(dst: *mut c_void, dpitch: usize, src: hipArray_t, wOffset: usize, hOffset: usize, width: usize, height: usize, kind: hipMemcpyKind) -> hipError_t;
                // `@hip_5.3`.
                hipMemcpy2DToArrayAsync_spt: fn(dst: hipArray_t, wOffset: usize, hOffset: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind, stream: hipStream_t) -> hipError_t;
                hipMemcpy2DFromArrayAsync_spt: fn(dst: *mut c_void, dpitch: usize, src: hipArray_t, wOffset: usize, hOffset: usize, width: usize, height: usize, kind: hipMemcpyKind, stream: hipStream_t) -> hipError_t;
                hipMemcpyFromArray_spt: fn(dst: *mut c_void, srcArray: hipArray_t, wOffset: usize, hOffset: usize, count: usize, kind: hipMemcpyKind) -> hipError_t;
                // `@hip_5.6`.
                hipArrayGetInfo: fn(desc: *mut hipChannelFormatDesc, extent: *mut hipExtent, flags: *mut u32, array: hipArray_t) -> hipError_t;
                hipArrayGetDescriptor: fn(pArrayDescriptor: *mut HIP_ARRAY_DESCRIPTOR, array: hipArray_t) -> hipError_t;
                hipArray3DGetDescriptor: fn(pArrayDescriptor: *mut HIP_ARRAY3D_DESCRIPTOR, array: hipArray_t) -> hipError_t;
                // `@hip_6.2`.
                hipMemcpy2DArrayToArray: fn(dst: hipArray_t, wOffsetDst: usize, hOffsetDst: usize, src: hipArray_t, wOffsetSrc: usize, hOffsetSrc: usize, width: usize, height: usize, kind: hipMemcpyKind) -> hipError_t;
                hipMemcpyAtoA: fn(dstArray: hipArray_t, dstOffset: usize, srcArray: hipArray_t, srcOffset: usize, ByteCount: usize) -> hipError_t;
                hipMemcpyAtoD: fn(dstDevice: hipDeviceptr_t, srcArray: hipArray_t, srcOffset: usize, ByteCount: usize) -> hipError_t;
                hipMemcpyAtoHAsync: fn(dstHost: *mut c_void, srcArray: hipArray_t, srcOffset: usize, ByteCount: usize, stream: hipStream_t) -> hipError_t;
                hipMemcpyDtoA: fn(dstArray: hipArray_t, dstOffset: usize, srcDevice: hipDeviceptr_t, ByteCount: usize) -> hipError_t;
                hipMemcpyHtoAAsync: fn(dstArray: hipArray_t, dstOffset: usize, srcHost: *const c_void, ByteCount: usize, stream: hipStream_t) -> hipError_t;
                // `@hip_7.1`: 2-D fills of 8/16/32-bit elements (`width` in elements,
                // `dstPitch` in bytes), the peer 3-D copy, advice and prefetch to a location.
                hipMemsetD2D8: fn(dst: hipDeviceptr_t, dstPitch: usize, value: u8, width: usize, height: usize) -> hipError_t;
                hipMemsetD2D8Async: fn(dst: hipDeviceptr_t, dstPitch: usize, value: u8, width: usize, height: usize, stream: hipStream_t) -> hipError_t;
                hipMemsetD2D16: fn(dst: hipDeviceptr_t, dstPitch: usize, value: u16, width: usize, height: usize) -> hipError_t;
                hipMemsetD2D16Async: fn(dst: hipDeviceptr_t, dstPitch: usize, value: u16, width: usize, height: usize, stream: hipStream_t) -> hipError_t;
                hipMemsetD2D32: fn(dst: hipDeviceptr_t, dstPitch: usize, value: u32, width: usize, height: usize) -> hipError_t;
                hipMemsetD2D32Async: fn(dst: hipDeviceptr_t, dstPitch: usize, value: u32, width: usize, height: usize, stream: hipStream_t) -> hipError_t;
                hipMemcpy3DPeer: fn(p: *mut hipMemcpy3DPeerParms) -> hipError_t;
                hipMemcpy3DPeerAsync: fn(p: *mut hipMemcpy3DPeerParms, stream: hipStream_t) -> hipError_t;
                hipMemAdvise_v2: fn(dev_ptr: *const c_void, count: usize, advice: hipMemoryAdvise, location: hipMemLocation) -> hipError_t;
                hipMemPrefetchAsync_v2: fn(dev_ptr: *const c_void, count: usize, location: hipMemLocation, flags: u32, stream: hipStream_t) -> hipError_t;
            }
        }
    };
}

crate::hip_functions!(crate::api_table {
    /// The HIP functions vmmkit uses, with their exact C signatures.
    ///
    /// Fill it from a real library with [`HipApi::load`], or take the
    /// emulator's.
    pub struct HipApi;
});

impl HipApi {
    /// Loads `libamdhip64` as [`LIBRARY`] describes, `explicit` first.
    ///
    /// # Errors
    /// A [`LoadError`] naming every path tried, or every missing symbol.
    #[allow(unsafe_code)] // the table from the loaded library
    pub fn load(explicit: Option<&Path>) -> Result<Loaded<Self>, LoadError> {
        crate::loader::load(&LIBRARY, explicit, |lib| {
            // SAFETY: a library found under the HIP names exports the HIP C ABI;
            // it is leaked, so it outlives the table.
            unsafe { Self::from_library(lib) }
        })
    }
}
