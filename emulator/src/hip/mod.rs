//! The HIP dialect: the HIP functions of reference hip.md (profile 6.x, its
//! default), with its checks in its order and its codes.
//!
//! Every entry point is a safe function of the C arguments, its pointers
//! wrapped ([`crate::ffi`]); [`entry`] makes each an `unsafe extern "C" fn` with the exact C signature
//! and name; [`api`] hands them out as a [`HipApi`] table, and the drop-in
//! `libamdhip64.so` exports them by name with the vendor's symbol versions.
//! Every call stores its code as the thread's last error (hip.md §2.1,
//! profile 6.x: success included); on failure it also sets the thread's
//! message naming the rule, e.g.
//! `HIP-IPC-024: hipIpcOpenMemHandle: the handle was made by this process (…) (201 hipErrorInvalidContext)`.
//!
//! Device memory is the core's: hipMalloc is a plain allocation (shareable,
//! exported to the registry on hipIpcGetMemHandle), hipMemCreate a physical
//! handle, and IPC handles and POSIX fds name registry entries, so ACL and
//! HIP processes of one root share one set of devices and one capacity.
//!
//! ```
//! use vmmkit_sys::hip::{HipError, hipIpcMemHandle_t};
//! let hip = vmmkit_emulator::hip::api();
//! # let dir = tempfile::tempdir().unwrap();
//! # vmmkit_emulator::install(vmmkit_emulator::Config::new(dir.path())).unwrap();
//! let mut count = 0;
//! assert_eq!(HipError(unsafe { (hip.hipGetDeviceCount)(&mut count) }), HipError::SUCCESS);
//! assert_eq!(count, vmmkit_emulator::Config::DEFAULT_DEVICES as i32); // 16 by default (VMMKIT_SOC, VMMKIT_DEVICES)
//! // An all-zero IPC handle is refused (HIP-IPC-022), and that is the last error.
//! let mut p = std::ptr::null_mut();
//! let rc = unsafe { (hip.hipIpcOpenMemHandle)(&mut p, hipIpcMemHandle_t::default(), 1) };
//! assert_eq!(HipError(rc), HipError::INVALID_VALUE);
//! assert_eq!(HipError(unsafe { (hip.hipGetLastError)() }), HipError::INVALID_VALUE);
//! assert_eq!(HipError(unsafe { (hip.hipGetLastError)() }), HipError::SUCCESS);
//! ```

mod call;
mod codes;
mod device_attributes;
mod pointer;
#[allow(unsafe_code, reason = "asks the dynamic loader which library holds the emulator")]
mod profile;
mod ranges;
mod state;

use vmmkit_sys::hip::HipApi;

// # Safety (every entry point of the `modules` below): the C contract of the
// HIP function of the same name. Pointers the vendor checks for NULL are
// checked here too and get its code; any other pointer must be valid for
// what the function reads or writes, as with the real library. Handles and
// addresses of unknown value are looked up, never dereferenced.
crate::dialect_api! {
    vendor: "HIP",
    functions: vmmkit_sys::hip_functions,
    types: vmmkit_sys::hip,
    table: HipApi,
    modules: capture, context, device, error, event, graph, ipc, share, vmm,
    #[allow(unsafe_code, reason = "copies and fills device memory, and host memory the program passes")]
    memory,
    #[allow(unsafe_code, reason = "enqueues frees of device memory on streams")]
    pool,
    #[allow(unsafe_code, reason = "copies a managed variable's initial value into device memory")]
    register,
    #[allow(unsafe_code, reason = "enqueues work on device memory and calls the program's host functions")]
    stream,
    #[allow(unsafe_code, reason = "enqueues waits and writes on device memory")]
    stream_ops,
    // Memory.
    array, pointer_attributes, host, managed, mipmap, pitched, proc, tooling,
}
