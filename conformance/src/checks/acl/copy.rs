//! ACL-CPY: `aclrtMemcpy`, `aclrtMemset`, `aclrtMallocHost`, `aclrtFreeHost`.

use std::ffi::c_void;
use std::ptr;

use vmmkit_sys::acl::*;

use crate::acl::{Ctx, setup};
use crate::outcome::Failure;

/// [ACL-CPY-001](vmmkit_sys::acl::rules::CPY_001): count 0 with NULL pointers and kind 99, before any device.
pub fn memcpy_zero(cx: &mut Ctx) -> Result<(), Failure> {
    cx.init()?;
    let r = cx.acl().aclrtMemcpy(ptr::null_mut(), 0, ptr::null(), 0, 99);
    cx.expect_code("aclrtMemcpy(count 0, NULL, NULL, kind 99) with no current device", r)
}

/// [ACL-CPY-002](vmmkit_sys::acl::rules::CPY_002): NULL dst, NULL src, kinds 6, 7 and -1.
pub fn memcpy_null_or_kind(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let src = [1u8; 16];
    let mut dst = [0u8; 16];
    let (d, s): (*mut c_void, *const c_void) = (dst.as_mut_ptr().cast(), src.as_ptr().cast());
    cx.expect_code("aclrtMemcpy(dst NULL)", acl.aclrtMemcpy(ptr::null_mut(), 16, s, 16, ACL_MEMCPY_HOST_TO_HOST))?;
    cx.expect_code("aclrtMemcpy(src NULL)", acl.aclrtMemcpy(d, 16, ptr::null(), 16, ACL_MEMCPY_HOST_TO_HOST))?;
    for kind in [ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, -1] {
        cx.expect_code(&format!("aclrtMemcpy(kind {kind})"), acl.aclrtMemcpy(d, 16, s, 16, kind))?;
    }
    Ok(())
}

/// [ACL-CPY-003](vmmkit_sys::acl::rules::CPY_003): destMax 0 and count > destMax (107000); dst == src is a
/// no-op (0); a valid copy copies.
pub fn memcpy_dest_max(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let src = [3u8; 16];
    let mut dst = [0u8; 16];
    let (d, s): (*mut c_void, *const c_void) = (dst.as_mut_ptr().cast(), src.as_ptr().cast());
    let h2h = ACL_MEMCPY_HOST_TO_HOST;
    cx.expect("aclrtMemcpy(destMax 0)", AclError::RT_PARAM_INVALID, acl.aclrtMemcpy(d, 0, s, 16, h2h))?;
    cx.expect("aclrtMemcpy(count 16 > destMax 8)", AclError::RT_PARAM_INVALID, acl.aclrtMemcpy(d, 8, s, 16, h2h))?;
    cx.expect("aclrtMemcpy(dst == src)", AclError::SUCCESS, acl.aclrtMemcpy(d, 16, d.cast_const(), 16, h2h))?;
    cx.expect_ok("aclrtMemcpy(16 bytes host to host)", acl.aclrtMemcpy(d, 16, s, 16, h2h))?;
    cx.ensure("bytes after the copy", dst == src, format!("{src:?}"), format!("{dst:?}"))
}

/// [ACL-CPY-004](vmmkit_sys::acl::rules::CPY_004): count 0 (even with NULL), NULL, count > maxCount, and a
/// plain memset of a host buffer.
pub fn memset(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let mut buf = [0u8; 64];
    let p: *mut c_void = buf.as_mut_ptr().cast();
    cx.expect("aclrtMemset(count 0)", AclError::SUCCESS, acl.aclrtMemset(p, 64, 0xAB, 0))?;
    cx.expect("aclrtMemset(NULL, count 0)", AclError::SUCCESS, acl.aclrtMemset(ptr::null_mut(), 64, 0xAB, 0))?;
    cx.expect("aclrtMemset(NULL, count 16)", AclError::INVALID_PARAM, acl.aclrtMemset(ptr::null_mut(), 64, 0xAB, 16))?;
    cx.expect("aclrtMemset(count 16 > maxCount 8)", AclError::RT_PARAM_INVALID, acl.aclrtMemset(p, 8, 0xAB, 16))?;
    cx.ensure("host buffer after refused memsets", buf.iter().all(|&b| b == 0), "all 0", format!("{buf:?}"))?;
    cx.expect("aclrtMemset of 32 host bytes with 0x1AB", AclError::SUCCESS, acl.aclrtMemset(p, 64, 0x1AB, 32))?;
    cx.ensure(
        "host buffer after the memset",
        buf[..32].iter().all(|&b| b == 0xAB) && buf[32..].iter().all(|&b| b == 0),
        "32 bytes 0xab then 32 bytes 0",
        format!("{buf:?}"),
    )
}

/// [ACL-CPY-006](vmmkit_sys::acl::rules::CPY_006): the kind is advisory. Host buffers under each device kind
/// are copied (aclrtMemcpy returns 0), and a device mapping is written and
/// read under its own kinds.
pub fn memcpy_kind(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let m = cx.alloc_mapped(g)?;
    let acl = cx.acl();
    for (n, (kind, name)) in [
        (ACL_MEMCPY_HOST_TO_DEVICE, "HOST_TO_DEVICE"),
        (ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, "HOST_TO_BUF_TO_DEVICE"),
        (ACL_MEMCPY_DEVICE_TO_HOST, "DEVICE_TO_HOST"),
        (ACL_MEMCPY_DEVICE_TO_DEVICE, "DEVICE_TO_DEVICE"),
    ]
    .into_iter()
    .enumerate()
    {
        let src = [n as u8 + 1; 16];
        let mut dst = [0u8; 16];
        let r = acl.aclrtMemcpy(dst.as_mut_ptr().cast(), 16, src.as_ptr().cast(), 16, kind);
        cx.expect_ok(&format!("aclrtMemcpy(host to host buffers, kind {name})"), r)?;
        cx.ensure(&format!("host buffer after a {name} copy"), dst == src, format!("{src:?}"), format!("{dst:?}"))?;
    }
    let src = [7u8; 16];
    let va = m.va;
    cx.expect_ok(
        "aclrtMemcpy(HOST_TO_DEVICE into the mapping)",
        acl.aclrtMemcpy(va, g, src.as_ptr().cast(), 16, ACL_MEMCPY_HOST_TO_DEVICE),
    )?;
    let mut back = [0u8; 16];
    let r = acl.aclrtMemcpy(back.as_mut_ptr().cast(), 16, va.cast_const(), 16, ACL_MEMCPY_DEVICE_TO_HOST);
    cx.expect_ok("aclrtMemcpy(DEVICE_TO_HOST from the mapping)", r)?;
    cx.ensure("bytes read back", back == src, format!("{src:?}"), format!("{back:?}"))?;
    cx.teardown(m)
}

/// [ACL-CPY-007](vmmkit_sys::acl::rules::CPY_007): host-side addresses no process can map (0x1000, below
/// 64 KiB, and 2^60, past the user address space) are refused by
/// aclrtMemset and by aclrtMemcpy of kinds HOST_TO_HOST and DEFAULT; a host
/// address with nothing mapped, under a kind that names it device memory,
/// is refused by aclrtMemcpy.
pub fn unmappable_host_address(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let mut buf = [0u8; 16];
    let b: *mut c_void = buf.as_mut_ptr().cast();
    for bad in [0x1000usize, 1 << 60] {
        let p = bad as *mut c_void;
        cx.expect_code(&format!("aclrtMemset({bad:#x}, 16 bytes)"), acl.aclrtMemset(p, 16, 0xAB, 16))?;
        let r = acl.aclrtMemcpy(b, 16, p.cast_const(), 16, ACL_MEMCPY_HOST_TO_HOST);
        cx.expect_code(&format!("aclrtMemcpy(src {bad:#x}, HOST_TO_HOST)"), r)?;
        let r = acl.aclrtMemcpy(p, 16, b.cast_const(), 16, ACL_MEMCPY_DEFAULT);
        cx.expect_code(&format!("aclrtMemcpy(dst {bad:#x}, DEFAULT)"), r)?;
    }
    // Where the kind names device memory and nothing is mapped at the
    // (host) address, the driver would fault: refused too. Just past the
    // device window, where no allocator of this process places memory.
    let unmapped = PAST_WINDOW as *mut c_void;
    let r = acl.aclrtMemcpy(unmapped, 16, b.cast_const(), 16, ACL_MEMCPY_HOST_TO_DEVICE);
    cx.expect_code(&format!("aclrtMemcpy(dst {PAST_WINDOW:#x}, nothing mapped, HOST_TO_DEVICE)"), r)?;
    let r = acl.aclrtMemcpy(b, 16, unmapped.cast_const(), 16, ACL_MEMCPY_DEVICE_TO_HOST);
    cx.expect_code(&format!("aclrtMemcpy(src {PAST_WINDOW:#x}, nothing mapped, DEVICE_TO_HOST)"), r)?;
    cx.ensure("host buffer after refused copies", buf == [0; 16], "all 0", format!("{buf:?}"))
}

/// The first address past ACL's device window [16 TiB, 24 TiB) (acl.md §2.6).
const PAST_WINDOW: usize = 0x1800_0000_0000;

/// [ACL-CPY-005](vmmkit_sys::acl::rules::CPY_005): NULL output and size 0 for MallocHost; FreeHost(NULL).
pub fn host_alloc(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let mut p: *mut c_void = ptr::null_mut();
    cx.expect_code("aclrtMallocHost(out NULL)", acl.aclrtMallocHost(ptr::null_mut(), 64))?;
    cx.expect_code("aclrtMallocHost(size 0)", acl.aclrtMallocHost(&mut p, 0))?;
    cx.expect_code("aclrtFreeHost(NULL)", acl.aclrtFreeHost(ptr::null_mut()))?;
    setup("aclrtMallocHost(64)", acl.aclrtMallocHost(&mut p, 64))?;
    cx.expect_ok("aclrtFreeHost of a host allocation", acl.aclrtFreeHost(p))
}
