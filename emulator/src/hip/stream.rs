//! Streams (clr 6.3 `hipamd/src/hip_stream.cpp`): hipStreamCreate*,
//! Destroy, Synchronize, Query, WaitEvent, GetFlags, GetPriority,
//! AddCallback, hipLaunchHostFunc and the priority range, on the core's
//! streams ([HIP-STM-001](vmmkit_sys::hip::rules::STM_001) … 008). The dialect names and checks; the core
//! orders the work.
//!
//! Stream values: NULL and `hipStreamLegacy` (1) name the device's legacy
//! stream, `hipStreamPerThread` (2) the calling thread's default stream (a
//! blocking stream made at first use, as clr's `getStreamPerThread`); a
//! stream made here is a tagged value ([`HandleTag`]), looked up, never
//! dereferenced. A destroyed or unknown value is 709
//! (hipErrorContextIsDestroyed), clr's answer when `hip::isValid` fails.
#![allow(non_snake_case, non_upper_case_globals)]

use std::ffi::c_void;

use vmmkit_sys::hip::rules;
use vmmkit_sys::hip::*;
use vmmkit_sys::rule::Rule;

use super::call::{Fail, current_device, emu, ensure, run};
use super::event;
use super::state::state;
use crate::ffi::{In, Out};
use crate::core::{CoreError, Emulator, Ending, HandleId, HandleTag, StreamId, StreamKind, Work};

const TAG: HandleTag = HandleTag::new(0x6873);

/// clr's `hip::Stream::Priority`: High −1, Normal 0, Low 1.
const PRIORITY_GREATEST: i32 = -1;
const PRIORITY_LEAST: i32 = 1;

/// The C value of stream `id`.
pub(super) fn to_stream(id: StreamId) -> hipStream_t {
    TAG.value(HandleId(id.0)) as hipStream_t
}

/// The stream `s` names, if it is a live one of this process.
pub(super) fn lookup(e: &Emulator, s: hipStream_t) -> Option<StreamId> {
    match s as usize {
        0 | 1 => Some(e.legacy_stream(current_device())),
        2 => Some(e.per_thread_stream(current_device())),
        v => TAG.id(v).map(|h| StreamId(h.0)).filter(|&id| e.stream_exists(id)),
    }
}

/// A refusal under `rule` with `code`; when `VMMKIT_MUTATE` names the rule,
/// the call reports success and does nothing instead.
pub(super) fn refuse(rule: &'static Rule, code: HipError, msg: String) -> Fail {
    if crate::mutation::enforced(rule) {
        Fail::rule_code(rule, code, msg)
    } else {
        Fail::plain(HipError::SUCCESS, String::new())
    }
}

/// `r`, with a refusal switched off by `VMMKIT_MUTATE` (see [`refuse`]) as `None`.
pub(super) fn or_none<T>(r: Result<T, Fail>) -> Result<Option<T>, Fail> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(f) if f.code == HipError::SUCCESS => Ok(None),
        Err(f) => Err(f),
    }
}

/// The stream `s` names, or `rule`'s refusal with `code` (709 in most calls, clr's `isValid`).
pub(super) fn resolve(e: &Emulator, s: hipStream_t, rule: &'static Rule, code: HipError) -> Result<StreamId, Fail> {
    lookup(e, s).ok_or_else(|| refuse(rule, code, format!("{s:p} is not a live stream (destroyed, or never made)")))
}

/// A core error of a stream call: a failed work, reported by the synchronize (999).
pub(super) fn work_failed(e: CoreError) -> Fail {
    match e {
        CoreError::Unavailable(_) => Fail::rule(&rules::INIT_001, e.to_string()),
        // VMMKIT_HAZARDS=error (vmmkit's own, docs/streams.md): the code of codes.rs.
        CoreError::Unsynchronised(_) => Fail::plain(HipError::ILLEGAL_STATE, e.to_string()),
        CoreError::Graph(g) => super::graph::graph_fail(g),
        e => Fail::plain(HipError::UNKNOWN, format!("a work of the stream failed: {e}")),
    }
}

/// Waits for the work of `id`; the NULL stream also waits for the blocking
/// streams of its device (clr: the null stream syncs with the others).
pub(super) fn synchronize(e: &Emulator, s: hipStream_t, id: StreamId) -> Result<(), Fail> {
    if (s as usize) <= 1 {
        e.legacy_fence(current_device(), None)
    } else {
        e.stream_synchronize(id, None)
    }
    .map_err(work_failed)
}

fn create(stream: Out<'_, hipStream_t>, flags: u32, priority: i32) -> Result<(), Fail> {
    ensure!(!stream.is_null(), rules::STM_001, "stream is NULL");
    ensure!(
        flags == hipStreamDefault || flags == hipStreamNonBlocking,
        rules::STM_001,
        "flags {flags:#x} is neither hipStreamDefault (0) nor hipStreamNonBlocking (1)"
    );
    if stream.is_null() {
        return Ok(());
    }
    let e = emu()?;
    let kind = if flags == hipStreamNonBlocking { StreamKind::NonBlocking } else { StreamKind::Blocking };
    let id = e.stream_create(current_device(), kind);
    state(e).note_stream(id, priority.clamp(PRIORITY_GREATEST, PRIORITY_LEAST));
    stream.write(to_stream(id))?;
    Ok(())
}

/// `hipError_t hipStreamCreate(hipStream_t *stream)`: [HIP-STM-001](vmmkit_sys::hip::rules::STM_001).
pub extern "C" fn hipStreamCreate(stream: Out<'_, hipStream_t>) -> hipError_t {
    run("hipStreamCreate", || create(stream, hipStreamDefault, 0))
}

/// `hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags)`: [HIP-STM-001](vmmkit_sys::hip::rules::STM_001).
pub extern "C" fn hipStreamCreateWithFlags(stream: Out<'_, hipStream_t>, flags: u32) -> hipError_t {
    run("hipStreamCreateWithFlags", || create(stream, flags, 0))
}

/// `hipError_t hipStreamCreateWithPriority(hipStream_t *stream, unsigned int flags, int priority)`:
/// [HIP-STM-001](vmmkit_sys::hip::rules::STM_001), [HIP-STM-002](vmmkit_sys::hip::rules::STM_002) (the priority is clamped to [−1, 1]).
pub extern "C" fn hipStreamCreateWithPriority(stream: Out<'_, hipStream_t>, flags: u32, priority: i32) -> hipError_t {
    run("hipStreamCreateWithPriority", || create(stream, flags, priority))
}

/// `hipError_t hipDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)`:
/// [HIP-STM-002](vmmkit_sys::hip::rules::STM_002): 1 and −1; either pointer may be NULL.
pub extern "C" fn hipDeviceGetStreamPriorityRange(leastPriority: Out<'_, i32>, greatestPriority: Out<'_, i32>) -> hipError_t {
    run("hipDeviceGetStreamPriorityRange", || {
        emu()?;
        leastPriority.write_if_given(PRIORITY_LEAST);
        greatestPriority.write_if_given(PRIORITY_GREATEST);
        Ok(())
    })
}

/// `hipError_t hipStreamDestroy(hipStream_t stream)`: [HIP-STM-003](vmmkit_sys::hip::rules::STM_003). NULL →
/// 400, `hipStreamPerThread` → 400, destroyed → 709. Pending work still
/// runs (clr releases the queue, which drains).
pub extern "C" fn hipStreamDestroy(stream: hipStream_t) -> hipError_t {
    run("hipStreamDestroy", || {
        ensure!(!stream.is_null(), rules::STM_003 => HipError::INVALID_HANDLE, "stream is NULL");
        ensure!(
            stream != hipStreamPerThread,
            rules::STM_003 => HipError::INVALID_HANDLE,
            "hipStreamPerThread cannot be destroyed"
        );
        let e = emu()?;
        if (stream as usize) <= 2 {
            return Ok(()); // a check above was mutated away
        }
        let id = resolve(e, stream, &rules::STM_003, HipError::CONTEXT_IS_DESTROYED)?;
        if !e.stream_exists(id) {
            return Ok(());
        }
        state(e).forget_stream(id);
        e.stream_destroy(id, Ending::Detach).map_err(work_failed)
    })
}

/// `hipError_t hipStreamSynchronize(hipStream_t stream)`: [HIP-STM-004](vmmkit_sys::hip::rules::STM_004); the
/// first failure of its work is reported. Then the pools of the stream's
/// device give back the freed blocks it passed ([HIP-POOL-021](vmmkit_sys::hip::rules::POOL_021)).
pub extern "C" fn hipStreamSynchronize(stream: hipStream_t) -> hipError_t {
    run("hipStreamSynchronize", || {
        let e = emu()?;
        let Some(id) = live(e, stream)? else { return Ok(()) };
        not_while_capturing(e, stream, id)?;
        let r = synchronize(e, stream, id);
        let device = e.stream_info(id).map_or(current_device(), |(d, _)| d);
        super::pool::release_freed(e, Some(device));
        r
    })
}

/// hipStreamSynchronize's and hipStreamQuery's check of a stream other than
/// the legacy one: a capture the call breaks (the stream's own, or as the
/// thread's mode says) is invalidated and the call is 900 ([HIP-GRF-010](vmmkit_sys::hip::rules::GRF_010),
/// clr `Stream::StreamCaptureOngoing`).
fn not_while_capturing(e: &Emulator, stream: hipStream_t, id: StreamId) -> Result<(), Fail> {
    if (stream as usize) > 1 && e.capturing_any() {
        let broke = e.capture_ongoing(id);
        ensure!(!broke, rules::GRF_010, "a capture is in progress that this call is not permitted in");
    }
    Ok(())
}

/// The stream of a call whose only stream rule is [HIP-STM-004](vmmkit_sys::hip::rules::STM_004) (709).
pub(super) fn live(e: &Emulator, stream: hipStream_t) -> Result<Option<StreamId>, Fail> {
    or_none(resolve(e, stream, &rules::STM_004, HipError::CONTEXT_IS_DESTROYED))
}

/// `hipError_t hipStreamQuery(hipStream_t stream)`: [HIP-STM-004](vmmkit_sys::hip::rules::STM_004), [HIP-STM-005](vmmkit_sys::hip::rules::STM_005)
/// (600 while work is pending, 0 once it has all run).
pub extern "C" fn hipStreamQuery(stream: hipStream_t) -> hipError_t {
    run("hipStreamQuery", || {
        let e = emu()?;
        let Some(id) = live(e, stream)? else { return Ok(()) };
        not_while_capturing(e, stream, id)?;
        // HIP-STM-013: the NULL stream's query waits, as its commands do, for
        // the blocking streams of its device.
        let legacy = stream.is_null() && crate::mutation::enforced(&rules::STM_013);
        let done = if legacy { e.legacy_query(current_device()) } else { e.stream_query(id) };
        let done = done.map_err(work_failed)?;
        ensure!(done, rules::STM_005, "the stream has work that has not run yet");
        Ok(())
    })
}

/// `hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags)`:
/// [HIP-STM-006](vmmkit_sys::hip::rules::STM_006): NULL event or a dead stream → 400; flags ≠ 0 → 1; an event
/// never recorded is waited for at once.
pub extern "C" fn hipStreamWaitEvent(stream: hipStream_t, event: hipEvent_t, flags: u32) -> hipError_t {
    run("hipStreamWaitEvent", || {
        ensure!(!event.is_null(), rules::STM_006 => HipError::INVALID_HANDLE, "event is NULL");
        if event.is_null() {
            return Ok(());
        }
        let e = emu()?;
        let Some(sid) = or_none(resolve(e, stream, &rules::STM_006, HipError::INVALID_HANDLE))? else {
            return Ok(());
        };
        let eid = event::resolve(e, event)?;
        ensure!(flags == 0, rules::STM_006 => HipError::INVALID_VALUE, "flags {flags:#x} is not 0");
        let Some(eid) = eid else { return Ok(()) };
        e.stream_wait_event(sid, eid).map_err(|er| Fail::core_under(&rules::STM_006, er))
    })
}

/// `hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int *flags)`:
/// [HIP-STM-004](vmmkit_sys::hip::rules::STM_004); NULL stream or NULL flags → 1 (clr reads flags of a made stream only).
pub extern "C" fn hipStreamGetFlags(stream: hipStream_t, flags: Out<'_, u32>) -> hipError_t {
    run("hipStreamGetFlags", || {
        ensure!(!flags.is_null() && !stream.is_null(), rules::STM_004 => HipError::INVALID_VALUE, "stream or flags is NULL");
        let e = emu()?;
        let Some(id) = live(e, stream)? else { return Ok(()) };
        let (_, kind) = e.stream_info(id).map_err(work_failed)?;
        let v = if kind == StreamKind::NonBlocking { hipStreamNonBlocking } else { hipStreamDefault };
        if !flags.is_null() {
            flags.write(v)?;
        }
        Ok(())
    })
}

/// `hipError_t hipStreamGetPriority(hipStream_t stream, int *priority)`:
/// [HIP-STM-002](vmmkit_sys::hip::rules::STM_002) (the NULL stream's is 0), [HIP-STM-004](vmmkit_sys::hip::rules::STM_004).
pub extern "C" fn hipStreamGetPriority(stream: hipStream_t, priority: Out<'_, i32>) -> hipError_t {
    run("hipStreamGetPriority", || {
        ensure!(!priority.is_null(), rules::STM_004 => HipError::INVALID_VALUE, "priority is NULL");
        if priority.is_null() {
            return Ok(());
        }
        let e = emu()?;
        let Some(id) = live(e, stream)? else { return Ok(()) };
        priority.write(state(e).priority(id))?;
        Ok(())
    })
}

/// A C callback and its argument, sent to the stream's worker.
struct HostCall {
    f: unsafe extern "C" fn(*mut c_void),
    user: usize,
}

/// A stream callback, its stream value and its argument.
struct StreamCall {
    f: unsafe extern "C" fn(hipStream_t, hipError_t, *mut c_void),
    stream: usize,
    user: usize,
}

fn enqueue_host(e: &Emulator, id: StreamId, call: std::sync::Arc<dyn Fn() + Send + Sync>) -> Result<(), Fail> {
    // SAFETY: a host function touches no memory the core copies.
    unsafe { e.enqueue(id, Work::Call(call)) }.map_err(work_failed)
}

/// `hipError_t hipStreamAddCallback(hipStream_t stream, hipStreamCallback_t callback, void *userData, unsigned int flags)`:
/// [HIP-STM-007](vmmkit_sys::hip::rules::STM_007): NULL callback or flags ≠ 0 → 1; [HIP-STM-004](vmmkit_sys::hip::rules::STM_004). The callback
/// runs after the work enqueued before it, with status 0, before later work.
pub extern "C" fn hipStreamAddCallback(
    stream: hipStream_t,
    callback: hipStreamCallback_t,
    userData: *mut c_void,
    flags: u32,
) -> hipError_t {
    run("hipStreamAddCallback", || {
        ensure!(callback.is_some() && flags == 0, rules::STM_007, "callback is NULL or flags {flags:#x} is not 0");
        let e = emu()?;
        let Some(id) = live(e, stream)? else { return Ok(()) };
        let Some(f) = callback else { return Ok(()) };
        let c = StreamCall { f, stream: stream as usize, user: userData as usize };
        enqueue_host(
            e,
            id,
            std::sync::Arc::new(move || {
                // SAFETY: the caller's callback and argument, called as hipStreamAddCallback promises.
                unsafe { (c.f)(c.stream as hipStream_t, 0, c.user as *mut c_void) }
            }),
        )
    })
}

/// `hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void *userData)`:
/// [HIP-STM-007](vmmkit_sys::hip::rules::STM_007) (NULL fn → 1), [HIP-STM-004](vmmkit_sys::hip::rules::STM_004).
pub extern "C" fn hipLaunchHostFunc(stream: hipStream_t, fn_: hipHostFn_t, userData: *mut c_void) -> hipError_t {
    run("hipLaunchHostFunc", || {
        ensure!(fn_.is_some(), rules::STM_007, "fn is NULL");
        let e = emu()?;
        let Some(id) = live(e, stream)? else { return Ok(()) };
        let Some(f) = fn_ else { return Ok(()) };
        let c = HostCall { f, user: userData as usize };
        enqueue_host(
            e,
            id,
            std::sync::Arc::new(move || {
                // SAFETY: the caller's function and argument, called as hipLaunchHostFunc promises.
                unsafe { (c.f)(c.user as *mut c_void) }
            }),
        )
    })
}

// ---- The rest of Stream Management (clr 6.3 hip_stream.cpp,
// hip_intercept.cpp; 7.1/7.2 stream attributes) ----

/// The stream an `_spt` variant means: NULL is the thread's default stream
/// (clr `PER_THREAD_DEFAULT_STREAM`).
pub(super) fn spt(stream: hipStream_t) -> hipStream_t {
    if stream.is_null() { hipStreamPerThread } else { stream }
}

/// `hipError_t hipStreamSynchronize_spt(hipStream_t stream)`: hipStreamSynchronize with [`spt`].
pub extern "C" fn hipStreamSynchronize_spt(stream: hipStream_t) -> hipError_t {
    hipStreamSynchronize(spt(stream))
}

/// `hipError_t hipStreamQuery_spt(hipStream_t stream)`: hipStreamQuery with [`spt`].
pub extern "C" fn hipStreamQuery_spt(stream: hipStream_t) -> hipError_t {
    hipStreamQuery(spt(stream))
}

/// `hipError_t hipStreamWaitEvent_spt(hipStream_t stream, hipEvent_t event, unsigned int flags)`.
pub extern "C" fn hipStreamWaitEvent_spt(stream: hipStream_t, event: hipEvent_t, flags: u32) -> hipError_t {
    hipStreamWaitEvent(spt(stream), event, flags)
}

/// `hipError_t hipStreamGetFlags_spt(hipStream_t stream, unsigned int *flags)`.
pub extern "C" fn hipStreamGetFlags_spt(stream: hipStream_t, flags: Out<'_, u32>) -> hipError_t {
    hipStreamGetFlags(spt(stream), flags)
}

/// `hipError_t hipStreamGetPriority_spt(hipStream_t stream, int *priority)`.
pub extern "C" fn hipStreamGetPriority_spt(stream: hipStream_t, priority: Out<'_, i32>) -> hipError_t {
    hipStreamGetPriority(spt(stream), priority)
}

/// `hipError_t hipStreamAddCallback_spt(hipStream_t stream, hipStreamCallback_t callback, void *userData, unsigned int flags)`.
pub extern "C" fn hipStreamAddCallback_spt(
    stream: hipStream_t,
    callback: hipStreamCallback_t,
    userData: *mut c_void,
    flags: u32,
) -> hipError_t {
    hipStreamAddCallback(spt(stream), callback, userData, flags)
}

/// `hipError_t hipLaunchHostFunc_spt(hipStream_t stream, hipHostFn_t fn, void *userData)`.
pub extern "C" fn hipLaunchHostFunc_spt(stream: hipStream_t, fn_: hipHostFn_t, userData: *mut c_void) -> hipError_t {
    hipLaunchHostFunc(spt(stream), fn_, userData)
}

/// The device of a live stream `s` (NULL: the current device).
fn device_of(e: &Emulator, s: hipStream_t) -> Result<Option<u32>, Fail> {
    let Some(id) = live(e, s)? else { return Ok(None) };
    Ok(Some(e.stream_info(id).map_err(work_failed)?.0))
}

/// `hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t *device)`:
/// NULL `device` → 1; a dead stream → 709 ([HIP-STM-004](vmmkit_sys::hip::rules::STM_004)); the NULL stream's is the current device.
pub extern "C" fn hipStreamGetDevice(stream: hipStream_t, device: Out<'_, hipDevice_t>) -> hipError_t {
    run("hipStreamGetDevice", || {
        ensure!(!device.is_null(), rules::STM_004 => HipError::INVALID_VALUE, "device is NULL");
        let e = emu()?;
        let Some(d) = device_of(e, stream)? else { return Ok(()) };
        if !device.is_null() {
            device.write(d as i32)?;
        }
        Ok(())
    })
}

/// `int hipGetStreamDeviceId(hipStream_t stream)`: the stream's device, −1
/// for a dead stream (clr hip_intercept.cpp). It sets no error.
pub extern "C" fn hipGetStreamDeviceId(stream: hipStream_t) -> i32 {
    let Ok(e) = emu() else { return -1 };
    lookup(e, stream).and_then(|id| e.stream_info(id).ok()).map_or(-1, |(d, _)| d as i32)
}

/// Words of a CU mask with a bit per compute unit, all set.
fn default_cu_mask() -> Vec<u32> {
    let cus = super::profile::COMPUTE_UNITS as u32;
    (0..cus.div_ceil(32)).map(|w| if (w + 1) * 32 <= cus { u32::MAX } else { (1u32 << (cus % 32)) - 1 }).collect()
}

/// `hipError_t hipExtStreamCreateWithCUMask(hipStream_t *stream, uint32_t cuMaskSize, const uint32_t *cuMask)`:
/// NULL `stream` → 400; size 0 or NULL mask → 1; a blocking stream that keeps the mask.
pub extern "C" fn hipExtStreamCreateWithCUMask(stream: Out<'_, hipStream_t>, cuMaskSize: u32, cuMask: In<'_, u32>) -> hipError_t {
    run("hipExtStreamCreateWithCUMask", || {
        if stream.is_null() {
            return Err(Fail::plain(HipError::INVALID_HANDLE, "stream is NULL".into()));
        }
        if cuMaskSize == 0 || cuMask.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "cuMaskSize is 0 or cuMask is NULL".into()));
        }
        let mask = cuMask.to_vec(cuMaskSize as usize)?;
        create(stream, hipStreamDefault, 0)?;
        let e = emu()?;
        let made = stream.read()?;
        if let Some(id) = lookup(e, made) {
            state(e).set_extras(id, |x| x.cu_mask = mask);
        }
        Ok(())
    })
}

/// `hipError_t hipExtStreamGetCUMask(hipStream_t stream, uint32_t cuMaskSize, uint32_t *cuMask)`:
/// NULL mask or fewer words than the device's compute units need → 1; the
/// NULL and per-thread streams answer all units; a made stream its mask
/// and-ed with all units, or all units when that is empty (clr).
pub extern "C" fn hipExtStreamGetCUMask(stream: hipStream_t, cuMaskSize: u32, cuMask: Out<'_, u32>) -> hipError_t {
    run("hipExtStreamGetCUMask", || {
        let all = default_cu_mask();
        if cuMask.is_null() || (cuMaskSize as usize) < all.len() {
            return Err(Fail::plain(
                HipError::INVALID_VALUE,
                format!("cuMask is NULL or cuMaskSize {cuMaskSize} < {} words", all.len()),
            ));
        }
        let e = emu()?;
        let Some(id) = live(e, stream)? else { return Ok(()) };
        let mine = if (stream as usize) <= 2 { Vec::new() } else { state(e).extras(id).cu_mask };
        let anded: Vec<u32> = mine.iter().zip(&all).map(|(m, a)| m & a).collect();
        let mask = if anded.iter().all(|&w| w == 0) { all } else { anded };
        cuMask.write_slice(&mask)?;
        Ok(())
    })
}

/// `hipError_t hipStreamGetId(hipStream_t stream, unsigned long long *streamId)` (7.1):
/// NULL → 1, a dead stream → 709; an id unique in the process.
pub extern "C" fn hipStreamGetId(stream: hipStream_t, streamId: Out<'_, u64>) -> hipError_t {
    run("hipStreamGetId", || {
        ensure!(!streamId.is_null(), rules::STM_004 => HipError::INVALID_VALUE, "streamId is NULL");
        let e = emu()?;
        let Some(id) = live(e, stream)? else { return Ok(()) };
        if !streamId.is_null() {
            streamId.write(id.0)?;
        }
        Ok(())
    })
}

/// The stream attributes of `hipStreamAttrID`: AccessPolicyWindow,
/// SynchronizationPolicy, Priority, MemSyncDomainMap, MemSyncDomain.
fn stream_attr(attr: hipStreamAttrID) -> Result<(), Fail> {
    match attr {
        hipLaunchAttributeAccessPolicyWindow
        | hipLaunchAttributeSynchronizationPolicy
        | hipLaunchAttributePriority
        | hipLaunchAttributeMemSyncDomainMap
        | hipLaunchAttributeMemSyncDomain => Ok(()),
        _ => Err(Fail::plain(HipError::INVALID_VALUE, format!("attribute {attr} is not a stream attribute"))),
    }
}

/// `hipError_t hipStreamGetAttribute(hipStream_t stream, hipStreamAttrID attr, hipStreamAttrValue *value_out)` (7.1):
/// NULL → 1, not a stream attribute → 1, a dead stream → 709; Priority is
/// the stream's, the others what was set (zero until then).
pub extern "C" fn hipStreamGetAttribute(stream: hipStream_t, attr: hipStreamAttrID, value_out: Out<'_, hipStreamAttrValue>) -> hipError_t {
    run("hipStreamGetAttribute", || {
        if value_out.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "value_out is NULL".into()));
        }
        stream_attr(attr)?;
        let e = emu()?;
        let Some(id) = live(e, stream)? else { return Ok(()) };
        let mut v = hipStreamAttrValue::default();
        if attr == hipLaunchAttributePriority {
            v.bytes[..4].copy_from_slice(&state(e).priority(id).to_le_bytes());
        } else if let Some(b) = state(e).extras(id).attributes.get(&attr) {
            v.bytes = *b;
        }
        value_out.write(v)?;
        Ok(())
    })
}

/// `hipError_t hipStreamSetAttribute(hipStream_t stream, hipStreamAttrID attr, const hipStreamAttrValue *value)` (7.1):
/// as hipStreamGetAttribute; a priority is clamped to [−1, 1] ([HIP-STM-002](vmmkit_sys::hip::rules::STM_002)).
pub extern "C" fn hipStreamSetAttribute(stream: hipStream_t, attr: hipStreamAttrID, value: In<'_, hipStreamAttrValue>) -> hipError_t {
    run("hipStreamSetAttribute", || {
        if value.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "value is NULL".into()));
        }
        stream_attr(attr)?;
        let e = emu()?;
        let Some(id) = live(e, stream)? else { return Ok(()) };
        let v = value.read()?;
        if attr == hipLaunchAttributePriority {
            let p = i32::from_le_bytes([v.bytes[0], v.bytes[1], v.bytes[2], v.bytes[3]]);
            state(e).set_priority(id, p.clamp(PRIORITY_GREATEST, PRIORITY_LEAST));
        } else {
            state(e).set_extras(id, |x| {
                x.attributes.insert(attr, v.bytes);
            });
        }
        Ok(())
    })
}

/// `hipError_t hipStreamCopyAttributes(hipStream_t dst, hipStream_t src)` (7.2):
/// either dead → 709; `dst` gets `src`'s priority and attributes.
pub extern "C" fn hipStreamCopyAttributes(dst: hipStream_t, src: hipStream_t) -> hipError_t {
    run("hipStreamCopyAttributes", || {
        let e = emu()?;
        let (Some(d), Some(s)) = (live(e, dst)?, live(e, src)?) else { return Ok(()) };
        let st = state(e);
        let from = st.extras(s);
        st.set_priority(d, st.priority(s));
        st.set_extras(d, |x| x.attributes = from.attributes);
        Ok(())
    })
}
