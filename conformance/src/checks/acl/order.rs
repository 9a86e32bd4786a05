//! ACL-ORD: inputs with two faults, where the validation order of
//! acl.md §5 decides the code.

use std::ptr;

use vmmkit_sys::acl::*;

use super::sharing::UNKNOWN_SHAREABLE;
use crate::acl::{Ctx, Handle, TWO_MIB, setup};
use crate::outcome::Failure;

/// [ACL-ORD-001](vmmkit_sys::acl::rules::ORD_001): an unknown handle and no current device: V1 looks the
/// handle up first (107017), V2 checks the device first (107002).
pub fn import_unknown_without_device(cx: &mut Ctx) -> Result<(), Failure> {
    cx.init()?;
    let acl = cx.acl();
    let mut h: Handle = ptr::null_mut();
    cx.expect(
        "import V1 of an unknown handle, no current device",
        AclError::RT_INVALID_HANDLE,
        acl.aclrtMemImportFromShareableHandle(UNKNOWN_SHAREABLE, 0, &mut h),
    )?;
    let mut sh = UNKNOWN_SHAREABLE;
    let r =
        acl.aclrtMemImportFromShareableHandleV2((&raw mut sh).cast(), ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &mut h)?;
    cx.expect("import V2 of an unknown handle, no current device", AclError::RT_CONTEXT_NULL, r)
}

/// [ACL-ORD-002](vmmkit_sys::acl::rules::ORD_002): NULL handle (100000) and flags 5 (107000).
pub fn export_null_and_flags(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let mut sh = 0u64;
    let r = cx.acl().aclrtMemExportToShareableHandle(ptr::null_mut(), ACL_MEM_HANDLE_TYPE_NONE, 5, &mut sh);
    cx.expect_code("export V1(handle NULL, flags 5)", r)
}

/// [ACL-ORD-003](vmmkit_sys::acl::rules::ORD_003): offset 2 MiB (107000) and flags 2 (100000).
pub fn map_offset_and_flags(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let va = cx.reserve(TWO_MIB)?;
    let h = cx.malloc(TWO_MIB)?;
    cx.expect_code("aclrtMapMem(offset 2 MiB, flags 2)", cx.acl().aclrtMapMem(va, TWO_MIB, TWO_MIB, h, 2))
}

/// [ACL-ORD-004](vmmkit_sys::acl::rules::ORD_004): offset 2 MiB (107000) at a released reservation (507899).
pub fn map_offset_outside(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let h = cx.malloc(TWO_MIB)?;
    let gone = cx.reserve(TWO_MIB)?;
    setup("aclrtReleaseMemAddress", acl.aclrtReleaseMemAddress(gone))?;
    cx.expect_code("aclrtMapMem(offset 2 MiB) outside any reservation", acl.aclrtMapMem(gone, TWO_MIB, TWO_MIB, h, 0))
}
