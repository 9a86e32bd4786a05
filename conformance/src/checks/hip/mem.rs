//! HIP-MEM: host registration.

use std::ffi::c_void;

use vmmkit_sys::hip::*;

use crate::hip::{Ctx, setup};
use crate::outcome::Failure;

/// [HIP-MEM-001](vmmkit_sys::hip::rules::MEM_001): a range that overlaps a registered one (the same range, or
/// part of it) and a hipHostMalloc buffer are 712; the first registration
/// still works (a copy into it lands) and unregisters.
pub fn register_overlap(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let mut buf = vec![0u8; 8192];
    let p: *mut c_void = buf.as_mut_ptr().cast();
    let half: *mut c_void = buf[4096..].as_mut_ptr().cast();
    setup("hipHostRegister", hip.hipHostRegister(p, 8192, 0))?;
    cx.expect_code("hipHostRegister(the same range)", hip.hipHostRegister(p, 8192, 0))?;
    cx.expect_code("hipHostRegister(its second half)", hip.hipHostRegister(half, 16, 0))?;
    let mut pinned = std::ptr::null_mut();
    setup("hipHostMalloc", hip.hipHostMalloc(&mut pinned, 64, 0))?;
    cx.expect_code("hipHostRegister(a hipHostMalloc buffer)", hip.hipHostRegister(pinned, 64, 0))?;
    setup("hipHostFree", hip.hipHostFree(pinned))?;
    let dev = cx.malloc(64)?;
    setup("hipMemset", hip.hipMemset(dev, 0x3c, 64))?;
    cx.expect_ok("hipMemcpy(into the registered range)", hip.hipMemcpy(half, dev, 64, hipMemcpyDeviceToHost))?;
    cx.free(dev)?;
    cx.expect_ok("hipHostUnregister", hip.hipHostUnregister(p))?;
    cx.ensure(
        "bytes copied into the registered range",
        buf[4096..4160] == [0x3c; 64],
        "0x3c",
        format!("{:?}", &buf[4096..4104]),
    )
}

/// [HIP-MEM-002](vmmkit_sys::hip::rules::MEM_002): hipHostUnregister of an interior pointer of a registered
/// range, of a hipHostMalloc buffer, of a range unregistered already is 713.
pub fn unregister_unknown(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let mut buf = vec![0u8; 4096];
    let p: *mut c_void = buf.as_mut_ptr().cast();
    let inner: *mut c_void = buf[100..].as_mut_ptr().cast();
    setup("hipHostRegister", hip.hipHostRegister(p, 4096, 0))?;
    cx.expect_code("hipHostUnregister(an interior pointer)", hip.hipHostUnregister(inner))?;
    cx.expect_ok("hipHostUnregister(the start)", hip.hipHostUnregister(p))?;
    cx.expect_code("hipHostUnregister(again)", hip.hipHostUnregister(p))?;
    let mut pinned = std::ptr::null_mut();
    setup("hipHostMalloc", hip.hipHostMalloc(&mut pinned, 64, 0))?;
    let r = hip.hipHostUnregister(pinned);
    setup("hipHostFree", hip.hipHostFree(pinned))?;
    cx.expect_code("hipHostUnregister(a hipHostMalloc buffer)", r)
}

/// [HIP-MEM-003](vmmkit_sys::hip::rules::MEM_003): hipFree, hipHostFree and hipFreeArray wait for the work of
/// the device's streams first: with the NULL stream held by a callback that
/// another thread lets go of 30 ms later, hipStreamQuery(NULL) right after
/// each free is 0 (hip-tests `Unit_hipFreeImplicitSyncDev`, `…SyncHost`).
/// A free that did not wait returns within microseconds, its query then
/// finding the callback still held.
pub fn free_synchronises(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let (mut dev, mut host, mut array) = (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
    setup("hipMalloc", hip.hipMalloc(&mut dev, 64))?;
    setup("hipHostMalloc", hip.hipHostMalloc(&mut host, 64, 0))?;
    let desc = hipChannelFormatDesc { x: 32, f: hipChannelFormatKindFloat, ..Default::default() };
    setup("hipMallocArray", hip.hipMallocArray(&mut array, &desc, 8, 4, 0))?;
    let frees: [(&str, &dyn Fn() -> hipError_t); 3] = [
        ("hipFree", &|| hip.hipFree(dev)),
        ("hipHostFree", &|| hip.hipHostFree(host)),
        ("hipFreeArray", &|| hip.hipFreeArray(array)),
    ];
    for (what, free) in frees {
        let (rc, query) = super::stream::call_while_held(cx, std::ptr::null_mut(), 30, free, std::ptr::null_mut())?;
        cx.expect_ok(what, rc)?;
        cx.expect_ok(&format!("hipStreamQuery(NULL) right after {what}"), query)?;
    }
    Ok(())
}

/// The buffer id of the allocation holding `p`.
fn buffer_id(cx: &Ctx, p: *mut std::ffi::c_void) -> Result<u32, Failure> {
    let mut id = 0u32;
    let r = cx.hip().hipPointerGetAttribute((&raw mut id).cast(), HIP_POINTER_ATTRIBUTE_BUFFER_ID, p);
    let r = r.ok_or_else(|| Failure::NotSupported("the library has no hipPointerGetAttribute".into()))?;
    setup("hipPointerGetAttribute(BUFFER_ID)", r)?;
    Ok(id)
}

/// [HIP-MEM-004](vmmkit_sys::hip::rules::MEM_004) (hip-tests `Unit_hipPointerGetAttribute_BufferID`): an
/// allocation's id is not 0 and the same at every query; memory freed and
/// allocated again (at the same address or not) gets another id, as does a
/// host buffer freed and allocated again; no id is given twice.
pub fn buffer_ids(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let mut seen = std::collections::HashSet::new();
    for round in 0..4 {
        let mut p = std::ptr::null_mut();
        setup("hipMalloc", hip.hipMalloc(&mut p, 4096))?;
        let id = buffer_id(cx, p)?;
        cx.ensure("the id of hipMalloc memory", id != 0, "not 0", id)?;
        cx.ensure("the id asked again", buffer_id(cx, p)? == id, id, "another")?;
        cx.ensure(&format!("allocation {round}'s id is new"), seen.insert(id), "an id not given before", id)?;
        setup("hipFree", hip.hipFree(p))?;
        let mut h = std::ptr::null_mut();
        setup("hipHostMalloc", hip.hipHostMalloc(&mut h, 4096, 0))?;
        let id = buffer_id(cx, h)?;
        cx.ensure(&format!("host buffer {round}'s id is new"), seen.insert(id), "an id not given before", id)?;
        setup("hipHostFree", hip.hipHostFree(h))?;
    }
    Ok(())
}

/// The code of an optional entry point, or not supported when the library lacks it.
fn entry(r: Option<hipError_t>, name: &str) -> Result<hipError_t, Failure> {
    r.ok_or_else(|| Failure::NotSupported(format!("the library has no {name}")))
}

/// [HIP-MEM-005](vmmkit_sys::hip::rules::MEM_005) (hip-tests `Unit_hipMallocMipmappedArray_Negative_NullArrayPtr`,
/// `_NullDescPtr`, `Unit_hipFreeMipmappedArray_Negative_Nullptr`,
/// `Unit_hipGetMipmappedArrayLevel_Negative`): on a device without image
/// support, NULL arguments get 1 (400 for a NULL array asked for a level),
/// a well-formed request 801.
pub fn mipmapped_arrays(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let mut images = -1;
    setup(
        "hipDeviceGetAttribute(ImageSupport)",
        hip.hipDeviceGetAttribute(&mut images, hipDeviceAttributeImageSupport, 0),
    )?;
    if images != 0 {
        return Err(Failure::NotSupported("the device supports images: the rule is for devices without".into()));
    }
    let desc = hipChannelFormatDesc { x: 32, f: hipChannelFormatKindFloat, ..Default::default() };
    let extent = hipExtent { width: 6, height: 6, depth: 0 };
    let mut array: hipMipmappedArray_t = std::ptr::null_mut();
    let mut out: hipArray_t = std::ptr::null_mut();
    let malloc = "hipMallocMipmappedArray";
    let r = entry(hip.hipMallocMipmappedArray(std::ptr::null_mut(), &desc, extent, 1, 0), malloc)?;
    cx.expect("hipMallocMipmappedArray(NULL array)", HipError::INVALID_VALUE, r)?;
    let r = entry(hip.hipMallocMipmappedArray(&mut array, std::ptr::null(), extent, 1, 0), malloc)?;
    cx.expect("hipMallocMipmappedArray(NULL desc)", HipError::INVALID_VALUE, r)?;
    let r = entry(hip.hipMallocMipmappedArray(&mut array, &desc, extent, 1, 0), malloc)?;
    cx.expect("hipMallocMipmappedArray(well formed)", HipError::NOT_SUPPORTED, r)?;
    let r = entry(hip.hipFreeMipmappedArray(std::ptr::null_mut()), "hipFreeMipmappedArray")?;
    cx.expect("hipFreeMipmappedArray(NULL)", HipError::INVALID_VALUE, r)?;
    let level = "hipGetMipmappedArrayLevel";
    let r = entry(hip.hipGetMipmappedArrayLevel(std::ptr::null_mut(), std::ptr::null(), 0), level)?;
    cx.expect("hipGetMipmappedArrayLevel(NULL out)", HipError::INVALID_VALUE, r)?;
    let r = entry(hip.hipGetMipmappedArrayLevel(&mut out, std::ptr::null(), 0), level)?;
    cx.expect("hipGetMipmappedArrayLevel(NULL array)", HipError::INVALID_HANDLE, r)
}

/// [HIP-MEM-006](vmmkit_sys::hip::rules::MEM_006) (hip-tests `Unit_hipDrvPtrGetAttributes_Functional`,
/// `Unit_hipGetProcAddress_MemoryApisSetAndGetAttributes`): RANGE_SIZE is
/// written as 32 bits, by both queries: the next 4 bytes keep their value.
pub fn range_size_width(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let p = cx.malloc(4096)?;
    let inner = p.cast::<u8>().wrapping_add(100).cast::<c_void>();
    let mut one = [0u32, 0xdead_beef];
    let r = hip.hipPointerGetAttribute(one.as_mut_ptr().cast(), HIP_POINTER_ATTRIBUTE_RANGE_SIZE, inner);
    let r = r.ok_or_else(|| Failure::NotSupported("the library has no hipPointerGetAttribute".into()))?;
    setup("hipPointerGetAttribute(RANGE_SIZE)", r)?;
    cx.ensure(
        "hipPointerGetAttribute(RANGE_SIZE): the size and the word after it",
        one == [4096, 0xdead_beef],
        "[4096, 0xdeadbeef]",
        format!("{one:x?}"),
    )?;
    let mut many = [0u32, 0xdead_beef];
    let mut attrs = [HIP_POINTER_ATTRIBUTE_RANGE_SIZE];
    let mut data = [many.as_mut_ptr().cast::<c_void>()];
    let r = hip.hipDrvPointerGetAttributes(1, attrs.as_mut_ptr(), data.as_mut_ptr(), inner);
    let r = r.ok_or_else(|| Failure::NotSupported("the library has no hipDrvPointerGetAttributes".into()))?;
    setup("hipDrvPointerGetAttributes(RANGE_SIZE)", r)?;
    cx.ensure(
        "hipDrvPointerGetAttributes(RANGE_SIZE): the size and the word after it",
        many == [4096, 0xdead_beef],
        "[4096, 0xdeadbeef]",
        format!("{many:x?}"),
    )?;
    cx.free(p)
}

/// [HIP-MEM-007](vmmkit_sys::hip::rules::MEM_007) (hip-tests `Unit_hipDrvMemcpy2DUnaligned_NegTst`): hipFree
/// frees a hipHostMalloc buffer (0), after which hipFree and hipHostFree of
/// it are refused.
pub fn free_host_buffer(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let mut h = std::ptr::null_mut();
    setup("hipHostMalloc", hip.hipHostMalloc(&mut h, 4096, 0))?;
    cx.expect_ok("hipFree(a hipHostMalloc buffer)", hip.hipFree(h))?;
    let again = HipError(hip.hipFree(h));
    cx.ensure("hipFree(the buffer again) is refused", !again.is_success(), "an error", again)?;
    let host = HipError(hip.hipHostFree(h));
    cx.ensure("hipHostFree(the freed buffer) is refused", !host.is_success(), "an error", host)
}

/// [HIP-MEM-008](vmmkit_sys::hip::rules::MEM_008) (hip-tests `Unit_hipMemGetAddressRange_Positive`): an
/// address inside a hipHostMalloc buffer gives the buffer's start and size.
pub fn address_range_of_host_buffer(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let mut h = std::ptr::null_mut();
    setup("hipHostMalloc", hip.hipHostMalloc(&mut h, 2048, 0))?;
    let (mut base, mut size) = (std::ptr::null_mut(), 0usize);
    let inner = h.cast::<u8>().wrapping_add(320).cast::<c_void>();
    cx.expect_ok(
        "hipMemGetAddressRange(inside a hipHostMalloc buffer)",
        hip.hipMemGetAddressRange(&mut base, &mut size, inner),
    )?;
    cx.ensure(
        "its start and size",
        (base, size) == (h, 2048),
        format!("({h:p}, 2048)"),
        format!("({base:p}, {size})"),
    )?;
    setup("hipHostFree", hip.hipHostFree(h))
}

/// `hipMemRangeGetAttribute(attribute)` of `p..p+count` as an `int`.
fn range_int(cx: &Ctx, attribute: hipMemRangeAttribute, p: *mut c_void, count: usize) -> Result<i32, Failure> {
    let mut v = -7i32;
    let r = cx.hip().hipMemRangeGetAttribute((&raw mut v).cast(), 4, attribute, p, count);
    setup("hipMemRangeGetAttribute", r)?;
    Ok(v)
}

/// [HIP-MEM-009](vmmkit_sys::hip::rules::MEM_009) (hip-tests `Unit_hipMemRangeGetAttribute_Positive_*_Partial_Range`,
/// `Unit_hipMemAdvise_Rounding`): advice and a prefetch given for the first
/// page of a two-page managed allocation (the advice for part of it) read
/// back for that page, and over both pages as read-mostly 0, no preferred
/// or prefetch location and no device; a query of the second page alone
/// sees none of it.
pub fn managed_advice_by_page(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    const PAGE: usize = 4096;
    let mut m = std::ptr::null_mut();
    setup("hipMallocManaged", hip.hipMallocManaged(&mut m, 2 * PAGE, hipMemAttachGlobal))?;
    let second = m.cast::<u8>().wrapping_add(PAGE).cast::<c_void>();
    let part = m.cast::<u8>().wrapping_add(PAGE / 4).cast::<c_void>();
    setup("hipMemAdvise(ReadMostly)", hip.hipMemAdvise(m, PAGE, hipMemAdviseSetReadMostly, 0))?;
    setup("hipMemAdvise(PreferredLocation)", hip.hipMemAdvise(m, PAGE, hipMemAdviseSetPreferredLocation, 0))?;
    setup("hipMemAdvise(AccessedBy, part of a page)", hip.hipMemAdvise(part, PAGE / 2, hipMemAdviseSetAccessedBy, 0))?;
    setup("hipMemPrefetchAsync", hip.hipMemPrefetchAsync(m, PAGE, 0, std::ptr::null_mut()))?;
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(std::ptr::null_mut()))?;
    let attrs = [
        ("ReadMostly", hipMemRangeAttributeReadMostly, 1, 0),
        ("PreferredLocation", hipMemRangeAttributePreferredLocation, 0, hipInvalidDeviceId),
        ("LastPrefetchLocation", hipMemRangeAttributeLastPrefetchLocation, 0, hipInvalidDeviceId),
        ("AccessedBy", hipMemRangeAttributeAccessedBy, 0, hipInvalidDeviceId),
    ];
    for (name, a, first, both) in attrs {
        let got = (range_int(cx, a, m, PAGE)?, range_int(cx, a, m, 2 * PAGE)?, range_int(cx, a, second, PAGE)?);
        let none = if a == hipMemRangeAttributeReadMostly { 0 } else { hipInvalidDeviceId };
        cx.ensure(
            &format!("{name} of the first page, of both, of the second"),
            got == (first, both, none),
            format!("({first}, {both}, {none})"),
            format!("{got:?}"),
        )?;
    }
    setup("hipFree", hip.hipFree(m))
}

/// [HIP-MEM-010](vmmkit_sys::hip::rules::MEM_010) (hip-tests `Unit_hipMemsetSync`, `Unit_hipMemset3DSync`):
/// with the NULL stream held, hipMemset and hipMemset3D of hipMalloc memory
/// at its start return with the fill queued (hipStreamQuery(NULL) is 600,
/// the bytes land after the hold); hipMemset at an offset and of a
/// hipHostMalloc buffer wait (the query is 0). So do hipMemset_spt's with
/// the calling thread's default stream held.
pub fn sync_fill_of_device_memory_is_queued(cx: &mut Ctx) -> Result<(), Failure> {
    use super::stream::{HeldCall, calls_while_held, per_thread_calls_while_held};
    cx.device(0)?;
    let hip = cx.hip();
    let dev = cx.malloc(4096)?;
    let mut host = std::ptr::null_mut();
    setup("hipHostMalloc", hip.hipHostMalloc(&mut host, 64, 0))?;
    let offset = dev.cast::<u8>().wrapping_add(64).cast::<c_void>();
    let pitched = hipPitchedPtr { ptr: dev, pitch: 64, xsize: 64, ysize: 4 };
    let extent = hipExtent { width: 64, height: 4, depth: 2 };
    let fills: [HeldCall<'_>; 4] = [
        ("hipMemset(device memory)", &|| hip.hipMemset(dev, 0x5a, 4096), true),
        ("hipMemset3D(device memory)", &|| hip.hipMemset3D(pitched, 0x5b, extent), true),
        ("hipMemset(device memory at an offset)", &|| hip.hipMemset(offset, 0x5c, 64), false),
        ("hipMemset(a hipHostMalloc buffer)", &|| hip.hipMemset(host, 0x5d, 64), false),
    ];
    calls_while_held(cx, (std::ptr::null_mut(), "NULL"), &fills)?;
    let mut back = [0u8; 64];
    setup("hipMemcpy", hip.hipMemcpy(back.as_mut_ptr().cast(), dev, 64, hipMemcpyDeviceToHost))?;
    cx.ensure("the queued fills landed", back == [0x5b; 64], "0x5b × 64", format!("{:#x}…", back[0]))?;
    let absent = HipError::NOT_SUPPORTED.0;
    let spt: [HeldCall<'_>; 2] = [
        ("hipMemset_spt(device memory)", &|| hip.hipMemset_spt(dev, 0x5e, 64).unwrap_or(absent), true),
        ("hipMemset_spt(device memory at an offset)", &|| hip.hipMemset_spt(offset, 0x5f, 64).unwrap_or(absent), false),
    ];
    if per_thread_calls_while_held(cx, "hipMemset_spt", &spt)? {
        setup("hipMemcpy", hip.hipMemcpy(back.as_mut_ptr().cast(), dev, 64, hipMemcpyDeviceToHost))?;
        cx.ensure("the queued _spt fill landed", back == [0x5e; 64], "0x5e × 64", format!("{:#x}…", back[0]))?;
    }
    setup("hipHostFree", hip.hipHostFree(host))?;
    cx.free(dev)
}

/// [HIP-MEM-011](vmmkit_sys::hip::rules::MEM_011) (hip-tests `Unit_hipMalloc_CoherentTst`): the coherency mode
/// of hipMalloc memory is coarse-grained, of Finegrained memory fine-grained.
pub fn malloc_coherency_mode(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let dev = cx.malloc(64)?;
    let mut fine = std::ptr::null_mut();
    setup("hipExtMallocWithFlags", hip.hipExtMallocWithFlags(&mut fine, 64, hipDeviceMallocFinegrained))?;
    let got = (
        range_int(cx, hipMemRangeAttributeCoherencyMode, dev, 4)?,
        range_int(cx, hipMemRangeAttributeCoherencyMode, fine, 4)?,
    );
    let want = (hipMemRangeCoherencyModeCoarseGrain, hipMemRangeCoherencyModeFineGrain);
    cx.ensure(
        "the coherency of hipMalloc and Finegrained memory",
        got == want,
        format!("{want:?}"),
        format!("{got:?}"),
    )?;
    setup("hipFree", hip.hipFree(fine))?;
    cx.free(dev)
}
