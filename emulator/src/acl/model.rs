//! Model capture (ACL-MRI): aclmdlRICaptureBegin / End / GetInfo /
//! ThreadExchangeMode, aclmdlRIExecuteAsync, aclmdlRIExecute and
//! aclmdlRIDestroy of hicann/runtime@0b4af8a (`src/acl/aclrt_impl/model_ri.cpp`
//! over `rtStreamBeginCapture` and its siblings, `api_c_standard_soc.cc`,
//! `feature/aclgraph/`), on the core's captures (`core/graph.rs`).
//!
//! A model (`aclmdlRI`) is the graph its capture built: the work a
//! capturing stream is given (aclrtMemcpyAsync, aclrtMemsetAsync, host
//! functions and callbacks, event records and waits) becomes its nodes in
//! the core, and each aclmdlRIExecuteAsync enqueues them on the stream in
//! capture order. The calls a capture refuses are refused where they are
//! made, through [`refuse_capturing`], [`refuse_captured_event`] and
//! [`refuse_unsafe`]; CANN refuses them without breaking the capture.
#![allow(non_snake_case)]

use vmmkit_sys::acl::rules;
use vmmkit_sys::acl::*;

use super::call::{Fail, emu, ensure, non_null, run};
use crate::ffi::Out;
use super::device::stream_id;
use super::state::{lock, state};
use crate::core::{CaptureMode, CaptureStatus, Emulator, EventId, GraphError, GraphId, StreamId, exchange_capture_mode};
use crate::graph_values::{graph_of, graph_value};

fn mode_of(m: aclmdlRICaptureMode) -> Option<CaptureMode> {
    match m {
        ACL_MODEL_RI_CAPTURE_MODE_GLOBAL => Some(CaptureMode::Global),
        ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL => Some(CaptureMode::ThreadLocal),
        ACL_MODEL_RI_CAPTURE_MODE_RELAXED => Some(CaptureMode::Relaxed),
        _ => None,
    }
}

fn mode_value(m: CaptureMode) -> aclmdlRICaptureMode {
    match m {
        CaptureMode::Global => ACL_MODEL_RI_CAPTURE_MODE_GLOBAL,
        CaptureMode::ThreadLocal => ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL,
        CaptureMode::Relaxed => ACL_MODEL_RI_CAPTURE_MODE_RELAXED,
    }
}

fn status_value(s: CaptureStatus) -> aclmdlRICaptureStatus {
    match s {
        CaptureStatus::None => ACL_MODEL_RI_CAPTURE_STATUS_NONE,
        CaptureStatus::Active => ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE,
        CaptureStatus::Invalidated => ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED,
    }
}

/// [ACL-MRI-010](vmmkit_sys::acl::rules::MRI_010): a stream that captures (the one that began it or one that
/// joined it) is not synchronized, queried or destroyed: 107027, and the
/// capture goes on (ApiErrorDecorator::StreamSynchronize, StreamQuery,
/// StreamDestroy).
pub(super) fn refuse_capturing(id: StreamId, what: &str) -> Result<(), Fail> {
    let e = emu()?;
    ensure!(e.capture_status(id) == CaptureStatus::None, rules::MRI_010, "{what} of a stream that is capturing");
    Ok(())
}

/// [ACL-MRI-011](vmmkit_sys::acl::rules::MRI_011): an event whose last record was made in a capture still
/// going on is not waited for or queried from the host: 107028.
pub(super) fn refuse_captured_event(id: EventId, what: &str) -> Result<(), Fail> {
    let e = emu()?;
    ensure!(!e.capture_has_event(id), rules::MRI_011, "{what} of an event recorded in a capture that goes on");
    Ok(())
}

/// [ACL-MRI-012](vmmkit_sys::acl::rules::MRI_012): a synchronous copy or fill while a capture's mode forbids
/// it for this thread: 107030, and the capture goes on
/// (Context::IsCaptureModeSupport).
pub(super) fn refuse_unsafe(what: &str) -> Result<(), Fail> {
    let e = emu()?;
    ensure!(
        !e.capture_refuses_unsafe(),
        rules::MRI_012,
        "{what} while a capture forbids it (its mode is not relaxed): call aclmdlRICaptureThreadExchangeMode \
         with ACL_MODEL_RI_CAPTURE_MODE_RELAXED first"
    );
    Ok(())
}

/// [ACL-MRI-018](vmmkit_sys::acl::rules::MRI_018): the default stream (a handle of
/// aclrtCtxGetCurrentDefaultStream) never captures: 207000.
fn refuse_default(e: &Emulator, id: StreamId) -> Result<(), Fail> {
    let default = lock(&state(e).default_streams).values().any(|&d| d == id);
    ensure!(!default, rules::MRI_018, "the default stream cannot be captured");
    Ok(())
}

/// The model `modelRI` names: [ACL-MRI-001](vmmkit_sys::acl::rules::MRI_001) (NULL, 100000), [ACL-MRI-016](vmmkit_sys::acl::rules::MRI_016) (not
/// a live model, 107017), [ACL-MRI-017](vmmkit_sys::acl::rules::MRI_017) (its capture goes on, 107000).
fn model(modelRI: aclmdlRI) -> Result<(&'static Emulator, GraphId), Fail> {
    non_null(modelRI, "modelRI")?;
    let e = emu()?;
    let g = graph_of(e, modelRI);
    ensure!(g.is_some(), rules::MRI_016, "{modelRI:p} is not a live model (destroyed, or never made)");
    // Mutated away (VMMKIT_MUTATE=ACL-MRI-016): the call reports success and does nothing.
    let Some(g) = g else { return Err(Fail::plain(AclError::SUCCESS, String::new())) };
    ensure!(!e.capture_builds(g), rules::MRI_017, "the capture of model {modelRI:p} has not ended");
    Ok((e, g))
}

/// `aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)`:
/// [ACL-MRI-001](vmmkit_sys::acl::rules::MRI_001), [ACL-MRI-002](vmmkit_sys::acl::rules::MRI_002), [ACL-MRI-018](vmmkit_sys::acl::rules::MRI_018), [ACL-MRI-003](vmmkit_sys::acl::rules::MRI_003), in that order.
pub extern "C" fn aclmdlRICaptureBegin(stream: aclrtStream, mode: aclmdlRICaptureMode) -> aclError {
    run("aclmdlRICaptureBegin", || {
        non_null(stream, "stream")?;
        let id = stream_id(stream)?;
        let m = mode_of(mode);
        ensure!(m.is_some(), rules::MRI_002, "mode {mode} is not an aclmdlRICaptureMode");
        let m = m.unwrap_or(CaptureMode::Global);
        let e = emu()?;
        refuse_default(e, id)?;
        let (device, _) = e.stream_info(id).map_err(super::device::sync_fail)?;
        e.capture_begin(id, device, m).map_err(capture_fail)
    })
}

/// A capture error the core found, under `rule`; success when
/// `VMMKIT_MUTATE` names the rule (as [`Fail::core_under`]).
fn under(rule: &'static vmmkit_sys::rule::Rule, msg: String) -> Fail {
    if crate::mutation::enforced(rule) { Fail::rule(rule, msg) } else { Fail::plain(AclError::SUCCESS, String::new()) }
}

/// A capture error as ACL's code, under the rule it breaks.
fn capture_fail(g: GraphError) -> Fail {
    let msg = g.to_string();
    match g {
        GraphError::AlreadyCapturing(_) => under(&rules::MRI_003, msg),
        GraphError::NotCapturing(_) => under(&rules::MRI_004, msg),
        GraphError::Unmatched(_) => under(&rules::MRI_006, msg),
        GraphError::WrongThread => under(&rules::MRI_007, msg),
        GraphError::Unjoined => under(&rules::MRI_008, msg),
        GraphError::Invalidated => Fail::plain(AclError::RT_STREAM_CAPTURE_INVALIDATED, msg),
        other => Fail::plain(AclError::RT_PARAM_INVALID, other.to_string()),
    }
}

/// `aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status, aclmdlRI *modelRI)`:
/// [ACL-MRI-001](vmmkit_sys::acl::rules::MRI_001), then [ACL-MRI-009](vmmkit_sys::acl::rules::MRI_009): the status, and the model while capturing (NULL otherwise).
pub extern "C" fn aclmdlRICaptureGetInfo(
    stream: aclrtStream,
    status: Out<'_, aclmdlRICaptureStatus>,
    modelRI: Out<'_, aclmdlRI>,
) -> aclError {
    run("aclmdlRICaptureGetInfo", || {
        non_null(stream, "stream")?;
        ensure!(
            !status.is_null() || !modelRI.is_null(),
            rules::MRI_001,
            "status and modelRI cannot both be NULL"
        );
        let id = stream_id(stream)?;
        let (st, _, graph, _) = emu()?.capture_info(id);
        let model = if st == CaptureStatus::None { std::ptr::null_mut() } else { graph.map_or(std::ptr::null_mut(), graph_value) };
        status.write_if_given(status_value(st));
        modelRI.write_if_given(model);
        Ok(())
    })
}

/// `aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)`:
/// [ACL-MRI-001](vmmkit_sys::acl::rules::MRI_001), [ACL-MRI-005](vmmkit_sys::acl::rules::MRI_005) (a NULL modelRI only while capturing),
/// [ACL-MRI-018](vmmkit_sys::acl::rules::MRI_018), then the core's: not capturing [ACL-MRI-004](vmmkit_sys::acl::rules::MRI_004), a joined
/// stream [ACL-MRI-006](vmmkit_sys::acl::rules::MRI_006), another thread [ACL-MRI-007](vmmkit_sys::acl::rules::MRI_007) (the stream leaves the
/// capture), invalidated 507903, unjoined work [ACL-MRI-008](vmmkit_sys::acl::rules::MRI_008). Every failure
/// of a capturing stream writes NULL to `modelRI` (ApiImpl::StreamEndCapture).
pub extern "C" fn aclmdlRICaptureEnd(stream: aclrtStream, modelRI: Out<'_, aclmdlRI>) -> aclError {
    run("aclmdlRICaptureEnd", || {
        non_null(stream, "stream")?;
        let id = stream_id(stream)?;
        let e = emu()?;
        let capturing = e.capture_status(id) != CaptureStatus::None;
        ensure!(!capturing || !modelRI.is_null(), rules::MRI_005, "modelRI is NULL");
        refuse_default(e, id)?;
        let outcome = e.capture_end(id);
        if let Err(GraphError::WrongThread) = outcome {
            // CANN's ClearCaptureModel: the stream leaves the capture.
            e.capture_forget(id);
        }
        if !modelRI.is_null() && capturing {
            let v = outcome.as_ref().map_or(std::ptr::null_mut(), |g| graph_value(*g));
            modelRI.write(v)?;
        }
        outcome.map(drop).map_err(capture_fail)
    })
}

/// `aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode)`:
/// [ACL-MRI-001](vmmkit_sys::acl::rules::MRI_001), [ACL-MRI-002](vmmkit_sys::acl::rules::MRI_002); swaps `*mode` with the thread's (GLOBAL at first).
pub extern "C" fn aclmdlRICaptureThreadExchangeMode(mode: Out<'_, aclmdlRICaptureMode>) -> aclError {
    run("aclmdlRICaptureThreadExchangeMode", || {
        non_null(mode, "mode")?;
        let v = mode.read()?;
        let m = mode_of(v);
        ensure!(m.is_some(), rules::MRI_002, "mode {v} is not an aclmdlRICaptureMode");
        emu()?;
        let old = exchange_capture_mode(m.unwrap_or(CaptureMode::Global));
        mode.write(mode_value(old))?;
        Ok(())
    })
}

/// `aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream)`:
/// the model's work is enqueued on `stream` (NULL: the default stream) in
/// capture order ([ACL-MRI-013](vmmkit_sys::acl::rules::MRI_013)); [ACL-MRI-001](vmmkit_sys::acl::rules::MRI_001), [ACL-MRI-016](vmmkit_sys::acl::rules::MRI_016), [ACL-MRI-017](vmmkit_sys::acl::rules::MRI_017), then
/// a capturing stream [ACL-MRI-014](vmmkit_sys::acl::rules::MRI_014).
pub extern "C" fn aclmdlRIExecuteAsync(modelRI: aclmdlRI, stream: aclrtStream) -> aclError {
    run("aclmdlRIExecuteAsync", || {
        let (e, g) = model(modelRI)?;
        let id = stream_id(stream)?;
        ensure!(
            e.capture_status(id) == CaptureStatus::None,
            rules::MRI_014,
            "the stream is capturing: a model is not executed on it"
        );
        let exec = e.graph_instantiate(g).map_err(capture_fail)?;
        let launched = e.graph_launch(exec, id);
        // The launch enqueued copies of the nodes: the exec is not needed any more.
        let _ = e.exec_destroy(exec);
        launched.map_err(|err| Fail::plain(AclError::RT_PARAM_INVALID, err.to_string()))
    })
}

/// `aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout)`:
/// [ACL-MRI-001](vmmkit_sys::acl::rules::MRI_001), [ACL-MRI-016](vmmkit_sys::acl::rules::MRI_016), then [ACL-MRI-015](vmmkit_sys::acl::rules::MRI_015): the runtime's synchronous
/// execution refuses a captured model (107000) after checking the timeout.
pub extern "C" fn aclmdlRIExecute(modelRI: aclmdlRI, timeout: i32) -> aclError {
    run("aclmdlRIExecute", || {
        non_null(modelRI, "modelRI")?;
        let e = emu()?;
        let g = graph_of(e, modelRI);
        ensure!(g.is_some(), rules::MRI_016, "{modelRI:p} is not a live model (destroyed, or never made)");
        ensure!(timeout >= -1 && timeout != 0, rules::MRI_015, "timeout {timeout} is neither -1 nor positive");
        if crate::mutation::enforced(&rules::MRI_015) {
            let msg = "a captured model is not executed synchronously: use aclmdlRIExecuteAsync";
            return Err(Fail::rule(&rules::MRI_015, msg.into()));
        }
        Ok(())
    })
}

/// `aclError aclmdlRIDestroy(aclmdlRI modelRI)`: [ACL-MRI-001](vmmkit_sys::acl::rules::MRI_001), [ACL-MRI-016](vmmkit_sys::acl::rules::MRI_016),
/// [ACL-MRI-017](vmmkit_sys::acl::rules::MRI_017). Executions already enqueued still run.
pub extern "C" fn aclmdlRIDestroy(modelRI: aclmdlRI) -> aclError {
    run("aclmdlRIDestroy", || {
        let (e, g) = model(modelRI)?;
        e.graph_destroy(g).map_err(capture_fail)
    })
}
