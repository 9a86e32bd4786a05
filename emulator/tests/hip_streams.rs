//! HIP streams and events on the core's stream model, through the HIP
//! table: what the adversarial schedule shows (stale data and the
//! unsynchronised-access report when a stream is not waited for), the NULL
//! stream's ordering with blocking streams, device synchronize,
//! stream-ordered frees, per-thread default streams and host functions in
//! order. Each test runs in its own process and `VMMKIT_ROOT`.

// The `hcall!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;
mod hip_common;

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Mutex;

use common::isolated;
use hip_common::hip;
use vmmkit_sys::hip::*;

const ADVERSARIAL: &[(&str, &str)] = &[("VMMKIT_STREAMS", "adversarial:5"), ("VMMKIT_DEVICES", "2")];
const N: usize = 1 << 16;

/// `n` bytes of device memory holding `fill`, and `n` bytes of pinned host memory holding `src`.
fn buffers(api: &HipApi, fill: u8, src: u8) -> (*mut c_void, *mut c_void) {
    let (mut dev, mut host) = (null_mut(), null_mut());
    hok!(api, hipMalloc(&mut dev, N));
    hok!(api, hipMemset(dev, i32::from(fill), N));
    hok!(api, hipHostMalloc(&mut host, N, 0));
    hok!(api, hipMemset(host, i32::from(src), N));
    (dev, host)
}

fn stream(api: &HipApi, flags: u32) -> hipStream_t {
    let mut s = null_mut();
    hok!(api, hipStreamCreateWithFlags(&mut s, flags));
    s
}

/// Reads `N` bytes of device memory with hipMemcpy (the NULL stream).
fn read(api: &HipApi, dev: *mut c_void) -> Vec<u8> {
    let mut b = vec![0u8; N];
    hok!(api, hipMemcpy(b.as_mut_ptr().cast(), dev, N, hipMemcpyDeviceToHost));
    b
}

fn hazards() -> usize {
    vmmkit_emulator::core::emulator().expect("emulator").take_hazards().len()
}

#[test]
fn a_read_before_the_stream_is_waited_for_is_stale_and_reported() {
    isolated("a_read_before_the_stream_is_waited_for_is_stale_and_reported", ADVERSARIAL, |_| {
        let api = hip();
        let (dev, host) = buffers(&api, 0, 7);
        let s = stream(&api, hipStreamNonBlocking);
        assert_eq!(hazards(), 0);
        hok!(api, hipMemcpyAsync(dev, host, N, hipMemcpyHostToDevice, s));
        // A NonBlocking stream is not ordered with the NULL stream's hipMemcpy.
        assert!(read(&api, dev).iter().all(|&b| b == 0), "adversarial: the held copy has not run");
        assert!(hazards() > 0, "the read of memory the stream has yet to write is reported");
        hok!(api, hipStreamSynchronize(s));
        assert!(read(&api, dev).iter().all(|&b| b == 7), "after hipStreamSynchronize the copy has run");
        hok!(api, hipStreamDestroy(s));
        hok!(api, hipHostFree(host));
        hok!(api, hipFree(dev));
    });
}

#[test]
fn the_null_stream_waits_for_blocking_streams_not_for_nonblocking_ones() {
    isolated("the_null_stream_waits_for_blocking_streams_not_for_nonblocking_ones", ADVERSARIAL, |_| {
        let api = hip();
        let (dev, host) = buffers(&api, 0, 9);
        let blocking = stream(&api, hipStreamDefault);
        hok!(api, hipMemcpyAsync(dev, host, N, hipMemcpyHostToDevice, blocking));
        assert!(read(&api, dev).iter().all(|&b| b == 9), "hipMemcpy waits for the blocking stream's copy");
        hexpect!(api, hipStreamQuery(blocking), HipError::SUCCESS);
        let (other, _) = buffers(&api, 0, 0);
        let nb = stream(&api, hipStreamNonBlocking);
        hok!(api, hipMemcpyAsync(other, host, N, hipMemcpyHostToDevice, nb));
        hok!(api, hipStreamSynchronize(null_mut()));
        assert!(read(&api, other).iter().all(|&b| b == 0), "hipStreamSynchronize(NULL) leaves NonBlocking work");
        hok!(api, hipDeviceSynchronize());
        hexpect!(api, hipStreamQuery(nb), HipError::SUCCESS);
        assert!(read(&api, other).iter().all(|&b| b == 9), "hipDeviceSynchronize waits for every stream");
        for s in [blocking, nb] {
            hok!(api, hipStreamDestroy(s));
        }
        hazards();
    });
}

#[test]
fn an_event_orders_two_streams() {
    isolated("an_event_orders_two_streams", ADVERSARIAL, |_| {
        let api = hip();
        let (a, host) = buffers(&api, 0, 3);
        let (b, _) = buffers(&api, 0, 0);
        let (s1, s2) = (stream(&api, hipStreamNonBlocking), stream(&api, hipStreamNonBlocking));
        let mut ev = null_mut();
        hok!(api, hipEventCreateWithFlags(&mut ev, hipEventDisableTiming));
        hok!(api, hipMemcpyAsync(a, host, N, hipMemcpyHostToDevice, s1));
        hok!(api, hipEventRecord(ev, s1));
        hok!(api, hipStreamWaitEvent(s2, ev, 0));
        hok!(api, hipMemcpyDtoDAsync(b, a, N, s2));
        hok!(api, hipStreamSynchronize(s2));
        assert!(read(&api, b).iter().all(|&x| x == 3), "s2's copy ran after s1's, through the event");
        assert_eq!(hazards(), 0, "the ordered copy is no unsynchronised access");
        hexpect!(api, hipEventQuery(ev), HipError::SUCCESS);
        hok!(api, hipEventDestroy(ev));
    });
}

#[test]
fn free_async_frees_when_the_stream_reaches_it() {
    isolated("free_async_frees_when_the_stream_reaches_it", ADVERSARIAL, |_| {
        let api = hip();
        let (dev, host) = buffers(&api, 4, 0);
        let s = stream(&api, hipStreamNonBlocking);
        hok!(api, hipMemcpyAsync(host, dev, N, hipMemcpyDeviceToHost, s));
        hok!(api, hipFreeAsync(dev, s));
        hok!(api, hipStreamSynchronize(s));
        let mut back = vec![0u8; N];
        hok!(api, hipMemcpy(back.as_mut_ptr().cast(), host, N, hipMemcpyHostToHost));
        assert!(back.iter().all(|&b| b == 4), "the copy queued before the free read the memory");
        hexpect!(api, hipFree(dev), HipError::INVALID_VALUE);
    });
}

#[test]
fn per_thread_streams_are_the_threads_own() {
    isolated("per_thread_streams_are_the_threads_own", ADVERSARIAL, |_| {
        std::thread::scope(|t| {
            for seed in [1u8, 2] {
                t.spawn(move || {
                    let api = hip();
                    let (dev, host) = buffers(&api, 0, seed);
                    hok!(api, hipMemcpyAsync(dev, host, N, hipMemcpyHostToDevice, hipStreamPerThread));
                    let mut flags = 9;
                    hok!(api, hipStreamGetFlags(hipStreamPerThread, &mut flags));
                    assert_eq!(flags, hipStreamDefault);
                    hok!(api, hipStreamSynchronize(hipStreamPerThread));
                    assert!(read(&api, dev).iter().all(|&b| b == seed));
                    hexpect!(api, hipStreamDestroy(hipStreamPerThread), HipError::INVALID_HANDLE);
                });
            }
        });
    });
}

/// What the host functions of `host_functions_run_in_order` saw.
static SEEN: Mutex<Vec<usize>> = Mutex::new(Vec::new());

extern "C" fn note(user: *mut c_void) {
    SEEN.lock().unwrap_or_else(|p| p.into_inner()).push(user as usize);
}

extern "C" fn note_cb(_: hipStream_t, status: hipError_t, user: *mut c_void) {
    assert_eq!(status, 0);
    note(user);
}

#[test]
fn host_functions_run_in_order_under_every_schedule() {
    isolated("host_functions_run_in_order_under_every_schedule", &[], |_| {
        let e = vmmkit_emulator::core::emulator().expect("emulator");
        for (round, schedule) in [
            vmmkit_emulator::Schedule::Eager,
            vmmkit_emulator::Schedule::Async,
            vmmkit_emulator::Schedule::Adversarial { seed: 3 },
        ]
        .into_iter()
        .enumerate()
        {
            e.set_schedule(schedule);
            let api = hip();
            let launch = api.hipLaunchHostFunc.expect("the emulator has hipLaunchHostFunc");
            let s = stream(&api, hipStreamNonBlocking);
            let base = round * 10;
            for i in 0..4 {
                if i % 2 == 0 {
                    // SAFETY: a live stream and a function that takes any pointer value.
                    assert_eq!(unsafe { launch(s, Some(note), (base + i) as *mut c_void) }, 0);
                } else {
                    hok!(api, hipStreamAddCallback(s, Some(note_cb), (base + i) as *mut c_void, 0));
                }
            }
            hok!(api, hipStreamSynchronize(s));
            let seen: Vec<usize> = SEEN.lock().unwrap_or_else(|p| p.into_inner()).drain(..).collect();
            assert_eq!(seen, (base..base + 4).collect::<Vec<_>>(), "{schedule:?}");
            hok!(api, hipStreamDestroy(s));
        }
    });
}

/// A host function that keeps its stream busy for 200 ms.
extern "C" fn busy(_: *mut c_void) {
    std::thread::sleep(std::time::Duration::from_millis(200));
}

/// hipFree and hipHostFree synchronise the device first, as clr's `ihipFree`
/// does (`SyncAllStreams`, HIP-MEM-003): with 200 ms of work queued on the
/// NULL stream, `hipStreamQuery(nullptr)` right after the free is success
/// (hip-tests `Unit_hipFreeImplicitSyncDev`, `Unit_hipFreeImplicitSyncHost`),
/// where it was 600 (not ready) before. hipFreeArray waits too.
#[test]
fn frees_synchronise_the_device_first() {
    isolated("frees_synchronise_the_device_first", &[("VMMKIT_STREAMS", "async")], |_| {
        let api = hip();
        let launch = api.hipLaunchHostFunc.expect("the emulator has hipLaunchHostFunc");
        let queue_work = || {
            // SAFETY: the NULL stream and a function that takes any pointer value.
            assert_eq!(unsafe { launch(null_mut(), Some(busy), null_mut()) }, 0);
            assert_eq!(hcall!(api, hipStreamQuery(null_mut())), HipError::NOT_READY, "work is queued");
        };
        let mut dev = null_mut();
        hok!(api, hipMalloc(&mut dev, N));
        queue_work();
        hok!(api, hipFree(dev));
        assert_eq!(hcall!(api, hipStreamQuery(null_mut())), HipError::SUCCESS, "after hipFree");
        let mut host = null_mut();
        hok!(api, hipHostMalloc(&mut host, N, 0));
        queue_work();
        hok!(api, hipHostFree(host));
        assert_eq!(hcall!(api, hipStreamQuery(null_mut())), HipError::SUCCESS, "after hipHostFree");
        // A pointer HIP does not know waits for nothing: 1 at once.
        queue_work();
        assert_eq!(hcall!(api, hipFree(0x10 as *mut c_void)), HipError::INVALID_VALUE);
        hok!(api, hipDeviceSynchronize());
    });
}
