//! ACL-MP and ACL-FP: `aclrtMallocPhysical` and `aclrtFreePhysical`.

use std::ptr;

use vmmkit_sys::acl::*;

use crate::acl::{Ctx, GIB, Handle, MIB, TWO_MIB, Va, prop, prop_with, setup};
use crate::outcome::Failure;
use crate::peer::Request;

/// `aclrtMallocPhysical(size, p, flags)`: the code, and the handle when it
/// worked (freed at once so later steps start clean).
fn try_malloc(cx: &Ctx, p: &aclrtPhysicalMemProp, size: usize, flags: u64) -> AclError {
    let mut h: Handle = ptr::null_mut();
    let r = cx.acl().aclrtMallocPhysical(&mut h, size, p, flags);
    if r.is_success() {
        let _ = cx.acl().aclrtFreePhysical(h);
    }
    r
}

/// [ACL-MP-001](vmmkit_sys::acl::rules::MP_001): NULL `handle`, then NULL `prop`.
pub fn null_pointers(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let p = prop(0);
    cx.expect_code("aclrtMallocPhysical(handle NULL)", acl.aclrtMallocPhysical(ptr::null_mut(), TWO_MIB, &p, 0))?;
    let mut h: Handle = ptr::null_mut();
    cx.expect_code("aclrtMallocPhysical(prop NULL)", acl.aclrtMallocPhysical(&mut h, TWO_MIB, ptr::null(), 0))
}

/// [ACL-MP-002](vmmkit_sys::acl::rules::MP_002): size 0.
pub fn zero_size(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    cx.expect_code("aclrtMallocPhysical(size 0)", try_malloc(cx, &prop(0), 0, 0))
}

/// [ACL-MP-003](vmmkit_sys::acl::rules::MP_003): flags 1 and 2; flags 0 then works.
pub fn nonzero_flags(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    for flags in [1, 2] {
        cx.expect_code(&format!("aclrtMallocPhysical(flags {flags})"), try_malloc(cx, &prop(0), TWO_MIB, flags))?;
    }
    cx.expect_ok("aclrtMallocPhysical(flags 0) afterwards", try_malloc(cx, &prop(0), TWO_MIB, 0))
}

/// [ACL-MP-004](vmmkit_sys::acl::rules::MP_004): handleType POSIX (2) and 1.
pub fn handle_type(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    for t in [ACL_MEM_HANDLE_TYPE_POSIX, 1] {
        let p = aclrtPhysicalMemProp { handleType: t, ..prop(0) };
        cx.expect_code(&format!("aclrtMallocPhysical(handleType {t})"), try_malloc(cx, &p, TWO_MIB, 0))?;
    }
    Ok(())
}

/// [ACL-MP-005](vmmkit_sys::acl::rules::MP_005): allocationType 1.
pub fn allocation_type(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let p = aclrtPhysicalMemProp { allocationType: 1, ..prop(0) };
    cx.expect_code("aclrtMallocPhysical(allocationType 1)", try_malloc(cx, &p, TWO_MIB, 0))
}

/// [ACL-MP-006](vmmkit_sys::acl::rules::MP_006): UNREGISTERED and MANAGED locations.
pub fn unsupported_location(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    for kind in [ACL_MEM_LOCATION_TYPE_UNREGISTERED, ACL_MEM_LOCATION_TYPE_MANAGED] {
        let p = prop_with(ACL_HBM_MEM_HUGE, kind, 0);
        cx.expect_code(&format!("aclrtMallocPhysical(location type {kind})"), try_malloc(cx, &p, TWO_MIB, 0))?;
    }
    Ok(())
}

/// [ACL-MP-007](vmmkit_sys::acl::rules::MP_007): a DDR attribute at DEVICE 0, and the attributes never accepted.
pub fn bad_attr(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    for attr in [ACL_DDR_MEM_HUGE, ACL_DDR_MEM, ACL_HBM_MEM, ACL_HBM_MEM_P2P_HUGE, ACL_HBM_MEM_P2P_NORMAL, 11, 18] {
        let p = prop_with(attr, ACL_MEM_LOCATION_TYPE_DEVICE, 0);
        cx.expect_code(&format!("aclrtMallocPhysical(attr {attr} at DEVICE 0)"), try_malloc(cx, &p, TWO_MIB, 0))?;
    }
    Ok(())
}

/// [ACL-MP-008](vmmkit_sys::acl::rules::MP_008): DEVICE location id equal to the device count.
pub fn bad_device(cx: &mut Ctx) -> Result<(), Failure> {
    let n = cx.device_count()?;
    cx.device(0)?;
    cx.expect_code(&format!("aclrtMallocPhysical(DEVICE {n} of {n})"), try_malloc(cx, &prop(n), TWO_MIB, 0))
}

/// [ACL-MP-009](vmmkit_sys::acl::rules::MP_009): HOST_NUMA without a current device (107002); with one, it
/// works or the driver lacks it (207000).
pub fn host_numa(cx: &mut Ctx) -> Result<(), Failure> {
    cx.init()?;
    let numa = prop_with(ACL_HBM_MEM_HUGE, ACL_MEM_LOCATION_TYPE_HOST_NUMA, 0);
    cx.expect(
        "aclrtMallocPhysical(HOST_NUMA 0) with no current device",
        AclError::RT_CONTEXT_NULL,
        try_malloc(cx, &numa, TWO_MIB, 0),
    )?;
    cx.device(0)?;
    let r = try_malloc(cx, &numa, TWO_MIB, 0);
    if r.is_success() {
        cx.note("HOST_NUMA is supported here (second case: 0)");
        Ok(())
    } else {
        cx.expect("aclrtMallocPhysical(HOST_NUMA 0) with device 0 current", AclError::RT_FEATURE_NOT_SUPPORT, r)
    }
}

/// [ACL-MP-010](vmmkit_sys::acl::rules::MP_010): attr 10 (1 GiB pages) on a device without giant pages.
pub fn giant_pages_unsupported(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let mut p = prop_with(ACL_HBM_MEM_HUGE1G, ACL_MEM_LOCATION_TYPE_DEVICE, 0);
    let mut g = 0usize;
    let r = cx.acl().aclrtMemGetAllocationGranularity(&mut p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &mut g);
    if r.is_success() {
        return Err(Failure::NotSupported(format!(
            "device 0 supports 1 GiB pages (granularity of attr 10 is {g}); the rule needs a chip or driver without them"
        )));
    }
    cx.expect_code("aclrtMallocPhysical(1 GiB, attr 10) without giant pages", try_malloc(cx, &p, GIB, 0))
}

/// [ACL-MP-011](vmmkit_sys::acl::rules::MP_011): HOST location id 1 (207000), then id 64 (past the device
/// ids: 107000), then id 1 with `reserve` 1 (the reserve check comes first).
pub fn host_id_nonzero(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let p = prop_with(ACL_HBM_MEM_HUGE, ACL_MEM_LOCATION_TYPE_HOST, 1);
    cx.expect_code("aclrtMallocPhysical(HOST 1)", try_malloc(cx, &p, TWO_MIB, 0))?;
    let p = prop_with(ACL_HBM_MEM_HUGE, ACL_MEM_LOCATION_TYPE_HOST, 64);
    cx.expect("aclrtMallocPhysical(HOST 64)", AclError::RT_PARAM_INVALID, try_malloc(cx, &p, TWO_MIB, 0))?;
    let p = aclrtPhysicalMemProp { reserve: 1, ..prop_with(ACL_HBM_MEM_HUGE, ACL_MEM_LOCATION_TYPE_HOST, 1) };
    cx.expect("aclrtMallocPhysical(HOST 1, reserve 1)", AclError::RT_PARAM_INVALID, try_malloc(cx, &p, TWO_MIB, 0))?;
    let p = prop_with(ACL_HBM_MEM_HUGE, ACL_MEM_LOCATION_TYPE_HOST, 0);
    cx.expect_ok("aclrtMallocPhysical(HOST 0)", try_malloc(cx, &p, TWO_MIB, 0))
}

/// [ACL-MP-012](vmmkit_sys::acl::rules::MP_012): location type 5, then `reserve` 1; then `reserve` 1 with a
/// 1G attribute at HOST 0, where the giant-page check wins (207000).
pub fn location_type_or_reserve(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let p = prop_with(ACL_HBM_MEM_HUGE, 5, 0);
    cx.expect_code("aclrtMallocPhysical(location type 5)", try_malloc(cx, &p, TWO_MIB, 0))?;
    let p = aclrtPhysicalMemProp { reserve: 1, ..prop(0) };
    cx.expect_code("aclrtMallocPhysical(reserve 1)", try_malloc(cx, &p, TWO_MIB, 0))?;
    let p = aclrtPhysicalMemProp { reserve: 1, ..prop_with(ACL_HBM_MEM_HUGE1G, ACL_MEM_LOCATION_TYPE_HOST, 0) };
    let r = try_malloc(cx, &p, GIB, 0);
    cx.ensure_code(
        "aclrtMallocPhysical(HOST 0, attr 10, reserve 1): giant pages first",
        AclError::RT_FEATURE_NOT_SUPPORT,
        r,
    )
}

/// [ACL-MP-013](vmmkit_sys::acl::rules::MP_013): 4 KiB and 3 MiB; 2 MiB then works.
pub fn size_not_2mib_multiple(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    for size in [4096, 3 * MIB, TWO_MIB + 4096] {
        cx.expect_code(&format!("aclrtMallocPhysical({size} bytes)"), try_malloc(cx, &prop(0), size, 0))?;
    }
    cx.expect_ok("aclrtMallocPhysical(2 MiB) afterwards", try_malloc(cx, &prop(0), TWO_MIB, 0))
}

/// [ACL-MP-014](vmmkit_sys::acl::rules::MP_014): 4 KiB of attr 10 is accepted and is a whole 1 GiB: it maps
/// as 1 GiB.
pub fn giant_size_rounded(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let p = prop_with(ACL_HBM_MEM_HUGE1G, ACL_MEM_LOCATION_TYPE_DEVICE, 0);
    let mut q = p;
    let mut g = 0usize;
    let r = acl.aclrtMemGetAllocationGranularity(&mut q, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &mut g);
    if !r.is_success() {
        return Err(Failure::NotSupported(format!(
            "device 0 has no 1 GiB pages (granularity of attr 10 returned {r})"
        )));
    }
    let mut h: Handle = ptr::null_mut();
    cx.expect_code("aclrtMallocPhysical(4096 bytes, attr 10)", acl.aclrtMallocPhysical(&mut h, 4096, &p, 0))?;
    let va = cx.reserve(GIB)?;
    cx.expect_ok("aclrtMapMem of the whole 1 GiB", acl.aclrtMapMem(va, GIB, 0, h, 0))?;
    setup("aclrtUnmapMem", acl.aclrtUnmapMem(va))?;
    setup("aclrtFreePhysical", acl.aclrtFreePhysical(h))
}

/// [ACL-MP-015](vmmkit_sys::acl::rules::MP_015): one allocation larger than the device, then (on a small
/// device) allocations until memory runs out: the count must match the
/// free memory, and freeing one makes room again.
pub fn out_of_memory(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let (free, total) = cx.mem_info()?;
    let too_big = (total + TWO_MIB).div_ceil(TWO_MIB) * TWO_MIB;
    cx.expect_code(
        &format!("aclrtMallocPhysical({} MiB) on a {} MiB device", too_big >> 20, total >> 20),
        try_malloc(cx, &prop(0), too_big, 0),
    )?;
    if total > 64 * MIB {
        cx.note(format!("device has {} MiB: only the oversized allocation was tried", total >> 20));
        return Ok(());
    }
    let mut held = Vec::new();
    let last = loop {
        let mut h: Handle = ptr::null_mut();
        let r = acl.aclrtMallocPhysical(&mut h, TWO_MIB, &prop(0), 0);
        if !r.is_success() || held.len() > total / TWO_MIB {
            break r;
        }
        held.push(h);
    };
    cx.expect_code(&format!("aclrtMallocPhysical(2 MiB) after {} MiB allocated", held.len() * 2), last)?;
    cx.ensure(
        "allocations before running out",
        held.len() == free / TWO_MIB,
        format!("{} (free memory {} MiB)", free / TWO_MIB, free >> 20),
        held.len(),
    )?;
    let Some(&first) = held.first() else { return Ok(()) };
    setup("aclrtFreePhysical", acl.aclrtFreePhysical(first))?;
    cx.expect_ok("aclrtMallocPhysical(2 MiB) after freeing one", try_malloc(cx, &prop(0), TWO_MIB, 0))
}

/// [ACL-MP-016](vmmkit_sys::acl::rules::MP_016): attrs 5, 12, 15 have 2 MiB granularity, allocate in 2 MiB and
/// map and hold data at 2 MiB.
pub fn normal_attrs_2mib_pages(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    for attr in [ACL_HBM_MEM_NORMAL, ACL_MEM_NORMAL, ACL_MEM_P2P_NORMAL] {
        let mut p = prop_with(attr, ACL_MEM_LOCATION_TYPE_DEVICE, 0);
        let mut g = 0usize;
        let step = format!("granularity of normal attr {attr}");
        cx.ensure_code(&step, AclError::SUCCESS, acl.aclrtMemGetAllocationGranularity(&mut p, 0, &mut g))?;
        cx.ensure(&step, g == TWO_MIB, TWO_MIB, g)?;
        let h = cx.malloc_with(&p, TWO_MIB)?;
        let va = cx.reserve(TWO_MIB)?;
        cx.ensure_code(
            &format!("aclrtMapMem of 2 MiB of attr {attr}"),
            AclError::SUCCESS,
            acl.aclrtMapMem(va, TWO_MIB, 0, h, 0),
        )?;
        cx.write(va, TWO_MIB, attr as u8)?;
        cx.verify(&format!("read back 2 MiB of attr {attr}"), va, TWO_MIB, attr as u8)?;
    }
    Ok(())
}

/// [ACL-MP-017](vmmkit_sys::acl::rules::MP_017): a peer that owns no handle maps this process's handle value:
/// the value means nothing there (107000, as [ACL-MAP-005](vmmkit_sys::acl::rules::MAP_005)).
pub fn handle_is_process_local(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    let mut b = cx.peer("B")?;
    let r = b.call(&Request::MapForeign { handle_value: m.handle as usize as u64, size: TWO_MIB as u64 })?;
    if r.text == "aclrtReserveMemAddress" {
        return Err(Failure::setup("peer B: aclrtReserveMemAddress", AclError(r.code)));
    }
    cx.ensure_code(
        "peer B: aclrtMapMem with this process's handle value",
        AclError::RT_PARAM_INVALID,
        AclError(r.code),
    )?;
    b.exit()
}

/// [ACL-FP-001](vmmkit_sys::acl::rules::FP_001): `aclrtFreePhysical(NULL)`.
pub fn free_null(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    cx.expect_code("aclrtFreePhysical(NULL)", cx.acl().aclrtFreePhysical(ptr::null_mut()))
}

/// [ACL-FP-002](vmmkit_sys::acl::rules::FP_002): free while mapped succeeds, the data stays readable, and
/// the device memory comes back at the unmap, not before.
pub fn free_while_mapped(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let (free0, _) = cx.mem_info()?;
    let m = cx.alloc_mapped(TWO_MIB)?;
    cx.write(m.va, m.size, 11)?;
    cx.expect_code("aclrtFreePhysical of a mapped handle", acl.aclrtFreePhysical(m.handle))?;
    cx.verify("read through the mapping after the free", m.va, m.size, 11)?;
    let (free1, _) = cx.mem_info()?;
    cx.ensure("free device memory after the free, before the unmap", free1 + TWO_MIB == free0, free0 - TWO_MIB, free1)?;
    cx.expect_ok("aclrtUnmapMem (the last mapping)", acl.aclrtUnmapMem(m.va))?;
    let (free2, _) = cx.mem_info()?;
    cx.ensure("free device memory after the unmap", free2 == free0, free0, free2)
}

/// [ACL-FP-003](vmmkit_sys::acl::rules::FP_003): a second free of a freed but mapped handle; the unmap still works.
pub fn free_beyond_references(cx: &mut Ctx) -> Result<(), Failure> {
    let acl = cx.acl();
    let m = cx.alloc_mapped(TWO_MIB)?;
    setup("aclrtFreePhysical", acl.aclrtFreePhysical(m.handle))?;
    cx.expect_code("second aclrtFreePhysical while only the mapping holds it", acl.aclrtFreePhysical(m.handle))?;
    cx.expect_ok("aclrtUnmapMem afterwards", acl.aclrtUnmapMem(m.va))?;
    cx.expect_ok("aclrtReleaseMemAddress afterwards", acl.aclrtReleaseMemAddress(m.va))
}

/// [ACL-FP-004](vmmkit_sys::acl::rules::FP_004): a freed handle, and a value that never was a handle.
pub fn free_stale(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let keep = cx.malloc(TWO_MIB)?;
    let h = cx.malloc(TWO_MIB)?;
    setup("aclrtFreePhysical", acl.aclrtFreePhysical(h))?;
    cx.expect_code("aclrtFreePhysical of a freed handle", acl.aclrtFreePhysical(h))?;
    let mut local = 0u64;
    let never: Handle = (&raw mut local).cast();
    cx.expect_code("aclrtFreePhysical of a host stack address", acl.aclrtFreePhysical(never))?;
    cx.expect_ok("aclrtFreePhysical of a live handle afterwards", acl.aclrtFreePhysical(keep))
}

/// [ACL-FP-005](vmmkit_sys::acl::rules::FP_005): malloc + retain need two frees: the memory comes back after
/// the second, not the first.
pub fn one_free_per_reference(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let (free0, _) = cx.mem_info()?;
    let m = cx.alloc_mapped(TWO_MIB)?;
    let mut retained: Handle = ptr::null_mut();
    setup("aclrtMemRetainAllocationHandle", acl.aclrtMemRetainAllocationHandle(m.va, &mut retained))?;
    setup("aclrtUnmapMem", acl.aclrtUnmapMem(m.va))?;
    cx.ensure_code("aclrtFreePhysical (malloc's reference)", AclError::SUCCESS, acl.aclrtFreePhysical(m.handle))?;
    let (free1, _) = cx.mem_info()?;
    cx.ensure("free device memory with the retained reference left", free1 + TWO_MIB == free0, free0 - TWO_MIB, free1)?;
    cx.ensure_code("aclrtFreePhysical (retain's reference)", AclError::SUCCESS, acl.aclrtFreePhysical(retained))?;
    let (free2, _) = cx.mem_info()?;
    cx.ensure("free device memory after both frees", free2 == free0, free0, free2)?;
    let va: Va = m.va;
    setup("aclrtReleaseMemAddress", acl.aclrtReleaseMemAddress(va))
}
