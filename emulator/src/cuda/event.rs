//! Events (cuEvent*) and IPC events (cuIpcGetEventHandle,
//! cuIpcOpenEventHandle) over the core's events (`core::event`):
//! [CUDA-EVT-001](vmmkit_sys::cuda::rules::EVT_001) … 006, [CUDA-IEV-001](vmmkit_sys::cuda::rules::IEV_001) … 003.
//!
//! An event's queries, waits and elapsed time refer to its last record, as
//! on the driver. An interprocess event (`CU_EVENT_INTERPROCESS`, which
//! needs `CU_EVENT_DISABLE_TIMING`) is shared through the registry: its
//! handle carries the registry key, the exporter's pid and device; another
//! process opens it as an event with timing disabled, and records, queries
//! and waits of either process act on the same words.
#![allow(non_snake_case)]

use vmmkit_sys::cuda::rules;
use vmmkit_sys::cuda::*;

use super::call::{Fail, emu, ensure, run};
use super::codes::Op;
use super::context::current;
use super::stream::stream_of;
use crate::ffi::Out;
use crate::core::{Emulator, EventFlags, EventId, HandleId, HandleTag, IPC_HANDLE_SIZE, IpcToken};

const TAG: HandleTag = HandleTag::new(0x6365);
/// The magic of an IPC event handle (`core::IpcToken`'s layout).
const MAGIC: [u8; 8] = *b"VMMKCEV1";
const KNOWN_FLAGS: u32 = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;

fn to_event(id: EventId) -> CUevent {
    TAG.value(HandleId(id.0)) as CUevent
}

/// The live event `h` names: NULL is [CUDA-EVT-006](vmmkit_sys::cuda::rules::EVT_006) (400; `None` when that
/// rule is mutated away), any other value that names no live event 400.
pub(super) fn event_of(e: &Emulator, h: CUevent) -> Result<Option<EventId>, Fail> {
    ensure!(!h.is_null(), rules::EVT_006, "the event is NULL");
    if h.is_null() {
        return Ok(None);
    }
    TAG.id(h as usize)
        .map(|id| EventId(id.0))
        .filter(|&id| e.event_exists(id))
        .map(Some)
        .ok_or_else(|| Fail::plain(CuResult::INVALID_HANDLE, format!("{h:p} is not a live event")))
}

/// The live event `h` names, after the current context check.
fn live(h: CUevent) -> Result<Option<(&'static Emulator, u32, EventId)>, Fail> {
    let d = current()?;
    let e = emu()?;
    Ok(event_of(e, h)?.map(|id| (e, d, id)))
}

/// `CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)`: [CUDA-EVT-001](vmmkit_sys::cuda::rules::EVT_001).
pub extern "C" fn cuEventCreate(phEvent: Out<'_, CUevent>, Flags: u32) -> CUresult {
    run("cuEventCreate", || {
        current()?;
        ensure!(!phEvent.is_null(), rules::EVT_001, "phEvent is NULL");
        ensure!(Flags & !KNOWN_FLAGS == 0, rules::EVT_001, "Flags {Flags:#x} has bits that are no CUevent_flags");
        let ipc = Flags & CU_EVENT_INTERPROCESS != 0;
        let timing = Flags & CU_EVENT_DISABLE_TIMING == 0;
        ensure!(!(ipc && timing), rules::EVT_001, "CU_EVENT_INTERPROCESS needs CU_EVENT_DISABLE_TIMING");
        if phEvent.is_null() {
            return Ok(());
        }
        let flags = EventFlags { timing, blocking_sync: Flags & CU_EVENT_BLOCKING_SYNC != 0, interprocess: ipc };
        let id = emu()?.event_create(flags).map_err(|er| Fail::core(Op::Event, er))?;
        phEvent.write(to_event(id))?;
        Ok(())
    })
}

/// `CUresult cuEventRecord(CUevent hEvent, CUstream hStream)`: the event
/// completes when the work enqueued on the stream before it has.
pub extern "C" fn cuEventRecord(hEvent: CUevent, hStream: CUstream) -> CUresult {
    run("cuEventRecord", || {
        let Some((e, d, id)) = live(hEvent)? else { return Ok(()) };
        let s = stream_of(e, hStream, d)?;
        e.event_record(id, s).map_err(|er| Fail::core(Op::Event, er))
    })
}

/// `CUresult cuEventQuery(CUevent hEvent)`: 0, or 600 while its last record
/// is pending ([CUDA-EVT-002](vmmkit_sys::cuda::rules::EVT_002)).
pub extern "C" fn cuEventQuery(hEvent: CUevent) -> CUresult {
    run("cuEventQuery", || {
        let Some((e, _, id)) = live(hEvent)? else { return Ok(()) };
        let done = e.event_query(id).map_err(|er| Fail::core(Op::Event, er))?;
        ensure!(done, rules::EVT_002, "the work before the event's last record has not completed");
        Ok(())
    })
}

/// `CUresult cuEventSynchronize(CUevent hEvent)`: waits for its last record ([CUDA-EVT-003](vmmkit_sys::cuda::rules::EVT_003)).
pub extern "C" fn cuEventSynchronize(hEvent: CUevent) -> CUresult {
    run("cuEventSynchronize", || {
        let Some((e, _, id)) = live(hEvent)? else { return Ok(()) };
        e.event_synchronize(id, None).map_err(|er| Fail::core(Op::Event, er))
    })
}

/// `CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)`:
/// [CUDA-EVT-004](vmmkit_sys::cuda::rules::EVT_004) (NULL → 1; timing disabled or never recorded → 400), -005 (pending → 600).
pub extern "C" fn cuEventElapsedTime(pMilliseconds: Out<'_, f32>, hStart: CUevent, hEnd: CUevent) -> CUresult {
    run("cuEventElapsedTime", || {
        current()?;
        ensure!(!pMilliseconds.is_null(), rules::EVT_004 => CuResult::INVALID_VALUE, "pMilliseconds is NULL");
        let e = emu()?;
        let (Some(a), Some(b)) = (event_of(e, hStart)?, event_of(e, hEnd)?) else { return Ok(()) };
        let ms = e.event_elapsed(a, b).map_err(|er| Fail::core(Op::Elapsed, er))?;
        if !pMilliseconds.is_null() {
            pMilliseconds.write(ms)?;
        }
        Ok(())
    })
}

/// `CUresult cuEventDestroy_v2(CUevent hEvent)`: records already enqueued still complete.
pub extern "C" fn cuEventDestroy(hEvent: CUevent) -> CUresult {
    run("cuEventDestroy", || {
        let Some((e, _, id)) = live(hEvent)? else { return Ok(()) };
        e.event_destroy(id).map_err(|er| Fail::core(Op::Event, er))
    })
}

/// `CUresult cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event)`:
/// [CUDA-IEV-001](vmmkit_sys::cuda::rules::IEV_001) (NULL → 1; an event without CU_EVENT_INTERPROCESS → 400).
pub extern "C" fn cuIpcGetEventHandle(pHandle: Out<'_, CUipcEventHandle>, event: CUevent) -> CUresult {
    run("cuIpcGetEventHandle", || {
        let d = current()?;
        ensure!(!pHandle.is_null(), rules::IEV_001 => CuResult::INVALID_VALUE, "pHandle is NULL");
        let e = emu()?;
        let Some(id) = event_of(e, event)? else { return Ok(()) };
        let ipc = e.event(id).map_err(|er| Fail::core(Op::Event, er))?.flags.interprocess;
        ensure!(ipc, rules::IEV_001, "the event was made without CU_EVENT_INTERPROCESS");
        if !ipc || pHandle.is_null() {
            return Ok(());
        }
        let key = e.event_export(id).map_err(|er| Fail::core(Op::IpcEvent, er))?;
        let token = IpcToken { key, generation: 0, size: 0, offset: 0, pid: std::process::id() as i32, device: d as i32 };
        let bytes = token.encode(MAGIC).map(|b| b as std::ffi::c_char);
        pHandle.write(CUipcEventHandle { reserved: bytes })?;
        Ok(())
    })
}

/// `CUresult cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle)`:
/// an event with timing disabled on the same words; in the exporting process 201 ([CUDA-IEV-002](vmmkit_sys::cuda::rules::IEV_002)).
pub extern "C" fn cuIpcOpenEventHandle(phEvent: Out<'_, CUevent>, handle: CUipcEventHandle) -> CUresult {
    run("cuIpcOpenEventHandle", || {
        current()?;
        if phEvent.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "phEvent is NULL".into()));
        }
        let bytes: [u8; IPC_HANDLE_SIZE] = handle.reserved.map(|c| c as u8);
        let Some(token) = IpcToken::decode(MAGIC, &bytes) else {
            return Err(Fail::plain(CuResult::INVALID_HANDLE, "the handle names no exported event".into()));
        };
        let e = emu()?;
        let info = e.shared_cell_info(token.key).map_err(|er| Fail::core(Op::IpcEvent, er))?;
        // The creator is the one the registry recorded, never the handle's pid field.
        if i32::try_from(info.creator.pid) != Ok(token.pid) {
            return Err(Fail::plain(CuResult::INVALID_HANDLE, "the handle names no exported event".into()));
        }
        ensure!(!info.created_here, rules::IEV_002, "the event was made by this process; open it in another");
        let id = e.event_open(token.key).map_err(|er| Fail::core(Op::IpcEvent, er))?;
        phEvent.write(to_event(id))?;
        Ok(())
    })
}
