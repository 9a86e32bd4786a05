//! ACL model capture over `vmmkit_emulator::acl::api()` (ACL-MRI): the
//! order a model replays its nodes in, across the streams that joined its
//! capture, and the calls a capture refuses without ending it, by mode and
//! thread. Each case runs in its own process and root.

mod common;

use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::acl_calls::{code, ok};
use common::isolated;
use vmmkit_sys::acl::*;

/// Bytes of each buffer.
const N: usize = 4096;

/// The optional function `$f` of the table.
macro_rules! f {
    ($acl:expr, $f:ident) => {
        $acl.$f.expect(concat!(stringify!($f), " is in the emulator's table"))
    };
}

static RUNS: AtomicUsize = AtomicUsize::new(0);

extern "C" fn bump(_args: *mut c_void) {
    RUNS.fetch_add(1, Ordering::SeqCst);
}

/// A device buffer of `N` bytes, and a new stream, on device 0.
fn setup(acl: &AclApi) -> (*mut c_void, aclrtStream) {
    let (mut dev, mut s) = (ptr::null_mut(), ptr::null_mut());
    // SAFETY: out-pointers are live locals.
    unsafe {
        ok("init", (acl.aclInit)(ptr::null()));
        ok("set device", (acl.aclrtSetDevice)(0));
        ok("malloc", (acl.aclrtMalloc)(&mut dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
        ok("stream", (acl.aclrtCreateStream)(&mut s));
    }
    (dev, s)
}

/// The `N` bytes at `dev`.
fn read(acl: &AclApi, dev: *mut c_void) -> Vec<u8> {
    let mut back = vec![0u8; N];
    // SAFETY: `back` holds N bytes; `dev` is a device buffer of N bytes.
    ok("read", unsafe { (acl.aclrtMemcpy)(back.as_mut_ptr().cast(), N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST) });
    back
}

/// A copy, a fill of the first half after it and a host function, captured:
/// nothing runs until an execution; each execution runs the three in that
/// order (a fill before the copy would leave 0x11 in the first half).
#[test]
fn a_model_replays_its_nodes_in_capture_order_at_each_execution() {
    isolated("a_model_replays_its_nodes_in_capture_order_at_each_execution", &[], |_| {
        let acl = vmmkit_emulator::acl::api();
        let (dev, s) = setup(&acl);
        let src = vec![0x11u8; N];
        let mut m: aclmdlRI = ptr::null_mut();
        // SAFETY: `src` outlives every execution (synchronized below); out-pointers are live locals.
        unsafe {
            ok("zero", (acl.aclrtMemset)(dev, N, 0, N));
            ok("begin", f!(acl, aclmdlRICaptureBegin)(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
            ok("copy", (acl.aclrtMemcpyAsync)(dev, N, src.as_ptr().cast(), N, ACL_MEMCPY_HOST_TO_DEVICE, s));
            ok("fill", f!(acl, aclrtMemsetAsync)(dev, N, 0x22, N / 2, s));
            ok("host function", f!(acl, aclrtLaunchHostFunc)(s, Some(bump), ptr::null_mut()));
            ok("end", f!(acl, aclmdlRICaptureEnd)(s, &mut m));
        }
        assert!(read(&acl, dev).iter().all(|&b| b == 0), "captured work ran before any execution");
        assert_eq!(RUNS.load(Ordering::SeqCst), 0, "the captured host function ran before any execution");
        for round in 1..=3 {
            // SAFETY: as above.
            unsafe {
                ok("zero", (acl.aclrtMemset)(dev, N, 0, N));
                ok("execute", f!(acl, aclmdlRIExecuteAsync)(m, s));
                ok("synchronize", (acl.aclrtSynchronizeStream)(s));
            }
            let back = read(&acl, dev);
            assert!(back[..N / 2].iter().all(|&b| b == 0x22), "execution {round}: the fill must follow the copy");
            assert!(back[N / 2..].iter().all(|&b| b == 0x11), "execution {round}: the copy must run");
            assert_eq!(RUNS.load(Ordering::SeqCst), round, "execution {round}: the host function runs once each");
        }
        // SAFETY: a model and a stream of this test.
        unsafe {
            ok("destroy", f!(acl, aclmdlRIDestroy)(m));
            assert_eq!(code(f!(acl, aclmdlRIDestroy)(m)), AclError::RT_INVALID_HANDLE, "ACL-MRI-016");
        }
    });
}

/// A fork and a join: stream 2 waits for the origin's record, fills, records;
/// the origin waits for that and copies the filled bytes elsewhere. The
/// replay keeps the fill before the copy although they were captured on
/// different streams.
#[test]
fn work_of_a_joined_stream_replays_before_what_waits_for_it() {
    isolated("work_of_a_joined_stream_replays_before_what_waits_for_it", &[], |_| {
        let acl = vmmkit_emulator::acl::api();
        let (x, s1) = setup(&acl);
        let (mut y, mut s2, mut fork, mut join, mut m) =
            (ptr::null_mut(), ptr::null_mut(), ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
        // SAFETY: out-pointers are live locals; buffers are device memory of N bytes.
        unsafe {
            ok("malloc y", (acl.aclrtMalloc)(&mut y, N, ACL_MEM_MALLOC_HUGE_FIRST));
            ok("stream 2", (acl.aclrtCreateStream)(&mut s2));
            ok("fork event", f!(acl, aclrtCreateEvent)(&mut fork));
            ok("join event", f!(acl, aclrtCreateEvent)(&mut join));
            ok("zero x", (acl.aclrtMemset)(x, N, 0, N));
            ok("zero y", (acl.aclrtMemset)(y, N, 0, N));
            ok("begin", f!(acl, aclmdlRICaptureBegin)(s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
            ok("fork", f!(acl, aclrtRecordEvent)(fork, s1));
            ok("stream 2 joins", f!(acl, aclrtStreamWaitEvent)(s2, fork));
            let mut st = -1;
            ok("info of stream 2", f!(acl, aclmdlRICaptureGetInfo)(s2, &mut st, ptr::null_mut()));
            assert_eq!(st, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, "a stream that waits for a captured record joins");
            ok("fill x on stream 2", f!(acl, aclrtMemsetAsync)(x, N, 0x33, N, s2));
            ok("join", f!(acl, aclrtRecordEvent)(join, s2));
            ok("origin waits", f!(acl, aclrtStreamWaitEvent)(s1, join));
            ok("copy x to y", (acl.aclrtMemcpyAsync)(y, N, x, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s1));
            ok("end", f!(acl, aclmdlRICaptureEnd)(s1, &mut m));
            ok("info of stream 2 after", f!(acl, aclmdlRICaptureGetInfo)(s2, &mut st, ptr::null_mut()));
            assert_eq!(st, ACL_MODEL_RI_CAPTURE_STATUS_NONE, "the end ends the capture on every stream");
            ok("execute", f!(acl, aclmdlRIExecuteAsync)(m, s1));
            ok("synchronize", (acl.aclrtSynchronizeStream)(s1));
        }
        assert!(read(&acl, y).iter().all(|&b| b == 0x33), "the copy must follow the joined stream's fill");
    });
}

/// The refusals leave the capture going and its model whole: sync, query
/// and destroy of the stream (107027), a synchronous copy in GLOBAL mode
/// (107030, allowed once the thread exchanges RELAXED), a host wait on a
/// captured event (107028).
#[test]
fn refused_calls_do_not_end_the_capture() {
    isolated("refused_calls_do_not_end_the_capture", &[], |_| {
        let acl = vmmkit_emulator::acl::api();
        let (dev, s) = setup(&acl);
        let host = vec![0x44u8; N];
        let (mut ev, mut m, mut status) = (ptr::null_mut(), ptr::null_mut(), -1);
        // SAFETY: out-pointers are live locals; `host` holds N bytes.
        unsafe {
            ok("event", f!(acl, aclrtCreateEvent)(&mut ev));
            ok("begin", f!(acl, aclmdlRICaptureBegin)(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
            ok("fill", f!(acl, aclrtMemsetAsync)(dev, N, 0x55, N, s));
            ok("record", f!(acl, aclrtRecordEvent)(ev, s));
            assert_eq!(code((acl.aclrtSynchronizeStream)(s)), AclError::RT_STREAM_CAPTURED);
            assert_eq!(code(f!(acl, aclrtStreamQuery)(s, &mut status)), AclError::RT_STREAM_CAPTURED);
            assert_eq!(code((acl.aclrtDestroyStream)(s)), AclError::RT_STREAM_CAPTURED);
            assert_eq!(code(f!(acl, aclrtSynchronizeEvent)(ev)), AclError::RT_EVENT_CAPTURED);
            let copy = || (acl.aclrtMemcpy)(dev, N, host.as_ptr().cast(), N, ACL_MEMCPY_HOST_TO_DEVICE);
            assert_eq!(code(copy()), AclError::RT_CAPTURE_MODE_NOT_SUPPORT);
            let mut mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
            ok("exchange", f!(acl, aclmdlRICaptureThreadExchangeMode)(&mut mode));
            assert_eq!(mode, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, "the thread's mode is GLOBAL at first");
            ok("copy in RELAXED mode", copy());
            ok("exchange back", f!(acl, aclmdlRICaptureThreadExchangeMode)(&mut mode));
            let mut st = -1;
            ok("info", f!(acl, aclmdlRICaptureGetInfo)(s, &mut st, ptr::null_mut()));
            assert_eq!(st, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, "no refusal invalidates the capture");
            ok("end", f!(acl, aclmdlRICaptureEnd)(s, &mut m));
            ok("execute", f!(acl, aclmdlRIExecuteAsync)(m, s));
            ok("synchronize", (acl.aclrtSynchronizeStream)(s));
        }
        assert!(read(&acl, dev).iter().all(|&b| b == 0x55), "the model keeps the fill captured before the refusals");
    });
}

/// A THREAD_LOCAL capture of another thread does not refuse this thread's
/// synchronous copy; a GLOBAL one does (Context::IsCaptureModeSupport).
#[test]
fn a_thread_local_capture_refuses_only_its_own_thread() {
    isolated("a_thread_local_capture_refuses_only_its_own_thread", &[], |_| {
        let acl = vmmkit_emulator::acl::api();
        let (dev, s) = setup(&acl);
        let host = vec![1u8; N];
        let copy = || {
            // SAFETY: `host` holds N bytes; `dev` is a device buffer of N bytes.
            code(unsafe { (acl.aclrtMemcpy)(dev, N, host.as_ptr().cast(), N, ACL_MEMCPY_HOST_TO_DEVICE) })
        };
        for (mode, want) in [
            (ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL, AclError::SUCCESS),
            (ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, AclError::RT_CAPTURE_MODE_NOT_SUPPORT),
        ] {
            let stream = s as usize;
            std::thread::scope(|t| {
                t.spawn(|| {
                    // SAFETY: a stream of this test.
                    unsafe {
                        ok("set device", (acl.aclrtSetDevice)(0));
                        ok("begin", f!(acl, aclmdlRICaptureBegin)(stream as aclrtStream, mode));
                    }
                })
                .join()
                .expect("the capturing thread");
            });
            assert_eq!(copy(), want, "a copy while another thread's capture in mode {mode} goes on");
            let mut m = ptr::null_mut();
            // SAFETY: a stream of this test. Ended by a thread that did not begin it (not in RELAXED
            // mode): 107038, and the stream leaves the capture (ACL-MRI-007).
            let end = code(unsafe { f!(acl, aclmdlRICaptureEnd)(s, &mut m) });
            assert_eq!(end, AclError::RT_STREAM_CAPTURE_WRONG_THREAD, "ACL-MRI-007");
            assert_eq!(copy(), AclError::SUCCESS, "no capture goes on after the wrong-thread end");
        }
    });
}
