//! HIP-EVT and HIP-IEV: events and IPC event handles (clr 6.3
//! hip_event.cpp, hip_event_ipc.cpp), in one process; [HIP-IEV-003](vmmkit_sys::hip::rules::IEV_003) with a
//! HIP peer that opens the handle ([`crate::hip::peer`]).

use std::ptr;

use vmmkit_sys::hip::*;

use super::stream::{Gate, destroy, pinned, stream};
use crate::hip::peer::{Request, ipc_bytes};
use crate::hip::{Ctx, setup};
use crate::outcome::Failure;

const CONTEXT_IS_DESTROYED: HipError = HipError::CONTEXT_IS_DESTROYED;
const INVALID_HANDLE: HipError = HipError::INVALID_HANDLE;
const INVALID_VALUE: HipError = HipError::INVALID_VALUE;
const NOT_READY: HipError = HipError::NOT_READY;

pub(crate) fn event(cx: &Ctx, flags: u32) -> Result<hipEvent_t, Failure> {
    let mut e = ptr::null_mut();
    setup("hipEventCreateWithFlags", cx.hip().hipEventCreateWithFlags(&mut e, flags))?;
    Ok(e)
}

fn drop_event(cx: &Ctx, e: hipEvent_t) -> Result<(), Failure> {
    setup("hipEventDestroy", cx.hip().hipEventDestroy(e))
}

/// An event made and destroyed.
fn dead_event(cx: &Ctx) -> Result<hipEvent_t, Failure> {
    let e = event(cx, 0)?;
    drop_event(cx, e)?;
    Ok(e)
}

/// [HIP-EVT-001](vmmkit_sys::hip::rules::EVT_001).
pub fn create_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let mut e = ptr::null_mut();
    cx.expect_code("hipEventCreate(NULL)", hip.hipEventCreate(ptr::null_mut()))?;
    cx.expect_code("hipEventCreateWithFlags(NULL)", hip.hipEventCreateWithFlags(ptr::null_mut(), 0))?;
    cx.expect_code("hipEventCreateWithFlags(0x8)", hip.hipEventCreateWithFlags(&mut e, 0x8))?;
    let two = hipEventReleaseToDevice | hipEventReleaseToSystem;
    cx.expect_code("hipEventCreateWithFlags(two release flags)", hip.hipEventCreateWithFlags(&mut e, two))?;
    cx.expect_code(
        "hipEventCreateWithFlags(Interprocess alone)",
        hip.hipEventCreateWithFlags(&mut e, hipEventInterprocess),
    )?;
    for flags in [hipEventDefault, hipEventBlockingSync | hipEventDisableTiming, hipEventReleaseToSystem] {
        cx.expect_ok(&format!("hipEventCreateWithFlags({flags:#x})"), hip.hipEventCreateWithFlags(&mut e, flags))?;
        drop_event(cx, e)?;
    }
    Ok(())
}

/// [HIP-EVT-002](vmmkit_sys::hip::rules::EVT_002).
pub fn destroy_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    cx.expect("hipEventDestroy(NULL)", INVALID_HANDLE, hip.hipEventDestroy(ptr::null_mut()))?;
    let e = event(cx, 0)?;
    cx.expect_ok("hipEventDestroy(made)", hip.hipEventDestroy(e))?;
    cx.expect("hipEventDestroy(destroyed)", CONTEXT_IS_DESTROYED, hip.hipEventDestroy(e))
}

/// [HIP-EVT-003](vmmkit_sys::hip::rules::EVT_003).
pub fn record_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let e = event(cx, 0)?;
    cx.expect("hipEventRecord(NULL event)", INVALID_HANDLE, hip.hipEventRecord(ptr::null_mut(), ptr::null_mut()))?;
    let s = stream(cx, 0)?;
    destroy(cx, s)?;
    cx.expect("hipEventRecord(destroyed stream)", CONTEXT_IS_DESTROYED, hip.hipEventRecord(e, s))?;
    if cx.device_count()? > 1 {
        cx.device(1)?;
        let other = stream(cx, 0)?;
        cx.device(0)?;
        let r = hip.hipEventRecord(e, other);
        destroy(cx, other)?;
        cx.expect("hipEventRecord(stream of device 1, event of device 0)", INVALID_HANDLE, r)?;
    }
    cx.expect_ok("hipEventRecord(NULL stream)", hip.hipEventRecord(e, ptr::null_mut()))?;
    setup("hipEventSynchronize", hip.hipEventSynchronize(e))?;
    drop_event(cx, e)
}

/// [HIP-EVT-004](vmmkit_sys::hip::rules::EVT_004).
pub fn query(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    cx.expect("hipEventQuery(NULL)", INVALID_HANDLE, hip.hipEventQuery(ptr::null_mut()))?;
    let e = event(cx, 0)?;
    cx.expect_ok("hipEventQuery(never recorded)", hip.hipEventQuery(e))?;
    let s = stream(cx, hipStreamNonBlocking)?;
    let gate = Gate::new();
    gate.hold(cx, s)?;
    setup("hipEventRecord", hip.hipEventRecord(e, s))?;
    let pending = hip.hipEventQuery(e);
    gate.open();
    setup("hipEventSynchronize", hip.hipEventSynchronize(e))?;
    cx.expect("hipEventQuery(record behind held work)", NOT_READY, pending)?;
    cx.expect_ok("hipEventQuery(complete)", hip.hipEventQuery(e))?;
    destroy(cx, s)?;
    drop_event(cx, e)
}

/// [HIP-EVT-005](vmmkit_sys::hip::rules::EVT_005).
pub fn synchronize(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    cx.expect_code("hipEventSynchronize(NULL)", hip.hipEventSynchronize(ptr::null_mut()))?;
    let e = event(cx, 0)?;
    cx.expect_ok("hipEventSynchronize(never recorded)", hip.hipEventSynchronize(e))?;
    const N: usize = 4096;
    let s = stream(cx, hipStreamNonBlocking)?;
    let dev = cx.malloc(N)?;
    let src = pinned(cx, N)?;
    let mut host = vec![0u8; N];
    setup("hipMemset(pinned)", hip.hipMemset(src, 0x33, N))?;
    setup("hipMemcpyAsync(HtoD)", hip.hipMemcpyAsync(dev, src, N, hipMemcpyHostToDevice, s))?;
    setup("hipMemsetAsync", hip.hipMemsetAsync(src, 0, N, s))?;
    setup("hipMemcpyAsync(DtoH)", hip.hipMemcpyAsync(src, dev, N, hipMemcpyDeviceToHost, s))?;
    setup("hipEventRecord", hip.hipEventRecord(e, s))?;
    cx.expect_ok("hipEventSynchronize(recorded)", hip.hipEventSynchronize(e))?;
    setup("hipMemcpy(pinned to host)", hip.hipMemcpy(host.as_mut_ptr().cast(), src, N, hipMemcpyHostToHost))?;
    destroy(cx, s)?;
    setup("hipHostFree", hip.hipHostFree(src))?;
    cx.free(dev)?;
    drop_event(cx, e)?;
    let ok = host.iter().all(|&b| b == 0x33);
    cx.ensure("data before the record, after hipEventSynchronize", ok, "all 0x33", format!("{:?}", &host[..8]))
}

/// [HIP-EVT-006](vmmkit_sys::hip::rules::EVT_006).
pub fn elapsed(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let (a, b) = (event(cx, 0)?, event(cx, 0)?);
    let untimed = event(cx, hipEventDisableTiming)?;
    let mut ms = -1.0f32;
    cx.expect("elapsed(NULL ms)", INVALID_VALUE, hip.hipEventElapsedTime(ptr::null_mut(), a, b))?;
    cx.expect("elapsed(NULL start)", INVALID_HANDLE, hip.hipEventElapsedTime(&mut ms, ptr::null_mut(), b))?;
    cx.expect("elapsed(never recorded)", INVALID_HANDLE, hip.hipEventElapsedTime(&mut ms, a, b))?;
    let s = stream(cx, hipStreamNonBlocking)?;
    for e in [a, untimed] {
        setup("hipEventRecord", hip.hipEventRecord(e, s))?;
    }
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
    cx.expect("elapsed(stop never recorded)", INVALID_HANDLE, hip.hipEventElapsedTime(&mut ms, a, b))?;
    cx.expect("elapsed(DisableTiming stop)", INVALID_HANDLE, hip.hipEventElapsedTime(&mut ms, a, untimed))?;
    let gate = Gate::new();
    gate.hold(cx, s)?;
    setup("hipEventRecord", hip.hipEventRecord(b, s))?;
    let pending = hip.hipEventElapsedTime(&mut ms, a, b);
    gate.open();
    setup("hipEventSynchronize", hip.hipEventSynchronize(b))?;
    cx.expect("elapsed(stop behind held work)", NOT_READY, pending)?;
    cx.expect_ok("elapsed(both complete)", hip.hipEventElapsedTime(&mut ms, a, b))?;
    cx.ensure("elapsed ms", ms >= 0.0, ">= 0", ms)?;
    let mut same = -1.0f32;
    cx.expect_ok("elapsed(same event)", hip.hipEventElapsedTime(&mut same, a, a))?;
    destroy(cx, s)?;
    for e in [a, b, untimed] {
        drop_event(cx, e)?;
    }
    cx.ensure("elapsed of an event with itself", same == 0.0, 0.0, same)
}

/// [HIP-EVT-007](vmmkit_sys::hip::rules::EVT_007).
pub fn dead_event_calls(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let e = dead_event(cx)?;
    let live = event(cx, 0)?;
    let mut ms = 0.0f32;
    cx.expect_code("hipEventRecord(destroyed)", hip.hipEventRecord(e, ptr::null_mut()))?;
    cx.expect_code("hipEventQuery(destroyed)", hip.hipEventQuery(e))?;
    cx.expect_code("hipEventSynchronize(destroyed)", hip.hipEventSynchronize(e))?;
    cx.expect_code("hipEventElapsedTime(destroyed)", hip.hipEventElapsedTime(&mut ms, e, live))?;
    cx.expect_code("hipStreamWaitEvent(destroyed)", hip.hipStreamWaitEvent(ptr::null_mut(), e, 0))?;
    drop_event(cx, live)
}

/// [HIP-IEV-001](vmmkit_sys::hip::rules::IEV_001).
pub fn ipc_get_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let mut h = hipIpcEventHandle_t::default();
    let plain = event(cx, hipEventDisableTiming)?;
    let shared = event(cx, hipEventInterprocess | hipEventDisableTiming)?;
    cx.expect("hipIpcGetEventHandle(NULL handle)", INVALID_VALUE, hip.hipIpcGetEventHandle(ptr::null_mut(), shared))?;
    cx.expect("hipIpcGetEventHandle(NULL event)", INVALID_VALUE, hip.hipIpcGetEventHandle(&mut h, ptr::null_mut()))?;
    let r = hip.hipIpcGetEventHandle(&mut h, plain);
    cx.expect("hipIpcGetEventHandle(not Interprocess)", HipError::INVALID_CONFIGURATION, r)?;
    cx.expect_ok("hipIpcGetEventHandle(Interprocess)", hip.hipIpcGetEventHandle(&mut h, shared))?;
    drop_event(cx, plain)?;
    drop_event(cx, shared)?;
    cx.ensure("the handle", h != hipIpcEventHandle_t::default(), "not all zero", "all zero")
}

/// [HIP-IEV-002](vmmkit_sys::hip::rules::IEV_002).
pub fn ipc_open_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let shared = event(cx, hipEventInterprocess | hipEventDisableTiming)?;
    let mut h = hipIpcEventHandle_t::default();
    setup("hipIpcGetEventHandle", hip.hipIpcGetEventHandle(&mut h, shared))?;
    let mut e = ptr::null_mut();
    cx.expect("hipIpcOpenEventHandle(NULL event)", INVALID_VALUE, hip.hipIpcOpenEventHandle(ptr::null_mut(), h))?;
    let zero = hipIpcEventHandle_t::default();
    cx.expect("hipIpcOpenEventHandle(zero handle)", INVALID_VALUE, hip.hipIpcOpenEventHandle(&mut e, zero))?;
    cx.expect("hipIpcOpenEventHandle(own handle)", HipError::INVALID_CONTEXT, hip.hipIpcOpenEventHandle(&mut e, h))?;
    drop_event(cx, shared)
}

/// [HIP-IEV-003](vmmkit_sys::hip::rules::IEV_003): this process writes device memory with an async copy on a
/// stream from pinned memory and records an interprocess event after it,
/// without synchronizing; a peer opens the memory and the event, waits for
/// the record (through a stream of its own, then on the host, for a second
/// record) and must read the data written before each record.
pub fn ipc_across(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    const N: usize = 1 << 16;
    let dev = cx.malloc(N)?;
    setup("hipMemset", hip.hipMemset(dev, 0, N))?;
    // The fill is queued on the NULL stream (HIP-MEM-010); the work below
    // goes on a non-blocking stream, which does not wait for it.
    setup("hipStreamSynchronize(NULL)", hip.hipStreamSynchronize(ptr::null_mut()))?;
    let src = pinned(cx, N)?;
    let mut mem = hipIpcMemHandle_t::default();
    setup("hipIpcGetMemHandle", hip.hipIpcGetMemHandle(&mut mem, dev))?;
    let ev = event(cx, hipEventInterprocess | hipEventDisableTiming)?;
    let mut h = hipIpcEventHandle_t::default();
    setup("hipIpcGetEventHandle", hip.hipIpcGetEventHandle(&mut h, ev))?;
    let handle: Vec<u8> = h.reserved.iter().map(|&c| c as u8).collect();
    let s = stream(cx, hipStreamNonBlocking)?;
    let mut peer = cx.peer("ipc-event", 0)?;
    let r = peer.call(&Request::IpcOpen { handle: ipc_bytes(&mem), flags: hipIpcMemLazyEnablePeerAccess })?;
    cx.ensure_code("peer: hipIpcOpenMemHandle", HipError::SUCCESS, r.vendor_code())?;
    let ptr = r.value;
    let r = peer.call(&Request::EventOpen { handle })?;
    cx.ensure_code("peer: hipIpcOpenEventHandle", HipError::SUCCESS, r.vendor_code())?;
    let pev = r.value;
    for (seed, stream_wait) in [(0x6d, true), (0x2b, false)] {
        cx.write(src, N, seed)?;
        setup("hipMemcpyAsync", hip.hipMemcpyAsync(dev, src, N, hipMemcpyHostToDevice, s))?;
        setup("hipEventRecord", hip.hipEventRecord(ev, s))?;
        let how = if stream_wait { "hipStreamWaitEvent" } else { "hipEventSynchronize" };
        let r = peer.call(&Request::EventWait { event: pev, stream_wait })?;
        cx.ensure_code(&format!("peer: wait on the event ({how})"), HipError::SUCCESS, r.vendor_code())?;
        let r = peer.setup(&Request::Verify { ptr, len: N as u64, seed })?;
        cx.ensure(&format!("peer reads after {how}"), r.value == 1, format!("pattern {seed:#x}"), r.text)?;
        setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
    }
    peer.setup(&Request::EventClose { event: pev })?;
    peer.call(&Request::IpcClose { ptr })?;
    peer.exit()?;
    destroy(cx, s)?;
    drop_event(cx, ev)?;
    setup("hipHostFree", hip.hipHostFree(src))?;
    cx.free(dev)
}

/// [HIP-IEV-004](vmmkit_sys::hip::rules::IEV_004): the exporter lives, a peer opens its IPC event and records
/// it behind a wait that never ends, and the peer is killed: the exporter's
/// query ends "not ready" within 10 s (999), and so does its synchronize.
/// The query loop is bounded, so an emulator that keeps waiting fails with
/// 600 instead of hanging.
pub fn ipc_dead_recorder(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let ev = event(cx, hipEventInterprocess | hipEventDisableTiming)?;
    let mut h = hipIpcEventHandle_t::default();
    setup("hipIpcGetEventHandle", hip.hipIpcGetEventHandle(&mut h, ev))?;
    let handle: Vec<u8> = h.reserved.iter().map(|&c| c as u8).collect();
    let mut peer = cx.peer("recorder", 0)?;
    let r = peer.call(&Request::EventOpen { handle })?;
    cx.ensure_code("peer: hipIpcOpenEventHandle", HipError::SUCCESS, r.vendor_code())?;
    let r = peer.call(&Request::EventRecordStuck { event: r.value })?;
    cx.ensure_code(&format!("peer: record behind a wait ({})", r.text), HipError::SUCCESS, r.vendor_code())?;
    cx.ensure_code("hipEventQuery while the recorder lives", HipError::NOT_READY, hip.hipEventQuery(ev))?;
    peer.kill();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut q = hip.hipEventQuery(ev);
    while HipError(q) == HipError::NOT_READY && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
        q = hip.hipEventQuery(ev);
    }
    cx.expect_code("hipEventQuery after the recorder died", q)?;
    cx.expect_code("hipEventSynchronize after the recorder died", hip.hipEventSynchronize(ev))?;
    drop_event(cx, ev)
}
