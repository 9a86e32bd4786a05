//! ACL-RSV and ACL-REL: `aclrtReserveMemAddress`, `aclrtReleaseMemAddress`.

use std::ptr;

use vmmkit_sys::acl::*;

use crate::acl::{Ctx, GIB, MIB, TWO_MIB, Va, prop, setup};
use crate::outcome::Failure;

/// Start of the device address window (16 TiB).
pub const WINDOW_START: usize = 0x1000_0000_0000;
/// End of the device address window (24 TiB).
pub const WINDOW_END: usize = 0x1800_0000_0000;
/// A place high in the window that the checks ask for with `expectPtr`.
const HIGH: usize = 0x1700_0000_0000;

/// `aclrtReserveMemAddress(size, alignment, expect, flags)`: the code and
/// the address.
fn try_reserve(cx: &Ctx, size: usize, alignment: usize, expect: usize, flags: u64) -> (AclError, Va) {
    let mut va: Va = ptr::null_mut();
    let r = cx.acl().aclrtReserveMemAddress(&mut va, size, alignment, expect as Va, flags);
    (r, va)
}

/// Releases `va` when `r` says it was reserved.
fn release_if(cx: &Ctx, (r, va): (AclError, Va)) -> Result<AclError, Failure> {
    if r.is_success() {
        setup("aclrtReleaseMemAddress", cx.acl().aclrtReleaseMemAddress(va))?;
    }
    Ok(r)
}

/// [ACL-RSV-001](vmmkit_sys::acl::rules::RSV_001): `virPtr` NULL.
pub fn null_out(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let r = cx.acl().aclrtReserveMemAddress(ptr::null_mut(), TWO_MIB, 0, ptr::null_mut(), 0);
    cx.expect_code("aclrtReserveMemAddress(virPtr NULL)", r)
}

/// [ACL-RSV-002](vmmkit_sys::acl::rules::RSV_002): size 0.
pub fn zero_size(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let r = release_if(cx, try_reserve(cx, 0, 0, 0, 0))?;
    cx.expect_code("aclrtReserveMemAddress(size 0)", r)
}

/// [ACL-RSV-003](vmmkit_sys::acl::rules::RSV_003): flags 2 and 3 are refused; 0 and 1 work.
pub fn flags(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    for flags in [2, 3, 0x100] {
        let r = release_if(cx, try_reserve(cx, TWO_MIB, 0, 0, flags))?;
        cx.expect_code(&format!("aclrtReserveMemAddress(flags {flags})"), r)?;
    }
    for flags in [0, 1] {
        let r = release_if(cx, try_reserve(cx, TWO_MIB, 0, 0, flags))?;
        cx.expect_ok(&format!("aclrtReserveMemAddress(flags {flags})"), r)?;
    }
    Ok(())
}

/// [ACL-RSV-004](vmmkit_sys::acl::rules::RSV_004): alignment 2 MiB (what hcomm passes) and 1; 0 works.
pub fn alignment(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    for a in [TWO_MIB, 1] {
        let r = release_if(cx, try_reserve(cx, TWO_MIB, a, 0, 0))?;
        cx.expect_code(&format!("aclrtReserveMemAddress(alignment {a})"), r)?;
    }
    let r = release_if(cx, try_reserve(cx, TWO_MIB, 0, 0, 0))?;
    cx.expect_ok("aclrtReserveMemAddress(alignment 0)", r)
}

/// [ACL-RSV-005](vmmkit_sys::acl::rules::RSV_005): misaligned `expectPtr` for 4 KiB (D4's discriminating
/// case), 4 MiB and 600 MiB; a 4 MiB request at a 4 MiB-aligned address is
/// granted exactly there.
pub fn expect_ptr_alignment(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    for (size, at, why) in [
        (4096, HIGH + 0x1000, "4 KiB at a 4 KiB-aligned address (needs 2 MiB)"),
        (4 * MIB, HIGH + TWO_MIB, "4 MiB at a 2 MiB-aligned address (needs 4 MiB)"),
        (600 * MIB, HIGH + 512 * MIB, "600 MiB at a 512 MiB-aligned address (needs 1 GiB)"),
    ] {
        let r = release_if(cx, try_reserve(cx, size, 0, at, 0))?;
        cx.expect_code(&format!("aclrtReserveMemAddress {why}"), r)?;
    }
    let at = HIGH + 4 * MIB;
    let (r, va) = try_reserve(cx, 4 * MIB, 0, at, 0);
    cx.expect_ok("aclrtReserveMemAddress(4 MiB at a 4 MiB-aligned free address)", r)?;
    cx.ensure(
        "address granted for an aligned expectPtr",
        va as usize == at,
        format!("{at:#x}"),
        format!("{:#x}", va as usize),
    )?;
    release_if(cx, (r, va)).map(drop)
}

/// [ACL-RSV-006](vmmkit_sys::acl::rules::RSV_006): `expectPtr` on an existing reservation (507899), and
/// outside the window (107000, emulator choice).
pub fn expect_ptr_placement(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let taken = cx.reserve(TWO_MIB)?;
    let r = release_if(cx, try_reserve(cx, TWO_MIB, 0, taken as usize, 0))?;
    cx.expect("aclrtReserveMemAddress(expectPtr = an existing reservation)", AclError::RT_DRV_INTERNAL_ERROR, r)?;
    for at in [0x2000_0000_0000usize, 0x0800_0000_0000] {
        let r = release_if(cx, try_reserve(cx, TWO_MIB, 0, at, 0))?;
        cx.expect(
            &format!("aclrtReserveMemAddress(expectPtr {at:#x}, outside the window)"),
            AclError::RT_DRV_INTERNAL_ERROR,
            r,
        )?;
    }
    cx.expect_ok("aclrtReleaseMemAddress of the first reservation", cx.acl().aclrtReleaseMemAddress(taken))
}

/// [ACL-RSV-007](vmmkit_sys::acl::rules::RSV_007): 512 bytes with flags 1 (torch's probe); the range holds a
/// 2 MiB mapping.
pub fn small_request(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let (r, va) = try_reserve(cx, 512, 0, 0, 1);
    cx.expect_code("aclrtReserveMemAddress(512 bytes, flags 1)", r)?;
    let h = cx.malloc(TWO_MIB)?;
    cx.expect_ok("aclrtMapMem of 2 MiB into the 512-byte reservation", acl.aclrtMapMem(va, TWO_MIB, 0, h, 0))?;
    setup("aclrtUnmapMem", acl.aclrtUnmapMem(va))?;
    cx.expect_ok("aclrtReleaseMemAddress", acl.aclrtReleaseMemAddress(va))
}

/// [ACL-RSV-008](vmmkit_sys::acl::rules::RSV_008): reservations of several sizes land in the window, 2 MiB aligned.
pub fn address_window(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let mut held = Vec::new();
    for size in [512, TWO_MIB, 6 * MIB, GIB] {
        let va = cx.reserve(size)?;
        held.push(va);
        let a = va as usize;
        cx.ensure(
            &format!("address of a {size}-byte reservation"),
            (WINDOW_START..WINDOW_END).contains(&a) && a + size <= WINDOW_END && a % TWO_MIB == 0,
            "2 MiB aligned, in [0x100000000000, 0x180000000000)",
            format!("{a:#x}"),
        )?;
    }
    for va in held {
        setup("aclrtReleaseMemAddress", cx.acl().aclrtReleaseMemAddress(va))?;
    }
    Ok(())
}

/// [ACL-RSV-009](vmmkit_sys::acl::rules::RSV_009): 9 TiB, and 8 TiB + 2 MiB, exceed the 8 TiB window.
pub fn too_large(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    for size in [9usize << 40, (8usize << 40) + TWO_MIB] {
        let r = release_if(cx, try_reserve(cx, size, 0, 0, 0))?;
        cx.expect_code(&format!("aclrtReserveMemAddress({} GiB)", size >> 30), r)?;
    }
    let r = release_if(cx, try_reserve(cx, TWO_MIB, 0, 0, 0))?;
    cx.expect_ok("aclrtReserveMemAddress(2 MiB) afterwards", r)
}

/// [ACL-RSV-010](vmmkit_sys::acl::rules::RSV_010): with device 0 current, a failed map of a device-0 handle
/// leaves the reservation unbound, and device 1's memory maps there.
pub fn unbound_until_mapped(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let va = cx.reserve(4 * MIB)?;
    let h0 = cx.malloc(TWO_MIB)?;
    let misplaced = (va as usize + 0x1000) as Va;
    let r = acl.aclrtMapMem(misplaced, TWO_MIB, 0, h0, 0);
    cx.ensure("aclrtMapMem at a misaligned address (setup: must fail)", !r.is_success(), "a refusal", r)?;
    let h1 = cx.malloc_with(&prop(1), TWO_MIB)?;
    cx.ensure_code(
        "aclrtMapMem of device 1's memory into the unbound reservation",
        AclError::SUCCESS,
        acl.aclrtMapMem(va, TWO_MIB, 0, h1, 0),
    )?;
    cx.write(va, TWO_MIB, 5)?;
    cx.verify("read back device 1's memory", va, TWO_MIB, 5)
}

/// [ACL-REL-001](vmmkit_sys::acl::rules::REL_001): `aclrtReleaseMemAddress(NULL)`.
pub fn release_null(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    cx.expect_code("aclrtReleaseMemAddress(NULL)", cx.acl().aclrtReleaseMemAddress(ptr::null_mut()))
}

/// [ACL-REL-002](vmmkit_sys::acl::rules::REL_002): an interior address, a released one, and aclrtMalloc
/// memory; the start then releases.
pub fn release_not_start(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let va = cx.reserve(4 * MIB)?;
    let interior = (va as usize + TWO_MIB) as Va;
    cx.expect_code("aclrtReleaseMemAddress(start + 2 MiB)", acl.aclrtReleaseMemAddress(interior))?;
    let gone = cx.reserve(TWO_MIB)?;
    setup("aclrtReleaseMemAddress", acl.aclrtReleaseMemAddress(gone))?;
    cx.expect_code("aclrtReleaseMemAddress of a released reservation", acl.aclrtReleaseMemAddress(gone))?;
    let mut plain: Va = ptr::null_mut();
    setup("aclrtMalloc(2 MiB)", acl.aclrtMalloc(&mut plain, TWO_MIB, ACL_MEM_MALLOC_HUGE_FIRST))?;
    cx.expect_code("aclrtReleaseMemAddress of aclrtMalloc memory", acl.aclrtReleaseMemAddress(plain))?;
    setup("aclrtFree", acl.aclrtFree(plain))?;
    cx.expect_ok("aclrtReleaseMemAddress of the start afterwards", acl.aclrtReleaseMemAddress(va))
}

/// [ACL-REL-003](vmmkit_sys::acl::rules::REL_003): `aclrtFree` of a reservation; the reservation then releases.
pub fn free_on_reservation(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let va = cx.reserve(TWO_MIB)?;
    cx.expect_code("aclrtFree of a reserved address", acl.aclrtFree(va))?;
    cx.expect_ok("aclrtReleaseMemAddress afterwards", acl.aclrtReleaseMemAddress(va))
}

/// [ACL-REL-004](vmmkit_sys::acl::rules::REL_004): releasing a mapped reservation succeeds; the mapping's
/// reference goes with it, so freeing the handle returns the memory.
pub fn release_with_mappings(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let (free0, _) = cx.mem_info()?;
    let m = cx.alloc_mapped(TWO_MIB)?;
    cx.expect_code("aclrtReleaseMemAddress of a mapped reservation", acl.aclrtReleaseMemAddress(m.va))?;
    cx.expect_ok("aclrtFreePhysical afterwards", acl.aclrtFreePhysical(m.handle))?;
    let (free1, _) = cx.mem_info()?;
    cx.ensure("free device memory after release and free (implicit unmap)", free1 == free0, free0, free1)
}

/// Mooncake's A3 shared-segment address, 78 TiB (`kA3ReserveStartAddr`,
/// Mooncake `ascend_shared_segment.cpp:36-38`): past HIXL's [40 TiB, 72 TiB).
pub const MOONCAKE_A3: usize = 78 << 40;

/// `aclrtReserveMemAddressNoUCMemory(size, alignment 0, expect, flags)`.
fn try_reserve_no_uc(cx: &Ctx, size: usize, expect: usize, flags: u64) -> Result<(AclError, Va), Failure> {
    let mut va: Va = ptr::null_mut();
    let r = cx.acl().aclrtReserveMemAddressNoUCMemory(&mut va, size, 0, expect as Va, flags)?;
    Ok((r, va))
}

/// [ACL-RSV-011](vmmkit_sys::acl::rules::RSV_011): Mooncake's call, 1 GiB at 78 TiB with flags 1. Where it
/// succeeds (A3) the reservation is exactly there and takes a mapping
/// whose bytes read back.
pub fn no_uc_fixed_address(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let (r, va) = try_reserve_no_uc(cx, GIB, MOONCAKE_A3, 1)?;
    cx.expect_code("aclrtReserveMemAddressNoUCMemory(1 GiB at 78 TiB, flags 1)", r)?;
    if !r.is_success() {
        return Ok(());
    }
    let acl = cx.acl();
    cx.ensure("the reservation's address", va as usize == MOONCAKE_A3, "78 TiB (0x4e0000000000)", format!("{va:p}"))?;
    let h = cx.malloc(TWO_MIB)?;
    cx.expect_ok("aclrtMapMem of 2 MiB at 78 TiB", acl.aclrtMapMem(va, TWO_MIB, 0, h, 0))?;
    cx.write(va, TWO_MIB, 11)?;
    cx.verify("bytes written at 78 TiB", va, TWO_MIB, 11)?;
    setup("aclrtUnmapMem", acl.aclrtUnmapMem(va))?;
    cx.expect_ok("aclrtReleaseMemAddress of the 78 TiB reservation", acl.aclrtReleaseMemAddress(va))
}

/// [ACL-RSV-012](vmmkit_sys::acl::rules::RSV_012): no chosen address.
pub fn no_uc_without_address(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let (r, va) = try_reserve_no_uc(cx, GIB, 0, 1)?;
    let r = release_if(cx, (r, va))?;
    cx.expect_code("aclrtReserveMemAddressNoUCMemory(1 GiB, expectPtr NULL)", r)
}

/// [ACL-RSV-013](vmmkit_sys::acl::rules::RSV_013): 2 MiB at 78 TiB.
pub fn no_uc_partial_gib(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let (r, va) = try_reserve_no_uc(cx, TWO_MIB, MOONCAKE_A3, 1)?;
    let r = release_if(cx, (r, va))?;
    cx.expect_code("aclrtReserveMemAddressNoUCMemory(2 MiB at 78 TiB)", r)?;
    let (r, va) = try_reserve_no_uc(cx, GIB, MOONCAKE_A3, 1)?;
    let r = release_if(cx, (r, va))?;
    cx.expect_ok("state unchanged: 1 GiB at 78 TiB afterwards", r)
}
