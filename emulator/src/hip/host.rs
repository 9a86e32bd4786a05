//! The allocation variants (hipExtMallocWithFlags, hipMallocHost,
//! hipHostAlloc …), host registration, and the size queries
//! (clr hipamd/src/hip_memory.cpp; docs/hip.md "Memory management").
#![allow(non_snake_case)]

use std::ffi::c_void;

use vmmkit_sys::hip::*;

use super::call::{Fail, current_device, emu, ensure, run};
use super::memory::{On, host_free, host_malloc, malloc, memcpy, stream_of};
use super::pointer::{Kind, extent};
use super::ranges::HostRange;
use super::state::state;
use crate::ffi::Out;
use crate::core::{Emulator, Side};

/// `hipError_t hipExtMallocWithFlags(void **ptr, size_t sizeBytes, unsigned int flags)`:
/// hipMalloc memory, exportable by hipIpcGetMemHandle as RCCL, rocSHMEM and
/// DeepEP use it. `flags` is one of Default, Finegrained, Uncached,
/// Contiguous, SignalMemory (8 bytes only), else 1 (clr hip_memory.cpp:686-705).
/// The flags are kept (hipPointerGetAttributes' allocationFlags).
pub extern "C" fn hipExtMallocWithFlags(ptr: Out<'_, *mut c_void>, sizeBytes: usize, flags: u32) -> hipError_t {
    run("hipExtMallocWithFlags", || {
        if flags > hipDeviceMallocContiguous {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("flags {flags:#x} is not a hipDeviceMalloc* value")));
        }
        if flags == hipMallocSignalMemory && sizeBytes != 8 {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("signal memory is 8 bytes, not {sizeBytes}")));
        }
        malloc(ptr, sizeBytes)?;
        let p = ptr.read()? as usize;
        if p != 0 {
            state(emu()?).mem.note_flags(p, flags);
        }
        Ok(())
    })
}

/// `hipError_t hipMallocHost(void **ptr, size_t size)` (deprecated): a pinned host buffer, flags 0.
pub extern "C" fn hipMallocHost(ptr: Out<'_, *mut c_void>, size: usize) -> hipError_t {
    run("hipMallocHost", || host_malloc(ptr, size, hipHostMallocDefault))
}

/// `hipError_t hipMemAllocHost(void **ptr, size_t size)` (deprecated): hipHostMalloc with flags 0.
pub extern "C" fn hipMemAllocHost(ptr: Out<'_, *mut c_void>, size: usize) -> hipError_t {
    run("hipMemAllocHost", || host_malloc(ptr, size, hipHostMallocDefault))
}

/// `hipError_t hipHostAlloc(void **ptr, size_t size, unsigned int flags)`: as
/// hipHostMalloc, but flags beyond Portable|Mapped|WriteCombined → 1
/// (clr hip_memory.cpp:1382-1393).
pub extern "C" fn hipHostAlloc(ptr: Out<'_, *mut c_void>, size: usize, flags: u32) -> hipError_t {
    run("hipHostAlloc", || {
        if ptr.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "ptr is NULL".into()));
        }
        let known = hipHostMallocPortable | hipHostMallocMapped | hipHostMallocWriteCombined;
        if flags > known {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("flags {flags:#x} exceed {known:#x}")));
        }
        host_malloc(ptr, size, flags)
    })
}

/// `hipError_t hipFreeHost(void *ptr)` (deprecated): as hipHostFree.
pub extern "C" fn hipFreeHost(ptr: *mut c_void) -> hipError_t {
    run("hipFreeHost", || if ptr.is_null() { Ok(()) } else { host_free(emu()?, ptr as usize) })
}

/// `hipError_t hipHostRegister(void *hostPtr, size_t sizeBytes, unsigned int flags)`:
/// NULL, size 0 or flags beyond the four of 6.x (clr hip_memory.cpp:1305:
/// `flags > 15`) and 7.x's hipExtHostRegisterUncached → 1; device memory →
/// 1; host memory HIP already knows (registered, hipHostMalloc, managed) →
/// 712 ([HIP-MEM-001](vmmkit_sys::hip::rules::MEM_001)); a range that is not mapped host memory → 1. The range
/// stays the program's; HIP knows it until hipHostUnregister.
pub extern "C" fn hipHostRegister(hostPtr: *mut c_void, sizeBytes: usize, flags: u32) -> hipError_t {
    run("hipHostRegister", || {
        let known = hipHostRegisterPortable
            | hipHostRegisterMapped
            | hipHostRegisterIoMemory
            | hipHostRegisterReadOnly
            | hipExtHostRegisterUncached;
        if hostPtr.is_null() || sizeBytes == 0 || flags & !known != 0 {
            return Err(Fail::plain(
                HipError::INVALID_VALUE,
                format!("hostPtr {hostPtr:p}, sizeBytes {sizeBytes}, flags {flags:#x}: NULL, 0 or flags beyond {known:#x}"),
            ));
        }
        let e = emu()?;
        let p = hostPtr as usize;
        // HIP memory first (712), then whether the program's range is host
        // memory at all: not the device window or a reservation, and mapped.
        let x = extent(e, p);
        if let Some(x) = x.filter(|x| matches!(x.kind, Kind::Malloc(_) | Kind::Opened | Kind::Vmm)) {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("{p:#x} is device memory ({:?})", x.kind)));
        }
        let mem = &state(e).mem;
        let taken = mem.overlaps(p, sizeBytes) || e.host_overlaps(p, sizeBytes) || x.is_some();
        ensure!(!taken, rules::MEM_001, "{p:#x}+{sizeBytes:#x} overlaps memory HIP already knows (registered or allocated)");
        if e.side(p) != Side::Host || e.check_copy_range(p, sizeBytes).is_err() || !e.is_host_mapped(p, sizeBytes) {
            return Err(Fail::plain(
                HipError::INVALID_VALUE,
                format!("{p:#x}+{sizeBytes:#x} is not mapped host memory of this process ({})", e.side(p)),
            ));
        }
        let range = HostRange { len: sizeBytes, flags, device: current_device(), managed: None };
        ensure!(mem.insert_new(p, range), rules::MEM_001, "{p:#x}+{sizeBytes:#x} was registered meanwhile");
        mem.note_flags(p, flags);
        Ok(())
    })
}

/// `hipError_t hipHostUnregister(void *hostPtr)`: NULL → 1; not the start of
/// a registered range → 713 (clr hip_memory.cpp:1372, [HIP-MEM-002](vmmkit_sys::hip::rules::MEM_002)). Waits for
/// the device's streams first, as clr does.
pub extern "C" fn hipHostUnregister(hostPtr: *mut c_void) -> hipError_t {
    run("hipHostUnregister", || {
        if hostPtr.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "hostPtr is NULL".into()));
        }
        let e = emu()?;
        let p = hostPtr as usize;
        let registered = state(e).mem.range_at(p).filter(|(b, r)| *b == p && r.managed.is_none());
        ensure!(registered.is_some(), rules::MEM_002, "{p:#x} is not the start of a range registered by hipHostRegister");
        if let Some((_, r)) = registered {
            e.device_synchronize(Some(r.device), None).map_err(super::stream::work_failed)?;
            // SyncAllStreams ends with ReleaseFreedMemory (HIP-POOL-021).
            super::pool::release_freed(e, Some(r.device));
        }
        state(e).mem.remove(p);
        Ok(())
    })
}

/// `hipError_t hipHostGetDevicePointer(void **devPtr, void *hstPtr, unsigned int flags)`:
/// devPtr NULL or flags ≠ 0 → 1; memory HIP does not know → 1 (clr
/// hip_memory.cpp:3748-3757). The device address of host memory is its host
/// address in vmmkit (one address space, as SVM gives on AMD).
pub extern "C" fn hipHostGetDevicePointer(devPtr: Out<'_, *mut c_void>, hstPtr: *mut c_void, flags: u32) -> hipError_t {
    run("hipHostGetDevicePointer", || {
        if devPtr.is_null() || flags != 0 {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("devPtr is NULL or flags {flags} is not 0")));
        }
        if extent(emu()?, hstPtr as usize).is_none() {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("{hstPtr:p} is not memory HIP knows")));
        }
        devPtr.write(hstPtr)?;
        Ok(())
    })
}

/// `hipError_t hipHostGetFlags(unsigned int *flagsPtr, void *hostPtr)`: the
/// flags of a hipHostMalloc buffer or registered range (managed memory, which
/// clr also makes fine-grained, has none: 0); NULL, unknown or device memory
/// → 1 (clr hip_memory.cpp:1278-1300).
pub extern "C" fn hipHostGetFlags(flagsPtr: Out<'_, u32>, hostPtr: *mut c_void) -> hipError_t {
    run("hipHostGetFlags", || {
        if flagsPtr.is_null() || hostPtr.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "flagsPtr or hostPtr is NULL".into()));
        }
        let e = emu()?;
        let x = extent(e, hostPtr as usize)
            .filter(|x| matches!(x.kind, Kind::Host | Kind::Registered | Kind::Managed))
            .ok_or_else(|| Fail::plain(HipError::INVALID_VALUE, format!("{hostPtr:p} is not host memory of HIP's")))?;
        flagsPtr.write(state(e).mem.flags(x.base))?;
        Ok(())
    })
}

/// `hipError_t hipMemGetInfo(size_t *free, size_t *total)`: the current
/// device's free and total bytes (shared by every process of the root);
/// both NULL → 0 (clr hip_memory.cpp:870-895).
pub extern "C" fn hipMemGetInfo(free: Out<'_, usize>, total: Out<'_, usize>) -> hipError_t {
    run("hipMemGetInfo", || {
        if free.is_null() && total.is_null() {
            return Ok(());
        }
        let (f, t) = emu()?.mem_info(current_device());
        free.write_if_given(f as usize);
        total.write_if_given(t as usize);
        Ok(())
    })
}

/// `hipError_t hipMemPtrGetInfo(void *ptr, size_t *size)`: the size of the
/// allocation holding `ptr`; unknown → 1 (clr hip_memory.cpp:793-806). clr
/// does not check `size`; the emulator answers NULL with 1.
pub extern "C" fn hipMemPtrGetInfo(ptr: *mut c_void, size: Out<'_, usize>) -> hipError_t {
    run("hipMemPtrGetInfo", || {
        let x = extent(emu()?, ptr as usize)
            .ok_or_else(|| Fail::plain(HipError::INVALID_VALUE, format!("{ptr:p} is not memory HIP knows")))?;
        if size.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "size is NULL".into()));
        }
        size.write(x.size)?;
        Ok(())
    })
}

/// `hipError_t hipMemcpyWithStream(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind, hipStream_t stream)`:
/// a dead stream → 709 (clr hip_memory.cpp:781); then hipMemcpyAsync on the
/// stream, waited for before returning.
pub extern "C" fn hipMemcpyWithStream(
    dst: *mut c_void,
    src: *const c_void,
    sizeBytes: usize,
    kind: hipMemcpyKind,
    stream: hipStream_t,
) -> hipError_t {
    run("hipMemcpyWithStream", || {
        let e = emu()?;
        let Some(id) = stream_of(e, stream)? else { return Ok(()) };
        memcpy(dst, src, sizeBytes, kind, On::Stream(stream))?;
        sync(e, id)
    })
}

/// Waits for stream `id` (the synchronous calls that run on a stream).
pub(super) fn sync(e: &Emulator, id: crate::core::StreamId) -> Result<(), Fail> {
    e.stream_synchronize(id, None).map_err(super::stream::work_failed)
}
