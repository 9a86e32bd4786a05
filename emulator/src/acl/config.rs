//! The queries and settings of devices, contexts and streams that
//! CANN's runtime header declares beyond those of `device.rs`: run mode,
//! device attributes and id conversions, limits, system parameters,
//! streams with a configuration, the current context's default stream,
//! stream abort, priorities, flags and ids, event ids and counts.
//!
//! The behaviour and codes are CANN's (hicann/runtime@681ef76, the source
//! lines are cited on each function and in docs/acl-runtime.md). NULL
//! outputs fail with 100000 `ACL_ERROR_INVALID_PARAM`, as
//! `ACL_REQUIRES_NOT_NULL_WITH_INPUT_REPORT` of the ACL front end does; a
//! device id out of range is [ACL-GEN-003](vmmkit_sys::acl::rules::GEN_003).
#![allow(non_snake_case)]

use std::ffi::c_void;
use std::sync::atomic::Ordering;

use vmmkit_sys::acl::*;

use super::call::{non_null, Fail, current_device, emu, run};
use crate::ffi::{In, Out};
use super::device::{CONTEXT_BASE, IdKind, STREAM_BASE, device_id, server_id, stream_id, sync_fail, translate};
use super::state::{StreamConf, lock, state};
use crate::core::thread;

/// Writes `v` to `out` after its NULL check.
fn write<T>(out: Out<'_, T>, what: &str, v: T) -> Result<(), Fail> {
    non_null(out, what)?;
    out.write(v)?;
    Ok(())
}

/// The greatest and least stream priorities (RT_STREAM_GREATEST_PRIORITY,
/// RT_STREAM_LEAST_PRIORITY, runtime core/inc/spec/base_info.hpp:168-169).
const PRIORITY_GREATEST: u32 = 0;
const PRIORITY_LEAST: u32 = 7;
/// Every flag aclrtCreateStreamWithConfig maps to the runtime (stream.cpp:60-78).
const STREAM_FLAGS: u32 = ACL_STREAM_FAST_LAUNCH
    | ACL_STREAM_FAST_SYNC
    | ACL_STREAM_PERSISTENT
    | ACL_STREAM_HUGE
    | ACL_STREAM_CPU_SCHEDULE
    | ACL_STREAM_DEVICE_USE_ONLY;
/// How many streams and events a device has room for, as the emulator tells
/// aclrtGetStreamAvailableNum / aclrtGetEventAvailNum, less what this
/// process holds. The emulator itself has no such limit; these are vmmkit's
/// figures, not CANN's.
const STREAMS_PER_DEVICE: u32 = 2048;
const EVENTS_PER_DEVICE: u32 = 65_536;

// ---- Devices ----

/// `aclError aclrtGetRunMode(aclrtRunMode *runMode)`: always `ACL_HOST`, a
/// program on the host driving devices (device.cpp:144-156: RT_RUN_MODE_OFFLINE
/// is the only one reported as ACL_DEVICE).
pub extern "C" fn aclrtGetRunMode(runMode: Out<'_, aclrtRunMode>) -> aclError {
    run("aclrtGetRunMode", || write(runMode, "runMode", ACL_HOST))
}

/// The value of `aclrtDevAttr` `attr` for emulated device `d`; `None` for an
/// attribute the header does not define.
fn device_attribute(d: u32, attr: aclrtDevAttr) -> Result<Option<i64>, Fail> {
    let e = emu()?;
    Ok(Some(match attr {
        ACL_DEV_ATTR_AICPU_CORE_NUM => 6,
        ACL_DEV_ATTR_AICORE_CORE_NUM | ACL_DEV_ATTR_CUBE_CORE_NUM => 24,
        ACL_DEV_ATTR_VECTOR_CORE_NUM => 48,
        ACL_DEV_ATTR_WARP_SIZE => 32,
        ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE | ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK => 2048,
        ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE => 192 * 1024,
        ACL_DEV_ATTR_MAX_GRID_DIM_X..=ACL_DEV_ATTR_MAX_BLOCK_PER_GRID => i64::from(i32::MAX),
        ACL_DEV_ATTR_MAX_BLOCK_DIM_X..=ACL_DEV_ATTR_MAX_BLOCK_DIM_Z => 2048,
        ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE => e.mem_info(d).1 as i64,
        ACL_DEV_ATTR_L2_CACHE_SIZE => 192 << 20,
        ACL_DEV_ATTR_SMP_ID | ACL_DEV_ATTR_SUPER_POD_ID | ACL_DEV_ATTR_CUST_OP_PRIVILEGE => 0,
        ACL_DEV_ATTR_PHY_CHIP_ID | ACL_DEV_ATTR_SUPER_POD_DEVICE_ID => i64::from(e.visible().physical(d).unwrap_or(d)),
        ACL_DEV_ATTR_SUPER_POD_SERVER_ID => i64::from(server_id()),
        _ => return Ok(None),
    }))
}

/// `aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value)`:
/// the emulated device's attribute (device.cpp:299-309); an attribute the
/// header does not define is 107000 (the runtime's RT_ERROR_INVALID_VALUE).
pub extern "C" fn aclrtGetDeviceInfo(deviceId: u32, attr: aclrtDevAttr, value: Out<'_, i64>) -> aclError {
    run("aclrtGetDeviceInfo", || {
        non_null(value, "value")?;
        let d = device_id(i32::try_from(deviceId).unwrap_or(-1))?;
        match device_attribute(d, attr)? {
            Some(v) => write(value, "value", v),
            None => Err(Fail::plain(AclError::RT_PARAM_INVALID, format!("attr {attr} is not an aclrtDevAttr"))),
        }
    })
}

/// `aclError aclrtGetLogicDevIdByPhyDevId(int32_t phyDevId, int32_t *logicDevId)`: [ACL-GEN-012](vmmkit_sys::acl::rules::GEN_012).
pub extern "C" fn aclrtGetLogicDevIdByPhyDevId(phyDevId: i32, logicDevId: Out<'_, i32>) -> aclError {
    run("aclrtGetLogicDevIdByPhyDevId", || translate(phyDevId, IdKind::Machine, IdKind::Machine, logicDevId))
}

/// `aclError aclrtGetPhyDevIdByUserDevId(int32_t userDevId, int32_t *phyDevId)`: [ACL-GEN-012](vmmkit_sys::acl::rules::GEN_012).
pub extern "C" fn aclrtGetPhyDevIdByUserDevId(userDevId: i32, phyDevId: Out<'_, i32>) -> aclError {
    run("aclrtGetPhyDevIdByUserDevId", || translate(userDevId, IdKind::User, IdKind::Machine, phyDevId))
}

/// `aclError aclrtGetUserDevIdByLogicDevId(int32_t logicDevId, int32_t *userDevid)`: [ACL-GEN-012](vmmkit_sys::acl::rules::GEN_012).
pub extern "C" fn aclrtGetUserDevIdByLogicDevId(logicDevId: i32, userDevid: Out<'_, i32>) -> aclError {
    run("aclrtGetUserDevIdByLogicDevId", || translate(logicDevId, IdKind::Machine, IdKind::User, userDevid))
}

/// `aclError aclrtGetUserDevIdByPhyDevId(int32_t phyDevId, int32_t *userDevId)`: [ACL-GEN-012](vmmkit_sys::acl::rules::GEN_012).
pub extern "C" fn aclrtGetUserDevIdByPhyDevId(phyDevId: i32, userDevId: Out<'_, i32>) -> aclError {
    run("aclrtGetUserDevIdByPhyDevId", || translate(phyDevId, IdKind::Machine, IdKind::User, userDevId))
}

/// `aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority)`:
/// 7 and 0; either pointer may be NULL (ApiImpl::DeviceGetStreamPriorityRange, api_impl.cc:3828-3839).
pub extern "C" fn aclrtDeviceGetStreamPriorityRange(
    leastPriority: Out<'_, i32>,
    greatestPriority: Out<'_, i32>,
) -> aclError {
    run("aclrtDeviceGetStreamPriorityRange", || {
        for (out, v) in [(leastPriority, PRIORITY_LEAST), (greatestPriority, PRIORITY_GREATEST)] {
            out.write_if_given(v as i32);
        }
        Ok(())
    })
}

/// A `aclrtDeviceLimit` the header defines, or 100000.
fn device_limit(limit: aclrtDeviceLimit) -> Result<(), Fail> {
    if !(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE..=ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE).contains(&limit) {
        return Err(Fail::plain(AclError::INVALID_PARAM, format!("limit {limit} is not an aclrtDeviceLimit")));
    }
    Ok(())
}

/// `aclError aclrtDeviceGetLimit(aclrtDeviceLimit limit, size_t *value)`: what
/// aclrtDeviceSetLimit set on the current device, 0 before.
pub extern "C" fn aclrtDeviceGetLimit(limit: aclrtDeviceLimit, value: Out<'_, usize>) -> aclError {
    run("aclrtDeviceGetLimit", || {
        non_null(value, "value")?;
        device_limit(limit)?;
        let d = current_device()?;
        let v = lock(&state(emu()?).limits).get(&(d, limit)).copied().unwrap_or(0);
        write(value, "value", v)
    })
}

/// `aclError aclrtDeviceSetLimit(aclrtDeviceLimit limit, size_t value)`: kept
/// per device (the emulator runs no kernel, so no stack or FIFO uses it).
pub extern "C" fn aclrtDeviceSetLimit(limit: aclrtDeviceLimit, value: usize) -> aclError {
    run("aclrtDeviceSetLimit", || {
        device_limit(limit)?;
        let d = current_device()?;
        lock(&state(emu()?).limits).insert((d, limit), value);
        Ok(())
    })
}

/// The full count of resource `kind` on a device: its cube or vector cores.
fn res_full(kind: aclrtDevResLimitType) -> Result<u32, Fail> {
    match kind {
        ACL_RT_DEV_RES_CUBE_CORE => Ok(24),
        ACL_RT_DEV_RES_VECTOR_CORE => Ok(48),
        _ => Err(Fail::plain(AclError::INVALID_PARAM, format!("type {kind} is not an aclrtDevResLimitType"))),
    }
}

/// The resource limit of device `d`: what was set, else the full count.
pub(super) fn device_res(d: u32, kind: aclrtDevResLimitType) -> Result<u32, Fail> {
    let full = res_full(kind)?;
    Ok(lock(&state(emu()?).res_limits).get(&(d, kind)).copied().unwrap_or(full))
}

/// A resource limit: at most the full count (107000 above).
fn res_value(kind: aclrtDevResLimitType, value: u32) -> Result<u32, Fail> {
    let full = res_full(kind)?;
    if value > full {
        return Err(Fail::plain(AclError::RT_PARAM_INVALID, format!("{value} is above the device's {full} cores")));
    }
    Ok(value)
}

/// `aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t *value)`:
/// the limit set, the device's full count before.
pub extern "C" fn aclrtGetDeviceResLimit(deviceId: i32, type_: aclrtDevResLimitType, value: Out<'_, u32>) -> aclError {
    run("aclrtGetDeviceResLimit", || {
        non_null(value, "value")?;
        let d = device_id(deviceId)?;
        write(value, "value", device_res(d, type_)?)
    })
}

/// `aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t value)`.
pub extern "C" fn aclrtSetDeviceResLimit(deviceId: i32, type_: aclrtDevResLimitType, value: u32) -> aclError {
    run("aclrtSetDeviceResLimit", || {
        let d = device_id(deviceId)?;
        let v = res_value(type_, value)?;
        lock(&state(emu()?).res_limits).insert((d, type_), v);
        Ok(())
    })
}

/// `aclError aclrtResetDeviceResLimit(int32_t deviceId)`: back to the full counts.
pub extern "C" fn aclrtResetDeviceResLimit(deviceId: i32) -> aclError {
    run("aclrtResetDeviceResLimit", || {
        let d = device_id(deviceId)?;
        lock(&state(emu()?).res_limits).retain(|(dev, _), _| *dev != d);
        Ok(())
    })
}

/// `aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus)`:
/// an emulated device is always `ACL_RT_DEVICE_STATUS_NORMAL`.
pub extern "C" fn aclrtQueryDeviceStatus(deviceId: i32, deviceStatus: Out<'_, aclrtDeviceStatus>) -> aclError {
    run("aclrtQueryDeviceStatus", || {
        non_null(deviceStatus, "deviceStatus")?;
        device_id(deviceId)?;
        write(deviceStatus, "deviceStatus", ACL_RT_DEVICE_STATUS_NORMAL)
    })
}

/// `aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode)`: kept for the
/// process; SATURATION or INFNAN (100000 otherwise).
pub extern "C" fn aclrtSetDeviceSatMode(mode: aclrtFloatOverflowMode) -> aclError {
    run("aclrtSetDeviceSatMode", || {
        if !(ACL_RT_OVERFLOW_MODE_SATURATION..ACL_RT_OVERFLOW_MODE_UNDEF).contains(&mode) {
            return Err(Fail::plain(AclError::INVALID_PARAM, format!("mode {mode} is not SATURATION or INFNAN")));
        }
        current_device()?;
        state(emu()?).sat_mode.store(mode, Ordering::Relaxed);
        Ok(())
    })
}

/// `aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode)`: SATURATION until set.
pub extern "C" fn aclrtGetDeviceSatMode(mode: Out<'_, aclrtFloatOverflowMode>) -> aclError {
    run("aclrtGetDeviceSatMode", || {
        non_null(mode, "mode")?;
        current_device()?;
        write(mode, "mode", state(emu()?).sat_mode.load(Ordering::Relaxed))
    })
}

// ---- Contexts ----

/// The device of context `c`, one aclrtCreateContext handed out (107000 otherwise).
fn context_device(c: aclrtContext) -> Result<u32, Fail> {
    let v = (c as usize).wrapping_sub(CONTEXT_BASE);
    if c.is_null() || !emu()?.is_device(v as i64) {
        return Err(Fail::plain(AclError::RT_PARAM_INVALID, format!("{c:p} is not a context")));
    }
    Ok(v as u32)
}

/// `aclError aclrtDestroyContext(aclrtContext context)`: NULL is 100000
/// (context.cpp:50-61), an unknown one 107000. A context is its device's
/// (there is one per device); destroying the calling thread's current one
/// leaves the thread with none.
pub extern "C" fn aclrtDestroyContext(context: aclrtContext) -> aclError {
    run("aclrtDestroyContext", || {
        non_null(context, "context")?;
        let d = context_device(context)?;
        if thread::current_device() == Some(d) {
            thread::set_current_device(None);
        }
        Ok(())
    })
}

/// Bytes of a context's float-overflow status (`OVERFLOW_ADDR_MAX_SIZE`,
/// src/runtime/core/inc/context/context.hpp:95).
const OVERFLOW_ADDR_SIZE: usize = 512;

/// `aclError aclrtCtxGetFloatOverflowAddr(void **overflowAddr)`: NULL is
/// 107000 (ApiErrorDecorator::CtxGetOverflowAddr, api_error.cc:6186-6191);
/// no current context as every context call; then the current context's
/// overflow status, device memory the runtime copies into
/// aclrtGetFloatOverflowStatus' output and zeroes on reset (api_impl.cc:
/// 7091-7147). The emulator allocates it zeroed at the first call per
/// device; no kernel runs, so it stays zero. The device's last reset frees it.
pub extern "C" fn aclrtCtxGetFloatOverflowAddr(overflowAddr: Out<'_, *mut c_void>) -> aclError {
    run("aclrtCtxGetFloatOverflowAddr", || {
        if overflowAddr.is_null() {
            return Err(Fail::plain(AclError::RT_PARAM_INVALID, "overflowAddr is NULL".into()));
        }
        let d = current_device()?;
        let mut addrs = lock(&state(emu()?).overflow_addrs);
        let va = match addrs.get(&d) {
            Some(&va) => va,
            None => {
                let mut p: *mut c_void = std::ptr::null_mut();
                super::memory::device_malloc(crate::ffi::Out::from_mut(&mut p), OVERFLOW_ADDR_SIZE, ACL_MEM_MALLOC_HUGE_FIRST, d)?;
                addrs.insert(d, p as usize);
                p as usize
            }
        };
        overflowAddr.write(va as *mut c_void)?;
        Ok(())
    })
}

/// `aclError aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t *flags, int32_t *active)`:
/// `active` is 1 while this process has set the device (aclrtSetDevice not
/// yet matched by a reset); `flags` is reserved and must be NULL, 100000
/// otherwise (context.cpp:218-234).
pub extern "C" fn aclrtGetPrimaryCtxState(deviceId: i32, flags: *mut u32, active: Out<'_, i32>) -> aclError {
    run("aclrtGetPrimaryCtxState", || {
        non_null(active, "active")?;
        if !flags.is_null() {
            return Err(Fail::plain(AclError::INVALID_PARAM, "flags is reserved and must be NULL".into()));
        }
        let d = device_id(deviceId)?;
        let on = lock(&state(emu()?).device_refs).get(&d).is_some_and(|n| *n > 0);
        write(active, "active", i32::from(on))
    })
}

/// A system parameter `opt` valid at this level: a context takes
/// DETERMINISTIC, ENABLE_DEBUG_KERNEL and STRONG_CONSISTENCY, the process
/// also KERNEL_EARLY_START (context.cpp:90-148); 100000 otherwise.
fn sys_param(opt: aclSysParamOpt, ctx: bool) -> Result<(), Fail> {
    let last = if ctx { ACL_OPT_STRONG_CONSISTENCY } else { ACL_OPT_ENABLE_KERNEL_EARLY_START };
    if !(ACL_OPT_DETERMINISTIC..=last).contains(&opt) {
        return Err(Fail::plain(AclError::INVALID_PARAM, format!("opt {opt} is not valid here (0 to {last})")));
    }
    Ok(())
}

/// The key of `opt`: the current context's device, or the process.
fn sys_key(opt: aclSysParamOpt, ctx: bool) -> Result<(Option<u32>, i32), Fail> {
    sys_param(opt, ctx)?;
    Ok((if ctx { Some(current_device()?) } else { None }, opt))
}

fn get_sys_param(opt: aclSysParamOpt, value: Out<'_, i64>, ctx: bool) -> Result<(), Fail> {
    non_null(value, "value")?;
    let key = sys_key(opt, ctx)?;
    match lock(&state(emu()?).sys_params).get(&key) {
        Some(v) => write(value, "value", *v),
        None => Err(Fail::plain(AclError::RT_SYSPARAMOPT_NOT_SET, format!("option {opt} is not set"))),
    }
}

fn set_sys_param(opt: aclSysParamOpt, value: i64, ctx: bool) -> Result<(), Fail> {
    let key = sys_key(opt, ctx)?;
    lock(&state(emu()?).sys_params).insert(key, value);
    Ok(())
}

/// `aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value)`: what the
/// current context was set to; 107021 `ACL_ERROR_RT_SYSPARAMOPT_NOT_SET` before.
pub extern "C" fn aclrtCtxGetSysParamOpt(opt: aclSysParamOpt, value: Out<'_, i64>) -> aclError {
    run("aclrtCtxGetSysParamOpt", || get_sys_param(opt, value, true))
}

/// `aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value)`: kept for the current context.
pub extern "C" fn aclrtCtxSetSysParamOpt(opt: aclSysParamOpt, value: i64) -> aclError {
    run("aclrtCtxSetSysParamOpt", || set_sys_param(opt, value, true))
}

/// `aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value)`: as the Ctx one, for the process.
pub extern "C" fn aclrtGetSysParamOpt(opt: aclSysParamOpt, value: Out<'_, i64>) -> aclError {
    run("aclrtGetSysParamOpt", || get_sys_param(opt, value, false))
}

/// `aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value)`: kept for the process.
pub extern "C" fn aclrtSetSysParamOpt(opt: aclSysParamOpt, value: i64) -> aclError {
    run("aclrtSetSysParamOpt", || set_sys_param(opt, value, false))
}

// ---- Streams ----

/// The configuration of `stream` (NULL: the current device's default
/// stream), after checking it is one.
fn conf(stream: aclrtStream) -> Result<StreamConf, Fail> {
    let id = stream_id(stream)?;
    let h = STREAM_BASE + id.0 as usize;
    Ok(lock(&state(emu()?).stream_conf).get(&h).copied().unwrap_or_default())
}

/// Changes the configuration of `stream` (NULL: the default stream).
fn set_conf(stream: aclrtStream, f: impl FnOnce(&mut StreamConf)) -> Result<(), Fail> {
    let id = stream_id(stream)?;
    let h = STREAM_BASE + id.0 as usize;
    f(lock(&state(emu()?).stream_conf).entry(h).or_default());
    Ok(())
}

/// `aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)`:
/// as aclrtCreateStream ([ACL-STM-001](vmmkit_sys::acl::rules::STM_001), [ACL-GEN-005](vmmkit_sys::acl::rules::GEN_005)), with a priority and
/// flags the stream reports back. A priority above 7 becomes 7
/// (ApiErrorDecorator::StreamCreate, api_error.cc:1336-1349); flags outside
/// `ACL_STREAM_*` are dropped, as the ACL front end maps only those
/// (stream.cpp:60-78). The emulator runs every stream the same way.
pub extern "C" fn aclrtCreateStreamWithConfig(stream: Out<'_, aclrtStream>, priority: u32, flag: u32) -> aclError {
    run("aclrtCreateStreamWithConfig", || {
        let h = super::device::create_stream(stream)?;
        let c = StreamConf { priority: priority.min(PRIORITY_LEAST), flags: flag & STREAM_FLAGS, ..StreamConf::default() };
        lock(&state(emu()?).stream_conf).insert(h, c);
        Ok(())
    })
}

/// `aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)`: the
/// current context's default stream as a handle of its own, which every
/// stream function takes as it takes NULL (context.cpp:188-204).
pub extern "C" fn aclrtCtxGetCurrentDefaultStream(stream: Out<'_, aclrtStream>) -> aclError {
    run("aclrtCtxGetCurrentDefaultStream", || {
        non_null(stream, "stream")?;
        let id = stream_id(std::ptr::null_mut())?;
        let h = STREAM_BASE + id.0 as usize;
        lock(&state(emu()?).streams).insert(h);
        write(stream, "stream", h as *mut c_void)
    })
}

/// `aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority)`: what it was created with.
pub extern "C" fn aclrtStreamGetPriority(stream: aclrtStream, priority: Out<'_, u32>) -> aclError {
    run("aclrtStreamGetPriority", || {
        non_null(priority, "priority")?;
        write(priority, "priority", conf(stream)?.priority)
    })
}

/// `aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags)`: the
/// `ACL_STREAM_*` flags it was created with (stream.cpp:197-225).
pub extern "C" fn aclrtStreamGetFlags(stream: aclrtStream, flags: Out<'_, u32>) -> aclError {
    run("aclrtStreamGetFlags", || {
        non_null(flags, "flags")?;
        write(flags, "flags", conf(stream)?.flags)
    })
}

/// `aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId)`: the core's stream number.
pub extern "C" fn aclrtStreamGetId(stream: aclrtStream, streamId: Out<'_, i32>) -> aclError {
    run("aclrtStreamGetId", || {
        non_null(streamId, "streamId")?;
        let id = stream_id(stream)?;
        write(streamId, "streamId", id.0 as i32)
    })
}

/// `aclError aclrtStreamAbort(aclrtStream stream)`: drops the stream's work
/// that has not started; the stream stays usable (NULL: the default stream,
/// ApiErrorDecorator::StreamAbort, api_error.cc:6600-6607).
pub extern "C" fn aclrtStreamAbort(stream: aclrtStream) -> aclError {
    run("aclrtStreamAbort", || emu()?.stream_abort(stream_id(stream)?).map_err(sync_fail))
}

/// `aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)`: kept on the stream.
pub extern "C" fn aclrtSetStreamFailureMode(stream: aclrtStream, mode: u64) -> aclError {
    run("aclrtSetStreamFailureMode", || set_conf(stream, |c| c.failure_mode = mode))
}

/// `aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag)`: 0 until set.
pub extern "C" fn aclrtGetStreamOverflowSwitch(stream: aclrtStream, flag: Out<'_, u32>) -> aclError {
    run("aclrtGetStreamOverflowSwitch", || {
        non_null(flag, "flag")?;
        write(flag, "flag", conf(stream)?.overflow)
    })
}

/// `aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag)`:
/// 0 or 1, 100000 otherwise (stream.cpp:276-283).
pub extern "C" fn aclrtSetStreamOverflowSwitch(stream: aclrtStream, flag: u32) -> aclError {
    run("aclrtSetStreamOverflowSwitch", || {
        if flag > 1 {
            return Err(Fail::plain(AclError::INVALID_PARAM, format!("flag must be 0 or 1, got {flag}")));
        }
        set_conf(stream, |c| c.overflow = flag)
    })
}

/// How many of this process's handles of a kind are on the current device.
fn held_on_device(handles: usize) -> u32 {
    u32::try_from(handles).unwrap_or(u32::MAX)
}

/// `aclError aclrtGetStreamAvailableNum(uint32_t *streamCount)`: room left on the current device.
pub extern "C" fn aclrtGetStreamAvailableNum(streamCount: Out<'_, u32>) -> aclError {
    run("aclrtGetStreamAvailableNum", || {
        non_null(streamCount, "streamCount")?;
        let d = current_device()?;
        let e = emu()?;
        let held = lock(&state(e).streams)
            .iter()
            .filter(|h| e.stream_info(crate::core::StreamId(h.wrapping_sub(STREAM_BASE) as u64)).is_ok_and(|i| i.0 == d))
            .count();
        write(streamCount, "streamCount", STREAMS_PER_DEVICE.saturating_sub(held_on_device(held)))
    })
}

/// The resource limit of a stream: what was set, else its device's.
fn stream_res(stream: aclrtStream, kind: aclrtDevResLimitType) -> Result<u32, Fail> {
    res_full(kind)?;
    let set = conf(stream)?.res[kind as usize];
    let d = current_device()?;
    set.map_or_else(|| device_res(d, kind), Ok)
}

/// `aclError aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t *value)`.
pub extern "C" fn aclrtGetStreamResLimit(stream: aclrtStream, type_: aclrtDevResLimitType, value: Out<'_, u32>) -> aclError {
    run("aclrtGetStreamResLimit", || {
        non_null(value, "value")?;
        write(value, "value", stream_res(stream, type_)?)
    })
}

/// `aclError aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t value)`.
pub extern "C" fn aclrtSetStreamResLimit(stream: aclrtStream, type_: aclrtDevResLimitType, value: u32) -> aclError {
    run("aclrtSetStreamResLimit", || {
        let v = res_value(type_, value)?;
        set_conf(stream, |c| c.res[type_ as usize] = Some(v))
    })
}

/// `aclError aclrtResetStreamResLimit(aclrtStream stream)`: back to the device's.
pub extern "C" fn aclrtResetStreamResLimit(stream: aclrtStream) -> aclError {
    run("aclrtResetStreamResLimit", || set_conf(stream, |c| c.res = [None; 2]))
}

/// The stream configuration handles made and not yet destroyed.
/// Process-global, not in the ACL state of the emulator: making, setting and
/// destroying a handle needs no aclInit or root (as in CANN, stream.c), and
/// aclrtCreateStreamConfigHandle returns a pointer, with no code to fail with.
static CONFIG_HANDLES: super::boxes::Boxes<aclrtStreamConfigHandle> = super::boxes::Boxes::new();

/// `aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void)`: a zeroed
/// configuration (src/acl/aclrt_c/runtime/stream.c:20-29).
pub extern "C" fn aclrtCreateStreamConfigHandle() -> *mut aclrtStreamConfigHandle {
    CONFIG_HANDLES.create(aclrtStreamConfigHandle {
        workptr: std::ptr::null_mut(),
        workSize: 0,
        flag: 0,
        priority: 0,
    })
}

/// `aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle)`:
/// NULL (stream.c:30-38), or a handle this library did not make, is 100000.
pub extern "C" fn aclrtDestroyStreamConfigHandle(handle: *mut aclrtStreamConfigHandle) -> aclError {
    run("aclrtDestroyStreamConfigHandle", || {
        if !CONFIG_HANDLES.destroy(handle) {
            return Err(Fail::plain(AclError::INVALID_PARAM, format!("{handle:p} is not a stream configuration")));
        }
        Ok(())
    })
}

/// Reads a `T` of `size` bytes at `value` (100000 when the size is not `T`'s).
/// (`value` points to `size` readable bytes, the C contract).
fn read_sized<T: Copy>(value: In<'_, c_void>, size: usize) -> Result<T, Fail> {
    if size != std::mem::size_of::<T>() {
        let want = std::mem::size_of::<T>();
        return Err(Fail::plain(AclError::INVALID_PARAM, format!("valueSize {size} is not {want}")));
    }
    Ok(value.cast::<T>().read()?)
}

/// `aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle, aclrtStreamConfigAttr attr,
/// const void *attrValue, size_t valueSize)`: one field of the configuration,
/// `valueSize` the size of its type, a priority at most 7; 100000 otherwise
/// (stream.c:40-127).
#[allow(clippy::not_unsafe_ptr_arg_deref)] // the handle is dereferenced only if this library made it and has not freed it
pub extern "C" fn aclrtSetStreamConfigOpt(
    handle: *mut aclrtStreamConfigHandle,
    attr: aclrtStreamConfigAttr,
    attrValue: In<'_, c_void>,
    valueSize: usize,
) -> aclError {
    run("aclrtSetStreamConfigOpt", || {
        non_null(attrValue, "attrValue")?;
        // SAFETY: the program uses a handle from one call at a time.
        let Some(h) = (unsafe { CONFIG_HANDLES.get(handle) }) else {
            return Err(Fail::plain(AclError::INVALID_PARAM, format!("{handle:p} is not a stream configuration")));
        };
        // Each read checks that the size is its type's.
        match attr {
            ACL_RT_STREAM_WORK_ADDR_PTR => h.workptr = read_sized(attrValue, valueSize)?,
            ACL_RT_STREAM_WORK_SIZE => h.workSize = read_sized(attrValue, valueSize)?,
            ACL_RT_STREAM_FLAG => h.flag = read_sized(attrValue, valueSize)?,
            ACL_RT_STREAM_PRIORITY => {
                let p: u32 = read_sized(attrValue, valueSize)?;
                if p > PRIORITY_LEAST {
                    return Err(Fail::plain(AclError::INVALID_PARAM, format!("priority {p} is not in [0, 7]")));
                }
                h.priority = p;
            }
            other => return Err(Fail::plain(AclError::INVALID_PARAM, format!("attr {other} is not defined"))),
        }
        Ok(())
    })
}

/// `aclError aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle)`:
/// as aclrtCreateStreamWithConfig with the handle's priority and flags (a
/// NULL handle: zeros), stream.c:130-150. The handle is read as the header
/// lays it out, whether this library made it or the program did.
pub extern "C" fn aclrtCreateStreamV2(stream: Out<'_, aclrtStream>, handle: In<'_, aclrtStreamConfigHandle>) -> aclError {
    run("aclrtCreateStreamV2", || {
        non_null(stream, "stream")?;
        let (priority, flag) = handle.read_if_given().map_or((0, 0), |h| (h.priority, h.flag));
        let h = super::device::create_stream(stream)?;
        let c = StreamConf { priority: priority.min(PRIORITY_LEAST), flags: flag as u32 & STREAM_FLAGS, ..StreamConf::default() };
        lock(&state(emu()?).stream_conf).insert(h, c);
        Ok(())
    })
}

/// `aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType, aclrtStreamAttrValue *value)`:
/// failure mode, overflow switch (0 or 1), custom tag, cache-op switch or
/// priority (at most 7) kept on the stream; NULL value 100000
/// (stream.cpp:315-327), an undefined attribute 107000.
pub extern "C" fn aclrtSetStreamAttribute(
    stream: aclrtStream,
    stmAttrType: aclrtStreamAttr,
    value: In<'_, aclrtStreamAttrValue>,
) -> aclError {
    run("aclrtSetStreamAttribute", || {
        non_null(value, "value")?;
        // Each arm reads only the field its attribute names (all at the
        // union's start, plain integers), which the caller wrote (the C contract).
        let wide = value.cast::<u64>().read()?;
        let word = value.cast::<u32>().read()?;
        let bad = |what: String| Err(Fail::plain(AclError::RT_PARAM_INVALID, what));
        match stmAttrType {
            ACL_STREAM_ATTR_FAILURE_MODE => set_conf(stream, |c| c.failure_mode = wide),
            ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK => match word {
                s @ (0 | 1) => set_conf(stream, |c| c.overflow = s),
                s => bad(format!("overflow switch {s} is not 0 or 1")),
            },
            ACL_STREAM_ATTR_USER_CUSTOM_TAG => set_conf(stream, |c| c.tag = word),
            ACL_STREAM_ATTR_CACHE_OP_INFO => set_conf(stream, |c| c.cache_op = word),
            ACL_STREAM_ATTR_PRIORITY => match word {
                p @ 0..=PRIORITY_LEAST => set_conf(stream, |c| c.priority = p),
                p => bad(format!("priority {p} is not in [0, 7]")),
            },
            other => bad(format!("attribute {other} is not defined")),
        }
    })
}

/// `aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType, aclrtStreamAttrValue *value)`:
/// what was set (or created with); the rest of the union is zeroed.
pub extern "C" fn aclrtGetStreamAttribute(
    stream: aclrtStream,
    stmAttrType: aclrtStreamAttr,
    value: Out<'_, aclrtStreamAttrValue>,
) -> aclError {
    run("aclrtGetStreamAttribute", || {
        non_null(value, "value")?;
        let c = conf(stream)?;
        let mut v = aclrtStreamAttrValue { reserve: [0; 4] };
        match stmAttrType {
            ACL_STREAM_ATTR_FAILURE_MODE => v.failureMode = c.failure_mode,
            ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK => v.overflowSwitch = c.overflow,
            ACL_STREAM_ATTR_USER_CUSTOM_TAG => v.userCustomTag = c.tag,
            ACL_STREAM_ATTR_CACHE_OP_INFO => v.cacheOpInfoSwitch = c.cache_op,
            ACL_STREAM_ATTR_PRIORITY => v.streamPriority = c.priority,
            other => return Err(Fail::plain(AclError::RT_PARAM_INVALID, format!("attribute {other} is not defined"))),
        }
        write(value, "value", v)
    })
}

// ---- Events ----

/// `aclError aclrtGetEventId(aclrtEvent event, uint32_t *eventId)`: the core's event number.
pub extern "C" fn aclrtGetEventId(event: aclrtEvent, eventId: Out<'_, u32>) -> aclError {
    run("aclrtGetEventId", || {
        non_null(eventId, "eventId")?;
        let id = super::event::event_id(event)?;
        write(eventId, "eventId", id.0 as u32)
    })
}

/// `aclError aclrtGetEventAvailNum(uint32_t *eventCount)`: room left for events.
pub extern "C" fn aclrtGetEventAvailNum(eventCount: Out<'_, u32>) -> aclError {
    run("aclrtGetEventAvailNum", || {
        non_null(eventCount, "eventCount")?;
        current_device()?;
        let held = lock(&state(emu()?).events).len();
        write(eventCount, "eventCount", EVENTS_PER_DEVICE.saturating_sub(held_on_device(held)))
    })
}
