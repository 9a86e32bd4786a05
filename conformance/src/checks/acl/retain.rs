//! ACL-RET: `aclrtMemRetainAllocationHandle` (references, frees, the VAs it
//! accepts), `aclrtMemGetAddressRange`.

use std::ffi::c_void;
use std::ptr;

use vmmkit_sys::acl::*;

use crate::acl::{Ctx, GIB, Handle, MIB, TWO_MIB, Va, setup};
use crate::outcome::Failure;
use crate::peer::Request;

/// [ACL-RET-001](vmmkit_sys::acl::rules::RET_001): retain at the start of a mapping gives a handle of the
/// same memory with its own reference (the memory outlives the malloc's
/// free); an interior address and a reserved, never-mapped VA are refused
/// (507899), and so is a never-mapped reservation over 512 MiB (107017).
pub fn retain(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    let acl = cx.acl();
    cx.write(m.va, m.size, 31)?;
    let mut h: Handle = ptr::null_mut();
    cx.expect(
        "aclrtMemRetainAllocationHandle on a mapped VA",
        AclError::SUCCESS,
        acl.aclrtMemRetainAllocationHandle(m.va, &mut h),
    )?;
    let mut inner: Handle = ptr::null_mut();
    cx.expect(
        "aclrtMemRetainAllocationHandle 1 MiB into the mapping",
        AclError::RT_DRV_INTERNAL_ERROR,
        acl.aclrtMemRetainAllocationHandle((m.va as usize + MIB) as Va, &mut inner),
    )?;
    let (mut a, mut b) = (aclrtPhysicalMemProp::default(), aclrtPhysicalMemProp::default());
    setup(
        "aclrtMemGetAllocationPropertiesFromHandle",
        acl.aclrtMemGetAllocationPropertiesFromHandle(m.handle, &mut a),
    )?;
    setup("aclrtMemGetAllocationPropertiesFromHandle", acl.aclrtMemGetAllocationPropertiesFromHandle(h, &mut b))?;
    cx.ensure("properties of the retained handle", a == b, format!("{a:?}"), format!("{b:?}"))?;
    setup("aclrtUnmapMem", acl.aclrtUnmapMem(m.va))?;
    setup("aclrtFreePhysical (malloc's reference)", acl.aclrtFreePhysical(m.handle))?;
    cx.expect_ok(
        "aclrtMapMem of the retained handle after the malloc's free",
        acl.aclrtMapMem(m.va, TWO_MIB, 0, h, 0),
    )?;
    cx.verify("data through the retained handle", m.va, TWO_MIB, 31)?;
    let empty = cx.reserve(TWO_MIB)?;
    let mut none: Handle = ptr::null_mut();
    cx.expect(
        "aclrtMemRetainAllocationHandle on a reserved, never-mapped VA",
        AclError::RT_DRV_INTERNAL_ERROR,
        acl.aclrtMemRetainAllocationHandle(empty, &mut none),
    )?;
    let large = cx.reserve(GIB)?;
    cx.expect(
        "aclrtMemRetainAllocationHandle on a never-mapped 1 GiB reservation",
        AclError::RT_INVALID_HANDLE,
        acl.aclrtMemRetainAllocationHandle(large, &mut none),
    )
}

/// [ACL-RET-002](vmmkit_sys::acl::rules::RET_002): an address 100 bytes into a 4 MiB block mapped at +2 MiB of
/// a 6 MiB reservation gives that block.
pub fn address_range(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let va = cx.reserve(6 * MIB)?;
    let h = cx.malloc(4 * MIB)?;
    let block = (va as usize + TWO_MIB) as Va;
    cx.map(block, 4 * MIB, h)?;
    let mut base: *mut c_void = ptr::null_mut();
    let mut size = 0usize;
    let inside = (block as usize + 100) as Va;
    cx.expect_code(
        "aclrtMemGetAddressRange inside the block",
        acl.aclrtMemGetAddressRange(inside, &mut base, &mut size)?,
    )?;
    cx.ensure(
        "block base and size",
        base == block && size == 4 * MIB,
        format!("{:#x}, 4 MiB", block as usize),
        format!("{:#x}, {size} bytes", base as usize),
    )
}

/// Free bytes of device 0 now.
fn free_bytes(cx: &Ctx) -> Result<usize, Failure> {
    Ok(cx.mem_info()?.0)
}

/// `step`: device 0's free bytes must be `want`.
fn expect_free(cx: &Ctx, step: &str, want: usize) -> Result<(), Failure> {
    let got = free_bytes(cx)?;
    cx.ensure(step, got == want, format!("{want} bytes free"), format!("{got} bytes free"))
}

/// [ACL-RET-003](vmmkit_sys::acl::rules::RET_003): retained twice, 4 MiB come back only at the third free.
pub fn one_reference_per_retain(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let before = free_bytes(cx)?;
    let m = cx.alloc_mapped(4 * MIB)?;
    let acl = cx.acl();
    let (mut h1, mut h2): (Handle, Handle) = (ptr::null_mut(), ptr::null_mut());
    cx.expect_ok("first retain", acl.aclrtMemRetainAllocationHandle(m.va, &mut h1))?;
    cx.expect_ok("second retain", acl.aclrtMemRetainAllocationHandle(m.va, &mut h2))?;
    setup("aclrtUnmapMem", acl.aclrtUnmapMem(m.va))?;
    setup("aclrtReleaseMemAddress", acl.aclrtReleaseMemAddress(m.va))?;
    cx.expect_ok("FreePhysical 1 (the malloc's reference)", acl.aclrtFreePhysical(m.handle))?;
    cx.expect_ok("FreePhysical 2 (the first retain)", acl.aclrtFreePhysical(h1))?;
    expect_free(cx, "after two of three frees the 4 MiB are still held", before - 4 * MIB)?;
    cx.expect_ok("FreePhysical 3 (the second retain)", acl.aclrtFreePhysical(h2))?;
    expect_free(cx, "after the third free the 4 MiB are back", before)
}

/// [ACL-RET-004](vmmkit_sys::acl::rules::RET_004): Mooncake's path, retain once and free once, on the exporting
/// side (this process) and the importing side (peer B, FABRIC V2): 4 MiB
/// stay charged after each side's single free, until its second free.
pub fn retain_once_free_once(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let before = free_bytes(cx)?;
    let m = cx.alloc_mapped(4 * MIB)?;
    let acl = cx.acl();
    let mut kept: Handle = ptr::null_mut();
    setup("exporter: aclrtMemRetainAllocationHandle", acl.aclrtMemRetainAllocationHandle(m.va, &mut kept))?;
    let mut fab = aclrtMemFabricHandle::default();
    let r = acl.aclrtMemExportToShareableHandleV2(kept, 1, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, (&raw mut fab).cast())?;
    setup("exporter: export V2 FABRIC of the retained handle", r)?;
    setup("exporter: aclrtUnmapMem", acl.aclrtUnmapMem(m.va))?;
    setup("exporter: aclrtReleaseMemAddress", acl.aclrtReleaseMemAddress(m.va))?;
    setup("exporter: its one aclrtFreePhysical", acl.aclrtFreePhysical(kept))?;
    expect_free(cx, "exporter freed once after one retain: 4 MiB still held", before - 4 * MIB)?;
    let mut b = cx.peer("B")?;
    let shareable = fab.data.to_vec();
    let share_type = ACL_MEM_SHARE_HANDLE_TYPE_FABRIC;
    let slot = b.setup(&Request::ImportV2 { shareable, share_type, flags: 0 })?.slot;
    let map = b.map(slot, 4 * MIB)?;
    let retained = b.setup(&Request::Retain { map })?.slot;
    b.setup(&Request::Unmap { map })?;
    b.setup(&Request::Release { map })?;
    setup("exporter: its second aclrtFreePhysical", acl.aclrtFreePhysical(m.handle))?;
    b.setup(&Request::Free { handle: retained })?;
    expect_free(cx, "importer freed once after one retain: 4 MiB still held", before - 4 * MIB)?;
    b.setup(&Request::Free { handle: slot })?;
    expect_free(cx, "importer's second free: the 4 MiB are back", before)?;
    b.exit()
}

/// [ACL-RET-005](vmmkit_sys::acl::rules::RET_005): retain after unmap is refused; mapped again, it works.
pub fn after_unmap(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    let acl = cx.acl();
    setup("aclrtUnmapMem", acl.aclrtUnmapMem(m.va))?;
    let mut h: Handle = ptr::null_mut();
    cx.expect_code("retain at the unmapped VA", acl.aclrtMemRetainAllocationHandle(m.va, &mut h))?;
    cx.map(m.va, TWO_MIB, m.handle)?;
    cx.expect_ok("retain at the VA mapped again", acl.aclrtMemRetainAllocationHandle(m.va, &mut h))?;
    let (mut a, mut b) = (aclrtPhysicalMemProp::default(), aclrtPhysicalMemProp::default());
    setup("properties of the handle", acl.aclrtMemGetAllocationPropertiesFromHandle(m.handle, &mut a))?;
    setup("properties of the retained handle", acl.aclrtMemGetAllocationPropertiesFromHandle(h, &mut b))?;
    cx.ensure("the retained handle is the new mapping's", a == b, format!("{a:?}"), format!("{b:?}"))
}

/// [ACL-RET-006](vmmkit_sys::acl::rules::RET_006): retain on aclrtMalloc memory.
pub fn on_malloc(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let mut p: Va = ptr::null_mut();
    setup("aclrtMalloc(2 MiB)", acl.aclrtMalloc(&mut p, TWO_MIB, 0))?;
    let mut h: Handle = ptr::null_mut();
    cx.expect_code("retain on aclrtMalloc memory", acl.aclrtMemRetainAllocationHandle(p, &mut h))
}
