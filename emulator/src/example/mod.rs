//! The example dialect (feature `example-vendor`): the three functions of
//! the made-up example vendor of `docs/adding-a-vendor.md`, which exists
//! only to prove the vendor seam. Its memory is the core's, allocated and
//! freed through the same core paths as CUDA's `cuMemAlloc`/`cuMemFree`
//! (a plain allocation on device 0), so it shares one capacity with every
//! other dialect of the root.
//!
//! ```
//! use vmmkit_sys::example::*;
//! let ex = vmmkit_emulator::example::api();
//! # let dir = tempfile::tempdir().unwrap();
//! # vmmkit_emulator::install(vmmkit_emulator::Config::new(dir.path())).unwrap();
//! let mut p = std::ptr::null_mut();
//! assert_eq!(ExResult(unsafe { (ex.exMemAlloc)(&mut p, EX_MEM_GRANULE) }), ExResult::NOT_INITIALIZED);
//! assert_eq!(ExResult(unsafe { (ex.exInit)(0) }), ExResult::SUCCESS);
//! // EX-MEM-001: not a multiple of 2 MiB.
//! assert_eq!(ExResult(unsafe { (ex.exMemAlloc)(&mut p, 4096) }), ExResult::INVALID_VALUE);
//! assert_eq!(ExResult(unsafe { (ex.exMemAlloc)(&mut p, EX_MEM_GRANULE) }), ExResult::SUCCESS);
//! assert_eq!(ExResult(unsafe { (ex.exMemFree)(p) }), ExResult::SUCCESS);
//! // EX-MEM-003: freed already.
//! assert_eq!(ExResult(unsafe { (ex.exMemFree)(p) }), ExResult::INVALID_HANDLE);
//! ```

mod call;
mod codes;
mod state;

use vmmkit_sys::example::ExampleApi;

// The entry points of the `modules` below take the caller's out-pointer as
// `crate::ffi::Out` and check it for NULL (EX-MEM-002); pointers passed in
// are looked up, never dereferenced. No `unsafe` here.
crate::dialect_api! {
    vendor: "EX",
    functions: vmmkit_sys::example_functions,
    types: vmmkit_sys::example,
    table: ExampleApi,
    modules: init, memory,
}
