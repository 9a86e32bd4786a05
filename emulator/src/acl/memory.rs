//! Plain memory: host buffers, device buffers, copies, fills, queries.
#![allow(non_snake_case)]

use std::ffi::c_void;

use vmmkit_sys::acl::rules;
use vmmkit_sys::acl::*;

use super::call::{Fail, current_device, emu, ensure, run};
use super::codes::Op;
use super::vmm::{GRANULE, WINDOW};
use crate::core::{RowCopy, Side, Work};
use crate::ffi::Out;
use crate::registry::Place;

/// `aclError aclrtMallocHost(void **hostPtr, size_t size)`: [ACL-CPY-005](vmmkit_sys::acl::rules::CPY_005).
pub extern "C" fn aclrtMallocHost(hostPtr: Out<'_, *mut c_void>, size: usize) -> aclError {
    run("aclrtMallocHost", || {
        ensure!(!hostPtr.is_null(), rules::CPY_005, "hostPtr is NULL");
        ensure!(size != 0, rules::CPY_005, "size is 0");
        let p = emu()?.alloc_host(size).map_err(|e| Fail::plain(AclError::RT_MEMORY_ALLOCATION, e.to_string()))?;
        hostPtr.write(p as *mut c_void)?;
        Ok(())
    })
}

/// `aclError aclrtFreeHost(void *hostPtr)`: [ACL-CPY-005](vmmkit_sys::acl::rules::CPY_005). An address that
/// aclrtMallocHost did not return is refused, not freed.
pub extern "C" fn aclrtFreeHost(hostPtr: *mut c_void) -> aclError {
    run("aclrtFreeHost", || free_host(hostPtr))
}

/// aclrtFreeHost's body (also aclrtFreeHostWithDevSync's, after its wait).
pub(super) fn free_host(hostPtr: *mut c_void) -> Result<(), Fail> {
    ensure!(!hostPtr.is_null(), rules::CPY_005, "hostPtr is NULL");
    emu()?.free_host(hostPtr as usize).map_err(|_| {
        Fail::plain(AclError::RT_PARAM_INVALID, format!("{hostPtr:p} was not allocated by aclrtMallocHost"))
    })
}

/// The checks of aclrtMemcpy in the vendor's order; `None` when there is
/// nothing to copy (count 0, dst == src).
pub(super) fn memcpy_checks(
    dst: *mut c_void,
    destMax: usize,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKind,
) -> Result<Option<(usize, usize)>, Fail> {
    if count == 0 {
        return Ok(None); // ACL-CPY-001: nothing is checked
    }
    ensure!(!dst.is_null(), rules::CPY_002, "dst is NULL");
    ensure!(!src.is_null(), rules::CPY_002, "src is NULL");
    ensure!((0..=5).contains(&kind), rules::CPY_002, "kind {kind} is not a copy kind 0-5");
    ensure!(destMax != 0 && count <= destMax, rules::CPY_003, "count {count} exceeds destMax {destMax}");
    current_device()?;
    if std::ptr::eq(dst, src.cast_mut()) {
        return Ok(None); // ACL-CPY-003: dst == src is a successful no-op
    }
    // ACL-CPY-006: the kind is advisory. The runtime hands the driver no
    // kind (drvMemcpy decides host or device from each address), so each
    // pointer is taken for what its address is, whatever the kind says. A
    // host address the kind calls device memory is looked up first: where
    // nothing is mapped the driver faults, and the emulator refuses
    // (ACL-CPY-007).
    let e = emu()?;
    let (dst_device, src_device) = match kind {
        ACL_MEMCPY_HOST_TO_DEVICE | ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE => (true, false),
        ACL_MEMCPY_DEVICE_TO_HOST => (false, true),
        ACL_MEMCPY_DEVICE_TO_DEVICE => (true, true),
        _ => (false, false),
    };
    for (named, p, what) in [(dst_device, dst as usize, "dst"), (src_device, src as usize, "src")] {
        ensure!(
            !named || e.side(p) != Side::Host || e.is_host_mapped(p, count),
            rules::CPY_007,
            "{what} {p:#x}+{count:#x} is mapped nowhere in this process, and kind {kind} names it device memory \
             (the driver would take it for host memory and fault)"
        );
    }
    Ok(Some((dst as usize, src as usize)))
}

/// `aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)`:
/// [ACL-CPY-001](vmmkit_sys::acl::rules::CPY_001), [ACL-CPY-002](vmmkit_sys::acl::rules::CPY_002), [ACL-CPY-003](vmmkit_sys::acl::rules::CPY_003), [ACL-GEN-005](vmmkit_sys::acl::rules::GEN_005), [ACL-CPY-006](vmmkit_sys::acl::rules::CPY_006) (the
/// kind is advisory: each pointer is what its address is), [ACL-CPY-007](vmmkit_sys::acl::rules::CPY_007).
/// Synchronous.
pub extern "C" fn aclrtMemcpy(
    dst: *mut c_void,
    destMax: usize,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKind,
) -> aclError {
    run("aclrtMemcpy", || {
        let Some((d, s)) = memcpy_checks(dst, destMax, src, count, kind)? else { return Ok(()) };
        super::model::refuse_unsafe("aclrtMemcpy")?;
        // SAFETY: host parts of both ranges are the caller's buffers of `count`
        // bytes (the C contract of aclrtMemcpy); device parts, and host addresses
        // no process can map, are checked by the core.
        unsafe { emu()?.copy(d, s, count) }.map_err(|e| Fail::core(Op::Copy, e))
    })
}

/// The stream check of an async call with nothing to do: a NULL stream
/// (the default one) is fine even before any device, as before streams ran work.
pub(super) fn noop_stream(stream: aclrtStream) -> Result<(), Fail> {
    if stream.is_null() { Ok(()) } else { super::device::stream_id(stream).map(drop) }
}

/// Enqueues `work` on `stream` after checking that its ranges can be copied
/// to or from (so that a bad range fails the call, not a later synchronize).
pub(super) fn enqueue(stream: aclrtStream, ranges: &[(usize, usize)], work: Vec<Work>) -> Result<(), Fail> {
    let id = super::device::stream_id(stream)?;
    let e = emu()?;
    for &(p, n) in ranges {
        e.check_copy_range(p, n).map_err(|err| Fail::core(Op::Copy, err))?;
    }
    for w in work {
        // SAFETY: host parts are the caller's buffers, which the C contract
        // of the async calls keeps valid until the stream is synchronized
        // (acl_rt.h:2288-2311); device parts were checked above, and the core
        // refuses (at the synchronize) what was unmapped since.
        unsafe { e.enqueue(id, w) }.map_err(|err| Fail::plain(AclError::RT_PARAM_INVALID, err.to_string()))?;
    }
    Ok(())
}

/// `aclError aclrtMemcpyAsync(..., aclrtStream stream)`: the checks of
/// aclrtMemcpy in its order, then the copy is enqueued on the stream
/// ([ACL-STM-004](vmmkit_sys::acl::rules::STM_004)): it has run only after a synchronize (or an event wait).
/// Host buffers must stay valid until then.
pub extern "C" fn aclrtMemcpyAsync(
    dst: *mut c_void,
    destMax: usize,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKind,
    stream: aclrtStream,
) -> aclError {
    run("aclrtMemcpyAsync", || {
        let Some((d, s)) = memcpy_checks(dst, destMax, src, count, kind)? else {
            return noop_stream(stream);
        };
        enqueue(stream, &[(d, count), (s, count)], vec![Work::Copy { dst: d, src: s, len: count }])
    })
}

/// The checks of aclrtMemset in its order; `None` when count is 0.
fn memset_checks(devPtr: *mut c_void, maxCount: usize, count: usize) -> Result<Option<usize>, Fail> {
    if count == 0 {
        return Ok(None);
    }
    ensure!(!devPtr.is_null(), rules::CPY_004, "devPtr is NULL");
    ensure!(count <= maxCount, rules::CPY_004 => AclError::RT_PARAM_INVALID, "count {count} exceeds maxCount {maxCount}");
    if emu()?.side(devPtr as usize) != Side::Host {
        current_device()?;
    }
    Ok(Some(devPtr as usize))
}

/// `aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)`:
/// [ACL-CPY-004](vmmkit_sys::acl::rules::CPY_004). Works on host pointers too (sample 12 zeroes a sockaddr with it),
/// but not on an address no process can map ([ACL-CPY-007](vmmkit_sys::acl::rules::CPY_007)).
pub extern "C" fn aclrtMemset(devPtr: *mut c_void, maxCount: usize, value: i32, count: usize) -> aclError {
    run("aclrtMemset", || {
        let Some(p) = memset_checks(devPtr, maxCount, count)? else { return Ok(()) };
        super::model::refuse_unsafe("aclrtMemset")?;
        // SAFETY: a host range is the caller's buffer of `count` bytes; device parts are checked by the core.
        unsafe { emu()?.fill(p, value as u8, count) }.map_err(|e| Fail::core(Op::Copy, e))
    })
}

/// `aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream)`:
/// the checks of aclrtMemset, then the fill is enqueued on the stream.
pub extern "C" fn aclrtMemsetAsync(
    devPtr: *mut c_void,
    maxCount: usize,
    value: i32,
    count: usize,
    stream: aclrtStream,
) -> aclError {
    run("aclrtMemsetAsync", || {
        let Some(p) = memset_checks(devPtr, maxCount, count)? else {
            return noop_stream(stream);
        };
        let fill = Work::Fill { dst: p, pattern: u64::from(value as u8), width: 1, count };
        enqueue(stream, &[(p, count)], vec![fill])
    })
}

/// The arguments of aclrtMemcpy2d and aclrtMemcpy2dAsync.
struct Matrix {
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: aclrtMemcpyKind,
}

/// `(start, bytes)` of `height` rows of `pitch` ending with `width`, if it fits the address space.
fn span(base: usize, pitch: usize, width: usize, height: usize) -> Option<(usize, usize)> {
    let len = pitch.checked_mul(height - 1)?.checked_add(width)?;
    base.checked_add(len).map(|_| (base, len))
}

/// The checks of aclrtMemcpy2d (CheckMemcpy2dParam, memory.cpp:211-262 of
/// hicann/runtime@681ef76): nothing for an empty matrix; NULL pointers, a
/// width over either pitch, and a kind other than host to device, device to
/// host, device to device or default are 100000. Then both spans
/// must be memory a copy can reach. The copies (one when the rows are
/// contiguous on both sides), or `None` when there is nothing to copy.
fn memcpy2d_rows(m: &Matrix) -> Result<Option<Vec<Work>>, Fail> {
    let &Matrix { dst, dpitch, src, spitch, width, height, kind } = m;
    if width == 0 || height == 0 {
        return Ok(None);
    }
    let bad = |what: String| Fail::plain(AclError::INVALID_PARAM, what);
    if dst.is_null() || src.is_null() {
        return Err(bad("dst or src is NULL".into()));
    }
    if width > spitch || width > dpitch {
        return Err(bad(format!("width {width} exceeds spitch {spitch} or dpitch {dpitch}")));
    }
    let kinds = [ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_DEVICE_TO_DEVICE, ACL_MEMCPY_DEFAULT];
    if !kinds.contains(&kind) {
        return Err(bad(format!("kind {kind} is not HOST_TO_DEVICE, DEVICE_TO_HOST, DEVICE_TO_DEVICE or DEFAULT")));
    }
    current_device()?;
    let e = emu()?;
    let (d, s) = (dst as usize, src as usize);
    for (base, pitch) in [(d, dpitch), (s, spitch)] {
        let (p, n) = span(base, pitch, width, height)
            .ok_or_else(|| bad(format!("{height} rows of pitch {pitch} at {base:#x} overflow the address space")))?;
        e.check_copy_range(p, n).map_err(|err| Fail::core(Op::Copy, err))?;
    }
    if dpitch == width && spitch == width {
        return Ok(Some(vec![Work::Copy { dst: d, src: s, len: width * height }]));
    }
    // One command for the rows, as the runtime queues one 2-D copy task.
    Ok(Some(vec![Work::CopyRows(RowCopy { dst: d, src: s, len: width, dst_pitch: dpitch, src_pitch: spitch, rows: height })]))
}

/// `aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
/// size_t height, aclrtMemcpyKind kind)`: `height` rows of `width` bytes. Synchronous.
pub extern "C" fn aclrtMemcpy2d(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: aclrtMemcpyKind,
) -> aclError {
    run("aclrtMemcpy2d", || {
        let m = Matrix { dst, dpitch, src, spitch, width, height, kind };
        let Some(rows) = memcpy2d_rows(&m)? else { return Ok(()) };
        super::model::refuse_unsafe("aclrtMemcpy2d")?;
        let e = emu()?;
        for w in rows {
            let done = match w {
                // SAFETY: the caller's matrices hold `height` rows of their pitch (the C contract).
                Work::Copy { dst, src, len } => unsafe { e.copy(dst, src, len) },
                // SAFETY: as above.
                Work::CopyRows(c) => unsafe { e.copy_rows(c) },
                _ => Ok(()),
            };
            done.map_err(|err| Fail::core(Op::Copy, err))?;
        }
        Ok(())
    })
}

/// `aclError aclrtMemcpy2dAsync(..., aclrtStream stream)`: as aclrtMemcpy2d, enqueued on the stream.
pub extern "C" fn aclrtMemcpy2dAsync(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: aclrtMemcpyKind,
    stream: aclrtStream,
) -> aclError {
    run("aclrtMemcpy2dAsync", || {
        let m = Matrix { dst, dpitch, src, spitch, width, height, kind };
        let Some(rows) = memcpy2d_rows(&m)? else {
            return noop_stream(stream);
        };
        enqueue(stream, &[], rows)
    })
}

/// `aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)`: device memory
/// on the current device, rounded up to 2 MiB (1 GiB for the HUGE1G policies).
pub extern "C" fn aclrtMalloc(devPtr: Out<'_, *mut c_void>, size: usize, policy: aclrtMemMallocPolicy) -> aclError {
    run("aclrtMalloc", || malloc(devPtr, size, policy))
}

/// aclrtMalloc's body (also aclrtMallocAlign32's and aclrtMallocCached's).
pub(super) fn malloc(devPtr: Out<'_, *mut c_void>, size: usize, policy: aclrtMemMallocPolicy) -> Result<(), Fail> {
    if devPtr.is_null() || size == 0 {
        return Err(Fail::plain(AclError::INVALID_PARAM, "devPtr is NULL or size is 0".into()));
    }
    device_malloc(devPtr, size, policy, current_device()?)
}

/// `size` bytes of device memory on device `d` under `policy`, into `*devPtr`
/// (checked non-null): aclrtMalloc's allocation, shared by its variants.
pub(super) fn device_malloc(
    devPtr: Out<'_, *mut c_void>,
    size: usize,
    policy: aclrtMemMallocPolicy,
    d: u32,
) -> Result<(), Fail> {
    let huge1g = matches!(policy & 0xff, ACL_MEM_MALLOC_HUGE1G_ONLY | ACL_MEM_MALLOC_HUGE1G_ONLY_P2P);
    let granule = if huge1g { 1 << 30 } else { GRANULE };
    let rounded = (size as u64)
        .checked_next_multiple_of(granule)
        .ok_or_else(|| Fail::plain(AclError::RT_MEMORY_ALLOCATION, format!("{size} bytes cannot be allocated")))?;
    let props = [ACL_HBM_MEM_HUGE as u64, granule, ACL_MEM_LOCATION_TYPE_DEVICE as u64, u64::from(d)];
    let va = emu()?
        .alloc_plain(Place::Device(d), rounded, granule, props, &WINDOW)
        .map_err(|e| Fail::core(Op::Malloc, e))?;
    devPtr.write(va as *mut c_void)?;
    Ok(())
}

/// `aclError aclrtFree(void *devPtr)`: [ACL-REL-003](vmmkit_sys::acl::rules::REL_003) (a reserved address is refused).
pub extern "C" fn aclrtFree(devPtr: *mut c_void) -> aclError {
    run("aclrtFree", || free(devPtr))
}

/// aclrtFree's body (also aclrtFreeWithDevSync's, after its wait): managed
/// memory or a plain allocation.
pub(super) fn free(devPtr: *mut c_void) -> Result<(), Fail> {
    if devPtr.is_null() {
        return Err(Fail::plain(AclError::INVALID_PARAM, "devPtr is NULL".into()));
    }
    let e = emu()?;
    if super::mem_alloc::free_managed(e, devPtr as usize)? {
        return Ok(());
    }
    super::ipc::freeing(e, devPtr as usize);
    e.free_plain(devPtr as usize).map_err(|e| Fail::core(Op::Free, e))
}

/// `aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total)`: the current device's capacity.
pub extern "C" fn aclrtGetMemInfo(attr: aclrtMemAttr, free: Out<'_, usize>, total: Out<'_, usize>) -> aclError {
    run("aclrtGetMemInfo", || {
        if free.is_null() || total.is_null() || !(0..=17).contains(&attr) {
            return Err(Fail::plain(AclError::INVALID_PARAM, format!("free/total NULL or attr {attr} unknown")));
        }
        let d = current_device()?;
        let (f, t) = emu()?.mem_info(d);
        free.write(f as usize)?;
        total.write(t as usize)?;
        Ok(())
    })
}

/// `aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes)`:
/// [ACL-QRY-003](vmmkit_sys::acl::rules::QRY_003), [ACL-QRY-002](vmmkit_sys::acl::rules::QRY_002).
pub extern "C" fn aclrtPointerGetAttributes(
    ptr: *const c_void,
    attributes: Out<'_, aclrtPtrAttributes>,
) -> aclError {
    run("aclrtPointerGetAttributes", || {
        if ptr.is_null() || attributes.is_null() {
            return Err(Fail::plain(AclError::INVALID_PARAM, "ptr or attributes is NULL".into()));
        }
        let e = emu()?;
        super::vmm::unmapped_large(e.reservation(ptr as usize).as_ref(), &rules::QRY_003)?;
        let host = |type_| aclrtPtrAttributes {
            location: aclrtMemLocation { id: 0, type_ },
            pageSize: 4096,
            rsv: [0; 4],
        };
        let attr = match e.mapping(ptr as usize).and_then(|(_, m)| e.describe(m.handle).ok()) {
            Some(info) => {
                let (type_, id) = super::vmm::location_of(info.owner);
                aclrtPtrAttributes {
                    location: aclrtMemLocation { id, type_ },
                    pageSize: info.granule as u32,
                    rsv: [0; 4],
                }
            }
            // Managed memory (aclrtMemAllocManaged) is MANAGED.
            None if super::mem_alloc::is_managed(e, ptr as usize) => host(ACL_MEM_LOCATION_TYPE_MANAGED),
            // ACL-QRY-002: pinned host memory is HOST; memory the driver never
            // saw is USER_MALLOC, unregistered (npu_driver_mem.cc:2073-2074).
            None if e.host_at(ptr as usize).is_some() => host(ACL_MEM_LOCATION_TYPE_HOST),
            // Registered host memory (aclrtHostRegister) is pinned: HOST.
            None if super::mem_alloc::is_registered(e, ptr as usize, false) => host(ACL_MEM_LOCATION_TYPE_HOST),
            None => host(ACL_MEM_LOCATION_TYPE_UNREGISTERED),
        };
        attributes.write(attr)?;
        Ok(())
    })
}
