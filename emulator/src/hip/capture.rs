//! The stream-capture queries (clr 6.3 `hipamd/src/hip_graph.cpp:851-895`,
//! `1787-1885`). Graphs are not emulated, so hipStreamBeginCapture fails
//! (801) and no stream is ever capturing: these answer
//! `hipStreamCaptureStatusNone` after clr's checks (NULL status → 1, a dead
//! stream → 709), and hipThreadExchangeStreamCaptureMode swaps the thread's
//! mode as clr does. Programs that ask before allocating (PyTorch's caching
//! allocator does) run.
#![allow(non_snake_case)]

use std::cell::Cell;

use vmmkit_sys::hip::*;

use super::call::{Fail, emu, put, run};
use super::stream::{live, spt};

thread_local! {
    /// The calling thread's capture mode (clr `tls.stream_capture_mode_`).
    static MODE: Cell<hipStreamCaptureMode> = const { Cell::new(hipStreamCaptureModeGlobal) };
}

/// clr's checks of the three queries: NULL status → 1, a dead stream → 709;
/// then the status, None.
fn not_capturing(stream: hipStream_t, status: *mut hipStreamCaptureStatus) -> Result<(), Fail> {
    if status.is_null() {
        return Err(Fail::plain(HipError::INVALID_VALUE, "the capture status pointer is NULL".into()));
    }
    let e = emu()?;
    if live(e, stream)?.is_none() {
        return Ok(());
    }
    // SAFETY: checked non-null.
    unsafe { put(status, hipStreamCaptureStatusNone) };
    Ok(())
}

/// `hipError_t hipStreamIsCapturing(hipStream_t stream, hipStreamCaptureStatus *pCaptureStatus)`.
pub unsafe extern "C" fn hipStreamIsCapturing(stream: hipStream_t, pCaptureStatus: *mut hipStreamCaptureStatus) -> hipError_t {
    run("hipStreamIsCapturing", || not_capturing(stream, pCaptureStatus))
}

/// `hipError_t hipStreamIsCapturing_spt(hipStream_t stream, hipStreamCaptureStatus *pCaptureStatus)`.
pub unsafe extern "C" fn hipStreamIsCapturing_spt(stream: hipStream_t, pCaptureStatus: *mut hipStreamCaptureStatus) -> hipError_t {
    run("hipStreamIsCapturing_spt", || not_capturing(spt(stream), pCaptureStatus))
}

/// `hipError_t hipStreamGetCaptureInfo(hipStream_t stream, hipStreamCaptureStatus *pCaptureStatus, unsigned long long *pId)`:
/// `pId` is written only while capturing, so never.
pub unsafe extern "C" fn hipStreamGetCaptureInfo(
    stream: hipStream_t,
    pCaptureStatus: *mut hipStreamCaptureStatus,
    _pId: *mut u64,
) -> hipError_t {
    run("hipStreamGetCaptureInfo", || not_capturing(stream, pCaptureStatus))
}

/// `hipError_t hipStreamGetCaptureInfo_spt(…)`.
pub unsafe extern "C" fn hipStreamGetCaptureInfo_spt(
    stream: hipStream_t,
    pCaptureStatus: *mut hipStreamCaptureStatus,
    _pId: *mut u64,
) -> hipError_t {
    run("hipStreamGetCaptureInfo_spt", || not_capturing(spt(stream), pCaptureStatus))
}

/// `hipError_t hipStreamGetCaptureInfo_v2(hipStream_t stream, hipStreamCaptureStatus *captureStatus_out, unsigned long long *id_out, hipGraph_t *graph_out, const hipGraphNode_t **dependencies_out, size_t *numDependencies_out)`:
/// the other outputs are written only while capturing, so never.
pub unsafe extern "C" fn hipStreamGetCaptureInfo_v2(
    stream: hipStream_t,
    captureStatus_out: *mut hipStreamCaptureStatus,
    _id_out: *mut u64,
    _graph_out: *mut hipGraph_t,
    _dependencies_out: *mut *const hipGraphNode_t,
    _numDependencies_out: *mut usize,
) -> hipError_t {
    run("hipStreamGetCaptureInfo_v2", || not_capturing(stream, captureStatus_out))
}

/// `hipError_t hipStreamGetCaptureInfo_v2_spt(…)`.
pub unsafe extern "C" fn hipStreamGetCaptureInfo_v2_spt(
    stream: hipStream_t,
    captureStatus_out: *mut hipStreamCaptureStatus,
    _id_out: *mut u64,
    _graph_out: *mut hipGraph_t,
    _dependencies_out: *mut *const hipGraphNode_t,
    _numDependencies_out: *mut usize,
) -> hipError_t {
    run("hipStreamGetCaptureInfo_v2_spt", || not_capturing(spt(stream), captureStatus_out))
}

/// `hipError_t hipThreadExchangeStreamCaptureMode(hipStreamCaptureMode *mode)`:
/// NULL or a mode outside Global … Relaxed → 1; swaps it with the thread's.
pub unsafe extern "C" fn hipThreadExchangeStreamCaptureMode(mode: *mut hipStreamCaptureMode) -> hipError_t {
    run("hipThreadExchangeStreamCaptureMode", || {
        // SAFETY: read only when non-null.
        let m = if mode.is_null() { None } else { Some(unsafe { *mode }) };
        let Some(m) = m.filter(|m| (hipStreamCaptureModeGlobal..=hipStreamCaptureModeRelaxed).contains(m)) else {
            return Err(Fail::plain(HipError::INVALID_VALUE, "mode is NULL or not a hipStreamCaptureMode".into()));
        };
        emu()?;
        let old = MODE.with(|c| c.replace(m));
        // SAFETY: checked non-null.
        unsafe { put(mode, old) };
        Ok(())
    })
}
