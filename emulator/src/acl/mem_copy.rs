//! Memory: 32-bit fills, batch copies, copies with a condition,
//! an offset or a descriptor, and the cache-maintenance operations (which
//! host memory, being coherent, needs none of). Facts from
//! hicann/runtime@681ef76 `src/acl/aclrt_impl/memory.cpp` and
//! `src/runtime/api/api_c_standard_soc.cc`, with lines in docs/emulator.md
//! "ACL memory surface".
#![allow(non_snake_case)]

use std::ffi::c_void;

use vmmkit_sys::acl::rules;
use vmmkit_sys::acl::*;

use super::call::{Fail, current_device, emu, ensure, non_null, run};
use super::codes::Op;
use super::mem_alloc::{bad, positive};
use super::memory::{enqueue, memcpy_checks, noop_stream};
use crate::core::{Side, Work};
use crate::ffi::{In, Out};

/// The checks of aclrtMemsetD32 and its async form ([ACL-FILL-001](vmmkit_sys::acl::rules::FILL_001), memory.cpp:772-824):
/// N 0 is a no-op; NULL, an address not 4-aligned, N * 4 over memSize, and
/// memory that is neither device memory nor pinned host memory (aclrtMallocHost's,
/// or registered: HOST to aclrtPointerGetAttributes) are 100000.
fn d32_checks(ptr: *mut c_void, memSize: usize, N: usize) -> Result<Option<usize>, Fail> {
    if N == 0 {
        return Ok(None);
    }
    non_null(ptr, "ptr")?;
    let p = ptr as usize;
    ensure!(p % 4 == 0, rules::FILL_001, "ptr {ptr:p} is not 4-byte aligned");
    let bytes = N.checked_mul(4).ok_or_else(|| bad(AclError::INVALID_PARAM, format!("N {N} * 4 overflows")))?;
    ensure!(bytes <= memSize, rules::FILL_001, "N * 4 = {bytes} exceeds memSize {memSize}");
    let e = emu()?;
    let acl_memory = match e.side(p) {
        Side::Device => true,
        Side::Host => e.host_at(p).is_some() || super::mem_alloc::is_registered(e, p, false),
        _ => false,
    };
    ensure!(acl_memory, rules::FILL_001, "{ptr:p}: only aclrtMalloc or aclrtMallocHost memory");
    current_device()?;
    e.check_copy_range(p, bytes).map_err(|err| Fail::core(Op::Copy, err))?;
    Ok(Some(p))
}

/// `aclError aclrtMemsetD32(void *ptr, size_t memSize, uint32_t value, size_t N)`:
/// N 32-bit words of `value`.
pub extern "C" fn aclrtMemsetD32(ptr: *mut c_void, memSize: usize, value: u32, N: usize) -> aclError {
    run("aclrtMemsetD32", || {
        let Some(p) = d32_checks(ptr, memSize, N)? else { return Ok(()) };
        // SAFETY: device memory or the caller's aclrtMallocHost buffer, checked to hold N words.
        unsafe { emu()?.fill_pattern(p, u64::from(value), 4, N) }.map_err(|e| Fail::core(Op::Copy, e))
    })
}

/// `aclError aclrtMemsetD32Async(void *ptr, size_t memSize, uint32_t value, size_t N, aclrtStream stream)`:
/// the checks of aclrtMemsetD32, then the fill is enqueued on the stream.
pub extern "C" fn aclrtMemsetD32Async(
    ptr: *mut c_void,
    memSize: usize,
    value: u32,
    N: usize,
    stream: aclrtStream,
) -> aclError {
    run("aclrtMemsetD32Async", || {
        let Some(p) = d32_checks(ptr, memSize, N)? else { return noop_stream(stream) };
        enqueue(stream, &[], vec![Work::Fill { dst: p, pattern: u64::from(value), width: 4, count: N }])
    })
}

/// Whether the host side of a copy at `p` is page-locked: an aclrtMallocHost
/// buffer or a registered range (device memory needs nothing).
fn page_locked(p: usize) -> Result<bool, Fail> {
    let e = emu()?;
    if e.side(p) != Side::Host || e.host_at(p).is_some() {
        return Ok(true);
    }
    Ok(super::mem_alloc::is_registered(e, p, false))
}

/// `aclError aclrtMemcpyAsyncWithCondition(void *dst, size_t destMax, const void *src, size_t count,
/// aclrtMemcpyKind kind, aclrtStream stream)`: aclrtMemcpyAsync with the
/// runtime's page-locked check (memory.cpp:706-736, checkBitmap bit 1): a
/// host side that is neither aclrtMallocHost memory nor registered is 107000.
pub extern "C" fn aclrtMemcpyAsyncWithCondition(
    dst: *mut c_void,
    destMax: usize,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKind,
    stream: aclrtStream,
) -> aclError {
    run("aclrtMemcpyAsyncWithCondition", || {
        let Some((d, s)) = memcpy_checks(dst, destMax, src, count, kind)? else { return noop_stream(stream) };
        for (p, what) in [(d, "dst"), (s, "src")] {
            if !page_locked(p)? {
                return Err(bad(AclError::RT_PARAM_INVALID, format!("{what} {p:#x} is pageable host memory")));
            }
        }
        enqueue(stream, &[(d, count), (s, count)], vec![Work::Copy { dst: d, src: s, len: count }])
    })
}

/// `aclError aclrtMemcpyAsyncWithOffset(void **dst, size_t destMax, size_t dstDataOffset,
/// const void **src, size_t count, size_t srcDataOffset, aclrtMemcpyKind kind, aclrtStream stream)`:
/// count 0 is a no-op; the kind must be ACL_MEMCPY_INNER_DEVICE_TO_DEVICE
/// (107000, api_c_standard_soc.cc:957-970); `count` bytes go from
/// `src + srcDataOffset` to `dst + dstDataOffset`, inside `destMax` bytes
/// of the destination.
pub extern "C" fn aclrtMemcpyAsyncWithOffset(
    dst: *mut *mut c_void,
    destMax: usize,
    dstDataOffset: usize,
    src: *mut *const c_void,
    count: usize,
    srcDataOffset: usize,
    kind: aclrtMemcpyKind,
    stream: aclrtStream,
) -> aclError {
    run("aclrtMemcpyAsyncWithOffset", || {
        if count == 0 {
            return Ok(());
        }
        if kind != ACL_MEMCPY_INNER_DEVICE_TO_DEVICE {
            return Err(bad(AclError::RT_PARAM_INVALID, format!("kind {kind} must be ACL_MEMCPY_INNER_DEVICE_TO_DEVICE (6)")));
        }
        if dst.is_null() || src.is_null() {
            return Err(bad(AclError::RT_PARAM_INVALID, "dst or src is NULL"));
        }
        if dstDataOffset.checked_add(count).is_none_or(|end| end > destMax) {
            return Err(bad(AclError::RT_PARAM_INVALID, format!("dstDataOffset {dstDataOffset} + count {count} exceeds destMax {destMax}")));
        }
        let overflow = || bad(AclError::RT_PARAM_INVALID, "an offset overflows the address space");
        let d = (dst as usize).checked_add(dstDataOffset).ok_or_else(overflow)?;
        let s = (src as usize).checked_add(srcDataOffset).ok_or_else(overflow)?;
        let e = emu()?;
        for (p, what) in [(d, "dst"), (s, "src")] {
            if !e.is_device_range(p, count) {
                return Err(bad(AclError::RT_PARAM_INVALID, format!("{what} {p:#x}+{count:#x} is not device memory")));
            }
        }
        enqueue(stream, &[], vec![Work::Copy { dst: d, src: s, len: count }])
    })
}

/// The emulator's memcpy descriptor: what aclrtSetMemcpyDesc writes into
/// the caller's buffer of aclrtGetMemcpyDescSize bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct CopyDesc {
    magic: u64,
    src: usize,
    dst: usize,
    count: usize,
}

/// Marks a [`CopyDesc`] that aclrtSetMemcpyDesc wrote ("vmmkcpyd").
const COPY_DESC_MAGIC: u64 = u64::from_le_bytes(*b"vmmkcpyd");

/// A kind below RT_MEMCPY_KIND_MAX (0-7), else 100000 (memory.cpp:1375-1385).
fn desc_kind(kind: aclrtMemcpyKind) -> Result<(), Fail> {
    if (0..=ACL_MEMCPY_INTER_DEVICE_TO_DEVICE).contains(&kind) {
        Ok(())
    } else {
        Err(bad(AclError::INVALID_PARAM, format!("kind {kind} is not 0-7")))
    }
}

/// `aclError aclrtGetMemcpyDescSize(aclrtMemcpyKind kind, size_t *descSize)`.
pub extern "C" fn aclrtGetMemcpyDescSize(kind: aclrtMemcpyKind, descSize: Out<'_, usize>) -> aclError {
    run("aclrtGetMemcpyDescSize", || {
        non_null(descSize, "descSize")?;
        desc_kind(kind)?;
        descSize.write(std::mem::size_of::<CopyDesc>())?;
        Ok(())
    })
}

/// `aclError aclrtSetMemcpyDesc(void *desc, aclrtMemcpyKind kind, void *srcAddr, void *dstAddr,
/// size_t count, void *config)`: desc, kind, srcAddr, dstAddr, count 0 and
/// a non-NULL config are 100000, in that order (memory.cpp:1387-1405).
pub extern "C" fn aclrtSetMemcpyDesc(
    desc: Out<'_, c_void>,
    kind: aclrtMemcpyKind,
    srcAddr: *mut c_void,
    dstAddr: *mut c_void,
    count: usize,
    config: *mut c_void,
) -> aclError {
    run("aclrtSetMemcpyDesc", || {
        non_null(desc, "desc")?;
        desc_kind(kind)?;
        non_null(srcAddr, "srcAddr")?;
        non_null(dstAddr, "dstAddr")?;
        positive(count as u64, "count")?;
        if !config.is_null() {
            return Err(bad(AclError::INVALID_PARAM, "config is reserved and must be NULL"));
        }
        let d = CopyDesc { magic: COPY_DESC_MAGIC, src: srcAddr as usize, dst: dstAddr as usize, count };
        // `desc` holds aclrtGetMemcpyDescSize bytes (the contract).
        desc.cast::<CopyDesc>().write(d)?;
        Ok(())
    })
}

/// `aclError aclrtMemcpyAsyncWithDesc(void *desc, aclrtMemcpyKind kind, aclrtStream stream)`:
/// desc NULL, a bad kind and a NULL stream are 100000 (memory.cpp:1407-1420);
/// a buffer aclrtSetMemcpyDesc did not fill is 107000.
pub extern "C" fn aclrtMemcpyAsyncWithDesc(desc: In<'_, c_void>, kind: aclrtMemcpyKind, stream: aclrtStream) -> aclError {
    run("aclrtMemcpyAsyncWithDesc", || {
        non_null(desc, "desc")?;
        desc_kind(kind)?;
        non_null(stream, "stream")?;
        // `desc` holds aclrtGetMemcpyDescSize bytes (the contract).
        let d = desc.cast::<CopyDesc>().read()?;
        if d.magic != COPY_DESC_MAGIC {
            return Err(bad(AclError::RT_PARAM_INVALID, format!("{desc:p} was not filled by aclrtSetMemcpyDesc")));
        }
        enqueue(stream, &[(d.dst, d.count), (d.src, d.count)], vec![Work::Copy { dst: d.dst, src: d.src, len: d.count }])
    })
}

/// The arguments of the four batch copies.
struct Batch<'a> {
    dsts: In<'a, *mut c_void>,
    destMaxs: In<'a, usize>,
    srcs: In<'a, *mut c_void>,
    sizes: In<'a, usize>,
    numBatches: usize,
    attrs: In<'a, aclrtMemcpyBatchAttr>,
    attrsIndexes: In<'a, usize>,
    numAttrs: usize,
}

/// What a batch copies: `(dst, src, len)` per entry. The checks of
/// MemcpyBatchImpl and ValidateMemcpyBatchParams (memory.cpp:1690-1773):
/// sizes NULL and numBatches 0 are 100000; a batch of only zero sizes is a
/// no-op; then NULL arrays, a size over its destMax and a nonzero
/// `attrs[i].rsv` are 100000. The attribute indexes must start at 0 and rise
/// below numBatches (the runtime's check, 107000); each range must be memory a
/// copy reaches, or the call fails with 107000 and `fail` is that index.
fn batch_copies(b: &Batch<'_>, fail: &mut usize) -> Result<Vec<(usize, usize, usize)>, Fail> {
    non_null(b.sizes, "sizes")?;
    positive(b.numBatches as u64, "numBatches")?;
    // The caller passes numBatches sizes.
    let sizes = b.sizes.to_vec(b.numBatches)?;
    if sizes.iter().all(|&n| n == 0) {
        return Ok(Vec::new());
    }
    non_null(b.dsts, "dsts")?;
    non_null(b.destMaxs, "destMaxs")?;
    non_null(b.srcs, "srcs")?;
    non_null(b.attrs, "attrs")?;
    non_null(b.attrsIndexes, "attrsIndexes")?;
    let mut out = Vec::with_capacity(b.numBatches);
    for (i, &n) in sizes.iter().enumerate() {
        // The caller passes numBatches of each array.
        let (d, max, s) = (b.dsts.read_at(i)?, b.destMaxs.read_at(i)?, b.srcs.read_at(i)?);
        if max < n {
            return Err(bad(AclError::INVALID_PARAM, format!("sizes[{i}] {n} exceeds destMaxs[{i}] {max}")));
        }
        out.push((d as usize, s as usize, n));
    }
    for j in 0..b.numAttrs {
        // The caller passes numAttrs attributes.
        let a = b.attrs.read_at(j)?;
        if a.rsv.iter().any(|&r| r != 0) {
            return Err(bad(AclError::INVALID_PARAM, format!("attrs[{j}].rsv must be 0")));
        }
    }
    let idx = b.attrsIndexes.to_vec(b.numAttrs)?;
    if b.numAttrs == 0 || idx[0] != 0 || idx.windows(2).any(|w| w[0] >= w[1]) || idx[b.numAttrs - 1] >= b.numBatches {
        return Err(bad(AclError::RT_PARAM_INVALID, format!("attrsIndexes {idx:?} must start at 0 and rise below numBatches {}", b.numBatches)));
    }
    current_device()?;
    let e = emu()?;
    for (i, &(d, s, n)) in out.iter().enumerate() {
        if n == 0 {
            continue;
        }
        for (p, what) in [(d, "dst"), (s, "src")] {
            let host_ok = e.side(p) != Side::Host || e.is_host_mapped(p, n);
            if p == 0 || !host_ok || e.check_copy_range(p, n).is_err() {
                *fail = i;
                return Err(bad(AclError::RT_PARAM_INVALID, format!("entry {i}: {what} {p:#x}+{n:#x} cannot be copied")));
            }
        }
    }
    Ok(out)
}

/// Runs a batch: synchronously (`stream` None) or enqueued on a stream; the
/// index of a failed entry, or SIZE_MAX, into `failIndex` when there is one.
fn batch(b: &Batch<'_>, failIndex: Out<'_, usize>, stream: Option<aclrtStream>) -> Result<(), Fail> {
    let mut fail = usize::MAX;
    let result = batch_copies(b, &mut fail).and_then(|copies| match stream {
        None => {
            let e = emu()?;
            for (i, &(d, s, n)) in copies.iter().enumerate().filter(|(_, c)| c.2 != 0) {
                // SAFETY: host parts are the caller's buffers of `n` bytes (the C contract), checked mapped.
                if let Err(err) = unsafe { e.copy(d, s, n) } {
                    fail = i;
                    return Err(Fail::core(Op::Copy, err));
                }
            }
            Ok(())
        }
        Some(stream) => {
            let work = copies.iter().filter(|c| c.2 != 0).map(|&(dst, src, len)| Work::Copy { dst, src, len }).collect();
            if copies.is_empty() { noop_stream(stream) } else { enqueue(stream, &[], work) }
        }
    });
    failIndex.write_if_given(fail);
    result
}

/// `aclError aclrtMemcpyBatch(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches,
/// aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs, size_t *failIndex)`:
/// failIndex NULL is 100000 (memory.cpp:1814-1824), checked first.
pub extern "C" fn aclrtMemcpyBatch(
    dsts: In<'_, *mut c_void>,
    destMaxs: In<'_, usize>,
    srcs: In<'_, *mut c_void>,
    sizes: In<'_, usize>,
    numBatches: usize,
    attrs: In<'_, aclrtMemcpyBatchAttr>,
    attrsIndexes: In<'_, usize>,
    numAttrs: usize,
    failIndex: Out<'_, usize>,
) -> aclError {
    run("aclrtMemcpyBatch", || {
        non_null(failIndex, "failIndex")?;
        batch(&Batch { dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs }, failIndex, None)
    })
}

/// `aclError aclrtMemcpyBatchV2(...)`: aclrtMemcpyBatch without failIndex.
pub extern "C" fn aclrtMemcpyBatchV2(
    dsts: In<'_, *mut c_void>,
    destMaxs: In<'_, usize>,
    srcs: In<'_, *mut c_void>,
    sizes: In<'_, usize>,
    numBatches: usize,
    attrs: In<'_, aclrtMemcpyBatchAttr>,
    attrsIndexes: In<'_, usize>,
    numAttrs: usize,
) -> aclError {
    run("aclrtMemcpyBatchV2", || {
        batch(&Batch { dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs }, Out::NULL, None)
    })
}

/// `aclError aclrtMemcpyBatchAsync(..., size_t *failIndex, aclrtStream stream)`: the copies are
/// enqueued on the stream, in order.
pub extern "C" fn aclrtMemcpyBatchAsync(
    dsts: In<'_, *mut c_void>,
    destMaxs: In<'_, usize>,
    srcs: In<'_, *mut c_void>,
    sizes: In<'_, usize>,
    numBatches: usize,
    attrs: In<'_, aclrtMemcpyBatchAttr>,
    attrsIndexes: In<'_, usize>,
    numAttrs: usize,
    failIndex: Out<'_, usize>,
    stream: aclrtStream,
) -> aclError {
    run("aclrtMemcpyBatchAsync", || {
        non_null(failIndex, "failIndex")?;
        batch(&Batch { dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs }, failIndex, Some(stream))
    })
}

/// `aclError aclrtMemcpyBatchAsyncV2(..., aclrtStream stream)`: aclrtMemcpyBatchAsync without failIndex.
pub extern "C" fn aclrtMemcpyBatchAsyncV2(
    dsts: In<'_, *mut c_void>,
    destMaxs: In<'_, usize>,
    srcs: In<'_, *mut c_void>,
    sizes: In<'_, usize>,
    numBatches: usize,
    attrs: In<'_, aclrtMemcpyBatchAttr>,
    attrsIndexes: In<'_, usize>,
    numAttrs: usize,
    stream: aclrtStream,
) -> aclError {
    run("aclrtMemcpyBatchAsyncV2", || {
        let b = Batch { dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs };
        batch(&b, Out::NULL, Some(stream))
    })
}

/// A cache operation kind (aclrtCmoType 0-3), else 107000.
fn cmo_type(t: aclrtCmoType) -> Result<(), Fail> {
    if (ACL_RT_CMO_TYPE_PREFETCH..=ACL_RT_CMO_TYPE_FLUSH).contains(&t) {
        Ok(())
    } else {
        Err(bad(AclError::RT_PARAM_INVALID, format!("cmoType {t} is not 0-3")))
    }
}

/// A cache operation on `src..src+size` ordered on `stream`: the range must
/// be memory a copy reaches; host memory is coherent, so nothing else is done.
fn cmo(src: *mut c_void, size: usize, t: aclrtCmoType, stream: aclrtStream) -> Result<(), Fail> {
    cmo_type(t)?;
    current_device()?;
    emu()?.check_copy_range(src as usize, size).map_err(|e| Fail::core(Op::Copy, e))?;
    noop_stream(stream)
}

/// `aclError aclrtCmoAsync(void *src, size_t size, aclrtCmoType cmoType, aclrtStream stream)`:
/// NULL and size 0 are 100000 (memory.cpp:1363-1373).
pub extern "C" fn aclrtCmoAsync(src: *mut c_void, size: usize, cmoType: aclrtCmoType, stream: aclrtStream) -> aclError {
    run("aclrtCmoAsync", || {
        non_null(src, "src")?;
        positive(size as u64, "size")?;
        cmo(src, size, cmoType, stream)
    })
}

/// `aclError aclrtCmoAsyncWithBarrier(void *src, size_t size, aclrtCmoType cmoType, uint32_t barrierId,
/// aclrtStream stream)`: NULL is 100000 (memory.cpp:1677-1689).
pub extern "C" fn aclrtCmoAsyncWithBarrier(
    src: *mut c_void,
    size: usize,
    cmoType: aclrtCmoType,
    _barrierId: u32,
    stream: aclrtStream,
) -> aclError {
    run("aclrtCmoAsyncWithBarrier", || {
        non_null(src, "src")?;
        cmo(src, size, cmoType, stream)
    })
}

/// `aclError aclrtCmoWaitBarrier(aclrtBarrierTaskInfo *taskInfo, aclrtStream stream, uint32_t flag)`:
/// 1 to ACL_RT_CMO_MAX_BARRIER_NUM (6) barriers; flag must be 0.
pub extern "C" fn aclrtCmoWaitBarrier(taskInfo: In<'_, aclrtBarrierTaskInfo>, stream: aclrtStream, flag: u32) -> aclError {
    run("aclrtCmoWaitBarrier", || {
        non_null(taskInfo, "taskInfo")?;
        let t = taskInfo.read()?;
        if t.barrierNum == 0 || t.barrierNum > ACL_RT_CMO_MAX_BARRIER_NUM || flag != 0 {
            return Err(bad(AclError::RT_PARAM_INVALID, format!("barrierNum {} (1-6), flag {flag} (0)", t.barrierNum)));
        }
        for info in &t.cmoInfo[..t.barrierNum] {
            cmo_type(info.cmoType)?;
        }
        noop_stream(stream)
    })
}

/// The emulator's cache-operation descriptor (aclrtCmoSetDesc).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct CmoDesc {
    magic: u64,
    src: usize,
    size: usize,
}

/// Marks a [`CmoDesc`] ("vmmkcmod").
const CMO_DESC_MAGIC: u64 = u64::from_le_bytes(*b"vmmkcmod");

/// `aclError aclrtCmoGetDescSize(size_t *size)`: NULL is 107000 (the runtime's check).
pub extern "C" fn aclrtCmoGetDescSize(size: Out<'_, usize>) -> aclError {
    run("aclrtCmoGetDescSize", || {
        if size.is_null() {
            return Err(bad(AclError::RT_PARAM_INVALID, "size is NULL"));
        }
        size.write(std::mem::size_of::<CmoDesc>())?;
        Ok(())
    })
}

/// `aclError aclrtCmoSetDesc(void *cmoDesc, void *src, size_t size)`.
pub extern "C" fn aclrtCmoSetDesc(cmoDesc: Out<'_, c_void>, src: *mut c_void, size: usize) -> aclError {
    run("aclrtCmoSetDesc", || {
        if cmoDesc.is_null() || src.is_null() || size == 0 {
            return Err(bad(AclError::RT_PARAM_INVALID, "cmoDesc or src is NULL, or size is 0"));
        }
        // `cmoDesc` holds aclrtCmoGetDescSize bytes (the contract).
        cmoDesc.cast::<CmoDesc>().write(CmoDesc { magic: CMO_DESC_MAGIC, src: src as usize, size })?;
        Ok(())
    })
}

/// `aclError aclrtCmoAsyncWithDesc(void *cmoDesc, aclrtCmoType cmoType, aclrtStream stream, const void *reserve)`:
/// the descriptor must be aclrtCmoSetDesc's, reserve NULL.
pub extern "C" fn aclrtCmoAsyncWithDesc(
    cmoDesc: In<'_, c_void>,
    cmoType: aclrtCmoType,
    stream: aclrtStream,
    reserve: *const c_void,
) -> aclError {
    run("aclrtCmoAsyncWithDesc", || {
        if cmoDesc.is_null() || !reserve.is_null() {
            return Err(bad(AclError::RT_PARAM_INVALID, "cmoDesc is NULL or reserve is not NULL"));
        }
        // `cmoDesc` holds aclrtCmoGetDescSize bytes (the contract).
        let d = cmoDesc.cast::<CmoDesc>().read()?;
        if d.magic != CMO_DESC_MAGIC {
            return Err(bad(AclError::RT_PARAM_INVALID, format!("{cmoDesc:p} was not filled by aclrtCmoSetDesc")));
        }
        cmo(d.src as *mut c_void, d.size, cmoType, stream)
    })
}

/// `aclError aclrtDeviceL2CacheFlush(void *rsv)`: rsv must be NULL; the
/// current device's L2 is host memory, coherent: the device's work is waited for.
pub extern "C" fn aclrtDeviceL2CacheFlush(rsv: *mut c_void) -> aclError {
    run("aclrtDeviceL2CacheFlush", || {
        if !rsv.is_null() {
            return Err(bad(AclError::INVALID_PARAM, "rsv is reserved and must be NULL"));
        }
        let d = current_device()?;
        emu()?.device_synchronize(Some(d), None).map_err(|e| Fail::core(Op::Copy, e))
    })
}
