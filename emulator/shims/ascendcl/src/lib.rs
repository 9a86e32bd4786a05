//! Drop-in `libascendcl.so`: the ACL C ABI of reference acl.md §1.2, backed by
//! the vmmkit emulator.
//!
//! Every function of [`vmmkit_sys::acl_functions!`] (required and optional) is
//! exported under its C name with its C signature, and forwards once into
//! the emulator's ACL dialect through its instrumentation layer
//! (`vmmkit_emulator::acl::entry`, so fault injection, logs and the leak
//! report work through this library too), which owns every check, its order
//! and its code. No rule lives here. The only addition is the FFI backstop of
//! STYLE.md §8: each body runs in `catch_unwind`, and a panic there becomes
//! 507899 `ACL_ERROR_RT_DRV_INTERNAL_ERROR` (or a fixed message for the two
//! functions that return a string) instead of unwinding into C.
//!
//! The library also exports `const char *vmmkit_shim_info(void)`, the marker
//! by which `vmmkit-sys`'s loader recognises (and, in its default search,
//! skips) vmmkit's own drop-in libraries. All of it is
//! [`vmmkit_emulator::export_shim!`], shared with `libamdhip64.so`.
//!
//! A C program built against the headers in `include/` (`#include
//! <acl/acl.h>`) links with `-lascendcl` and runs on the emulator with
//! `LD_LIBRARY_PATH` pointing at the directory of this library; see the
//! README section "Running a CANN program on the emulator".

vmmkit_emulator::export_shim! {
    functions: vmmkit_sys::acl_functions,
    types: vmmkit_sys::acl,
    dialect: vmmkit_emulator::acl::entry,
    vendor: "ACL",
    table: "AclApi",
    panic_code: AclError::RT_DRV_INTERNAL_ERROR.0,
    panic_message: c"vmmkit libascendcl: internal error in the emulator (a panic); please report it",
    info: "vmmkit emulator libascendcl",
}

// Exports that are not emulated: `DEVICE_CODE` and `NOT_YET` (read by the
// coverage test and docs/api-coverage.md).
vmmkit_emulator::export_unsupported! {
    dialect: vmmkit_sys::vendor::Acl,
    code: vmmkit_sys::acl::AclError::RT_FEATURE_NOT_SUPPORT,
    device_code {
        // Issue 18: memory. A symbol is a variable of a loaded device binary
        // (aclrtGetSymbolAddress, kernel.cpp); the cached task info belongs
        // to the last kernel task (aclrtCacheLastTaskOpInfo, kernel.cpp:692-714).
        aclrtMemcpyFromSymbol, aclrtMemcpyFromSymbolAsync, aclrtMemcpyToSymbol, aclrtMemcpyToSymbolAsync,
        aclrtCacheLastTaskOpInfo, aclrtCacheLastTaskExtendInfo,
    }
    not_yet {}
}
