//! ACL-MAP and ACL-UNMAP: `aclrtMapMem`, `aclrtUnmapMem`.

use std::ptr;

use vmmkit_sys::acl::*;

use super::sharing::peer_exported;
use crate::acl::{Ctx, Handle, MIB, TWO_MIB, Va, prop, setup};
use crate::outcome::Failure;

/// `va + off`.
fn at(va: Va, off: usize) -> Va {
    (va as usize + off) as Va
}

/// Device 0, a 2 MiB reservation and a 2 MiB handle, not mapped.
fn reserved_and_allocated(cx: &Ctx) -> Result<(Va, Handle), Failure> {
    cx.device(0)?;
    Ok((cx.reserve(TWO_MIB)?, cx.malloc(TWO_MIB)?))
}

/// After a refused map: the valid map at the same place works.
fn still_maps(cx: &Ctx, va: Va, h: Handle) -> Result<(), Failure> {
    cx.expect_ok("state unchanged: a valid aclrtMapMem at the same VA", cx.acl().aclrtMapMem(va, TWO_MIB, 0, h, 0))
}

/// [ACL-MAP-001](vmmkit_sys::acl::rules::MAP_001): NULL `virPtr`, then NULL `handle`.
pub fn null_pointers(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h) = reserved_and_allocated(cx)?;
    let acl = cx.acl();
    cx.expect_code("aclrtMapMem(virPtr NULL)", acl.aclrtMapMem(ptr::null_mut(), TWO_MIB, 0, h, 0))?;
    cx.expect_code("aclrtMapMem(handle NULL)", acl.aclrtMapMem(va, TWO_MIB, 0, ptr::null_mut(), 0))?;
    still_maps(cx, va, h)
}

/// [ACL-MAP-002](vmmkit_sys::acl::rules::MAP_002): size 0.
pub fn zero_size(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h) = reserved_and_allocated(cx)?;
    cx.expect_code("aclrtMapMem(size 0)", cx.acl().aclrtMapMem(va, 0, 0, h, 0))?;
    still_maps(cx, va, h)
}

/// [ACL-MAP-003](vmmkit_sys::acl::rules::MAP_003): flags 1 and 2.
pub fn nonzero_flags(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h) = reserved_and_allocated(cx)?;
    for flags in [1, 2] {
        cx.expect_code(&format!("aclrtMapMem(flags {flags})"), cx.acl().aclrtMapMem(va, TWO_MIB, 0, h, flags))?;
    }
    still_maps(cx, va, h)
}

/// [ACL-MAP-004](vmmkit_sys::acl::rules::MAP_004): offset 2 MiB and 4 KiB.
pub fn nonzero_offset(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h) = reserved_and_allocated(cx)?;
    for off in [TWO_MIB, 4096] {
        cx.expect_code(&format!("aclrtMapMem(offset {off})"), cx.acl().aclrtMapMem(va, TWO_MIB, off, h, 0))?;
    }
    still_maps(cx, va, h)
}

/// [ACL-MAP-005](vmmkit_sys::acl::rules::MAP_005): a freed handle.
pub fn dead_handle(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h) = reserved_and_allocated(cx)?;
    let dead = cx.malloc(TWO_MIB)?;
    setup("aclrtFreePhysical", cx.acl().aclrtFreePhysical(dead))?;
    cx.expect_code("aclrtMapMem of a freed handle", cx.acl().aclrtMapMem(va, TWO_MIB, 0, dead, 0))?;
    still_maps(cx, va, h)
}

/// [ACL-MAP-006](vmmkit_sys::acl::rules::MAP_006): aclrtMalloc memory, and a released reservation.
pub fn outside_reservation(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h) = reserved_and_allocated(cx)?;
    let acl = cx.acl();
    let mut plain: Va = ptr::null_mut();
    setup("aclrtMalloc(2 MiB)", acl.aclrtMalloc(&mut plain, TWO_MIB, ACL_MEM_MALLOC_HUGE_FIRST))?;
    cx.expect_code("aclrtMapMem at aclrtMalloc memory", acl.aclrtMapMem(plain, TWO_MIB, 0, h, 0))?;
    setup("aclrtFree", acl.aclrtFree(plain))?;
    let gone = cx.reserve(TWO_MIB)?;
    setup("aclrtReleaseMemAddress", acl.aclrtReleaseMemAddress(gone))?;
    cx.expect_code("aclrtMapMem at a released reservation", acl.aclrtMapMem(gone, TWO_MIB, 0, h, 0))?;
    still_maps(cx, va, h)
}

/// [ACL-MAP-007](vmmkit_sys::acl::rules::MAP_007): a VA 4 KiB past a 2 MiB boundary, and a size of 2 MiB + 4 KiB.
pub fn misaligned(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let va = cx.reserve(4 * MIB)?;
    let h = cx.malloc(TWO_MIB)?;
    cx.expect_code("aclrtMapMem at start + 4 KiB", acl.aclrtMapMem(at(va, 4096), TWO_MIB, 0, h, 0))?;
    cx.expect_code("aclrtMapMem of 2 MiB + 4 KiB", acl.aclrtMapMem(va, TWO_MIB + 4096, 0, h, 0))?;
    still_maps(cx, va, h)
}

/// [ACL-MAP-008](vmmkit_sys::acl::rules::MAP_008): a 4 MiB handle at 2 MiB into a 4 MiB reservation.
pub fn past_end(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let va = cx.reserve(4 * MIB)?;
    let h = cx.malloc(4 * MIB)?;
    cx.expect_code(
        "aclrtMapMem of 4 MiB at start + 2 MiB of 4 MiB",
        acl.aclrtMapMem(at(va, TWO_MIB), 4 * MIB, 0, h, 0),
    )?;
    cx.expect_ok("state unchanged: the 4 MiB at the start", acl.aclrtMapMem(va, 4 * MIB, 0, h, 0))
}

/// [ACL-MAP-009](vmmkit_sys::acl::rules::MAP_009): the same range, and overlapping ranges; the first mapping
/// keeps its data, and the free range still maps.
pub fn already_mapped(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let va = cx.reserve(6 * MIB)?;
    let first = cx.malloc(TWO_MIB)?;
    cx.map(at(va, TWO_MIB), TWO_MIB, first)?;
    cx.write(at(va, TWO_MIB), TWO_MIB, 9)?;
    let other = cx.malloc(TWO_MIB)?;
    let big = cx.malloc(4 * MIB)?;
    cx.expect_code("aclrtMapMem over the same 2 MiB", acl.aclrtMapMem(at(va, TWO_MIB), TWO_MIB, 0, other, 0))?;
    cx.expect_code("aclrtMapMem of 4 MiB overlapping from below", acl.aclrtMapMem(va, 4 * MIB, 0, big, 0))?;
    cx.expect_code(
        "aclrtMapMem of 4 MiB overlapping from inside",
        acl.aclrtMapMem(at(va, TWO_MIB), 4 * MIB, 0, big, 0),
    )?;
    cx.verify("the first mapping's data afterwards", at(va, TWO_MIB), TWO_MIB, 9)?;
    cx.expect_ok("state unchanged: mapping the free 2 MiB at the start", acl.aclrtMapMem(va, TWO_MIB, 0, other, 0))
}

/// [ACL-MAP-010](vmmkit_sys::acl::rules::MAP_010): device 1's memory next to device 0's, and again after the
/// device 0 mapping is gone (the binding is sticky).
pub fn one_device_per_reservation(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let va = cx.reserve(4 * MIB)?;
    let h0 = cx.malloc(TWO_MIB)?;
    let h1 = cx.malloc_with(&prop(1), TWO_MIB)?;
    cx.map(va, TWO_MIB, h0)?;
    cx.expect_code("aclrtMapMem of device 1 next to device 0", acl.aclrtMapMem(at(va, TWO_MIB), TWO_MIB, 0, h1, 0))?;
    setup("aclrtUnmapMem", acl.aclrtUnmapMem(va))?;
    cx.expect_code("aclrtMapMem of device 1 after unmapping device 0", acl.aclrtMapMem(va, TWO_MIB, 0, h1, 0))?;
    cx.expect_ok("state unchanged: device 0 maps again", acl.aclrtMapMem(at(va, TWO_MIB), TWO_MIB, 0, h0, 0))
}

/// [ACL-MAP-011](vmmkit_sys::acl::rules::MAP_011): three handles at +0, +2 and +4 MiB of one reservation,
/// each with its own data.
pub fn side_by_side(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let va = cx.reserve(6 * MIB)?;
    for i in 0..3u8 {
        let h = cx.malloc(TWO_MIB)?;
        let place = at(va, usize::from(i) * TWO_MIB);
        cx.expect_code(&format!("aclrtMapMem at start + {} MiB", 2 * i), acl.aclrtMapMem(place, TWO_MIB, 0, h, 0))?;
        cx.write(place, TWO_MIB, 20 + i)?;
    }
    for i in 0..3u8 {
        let place = at(va, usize::from(i) * TWO_MIB);
        cx.verify(&format!("data at start + {} MiB", 2 * i), place, TWO_MIB, 20 + i)?;
    }
    Ok(())
}

/// [ACL-MAP-012](vmmkit_sys::acl::rules::MAP_012): 2 MiB of a 4 MiB handle, and 4 MiB of a 2 MiB handle.
pub fn size_differs(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let va = cx.reserve(4 * MIB)?;
    let h4 = cx.malloc(4 * MIB)?;
    let h2 = cx.malloc(TWO_MIB)?;
    cx.expect_code("aclrtMapMem of 2 MiB of a 4 MiB handle", acl.aclrtMapMem(va, TWO_MIB, 0, h4, 0))?;
    cx.expect_code("aclrtMapMem of 4 MiB of a 2 MiB handle", acl.aclrtMapMem(va, 4 * MIB, 0, h2, 0))?;
    cx.expect_ok("state unchanged: 4 MiB of the 4 MiB handle", acl.aclrtMapMem(va, 4 * MIB, 0, h4, 0))
}

/// [ACL-MAP-013](vmmkit_sys::acl::rules::MAP_013): a local and an imported handle side by side in one reservation.
pub fn mixed_local_imported(cx: &mut Ctx) -> Result<(), Failure> {
    let acl = cx.acl();
    let mut b = cx.peer("B")?;
    let sh = peer_exported(&mut b, 7)?;
    cx.device(0)?;
    let mut imported: Handle = ptr::null_mut();
    setup("aclrtMemImportFromShareableHandle", acl.aclrtMemImportFromShareableHandle(sh, 0, &mut imported))?;
    let local = cx.malloc(TWO_MIB)?;
    let va = cx.reserve(4 * MIB)?;
    cx.expect_code("aclrtMapMem of the local handle at +0", acl.aclrtMapMem(va, TWO_MIB, 0, local, 0))?;
    cx.expect_code(
        "aclrtMapMem of the imported handle at +2 MiB",
        acl.aclrtMapMem(at(va, TWO_MIB), TWO_MIB, 0, imported, 0),
    )?;
    cx.verify("the imported half holds B's data", at(va, TWO_MIB), TWO_MIB, 7)?;
    b.exit()
}

/// [ACL-MAP-014](vmmkit_sys::acl::rules::MAP_014): one handle at two VAs; a write through one is read through
/// the other.
pub fn same_handle_twice(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let h = cx.malloc(TWO_MIB)?;
    let (va1, va2) = (cx.reserve(TWO_MIB)?, cx.reserve(TWO_MIB)?);
    cx.expect_code("aclrtMapMem at the first VA", acl.aclrtMapMem(va1, TWO_MIB, 0, h, 0))?;
    cx.expect_code("aclrtMapMem of the same handle at a second VA", acl.aclrtMapMem(va2, TWO_MIB, 0, h, 0))?;
    cx.write(va1, TWO_MIB, 14)?;
    cx.verify("read through the second VA", va2, TWO_MIB, 14)
}

/// [ACL-MAP-015](vmmkit_sys::acl::rules::MAP_015): unmap, map the same handle again at the same VA, then a new
/// handle there.
pub fn remap_same_va(cx: &mut Ctx) -> Result<(), Failure> {
    let acl = cx.acl();
    let m = cx.alloc_mapped(TWO_MIB)?;
    cx.write(m.va, TWO_MIB, 15)?;
    setup("aclrtUnmapMem", acl.aclrtUnmapMem(m.va))?;
    cx.expect_code("aclrtMapMem of the same handle at the same VA", acl.aclrtMapMem(m.va, TWO_MIB, 0, m.handle, 0))?;
    cx.verify("data after the remap", m.va, TWO_MIB, 15)?;
    setup("aclrtUnmapMem", acl.aclrtUnmapMem(m.va))?;
    setup("aclrtFreePhysical", acl.aclrtFreePhysical(m.handle))?;
    let fresh = cx.malloc(TWO_MIB)?;
    cx.expect_code("aclrtMapMem of a new handle at the same VA", acl.aclrtMapMem(m.va, TWO_MIB, 0, fresh, 0))?;
    cx.write(m.va, TWO_MIB, 16)?;
    cx.verify("the new handle's data", m.va, TWO_MIB, 16)
}

/// [ACL-MAP-016](vmmkit_sys::acl::rules::MAP_016): B's device-0 memory imported onto device 1 is device 1's:
/// its properties say so, and a reservation bound to device 0 refuses it.
pub fn imported_handle_device(cx: &mut Ctx) -> Result<(), Failure> {
    let acl = cx.acl();
    let mut b = cx.peer("B")?;
    let sh = peer_exported(&mut b, 16)?;
    cx.device(0)?;
    let mut h: Handle = ptr::null_mut();
    setup("aclrtMemImportFromShareableHandle(deviceId 1)", acl.aclrtMemImportFromShareableHandle(sh, 1, &mut h))?;
    let mut p = aclrtPhysicalMemProp::default();
    setup("aclrtMemGetAllocationPropertiesFromHandle", acl.aclrtMemGetAllocationPropertiesFromHandle(h, &mut p))?;
    cx.ensure(
        "location of the handle imported onto device 1",
        p.location == aclrtMemLocation { id: 1, type_: ACL_MEM_LOCATION_TYPE_DEVICE },
        "DEVICE 1",
        format!("{:?}", p.location),
    )?;
    let va = cx.reserve(4 * MIB)?;
    let local = cx.malloc(TWO_MIB)?;
    cx.map(va, TWO_MIB, local)?;
    cx.ensure_code(
        "aclrtMapMem of the imported handle into a reservation bound to device 0",
        AclError::RT_DRV_INTERNAL_ERROR,
        acl.aclrtMapMem(at(va, TWO_MIB), TWO_MIB, 0, h, 0),
    )?;
    let own = cx.reserve(TWO_MIB)?;
    cx.ensure_code(
        "aclrtMapMem of the imported handle into a fresh reservation",
        AclError::SUCCESS,
        acl.aclrtMapMem(own, TWO_MIB, 0, h, 0),
    )?;
    cx.verify("B's data through device 1", own, TWO_MIB, 16)?;
    b.exit()
}

/// [ACL-UNMAP-001](vmmkit_sys::acl::rules::UNMAP_001): `aclrtUnmapMem(NULL)`.
pub fn unmap_null(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    cx.expect_code("aclrtUnmapMem(NULL)", cx.acl().aclrtUnmapMem(ptr::null_mut()))
}

/// [ACL-UNMAP-002](vmmkit_sys::acl::rules::UNMAP_002): the middle of a mapping, and a reserved but unmapped VA;
/// the start then unmaps.
pub fn unmap_not_start(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let va = cx.reserve(4 * MIB)?;
    let h = cx.malloc(4 * MIB)?;
    cx.map(va, 4 * MIB, h)?;
    cx.expect_code("aclrtUnmapMem(start + 2 MiB)", acl.aclrtUnmapMem(at(va, TWO_MIB)))?;
    let empty = cx.reserve(TWO_MIB)?;
    cx.expect_code("aclrtUnmapMem of a reserved, unmapped VA", acl.aclrtUnmapMem(empty))?;
    cx.write(va, 4 * MIB, 2)?;
    cx.verify("state unchanged: the mapping's data", va, 4 * MIB, 2)?;
    cx.expect_ok("aclrtUnmapMem of the start", acl.aclrtUnmapMem(va))
}

/// [ACL-UNMAP-003](vmmkit_sys::acl::rules::UNMAP_003): free, then the last unmap returns the device memory.
pub fn unmap_last_releases(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let (free0, _) = cx.mem_info()?;
    let m = cx.alloc_mapped(TWO_MIB)?;
    setup("aclrtFreePhysical", acl.aclrtFreePhysical(m.handle))?;
    let (held, _) = cx.mem_info()?;
    cx.ensure("free device memory before the last unmap", held + TWO_MIB == free0, free0 - TWO_MIB, held)?;
    cx.expect_code("aclrtUnmapMem of the last mapping of a freed handle", acl.aclrtUnmapMem(m.va))?;
    let (free1, _) = cx.mem_info()?;
    cx.ensure("free device memory after the last unmap", free1 == free0, free0, free1)?;
    Ok(())
}
