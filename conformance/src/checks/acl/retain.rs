//! ACL-RET: `aclrtMemRetainAllocationHandle`, `aclrtMemGetAddressRange`.

use std::ffi::c_void;
use std::ptr;

use vmmkit_sys::acl::*;

use crate::acl::{Ctx, GIB, Handle, MIB, TWO_MIB, Va, setup};
use crate::outcome::Failure;

/// ACL-RET-001: retain at the start of a mapping gives a handle of the
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
        acl.mem_retain_allocation_handle(m.va, &mut h),
    )?;
    let mut inner: Handle = ptr::null_mut();
    cx.expect(
        "aclrtMemRetainAllocationHandle 1 MiB into the mapping",
        AclError::RT_DRV_INTERNAL_ERROR,
        acl.mem_retain_allocation_handle((m.va as usize + MIB) as Va, &mut inner),
    )?;
    let (mut a, mut b) = (aclrtPhysicalMemProp::default(), aclrtPhysicalMemProp::default());
    setup(
        "aclrtMemGetAllocationPropertiesFromHandle",
        acl.mem_get_allocation_properties_from_handle(m.handle, &mut a),
    )?;
    setup("aclrtMemGetAllocationPropertiesFromHandle", acl.mem_get_allocation_properties_from_handle(h, &mut b))?;
    cx.ensure("properties of the retained handle", a == b, format!("{a:?}"), format!("{b:?}"))?;
    setup("aclrtUnmapMem", acl.unmap_mem(m.va))?;
    setup("aclrtFreePhysical (malloc's reference)", acl.free_physical(m.handle))?;
    cx.expect_ok("aclrtMapMem of the retained handle after the malloc's free", acl.map_mem(m.va, TWO_MIB, 0, h, 0))?;
    cx.verify("data through the retained handle", m.va, TWO_MIB, 31)?;
    let empty = cx.reserve(TWO_MIB)?;
    let mut none: Handle = ptr::null_mut();
    cx.expect(
        "aclrtMemRetainAllocationHandle on a reserved, never-mapped VA",
        AclError::RT_DRV_INTERNAL_ERROR,
        acl.mem_retain_allocation_handle(empty, &mut none),
    )?;
    let large = cx.reserve(GIB)?;
    cx.expect(
        "aclrtMemRetainAllocationHandle on a never-mapped 1 GiB reservation",
        AclError::RT_INVALID_HANDLE,
        acl.mem_retain_allocation_handle(large, &mut none),
    )
}

/// ACL-RET-002: an address 100 bytes into a 4 MiB block mapped at +2 MiB of
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
        acl.mem_get_address_range(inside, &mut base, &mut size)?,
    )?;
    cx.ensure(
        "block base and size",
        base == block && size == 4 * MIB,
        format!("{:#x}, 4 MiB", block as usize),
        format!("{:#x}, {size} bytes", base as usize),
    )
}
