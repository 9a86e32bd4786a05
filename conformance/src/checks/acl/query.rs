//! ACL-QRY: `aclrtMemGetAddressRange` and `aclrtPointerGetAttributes` on
//! every kind of address.

use std::ffi::c_void;
use std::ptr;

use vmmkit_sys::acl::*;

use crate::acl::{Ctx, GIB, Handle, TWO_MIB, Va, setup};
use crate::outcome::Failure;

/// [ACL-QRY-001](vmmkit_sys::acl::rules::QRY_001): host memory has no device range.
pub fn address_range_host(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let mut host = vec![0u8; 4096];
    let (mut base, mut size) = (ptr::null_mut::<c_void>(), 0usize);
    let r = cx.acl().aclrtMemGetAddressRange(host.as_mut_ptr().cast(), &mut base, &mut size)?;
    cx.expect_code("aclrtMemGetAddressRange of a host buffer", r)?;
    let m = cx.alloc_mapped(TWO_MIB)?;
    let r = cx.acl().aclrtMemGetAddressRange(m.va, &mut base, &mut size)?;
    cx.expect_ok("aclrtMemGetAddressRange of a mapping (state unchanged)", r)
}

fn attributes(cx: &Ctx, p: *const c_void) -> Result<(AclError, aclrtPtrAttributes), Failure> {
    let mut a = aclrtPtrAttributes::default();
    let r = cx.acl().aclrtPointerGetAttributes(p, &mut a);
    Ok((r, a))
}

/// `p`'s attributes must be (`kind`, `id`, `page`).
fn expect_attr(cx: &Ctx, what: &str, p: *const c_void, kind: i32, id: u32, page: u32) -> Result<(), Failure> {
    let (r, a) = attributes(cx, p)?;
    cx.expect_ok(&format!("aclrtPointerGetAttributes of {what}"), r)?;
    cx.ensure(
        &format!("attributes of {what}"),
        a.location.type_ == kind && a.location.id == id && a.pageSize == page,
        format!("location type {kind}, id {id}, page {page}"),
        format!("location type {}, id {}, page {}", a.location.type_, a.location.id, a.pageSize),
    )
}

/// [ACL-QRY-002](vmmkit_sys::acl::rules::QRY_002): VMM mapping (start, interior), a device-1 import, aclrtMalloc,
/// aclrtMallocHost and an ordinary host buffer.
pub fn pointer_attributes(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    let acl = cx.acl();
    let device = ACL_MEM_LOCATION_TYPE_DEVICE;
    let page = TWO_MIB as u32;
    expect_attr(cx, "a VMM mapping", m.va, device, 0, page)?;
    expect_attr(cx, "an address inside a VMM mapping", (m.va as usize + 4096) as Va, device, 0, page)?;
    let mut plain: Va = ptr::null_mut();
    setup("aclrtMalloc(2 MiB)", acl.aclrtMalloc(&mut plain, TWO_MIB, 0))?;
    expect_attr(cx, "aclrtMalloc memory", plain, device, 0, page)?;
    let mut pinned: Va = ptr::null_mut();
    setup("aclrtMallocHost(4 KiB)", acl.aclrtMallocHost(&mut pinned, 4096))?;
    expect_attr(cx, "aclrtMallocHost memory", pinned, ACL_MEM_LOCATION_TYPE_HOST, 0, 4096)?;
    let host = vec![0u8; 4096];
    expect_attr(cx, "an ordinary host buffer", host.as_ptr().cast(), ACL_MEM_LOCATION_TYPE_UNREGISTERED, 0, 4096)?;
    let sh = cx.export(m.handle, 1)?;
    cx.device(1)?;
    let mut h: Handle = ptr::null_mut();
    setup("aclrtMemImportFromShareableHandle(device 1)", acl.aclrtMemImportFromShareableHandle(sh, 1, &mut h))?;
    let va = cx.reserve(TWO_MIB)?;
    cx.map(va, TWO_MIB, h)?;
    expect_attr(cx, "the device-1 import's mapping", va, device, 1, page)
}

/// [ACL-QRY-003](vmmkit_sys::acl::rules::QRY_003): a never-mapped 1 GiB reservation.
pub fn pointer_attributes_unmapped_large(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let va = cx.reserve(GIB)?;
    let (r, _) = attributes(cx, va)?;
    cx.expect_code("aclrtPointerGetAttributes of a never-mapped 1 GiB reservation", r)
}
