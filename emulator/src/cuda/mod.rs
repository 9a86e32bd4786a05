//! The CUDA dialect: the CUDA driver functions of reference cuda.md (the
//! 12.6 driver API, `_v2` entry points), with its checks in its order and
//! its codes.
//!
//! Every entry point is a safe function of the C arguments, its pointers
//! wrapped ([`crate::ffi`]); [`entry`] makes each an `unsafe extern "C" fn`
//! with the exact C signature, and [`api`] hands those out as a [`CudaApi`] table, whose fields
//! are named without the `_v2` suffix of the symbols they stand for
//! (`cuMemAlloc` is `cuMemAlloc_v2`). On failure each sets the thread's
//! message naming the rule, e.g.
//! `CUDA-VMM-008: cuMemMap: offset must be 0, got 0x200000 (1 CUDA_ERROR_INVALID_VALUE)`,
//! read with `vmmkit_emulator::core::thread::message()`.
//!
//! As on the driver: nothing works before `cuInit(0)` (3), and memory, VMM
//! and IPC calls need a current context on the calling thread (201,
//! [CUDA-GEN-002](vmmkit_sys::cuda::rules::GEN_002)): retain the device's primary context and make it current,
//! on every thread that calls them. Device memory is the core's: cuMemAlloc
//! is a plain allocation (exported to the registry on cuIpcGetMemHandle),
//! cuMemCreate a physical handle, and IPC handles and POSIX fds name
//! registry entries, so ACL, HIP and CUDA processes of one root share one
//! set of devices and one capacity.
//!
//! ```
//! use vmmkit_sys::cuda::*;
//! let cu = vmmkit_emulator::cuda::api();
//! # let dir = tempfile::tempdir().unwrap();
//! # vmmkit_emulator::install(vmmkit_emulator::Config::new(dir.path())).unwrap();
//! let mut p = 0;
//! // Before cuInit: 3.
//! assert_eq!(CuResult(unsafe { (cu.cuMemAlloc)(&mut p, 4096) }), CuResult::NOT_INITIALIZED);
//! assert_eq!(CuResult(unsafe { (cu.cuInit)(0) }), CuResult::SUCCESS);
//! // No current context: 201 (CUDA-GEN-002).
//! assert_eq!(CuResult(unsafe { (cu.cuMemAlloc)(&mut p, 4096) }), CuResult::INVALID_CONTEXT);
//! let mut ctx = std::ptr::null_mut();
//! assert_eq!(CuResult(unsafe { (cu.cuDevicePrimaryCtxRetain)(&mut ctx, 0) }), CuResult::SUCCESS);
//! assert_eq!(CuResult(unsafe { (cu.cuCtxSetCurrent)(ctx) }), CuResult::SUCCESS);
//! assert_eq!(CuResult(unsafe { (cu.cuMemAlloc)(&mut p, 4096) }), CuResult::SUCCESS);
//! assert_eq!(CuResult(unsafe { (cu.cuMemsetD8)(p, 7, 4096) }), CuResult::SUCCESS);
//! assert_eq!(CuResult(unsafe { (cu.cuMemFree)(p) }), CuResult::SUCCESS);
//! assert_eq!(CuResult(unsafe { (cu.cuDevicePrimaryCtxRelease)(0) }), CuResult::SUCCESS);
//! ```

mod call;
mod codes;
mod pointer;
mod profile;
mod state;

use vmmkit_sys::cuda::CudaApi;

// # Safety (every entry point of the `modules` below): the C contract of the
// CUDA driver function of the same name. Pointers the driver checks for NULL
// are checked here too and get its code; any other pointer must be valid for
// what the function reads or writes, as with the real library. Handles,
// contexts and addresses of unknown value are looked up, never dereferenced.
crate::dialect_api! {
    vendor: "CUDA",
    functions: vmmkit_sys::cuda_functions,
    types: vmmkit_sys::cuda,
    table: CudaApi,
    modules: context, error, event, graph, ipc, proc, share, vmm,
    #[allow(unsafe_code, reason = "copies and fills device memory, and host memory the program passes")]
    memory,
    #[allow(unsafe_code, reason = "enqueues frees of device memory on streams")]
    pool,
    #[allow(unsafe_code, reason = "enqueues work on device memory and calls the program's host functions")]
    stream,
}
