//! Context Management (deprecated) (clr 6.3 `hipamd/src/hip_context.cpp`,
//! `hip_peer.cpp`): in clr a `hipCtx_t` is the device's `hip::Device`, so a
//! context is a device. Here it is a tagged value naming the ordinal, looked
//! up, never dereferenced; each thread has its context stack, as clr's
//! `tls.ctxt_stack_`. clr leaves six functions unimplemented (GetApiVersion,
//! GetCacheConfig, SetCacheConfig (no check of its value first),
//! SetSharedMemConfig, Synchronize, GetFlags): they answer 801 here too.
//! [HIP-INIT-005](vmmkit_sys::hip::rules::INIT_005) holds the codes of the stack and of the primary context.
#![allow(non_snake_case)]

use std::cell::RefCell;

use vmmkit_sys::hip::rules;
use vmmkit_sys::hip::*;

use super::call::{Fail, current_device, emu, ensure, run};
use super::device::{DEVICE_DEFAULTS, clr_unimplemented, device, out};
use super::state::state;
use crate::ffi::Out;
use crate::core::{HandleId, HandleTag, thread};

const TAG: HandleTag = HandleTag::new(0x6863);

thread_local! {
    /// The calling thread's context stack (device ordinals), top last.
    static STACK: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

fn to_ctx(d: u32) -> hipCtx_t {
    TAG.value(HandleId(u64::from(d))) as hipCtx_t
}

/// The device a context value names; anything else → 201.
fn from_ctx(ctx: hipCtx_t) -> Result<u32, Fail> {
    let e = emu()?;
    TAG.id(ctx as usize)
        .map(|h| h.0)
        .filter(|&d| e.is_device(d as i64))
        .map(|d| d as u32)
        .ok_or_else(|| Fail::plain(HipError::INVALID_CONTEXT, format!("{ctx:p} is not a context")))
}

fn with_stack<R>(f: impl FnOnce(&mut Vec<u32>) -> R) -> R {
    STACK.with(|s| f(&mut s.borrow_mut()))
}

/// Marks device `d`'s primary context active (clr `SetActiveStatus`).
fn activate(d: u32) -> Result<(), Fail> {
    state(emu()?).set_device(d, DEVICE_DEFAULTS, |s| s.active = true);
    Ok(())
}

/// `hipError_t hipCtxCreate(hipCtx_t *ctx, unsigned int flags, hipDevice_t device)`:
/// a device out of range → 1 (clr's code here), NULL → 1; the device's
/// context, pushed on the thread's stack, with the device's flags set to
/// `flags`. The thread's current device does not change (clr).
pub extern "C" fn hipCtxCreate(ctx: Out<'_, hipCtx_t>, flags: u32, device_: hipDevice_t) -> hipError_t {
    run("hipCtxCreate", || {
        let e = emu()?;
        let known = e.is_device(i64::from(device_));
        ensure!(
            known,
            rules::INIT_005 => HipError::INVALID_VALUE,
            "device {device_} is not in [0, {})",
            e.device_count()
        );
        if !known {
            return Ok(());
        }
        let d = device_ as u32;
        out(ctx, "ctx", to_ctx(d))?;
        state(e).set_device(d, DEVICE_DEFAULTS, |s| {
            s.flags = flags;
            s.active = true;
        });
        with_stack(|s| s.push(d));
        Ok(())
    })
}

/// `hipError_t hipCtxDestroy(hipCtx_t ctx)`: NULL → 1; pops it when it is the
/// top of the thread's stack. A device context outlives it (clr only drops a reference).
pub extern "C" fn hipCtxDestroy(ctx: hipCtx_t) -> hipError_t {
    run("hipCtxDestroy", || {
        if ctx.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "ctx is NULL".into()));
        }
        let d = from_ctx(ctx)?;
        with_stack(|s| {
            if s.last() == Some(&d) {
                s.pop();
            }
        });
        Ok(())
    })
}

/// `hipError_t hipCtxPushCurrent(hipCtx_t ctx)`: NULL or not a context → 201;
/// makes its device current and pushes it.
pub extern "C" fn hipCtxPushCurrent(ctx: hipCtx_t) -> hipError_t {
    run("hipCtxPushCurrent", || {
        ensure!(!ctx.is_null(), rules::INIT_005, "ctx is NULL");
        if ctx.is_null() {
            return Ok(());
        }
        let d = from_ctx(ctx)?;
        thread::set_current_device(Some(d));
        with_stack(|s| s.push(d));
        Ok(())
    })
}

/// `hipError_t hipCtxPopCurrent(hipCtx_t *ctx)`: an empty stack → 201;
/// writes the top (when `ctx` is not NULL) and pops it; the current device
/// does not change (clr).
pub extern "C" fn hipCtxPopCurrent(ctx: Out<'_, hipCtx_t>) -> hipError_t {
    run("hipCtxPopCurrent", || {
        emu()?;
        let top = with_stack(Vec::pop);
        ensure!(top.is_some(), rules::INIT_005, "the thread's context stack is empty");
        let Some(d) = top else { return Ok(()) };
        if !ctx.is_null() {
            ctx.write(to_ctx(d))?;
        }
        Ok(())
    })
}

/// `hipError_t hipCtxSetCurrent(hipCtx_t ctx)`: NULL pops the top; a context
/// makes its device current and replaces the top; anything else → 201.
pub extern "C" fn hipCtxSetCurrent(ctx: hipCtx_t) -> hipError_t {
    run("hipCtxSetCurrent", || {
        emu()?;
        if ctx.is_null() {
            with_stack(Vec::pop);
            return Ok(());
        }
        let d = from_ctx(ctx)?;
        thread::set_current_device(Some(d));
        with_stack(|s| {
            s.pop();
            s.push(d);
        });
        Ok(())
    })
}

/// `hipError_t hipCtxGetCurrent(hipCtx_t *ctx)`: NULL → 1; the current device's context.
pub extern "C" fn hipCtxGetCurrent(ctx: Out<'_, hipCtx_t>) -> hipError_t {
    run("hipCtxGetCurrent", || emu().and_then(|_| out(ctx, "ctx", to_ctx(current_device()))))
}

/// `hipError_t hipCtxGetDevice(hipDevice_t *device)`: NULL → 1; the current device.
pub extern "C" fn hipCtxGetDevice(device_: Out<'_, hipDevice_t>) -> hipError_t {
    run("hipCtxGetDevice", || emu().and_then(|_| out(device_, "device", current_device() as i32)))
}

/// `hipError_t hipCtxGetSharedMemConfig(hipSharedMemConfig *pConfig)`: NULL → 1; four-byte banks.
pub extern "C" fn hipCtxGetSharedMemConfig(pConfig: Out<'_, hipSharedMemConfig>) -> hipError_t {
    run("hipCtxGetSharedMemConfig", || emu().and_then(|_| out(pConfig, "pConfig", hipSharedMemBankSizeFourByte)))
}

/// `hipError_t hipCtxGetApiVersion(hipCtx_t ctx, unsigned int *apiVersion)`: 801 (clr).
pub extern "C" fn hipCtxGetApiVersion(_ctx: hipCtx_t, _apiVersion: *mut u32) -> hipError_t {
    run("hipCtxGetApiVersion", || emu().and_then(|_| Err(clr_unimplemented())))
}

/// `hipError_t hipCtxGetCacheConfig(hipFuncCache_t *cacheConfig)`: 801 (clr).
pub extern "C" fn hipCtxGetCacheConfig(_cacheConfig: *mut hipFuncCache_t) -> hipError_t {
    run("hipCtxGetCacheConfig", || emu().and_then(|_| Err(clr_unimplemented())))
}

/// `hipError_t hipCtxSetCacheConfig(hipFuncCache_t cacheConfig)`: 801 for
/// any value (clr hip_context.cpp:309-315 checks nothing first).
pub extern "C" fn hipCtxSetCacheConfig(_cacheConfig: hipFuncCache_t) -> hipError_t {
    run("hipCtxSetCacheConfig", || emu().and_then(|_| Err(clr_unimplemented())))
}

/// `hipError_t hipCtxSetSharedMemConfig(hipSharedMemConfig config)`: 801 (clr).
pub extern "C" fn hipCtxSetSharedMemConfig(_config: hipSharedMemConfig) -> hipError_t {
    run("hipCtxSetSharedMemConfig", || emu().and_then(|_| Err(clr_unimplemented())))
}

/// `hipError_t hipCtxSynchronize(void)`: 801 (clr).
pub extern "C" fn hipCtxSynchronize() -> hipError_t {
    run("hipCtxSynchronize", || emu().and_then(|_| Err(clr_unimplemented())))
}

/// `hipError_t hipCtxGetFlags(unsigned int *flags)`: 801 (clr).
pub extern "C" fn hipCtxGetFlags(_flags: *mut u32) -> hipError_t {
    run("hipCtxGetFlags", || emu().and_then(|_| Err(clr_unimplemented())))
}

/// `hipError_t hipCtxEnablePeerAccess(hipCtx_t peerCtx, unsigned int flags)`: 0, whatever it is given (clr).
pub extern "C" fn hipCtxEnablePeerAccess(_peerCtx: hipCtx_t, _flags: u32) -> hipError_t {
    run("hipCtxEnablePeerAccess", || emu().map(drop))
}

/// `hipError_t hipCtxDisablePeerAccess(hipCtx_t peerCtx)`: 0, whatever it is given (clr).
pub extern "C" fn hipCtxDisablePeerAccess(_peerCtx: hipCtx_t) -> hipError_t {
    run("hipCtxDisablePeerAccess", || emu().map(drop))
}

/// `hipError_t hipDevicePrimaryCtxGetState(hipDevice_t dev, unsigned int *flags, int *active)`:
/// bad device → 101; `flags` 0, `active` 1 once retained or made (either may be NULL).
pub extern "C" fn hipDevicePrimaryCtxGetState(dev: hipDevice_t, flags: Out<'_, u32>, active: Out<'_, i32>) -> hipError_t {
    run("hipDevicePrimaryCtxGetState", || {
        let d = device(dev)?;
        let on = state(emu()?).device(d, DEVICE_DEFAULTS).active;
        flags.write_if_given(0);
        active.write_if_given(i32::from(on));
        Ok(())
    })
}

/// `hipError_t hipDevicePrimaryCtxRelease(hipDevice_t dev)`: bad device → 101; else 0 (clr keeps it).
pub extern "C" fn hipDevicePrimaryCtxRelease(dev: hipDevice_t) -> hipError_t {
    run("hipDevicePrimaryCtxRelease", || device(dev).map(drop))
}

/// `hipError_t hipDevicePrimaryCtxRetain(hipCtx_t *pctx, hipDevice_t dev)`:
/// bad device → 101, NULL → 1; the device's context.
pub extern "C" fn hipDevicePrimaryCtxRetain(pctx: Out<'_, hipCtx_t>, dev: hipDevice_t) -> hipError_t {
    run("hipDevicePrimaryCtxRetain", || {
        let d = device(dev)?;
        out(pctx, "pctx", to_ctx(d))?;
        activate(d)
    })
}

/// `hipError_t hipDevicePrimaryCtxReset(hipDevice_t dev)`: 0 (clr does nothing, not even check `dev`).
pub extern "C" fn hipDevicePrimaryCtxReset(_dev: hipDevice_t) -> hipError_t {
    run("hipDevicePrimaryCtxReset", || emu().map(drop))
}

/// `hipError_t hipDevicePrimaryCtxSetFlags(hipDevice_t dev, unsigned int flags)`:
/// bad device → 101; else 216 (hipErrorContextAlreadyInUse: the primary context always is, in clr).
pub extern "C" fn hipDevicePrimaryCtxSetFlags(dev: hipDevice_t, flags: u32) -> hipError_t {
    run("hipDevicePrimaryCtxSetFlags", || {
        let d = device(dev)?;
        ensure!(
            false,
            rules::INIT_005 => HipError::CONTEXT_ALREADY_IN_USE,
            "device {d}'s primary context is in use; flags {flags:#x} cannot be set"
        );
        Ok(())
    })
}
