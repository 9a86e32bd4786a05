//! HIP-VMM: granularity, physical memory, reservations, maps, access,
//! retain and properties (hip.md §4.5), judged by the expectations of the
//! version profile the backend reports (6.x or 7.x).

use std::ptr;

use vmmkit_sys::hip::*;

use crate::hip::{Ctx, Va, posix_prop, prop, rw_desc, setup};
use crate::outcome::Failure;
use crate::vendors::BackendKind;

const MIN: hipMemAllocationGranularity_flags = hipMemAllocationGranularityMinimum;

fn offset(va: Va, by: usize) -> Va {
    va.cast::<u8>().wrapping_add(by).cast()
}

/// [HIP-VMM-001](vmmkit_sys::hip::rules::VMM_001): NULL out, NULL prop, a non-Pinned type, a non-Device
/// location, a device out of range, option 2.
pub fn granularity_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let count = cx.device_count()?;
    let mut g = 0usize;
    let p = posix_prop();
    cx.expect_code("granularity(NULL out)", hip.hipMemGetAllocationGranularity(ptr::null_mut(), &p, MIN))?;
    cx.expect_code("granularity(NULL prop)", hip.hipMemGetAllocationGranularity(&mut g, ptr::null(), MIN))?;
    let bad_type = hipMemAllocationProp { type_: hipMemAllocationTypeInvalid, ..p };
    cx.expect_code("granularity(type Invalid)", hip.hipMemGetAllocationGranularity(&mut g, &bad_type, MIN))?;
    let bad_loc = hipMemAllocationProp { location: hipMemLocation { type_: hipMemLocationTypeInvalid, id: 0 }, ..p };
    cx.expect_code("granularity(location Invalid)", hip.hipMemGetAllocationGranularity(&mut g, &bad_loc, MIN))?;
    let far = prop(count, hipMemHandleTypePosixFileDescriptor);
    cx.expect_code(&format!("granularity(device {count})"), hip.hipMemGetAllocationGranularity(&mut g, &far, MIN))?;
    cx.expect_code("granularity(option 2)", hip.hipMemGetAllocationGranularity(&mut g, &p, 2))
}

/// [HIP-VMM-002](vmmkit_sys::hip::rules::VMM_002): both options give a granularity; the minimum is a whole
/// number of 4 KiB pages and divides the recommended one.
pub fn granularity_value(cx: &mut Ctx) -> Result<(), Failure> {
    let min = cx.granule()?;
    let mut rec = 0usize;
    let r = cx.hip().hipMemGetAllocationGranularity(&mut rec, &posix_prop(), hipMemAllocationGranularityRecommended);
    cx.expect_ok("granularity(Recommended)", r)?;
    cx.note(format!("minimum {min}, recommended {rec}"));
    let ok = min % 4096 == 0 && rec >= min && rec % min == 0;
    cx.ensure("granularity values", ok, "4 KiB multiples, minimum divides recommended", format!("{min}, {rec}"))
}

/// [HIP-VMM-003](vmmkit_sys::hip::rules::VMM_003): NULL handle, size 0, flags 1, NULL prop, type Invalid,
/// location Invalid, a device out of range (6.x: 1, 7.x: 101).
pub fn create_args(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let hip = cx.hip();
    let count = cx.device_count()?;
    let p = posix_prop();
    let mut h = ptr::null_mut();
    cx.expect_code("hipMemCreate(NULL handle)", hip.hipMemCreate(ptr::null_mut(), g, &p, 0))?;
    cx.expect_code("hipMemCreate(size 0)", hip.hipMemCreate(&mut h, 0, &p, 0))?;
    cx.expect_code("hipMemCreate(flags 1)", hip.hipMemCreate(&mut h, g, &p, 1))?;
    cx.expect_code("hipMemCreate(NULL prop)", hip.hipMemCreate(&mut h, g, ptr::null(), 0))?;
    let bad_type = hipMemAllocationProp { type_: hipMemAllocationTypeInvalid, ..p };
    cx.expect_code("hipMemCreate(type Invalid)", hip.hipMemCreate(&mut h, g, &bad_type, 0))?;
    let bad_loc = hipMemAllocationProp { location: hipMemLocation { type_: hipMemLocationTypeInvalid, id: 0 }, ..p };
    cx.expect_code("hipMemCreate(location Invalid)", hip.hipMemCreate(&mut h, g, &bad_loc, 0))?;
    let far = prop(count, hipMemHandleTypePosixFileDescriptor);
    let want = if cx.is_v7() { HipError::INVALID_DEVICE } else { HipError::INVALID_VALUE };
    cx.expect(&format!("hipMemCreate(device {count})"), want, hip.hipMemCreate(&mut h, g, &far, 0))?;
    // 7.x also takes type Uncached and location Host (hip_vm.cpp:75-80); 6.x refuses both with 1.
    let uncached = hipMemAllocationProp { type_: hipMemAllocationTypeUncached, ..p };
    let host = hipMemAllocationProp { location: hipMemLocation { type_: hipMemLocationTypeHost, id: 0 }, ..p };
    for (what, q) in [("type Uncached", uncached), ("location Host", host)] {
        let r = hip.hipMemCreate(&mut h, g, &q, 0);
        if cx.is_v7() {
            cx.expect_ok(&format!("hipMemCreate({what}), 7.x"), r)?;
            let mut back = hipMemAllocationProp::default();
            setup(
                "hipMemGetAllocationPropertiesFromHandle",
                hip.hipMemGetAllocationPropertiesFromHandle(&mut back, h),
            )?;
            cx.ensure(
                &format!("properties of the {what} handle"),
                back.type_ == q.type_ && back.location.type_ == q.location.type_,
                format!("type {} location {}", q.type_, q.location.type_),
                format!("type {} location {}", back.type_, back.location.type_),
            )?;
            setup("hipMemRelease", hip.hipMemRelease(h))?;
        } else {
            cx.expect_code(&format!("hipMemCreate({what}), 6.x"), r)?;
        }
    }
    Ok(())
}

/// [HIP-VMM-004](vmmkit_sys::hip::rules::VMM_004): a Win32 handle type.
pub fn create_handle_type(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let mut h = ptr::null_mut();
    let p = prop(0, hipMemHandleTypeWin32);
    cx.expect_code("hipMemCreate(Win32)", cx.hip().hipMemCreate(&mut h, g, &p, 0))
}

/// [HIP-VMM-005](vmmkit_sys::hip::rules::VMM_005): more than the device holds.
pub fn create_too_big(cx: &mut Ctx) -> Result<(), Failure> {
    cx.granule()?;
    let mut h = ptr::null_mut();
    let huge = 1usize << 52; // 4 PiB: more than any device, a multiple of 2048
    cx.expect_code("hipMemCreate(4 PiB)", cx.hip().hipMemCreate(&mut h, huge, &posix_prop(), 0))
}

/// [HIP-VMM-006](vmmkit_sys::hip::rules::VMM_006): granularity − 1 fails, 2048 succeeds.
pub fn create_multiple_of_2048(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let hip = cx.hip();
    let mut h = ptr::null_mut();
    cx.expect_code(&format!("hipMemCreate({})", g - 1), hip.hipMemCreate(&mut h, g - 1, &posix_prop(), 0))?;
    cx.expect_ok("hipMemCreate(2048)", hip.hipMemCreate(&mut h, 2048, &posix_prop(), 0))?;
    cx.release(h)
}

/// [HIP-VMM-007](vmmkit_sys::hip::rules::VMM_007): a NULL handle.
pub fn release_null(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    cx.expect_code("hipMemRelease(NULL)", cx.hip().hipMemRelease(ptr::null_mut()))
}

/// [HIP-VMM-008](vmmkit_sys::hip::rules::VMM_008): release right after the map; the memory stays usable until the unmap.
pub fn release_while_mapped(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(2)?;
    cx.expect_ok("hipMemRelease while mapped", cx.hip().hipMemRelease(h))?;
    cx.write(va, size, 21)?;
    cx.verify("read after the release", va, size, 21)?;
    setup("hipMemUnmap", cx.hip().hipMemUnmap(va, size))?;
    setup("hipMemAddressFree", cx.hip().hipMemAddressFree(va, size))
}

/// [HIP-VMM-010](vmmkit_sys::hip::rules::VMM_010): NULL ptr, then flags 1.
pub fn reserve_args(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let hip = cx.hip();
    let mut va = ptr::null_mut();
    cx.expect_code("hipMemAddressReserve(NULL)", hip.hipMemAddressReserve(ptr::null_mut(), g, 0, ptr::null_mut(), 0))?;
    cx.expect_code("hipMemAddressReserve(flags 1)", hip.hipMemAddressReserve(&mut va, g, 0, ptr::null_mut(), 1))
}

/// [HIP-VMM-011](vmmkit_sys::hip::rules::VMM_011): size 0, size not a granule multiple, alignment 3 × granule (6.x: 2, 7.x: 1).
pub fn reserve_size_alignment(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let hip = cx.hip();
    let mut va = ptr::null_mut();
    cx.expect_code("hipMemAddressReserve(size 0)", hip.hipMemAddressReserve(&mut va, 0, 0, ptr::null_mut(), 0))?;
    cx.expect_code("hipMemAddressReserve(g + 1)", hip.hipMemAddressReserve(&mut va, g + 1, 0, ptr::null_mut(), 0))?;
    cx.expect_code("hipMemAddressReserve(align 3g)", hip.hipMemAddressReserve(&mut va, g, 3 * g, ptr::null_mut(), 0))
}

/// [HIP-VMM-012](vmmkit_sys::hip::rules::VMM_012): a 1 GiB alignment is accepted and not promised: the
/// pointer is a granule multiple, whatever `alignment` asked; `addr` is only a hint.
pub fn reserve_alignment_dropped(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let mut va = ptr::null_mut();
    let align = 1usize << 30;
    let r = cx.hip().hipMemAddressReserve(&mut va, 4 * g, align, 0x1234 as Va, 0);
    cx.expect_ok("hipMemAddressReserve(align 1 GiB, hint 0x1234)", r)?;
    cx.ensure("alignment", !va.is_null() && va as usize % g == 0, "a non-NULL granule multiple", format!("{va:p}"))?;
    cx.note(format!("{va:p}: {}a multiple of 1 GiB", if va as usize % align == 0 { "" } else { "not " }));
    setup("hipMemAddressFree", cx.hip().hipMemAddressFree(va, 4 * g))
}

/// [HIP-VMM-013](vmmkit_sys::hip::rules::VMM_013): NULL, size 0; an interior address with a short size frees
/// the whole reservation (mapped memory too); then its start is in no
/// reservation and fails (6.x crashes there: left out on a real 6.x library).
pub fn address_free_args(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let hip = cx.hip();
    let va = cx.reserve(2 * g)?;
    cx.expect_code("hipMemAddressFree(NULL)", hip.hipMemAddressFree(ptr::null_mut(), g))?;
    cx.expect_code("hipMemAddressFree(size 0)", hip.hipMemAddressFree(va, 0))?;
    let h = cx.create(g, &posix_prop())?;
    cx.map(va, g, h)?;
    cx.expect_ok("hipMemAddressFree(interior, size g)", hip.hipMemAddressFree(offset(va, g), g))?;
    cx.release(h)?;
    if cx.skip_vendor_crash("hipMemAddressFree(freed reservation)") {
        return Ok(());
    }
    cx.expect_code("hipMemAddressFree(freed reservation)", hip.hipMemAddressFree(va, 2 * g))
}

/// [HIP-VMM-014](vmmkit_sys::hip::rules::VMM_014): NULL ptr, NULL handle, size 0, offset ≠ 0, flags ≠ 0.
pub fn map_args(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let hip = cx.hip();
    let h = cx.create(g, &posix_prop())?;
    let va = cx.reserve(g)?;
    cx.expect_code("hipMemMap(NULL ptr)", hip.hipMemMap(ptr::null_mut(), g, 0, h, 0))?;
    cx.expect_code("hipMemMap(NULL handle)", hip.hipMemMap(va, g, 0, ptr::null_mut(), 0))?;
    cx.expect_code("hipMemMap(size 0)", hip.hipMemMap(va, 0, 0, h, 0))?;
    cx.expect_code("hipMemMap(offset g)", hip.hipMemMap(va, g, g, h, 0))?;
    cx.expect_code("hipMemMap(flags 1)", hip.hipMemMap(va, g, 0, h, 1))?;
    cx.expect_ok("hipMemMap after the rejections", hip.hipMemMap(va, g, 0, h, 0))?;
    cx.unmapped(va, h, g)
}

/// [HIP-VMM-015](vmmkit_sys::hip::rules::VMM_015): outside a reservation, over a mapping, larger than the
/// allocation (6.x answers 0 there with nothing mapped: left out on a real
/// 6.x library). With two devices: handles of both side by side in one
/// reservation, and a range unmapped and mapped again from the other device.
pub fn map_misuse(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let hip = cx.hip();
    let h = cx.create(g, &posix_prop())?;
    let va = cx.reserve(4 * g)?;
    if !cx.skip_vendor_crash("the refused maps") {
        let mut local = [0u8; 64];
        cx.expect_code("hipMemMap(host address)", hip.hipMemMap(local.as_mut_ptr().cast(), g, 0, h, 0))?;
        cx.expect_code("hipMemMap(2 granules of a 1-granule allocation)", hip.hipMemMap(va, 2 * g, 0, h, 0))?;
        cx.map(va, g, h)?;
        cx.expect_code("hipMemMap(over a mapping)", hip.hipMemMap(va, g, 0, h, 0))?;
        setup("hipMemUnmap", hip.hipMemUnmap(va, g))?;
    }
    if cx.device_count()? >= 2 {
        let h1 = cx.create(g, &prop(1, hipMemHandleTypePosixFileDescriptor))?;
        cx.map(va, g, h)?;
        cx.expect_ok("hipMemMap(device 1's handle beside device 0's)", hip.hipMemMap(offset(va, g), g, 0, h1, 0))?;
        setup("hipMemUnmap(both)", hip.hipMemUnmap(va, 2 * g))?;
        cx.expect_ok("hipMemMap(device 1's handle where device 0's was)", hip.hipMemMap(va, g, 0, h1, 0))?;
        setup("hipMemUnmap", hip.hipMemUnmap(va, g))?;
        cx.release(h1)?;
    } else {
        cx.note("one device: the maps across devices were not tried");
    }
    setup("hipMemAddressFree", hip.hipMemAddressFree(va, 4 * g))?;
    cx.release(h)
}

/// [HIP-VMM-016](vmmkit_sys::hip::rules::VMM_016): the first granule of a two-granule allocation, into part of a larger reservation.
pub fn map_partial(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let h = cx.create(2 * g, &posix_prop())?;
    let va = cx.reserve(4 * g)?;
    cx.expect_ok("hipMemMap(first granule)", cx.hip().hipMemMap(va, g, 0, h, 0))?;
    cx.access(va, g)?;
    cx.write(va, g, 5)?;
    cx.verify("partial map", va, g, 5)?;
    setup("hipMemUnmap", cx.hip().hipMemUnmap(va, g))?;
    setup("hipMemAddressFree", cx.hip().hipMemAddressFree(va, 4 * g))?;
    cx.release(h)
}

/// [HIP-VMM-017](vmmkit_sys::hip::rules::VMM_017): one handle at two addresses; they alias.
pub fn map_alias(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let h = cx.create(g, &posix_prop())?;
    let va = cx.reserve(2 * g)?;
    cx.map(va, g, h)?;
    cx.expect_ok("hipMemMap(second address)", cx.hip().hipMemMap(offset(va, g), g, 0, h, 0))?;
    cx.access(va, 2 * g)?;
    cx.write(va, g, 77)?;
    cx.verify("the alias", offset(va, g), g, 77)?;
    setup("hipMemUnmap", cx.hip().hipMemUnmap(va, 2 * g))?;
    setup("hipMemAddressFree", cx.hip().hipMemAddressFree(va, 2 * g))?;
    cx.release(h)
}

/// [HIP-VMM-018](vmmkit_sys::hip::rules::VMM_018): NULL ptr, size 0.
pub fn unmap_args(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(1)?;
    let hip = cx.hip();
    cx.expect_code("hipMemUnmap(NULL)", hip.hipMemUnmap(ptr::null_mut(), size))?;
    cx.expect_code("hipMemUnmap(size 0)", hip.hipMemUnmap(va, 0))?;
    cx.unmapped(va, h, size)
}

/// [HIP-VMM-019](vmmkit_sys::hip::rules::VMM_019): an address inside a mapping, then a size short of the
/// mapping: 1 in 7.x; 0 in 6.x, which unmaps nothing (the data stays). An
/// address in the reservation that no mapping holds: 1 (6.x crashes there:
/// left out on a real 6.x library).
pub fn unmap_misuse(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let h = cx.create(2 * g, &posix_prop())?;
    let va = cx.reserve(4 * g)?;
    let size = 2 * g;
    cx.map(va, size, h)?;
    cx.access(va, size)?;
    cx.write(va, size, 19)?;
    let hip = cx.hip();
    let partial = if cx.is_v7() { HipError::INVALID_VALUE } else { HipError::SUCCESS };
    cx.expect("hipMemUnmap(interior)", partial, hip.hipMemUnmap(offset(va, g), g))?;
    cx.expect("hipMemUnmap(half of a mapping)", partial, hip.hipMemUnmap(va, g))?;
    cx.verify("the mapping after the refused unmaps", va, size, 19)?;
    if !cx.skip_vendor_crash("hipMemUnmap(unmapped part of the reservation)") {
        cx.expect_code("hipMemUnmap(unmapped part of the reservation)", hip.hipMemUnmap(offset(va, size), g))?;
    }
    setup("hipMemUnmap", hip.hipMemUnmap(va, size))?;
    setup("hipMemAddressFree", hip.hipMemAddressFree(va, 4 * g))?;
    cx.release(h)
}

/// [HIP-VMM-021](vmmkit_sys::hip::rules::VMM_021): NULL ptr, size 0, NULL desc, count 0, a device out of
/// range, an unmapped range; flags 2: 1 in 7.x, granted in 6.x (read back as 2).
pub fn set_access_args(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(1)?;
    let hip = cx.hip();
    let count = cx.device_count()?;
    let rw = rw_desc(0);
    cx.expect_code("hipMemSetAccess(NULL ptr)", hip.hipMemSetAccess(ptr::null_mut(), size, &rw, 1))?;
    cx.expect_code("hipMemSetAccess(size 0)", hip.hipMemSetAccess(va, 0, &rw, 1))?;
    cx.expect_code("hipMemSetAccess(NULL desc)", hip.hipMemSetAccess(va, size, ptr::null(), 1))?;
    cx.expect_code("hipMemSetAccess(count 0)", hip.hipMemSetAccess(va, size, &rw, 0))?;
    let far = rw_desc(count);
    cx.expect_code(&format!("hipMemSetAccess(device {count})"), hip.hipMemSetAccess(va, size, &far, 1))?;
    cx.expect_code("hipMemSetAccess(past the mapping)", hip.hipMemSetAccess(va, 2 * size, &rw, 1))?;
    let odd = hipMemAccessDesc { flags: 2, ..rw };
    if cx.is_v7() {
        cx.expect_code("hipMemSetAccess(flags 2)", hip.hipMemSetAccess(va, size, &odd, 1))?;
    } else {
        cx.expect_ok("hipMemSetAccess(flags 2)", hip.hipMemSetAccess(va, size, &odd, 1))?;
        let mut flags = 0u64;
        cx.expect_ok("hipMemGetAccess", hip.hipMemGetAccess(&mut flags, &rw.location, va))?;
        cx.ensure("access after flags 2", flags == 2, "2 (write-only)", flags)?;
    }
    cx.unmapped(va, h, size)
}

/// [HIP-VMM-022](vmmkit_sys::hip::rules::VMM_022): NULL pointers, a device out of range, an unmapped address.
pub fn get_access_args(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(1)?;
    let hip = cx.hip();
    let count = cx.device_count()?;
    let dev0 = hipMemLocation { type_: hipMemLocationTypeDevice, id: 0 };
    let mut flags = 0u64;
    cx.expect_code("hipMemGetAccess(NULL flags)", hip.hipMemGetAccess(ptr::null_mut(), &dev0, va))?;
    cx.expect_code("hipMemGetAccess(NULL location)", hip.hipMemGetAccess(&mut flags, ptr::null(), va))?;
    cx.expect_code("hipMemGetAccess(NULL ptr)", hip.hipMemGetAccess(&mut flags, &dev0, ptr::null_mut()))?;
    let far = hipMemLocation { id: count, ..dev0 };
    cx.expect_code(&format!("hipMemGetAccess(device {count})"), hip.hipMemGetAccess(&mut flags, &far, va))?;
    cx.expect_code("hipMemGetAccess(ptr + size)", hip.hipMemGetAccess(&mut flags, &dev0, offset(va, size)))?;
    cx.expect_ok("hipMemGetAccess", hip.hipMemGetAccess(&mut flags, &dev0, va))?;
    cx.ensure("access read back", flags == 3, "3 (ReadWrite)", flags)?;
    cx.unmapped(va, h, size)
}

/// [HIP-VMM-032](vmmkit_sys::hip::rules::VMM_032): NULL prop, NULL handle; the creation properties read back.
pub fn properties(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let hip = cx.hip();
    let h = cx.create(g, &posix_prop())?;
    let mut p = hipMemAllocationProp::default();
    cx.expect_code("properties(NULL prop)", hip.hipMemGetAllocationPropertiesFromHandle(ptr::null_mut(), h))?;
    cx.expect_code("properties(NULL handle)", hip.hipMemGetAllocationPropertiesFromHandle(&mut p, ptr::null_mut()))?;
    cx.expect_ok("properties", hip.hipMemGetAllocationPropertiesFromHandle(&mut p, h))?;
    let want = posix_prop();
    let same =
        p.type_ == want.type_ && p.requestedHandleType == want.requestedHandleType && p.location == want.location;
    cx.ensure("properties read back", same, format!("{want:?}"), format!("{p:?}"))?;
    cx.release(h)
}

/// [HIP-VMM-033](vmmkit_sys::hip::rules::VMM_033): NULL out, NULL addr, hipMalloc memory (6.x crashes: left
/// out on a real 6.x library); on a mapping the same handle value comes
/// back, with a reference to release in 7.x and none in 6.x.
pub fn retain(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(1)?;
    let hip = cx.hip();
    let mut r = ptr::null_mut();
    cx.expect_code("retain(NULL out)", hip.hipMemRetainAllocationHandle(ptr::null_mut(), va))?;
    cx.expect_code("retain(NULL addr)", hip.hipMemRetainAllocationHandle(&mut r, ptr::null_mut()))?;
    if !cx.skip_vendor_crash("retain(hipMalloc memory)") {
        let m = cx.malloc(4096)?;
        cx.expect_code("retain(hipMalloc memory)", hip.hipMemRetainAllocationHandle(&mut r, m))?;
        cx.free(m)?;
    }
    cx.expect_ok("retain(mapped address)", hip.hipMemRetainAllocationHandle(&mut r, offset(va, 100)))?;
    cx.ensure("retained handle", r == h, format!("{h:p}"), format!("{r:p}"))?;
    if cx.is_v7() {
        cx.release(r)?; // the reference the retain took
    }
    cx.unmapped(va, h, size)?;
    if cx.env().backend == BackendKind::Emulator {
        // No reference is left: the handle is gone (a use after free on hardware).
        cx.expect_code("hipMemRelease(after the last release)", hip.hipMemRelease(h))?;
    }
    Ok(())
}

/// [HIP-VMM-009](vmmkit_sys::hip::rules::VMM_009): releasing a handle twice. Undefined on hardware (a use
/// after free in the runtime), so it runs on the emulator only.
pub fn release_twice(cx: &mut Ctx) -> Result<(), Failure> {
    if cx.env().backend != BackendKind::Emulator {
        return Err(Failure::NotSupported("never run against a real driver: a use after free there".into()));
    }
    let g = cx.granule()?;
    let h = cx.create(g, &prop(0, hipMemHandleTypeNone))?;
    cx.release(h)?;
    cx.expect_code("hipMemRelease(released handle)", cx.hip().hipMemRelease(h))
}

/// [HIP-VMM-023](vmmkit_sys::hip::rules::VMM_023): hipMemcpy into mapped memory with no access set succeeds on AMD.
pub fn copy_without_access(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let h = cx.create(g, &prop(0, hipMemHandleTypeNone))?;
    let va = cx.reserve(g)?;
    cx.map(va, g, h)?;
    let data = [7u8; 64];
    let r = cx.hip().hipMemcpy(va, data.as_ptr().cast(), data.len(), hipMemcpyHostToDevice);
    cx.expect_ok("hipMemcpy(host to device, no access set)", r)?;
    cx.unmapped(va, h, g)
}

/// [HIP-VMM-020](vmmkit_sys::hip::rules::VMM_020): a mapping made read-write is unmapped; the reservation maps
/// the handle again, hipMemGetAccess reads 0 (no access) until hipMemSetAccess
/// grants it again, and then the range is written and read.
pub fn remap_after_unmap(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(1)?;
    let hip = cx.hip();
    let dev0 = rw_desc(0).location;
    cx.write(va, size, 71)?;
    cx.expect_ok("hipMemUnmap", hip.hipMemUnmap(va, size))?;
    cx.expect_ok("hipMemMap(the same reservation, again)", hip.hipMemMap(va, size, 0, h, 0))?;
    let mut flags = u64::MAX;
    cx.expect_ok("hipMemGetAccess after the map again", hip.hipMemGetAccess(&mut flags, &dev0, va))?;
    cx.ensure("access after the map again", flags == 0, "0 (set again before use)", flags)?;
    cx.expect_ok("hipMemSetAccess(ReadWrite) again", hip.hipMemSetAccess(va, size, &rw_desc(0), 1))?;
    cx.write(va, size, 72)?;
    cx.verify("the range mapped again", va, size, 72)?;
    cx.unmapped(va, h, size)
}
