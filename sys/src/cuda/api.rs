//! `CudaApi`: the CUDA driver entry points of reference cuda.md §1.3 and §2.1, as C function
//! pointers.
#![allow(non_snake_case)]

use std::ffi::{c_char, c_void};
use std::path::Path;

use super::types::*;
use crate::loader::{LibrarySpec, LoadError, Loaded};

/// Where the driver is looked for: `VMMKIT_CUDA_LIBRARY` (a file), then the
/// soname `libcuda.so.1` through the loader's search path and the
/// distributions' library directories. Plain `libcuda.so` is refused: it is a
/// developer symlink, or the toolkit's stub whose every call returns 34
/// (cuda.md §1.1).
pub const LIBRARY: LibrarySpec = LibrarySpec {
    vendor: "CUDA",
    path_env: "VMMKIT_CUDA_LIBRARY",
    home_env: None,
    names: &["libcuda.so.1"],
    default_dirs: &["/usr/lib/x86_64-linux-gnu", "/usr/lib64"],
    refused: &["libcuda.so"],
};

/// Every CUDA driver function vmmkit uses, once, with its C signature and
/// parameter names, passed to `$cb` after `$pre`. [`CudaApi`] is one
/// expansion; an emulator's drop-in `libcuda.so.1` would be another. The
/// expansion site must have `vmmkit_sys::cuda::*` and `std::ffi::{c_char,
/// c_void}` in scope.
///
/// A field without suffix resolves the suffixed symbol cuda.md §1.2 names
/// (`cuMemAlloc = "cuMemAlloc_v2"`): the unsuffixed exports are legacy entry
/// points with an older ABI. Signatures cuda.md §2.1 does not spell out
/// (marked "cuda.h") are those of the CUDA 12 `cuda.h`.
#[macro_export]
macro_rules! cuda_functions {
    ($cb:path { $($pre:tt)* }) => {
        $cb! {
            $($pre)*
            required {
                /// flags must be 0 ([CUDA-GEN-001](crate::cuda::rules::GEN_001)).
                cuInit: fn(Flags: u32) -> CUresult;
                /// cuda.h signature.
                cuDriverGetVersion: fn(driverVersion: *mut i32) -> CUresult;
                cuDeviceGet: fn(device: *mut CUdevice, ordinal: i32) -> CUresult;
                /// cuda.h signature.
                cuDeviceGetCount: fn(count: *mut i32) -> CUresult;
                /// cuda.h signature.
                cuDeviceGetAttribute: fn(pi: *mut i32, attrib: CUdevice_attribute, dev: CUdevice) -> CUresult;
                /// Does not make the context current.
                cuDevicePrimaryCtxRetain: fn(pctx: *mut CUcontext, dev: CUdevice) -> CUresult;
                /// cuda.h signature.
                cuDevicePrimaryCtxRelease = "cuDevicePrimaryCtxRelease_v2": fn(dev: CUdevice) -> CUresult;
                cuCtxSetCurrent: fn(ctx: CUcontext) -> CUresult;
                /// cuda.h signature.
                cuCtxGetCurrent: fn(pctx: *mut CUcontext) -> CUresult;

                cuMemAlloc = "cuMemAlloc_v2": fn(dptr: *mut CUdeviceptr, bytesize: usize) -> CUresult;
                cuMemFree = "cuMemFree_v2": fn(dptr: CUdeviceptr) -> CUresult;
                cuMemcpyHtoD = "cuMemcpyHtoD_v2": fn(dstDevice: CUdeviceptr, srcHost: *const c_void, ByteCount: usize) -> CUresult;
                cuMemcpyDtoH = "cuMemcpyDtoH_v2": fn(dstHost: *mut c_void, srcDevice: CUdeviceptr, ByteCount: usize) -> CUresult;
                /// cuda.h signature.
                cuMemcpyDtoD = "cuMemcpyDtoD_v2": fn(dstDevice: CUdeviceptr, srcDevice: CUdeviceptr, ByteCount: usize) -> CUresult;
                cuMemsetD8 = "cuMemsetD8_v2": fn(dstDevice: CUdeviceptr, uc: u8, N: usize) -> CUresult;
                cuMemGetAddressRange = "cuMemGetAddressRange_v2": fn(pbase: *mut CUdeviceptr, psize: *mut usize, dptr: CUdeviceptr) -> CUresult;

                cuIpcGetMemHandle: fn(pHandle: *mut CUipcMemHandle, dptr: CUdeviceptr) -> CUresult;
                /// The 64-byte handle is passed by value (in memory, under the SysV x86-64 ABI).
                cuIpcOpenMemHandle = "cuIpcOpenMemHandle_v2": fn(pdptr: *mut CUdeviceptr, handle: CUipcMemHandle, Flags: u32) -> CUresult;
                cuIpcCloseMemHandle: fn(dptr: CUdeviceptr) -> CUresult;

                cuMemGetAllocationGranularity: fn(granularity: *mut usize, prop: *const CUmemAllocationProp, option: CUmemAllocationGranularity_flags) -> CUresult;
                cuMemCreate: fn(handle: *mut CUmemGenericAllocationHandle, size: usize, prop: *const CUmemAllocationProp, flags: u64) -> CUresult;
                cuMemRelease: fn(handle: CUmemGenericAllocationHandle) -> CUresult;
                cuMemAddressReserve: fn(ptr: *mut CUdeviceptr, size: usize, alignment: usize, addr: CUdeviceptr, flags: u64) -> CUresult;
                cuMemAddressFree: fn(ptr: CUdeviceptr, size: usize) -> CUresult;
                cuMemMap: fn(ptr: CUdeviceptr, size: usize, offset: usize, handle: CUmemGenericAllocationHandle, flags: u64) -> CUresult;
                cuMemUnmap: fn(ptr: CUdeviceptr, size: usize) -> CUresult;
                cuMemSetAccess: fn(ptr: CUdeviceptr, size: usize, desc: *const CUmemAccessDesc, count: usize) -> CUresult;
                cuMemGetAccess: fn(flags: *mut u64, location: *const CUmemLocation, ptr: CUdeviceptr) -> CUresult;
                /// For a POSIX fd, writes an `int` at `shareableHandle`.
                cuMemExportToShareableHandle: fn(shareableHandle: *mut c_void, handle: CUmemGenericAllocationHandle, handleType: CUmemAllocationHandleType, flags: u64) -> CUresult;
                /// For a POSIX fd, `osHandle` is the fd value cast to a pointer; the caller keeps the fd.
                cuMemImportFromShareableHandle: fn(handle: *mut CUmemGenericAllocationHandle, osHandle: *mut c_void, shHandleType: CUmemAllocationHandleType) -> CUresult;
                cuMemRetainAllocationHandle: fn(handle: *mut CUmemGenericAllocationHandle, addr: *mut c_void) -> CUresult;
                cuMemGetAllocationPropertiesFromHandle: fn(prop: *mut CUmemAllocationProp, handle: CUmemGenericAllocationHandle) -> CUresult;

                // Stream-ordered memory pools (11.2+), cuda.h signatures.
                cuDeviceGetDefaultMemPool: fn(pool_out: *mut CUmemoryPool, dev: CUdevice) -> CUresult;
                cuDeviceGetMemPool: fn(pool: *mut CUmemoryPool, dev: CUdevice) -> CUresult;
                cuDeviceSetMemPool: fn(dev: CUdevice, pool: CUmemoryPool) -> CUresult;
                cuMemAllocAsync: fn(dptr: *mut CUdeviceptr, bytesize: usize, hStream: CUstream) -> CUresult;
                cuMemAllocFromPoolAsync: fn(dptr: *mut CUdeviceptr, bytesize: usize, pool: CUmemoryPool, hStream: CUstream) -> CUresult;
                cuMemFreeAsync: fn(dptr: CUdeviceptr, hStream: CUstream) -> CUresult;
                cuMemPoolCreate: fn(pool: *mut CUmemoryPool, poolProps: *const CUmemPoolProps) -> CUresult;
                cuMemPoolDestroy: fn(pool: CUmemoryPool) -> CUresult;
                cuMemPoolSetAttribute: fn(pool: CUmemoryPool, attr: CUmemPool_attribute, value: *mut c_void) -> CUresult;
                cuMemPoolGetAttribute: fn(pool: CUmemoryPool, attr: CUmemPool_attribute, value: *mut c_void) -> CUresult;
                cuMemPoolSetAccess: fn(pool: CUmemoryPool, map: *const CUmemAccessDesc, count: usize) -> CUresult;
                cuMemPoolGetAccess: fn(flags: *mut CUmemAccess_flags, memPool: CUmemoryPool, location: *mut CUmemLocation) -> CUresult;
                cuMemPoolTrimTo: fn(pool: CUmemoryPool, minBytesToKeep: usize) -> CUresult;
                /// For a POSIX fd, writes an `int` at `handle_out`.
                cuMemPoolExportToShareableHandle: fn(handle_out: *mut c_void, pool: CUmemoryPool, handleType: CUmemAllocationHandleType, flags: u64) -> CUresult;
                /// For a POSIX fd, `handle` is the fd value cast to a pointer; the caller keeps the fd.
                cuMemPoolImportFromShareableHandle: fn(pool_out: *mut CUmemoryPool, handle: *mut c_void, handleType: CUmemAllocationHandleType, flags: u64) -> CUresult;
                cuMemPoolExportPointer: fn(shareData_out: *mut CUmemPoolPtrExportData, ptr: CUdeviceptr) -> CUresult;
                cuMemPoolImportPointer: fn(ptr_out: *mut CUdeviceptr, pool: CUmemoryPool, shareData: *mut CUmemPoolPtrExportData) -> CUresult;

                /// An unknown code → 1 ([CUDA-GEN-003](crate::cuda::rules::GEN_003)).
                cuGetErrorName: fn(error: CUresult, pStr: *mut *const c_char) -> CUresult;
                cuGetErrorString: fn(error: CUresult, pStr: *mut *const c_char) -> CUresult;
                // Streams, events, IPC events and async copies, cuda.h 12.x
                // signatures; `_v2` where cuda.h maps the name to one.
                cuStreamCreate: fn(phStream: *mut CUstream, Flags: u32) -> CUresult;
                cuStreamCreateWithPriority: fn(phStream: *mut CUstream, flags: u32, priority: i32) -> CUresult;
                /// Returns at once; pending work still completes.
                cuStreamDestroy = "cuStreamDestroy_v2": fn(hStream: CUstream) -> CUresult;
                cuStreamSynchronize: fn(hStream: CUstream) -> CUresult;
                /// 0 when all work is done, 600 (NOT_READY) otherwise.
                cuStreamQuery: fn(hStream: CUstream) -> CUresult;
                cuStreamWaitEvent: fn(hStream: CUstream, hEvent: CUevent, Flags: u32) -> CUresult;
                cuStreamGetFlags: fn(hStream: CUstream, flags: *mut u32) -> CUresult;
                cuStreamGetPriority: fn(hStream: CUstream, priority: *mut i32) -> CUresult;
                cuStreamAddCallback: fn(hStream: CUstream, callback: CUstreamCallback, userData: *mut c_void, flags: u32) -> CUresult;
                cuLaunchHostFunc: fn(hStream: CUstream, fn_: CUhostFn, userData: *mut c_void) -> CUresult;
                cuStreamWriteValue32 = "cuStreamWriteValue32_v2": fn(stream: CUstream, addr: CUdeviceptr, value: u32, flags: u32) -> CUresult;
                cuStreamWaitValue32 = "cuStreamWaitValue32_v2": fn(stream: CUstream, addr: CUdeviceptr, value: u32, flags: u32) -> CUresult;
                cuStreamWriteValue64 = "cuStreamWriteValue64_v2": fn(stream: CUstream, addr: CUdeviceptr, value: u64, flags: u32) -> CUresult;
                cuStreamWaitValue64 = "cuStreamWaitValue64_v2": fn(stream: CUstream, addr: CUdeviceptr, value: u64, flags: u32) -> CUresult;
                cuEventCreate: fn(phEvent: *mut CUevent, Flags: u32) -> CUresult;
                cuEventRecord: fn(hEvent: CUevent, hStream: CUstream) -> CUresult;
                /// 0 when the last record completed (or none was made), 600 otherwise.
                cuEventQuery: fn(hEvent: CUevent) -> CUresult;
                cuEventSynchronize: fn(hEvent: CUevent) -> CUresult;
                cuEventElapsedTime: fn(pMilliseconds: *mut f32, hStart: CUevent, hEnd: CUevent) -> CUresult;
                cuEventDestroy = "cuEventDestroy_v2": fn(hEvent: CUevent) -> CUresult;
                cuIpcGetEventHandle: fn(pHandle: *mut CUipcEventHandle, event: CUevent) -> CUresult;
                /// The 64-byte handle is passed by value.
                cuIpcOpenEventHandle: fn(phEvent: *mut CUevent, handle: CUipcEventHandle) -> CUresult;
                cuMemcpyAsync: fn(dst: CUdeviceptr, src: CUdeviceptr, ByteCount: usize, hStream: CUstream) -> CUresult;
                cuMemcpyHtoDAsync = "cuMemcpyHtoDAsync_v2": fn(dstDevice: CUdeviceptr, srcHost: *const c_void, ByteCount: usize, hStream: CUstream) -> CUresult;
                cuMemcpyDtoHAsync = "cuMemcpyDtoHAsync_v2": fn(dstHost: *mut c_void, srcDevice: CUdeviceptr, ByteCount: usize, hStream: CUstream) -> CUresult;
                cuMemcpyDtoDAsync = "cuMemcpyDtoDAsync_v2": fn(dstDevice: CUdeviceptr, srcDevice: CUdeviceptr, ByteCount: usize, hStream: CUstream) -> CUresult;
                cuMemsetD8Async: fn(dstDevice: CUdeviceptr, uc: u8, N: usize, hStream: CUstream) -> CUresult;
                cuMemsetD32Async: fn(dstDevice: CUdeviceptr, ui: u32, N: usize, hStream: CUstream) -> CUresult;
                /// Waits for all work of the current context's device.
                cuCtxSynchronize: fn() -> CUresult;
            }
            optional {
                /// 12.0+. `status`: 0 found, 1 not found, 2 version not sufficient. cuda.md gives
                /// the parameters; the `CUresult` return is cuda.h's.
                cuGetProcAddress = "cuGetProcAddress_v2": fn(symbol: *const c_char, pfn: *mut *mut c_void, cudaVersion: i32, flags: u64, symbolStatus: *mut i32) -> CUresult;
                // Stream capture and graphs of copies, memsets, host functions and events (10.0+).
                cuStreamBeginCapture = "cuStreamBeginCapture_v2": fn(hStream: CUstream, mode: CUstreamCaptureMode) -> CUresult;
                cuStreamEndCapture: fn(hStream: CUstream, phGraph: *mut CUgraph) -> CUresult;
                cuStreamIsCapturing: fn(hStream: CUstream, captureStatus: *mut CUstreamCaptureStatus) -> CUresult;
                cuThreadExchangeStreamCaptureMode: fn(mode: *mut CUstreamCaptureMode) -> CUresult;
                cuGraphCreate: fn(phGraph: *mut CUgraph, flags: u32) -> CUresult;
                cuGraphDestroy: fn(hGraph: CUgraph) -> CUresult;
                cuGraphAddMemsetNode: fn(phGraphNode: *mut CUgraphNode, hGraph: CUgraph, dependencies: *const CUgraphNode, numDependencies: usize, memsetParams: *const CUDA_MEMSET_NODE_PARAMS, ctx: CUcontext) -> CUresult;
                cuGraphAddHostNode: fn(phGraphNode: *mut CUgraphNode, hGraph: CUgraph, dependencies: *const CUgraphNode, numDependencies: usize, nodeParams: *const CUDA_HOST_NODE_PARAMS) -> CUresult;
                cuGraphAddEventRecordNode: fn(phGraphNode: *mut CUgraphNode, hGraph: CUgraph, dependencies: *const CUgraphNode, numDependencies: usize, event: CUevent) -> CUresult;
                cuGraphAddEventWaitNode: fn(phGraphNode: *mut CUgraphNode, hGraph: CUgraph, dependencies: *const CUgraphNode, numDependencies: usize, event: CUevent) -> CUresult;
                cuGraphAddEmptyNode: fn(phGraphNode: *mut CUgraphNode, hGraph: CUgraph, dependencies: *const CUgraphNode, numDependencies: usize) -> CUresult;
                cuGraphInstantiateWithFlags: fn(phGraphExec: *mut CUgraphExec, hGraph: CUgraph, flags: u64) -> CUresult;
                cuGraphLaunch: fn(hGraphExec: CUgraphExec, hStream: CUstream) -> CUresult;
                cuGraphExecDestroy: fn(hGraphExec: CUgraphExec) -> CUresult;
            }
        }
    };
}

crate::cuda_functions!(crate::api_table {
    /// The CUDA driver functions vmmkit uses, with their exact C signatures.
    ///
    /// Fill it from a real driver with [`CudaApi::load`]. Call `cuInit(0)`
    /// first: 100 means no GPU, 34 the stub library; both are "not supported".
    pub struct CudaApi;
});

impl CudaApi {
    /// Loads `libcuda.so.1` as [`LIBRARY`] describes, `explicit` first.
    ///
    /// # Errors
    /// A [`LoadError`] naming every path tried, or every missing symbol;
    /// [`LoadError::Refused`] for a file named `libcuda.so`.
    #[allow(unsafe_code)] // the table from the loaded library
    pub fn load(explicit: Option<&Path>) -> Result<Loaded<Self>, LoadError> {
        crate::loader::load(&LIBRARY, explicit, |lib| {
            // SAFETY: a library found under the CUDA driver's soname exports the
            // driver's C ABI; it is leaked, so it outlives the table.
            unsafe { Self::from_library(lib) }
        })
    }
}
