//! Stream-ordered memory pools: cuMemPool*, cuMemAllocAsync,
//! cuMemAllocFromPoolAsync, cuMemFreeAsync and the device's pools
//! ([CUDA-POOL-001](vmmkit_sys::cuda::rules::POOL_001) … 013), over the core's pools (`core::pool`).
//!
//! Every call needs a current context ([CUDA-GEN-002](vmmkit_sys::cuda::rules::GEN_002)). A stream is NULL,
//! `CU_STREAM_LEGACY` (1), `CU_STREAM_PER_THREAD` (2) or a live stream of
//! cuStreamCreate; any other is 400. Allocation is at once (memory is ready
//! for the stream's later work); cuMemFreeAsync frees after the stream's
//! earlier work, at once when it has none. Imported pools do not allocate
//! and cannot be a device's current pool (the docs of
//! cuMemPoolImportFromShareableHandle).
#![allow(non_snake_case)]

use std::ffi::c_void;

use vmmkit_sys::cuda::rules;
use vmmkit_sys::cuda::*;
use vmmkit_sys::rule::Rule;

use super::call::{Fail, emu, ensure, run};
use super::context::current;
use super::profile::{ALLOC_GRANULE, KIND_ALLOC, WINDOW};
use crate::ffi::{In, Out};
use crate::core::{
    CoreError, Emulator, ExtentKind, HandleId, HandleTag, HighReset, IPC_HANDLE_SIZE, IpcToken, PoolAttr, PoolId, PoolProps, Work,
    new_generation,
};

const TAG: HandleTag = HandleTag::new(0x6370);
/// The magic of a pool pointer's export data (`core::IpcToken`'s layout).
const MAGIC: [u8; 8] = *b"VMMKCPP1";

fn to_pool(id: PoolId) -> CUmemoryPool {
    TAG.value(HandleId(id.0)) as CUmemoryPool
}

fn pool_of(e: &Emulator, p: CUmemoryPool) -> Option<PoolId> {
    TAG.id(p as usize).map(|h| PoolId(h.0)).filter(|&id| e.pool_exists(id))
}

fn stream_ok(stream: CUstream) -> bool {
    crate::core::running().is_some_and(|e| super::stream::is_stream(e, stream))
}

/// The live pool `p`, under `rule` when it is not one.
fn live(e: &Emulator, p: CUmemoryPool, rule: &'static Rule) -> Result<Option<PoolId>, Fail> {
    let id = pool_of(e, p);
    if id.is_none() && crate::mutation::enforced(rule) {
        return Err(Fail::rule(rule, format!("{p:p} is not a live memory pool")));
    }
    Ok(id)
}

/// `CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)`: [CUDA-POOL-003](vmmkit_sys::cuda::rules::POOL_003).
pub extern "C" fn cuDeviceGetDefaultMemPool(pool_out: Out<'_, CUmemoryPool>, dev: CUdevice) -> CUresult {
    run("cuDeviceGetDefaultMemPool", || get_pool(pool_out, dev, true))
}

/// `CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)`: [CUDA-POOL-003](vmmkit_sys::cuda::rules::POOL_003).
pub extern "C" fn cuDeviceGetMemPool(pool: Out<'_, CUmemoryPool>, dev: CUdevice) -> CUresult {
    run("cuDeviceGetMemPool", || get_pool(pool, dev, false))
}

fn get_pool(out: Out<'_, CUmemoryPool>, dev: CUdevice, default: bool) -> Result<(), Fail> {
    current()?;
    ensure!(!out.is_null(), rules::POOL_003, "the out-pointer is NULL");
    let e = emu()?;
    ensure!(e.is_device(i64::from(dev)), rules::POOL_003 => CuResult::INVALID_DEVICE, "{dev} is not a device");
    if out.is_null() || !e.is_device(i64::from(dev)) {
        return Ok(());
    }
    let id = if default { e.pool_default(dev as u32) } else { e.pool_current(dev as u32) };
    out.write(to_pool(id))?;
    Ok(())
}

/// `CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)`: [CUDA-POOL-004](vmmkit_sys::cuda::rules::POOL_004).
pub extern "C" fn cuDeviceSetMemPool(dev: CUdevice, pool: CUmemoryPool) -> CUresult {
    run("cuDeviceSetMemPool", || {
        current()?;
        let e = emu()?;
        let Some(id) = live(e, pool, &rules::POOL_004)? else { return Ok(()) };
        let (props, imported) = e.pool_props(id).map_err(|er| Fail::core_under(&rules::POOL_004, er))?;
        ensure!(!imported, rules::POOL_004, "an imported pool cannot be a device's current pool");
        ensure!(
            i64::from(props.device) == i64::from(dev),
            rules::POOL_004,
            "the pool is local to device {}, not {dev}", props.device
        );
        e.pool_set_current(props.device, id).map_err(|er| Fail::core_under(&rules::POOL_004, er))
    })
}

fn alloc(e: &Emulator, id: PoolId, size: usize, rule: &'static Rule) -> Result<usize, Fail> {
    let rounded = (size as u64).checked_next_multiple_of(ALLOC_GRANULE).ok_or_else(|| {
        Fail::plain(CuResult::OUT_OF_MEMORY, format!("{size} bytes cannot be allocated"))
    })?;
    let props = [KIND_ALLOC, ALLOC_GRANULE, size as u64, new_generation()];
    e.pool_alloc(id, size as u64, rounded, props, &WINDOW).map_err(|er| match er {
        CoreError::PoolImported(_) | CoreError::UnknownPool(_) => Fail::core_under(rule, er),
        er => Fail::plain(CuResult::OUT_OF_MEMORY, er.to_string()),
    })
}

/// `CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)`: [CUDA-POOL-005](vmmkit_sys::cuda::rules::POOL_005),
/// from the current pool of the context's device.
pub extern "C" fn cuMemAllocAsync(dptr: Out<'_, CUdeviceptr>, bytesize: usize, hStream: CUstream) -> CUresult {
    run("cuMemAllocAsync", || {
        let d = current()?;
        ensure!(!dptr.is_null(), rules::POOL_005, "dptr is NULL");
        ensure!(stream_ok(hStream), rules::POOL_005 => CuResult::INVALID_HANDLE, "{hStream:p} is not a stream");
        if dptr.is_null() {
            return Ok(());
        }
        if bytesize == 0 {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "bytesize is 0".into()));
        }
        let e = emu()?;
        let va = alloc(e, e.pool_current(d), bytesize, &rules::POOL_005)?;
        dptr.write(va as CUdeviceptr)?;
        Ok(())
    })
}

/// `CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)`:
/// [CUDA-POOL-005](vmmkit_sys::cuda::rules::POOL_005); an imported pool is 1.
pub extern "C" fn cuMemAllocFromPoolAsync(
    dptr: Out<'_, CUdeviceptr>,
    bytesize: usize,
    pool: CUmemoryPool,
    hStream: CUstream,
) -> CUresult {
    run("cuMemAllocFromPoolAsync", || {
        current()?;
        ensure!(!dptr.is_null(), rules::POOL_005, "dptr is NULL");
        ensure!(stream_ok(hStream), rules::POOL_005 => CuResult::INVALID_HANDLE, "{hStream:p} is not a stream");
        let e = emu()?;
        let Some(id) = live(e, pool, &rules::POOL_005)? else { return Ok(()) };
        if dptr.is_null() {
            return Ok(());
        }
        if bytesize == 0 {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "bytesize is 0".into()));
        }
        let va = alloc(e, id, bytesize, &rules::POOL_005)?;
        dptr.write(va as CUdeviceptr)?;
        Ok(())
    })
}

/// `CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)`: [CUDA-POOL-006](vmmkit_sys::cuda::rules::POOL_006). Pool memory goes
/// back to its pool, an imported pointer is closed, cuMemAlloc memory is freed: after the stream's
/// earlier work (a host function on the stream), at once when the stream has none pending.
pub extern "C" fn cuMemFreeAsync(dptr: CUdeviceptr, hStream: CUstream) -> CUresult {
    run("cuMemFreeAsync", || {
        let d = current()?;
        ensure!(stream_ok(hStream), rules::POOL_006 => CuResult::INVALID_HANDLE, "{hStream:p} is not a stream");
        let e = emu()?;
        let p = dptr as usize;
        let is_pool = e.pool_of(p).is_some();
        let is_plain = e.extent(p).is_some_and(|x| matches!(x.kind, ExtentKind::Plain(_)) && x.base == p);
        if !is_pool && !is_plain {
            // Nothing to free: the synchronous path names the rule (or an imported pointer's close).
            return free_now(e, p);
        }
        let stream = if stream_ok(hStream) { super::stream::stream_of(e, hStream, d)? } else { e.legacy_stream(d) };
        if e.stream_query(stream).unwrap_or(true) {
            return free_now(e, p);
        }
        let free = Work::Host(Box::new(move || {
            if let Some(e) = crate::core::running() {
                // Checked when enqueued; a failure now has nobody to tell.
                let _ = free_now(e, p);
            }
        }));
        // SAFETY: a host function that touches no caller memory.
        unsafe { e.enqueue(stream, free) }.map_err(|er| Fail::core_under(&rules::POOL_006, er))
    })
}

/// Frees `p` now, as cuMemFreeAsync on an idle stream: [CUDA-POOL-006](vmmkit_sys::cuda::rules::POOL_006).
fn free_now(e: &Emulator, p: usize) -> Result<(), Fail> {
    if let Some(r) = e.pool_free(p) {
        return r.map(drop).map_err(|er| Fail::core_under(&rules::POOL_006, er));
    }
    match e.extent(p) {
        Some(x) if matches!(x.kind, ExtentKind::Plain(_)) && x.base == p => {
            if let ExtentKind::Plain(h) = x.kind {
                let _ = e.withdraw(h);
            }
            e.free_plain(p).map_err(|er| Fail::core_under(&rules::POOL_006, er))
        }
        _ => {
            ensure!(false, rules::POOL_006, "{p:#x} is not an allocation");
            Ok(())
        }
    }
}

/// `CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)`: [CUDA-POOL-001](vmmkit_sys::cuda::rules::POOL_001).
pub extern "C" fn cuMemPoolCreate(pool: Out<'_, CUmemoryPool>, poolProps: In<'_, CUmemPoolProps>) -> CUresult {
    run("cuMemPoolCreate", || {
        current()?;
        ensure!(!pool.is_null() && !poolProps.is_null(), rules::POOL_001, "pool or poolProps is NULL");
        if pool.is_null() || poolProps.is_null() {
            return Ok(());
        }
        let p = poolProps.read()?;
        ensure!(p.allocType == CU_MEM_ALLOCATION_TYPE_PINNED, rules::POOL_001, "allocType {} is not PINNED", p.allocType);
        let e = emu()?;
        ensure!(
            p.location.type_ == CU_MEM_LOCATION_TYPE_DEVICE && e.is_device(i64::from(p.location.id)),
            rules::POOL_001,
            "location (type {}, id {}) is not a device", p.location.type_, p.location.id
        );
        let props = PoolProps {
            device: p.location.id.max(0) as u32,
            exportable: p.handleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR != 0,
            max_size: p.maxSize as u64,
        };
        pool.write(to_pool(e.pool_create(props)))?;
        Ok(())
    })
}

/// `CUresult cuMemPoolDestroy(CUmemoryPool pool)`: [CUDA-POOL-002](vmmkit_sys::cuda::rules::POOL_002).
pub extern "C" fn cuMemPoolDestroy(pool: CUmemoryPool) -> CUresult {
    run("cuMemPoolDestroy", || {
        current()?;
        let e = emu()?;
        let Some(id) = live(e, pool, &rules::POOL_002)? else { return Ok(()) };
        ensure!(!e.pool_is_default(id), rules::POOL_002, "a device's default pool cannot be destroyed");
        e.pool_destroy(id).map_err(|er| Fail::core_under(&rules::POOL_002, er))
    })
}

fn attr_of(attr: CUmemPool_attribute) -> Result<Option<PoolAttr>, Fail> {
    let a = PoolAttr::from_number(i64::from(attr));
    ensure!(a.is_some(), rules::POOL_007, "attribute {attr} is not a CUmemPool_attribute (1-8)");
    Ok(a)
}

/// The pool and attribute a Set/GetAttribute call names, checked in the
/// driver's order ([CUDA-POOL-007](vmmkit_sys::cuda::rules::POOL_007)); `None` where a mutated check let a bad
/// argument through, so that nothing is read or written.
fn attribute_call(
    e: &Emulator,
    pool: CUmemoryPool,
    attr: CUmemPool_attribute,
    value: *const c_void,
) -> Result<Option<(PoolId, PoolAttr)>, Fail> {
    ensure!(!value.is_null(), rules::POOL_007, "value is NULL");
    let (Some(id), Some(a)) = (live(e, pool, &rules::POOL_007)?, attr_of(attr)?) else { return Ok(None) };
    Ok((!value.is_null()).then_some((id, a)))
}

/// `CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)`: [CUDA-POOL-007](vmmkit_sys::cuda::rules::POOL_007).
pub extern "C" fn cuMemPoolSetAttribute(pool: CUmemoryPool, attr: CUmemPool_attribute, value: In<'_, c_void>) -> CUresult {
    run("cuMemPoolSetAttribute", || {
        current()?;
        let e = emu()?;
        let Some((id, a)) = attribute_call(e, pool, attr, value.as_ptr())? else { return Ok(()) };
        let v = if a.is_int() {
            u64::from(value.cast::<i32>().read()? != 0)
        } else {
            value.cast::<u64>().read()?
        };
        e.pool_set(id, a, v, HighReset::ToCurrent).map_err(|er| Fail::core_under(&rules::POOL_007, er))
    })
}

/// `CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)`: [CUDA-POOL-007](vmmkit_sys::cuda::rules::POOL_007).
pub extern "C" fn cuMemPoolGetAttribute(pool: CUmemoryPool, attr: CUmemPool_attribute, value: Out<'_, c_void>) -> CUresult {
    run("cuMemPoolGetAttribute", || {
        current()?;
        let e = emu()?;
        let Some((id, a)) = attribute_call(e, pool, attr, value.as_ptr().cast_const())? else { return Ok(()) };
        let v = e.pool_get(id, a).map_err(|er| Fail::core_under(&rules::POOL_007, er))?;
        if a.is_int() {
            value.cast::<i32>().write(v as i32)?;
        } else {
            value.cast::<u64>().write(v)?;
        }
        Ok(())
    })
}

/// `CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)`: [CUDA-POOL-009](vmmkit_sys::cuda::rules::POOL_009).
pub extern "C" fn cuMemPoolSetAccess(pool: CUmemoryPool, map: In<'_, CUmemAccessDesc>, count: usize) -> CUresult {
    run("cuMemPoolSetAccess", || {
        current()?;
        let e = emu()?;
        ensure!(!map.is_null() || count == 0, rules::POOL_009, "map is NULL");
        let Some(id) = live(e, pool, &rules::POOL_009)? else { return Ok(()) };
        for i in 0..if map.is_null() { 0 } else { count } {
            let d = map.read_at(i)?;
            let ok = d.location.type_ == CU_MEM_LOCATION_TYPE_DEVICE
                && e.is_device(i64::from(d.location.id))
                && matches!(d.flags, 0 | 1 | 3);
            ensure!(ok, rules::POOL_009, "descriptor {i}: location (type {}, id {}) flags {}", d.location.type_, d.location.id, d.flags);
            if ok {
                e.pool_set_access(id, d.location.id as u32, d.flags).map_err(|er| Fail::core_under(&rules::POOL_009, er))?;
            }
        }
        Ok(())
    })
}

/// `CUresult cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool memPool, CUmemLocation *location)`:
/// [CUDA-POOL-009](vmmkit_sys::cuda::rules::POOL_009).
pub extern "C" fn cuMemPoolGetAccess(flags: Out<'_, CUmemAccess_flags>, memPool: CUmemoryPool, location: In<'_, CUmemLocation>) -> CUresult {
    run("cuMemPoolGetAccess", || {
        current()?;
        ensure!(!flags.is_null() && !location.is_null(), rules::POOL_009, "flags or location is NULL");
        if flags.is_null() || location.is_null() {
            return Ok(());
        }
        let e = emu()?;
        let Some(id) = live(e, memPool, &rules::POOL_009)? else { return Ok(()) };
        let loc = location.read()?;
        let ok = loc.type_ == CU_MEM_LOCATION_TYPE_DEVICE && e.is_device(i64::from(loc.id));
        ensure!(ok, rules::POOL_009, "location (type {}, id {}) is not a device", loc.type_, loc.id);
        if !ok {
            return Ok(());
        }
        let f = e.pool_get_access(id, loc.id as u32).map_err(|er| Fail::core_under(&rules::POOL_009, er))?;
        flags.write(f)?;
        Ok(())
    })
}

/// `CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)`.
pub extern "C" fn cuMemPoolTrimTo(pool: CUmemoryPool, minBytesToKeep: usize) -> CUresult {
    run("cuMemPoolTrimTo", || {
        current()?;
        let e = emu()?;
        let Some(id) = pool_of(e, pool) else {
            return Err(Fail::plain(CuResult::INVALID_VALUE, format!("{pool:p} is not a live memory pool")));
        };
        e.pool_trim(id, minBytesToKeep as u64).map_err(|er| Fail::plain(CuResult::INVALID_VALUE, er.to_string()))
    })
}

/// `CUresult cuMemPoolExportToShareableHandle(void *handle_out, CUmemoryPool pool, CUmemAllocationHandleType handleType, unsigned long long flags)`:
/// [CUDA-POOL-010](vmmkit_sys::cuda::rules::POOL_010); writes an `int` fd the caller owns.
pub extern "C" fn cuMemPoolExportToShareableHandle(
    handle_out: Out<'_, c_void>,
    pool: CUmemoryPool,
    handleType: CUmemAllocationHandleType,
    flags: u64,
) -> CUresult {
    run("cuMemPoolExportToShareableHandle", || {
        current()?;
        ensure!(!handle_out.is_null() && flags == 0, rules::POOL_010, "handle_out is NULL or flags {flags} is not 0");
        let e = emu()?;
        let Some(id) = live(e, pool, &rules::POOL_010)? else { return Ok(()) };
        let (props, _) = e.pool_props(id).map_err(|er| Fail::core_under(&rules::POOL_010, er))?;
        ensure!(
            props.exportable && handleType == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
            rules::POOL_010,
            "the pool was made with handle type NONE, or handleType {handleType} is not POSIX_FILE_DESCRIPTOR"
        );
        let fd = e.pool_export(id).map_err(|er| Fail::core_under(&rules::POOL_010, er))?;
        if handle_out.is_null() {
            return Ok(());
        }
        handle_out.cast::<i32>().write(std::os::fd::IntoRawFd::into_raw_fd(fd))?;
        Ok(())
    })
}

/// `CUresult cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out, void *handle, CUmemAllocationHandleType handleType, unsigned long long flags)`:
/// [CUDA-POOL-011](vmmkit_sys::cuda::rules::POOL_011): `handle` is the fd value; the pool is on the exporter's device.
pub extern "C" fn cuMemPoolImportFromShareableHandle(
    pool_out: Out<'_, CUmemoryPool>,
    handle: *mut c_void,
    handleType: CUmemAllocationHandleType,
    flags: u64,
) -> CUresult {
    run("cuMemPoolImportFromShareableHandle", || {
        current()?;
        ensure!(!pool_out.is_null() && flags == 0, rules::POOL_011, "pool_out is NULL or flags {flags} is not 0");
        ensure!(handleType != CU_MEM_HANDLE_TYPE_NONE, rules::POOL_011, "handleType is NONE");
        if pool_out.is_null() {
            return Ok(());
        }
        let e = emu()?;
        let fd = i32::try_from(handle as usize).unwrap_or(-1);
        let id = e.pool_import(fd, None).map_err(|er| Fail::core_under(&rules::POOL_011, er))?;
        pool_out.write(to_pool(id))?;
        Ok(())
    })
}

/// `CUresult cuMemPoolExportPointer(CUmemPoolPtrExportData *shareData_out, CUdeviceptr ptr)`:
/// [CUDA-POOL-012](vmmkit_sys::cuda::rules::POOL_012): only an allocation of an exportable pool.
pub extern "C" fn cuMemPoolExportPointer(shareData_out: Out<'_, CUmemPoolPtrExportData>, ptr: CUdeviceptr) -> CUresult {
    run("cuMemPoolExportPointer", || {
        let d = current()?;
        ensure!(!shareData_out.is_null(), rules::POOL_012, "shareData_out is NULL");
        let e = emu()?;
        let p = ptr as usize;
        let base = e.extent(p).map_or(p, |x| x.base);
        let exportable = e.pool_of(base).and_then(|id| e.pool_props(id).ok()).is_some_and(|(props, _)| props.exportable);
        ensure!(exportable, rules::POOL_012, "{p:#x} is not an allocation of an exportable pool");
        if !exportable || shareData_out.is_null() {
            return Ok(());
        }
        let exported = e.export_plain(p).map_err(|er| Fail::core_under(&rules::POOL_012, er))?;
        let token = IpcToken {
            key: exported.key,
            generation: exported.props[3],
            size: exported.props[2],
            offset: (p - exported.base) as u64,
            pid: std::process::id() as i32,
            device: d as i32,
        };
        shareData_out.write(CUmemPoolPtrExportData { reserved: token.encode(MAGIC) })?;
        Ok(())
    })
}

/// `CUresult cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool, CUmemPoolPtrExportData *shareData)`:
/// the allocation mapped on the pool's device, plus the offset.
pub extern "C" fn cuMemPoolImportPointer(ptr_out: Out<'_, CUdeviceptr>, pool: CUmemoryPool, shareData: In<'_, CUmemPoolPtrExportData>) -> CUresult {
    run("cuMemPoolImportPointer", || {
        current()?;
        if ptr_out.is_null() || shareData.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "ptr_out or shareData is NULL".into()));
        }
        let e = emu()?;
        let Some(id) = pool_of(e, pool) else {
            return Err(Fail::plain(CuResult::INVALID_VALUE, format!("{pool:p} is not a live memory pool")));
        };
        let data: [u8; IPC_HANDLE_SIZE] = shareData.read()?.reserved;
        let Some(token) = IpcToken::decode(MAGIC, &data) else {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "the export data names no allocation".into()));
        };
        let base = e
            .pool_import_pointer(id, token.key, token.pid, &WINDOW, false)
            .map_err(|er| Fail::plain(CuResult::INVALID_VALUE, er.to_string()))?;
        ptr_out.write((base + token.offset as usize) as CUdeviceptr)?;
        Ok(())
    })
}
