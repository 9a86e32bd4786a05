//! cuMemAlloc memory, copies, fills and address ranges (cuda.md §2.1; the
//! `_v2` entry points).
#![allow(non_snake_case)]

use std::ffi::c_void;

use vmmkit_sys::cuda::*;

use super::call::{Fail, emu, run};
use super::codes::Op;
use super::context::current;
use super::pointer::{Use, check_device_range, extent};
use super::profile::{ALLOC_GRANULE, KIND_ALLOC, WINDOW};
use crate::ffi::Out;
use crate::core::{Extent, ExtentKind, new_generation};
use crate::registry::Place;

/// `CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)`: on the
/// current context's device. NULL → 1; "if bytesize is 0, cuMemAlloc()
/// returns CUDA_ERROR_INVALID_VALUE" (CUDA docs); too big → 2.
pub extern "C" fn cuMemAlloc(dptr: Out<'_, CUdeviceptr>, bytesize: usize) -> CUresult {
    run("cuMemAlloc", || {
        let d = current()?;
        if dptr.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "dptr is NULL".into()));
        }
        if bytesize == 0 {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "bytesize is 0".into()));
        }
        let e = emu()?;
        let rounded = (bytesize as u64)
            .checked_next_multiple_of(ALLOC_GRANULE)
            .ok_or_else(|| Fail::plain(CuResult::OUT_OF_MEMORY, format!("{bytesize} bytes cannot be allocated")))?;
        let props = [KIND_ALLOC, ALLOC_GRANULE, bytesize as u64, new_generation()];
        let va = e
            .alloc_plain(Place::Device(d), rounded, ALLOC_GRANULE, props, &WINDOW)
            .map_err(|e| Fail::core(Op::Alloc, e))?;
        dptr.write(va as CUdeviceptr)?;
        Ok(())
    })
}

/// `CUresult cuMemFree_v2(CUdeviceptr dptr)`: `dptr` must be what cuMemAlloc
/// returned (emulator: an interior pointer, 0, or an IPC-opened pointer → 1;
/// the latter is closed with cuIpcCloseMemHandle). Memory that another
/// process has open stays theirs; new opens of it fail ([CUDA-IPC-010](vmmkit_sys::cuda::rules::IPC_010),
/// emulator as [HIP-IPC-046](vmmkit_sys::hip::rules::IPC_046)).
pub extern "C" fn cuMemFree(dptr: CUdeviceptr) -> CUresult {
    run("cuMemFree", || {
        current()?;
        let e = emu()?;
        let p = dptr as usize;
        // Pool memory goes back to its pool; an imported pool pointer is closed (cuMemFree takes both).
        if let Some(r) = e.pool_free(p) {
            return r.map(drop).map_err(|e| Fail::core(Op::Free, e));
        }
        match extent(e, p) {
            Some(Extent { kind: ExtentKind::Plain(handle), base, device, .. }) if base == p => {
                // The driver "may perform implicit synchronization" for
                // memory not from the stream-ordered allocator: vmmkit
                // waits for the device's streams, as HIP does (CUDA-STM-013).
                let d = match device {
                    Some(Place::Device(d)) => Some(d),
                    _ => None,
                };
                let _ = e.device_synchronize(d, None);
                e.withdraw(handle).map_err(|e| Fail::core(Op::Free, e))?;
                e.free_plain(p).map_err(|e| Fail::core(Op::Free, e))
            }
            Some(x) if x.kind == ExtentKind::Opened => Err(Fail::plain(
                CuResult::INVALID_VALUE,
                format!("{p:#x} was opened by cuIpcOpenMemHandle; close it with cuIpcCloseMemHandle"),
            )),
            Some(x) if matches!(x.kind, ExtentKind::Plain(_)) => Err(Fail::plain(
                CuResult::INVALID_VALUE,
                format!(
                    "{p:#x} is inside the allocation at {:#x}; cuMemFree takes the pointer cuMemAlloc returned",
                    x.base
                ),
            )),
            _ => Err(Fail::plain(CuResult::INVALID_VALUE, format!("{p:#x} is not memory from cuMemAlloc"))),
        }
    })
}

/// The device of the current context, after the range checks of a copy of
/// `n` bytes; `None` when there is nothing to copy (0 bytes → 0).
pub(super) fn check_copy(dst: usize, src: usize, n: usize, device_dst: bool, device_src: bool) -> Result<Option<u32>, Fail> {
    let d = current()?;
    if n == 0 {
        return Ok(None);
    }
    if dst == 0 || src == 0 {
        return Err(Fail::plain(CuResult::INVALID_VALUE, "a NULL source or destination".into()));
    }
    let e = emu()?;
    if device_dst {
        check_device_range(e, dst, n, d, Use::Write, "dstDevice")?;
    }
    if device_src {
        check_device_range(e, src, n, d, Use::Read, "srcDevice")?;
    }
    Ok(Some(d))
}

/// Orders a synchronous copy or memset on device `d` as the driver does:
/// after the work of the legacy stream and of the device's blocking streams.
/// [CUDA-STM-012](vmmkit_sys::cuda::rules::STM_012).
pub(super) fn after_legacy(e: &crate::core::Emulator, d: u32) -> Result<(), Fail> {
    if !crate::mutation::enforced(&rules::STM_012) {
        return Ok(());
    }
    e.legacy_fence(d, None).map_err(|er| Fail::plain(CuResult::UNKNOWN, er.to_string()))
}

/// A copy of `n` bytes, after the range checks of both sides.
fn copy(dst: usize, src: usize, n: usize, device_dst: bool, device_src: bool) -> Result<(), Fail> {
    let Some(d) = check_copy(dst, src, n, device_dst, device_src)? else { return Ok(()) };
    let e = emu()?;
    after_legacy(e, d)?;
    // SAFETY: device sides were checked above; host sides are the caller's
    // buffers of `n` bytes (the C contract of the cuMemcpy functions).
    unsafe { e.copy(dst, src, n) }.map_err(|e| Fail::core(Op::Copy, e))
}

/// `CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)`:
/// 0 bytes → 0; the destination must be device memory the current device
/// may write ([CUDA-VMM-012](vmmkit_sys::cuda::rules::VMM_012)).
pub extern "C" fn cuMemcpyHtoD(dstDevice: CUdeviceptr, srcHost: *const c_void, ByteCount: usize) -> CUresult {
    run("cuMemcpyHtoD", || copy(dstDevice as usize, srcHost as usize, ByteCount, true, false))
}

/// `CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)`:
/// the source must be device memory the current device may read.
pub extern "C" fn cuMemcpyDtoH(dstHost: *mut c_void, srcDevice: CUdeviceptr, ByteCount: usize) -> CUresult {
    run("cuMemcpyDtoH", || copy(dstHost as usize, srcDevice as usize, ByteCount, false, true))
}

/// `CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)`.
pub extern "C" fn cuMemcpyDtoD(dstDevice: CUdeviceptr, srcDevice: CUdeviceptr, ByteCount: usize) -> CUresult {
    run("cuMemcpyDtoD", || copy(dstDevice as usize, srcDevice as usize, ByteCount, true, true))
}

/// `CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)`:
/// 0 bytes → 0; the range must be device memory the current device may write.
pub extern "C" fn cuMemsetD8(dstDevice: CUdeviceptr, uc: u8, N: usize) -> CUresult {
    run("cuMemsetD8", || {
        let d = current()?;
        if N == 0 {
            return Ok(());
        }
        let e = emu()?;
        let p = dstDevice as usize;
        check_device_range(e, p, N, d, Use::Write, "dstDevice")?;
        after_legacy(e, d)?;
        // SAFETY: the range is device memory of this process, checked above.
        unsafe { e.fill(p, uc, N) }.map_err(|e| Fail::core(Op::Copy, e))
    })
}

/// `CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)`:
/// the allocation (or mapping) that holds `dptr`, with the size asked of
/// cuMemAlloc; "both parameters pbase and psize are optional; if one of them
/// is NULL, it is ignored" (CUDA docs). Not device memory → 500.
pub extern "C" fn cuMemGetAddressRange(
    pbase: Out<'_, CUdeviceptr>,
    psize: Out<'_, usize>,
    dptr: CUdeviceptr,
) -> CUresult {
    run("cuMemGetAddressRange", || {
        current()?;
        let x = extent(emu()?, dptr as usize)
            .filter(|x| x.kind != ExtentKind::Host)
            .ok_or_else(|| Fail::plain(CuResult::NOT_FOUND, format!("{dptr:#x} is not device memory")))?;
        pbase.write_if_given(x.base as CUdeviceptr);
        psize.write_if_given(x.len);
        Ok(())
    })
}
