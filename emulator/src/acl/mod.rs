//! The ACL dialect: the ACL functions of reference acl.md, with its checks in
//! its order and its codes.
//!
//! Every entry point is a safe function of the C arguments, its pointers
//! wrapped ([`crate::ffi`]); [`entry`] makes each an `unsafe extern "C" fn`
//! with the exact C signature and name; [`api`] hands them out as an
//! [`AclApi`] table, and the drop-in
//! `libascendcl.so` exports them by name. On failure each sets the thread's
//! message (read by `aclGetRecentErrMsg`) naming the rule, e.g.
//! `ACL-MAP-003: aclrtMapMem: flags must be 0, got 2 (100000 ACL_ERROR_INVALID_PARAM)`.
//!
//! ```
//! use vmmkit_sys::acl::AclError;
//! let acl = vmmkit_emulator::acl::api();
//! let mut count = 0u32;
//! # let dir = tempfile::tempdir().unwrap();
//! # vmmkit_emulator::install(vmmkit_emulator::Config::new(dir.path())).unwrap();
//! let rc = unsafe { (acl.aclrtGetDeviceCount)(&mut count) };
//! assert_eq!(AclError(rc), AclError::SUCCESS);
//! assert_eq!(count, vmmkit_emulator::Config::DEFAULT_DEVICES); // 16: the default chip's (A3) server
//! // A map before any reservation: 100000 for the zero size, checked first.
//! let rc = unsafe { (acl.aclrtMapMem)(0x1000 as _, 0, 0, 0x1 as _, 0) };
//! assert_eq!(AclError(rc), AclError::INVALID_PARAM);
//! ```

#[allow(unsafe_code, reason = "frees and lends the objects it hands out by pointer")]
mod boxes;
mod call;
mod codes;
pub(crate) mod profile;
mod state;

use vmmkit_sys::acl::AclApi;

// # Safety (every entry point of the `modules` below): the C contract of the
// ACL function of the same name. Pointers the vendor checks for NULL are
// checked here too and get its code; any other pointer must be valid for
// what the function reads or writes, as with the real library. Handles and
// addresses of unknown value are looked up, never dereferenced.
crate::dialect_api! {
    vendor: "ACL",
    functions: vmmkit_sys::acl_functions,
    types: vmmkit_sys::acl,
    table: AclApi,
    modules:
    #[allow(unsafe_code, reason = "calls the program's host functions, and enqueues them on streams")]
    callback,
    #[allow(unsafe_code, reason = "lends the stream configurations it hands out by pointer (one call at a time)")]
    config,
    device,
    device_ext,
    event,
    #[allow(unsafe_code, reason = "lends the data buffers it hands out by pointer (one call at a time)")]
    host,
    ipc,
    #[allow(unsafe_code, reason = "calls the program's init and finalize callbacks")]
    library,
    ipc_event,
    #[allow(unsafe_code, reason = "copies and fills device memory, and host memory the program passes")]
    memory,
    model,
    notify,
    share,
    #[allow(unsafe_code, reason = "enqueues writes, waits and fills on device memory")]
    stream_ext,
    vmm,
    // Memory
    #[allow(unsafe_code, reason = "owns the allocator descriptions it hands out by pointer")]
    allocator,
    mbuf,
    mem_alloc,
    #[allow(unsafe_code, reason = "copies and fills device memory, and host memory the program passes")]
    mem_copy,
}
