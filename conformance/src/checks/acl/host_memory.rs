//! Host registration (`aclrtHostRegister`, `V2`,
//! `aclrtHostUnregister`) and 32-bit fills (`aclrtMemsetD32`).

use std::ffi::c_void;
use std::ptr;

use vmmkit_sys::acl::*;

use crate::acl::{Ctx, setup};
use crate::outcome::Failure;

/// A page-aligned host buffer of `pages` pages, owned by the check.
fn pages(pages: usize) -> Vec<u64> {
    vec![0u64; pages * 512 + 512]
}

/// The first page boundary inside `buf`.
fn page_start(buf: &mut [u64]) -> *mut c_void {
    let p = buf.as_mut_ptr() as usize;
    ((p + 4095) & !4095) as *mut c_void
}

fn at(p: *mut c_void, off: usize) -> *mut c_void {
    p.cast::<u8>().wrapping_add(off).cast()
}

/// [ACL-REG-001](vmmkit_sys::acl::rules::REG_001): a range overlapping a registered one, by either call, is
/// 507910; the first registration stays (it unregisters once).
pub fn register_overlap(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let mut buf = pages(2);
    let p = page_start(&mut buf);
    setup("aclrtHostRegisterV2(4096, MAPPED)", acl.aclrtHostRegisterV2(p, 4096, ACL_HOST_REG_MAPPED)?)?;
    let mut dev = ptr::null_mut();
    let inside = acl.aclrtHostRegister(at(p, 1024), 16, ACL_HOST_REGISTER_MAPPED, &mut dev)?;
    let straddle = acl.aclrtHostRegisterV2(at(p, 4000), 4096, ACL_HOST_REG_PINNED)?;
    // Undo what a mutated emulator let through, so the next call sees one registration.
    for (r, q) in [(inside, at(p, 1024)), (straddle, at(p, 4000))] {
        if r == AclError::SUCCESS {
            let _ = acl.aclrtHostUnregister(q)?;
        }
    }
    cx.expect("aclrtHostRegister inside a registered range", AclError::HOST_MEMORY_ALREADY_REGISTERED, inside)?;
    cx.expect(
        "aclrtHostRegisterV2 across a registered range's end",
        AclError::HOST_MEMORY_ALREADY_REGISTERED,
        straddle,
    )?;
    cx.expect_ok("aclrtHostUnregister of the first registration", acl.aclrtHostUnregister(p)?)?;
    cx.expect_ok("aclrtHostRegisterV2 of the range again", acl.aclrtHostRegisterV2(p, 4096, ACL_HOST_REG_MAPPED)?)?;
    setup("aclrtHostUnregister", acl.aclrtHostUnregister(p)?)
}

/// [ACL-REG-002](vmmkit_sys::acl::rules::REG_002): never registered, inside a registration, and already
/// unregistered are 507911.
pub fn unregister_unknown(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let mut buf = pages(2);
    let p = page_start(&mut buf);
    let want = AclError::HOST_MEMORY_NOT_REGISTERED;
    cx.expect("aclrtHostUnregister of a never registered buffer", want, acl.aclrtHostUnregister(p)?)?;
    setup("aclrtHostRegisterV2(8192, PINNED)", acl.aclrtHostRegisterV2(p, 8192, ACL_HOST_REG_PINNED)?)?;
    cx.expect("aclrtHostUnregister inside the registration", want, acl.aclrtHostUnregister(at(p, 4096))?)?;
    cx.expect_ok("aclrtHostUnregister of its start", acl.aclrtHostUnregister(p)?)?;
    cx.expect("aclrtHostUnregister again", want, acl.aclrtHostUnregister(p)?)
}

/// [ACL-FILL-001](vmmkit_sys::acl::rules::FILL_001): N 0 with NULL succeeds; misaligned, N * 4 over memSize and
/// a pageable host buffer are 100000 and write nothing; a valid fill writes
/// the words (read back through aclrtMemcpy).
pub fn memset_d32(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let mut d = ptr::null_mut();
    setup("aclrtMalloc(4096)", acl.aclrtMalloc(&mut d, 4096, ACL_MEM_MALLOC_HUGE_FIRST))?;
    let p = AclError::INVALID_PARAM;
    let mut pageable = [0u32; 8];
    let checks = (|| {
        cx.expect_ok("aclrtMemsetD32(NULL, N 0)", acl.aclrtMemsetD32(ptr::null_mut(), 0, 1, 0)?)?;
        cx.expect("aclrtMemsetD32 at an address 1 byte past alignment", p, acl.aclrtMemsetD32(at(d, 1), 64, 1, 4)?)?;
        cx.expect("aclrtMemsetD32 with N * 4 over memSize", p, acl.aclrtMemsetD32(d, 15, 1, 4)?)?;
        cx.expect(
            "aclrtMemsetD32 of a pageable host buffer",
            p,
            acl.aclrtMemsetD32(pageable.as_mut_ptr().cast(), 32, 1, 8)?,
        )?;
        cx.ensure("the pageable buffer after the refusal", pageable == [0; 8], "all 0", format!("{pageable:?}"))?;
        cx.expect(
            "aclrtMemsetD32Async with N * 4 over memSize",
            p,
            acl.aclrtMemsetD32Async(d, 15, 1, 4, ptr::null_mut())?,
        )?;
        cx.expect_ok("aclrtMemsetD32 of 16 words", acl.aclrtMemsetD32(d, 4096, 0xdead_beef, 16)?)?;
        let mut back = [0u32; 17];
        let r = acl.aclrtMemcpy(back.as_mut_ptr().cast(), 68, d, 68, ACL_MEMCPY_DEVICE_TO_HOST);
        setup("aclrtMemcpy back", r)?;
        cx.ensure(
            "words after the fill",
            back[..16].iter().all(|&w| w == 0xdead_beef),
            "16 words 0xdeadbeef",
            format!("{back:x?}"),
        )
    })();
    setup("aclrtFree", acl.aclrtFree(d))?;
    checks
}
