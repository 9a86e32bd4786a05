//! Stream-ordered value writes and waits, event records
//! and waits with a flag or a timeout, event timestamps, device task abort,
//! PCI bus ids and topology, float-overflow status (never set: no kernel
//! runs), and the stream whose resource limits a thread uses.
//!
//! Sources: hicann/runtime@681ef76, cited per function; see
//! docs/acl-runtime.md.
#![allow(non_snake_case)]

use std::cell::Cell;
use std::ffi::{c_char, c_void};

use vmmkit_sys::acl::rules;
use vmmkit_sys::acl::*;

use super::call::{non_null, Fail, current_device, emu, ensure, run};
use crate::ffi::{CStrIn, Out};
use super::device::{STREAM_BASE, device_id, stream_id, sync_fail};
use super::event::{event_fail, event_id};
use super::state::{lock, state};
use crate::core::{StreamId, ValueCmp, Work};

thread_local! {
    /// The stream whose resource limits this thread uses (aclrtUseStreamResInCurrentThread).
    static RES_STREAM: Cell<usize> = const { Cell::new(0) };
}

/// Enqueues `work` on stream `id` (of [`stream_id`]).
///
/// # Safety
/// `work` touches only memory the caller checked.
unsafe fn enqueue(id: StreamId, work: Work) -> Result<(), Fail> {
    // SAFETY: the caller's promise.
    unsafe { emu()?.enqueue(id, work) }.map_err(sync_fail)
}

/// [ACL-VAL-002](vmmkit_sys::acl::rules::VAL_002): `addr..addr+8` must be device memory.
fn device_word(addr: *mut c_void, api: &str) -> Result<usize, Fail> {
    non_null(addr, "devAddr")?;
    let a = addr as usize;
    ensure!(emu()?.is_device_range(a, 8), rules::VAL_002, "{api}: {addr:p} is not 8 bytes of device memory");
    Ok(a)
}

/// `aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)`:
/// the stream writes the 8-byte `value` at `devAddr` when it gets there.
/// [ACL-VAL-001](vmmkit_sys::acl::rules::VAL_001) (flag 0), [ACL-VAL-002](vmmkit_sys::acl::rules::VAL_002) (device memory),
/// ApiErrorDecorator::MemWriteValue, api_error.cc:7249-7269.
pub extern "C" fn aclrtValueWrite(devAddr: *mut c_void, value: u64, flag: u32, stream: aclrtStream) -> aclError {
    run("aclrtValueWrite", || {
        non_null(devAddr, "devAddr")?;
        ensure!(flag == 0, rules::VAL_001, "flag must be 0, got {flag}");
        let addr = device_word(devAddr, "aclrtValueWrite")?;
        let id = stream_id(stream)?;
        // SAFETY: 8 bytes of device memory, checked.
        unsafe { enqueue(id, Work::WriteValue { addr, value, width: 8 }) }
    })
}

/// `aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)`:
/// the stream's later work waits until the 8-byte word at `devAddr`
/// compares true with `value` as `flag` says (`ACL_STREAM_WAIT_VALUE_GEQ`,
/// `_EQ`, `_AND`, `_NOR`). [ACL-VAL-001](vmmkit_sys::acl::rules::VAL_001) (a flag below 4), [ACL-VAL-002](vmmkit_sys::acl::rules::VAL_002);
/// the wait itself holds the stream as [ACL-STM-003](vmmkit_sys::acl::rules::STM_003)'s check shows;
/// ApiErrorDecorator::MemWaitValue, api_error.cc:7271-7295.
pub extern "C" fn aclrtValueWait(devAddr: *mut c_void, value: u64, flag: u32, stream: aclrtStream) -> aclError {
    run("aclrtValueWait", || {
        non_null(devAddr, "devAddr")?;
        let cmp = match flag {
            ACL_STREAM_WAIT_VALUE_GEQ => Some(ValueCmp::Geq),
            ACL_STREAM_WAIT_VALUE_EQ => Some(ValueCmp::Eq),
            ACL_STREAM_WAIT_VALUE_AND => Some(ValueCmp::And),
            ACL_STREAM_WAIT_VALUE_NOR => Some(ValueCmp::Nor),
            _ => None,
        };
        ensure!(cmp.is_some(), rules::VAL_001, "flag {flag} is not in [0, 4)");
        let addr = device_word(devAddr, "aclrtValueWait")?;
        let cmp = cmp.unwrap_or(ValueCmp::Geq);
        let id = stream_id(stream)?;
        // SAFETY: 8 bytes of device memory, checked.
        unsafe { enqueue(id, Work::WaitValue { addr, value, mask: u64::MAX, width: 8, cmp }) }
    })
}

/// `aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream, uint32_t flag)`:
/// `ACL_EVENT_RECORD_DEFAULT` is aclrtRecordEvent, `ACL_EVENT_RECORD_EXTERNAL`
/// (an external record of an ACL graph, for task update, which vmmkit does
/// not emulate) records the same way, in a capture too (model.rs); any other flag is 100000 (event.cpp:96-111).
pub extern "C" fn aclrtRecordEventWithFlag(event: aclrtEvent, stream: aclrtStream, flag: u32) -> aclError {
    run("aclrtRecordEventWithFlag", || {
        non_null(event, "event")?;
        if flag != ACL_EVENT_RECORD_DEFAULT && flag != ACL_EVENT_RECORD_EXTERNAL {
            return Err(Fail::plain(AclError::INVALID_PARAM, format!("flag {flag} is not DEFAULT (0) or EXTERNAL (1)")));
        }
        let id = event_id(event)?;
        emu()?.event_record(id, stream_id(stream)?).map_err(event_fail)
    })
}

/// The stream wait of aclrtStreamWaitEvent, for the flag and timeout variants.
fn wait_event(stream: aclrtStream, event: aclrtEvent) -> Result<(), Fail> {
    ensure!(!event.is_null(), rules::EVT_001, "event is NULL");
    let ev = event_id(event)?;
    let s = stream_id(stream)?;
    emu()?.stream_wait_event(s, ev).map_err(sync_fail)
}

/// `aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event, uint32_t timeout, uint32_t flag)`:
/// flag `ACL_EVENT_WAIT_DEFAULT` or `ACL_EVENT_WAIT_EXTERNAL` (the latter
/// with timeout 0), 100000 otherwise (stream.cpp:239-256), then as
/// aclrtStreamWaitEvent. The emulated wait lasts until the record.
pub extern "C" fn aclrtStreamWaitEventWithFlag(
    stream: aclrtStream,
    event: aclrtEvent,
    timeout: u32,
    flag: u32,
) -> aclError {
    run("aclrtStreamWaitEventWithFlag", || {
        ensure!(!event.is_null(), rules::EVT_001, "event is NULL");
        if flag != ACL_EVENT_WAIT_DEFAULT && flag != ACL_EVENT_WAIT_EXTERNAL {
            return Err(Fail::plain(AclError::INVALID_PARAM, format!("flag {flag} is not DEFAULT (0) or EXTERNAL (1)")));
        }
        if flag == ACL_EVENT_WAIT_EXTERNAL && timeout != 0 {
            return Err(Fail::plain(AclError::INVALID_PARAM, format!("timeout must be 0 with EXTERNAL, got {timeout}")));
        }
        wait_event(stream, event)
    })
}

/// `aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout)`:
/// a negative timeout is 107000 (event.cpp:444-453), then as
/// aclrtStreamWaitEvent. The emulated wait lasts until the record.
pub extern "C" fn aclrtStreamWaitEventWithTimeout(stream: aclrtStream, event: aclrtEvent, timeout: i32) -> aclError {
    run("aclrtStreamWaitEventWithTimeout", || {
        if timeout < 0 {
            return Err(Fail::plain(AclError::RT_PARAM_INVALID, format!("timeout {timeout} is not in [0, INT_MAX]")));
        }
        wait_event(stream, event)
    })
}

/// `aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)`:
/// when the event's last record completed, in ns of `CLOCK_MONOTONIC`
/// (vmmkit's system counter). NULL is 100000 (event.cpp:214-224); an event
/// never recorded fails as aclrtEventElapsedTime does ([ACL-EVT-005](vmmkit_sys::acl::rules::EVT_005)), one
/// not yet complete with 507006.
pub extern "C" fn aclrtEventGetTimestamp(event: aclrtEvent, timestamp: Out<'_, u64>) -> aclError {
    run("aclrtEventGetTimestamp", || {
        non_null(timestamp, "timestamp")?;
        non_null(event, "event")?;
        let id = event_id(event)?;
        let e = emu()?;
        let ev = e.event(id).map_err(event_fail)?;
        let last = ev.cell.last();
        if last == 0 {
            return Err(event_fail(crate::core::CoreError::EventNotRecorded(id.0)));
        }
        e.want(&ev.cell, last);
        if !ev.cell.is_reached(last) {
            return Err(event_fail(crate::core::CoreError::NotReady));
        }
        timestamp.write(ev.cell.completed_at())?;
        Ok(())
    })
}

/// `aclError aclrtDeviceTaskAbort(int32_t deviceId, uint32_t timeout)`: every
/// stream of this process on the device drops its work not yet started
/// (aclrtStreamAbort of each); they stay usable.
pub extern "C" fn aclrtDeviceTaskAbort(deviceId: i32, timeout: u32) -> aclError {
    let _ = timeout; // the emulated abort is immediate
    run("aclrtDeviceTaskAbort", || {
        let d = device_id(deviceId)?;
        let e = emu()?;
        let st = state(e);
        let mut ids: Vec<StreamId> =
            lock(&st.streams).iter().map(|h| StreamId(h.wrapping_sub(STREAM_BASE) as u64)).collect();
        ids.extend(lock(&st.default_streams).values().copied());
        for id in ids {
            if e.stream_info(id).is_ok_and(|(dev, _)| dev == d) {
                e.stream_abort(id).map_err(sync_fail)?;
            }
        }
        Ok(())
    })
}

/// The PCI bus id of physical device `d`: `0000:<d+1 in hex>:00.0`.
fn pci_bus_id(d: u32) -> String {
    format!("0000:{:02x}:00.0", d + 1)
}

/// `aclError aclrtDeviceGetPCIBusId(int32_t deviceId, char *pciBusId, int32_t len)`:
/// a NUL-terminated `domain:bus:device.function`; NULL is 100000
/// (device.cpp:376-385), a buffer too short 107000.
pub extern "C" fn aclrtDeviceGetPCIBusId(deviceId: i32, pciBusId: Out<'_, c_char>, len: i32) -> aclError {
    run("aclrtDeviceGetPCIBusId", || {
        non_null(pciBusId, "pciBusId")?;
        // ACL-GEN-011: the physical device's, whatever the visible list.
        let d = device_id(deviceId)?;
        let id = pci_bus_id(emu()?.visible().physical(d).unwrap_or(d));
        let need = id.len() + 1;
        if usize::try_from(len).map_or(true, |l| l < need) {
            return Err(Fail::plain(AclError::RT_PARAM_INVALID, format!("len {len} is below {need}")));
        }
        // The caller's buffer holds `len` >= `need` bytes.
        let text: Vec<c_char> = id.bytes().chain([0]).map(|b| b as c_char).collect();
        pciBusId.write_slice(&text)?;
        Ok(())
    })
}

/// `aclError aclrtDeviceGetByPCIBusId(const char *pciBusId, int32_t *deviceId)`:
/// the device whose aclrtDeviceGetPCIBusId is `pciBusId` (case-insensitive);
/// NULLs are 100000 (device.cpp:387-397), an unknown id 107000.
pub extern "C" fn aclrtDeviceGetByPCIBusId(pciBusId: CStrIn<'_>, deviceId: Out<'_, i32>) -> aclError {
    run("aclrtDeviceGetByPCIBusId", || {
        non_null(pciBusId, "pciBusId")?;
        non_null(deviceId, "deviceId")?;
        let want = pciBusId.get()?.to_string_lossy().to_ascii_lowercase();
        let e = emu()?;
        let Some(d) = e.visible().devices().iter().position(|&p| pci_bus_id(p) == want) else {
            return Err(Fail::plain(AclError::RT_PARAM_INVALID, format!("no device has PCI bus id {want:?}")));
        };
        deviceId.write(d as i32)?;
        Ok(())
    })
}

/// `ACL_RT_DEVS_TOPOLOGY_HCCS` (acl_rt.h:746): how two emulated devices are linked.
const TOPOLOGY_HCCS: u64 = 0x01;

/// `aclError aclrtGetDevicesTopo(uint32_t deviceId, uint32_t otherDeviceId, uint64_t *value)`:
/// every pair of emulated devices is linked by HCCS (device.cpp:501-513).
pub extern "C" fn aclrtGetDevicesTopo(deviceId: u32, otherDeviceId: u32, value: Out<'_, u64>) -> aclError {
    run("aclrtGetDevicesTopo", || {
        non_null(value, "value")?;
        for d in [deviceId, otherDeviceId] {
            device_id(i32::try_from(d).unwrap_or(-1))?;
        }
        value.write(TOPOLOGY_HCCS)?;
        Ok(())
    })
}

/// Zeroes `size` bytes of the float-overflow status at `out` on `stream`:
/// no kernel runs on the emulator, so no overflow is ever flagged.
fn zero_status(out: *mut c_void, size: u64, stream: aclrtStream) -> Result<(), Fail> {
    non_null(out, "outputAddr")?;
    let n = usize::try_from(size).unwrap_or(usize::MAX);
    let e = emu()?;
    if n == 0 || !e.is_device_range(out as usize, n) {
        return Err(Fail::plain(AclError::RT_PARAM_INVALID, format!("{out:p} is not {size} bytes of device memory")));
    }
    let id = stream_id(stream)?;
    // SAFETY: checked device memory of `n` bytes.
    unsafe { enqueue(id, Work::Fill { dst: out as usize, pattern: 0, width: 1, count: n }) }
}

/// `aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize, aclrtStream stream)`:
/// the stream writes a zero status (no overflow) to device memory.
pub extern "C" fn aclrtGetOverflowStatus(outputAddr: *mut c_void, outputSize: usize, stream: aclrtStream) -> aclError {
    run("aclrtGetOverflowStatus", || zero_status(outputAddr, outputSize as u64, stream))
}

/// `aclError aclrtGetFloatOverflowStatus(void *outputAddr, uint64_t outputSize, aclrtStream stream)`: as above.
pub extern "C" fn aclrtGetFloatOverflowStatus(outputAddr: *mut c_void, outputSize: u64, stream: aclrtStream) -> aclError {
    run("aclrtGetFloatOverflowStatus", || zero_status(outputAddr, outputSize, stream))
}

/// `aclError aclrtNpuGetFloatOverFlowStatus(void *outputAddr, uint64_t outputSize, uint32_t checkMode, aclrtStream stream)`:
/// as above, whatever the check mode.
pub extern "C" fn aclrtNpuGetFloatOverFlowStatus(
    outputAddr: *mut c_void,
    outputSize: u64,
    checkMode: u32,
    stream: aclrtStream,
) -> aclError {
    let _ = checkMode; // every mode reads the same never-set status
    run("aclrtNpuGetFloatOverFlowStatus", || zero_status(outputAddr, outputSize, stream))
}

/// Clears the (never set) overflow status of `stream`: a stream check only.
fn clear_status(stream: aclrtStream) -> Result<(), Fail> {
    stream_id(stream).map(drop)
}

/// `aclError aclrtResetOverflowStatus(aclrtStream stream)`.
pub extern "C" fn aclrtResetOverflowStatus(stream: aclrtStream) -> aclError {
    run("aclrtResetOverflowStatus", || clear_status(stream))
}

/// `aclError aclrtResetFloatOverflowStatus(aclrtStream stream)`.
pub extern "C" fn aclrtResetFloatOverflowStatus(stream: aclrtStream) -> aclError {
    run("aclrtResetFloatOverflowStatus", || clear_status(stream))
}

/// `aclError aclrtNpuClearFloatOverFlowStatus(uint32_t checkMode, aclrtStream stream)`.
pub extern "C" fn aclrtNpuClearFloatOverFlowStatus(checkMode: u32, stream: aclrtStream) -> aclError {
    let _ = checkMode; // one status for every mode
    run("aclrtNpuClearFloatOverFlowStatus", || clear_status(stream))
}

/// `aclError aclrtUseStreamResInCurrentThread(aclrtStream stream)`: this
/// thread's work takes `stream`'s resource limits.
pub extern "C" fn aclrtUseStreamResInCurrentThread(stream: aclrtStream) -> aclError {
    run("aclrtUseStreamResInCurrentThread", || {
        let id = stream_id(stream)?;
        RES_STREAM.with(|s| s.set(STREAM_BASE + id.0 as usize));
        Ok(())
    })
}

/// `aclError aclrtUnuseStreamResInCurrentThread(aclrtStream stream)`: back to the device's.
pub extern "C" fn aclrtUnuseStreamResInCurrentThread(stream: aclrtStream) -> aclError {
    run("aclrtUnuseStreamResInCurrentThread", || {
        stream_id(stream)?;
        RES_STREAM.with(|s| s.set(0));
        Ok(())
    })
}

/// `aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value)`:
/// the limit of the stream this thread uses, else the current device's.
pub extern "C" fn aclrtGetResInCurrentThread(type_: aclrtDevResLimitType, value: Out<'_, u32>) -> aclError {
    run("aclrtGetResInCurrentThread", || {
        non_null(value, "value")?;
        let s = RES_STREAM.with(Cell::get);
        let e = emu()?;
        let live = s != 0 && e.stream_exists(StreamId(s.wrapping_sub(STREAM_BASE) as u64));
        let from_stream = if live { lock(&state(e).stream_conf).get(&s).and_then(|c| c.res.get(type_ as usize).copied().flatten()) } else { None };
        let d = current_device()?;
        let v = match from_stream {
            Some(v) => v,
            None => super::config::device_res(d, type_)?,
        };
        value.write(v)?;
        Ok(())
    })
}

/// The runtime's answer for a stream that is not bound to a model: the
/// emulator binds no stream to a model (a captured model runs on the stream
/// it is executed on; aclmdlRIBindStream is not emulated), so none is.
fn not_a_model_stream(s: aclrtStream) -> Fail {
    Fail::plain(AclError::RT_STREAM_MODEL, format!("stream {s:p} is not bound to a model (vmmkit binds no stream to a model)"))
}

/// `aclError aclrtActiveStream(aclrtStream activeStream, aclrtStream stream)`:
/// NULL is 100000 (stream.cpp:341-352); both must be streams of this
/// process (107000); neither is a model stream, so 107005
/// `ACL_ERROR_RT_STREAM_MODEL` (ApiImpl::StreamActive, api_impl.cc:5082-5096).
pub extern "C" fn aclrtActiveStream(activeStream: aclrtStream, stream: aclrtStream) -> aclError {
    run("aclrtActiveStream", || {
        non_null(activeStream, "activeStream")?;
        non_null(stream, "stream")?;
        stream_id(activeStream)?;
        stream_id(stream)?;
        Err(not_a_model_stream(stream))
    })
}

/// `aclError aclrtSwitchStream(void *leftValue, aclrtCondition cond, void *rightValue,
/// aclrtCompareDataType dataType, aclrtStream trueStream, aclrtStream falseStream, aclrtStream stream)`:
/// NULL values or streams are 100000, a non-NULL reserved `falseStream`
/// 100000 (stream.cpp:354-375); then as aclrtActiveStream, 107005
/// (ApiImpl::StreamSwitchEx, api_impl.cc:5028-5049).
pub extern "C" fn aclrtSwitchStream(
    leftValue: *mut c_void,
    cond: aclrtCondition,
    rightValue: *mut c_void,
    dataType: aclrtCompareDataType,
    trueStream: aclrtStream,
    falseStream: aclrtStream,
    stream: aclrtStream,
) -> aclError {
    let _ = (cond, dataType); // read by the device when the switch runs, which never happens here
    run("aclrtSwitchStream", || {
        non_null(leftValue, "leftValue")?;
        non_null(rightValue, "rightValue")?;
        non_null(trueStream, "trueStream")?;
        non_null(stream, "stream")?;
        if !falseStream.is_null() {
            return Err(Fail::plain(AclError::INVALID_PARAM, "falseStream is reserved and must be NULL".into()));
        }
        stream_id(trueStream)?;
        stream_id(stream)?;
        Err(not_a_model_stream(trueStream))
    })
}

/// `aclError aclrtStreamStop(aclrtStream stream)`: NULL is 107000
/// (api_error.cc:6593-6598); an emulated device has no MC2-enhanced task
/// scheduler, so 207000 `ACL_ERROR_RT_FEATURE_NOT_SUPPORT`, as the runtime
/// answers on such a device (ApiImpl::StreamClear, api_impl.cc:7578-7600).
pub extern "C" fn aclrtStreamStop(stream: aclrtStream) -> aclError {
    run("aclrtStreamStop", || {
        if stream.is_null() {
            return Err(Fail::plain(AclError::RT_PARAM_INVALID, "stream is NULL".into()));
        }
        stream_id(stream)?;
        Err(Fail::plain(
            AclError::RT_FEATURE_NOT_SUPPORT,
            "the device has no MC2-enhanced task scheduler (TS_FEATURE_MC2_ENHANCE)".into(),
        ))
    })
}

/// `aclError aclrtGetThreadLastTaskId(uint32_t *taskId)`: the number, on its
/// stream, of the last work (copy, fill, record, wait, callback …) this
/// thread enqueued, 0 before any; NULL is 100000 (kernel.cpp:389-396).
pub extern "C" fn aclrtGetThreadLastTaskId(taskId: Out<'_, u32>) -> aclError {
    run("aclrtGetThreadLastTaskId", || {
        non_null(taskId, "taskId")?;
        taskId.write(crate::core::thread::last_task())?;
        Ok(())
    })
}
