//! `AclApi`: the ACL entry points of reference acl.md §1.2, as C function pointers.
#![allow(non_snake_case)]

use std::ffi::{c_char, c_void};
use std::path::Path;

use super::types::*;
use crate::loader::{LibrarySpec, LoadError, Loaded};

/// Where `libascendcl.so` is looked for: `VMMKIT_ACL_LIBRARY` (a file), then
/// `$ASCEND_HOME_PATH/{lib64,runtime/lib64}`, then the loader's search path,
/// then the CANN toolkit's default prefix.
pub const LIBRARY: LibrarySpec = LibrarySpec {
    vendor: "ACL",
    path_env: "VMMKIT_ACL_LIBRARY",
    home_env: Some(("ASCEND_HOME_PATH", &["lib64", "runtime/lib64"])),
    names: &["libascendcl.so"],
    default_dirs: &["/usr/local/Ascend/ascend-toolkit/latest/lib64"],
    refused: &[],
};

crate::api_table! {
    /// The ACL functions vmmkit uses, with their exact C signatures.
    ///
    /// Fill it from a real library with [`AclApi::load`], or take the
    /// emulator's (`vmmkit_emulator::acl::api()`).
    pub struct AclApi {
        required {
            aclInit: fn(*const c_char) -> aclError;
            aclFinalize: fn() -> aclError;
            aclrtSetDevice: fn(i32) -> aclError;
            aclrtResetDevice: fn(i32) -> aclError;
            aclrtResetDeviceForce: fn(i32) -> aclError;
            aclrtGetDevice: fn(*mut i32) -> aclError;
            aclrtGetDeviceCount: fn(*mut u32) -> aclError;
            aclrtCreateContext: fn(*mut aclrtContext, i32) -> aclError;
            aclrtSetCurrentContext: fn(aclrtContext) -> aclError;
            aclrtGetCurrentContext: fn(*mut aclrtContext) -> aclError;
            aclrtCreateStream: fn(*mut aclrtStream) -> aclError;
            aclrtDestroyStream: fn(aclrtStream) -> aclError;
            aclrtDestroyStreamForce: fn(aclrtStream) -> aclError;
            aclrtSynchronizeStream: fn(aclrtStream) -> aclError;
            aclrtSynchronizeDevice: fn() -> aclError;
            aclrtGetSocName: fn() -> *const c_char;
            aclGetRecentErrMsg: fn() -> *const c_char;

            aclrtMallocHost: fn(*mut *mut c_void, usize) -> aclError;
            aclrtFreeHost: fn(*mut c_void) -> aclError;
            aclrtMemcpy: fn(*mut c_void, usize, *const c_void, usize, aclrtMemcpyKind) -> aclError;
            aclrtMemcpyAsync: fn(*mut c_void, usize, *const c_void, usize, aclrtMemcpyKind, aclrtStream) -> aclError;
            aclrtMemset: fn(*mut c_void, usize, i32, usize) -> aclError;
            aclrtMalloc: fn(*mut *mut c_void, usize, aclrtMemMallocPolicy) -> aclError;
            aclrtFree: fn(*mut c_void) -> aclError;
            aclrtGetMemInfo: fn(aclrtMemAttr, *mut usize, *mut usize) -> aclError;
            aclrtPointerGetAttributes: fn(*const c_void, *mut aclrtPtrAttributes) -> aclError;

            aclrtMemGetAllocationGranularity: fn(*mut aclrtPhysicalMemProp, aclrtMemGranularityOptions, *mut usize) -> aclError;
            aclrtMallocPhysical: fn(*mut aclrtDrvMemHandle, usize, *const aclrtPhysicalMemProp, u64) -> aclError;
            aclrtFreePhysical: fn(aclrtDrvMemHandle) -> aclError;
            aclrtReserveMemAddress: fn(*mut *mut c_void, usize, usize, *mut c_void, u64) -> aclError;
            aclrtReleaseMemAddress: fn(*mut c_void) -> aclError;
            aclrtMapMem: fn(*mut c_void, usize, usize, aclrtDrvMemHandle, u64) -> aclError;
            aclrtUnmapMem: fn(*mut c_void) -> aclError;
            aclrtMemSetAccess: fn(*mut c_void, usize, *mut aclrtMemAccessDesc, usize) -> aclError;
            aclrtMemGetAccess: fn(*mut c_void, *mut aclrtMemLocation, *mut u64) -> aclError;
            aclrtMemRetainAllocationHandle: fn(*mut c_void, *mut aclrtDrvMemHandle) -> aclError;
            aclrtMemGetAllocationPropertiesFromHandle: fn(aclrtDrvMemHandle, *mut aclrtPhysicalMemProp) -> aclError;

            aclrtMemExportToShareableHandle: fn(aclrtDrvMemHandle, aclrtMemHandleType, u64, *mut u64) -> aclError;
            aclrtMemSetPidToShareableHandle: fn(u64, *mut i32, usize) -> aclError;
            aclrtMemImportFromShareableHandle: fn(u64, i32, *mut aclrtDrvMemHandle) -> aclError;
            aclrtDeviceGetBareTgid: fn(*mut i32) -> aclError;

            aclrtDeviceCanAccessPeer: fn(*mut i32, i32, i32) -> aclError;
            aclrtDeviceEnablePeerAccess: fn(i32, u32) -> aclError;
            aclrtDeviceDisablePeerAccess: fn(i32) -> aclError;

            aclrtIpcMemGetExportKey: fn(*mut c_void, usize, *mut c_char, usize, u64) -> aclError;
            aclrtIpcMemSetImportPid: fn(*const c_char, *mut i32, usize) -> aclError;
            aclrtIpcMemImportByKey: fn(*mut *mut c_void, *const c_char, u64) -> aclError;
            aclrtIpcMemClose: fn(*const c_char) -> aclError;
        }
        optional {
            /// Not in every CANN release; `vmmkit doctor` uses it for the version line.
            aclrtGetVersion: fn(*mut i32, *mut i32, *mut i32) -> aclError;
            aclrtGetLogicDevIdByUserDevId: fn(i32, *mut i32) -> aclError;
            aclrtGetPhyDevIdByLogicDevId: fn(i32, *mut i32) -> aclError;
            aclrtReserveMemAddressNoUCMemory: fn(*mut *mut c_void, usize, usize, *mut c_void, u64) -> aclError;
            aclrtMemMapNoAccess: fn(*mut c_void, usize, usize, aclrtDrvMemHandle, u64) -> aclError;
            aclrtMemGetAddressRange: fn(*mut c_void, *mut *mut c_void, *mut usize) -> aclError;
            aclrtMemExportToShareableHandleV2: fn(aclrtDrvMemHandle, u64, aclrtMemSharedHandleType, *mut c_void) -> aclError;
            aclrtMemSetPidToShareableHandleV2: fn(*mut c_void, aclrtMemSharedHandleType, *mut i32, usize) -> aclError;
            aclrtMemImportFromShareableHandleV2: fn(*mut c_void, aclrtMemSharedHandleType, u64, *mut aclrtDrvMemHandle) -> aclError;
            aclrtDevicePeerAccessStatus: fn(i32, i32, *mut i32) -> aclError;
        }
    }
}

impl AclApi {
    /// Loads `libascendcl.so` as [`LIBRARY`] describes, `explicit` first.
    ///
    /// # Errors
    /// A [`LoadError`] naming every path tried, or every missing symbol.
    pub fn load(explicit: Option<&Path>) -> Result<Loaded<Self>, LoadError> {
        crate::loader::load(&LIBRARY, explicit, |lib| {
            // SAFETY: a library found under the ACL names exports the ACL C ABI;
            // it is leaked, so it outlives the table.
            unsafe { Self::from_library(lib) }
        })
    }
}
