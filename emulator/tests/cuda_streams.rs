//! CUDA streams, events and IPC events through the emulator's CUDA table,
//! under each `VMMKIT_STREAMS` schedule: ordering within a stream, events
//! and value waits between streams, the legacy stream, host functions,
//! the codes of CUDA-STM/-EVT/-IEV; and the two-process program
//! ("Must show"): A copies to the device with cuMemcpyHtoDAsync on a stream
//! and records an interprocess event, B opens the memory and the event,
//! waits on it and reads A's data; without the wait, B reads stale data
//! every time under `adversarial`. Each test runs in its own process with
//! its own `VMMKIT_ROOT`; the peer is this binary run again in a role.

// The `cucall!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;
mod cuda_common;
mod hip_common;

use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicU32, Ordering};

use common::{Peer, isolated, next_command, reply};
use cuda_common::{cu, handle_from_hex, handle_hex, read, setup, write};
use hip_common::{bytes_from_hex, bytes_hex, checksum, pattern};
use vmmkit_sys::cuda::*;

const MODES: [&str; 3] = ["eager", "async", "adversarial:7"];

fn env(mode: &'static str) -> [(&'static str, &'static str); 3] {
    [("VMMKIT_DEVICES", "2"), ("VMMKIT_DEVICE_MEMORY", "1G"), ("VMMKIT_STREAMS", mode)]
}

fn stream(api: &CudaApi, flags: u32) -> CUstream {
    let mut s = ptr::null_mut();
    cuok!(api, cuStreamCreate(&mut s, flags));
    s
}

fn event(api: &CudaApi, flags: u32) -> CUevent {
    let mut e = ptr::null_mut();
    cuok!(api, cuEventCreate(&mut e, flags));
    e
}

/// A device word of 4 bytes, zeroed.
fn word(api: &CudaApi) -> CUdeviceptr {
    let mut w = 0;
    cuok!(api, cuMemAlloc(&mut w, 8));
    cuok!(api, cuMemsetD8(w, 0, 8));
    w
}

/// Sets the device word `w` from the host (a synchronous copy: ordered with
/// the legacy stream only, so it releases value waits on non-blocking streams).
fn set_word(api: &CudaApi, w: CUdeviceptr, v: u32) {
    write(api, w, &v.to_le_bytes());
}

static HOST_CALLS: AtomicU32 = AtomicU32::new(0);

unsafe extern "C" fn count_call(data: *mut c_void) {
    HOST_CALLS.fetch_add(data.addr() as u32, Ordering::SeqCst);
}

unsafe extern "C" fn count_callback(_s: CUstream, status: CUresult, data: *mut c_void) {
    assert_eq!(status, 0);
    HOST_CALLS.fetch_add(data.addr() as u32, Ordering::SeqCst);
}

/// Streams and events within one process, in mode `mode`.
fn one_process(mode: &'static str) {
    let api = cu();
    setup(&api, 0);
    let n = 64 << 10;
    let data = pattern(n, 3);
    let mut dev = 0;
    cuok!(api, cuMemAlloc(&mut dev, n));

    // CUDA-STM-001 and -009.
    let mut s = ptr::null_mut();
    cuexpect!(api, cuStreamCreate(&mut s, 2), CuResult::INVALID_VALUE, "CUDA-STM-001");
    cuexpect!(api, cuStreamCreate(ptr::null_mut(), 0), CuResult::INVALID_VALUE, "CUDA-STM-001");
    cuok!(api, cuStreamCreateWithPriority(&mut s, CU_STREAM_NON_BLOCKING, -100));
    let (mut flags, mut prio) = (9, 9);
    cuok!(api, cuStreamGetFlags(s, &mut flags));
    cuok!(api, cuStreamGetPriority(s, &mut prio));
    assert_eq!((flags, prio), (CU_STREAM_NON_BLOCKING, -5), "CUDA-STM-009");
    cuok!(api, cuStreamDestroy(s));

    // CUDA-STM-004: in order on one stream; synchronize waits for all of it.
    let s = stream(&api, CU_STREAM_NON_BLOCKING);
    let mut back = vec![0u8; n];
    cuok!(api, cuMemcpyHtoDAsync(dev, data.as_ptr().cast(), n, s));
    cuok!(api, cuMemcpyDtoHAsync(back.as_mut_ptr().cast(), dev, n, s));
    cuok!(api, cuStreamSynchronize(s));
    assert_eq!(back, data, "CUDA-STM-004 ({mode})");
    cuok!(api, cuStreamQuery(s));

    // CUDA-STM-003, -007, EVT-002, -005: a stream held by a value wait.
    let w = word(&api);
    let held = stream(&api, CU_STREAM_NON_BLOCKING);
    let other = stream(&api, CU_STREAM_NON_BLOCKING);
    let (ev, t0, t1) = (event(&api, CU_EVENT_DISABLE_TIMING), event(&api, 0), event(&api, 0));
    cuok!(api, cuEventQuery(ev)); // never recorded: complete
    cuok!(api, cuEventRecord(t0, held));
    cuok!(api, cuStreamWaitValue32(held, w, 1, CU_STREAM_WAIT_VALUE_GEQ));
    cuok!(api, cuEventRecord(ev, held));
    cuok!(api, cuEventRecord(t1, held));
    cuok!(api, cuStreamWaitEvent(other, ev, 0));
    cuok!(api, cuMemsetD8Async(dev, 0x5a, n, other));
    cuexpect!(api, cuStreamQuery(held), CuResult::NOT_READY, "CUDA-STM-003");
    cuexpect!(api, cuEventQuery(ev), CuResult::NOT_READY, "CUDA-EVT-002");
    cuexpect!(api, cuStreamQuery(other), CuResult::NOT_READY, "CUDA-STM-003"); // CUDA-STM-007
    let mut ms = 0f32;
    cuexpect!(api, cuEventElapsedTime(&mut ms, t0, t1), CuResult::NOT_READY, "CUDA-EVT-005");
    cuexpect!(api, cuEventElapsedTime(&mut ms, ev, t1), CuResult::INVALID_HANDLE, "CUDA-EVT-004");
    set_word(&api, w, 1);
    cuok!(api, cuStreamSynchronize(other));
    cuok!(api, cuEventQuery(ev));
    assert_eq!(read(&api, dev, n), vec![0x5a; n], "the memset after the wait ran");
    cuok!(api, cuEventSynchronize(t1));
    cuok!(api, cuEventElapsedTime(&mut ms, t0, t1));
    assert!(ms >= 0.0, "{ms}");

    // CUDA-STM-008: the legacy stream waits for a blocking stream, not for a non-blocking one.
    set_word(&api, w, 0);
    let blocking = stream(&api, CU_STREAM_DEFAULT);
    cuok!(api, cuStreamWaitValue32(blocking, w, 2, CU_STREAM_WAIT_VALUE_EQ));
    cuok!(api, cuMemsetD8Async(dev, 1, n, ptr::null_mut()));
    cuexpect!(api, cuStreamQuery(ptr::null_mut()), CuResult::NOT_READY, "CUDA-STM-003"); // CUDA-STM-008
    cuok!(api, cuStreamWriteValue32(held, w, 2, 0));
    cuok!(api, cuStreamSynchronize(ptr::null_mut()));
    assert_eq!(read(&api, dev, 4), vec![1; 4]);
    cuok!(api, cuStreamWaitValue32(held, w, 3, CU_STREAM_WAIT_VALUE_EQ));
    cuok!(api, cuMemsetD8Async(dev, 2, n, ptr::null_mut()));
    cuok!(api, cuStreamSynchronize(ptr::null_mut()));
    cuok!(api, cuStreamWriteValue64(other, w, 3, 0));
    cuok!(api, cuStreamSynchronize(held));

    // CUDA-STM-011: host functions run in order; CUDA-STM-005: destroy returns at once.
    HOST_CALLS.store(0, Ordering::SeqCst);
    cuok!(api, cuStreamWaitValue32(held, w, 4, CU_STREAM_WAIT_VALUE_GEQ));
    cuok!(api, cuLaunchHostFunc(held, Some(count_call), std::ptr::without_provenance_mut(1)));
    cuok!(api, cuStreamAddCallback(held, Some(count_callback), std::ptr::without_provenance_mut(10), 0));
    cuexpect!(
        api,
        cuStreamAddCallback(held, Some(count_callback), ptr::null_mut(), 1),
        CuResult::INVALID_VALUE,
        "CUDA-STM-011"
    );
    cuexpect!(api, cuLaunchHostFunc(held, None, ptr::null_mut()), CuResult::INVALID_VALUE, "CUDA-STM-011");
    cuok!(api, cuStreamDestroy(held));
    assert_eq!(HOST_CALLS.load(Ordering::SeqCst), 0, "held by the wait");
    set_word(&api, w, 4);
    cuok!(api, cuCtxSynchronize());
    assert_eq!(HOST_CALLS.load(Ordering::SeqCst), 11, "CUDA-STM-005, -011");

    // CUDA-STM-002, -006, -010, EVT-001, -006, IEV-001.
    let bad = 0x7777 as CUstream;
    cuexpect!(api, cuStreamSynchronize(bad), CuResult::INVALID_HANDLE, "CUDA-STM-002");
    cuexpect!(api, cuStreamDestroy(ptr::null_mut()), CuResult::INVALID_HANDLE, "CUDA-STM-002");
    cuexpect!(api, cuStreamWaitEvent(other, ev, 2), CuResult::INVALID_VALUE, "CUDA-STM-006");
    cuexpect!(api, cuStreamWaitValue32(other, w, 0, 4), CuResult::INVALID_VALUE, "CUDA-STM-010");
    cuexpect!(api, cuStreamWriteValue32(other, w, 0, 2), CuResult::INVALID_VALUE, "CUDA-STM-010");
    let mut e2 = ptr::null_mut();
    cuexpect!(api, cuEventCreate(&mut e2, CU_EVENT_INTERPROCESS), CuResult::INVALID_VALUE, "CUDA-EVT-001");
    cuexpect!(api, cuEventCreate(&mut e2, 8), CuResult::INVALID_VALUE, "CUDA-EVT-001");
    cuexpect!(api, cuEventRecord(ptr::null_mut(), other), CuResult::INVALID_HANDLE, "CUDA-EVT-006");
    let mut h = CUipcEventHandle::default();
    cuexpect!(api, cuIpcGetEventHandle(&mut h, ev), CuResult::INVALID_HANDLE, "CUDA-IEV-001");

    for e in [ev, t0, t1] {
        cuok!(api, cuEventDestroy(e));
    }
    for s in [s, other, blocking] {
        cuok!(api, cuStreamDestroy(s));
    }
    cuok!(api, cuCtxSynchronize());
    cuok!(api, cuMemFree(w));
    cuok!(api, cuMemFree(dev));
}

#[test]
fn one_process_eager() {
    isolated("one_process_eager", &env(MODES[0]), |_| one_process(MODES[0]));
}

#[test]
fn one_process_async() {
    isolated("one_process_async", &env(MODES[1]), |_| one_process(MODES[1]));
}

#[test]
fn one_process_adversarial() {
    isolated("one_process_adversarial", &env(MODES[2]), |_| one_process(MODES[2]));
}

/// The peers: this binary, run in a role by `Peer::start`.
#[test]
fn peer() {
    let Some(role) = common::peer_role() else { return };
    let api = cu();
    setup(&api, 0);
    match role.as_str() {
        "reader" => reader(&api),
        _ => panic!("unknown role {role}"),
    }
}

/// B: `read MEM EVENT SIZE WAIT` opens the memory and the event, waits on
/// the event on a stream of its own when WAIT is 1, reads, and answers the
/// checksum of what it read.
fn reader(api: &CudaApi) {
    while let Some(cmd) = next_command() {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        if let ["open-event", ev] = words.as_slice() {
            let mut h = CUipcEventHandle::default();
            bytes_from_hex(ev, &mut h.reserved);
            let mut e = ptr::null_mut();
            let rc = cucall!(api, cuIpcOpenEventHandle(&mut e, h));
            if rc == CuResult::SUCCESS {
                cuok!(api, cuEventDestroy(e));
            }
            reply(rc.0);
            continue;
        }
        let ["read", mem, ev, size, wait] = words.as_slice() else { panic!("unknown command {cmd}") };
        let size: usize = size.parse().expect("size");
        let mut p = 0;
        cuok!(api, cuIpcOpenMemHandle(&mut p, handle_from_hex(mem), CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
        let mut h = CUipcEventHandle::default();
        bytes_from_hex(ev, &mut h.reserved);
        let mut e = ptr::null_mut();
        cuok!(api, cuIpcOpenEventHandle(&mut e, h));
        if *wait == "1" {
            let s = stream(api, CU_STREAM_NON_BLOCKING);
            cuok!(api, cuStreamWaitEvent(s, e, 0));
            cuok!(api, cuStreamSynchronize(s));
            cuok!(api, cuStreamDestroy(s));
            // CUDA-IEV-003: the opened event has timing disabled.
            let mut ms = 0f32;
            cuexpect!(api, cuEventElapsedTime(&mut ms, e, e), CuResult::INVALID_HANDLE, "CUDA-EVT-004");
        }
        reply(format!("ok {}", checksum(&read(api, p, size))));
        cuok!(api, cuEventDestroy(e));
        cuok!(api, cuIpcCloseMemHandle(p));
    }
}

/// The creator of an IPC event is the process the registry recorded, never
/// the pid written in the handle: a handle whose pid field names another
/// process (its check word made again) opens nothing in another process,
/// while the real one opens.
#[test]
fn an_event_handle_naming_another_creator_opens_nothing() {
    isolated("an_event_handle_naming_another_creator_opens_nothing", &env(MODES[1]), |_| {
        use vmmkit_emulator::core::IpcToken;
        const MAGIC: [u8; 8] = *b"VMMKCEV1";
        let api = cu();
        setup(&api, 0);
        let e = event(&api, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING);
        let mut eh = CUipcEventHandle::default();
        cuok!(api, cuIpcGetEventHandle(&mut eh, e));
        let mut token = IpcToken::decode(MAGIC, &eh.reserved.map(|c| c as u8)).expect("an event handle");
        let mut b = Peer::start("reader");
        for pid in [1, b.pid() as i32] {
            token.pid = pid;
            let forged = token.encode(MAGIC).map(|c| c as std::ffi::c_char);
            b.send(&format!("open-event {}", bytes_hex(&forged)));
            assert_eq!(b.recv(), CuResult::INVALID_HANDLE.0.to_string(), "a handle that says pid {pid} made it");
        }
        b.send(&format!("open-event {}", bytes_hex(&eh.reserved)));
        assert_eq!(b.recv(), "0", "the real handle opens");
        b.finish();
        cuok!(api, cuEventDestroy(e));
    });
}

/// A: writes with cuMemcpyHtoDAsync on a non-blocking stream, records an
/// interprocess event after it, and sends both handles to B before it
/// synchronises anything; B answers the checksum of what it read.
fn two_processes(wait: bool) -> (String, String) {
    let api = cu();
    setup(&api, 0);
    let mut b = Peer::start("reader");
    let size = 256 << 10;
    let data = pattern(size, 11);
    let mut p = 0;
    cuok!(api, cuMemAlloc(&mut p, size));
    cuok!(api, cuMemsetD8(p, 0, size));
    let s = stream(&api, CU_STREAM_NON_BLOCKING);
    let e = event(&api, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING);
    cuok!(api, cuMemcpyHtoDAsync(p, data.as_ptr().cast(), size, s));
    cuok!(api, cuEventRecord(e, s));
    let mut mh = CUipcMemHandle::default();
    cuok!(api, cuIpcGetMemHandle(&mut mh, p));
    let mut eh = CUipcEventHandle::default();
    cuok!(api, cuIpcGetEventHandle(&mut eh, e));
    // CUDA-IEV-002: not in the exporting process.
    let mut own = ptr::null_mut();
    cuexpect!(api, cuIpcOpenEventHandle(&mut own, eh), CuResult::INVALID_CONTEXT, "CUDA-IEV-002");
    b.send(&format!("read {} {} {size} {}", handle_hex(&mh), bytes_hex(&eh.reserved), u8::from(wait)));
    let got = b.recv();
    cuok!(api, cuStreamSynchronize(s));
    b.finish();
    cuok!(api, cuEventDestroy(e));
    cuok!(api, cuStreamDestroy(s));
    cuok!(api, cuMemFree(p));
    (got, format!("ok {}", checksum(&data)))
}

#[test]
fn two_processes_eager() {
    isolated("two_processes_eager", &env(MODES[0]), |_| {
        let (got, want) = two_processes(true);
        assert_eq!(got, want, "B waited on A's event and read A's data");
    });
}

#[test]
fn two_processes_async() {
    isolated("two_processes_async", &env(MODES[1]), |_| {
        let (got, want) = two_processes(true);
        assert_eq!(got, want, "B waited on A's event and read A's data");
    });
}

#[test]
fn two_processes_adversarial() {
    isolated("two_processes_adversarial", &env(MODES[2]), |_| {
        let (got, want) = two_processes(true);
        assert_eq!(got, want, "B waited on A's event and read A's data");
    });
}

/// Without the wait, B reads before A's copy ran: stale data, every time.
#[test]
fn two_processes_without_the_wait_read_stale_data_under_adversarial() {
    isolated("two_processes_without_the_wait_read_stale_data_under_adversarial", &env(MODES[2]), |_| {
        for round in 0..3 {
            let (got, want) = two_processes(false);
            let zeros = format!("ok {}", checksum(&vec![0u8; 256 << 10]));
            assert_ne!(got, want, "round {round}: B read A's data without waiting");
            assert_eq!(got, zeros, "round {round}: B reads the memory as it was before A's copy");
        }
    });
}

/// A host function that keeps its stream busy for 200 ms.
extern "C" fn busy_for_free(_: *mut c_void) {
    std::thread::sleep(std::time::Duration::from_millis(200));
}

/// cuMemFree of cuMemAlloc memory waits for the device's streams
/// (CUDA-STM-013): with 200 ms of work on the NULL stream, cuStreamQuery(NULL)
/// right after the free is 0, where it was 600 (not ready) before.
#[test]
fn mem_free_synchronises_the_device_first() {
    isolated("mem_free_synchronises_the_device_first", &[("VMMKIT_STREAMS", "async")], |_| {
        let api = cu();
        setup(&api, 0);
        let mut p = 0;
        cuok!(api, cuMemAlloc(&mut p, 1 << 20));
        cuok!(api, cuLaunchHostFunc(ptr::null_mut(), Some(busy_for_free), ptr::null_mut()));
        cuexpect!(api, cuStreamQuery(ptr::null_mut()), CuResult::NOT_READY, "CUDA-STM-003");
        cuok!(api, cuMemFree(p));
        assert_eq!(cucall!(api, cuStreamQuery(ptr::null_mut())), CuResult::SUCCESS, "CUDA-STM-013: after cuMemFree");
    });
}
