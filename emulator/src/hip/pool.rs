//! Stream-ordered memory pools: hipMemPool*, hipMallocAsync,
//! hipMallocFromPoolAsync, hipFreeAsync and the device's pools, with the
//! checks of clr 6.3 (`hipamd/src/hip_mempool.cpp`) in its order
//! ([HIP-POOL-001](vmmkit_sys::hip::rules::POOL_001) … 019). The pools are the core's (`core::pool`).
//!
//! The stream may be NULL, `hipStreamLegacy` (1), `hipStreamPerThread` (2)
//! or a live stream; any other value is 400. hipMallocAsync allocates at
//! once; hipFreeAsync gives pool memory back at once (clr's `FreeMemory`
//! runs on the calling thread; the block stays mapped in the pool) and frees
//! other memory when the stream reaches the free (a host work on the stream;
//! clr's fallback `ihipFree` waits for the device instead). clr also keeps a
//! freed block from other streams until the free's stream passes it; the
//! emulator's pool may hand it out at once (not modelled). The device's
//! synchronisations give freed blocks back to the system once the free's
//! stream has passed them, down to each pool's release threshold
//! ([`release_freed`], [HIP-POOL-021](vmmkit_sys::hip::rules::POOL_021)).
//! Pool memory is hipMalloc memory to every other HIP call (clr allocates
//! it as SVM memory), so hipFree, copies and IPC handles work on it.
#![allow(non_snake_case)]

use std::ffi::c_void;

use vmmkit_sys::hip::rules;
use vmmkit_sys::hip::*;

use super::call::{Fail, emu, ensure, run};
use super::pointer::{KIND_MALLOC, Kind, extent};
use super::profile::{GRANULARITY, WINDOW};
use crate::ffi::{In, Out};
use crate::core::{Emulator, HandleId, HandleTag, HighReset, IPC_HANDLE_SIZE, IpcToken, Mark, PoolAttr, PoolId, PoolProps, Work};
use crate::core::{CaptureStatus, GraphOp, new_generation};

const TAG: HandleTag = HandleTag::new(0x6870);
/// The magic of a pool pointer's export data (`core::IpcToken`'s layout).
const MAGIC: [u8; 8] = *b"VMMKHPP1";

fn to_pool(id: PoolId) -> hipMemPool_t {
    TAG.value(HandleId(id.0)) as hipMemPool_t
}

/// The pool a C value names, if it is a live one of this process.
fn pool_of(e: &Emulator, p: hipMemPool_t) -> Option<PoolId> {
    TAG.id(p as usize).map(|h| PoolId(h.0)).filter(|&id| e.pool_exists(id))
}

fn stream_ok(e: &Emulator, stream: hipStream_t) -> bool {
    super::stream::lookup(e, stream).is_some()
}

fn device_count(e: &Emulator) -> i64 {
    i64::from(e.device_count())
}

/// `hipError_t hipDeviceGetDefaultMemPool(hipMemPool_t *mem_pool, int device)`: [HIP-POOL-003](vmmkit_sys::hip::rules::POOL_003).
pub extern "C" fn hipDeviceGetDefaultMemPool(mem_pool: Out<'_, hipMemPool_t>, device: i32) -> hipError_t {
    run("hipDeviceGetDefaultMemPool", || {
        ensure!(!mem_pool.is_null(), rules::POOL_003, "mem_pool is NULL");
        let e = emu()?;
        ensure!(
            e.is_device(i64::from(device)),
            rules::POOL_003 => HipError::INVALID_DEVICE,
            "device {device} is not one of 0..{}", device_count(e)
        );
        if mem_pool.is_null() || !e.is_device(i64::from(device)) {
            return Ok(());
        }
        mem_pool.write(to_pool(e.pool_default(device as u32)))?;
        Ok(())
    })
}

/// `hipError_t hipDeviceSetMemPool(int device, hipMemPool_t mem_pool)`: [HIP-POOL-004](vmmkit_sys::hip::rules::POOL_004).
pub extern "C" fn hipDeviceSetMemPool(device: i32, mem_pool: hipMemPool_t) -> hipError_t {
    run("hipDeviceSetMemPool", || {
        let e = emu()?;
        // clr compares the int with the unsigned device count: a negative one passes there and crashes.
        ensure!(
            !mem_pool.is_null() && e.is_device(i64::from(device)),
            rules::POOL_004,
            "mem_pool is NULL or device {device} is not one of 0..{}", device_count(e)
        );
        let id = pool_of(e, mem_pool);
        ensure!(id.is_some(), rules::POOL_004, "{mem_pool:p} is not a live memory pool");
        let Some(id) = id else { return Ok(()) };
        let (props, _) = e.pool_props(id).map_err(|er| Fail::core_under(&rules::POOL_004, er))?;
        ensure!(
            i64::from(props.device) == i64::from(device),
            rules::POOL_004 => HipError::INVALID_DEVICE,
            "the pool belongs to device {}, not {device}", props.device
        );
        e.pool_set_current(device.max(0) as u32, id).map_err(|er| Fail::core_under(&rules::POOL_004, er))
    })
}

/// `hipError_t hipDeviceGetMemPool(hipMemPool_t *mem_pool, int device)`: [HIP-POOL-005](vmmkit_sys::hip::rules::POOL_005).
pub extern "C" fn hipDeviceGetMemPool(mem_pool: Out<'_, hipMemPool_t>, device: i32) -> hipError_t {
    run("hipDeviceGetMemPool", || {
        let e = emu()?;
        ensure!(
            !mem_pool.is_null() && e.is_device(i64::from(device)),
            rules::POOL_005,
            "mem_pool is NULL or device {device} is not one of 0..{}", device_count(e)
        );
        if mem_pool.is_null() || !e.is_device(i64::from(device)) {
            return Ok(());
        }
        mem_pool.write(to_pool(e.pool_current(device as u32)))?;
        Ok(())
    })
}

/// Allocates `size` bytes from `id` (pool memory is hipMalloc memory).
fn alloc(e: &Emulator, id: PoolId, size: usize) -> Result<usize, Fail> {
    let rounded = (size as u64).checked_next_multiple_of(GRANULARITY).ok_or_else(|| {
        Fail::plain(HipError::OUT_OF_MEMORY, format!("{size} bytes cannot be allocated"))
    })?;
    let props = [KIND_MALLOC, GRANULARITY, size as u64, new_generation()];
    // clr: a failed AllocateMemory (maxSize, device memory) is hipErrorOutOfMemory.
    e.pool_alloc(id, size as u64, rounded, props, &WINDOW)
        .map_err(|er| Fail::plain(HipError::OUT_OF_MEMORY, er.to_string()))
}

/// The stream `stream` names if it captures.
fn capturing(e: &Emulator, stream: hipStream_t) -> Option<crate::core::StreamId> {
    super::stream::lookup(e, stream).filter(|&id| (stream as usize) > 1 && e.capture_status(id) != CaptureStatus::None)
}

/// hipMallocAsync on a capturing stream: an allocation node whose memory
/// exists from now on (clr capturehipMallocAsync, [HIP-GRF-014](vmmkit_sys::hip::rules::GRF_014)); `false`
/// when the stream does not capture.
fn capture_alloc(e: &Emulator, dev_ptr: Out<'_, *mut c_void>, size: usize, stream: hipStream_t) -> Result<bool, Fail> {
    let Some(sid) = capturing(e, stream).filter(|_| size != 0 && !dev_ptr.is_null()) else { return Ok(false) };
    let (device, _) = e.stream_info(sid).map_err(super::stream::work_failed)?;
    let (addr, op) = super::graph::alloc_op(e, device, size)?;
    e.capture_add(sid, op).map_err(super::graph::graph_fail)?;
    dev_ptr.write(addr as *mut c_void)?;
    Ok(true)
}

/// The common tail of hipMallocAsync and hipMallocFromPoolAsync: size 0 is
/// success with NULL (clr checks it before the pool), else an allocation
/// from the pool `pool` names (`None`: a check was switched off).
fn alloc_into(dev_ptr: Out<'_, *mut c_void>, size: usize, pool: impl FnOnce() -> Result<Option<PoolId>, Fail>) -> Result<(), Fail> {
    if dev_ptr.is_null() {
        return Ok(());
    }
    if size == 0 {
        dev_ptr.write(std::ptr::null_mut())?;
        return Ok(());
    }
    let Some(id) = pool()? else { return Ok(()) };
    let va = alloc(emu()?, id, size)?;
    dev_ptr.write(va as *mut c_void)?;
    Ok(())
}

/// `hipError_t hipMallocAsync(void **dev_ptr, size_t size, hipStream_t stream)`:
/// [HIP-POOL-006](vmmkit_sys::hip::rules::POOL_006), from the current pool of the current device.
pub extern "C" fn hipMallocAsync(dev_ptr: Out<'_, *mut c_void>, size: usize, stream: hipStream_t) -> hipError_t {
    run("hipMallocAsync", || {
        ensure!(!dev_ptr.is_null(), rules::POOL_006, "dev_ptr is NULL");
        let e = emu()?;
        ensure!(stream_ok(e, stream), rules::POOL_006 => HipError::INVALID_HANDLE, "{stream:p} is not a stream");
        if capture_alloc(e, dev_ptr, size, stream)? {
            return Ok(());
        }
        alloc_into(dev_ptr, size, || Ok(Some(e.pool_current(super::call::current_device()))))
    })
}

/// `hipError_t hipMallocFromPoolAsync(void **dev_ptr, size_t size, hipMemPool_t mem_pool, hipStream_t stream)`:
/// [HIP-POOL-006](vmmkit_sys::hip::rules::POOL_006).
pub extern "C" fn hipMallocFromPoolAsync(
    dev_ptr: Out<'_, *mut c_void>,
    size: usize,
    mem_pool: hipMemPool_t,
    stream: hipStream_t,
) -> hipError_t {
    run("hipMallocFromPoolAsync", || {
        ensure!(!dev_ptr.is_null() && !mem_pool.is_null(), rules::POOL_006, "dev_ptr or mem_pool is NULL");
        let e = emu()?;
        ensure!(stream_ok(e, stream), rules::POOL_006 => HipError::INVALID_HANDLE, "{stream:p} is not a stream");
        if pool_of(e, mem_pool).is_some() && capture_alloc(e, dev_ptr, size, stream)? {
            return Ok(());
        }
        alloc_into(dev_ptr, size, || {
            let id = pool_of(e, mem_pool);
            ensure!(id.is_some(), rules::POOL_006, "{mem_pool:p} is not a live memory pool");
            Ok(id)
        })
    })
}

/// `hipError_t hipFreeAsync(void *dev_ptr, hipStream_t stream)`: [HIP-POOL-007](vmmkit_sys::hip::rules::POOL_007).
/// Pool memory goes back to its pool; a pointer imported into a pool is
/// closed; other hipMalloc memory is freed as hipFree frees it (clr's
/// fallback to `ihipFree`).
pub extern "C" fn hipFreeAsync(dev_ptr: *mut c_void, stream: hipStream_t) -> hipError_t {
    run("hipFreeAsync", || {
        ensure!(!dev_ptr.is_null(), rules::POOL_007, "dev_ptr is NULL");
        let e = emu()?;
        ensure!(stream_ok(e, stream), rules::POOL_007 => HipError::INVALID_HANDLE, "{stream:p} is not a stream");
        let p = dev_ptr as usize;
        // On a capturing stream: a free node (clr capturehipFreeAsync, HIP-GRF-014).
        if let Some(sid) = capturing(e, stream) {
            return e.capture_add(sid, GraphOp::Free { addr: p }).map(drop).map_err(super::graph::graph_fail);
        }
        // Pool memory and pointers imported into a pool: clr's FreeMemory
        // moves the block to the pool's free heap on the calling thread (the
        // counters drop at once), with a marker on the stream; the block
        // stays mapped until a synchronisation or a trim finds the marker
        // passed (HIP-POOL-021), so work still queued that reads it is safe.
        let after = super::stream::lookup(e, stream).and_then(|id| e.stream_mark(id).ok());
        if let Some(r) = free_pool(e, p, after) {
            return r;
        }
        let known = extent(e, p).is_some_and(|x| matches!(x.kind, Kind::Malloc(_) | Kind::Opened));
        ensure!(known, rules::POOL_007, "{p:#x} is not memory HIP allocated");
        let Some(id) = super::stream::lookup(e, stream).filter(|_| known) else { return Ok(()) };
        // Other memory: clr falls back to ihipFree, which waits for the
        // device first; the emulator frees it when the stream reaches the
        // free (a failure then has no caller to tell).
        let work = Work::Host(Box::new(move || {
            if let Some(e) = crate::core::running() {
                let _ = free(e, p);
            }
        }));
        // SAFETY: a host work touches no memory the core copies.
        unsafe { e.enqueue(id, work) }.map_err(super::stream::work_failed)
    })
}

/// Gives pool memory (or a pointer imported into a pool) back; `None` when `p` is neither.
/// A block its pool holds freed already is 1: clr's FreeMemory releases the
/// free heap's blocks whose stream has passed (AMD_DIRECT_DISPATCH, free heap
/// over busy heap: ROCm/clr@f9f995c hipamd/src/hip_mempool_impl.cpp:244-247),
/// so the second hipFreeAsync finds no memory object (hip_mempool.cpp:167-176);
/// freeing it as plain memory would pull it from under its pool.
fn free_pool(e: &Emulator, p: usize, after: Option<Mark>) -> Option<Result<(), Fail>> {
    let base = extent(e, p).map_or(p, |x| x.base);
    if e.pool_block_is_free(base) {
        let refused = (|| {
            ensure!(false, rules::POOL_007, "{p:#x} was freed to its pool already");
            Ok(())
        })();
        if refused.is_err() {
            return Some(refused);
        }
    }
    e.pool_free_after(base, after).map(|r| r.map(drop).map_err(|er| Fail::core_under(&rules::POOL_007, er)))
}

/// The free of hipFreeAsync, and of hipFree for pool memory.
pub(super) fn free(e: &Emulator, p: usize) -> Result<(), Fail> {
    if let Some(r) = free_pool(e, p, None) {
        return r;
    }
    let base = extent(e, p).map_or(p, |x| x.base);
    match extent(e, p).map(|x| x.kind) {
        Some(Kind::Malloc(h)) => {
            let _ = e.withdraw(h);
            e.free_plain(base).map_err(|er| Fail::core_under(&rules::POOL_007, er))
        }
        Some(Kind::Opened) => e.close_plain(p).map(drop).map_err(|er| Fail::core_under(&rules::POOL_007, er)),
        _ => {
            ensure!(false, rules::POOL_007, "{p:#x} is not memory HIP allocated");
            Ok(())
        }
    }
}

/// What clr's `Device::ReleaseFreedMemory` does after a synchronisation of
/// `device` (every device: `None`): each of its pools gives back the freed
/// blocks whose free its stream has passed, smallest first, until what it
/// holds freed is at most its release threshold (0 by default), so their
/// addresses name no memory any more
/// ([HIP-POOL-021](vmmkit_sys::hip::rules::POOL_021); ROCm/clr@fa1d09c
/// hipamd/src/hip_mempool_impl.cpp:133-146, :319-323). clr calls it from
/// hipStreamSynchronize (hip_stream.cpp:354, :367), hipEventSynchronize
/// (hip_event.cpp:451) and `SyncAllStreams` (hip_device.cpp:285-286: hipDeviceSynchronize,
/// and the waits of hipFree, hipHostUnregister and hipFreeArray).
pub(super) fn release_freed(e: &Emulator, device: Option<u32>) {
    if crate::mutation::enforced(&rules::POOL_021) {
        e.pool_release_freed(device);
    }
}

/// `hipError_t hipMemPoolTrimTo(hipMemPool_t mem_pool, size_t min_bytes_to_hold)`: [HIP-POOL-012](vmmkit_sys::hip::rules::POOL_012).
pub extern "C" fn hipMemPoolTrimTo(mem_pool: hipMemPool_t, min_bytes_to_hold: usize) -> hipError_t {
    run("hipMemPoolTrimTo", || {
        ensure!(!mem_pool.is_null(), rules::POOL_012, "mem_pool is NULL");
        let e = emu()?;
        let id = pool_of(e, mem_pool);
        ensure!(id.is_some(), rules::POOL_012, "{mem_pool:p} is not a live memory pool");
        let Some(id) = id else { return Ok(()) };
        e.pool_trim(id, min_bytes_to_hold as u64).map_err(|er| Fail::core_under(&rules::POOL_012, er))
    })
}

/// The pool and attribute of Set/GetAttribute, checked as clr does ([HIP-POOL-008](vmmkit_sys::hip::rules::POOL_008)).
fn attr_args(e: &Emulator, mem_pool: hipMemPool_t, attr: hipMemPoolAttr, value: *const c_void) -> Result<Option<(PoolId, PoolAttr)>, Fail> {
    ensure!(!mem_pool.is_null() && !value.is_null(), rules::POOL_008, "mem_pool or value is NULL");
    let id = pool_of(e, mem_pool);
    ensure!(id.is_some(), rules::POOL_008, "{mem_pool:p} is not a live memory pool");
    let a = PoolAttr::from_number(i64::from(attr));
    ensure!(a.is_some(), rules::POOL_008, "attribute {attr} is not a hipMemPoolAttr (1-8)");
    Ok(id.zip(a).filter(|_| !value.is_null()))
}

/// `hipError_t hipMemPoolSetAttribute(hipMemPool_t mem_pool, hipMemPoolAttr attr, void *value)`: [HIP-POOL-008](vmmkit_sys::hip::rules::POOL_008).
pub extern "C" fn hipMemPoolSetAttribute(mem_pool: hipMemPool_t, attr: hipMemPoolAttr, value: In<'_, c_void>) -> hipError_t {
    run("hipMemPoolSetAttribute", || {
        let e = emu()?;
        let Some((id, a)) = attr_args(e, mem_pool, attr, value.as_ptr())? else { return Ok(()) };
        let v = if a.is_int() {
            u64::from(value.cast::<i32>().read()? != 0)
        } else {
            value.cast::<u64>().read()?
        };
        // clr leaves a reset high-water mark at 0, not at the current value.
        e.pool_set(id, a, v, HighReset::ToZero).map_err(|er| Fail::core_under(&rules::POOL_008, er))
    })
}

/// `hipError_t hipMemPoolGetAttribute(hipMemPool_t mem_pool, hipMemPoolAttr attr, void *value)`: [HIP-POOL-008](vmmkit_sys::hip::rules::POOL_008).
pub extern "C" fn hipMemPoolGetAttribute(mem_pool: hipMemPool_t, attr: hipMemPoolAttr, value: Out<'_, c_void>) -> hipError_t {
    run("hipMemPoolGetAttribute", || {
        let e = emu()?;
        let Some((id, a)) = attr_args(e, mem_pool, attr, value.as_ptr().cast_const())? else { return Ok(()) };
        let v = e.pool_get(id, a).map_err(|er| Fail::core_under(&rules::POOL_008, er))?;
        if a.is_int() {
            value.cast::<i32>().write(v as i32)?;
        } else {
            value.cast::<u64>().write(v)?;
        }
        Ok(())
    })
}

/// `hipError_t hipMemPoolSetAccess(hipMemPool_t mem_pool, const hipMemAccessDesc *desc_list, size_t count)`:
/// [HIP-POOL-010](vmmkit_sys::hip::rules::POOL_010), checked per descriptor in clr's order.
pub extern "C" fn hipMemPoolSetAccess(mem_pool: hipMemPool_t, desc_list: In<'_, hipMemAccessDesc>, count: usize) -> hipError_t {
    run("hipMemPoolSetAccess", || {
        ensure!(!mem_pool.is_null() && !desc_list.is_null(), rules::POOL_010, "mem_pool or desc_list is NULL");
        let e = emu()?;
        ensure!(
            count as u64 <= u64::from(e.device_count()),
            rules::POOL_010 => HipError::INVALID_DEVICE,
            "count {count} is above the device count {}", e.device_count()
        );
        let id = pool_of(e, mem_pool);
        ensure!(id.is_some(), rules::POOL_010, "{mem_pool:p} is not a live memory pool");
        let (Some(id), false) = (id, desc_list.is_null()) else { return Ok(()) };
        for i in 0..count.min(e.device_count() as usize) {
            let d = desc_list.read_at(i)?;
            ensure!(d.location.type_ == hipMemLocationTypeDevice, rules::POOL_010, "descriptor {i}: location type {} is not Device", d.location.type_);
            ensure!(e.is_device(i64::from(d.location.id)), rules::POOL_010 => HipError::INVALID_DEVICE, "descriptor {i}: device {} is not one", d.location.id);
            ensure!(d.flags != hipMemAccessFlagsProtNone, rules::POOL_010 => HipError::INVALID_DEVICE, "descriptor {i}: flags ProtNone");
            ensure!((0..=hipMemAccessFlagsProtReadWrite).contains(&d.flags), rules::POOL_010, "descriptor {i}: flags {} above ReadWrite", d.flags);
            if e.is_device(i64::from(d.location.id)) {
                e.pool_set_access(id, d.location.id as u32, d.flags as u32).map_err(|er| Fail::core_under(&rules::POOL_010, er))?;
            }
        }
        Ok(())
    })
}

/// `hipError_t hipMemPoolGetAccess(hipMemAccessFlags *flags, hipMemPool_t mem_pool, hipMemLocation *location)`:
/// [HIP-POOL-011](vmmkit_sys::hip::rules::POOL_011).
pub extern "C" fn hipMemPoolGetAccess(flags: Out<'_, hipMemAccessFlags>, mem_pool: hipMemPool_t, location: In<'_, hipMemLocation>) -> hipError_t {
    run("hipMemPoolGetAccess", || {
        ensure!(!mem_pool.is_null() && !location.is_null() && !flags.is_null(), rules::POOL_011, "an argument is NULL");
        if location.is_null() || flags.is_null() {
            return Ok(());
        }
        let e = emu()?;
        let id = pool_of(e, mem_pool);
        ensure!(id.is_some(), rules::POOL_011, "{mem_pool:p} is not a live memory pool");
        let loc = location.read()?;
        ensure!(
            loc.type_ == hipMemLocationTypeDevice && e.is_device(i64::from(loc.id)),
            rules::POOL_011,
            "location (type {}, id {}) is not a device", loc.type_, loc.id
        );
        let Some(id) = id else { return Ok(()) };
        let f = e.pool_get_access(id, loc.id.max(0) as u32).map_err(|er| Fail::core_under(&rules::POOL_011, er))?;
        flags.write(f as hipMemAccessFlags)?;
        Ok(())
    })
}

/// `hipError_t hipMemPoolCreate(hipMemPool_t *mem_pool, const hipMemPoolProps *pool_props)`: [HIP-POOL-001](vmmkit_sys::hip::rules::POOL_001).
pub extern "C" fn hipMemPoolCreate(mem_pool: Out<'_, hipMemPool_t>, pool_props: In<'_, hipMemPoolProps>) -> hipError_t {
    run("hipMemPoolCreate", || {
        ensure!(!mem_pool.is_null() && !pool_props.is_null(), rules::POOL_001, "mem_pool or pool_props is NULL");
        if mem_pool.is_null() || pool_props.is_null() {
            return Ok(());
        }
        let p = pool_props.read()?;
        ensure!(p.allocType == hipMemAllocationTypePinned, rules::POOL_001, "allocType {} is not Pinned", p.allocType);
        let e = emu()?;
        ensure!(
            p.location.type_ == hipMemLocationTypeDevice && e.is_device(i64::from(p.location.id)),
            rules::POOL_001,
            "location (type {}, id {}) is not a device", p.location.type_, p.location.id
        );
        let props = PoolProps {
            device: p.location.id.max(0) as u32,
            exportable: p.handleTypes != hipMemHandleTypeNone,
            max_size: p.maxSize as u64,
        };
        mem_pool.write(to_pool(e.pool_create(props)))?;
        Ok(())
    })
}

/// `hipError_t hipMemPoolDestroy(hipMemPool_t mem_pool)`: [HIP-POOL-002](vmmkit_sys::hip::rules::POOL_002).
pub extern "C" fn hipMemPoolDestroy(mem_pool: hipMemPool_t) -> hipError_t {
    run("hipMemPoolDestroy", || {
        ensure!(!mem_pool.is_null(), rules::POOL_002, "mem_pool is NULL");
        let e = emu()?;
        let id = pool_of(e, mem_pool);
        ensure!(id.is_some(), rules::POOL_002, "{mem_pool:p} is not a live memory pool");
        let Some(id) = id else { return Ok(()) };
        ensure!(!e.pool_is_default(id), rules::POOL_002, "a device's default pool cannot be destroyed");
        e.pool_destroy(id).map_err(|er| Fail::core_under(&rules::POOL_002, er))
    })
}

/// The handle type a pool was made with, as clr compares it: Posix fd for
/// an exportable pool (the only type the emulator exports), else None.
fn pool_handle_type(exportable: bool) -> hipMemAllocationHandleType {
    if exportable { hipMemHandleTypePosixFileDescriptor } else { hipMemHandleTypeNone }
}

/// `hipError_t hipMemPoolExportToShareableHandle(void *shared_handle, hipMemPool_t mem_pool, hipMemAllocationHandleType handle_type, unsigned int flags)`:
/// [HIP-POOL-013](vmmkit_sys::hip::rules::POOL_013); writes an `int` fd the caller owns.
pub extern "C" fn hipMemPoolExportToShareableHandle(
    shared_handle: Out<'_, c_void>,
    mem_pool: hipMemPool_t,
    handle_type: hipMemAllocationHandleType,
    flags: u32,
) -> hipError_t {
    run("hipMemPoolExportToShareableHandle", || {
        ensure!(
            !mem_pool.is_null() && !shared_handle.is_null() && flags == 0,
            rules::POOL_013,
            "mem_pool or shared_handle is NULL, or flags {flags} is not 0"
        );
        let e = emu()?;
        let id = pool_of(e, mem_pool);
        ensure!(id.is_some(), rules::POOL_013, "{mem_pool:p} is not a live memory pool");
        let Some(id) = id else { return Ok(()) };
        let (props, _) = e.pool_props(id).map_err(|er| Fail::core_under(&rules::POOL_013, er))?;
        let own = pool_handle_type(props.exportable);
        ensure!(
            handle_type == own && handle_type != hipMemHandleTypeNone,
            rules::POOL_013,
            "handle_type {handle_type} is not the pool's handle type {own}, or None"
        );
        let fd = e.pool_export(id).map_err(|er| Fail::core_under(&rules::POOL_013, er))?;
        if shared_handle.is_null() {
            return Ok(());
        }
        shared_handle.cast::<i32>().write(std::os::fd::IntoRawFd::into_raw_fd(fd))?;
        Ok(())
    })
}

/// `hipError_t hipMemPoolImportFromShareableHandle(hipMemPool_t *mem_pool, void *shared_handle, hipMemAllocationHandleType handle_type, unsigned int flags)`:
/// [HIP-POOL-014](vmmkit_sys::hip::rules::POOL_014): `shared_handle` is the fd value; clr puts the pool on device 0.
pub extern "C" fn hipMemPoolImportFromShareableHandle(
    mem_pool: Out<'_, hipMemPool_t>,
    shared_handle: *mut c_void,
    handle_type: hipMemAllocationHandleType,
    flags: u32,
) -> hipError_t {
    run("hipMemPoolImportFromShareableHandle", || {
        ensure!(
            !mem_pool.is_null() && !shared_handle.is_null() && flags == 0,
            rules::POOL_014,
            "mem_pool or shared_handle is NULL, or flags {flags} is not 0"
        );
        ensure!(handle_type != hipMemHandleTypeNone, rules::POOL_014, "handle_type is None");
        if mem_pool.is_null() {
            return Ok(());
        }
        let e = emu()?;
        // clr reads the fd back through a union of `void*` and `int`: the low
        // 32 bits of the pointer (hipamd/src/hip_mempool.cpp:423-430). Callers
        // rely on it: hip-tests keeps the fd in an `int64_t` the export wrote
        // only 4 bytes of, the rest left as it was.
        let fd = shared_handle as usize as u32 as i32;
        let id = e.pool_import(fd, Some(0)).map_err(|er| Fail::core_under_code(&rules::POOL_014, HipError::OUT_OF_MEMORY, er))?;
        mem_pool.write(to_pool(id))?;
        Ok(())
    })
}

/// `hipError_t hipMemPoolExportPointer(hipMemPoolPtrExportData *export_data, void *dev_ptr)`:
/// [HIP-POOL-015](vmmkit_sys::hip::rules::POOL_015). Any hipMalloc allocation is exported, as clr's IpcCreate does.
pub extern "C" fn hipMemPoolExportPointer(export_data: Out<'_, hipMemPoolPtrExportData>, dev_ptr: *mut c_void) -> hipError_t {
    run("hipMemPoolExportPointer", || {
        ensure!(!export_data.is_null() && !dev_ptr.is_null(), rules::POOL_015, "export_data or dev_ptr is NULL");
        let e = emu()?;
        let p = dev_ptr as usize;
        let x = extent(e, p).filter(|x| matches!(x.kind, Kind::Malloc(_)));
        ensure!(x.is_some(), rules::POOL_015 => HipError::OUT_OF_MEMORY, "{dev_ptr:p} is not inside an allocation");
        let Some(x) = x else { return Ok(()) };
        let exported = e.export_plain(p).map_err(|er| Fail::core_under_code(&rules::POOL_015, HipError::OUT_OF_MEMORY, er))?;
        let device = e.token_device(x.device);
        let token = IpcToken {
            key: exported.key,
            generation: exported.props[3],
            size: x.size as u64,
            offset: (p - exported.base) as u64,
            pid: std::process::id() as i32,
            device,
        };
        if export_data.is_null() {
            return Ok(());
        }
        export_data.write(hipMemPoolPtrExportData { reserved: token.encode(MAGIC) })?;
        Ok(())
    })
}

/// `hipError_t hipMemPoolImportPointer(void **dev_ptr, hipMemPool_t mem_pool, hipMemPoolPtrExportData *export_data)`:
/// [HIP-POOL-016](vmmkit_sys::hip::rules::POOL_016): the allocation mapped on the pool's device, plus the offset.
pub extern "C" fn hipMemPoolImportPointer(
    dev_ptr: Out<'_, *mut c_void>,
    mem_pool: hipMemPool_t,
    export_data: In<'_, hipMemPoolPtrExportData>,
) -> hipError_t {
    run("hipMemPoolImportPointer", || {
        ensure!(
            !mem_pool.is_null() && !export_data.is_null() && !dev_ptr.is_null(),
            rules::POOL_016,
            "an argument is NULL"
        );
        if export_data.is_null() || dev_ptr.is_null() {
            return Ok(());
        }
        let e = emu()?;
        let id = pool_of(e, mem_pool);
        ensure!(id.is_some(), rules::POOL_016, "{mem_pool:p} is not a live memory pool");
        let data: [u8; IPC_HANDLE_SIZE] = export_data.read()?.reserved;
        let token = IpcToken::decode(MAGIC, &data);
        ensure!(token.is_some(), rules::POOL_016 => HipError::OUT_OF_MEMORY, "the export data names no allocation");
        let (Some(id), Some(token)) = (id, token) else { return Ok(()) };
        // HIP-POOL-020: in the exporting process, clr's IpcAttach maps the
        // memory again (no same-process check): the pointer is a second address.
        let own_maps_again = crate::mutation::enforced(&rules::POOL_020);
        let base = e
            .pool_import_pointer(id, token.key, token.pid, &WINDOW, own_maps_again)
            .map_err(|er| Fail::core_under_code(&rules::POOL_016, HipError::OUT_OF_MEMORY, er))?;
        dev_ptr.write((base + token.offset as usize) as *mut c_void)?;
        Ok(())
    })
}
