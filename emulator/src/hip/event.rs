//! Events (clr 6.3 `hipamd/src/hip_event.cpp`, `hip_event_ipc.cpp`):
//! hipEventCreate*, Record, Query, Synchronize, ElapsedTime, Destroy and
//! the IPC event handles ([HIP-EVT-001](vmmkit_sys::hip::rules::EVT_001) … 007, [HIP-IEV-001](vmmkit_sys::hip::rules::IEV_001) … 003), on the
//! core's events.
//!
//! An event value is a tagged [`HandleTag`] value, looked up, never
//! dereferenced: clr dereferences a destroyed event in every call but
//! hipEventDestroy (which answers 709 from its set of events); the
//! emulator answers 400 there ([HIP-EVT-007](vmmkit_sys::hip::rules::EVT_007), undetermined).
#![allow(non_snake_case)]

use vmmkit_sys::hip::rules;
use vmmkit_sys::hip::*;

use super::call::{Fail, current_device, emu, ensure, run};
use super::state::state;
use super::stream::{or_none, refuse, resolve as resolve_stream, work_failed};
use crate::ffi::Out;
use crate::core::{CoreError, Emulator, EventFlags, EventId, HandleId, HandleTag, IpcToken, SharedCellInfo};
use crate::registry::CellKind;

const TAG: HandleTag = HandleTag::new(0x6865);
/// The magic of an IPC event handle (`core::IpcToken`'s layout).
const MAGIC: [u8; 8] = *b"VMMKHEV1";

/// Every flag clr's `ihipEventCreateWithFlags` accepts.
const SUPPORTED: u32 = hipEventDefault
    | hipEventBlockingSync
    | hipEventDisableTiming
    | hipEventInterprocess
    | hipEventDisableSystemFence
    | hipEventReleaseToDevice
    | hipEventReleaseToSystem;
/// At most one of these.
const RELEASE: u32 = hipEventDisableSystemFence | hipEventReleaseToDevice | hipEventReleaseToSystem;

fn to_event(id: EventId) -> hipEvent_t {
    TAG.value(HandleId(id.0)) as hipEvent_t
}

/// The event `ev` (not NULL) names: a dead one is [HIP-EVT-007](vmmkit_sys::hip::rules::EVT_007) (400); `None`
/// when that check was switched off.
pub(super) fn resolve(e: &Emulator, ev: hipEvent_t) -> Result<Option<EventId>, Fail> {
    let id = TAG.id(ev as usize).map(|h| EventId(h.0)).filter(|&id| e.event_exists(id));
    or_none(id.ok_or_else(|| refuse(&rules::EVT_007, HipError::INVALID_HANDLE, format!("{ev:p} is not a live event"))))
}

/// The event of a call whose first check is `rule`'s NULL event (400),
/// then [HIP-EVT-007](vmmkit_sys::hip::rules::EVT_007); `None` when a check was switched off.
fn named(e: &Emulator, event: hipEvent_t, rule: &'static vmmkit_sys::rule::Rule) -> Result<Option<EventId>, Fail> {
    if event.is_null() {
        return or_none(Err(refuse(rule, HipError::INVALID_HANDLE, "event is NULL".into())));
    }
    resolve(e, event)
}

fn create(event: Out<'_, hipEvent_t>, flags: u32) -> Result<(), Fail> {
    ensure!(!event.is_null(), rules::EVT_001, "event is NULL");
    ensure!(flags & !SUPPORTED == 0, rules::EVT_001, "flags {flags:#x} has bits no event flag names");
    ensure!((flags & RELEASE).count_ones() <= 1, rules::EVT_001, "flags {flags:#x} has more than one release flag");
    ensure!(
        flags & hipEventInterprocess == 0 || flags & hipEventDisableTiming != 0,
        rules::EVT_001,
        "hipEventInterprocess needs hipEventDisableTiming"
    );
    if event.is_null() {
        return Ok(());
    }
    let e = emu()?;
    let id = e
        .event_create(EventFlags {
            timing: flags & hipEventDisableTiming == 0,
            blocking_sync: flags & hipEventBlockingSync != 0,
            interprocess: flags & hipEventInterprocess != 0,
        })
        .map_err(|er| Fail::plain(HipError::OUT_OF_MEMORY, er.to_string()))?;
    state(e).note_event(id, current_device());
    event.write(to_event(id))?;
    Ok(())
}

/// `hipError_t hipEventCreate(hipEvent_t *event)`: [HIP-EVT-001](vmmkit_sys::hip::rules::EVT_001).
pub extern "C" fn hipEventCreate(event: Out<'_, hipEvent_t>) -> hipError_t {
    run("hipEventCreate", || create(event, hipEventDefault))
}

/// `hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags)`: [HIP-EVT-001](vmmkit_sys::hip::rules::EVT_001).
pub extern "C" fn hipEventCreateWithFlags(event: Out<'_, hipEvent_t>, flags: u32) -> hipError_t {
    run("hipEventCreateWithFlags", || create(event, flags))
}

/// `hipError_t hipEventDestroy(hipEvent_t event)`: [HIP-EVT-002](vmmkit_sys::hip::rules::EVT_002): NULL → 400,
/// destroyed → 709. Records already enqueued still complete.
pub extern "C" fn hipEventDestroy(event: hipEvent_t) -> hipError_t {
    run("hipEventDestroy", || {
        ensure!(!event.is_null(), rules::EVT_002 => HipError::INVALID_HANDLE, "event is NULL");
        let e = emu()?;
        let id = TAG.id(event as usize).map(|h| EventId(h.0)).filter(|&id| e.event_exists(id));
        ensure!(id.is_some(), rules::EVT_002 => HipError::CONTEXT_IS_DESTROYED, "{event:p} is not a live event");
        let Some(id) = id else { return Ok(()) };
        state(e).forget_event(id);
        e.event_destroy(id).map_err(|er| Fail::core_under_code(&rules::EVT_002, HipError::CONTEXT_IS_DESTROYED, er))
    })
}

/// `hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream)`:
/// [HIP-EVT-003](vmmkit_sys::hip::rules::EVT_003): NULL event → 400; a dead stream → 709; a stream of another
/// device → 400; [HIP-EVT-007](vmmkit_sys::hip::rules::EVT_007).
pub extern "C" fn hipEventRecord(event: hipEvent_t, stream: hipStream_t) -> hipError_t {
    run("hipEventRecord", || record(event, stream))
}

/// `hipError_t hipEventRecord_spt(hipEvent_t event, hipStream_t stream)`:
/// hipEventRecord where NULL is the thread's default stream.
pub extern "C" fn hipEventRecord_spt(event: hipEvent_t, stream: hipStream_t) -> hipError_t {
    run("hipEventRecord_spt", || record(event, super::stream::spt(stream)))
}

/// `hipError_t hipEventRecordWithFlags(hipEvent_t event, hipStream_t stream, unsigned int flags)` (6.4):
/// `flags` other than `hipEventRecordDefault` or `hipEventRecordExternal` → 1
/// (the external kind only matters inside graphs); then as hipEventRecord.
pub extern "C" fn hipEventRecordWithFlags(event: hipEvent_t, stream: hipStream_t, flags: u32) -> hipError_t {
    run("hipEventRecordWithFlags", || {
        if flags != hipEventRecordDefault && flags != hipEventRecordExternal {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("flags {flags:#x} is not a hipEventRecord flag")));
        }
        record(event, stream)
    })
}

/// hipEventRecord's checks and the record.
fn record(event: hipEvent_t, stream: hipStream_t) -> Result<(), Fail> {
    ensure!(!event.is_null(), rules::EVT_003 => HipError::INVALID_HANDLE, "event is NULL");
    if event.is_null() {
        return Ok(());
    }
    let e = emu()?;
    let Some(sid) = or_none(resolve_stream(e, stream, &rules::EVT_003, HipError::CONTEXT_IS_DESTROYED))? else {
        return Ok(());
    };
    let Some(id) = resolve(e, event)? else { return Ok(()) };
    let (device, _) = e.stream_info(sid).map_err(work_failed)?;
    let own = state(e).event_device(id);
    ensure!(
        device == own,
        rules::EVT_003 => HipError::INVALID_HANDLE,
        "the event was made on device {own}, the stream is on device {device}"
    );
    e.event_record(id, sid).map_err(work_failed)
}

/// `hipError_t hipEventQuery(hipEvent_t event)`: [HIP-EVT-004](vmmkit_sys::hip::rules::EVT_004): NULL → 400;
/// 600 while its last record has not completed; 0 when it has, or when it
/// was never recorded; [HIP-EVT-007](vmmkit_sys::hip::rules::EVT_007).
pub extern "C" fn hipEventQuery(event: hipEvent_t) -> hipError_t {
    run("hipEventQuery", || {
        let e = emu()?;
        let Some(id) = named(e, event, &rules::EVT_004)? else { return Ok(()) };
        let captured = e.capture_holds_event(id);
        ensure!(!captured, rules::GRF_013 => HipError::CAPTURED_EVENT, "the event was last recorded in an active capture");
        let done = e.event_query(id).map_err(recorder_gone)?;
        ensure!(done, rules::EVT_004 => HipError::NOT_READY, "the event's last record has not completed");
        Ok(())
    })
}

/// `hipError_t hipEventSynchronize(hipEvent_t event)`: [HIP-EVT-005](vmmkit_sys::hip::rules::EVT_005): NULL →
/// 400; waits for its last record (at once if never recorded); [HIP-EVT-007](vmmkit_sys::hip::rules::EVT_007).
/// Then the pools of the event's device give back the freed blocks whose
/// frees have been passed ([HIP-POOL-021](vmmkit_sys::hip::rules::POOL_021)).
pub extern "C" fn hipEventSynchronize(event: hipEvent_t) -> hipError_t {
    run("hipEventSynchronize", || {
        let e = emu()?;
        let Some(id) = named(e, event, &rules::EVT_005)? else { return Ok(()) };
        let captured = e.capture_holds_event(id);
        ensure!(!captured, rules::GRF_013 => HipError::CAPTURED_EVENT, "the event was last recorded in an active capture");
        let r = e.event_synchronize(id, None).map_err(recorder_gone);
        super::pool::release_freed(e, Some(state(e).event_device(id)));
        r
    })
}

/// A wait or query of an event whose pending record's process died: clr
/// would wait for a signal that never comes; the emulator ends it under
/// [HIP-IEV-004](vmmkit_sys::hip::rules::IEV_004). Any other error is the stream work's.
fn recorder_gone(e: CoreError) -> Fail {
    match e {
        CoreError::Abandoned => Fail::core_under(&rules::IEV_004, e),
        e => work_failed(e),
    }
}

/// The checks of clr's `Event::elapsedTime` on one event (`start == stop`)
/// or two, in its order: unrecorded → 400, timing disabled → 400, not
/// complete → 600.
fn elapsed_checks(e: &Emulator, ids: &[EventId]) -> Result<bool, Fail> {
    let evs = ids.iter().map(|&id| e.event(id).map(|ev| (id, ev))).collect::<Result<Vec<_>, _>>().map_err(work_failed)?;
    for (id, ev) in &evs {
        ensure!(ev.cell.last() != 0, rules::EVT_006 => HipError::INVALID_HANDLE, "event {} was never recorded", id.0);
    }
    for (id, ev) in &evs {
        ensure!(ev.flags.timing, rules::EVT_006 => HipError::INVALID_HANDLE, "event {} was made with hipEventDisableTiming", id.0);
    }
    for (id, _) in &evs {
        let done = e.event_query(*id).map_err(work_failed)?;
        ensure!(done, rules::EVT_006 => HipError::NOT_READY, "event {}'s last record has not completed", id.0);
    }
    Ok(evs.iter().all(|(_, ev)| ev.cell.last() != 0 && ev.flags.timing))
}

/// `hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop)`:
/// [HIP-EVT-006](vmmkit_sys::hip::rules::EVT_006): NULL ms → 1; a NULL event → 400; events of two devices →
/// 400; then, as clr's `Event::elapsedTime`: never recorded → 400, timing
/// disabled → 400, not complete → 600; the same event twice → 0 ms.
pub extern "C" fn hipEventElapsedTime(ms: Out<'_, f32>, start: hipEvent_t, stop: hipEvent_t) -> hipError_t {
    run("hipEventElapsedTime", || {
        ensure!(!ms.is_null(), rules::EVT_006, "ms is NULL");
        ensure!(
            !start.is_null() && !stop.is_null(),
            rules::EVT_006 => HipError::INVALID_HANDLE,
            "start or stop is NULL"
        );
        if start.is_null() || stop.is_null() {
            return Ok(());
        }
        let e = emu()?;
        let (Some(a), Some(b)) = (resolve(e, start)?, resolve(e, stop)?) else { return Ok(()) };
        let (da, db) = (state(e).event_device(a), state(e).event_device(b));
        ensure!(da == db, rules::EVT_006 => HipError::INVALID_HANDLE, "start is on device {da}, stop on device {db}");
        let ids: &[EventId] = if a == b { &[a] } else { &[a, b] };
        if !elapsed_checks(e, ids)? || ms.is_null() {
            return Ok(());
        }
        let v = if a == b { 0.0 } else { e.event_elapsed(a, b).map_err(work_failed)? };
        ms.write(v)?;
        Ok(())
    })
}

/// `hipError_t hipIpcGetEventHandle(hipIpcEventHandle_t *handle, hipEvent_t event)`:
/// [HIP-IEV-001](vmmkit_sys::hip::rules::IEV_001): NULL → 1; an event made without hipEventInterprocess → 9
/// (hipErrorInvalidConfiguration, clr's `Event::GetHandle`); [HIP-EVT-007](vmmkit_sys::hip::rules::EVT_007).
pub extern "C" fn hipIpcGetEventHandle(handle: Out<'_, hipIpcEventHandle_t>, event: hipEvent_t) -> hipError_t {
    run("hipIpcGetEventHandle", || {
        ensure!(!handle.is_null() && !event.is_null(), rules::IEV_001, "handle or event is NULL");
        if event.is_null() {
            return Ok(());
        }
        let e = emu()?;
        let Some(id) = resolve(e, event)? else { return Ok(()) };
        let ev = e.event(id).map_err(work_failed)?;
        ensure!(
            ev.flags.interprocess,
            rules::IEV_001 => HipError::INVALID_CONFIGURATION,
            "the event was made without hipEventInterprocess"
        );
        let key = e.event_export(id).map_err(|er| Fail::core_under(&rules::IEV_001, er))?;
        let token = IpcToken {
            key,
            generation: 0,
            size: 0,
            offset: 0,
            pid: std::process::id() as i32,
            device: state(e).event_device(id) as i32,
        };
        if handle.is_null() {
            return Ok(());
        }
        let bytes = token.encode(MAGIC).map(|b| b as std::ffi::c_char);
        handle.write(hipIpcEventHandle_t { reserved: bytes })?;
        Ok(())
    })
}

/// `hipError_t hipIpcOpenEventHandle(hipEvent_t *event, hipIpcEventHandle_t handle)`:
/// [HIP-IEV-002](vmmkit_sys::hip::rules::IEV_002): NULL event → 1; a handle that names no event → 1; a handle
/// of this process → 201 (hipErrorInvalidContext). The event opened is
/// interprocess with timing disabled, as clr makes it.
pub extern "C" fn hipIpcOpenEventHandle(event: Out<'_, hipEvent_t>, handle: hipIpcEventHandle_t) -> hipError_t {
    run("hipIpcOpenEventHandle", || {
        ensure!(!event.is_null(), rules::IEV_002, "event is NULL");
        let e = emu()?;
        let data = handle.reserved.map(|c| c as u8);
        let token = IpcToken::decode(MAGIC, &data);
        ensure!(token.is_some(), rules::IEV_002, "the handle names no event (not one of hipIpcGetEventHandle's)");
        let Some(token) = token else { return Ok(()) };
        // clr maps the shared memory the handle names (a failure is 1), then
        // compares its owner's pid with its own (201).
        // The creator is the one the registry recorded, never the handle's pid field.
        let recorded = |i: &SharedCellInfo| i.kind == CellKind::Event && i32::try_from(i.creator.pid) == Ok(token.pid);
        let info = e.shared_cell_info(token.key).ok().filter(recorded);
        ensure!(info.is_some(), rules::IEV_002, "the handle names no live IPC event (key {:#x})", token.key);
        ensure!(
            !info.is_some_and(|i| i.created_here),
            rules::IEV_002 => HipError::INVALID_CONTEXT,
            "the handle was made by this process (pid {})", token.pid
        );
        let id = e.event_open(token.key).map_err(|er| Fail::core_under(&rules::IEV_002, er))?;
        state(e).note_event(id, current_device());
        if event.is_null() {
            return Ok(());
        }
        event.write(to_event(id))?;
        Ok(())
    })
}


