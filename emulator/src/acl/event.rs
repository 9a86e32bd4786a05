//! Events: `aclrtCreateEvent*`, record, query, synchronize, elapsed time,
//! reset, destroy, over the core's events (`core::event`). An `aclrtEvent`
//! is `EVENT_BASE` + the core's event number.
#![allow(non_snake_case)]

use vmmkit_sys::acl::rules;
use vmmkit_sys::acl::*;

use super::call::{Fail, current_device, emu, ensure, run};
use crate::ffi::Out;
use super::device::stream_id;
use super::state::{lock, state};
use crate::core::{CoreError, EventFlags, EventId};

const EVENT_BASE: usize = 0x00e7_e000_0000_0000;

/// Every flag aclrtCreateEventWithFlag takes (RT_EVENT_FLAG_MAX, event.hpp:37).
const FLAG_MAX: u32 = 0x3f;
/// Flags that must stand alone (api_error.cc:1639-1644).
const SOLE: [u32; 2] = [ACL_EVENT_DEVICE_USE_ONLY, ACL_EVENT_EXTERNAL];

/// The core event of `e`, which must be an event this process made (107000 otherwise).
pub(super) fn event_id(e: aclrtEvent) -> Result<EventId, Fail> {
    let em = emu()?;
    let id = EventId((e as usize).wrapping_sub(EVENT_BASE) as u64);
    if e.is_null() || !lock(&state(em).events).contains_key(&(e as usize)) || !em.event_exists(id) {
        return Err(Fail::plain(AclError::RT_PARAM_INVALID, format!("{e:p} is not an event of this process")));
    }
    Ok(id)
}

/// The `aclrtEvent` of core event `id` opened from another process (the
/// IPC part's `aclrtIpcOpenEventHandle`): an IPC event, of the new mode.
#[allow(dead_code)] // its caller, acl/ipc_event.rs, is on branch wt-ipc
pub(super) fn handle_of(id: EventId) -> Result<aclrtEvent, Fail> {
    handle_with(id, true)
}

/// The `aclrtEvent` of core event `id`; `new_mode` as the runtime's
/// `isNewMode_` (aclrtCreateEventExWithFlag's events, and IPC events).
fn handle_with(id: EventId, new_mode: bool) -> Result<aclrtEvent, Fail> {
    let h = EVENT_BASE + id.0 as usize;
    lock(&state(emu()?).events).insert(h, new_mode);
    Ok(h as aclrtEvent)
}

/// Whether `e` (a known event) is of the new mode.
fn new_mode(e: aclrtEvent) -> Result<bool, Fail> {
    Ok(lock(&state(emu()?).events).get(&(e as usize)).copied().unwrap_or(false))
}

fn create(event: Out<'_, aclrtEvent>, flags: EventFlags, new_mode: bool) -> Result<(), Fail> {
    current_device()?;
    let id = emu()?.event_create(flags).map_err(|e| Fail::plain(AclError::RT_DRV_INTERNAL_ERROR, e.to_string()))?;
    let h = handle_with(id, new_mode)?;
    event.write(h)?;
    Ok(())
}

/// What a flag word of aclrtCreateEvent*WithFlag means to the core.
fn flags_of(flag: u32) -> EventFlags {
    EventFlags {
        timing: flag & ACL_EVENT_TIME_LINE != 0,
        blocking_sync: flag & ACL_EVENT_SYNC != 0,
        interprocess: flag & ACL_EVENT_IPC != 0,
    }
}

/// `aclError aclrtCreateEvent(aclrtEvent *event)`: [ACL-EVT-001](vmmkit_sys::acl::rules::EVT_001). RT_EVENT_DEFAULT
/// includes RT_EVENT_TIME_LINE (event.h:63): the event keeps time.
pub extern "C" fn aclrtCreateEvent(event: Out<'_, aclrtEvent>) -> aclError {
    run("aclrtCreateEvent", || {
        ensure!(!event.is_null(), rules::EVT_001, "event is NULL");
        create(event, EventFlags { timing: true, ..EventFlags::default() }, false)
    })
}

/// `aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)`: [ACL-EVT-001](vmmkit_sys::acl::rules::EVT_001), [ACL-EVT-002](vmmkit_sys::acl::rules::EVT_002).
pub extern "C" fn aclrtCreateEventWithFlag(event: Out<'_, aclrtEvent>, flag: u32) -> aclError {
    run("aclrtCreateEventWithFlag", || {
        ensure!(!event.is_null(), rules::EVT_001, "event is NULL");
        ensure!(flag != 0 && flag <= FLAG_MAX, rules::EVT_002, "flag {flag:#x} is not an OR of 0x1, 0x2, 0x4, 0x8");
        for sole in SOLE {
            ensure!(flag & sole == 0 || flag == sole, rules::EVT_002, "flag {sole:#x} cannot be combined ({flag:#x})");
        }
        create(event, flags_of(flag), false)
    })
}

/// `aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)`:
/// [ACL-EVT-001](vmmkit_sys::acl::rules::EVT_001); ACL_EVENT_IPC (0x40) alone makes an interprocess event
/// (ApiErrorDecorator::EventCreateEx, api_error.cc:1653-1679).
pub extern "C" fn aclrtCreateEventExWithFlag(event: Out<'_, aclrtEvent>, flag: u32) -> aclError {
    run("aclrtCreateEventExWithFlag", || {
        ensure!(!event.is_null(), rules::EVT_001, "event is NULL");
        let ipc = flag & ACL_EVENT_IPC != 0;
        let bad = (ipc && flag != ACL_EVENT_IPC) || flag & 0x4f == 0 || flag > 0x4f;
        if bad {
            return Err(Fail::plain(AclError::RT_PARAM_INVALID, format!("flag {flag:#x} is not valid here")));
        }
        create(event, flags_of(flag), true)
    })
}

/// `aclError aclrtDestroyEvent(aclrtEvent event)`: [ACL-EVT-001](vmmkit_sys::acl::rules::EVT_001). Records already enqueued still complete.
pub extern "C" fn aclrtDestroyEvent(event: aclrtEvent) -> aclError {
    run("aclrtDestroyEvent", || {
        ensure!(!event.is_null(), rules::EVT_001, "event is NULL");
        let id = event_id(event)?;
        let e = emu()?;
        lock(&state(e).events).remove(&(event as usize));
        e.event_destroy(id).map_err(event_fail)
    })
}

pub(super) fn event_fail(e: CoreError) -> Fail {
    match e {
        CoreError::Timeout => Fail::plain(AclError::RT_EVENT_SYNC_TIMEOUT, e.to_string()),
        CoreError::Abandoned => Fail::core_under(&rules::IEV_005, e),
        CoreError::EventNotRecorded(_) => Fail::core_under_code(&rules::EVT_005, AclError::RT_INTERNAL_ERROR, e),
        CoreError::TimingDisabled(_) => Fail::core_under(&rules::EVT_006, e),
        CoreError::NotReady => Fail::plain(AclError::RT_EVENT_NOT_COMPLETE, e.to_string()),
        CoreError::UnknownEvent(_) | CoreError::UnknownStream(_) => Fail::plain(AclError::RT_PARAM_INVALID, e.to_string()),
        other => Fail::plain(AclError::RT_DRV_INTERNAL_ERROR, other.to_string()),
    }
}

/// `aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)`: [ACL-EVT-001](vmmkit_sys::acl::rules::EVT_001).
pub extern "C" fn aclrtRecordEvent(event: aclrtEvent, stream: aclrtStream) -> aclError {
    run("aclrtRecordEvent", || {
        ensure!(!event.is_null(), rules::EVT_001, "event is NULL");
        let id = event_id(event)?;
        emu()?.event_record(id, stream_id(stream)?).map_err(event_fail)
    })
}

/// `aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)`: the
/// caller must have waited for the stream (acl_rt.h:1781-1789); the event's
/// later waits refer to its later records, as the core's always do.
pub extern "C" fn aclrtResetEvent(event: aclrtEvent, stream: aclrtStream) -> aclError {
    run("aclrtResetEvent", || {
        ensure!(!event.is_null(), rules::EVT_001, "event is NULL");
        event_id(event)?;
        stream_id(stream)?;
        Ok(())
    })
}

/// Whether the event's last record has run. An event never recorded is
/// done in the new mode and not in the old (Event::QueryEventStatus,
/// event.cc:1193-1198).
fn recorded_done(event: aclrtEvent) -> Result<bool, Fail> {
    let id = event_id(event)?;
    super::model::refuse_captured_event(id, "aclrtQueryEventStatus")?;
    let e = emu()?;
    if e.event(id).map_err(event_fail)?.cell.last() == 0 {
        return new_mode(event);
    }
    e.event_query(id).map_err(event_fail)
}

/// [ACL-EVT-008](vmmkit_sys::acl::rules::EVT_008): the old queries refuse new-mode events (207000).
fn old_query(event: aclrtEvent) -> Result<bool, Fail> {
    let id = event_id(event)?;
    ensure!(!new_mode(event)?, rules::EVT_008, "the event was made by aclrtCreateEventExWithFlag (or is an IPC event)");
    emu()?.event_query(id).map_err(event_fail)
}

/// The three queries: the NULL checks, then `yes` or `no` as `done` says.
/// (The status enums are all C `int`s.)
fn query(event: aclrtEvent, status: Out<'_, i32>, done: fn(aclrtEvent) -> Result<bool, Fail>, yes: i32, no: i32) -> Result<(), Fail> {
    ensure!(!event.is_null(), rules::EVT_001, "event is NULL");
    ensure!(!status.is_null(), rules::EVT_004, "status is NULL");
    let v = if done(event)? { yes } else { no };
    status.write(v)?;
    Ok(())
}

/// `aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)`:
/// COMPLETE (0) or NOT_READY (1) (event.cpp:124-139; an event never recorded
/// is complete, as rtEventQuery finds nothing pending); [ACL-EVT-008](vmmkit_sys::acl::rules::EVT_008).
pub extern "C" fn aclrtQueryEvent(event: aclrtEvent, status: Out<'_, aclrtEventStatus>) -> aclError {
    run("aclrtQueryEvent", || {
        query(event, status, old_query, ACL_EVENT_STATUS_COMPLETE, ACL_EVENT_STATUS_NOT_READY)
    })
}

/// `aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)`: [ACL-EVT-004](vmmkit_sys::acl::rules::EVT_004).
pub extern "C" fn aclrtQueryEventStatus(event: aclrtEvent, status: Out<'_, aclrtEventRecordedStatus>) -> aclError {
    run("aclrtQueryEventStatus", || {
        query(event, status, recorded_done, ACL_EVENT_RECORDED_STATUS_COMPLETE, ACL_EVENT_RECORDED_STATUS_NOT_READY)
    })
}

/// `aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)`:
/// whether a wait on the event would return now; [ACL-EVT-008](vmmkit_sys::acl::rules::EVT_008).
pub extern "C" fn aclrtQueryEventWaitStatus(event: aclrtEvent, status: Out<'_, aclrtEventWaitStatus>) -> aclError {
    run("aclrtQueryEventWaitStatus", || {
        query(event, status, old_query, ACL_EVENT_WAIT_STATUS_COMPLETE, ACL_EVENT_WAIT_STATUS_NOT_READY)
    })
}

/// `aclError aclrtSynchronizeEvent(aclrtEvent event)`: [ACL-EVT-001](vmmkit_sys::acl::rules::EVT_001).
pub extern "C" fn aclrtSynchronizeEvent(event: aclrtEvent) -> aclError {
    run("aclrtSynchronizeEvent", || {
        ensure!(!event.is_null(), rules::EVT_001, "event is NULL");
        let id = event_id(event)?;
        super::model::refuse_captured_event(id, "aclrtSynchronizeEvent")?;
        emu()?.event_synchronize(id, None).map_err(event_fail)
    })
}

/// `aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)`:
/// [ACL-EVT-003](vmmkit_sys::acl::rules::EVT_003) (the timeout is checked first); 507047 on timeout.
pub extern "C" fn aclrtSynchronizeEventWithTimeout(event: aclrtEvent, timeout: i32) -> aclError {
    run("aclrtSynchronizeEventWithTimeout", || {
        ensure!(timeout >= -1, rules::EVT_003 => AclError::RT_PARAM_INVALID, "timeout {timeout} is below -1");
        ensure!(!event.is_null(), rules::EVT_003 => AclError::INVALID_PARAM, "event is NULL");
        ensure!(timeout != 0, rules::EVT_003 => AclError::RT_PARAM_INVALID, "timeout 0 is refused by the runtime");
        let t = (timeout > 0).then(|| std::time::Duration::from_millis(timeout as u64));
        let id = event_id(event)?;
        super::model::refuse_captured_event(id, "aclrtSynchronizeEventWithTimeout")?;
        emu()?.event_synchronize(id, t).map_err(event_fail)
    })
}

/// `aclError aclrtEventElapsedTime(float *ms, aclrtEvent start, aclrtEvent end)`: [ACL-EVT-005](vmmkit_sys::acl::rules::EVT_005), [ACL-EVT-006](vmmkit_sys::acl::rules::EVT_006).
pub extern "C" fn aclrtEventElapsedTime(ms: Out<'_, f32>, startEvent: aclrtEvent, endEvent: aclrtEvent) -> aclError {
    run("aclrtEventElapsedTime", || {
        ensure!(!ms.is_null(), rules::EVT_005 => AclError::INVALID_PARAM, "ms is NULL");
        ensure!(!startEvent.is_null(), rules::EVT_005 => AclError::INVALID_PARAM, "startEvent is NULL");
        ensure!(!endEvent.is_null(), rules::EVT_005 => AclError::INVALID_PARAM, "endEvent is NULL");
        let (a, b) = (event_id(startEvent)?, event_id(endEvent)?);
        let e = emu()?;
        // Event::ElapsedTime checks the records first (event.cc:1249), then the stamps.
        for id in [a, b] {
            if e.event(id).map_err(event_fail)?.cell.last() == 0 {
                return Err(event_fail(CoreError::EventNotRecorded(id.0)));
            }
        }
        let v = e.event_elapsed(a, b).map_err(event_fail)?;
        ms.write(v)?;
        Ok(())
    })
}
