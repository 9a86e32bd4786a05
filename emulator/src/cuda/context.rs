//! Initialisation, devices, primary contexts and the calling thread's
//! current context (cuda.md §1.3, [CUDA-GEN-001](vmmkit_sys::cuda::rules::GEN_001), [CUDA-GEN-002](vmmkit_sys::cuda::rules::GEN_002)).
//!
//! Checking order of every call after cuInit (cuda.md does not give it;
//! inferred from the codes each function documents and from Gdev, an open
//! re-implementation of libcuda): initialisation (3), then the current
//! context where the call needs one (201), then the arguments.
#![allow(non_snake_case)]

use std::cell::Cell;
use std::ffi::c_void;
use std::sync::atomic::Ordering;

use vmmkit_sys::cuda::rules;
use vmmkit_sys::cuda::*;

use super::call::{Fail, emu, ensure, run};
use super::profile::DRIVER_VERSION;
use super::state::{State, state};
use crate::ffi::Out;
use crate::registry::Place;

thread_local! {
    /// The device whose primary context is current on this thread (CUDA
    /// keeps the current context per thread; cuda.md §1.3 step 5). Kept
    /// apart from `core::thread`'s current device, which HIP and ACL set.
    static CURRENT: Cell<Option<u32>> = const { Cell::new(None) };
}

/// `CUcontext` values: a tag in the top bits and the device + 1 below, so
/// a value is never a canonical address (a program that dereferences one
/// faults) and is looked up, never dereferenced.
const CTX_TAG: usize = 0x00c0_da00_0000_0000;
const CTX_MASK: usize = 0xffff_ff00_0000_0000;

fn ctx_value(device: u32) -> CUcontext {
    (CTX_TAG | (device as usize + 1)) as CUcontext
}

/// The device of a context value of ours.
fn ctx_device(ctx: CUcontext) -> Option<u32> {
    let v = ctx as usize;
    (v & CTX_MASK == CTX_TAG && v & !CTX_MASK != 0).then(|| (v & !CTX_MASK) as u32 - 1)
}

/// cuInit has succeeded (the process's CUDA state), or the driver's code
/// for every call before it (3).
pub(super) fn initialised() -> Result<&'static State, Fail> {
    if let Some(s) = crate::core::running().map(state)
        && s.initialised.load(Ordering::Acquire)
    {
        return Ok(s);
    }
    Err(Fail::plain(CuResult::NOT_INITIALIZED, "cuInit(0) has not succeeded in this process".into()))
}

/// The device of the calling thread's current context: cuInit first (3),
/// then [CUDA-GEN-002](vmmkit_sys::cuda::rules::GEN_002), memory, VMM and IPC calls need a current context, and
/// an active one (201).
pub(super) fn current() -> Result<u32, Fail> {
    let s = initialised()?;
    let d = CURRENT.with(Cell::get);
    ensure!(
        d.is_some(),
        rules::GEN_002,
        "no current context on this thread: cuDevicePrimaryCtxRetain, then cuCtxSetCurrent"
    );
    let d = d.unwrap_or(0);
    // Emulator choice: a current primary context released to zero (reset) is no context.
    ensure!(
        s.retains(d) > 0,
        rules::GEN_002,
        "the current context, device {d}'s primary context, is not retained (released to zero, so reset)"
    );
    Ok(d)
}

/// The device `ordinal`, or 101.
fn device(ordinal: CUdevice) -> Result<u32, Fail> {
    let e = emu()?;
    if !e.is_device(i64::from(ordinal)) {
        return Err(Fail::plain(
            CuResult::INVALID_DEVICE,
            format!("device {ordinal} is not in [0, {})", e.device_count()),
        ));
    }
    Ok(ordinal as u32)
}

/// `CUresult cuInit(unsigned int Flags)`: [CUDA-GEN-001](vmmkit_sys::cuda::rules::GEN_001) (flags must be 0);
/// no driver (the emulator cannot start) → 100 with the reason (cuda.md §1.1).
pub extern "C" fn cuInit(Flags: u32) -> CUresult {
    run("cuInit", || {
        ensure!(Flags == 0, rules::GEN_001, "Flags must be 0, got {Flags}");
        let e = crate::core::emulator().map_err(|e| Fail::plain(CuResult::NO_DEVICE, e.to_string()))?;
        // CUDA-GEN-004: CUDA_VISIBLE_DEVICES may leave no device.
        let seen = e.see_as(crate::visible::MaskVendor::Cuda);
        ensure!(seen.count() > 0, rules::GEN_004, "no device is visible: {}", seen.describe());
        state(e).initialised.store(true, Ordering::Release);
        Ok(())
    })
}

/// `CUresult cuDriverGetVersion(int *driverVersion)`: 12060; needs no cuInit.
pub extern "C" fn cuDriverGetVersion(driverVersion: Out<'_, i32>) -> CUresult {
    run("cuDriverGetVersion", || {
        if driverVersion.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "driverVersion is NULL".into()));
        }
        driverVersion.write(DRIVER_VERSION)?;
        Ok(())
    })
}

/// `CUresult cuDeviceGetCount(int *count)`.
pub extern "C" fn cuDeviceGetCount(count: Out<'_, i32>) -> CUresult {
    run("cuDeviceGetCount", || {
        initialised()?;
        if count.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "count is NULL".into()));
        }
        let n = emu()?.device_count();
        count.write(n as i32)?;
        Ok(())
    })
}

/// `CUresult cuDeviceGet(CUdevice *device, int ordinal)`: NULL → 1; bad ordinal → 101.
pub extern "C" fn cuDeviceGet(device_: Out<'_, CUdevice>, ordinal: i32) -> CUresult {
    run("cuDeviceGet", || {
        initialised()?;
        if device_.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "device is NULL".into()));
        }
        let d = device(ordinal)?;
        device_.write(d as CUdevice)?;
        Ok(())
    })
}

/// `CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)`:
/// the capabilities of cuda.md §1.3 step 4 (VMM, POSIX fds, compute mode
/// DEFAULT, unified addressing, IPC events: yes; fabric handles: no); any
/// other attribute → 1 (not emulated).
pub extern "C" fn cuDeviceGetAttribute(pi: Out<'_, i32>, attrib: CUdevice_attribute, dev: CUdevice) -> CUresult {
    run("cuDeviceGetAttribute", || {
        initialised()?;
        if pi.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "pi is NULL".into()));
        }
        device(dev)?;
        let v = match attrib {
            CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED => 1,
            CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED => 1,
            CU_DEVICE_ATTRIBUTE_COMPUTE_MODE => 0, // CU_COMPUTEMODE_DEFAULT
            CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING => 1,
            CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED => 1,
            CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED => 0, // no IMEX channel (CUDA-VMM-004)
            CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED => 1,
            CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES => CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR as i32,
            _ => {
                return Err(Fail::plain(
                    CuResult::INVALID_VALUE,
                    format!("attribute {attrib} is not emulated (20, 41, 102, 103, 115, 119, 125 and 128 are)"),
                ));
            }
        };
        pi.write(v)?;
        Ok(())
    })
}

/// `CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)`: one
/// more reference to the device's primary context. Does not make it current.
pub extern "C" fn cuDevicePrimaryCtxRetain(pctx: Out<'_, CUcontext>, dev: CUdevice) -> CUresult {
    run("cuDevicePrimaryCtxRetain", || {
        initialised()?;
        if pctx.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "pctx is NULL".into()));
        }
        let d = device(dev)?;
        state(emu()?).retain(d);
        pctx.write(ctx_value(d))?;
        Ok(())
    })
}

/// `CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)`: one reference
/// less; "releasing a primary context that has not been previously retained
/// will fail with CUDA_ERROR_INVALID_CONTEXT", and "the context is
/// automatically reset once the last reference to it is released" (CUDA
/// docs): everything of this process on the device goes.
pub extern "C" fn cuDevicePrimaryCtxRelease(dev: CUdevice) -> CUresult {
    run("cuDevicePrimaryCtxRelease", || {
        initialised()?;
        let d = device(dev)?;
        let Some(last) = state(emu()?).release(d) else {
            return Err(Fail::plain(CuResult::INVALID_CONTEXT, format!("device {d}'s primary context is not retained")));
        };
        if last {
            let e = emu()?;
            e.close_all_opened(Place::Device(d));
            e.reset_device(d);
        }
        Ok(())
    })
}

/// `CUresult cuCtxSetCurrent(CUcontext ctx)`: binds `ctx` to the calling
/// thread; NULL unbinds. A value that is no context of ours → 201.
pub extern "C" fn cuCtxSetCurrent(ctx: CUcontext) -> CUresult {
    run("cuCtxSetCurrent", || {
        initialised()?;
        if ctx.is_null() {
            CURRENT.with(|c| c.set(None));
            return Ok(());
        }
        let d = ctx_device(ctx)
            .filter(|&d| emu().is_ok_and(|e| e.is_device(i64::from(d))))
            .ok_or_else(|| Fail::plain(CuResult::INVALID_CONTEXT, format!("{ctx:p} is not a context")))?;
        CURRENT.with(|c| c.set(Some(d)));
        Ok(())
    })
}

/// `CUresult cuCtxGetCurrent(CUcontext *pctx)`: the thread's context, or NULL.
pub extern "C" fn cuCtxGetCurrent(pctx: Out<'_, CUcontext>) -> CUresult {
    run("cuCtxGetCurrent", || {
        initialised()?;
        if pctx.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "pctx is NULL".into()));
        }
        let v = CURRENT.with(Cell::get).map_or(std::ptr::null_mut::<c_void>(), ctx_value);
        pctx.write(v)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_values_round_trip_and_are_not_addresses() {
        let c = ctx_value(3);
        assert_eq!(ctx_device(c), Some(3));
        assert!(c as usize > 0x0000_7fff_ffff_ffff, "non-canonical");
        assert_eq!(ctx_device(std::ptr::null_mut()), None);
        assert_eq!(ctx_device(CTX_TAG as CUcontext), None);
        assert_eq!(ctx_device(0x7fff_0000_1000 as CUcontext), None);
    }
}
