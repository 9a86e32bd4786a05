//! ACL streams and events over the core, under each `VMMKIT_STREAMS` mode:
//! async copies are there after a synchronize, events order streams, and a
//! read without the synchronize sees stale data under `adversarial` every
//! time, with the unsynchronised access reported. Each case runs in its own
//! process with its own root and mode.

mod common;

use std::ffi::c_void;
use std::ptr;

use common::isolated;
use vmmkit_emulator::core::emulator;
use vmmkit_sys::acl::*;

const MODES: [&str; 3] = ["eager", "async", "adversarial:7"];
/// Set in a child to the mode it runs, so that it runs only that one.
const MODE_ENV: &str = "VMMKIT_ACL_STREAMS_MODE";
const N: usize = 4096;

fn ok(what: &str, rc: aclError) {
    assert_eq!(AclError(rc), AclError::SUCCESS, "{what}");
}

/// Runs `body` in a child process per `VMMKIT_STREAMS` mode (each child
/// runs its own mode only).
fn each_mode(name: &str, body: impl Fn(&str)) {
    for mode in MODES {
        if std::env::var(MODE_ENV).is_ok_and(|m| m != mode) {
            continue;
        }
        isolated(name, &[("VMMKIT_STREAMS", mode), (MODE_ENV, mode)], |_| body(mode));
    }
}

/// Device 0 current, a device buffer of `N` bytes and a stream.
fn setup(acl: &AclApi) -> (*mut c_void, aclrtStream) {
    let mut dev = ptr::null_mut();
    let mut s: aclrtStream = ptr::null_mut();
    // SAFETY: out-pointers are live locals.
    unsafe {
        ok("set device", (acl.aclrtSetDevice)(0));
        ok("malloc", (acl.aclrtMalloc)(&mut dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
        ok("create stream", (acl.aclrtCreateStream)(&mut s));
    }
    (dev, s)
}

/// Writes `src` to `dev` asynchronously on `s`, then reads `dev` back with a
/// synchronous aclrtMemcpy, with or without aclrtSynchronizeStream between.
fn write_then_read(sync: bool) -> Vec<u8> {
    let acl = vmmkit_emulator::acl::api();
    let (dev, s) = setup(&acl);
    let src = vec![0x5au8; N];
    let mut back = vec![0u8; N];
    // SAFETY: `src` and `back` live until after the synchronize below.
    unsafe {
        ok("memset", (acl.aclrtMemset)(dev, N, 0, N));
        ok("memcpy async", (acl.aclrtMemcpyAsync)(dev, N, src.as_ptr().cast(), N, ACL_MEMCPY_HOST_TO_DEVICE, s));
        if sync {
            ok("synchronize", (acl.aclrtSynchronizeStream)(s));
        }
        ok("read back", (acl.aclrtMemcpy)(back.as_mut_ptr().cast(), N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST));
        ok("synchronize at the end", (acl.aclrtSynchronizeStream)(s));
        ok("destroy stream", (acl.aclrtDestroyStream)(s));
        ok("free", (acl.aclrtFree)(dev));
    }
    back
}

#[test]
fn memcpy_async_then_synchronize_passes_in_every_mode() {
    each_mode("memcpy_async_then_synchronize_passes_in_every_mode", |mode| {
        assert!(write_then_read(true).iter().all(|&b| b == 0x5a), "{mode}");
        assert!(emulator().unwrap().take_hazards().is_empty(), "{mode}: no hazard with the synchronize");
    });
}

#[test]
fn reading_without_synchronize_is_stale_and_reported_under_adversarial() {
    isolated(
        "reading_without_synchronize_is_stale_and_reported_under_adversarial",
        &[("VMMKIT_STREAMS", "adversarial:7")],
        |_| {
            for round in 0..5 {
                let back = write_then_read(false);
                assert!(back.iter().all(|&b| b == 0), "round {round}: the copy ran before anybody needed it");
                let h = emulator().unwrap().take_hazards();
                assert!(!h.is_empty(), "round {round}: the unsynchronised read was not reported");
                assert_eq!(h[0].second.agent, vmmkit_emulator::core::HazardAgent::Host);
            }
        },
    );
}

/// The child of the stderr test (does nothing when run on its own).
#[test]
fn unsynchronised_child() {
    if std::env::var("VMMKIT_ACL_STREAMS_CHILD").is_ok() {
        let back = write_then_read(false);
        assert!(back.iter().all(|&b| b == 0));
    }
}

#[test]
fn the_unsynchronised_access_line_is_on_stderr() {
    let root = vmmkit_testkit::root::TestRoot::new("vmmkit-test-").expect("tempdir");
    let mut cmd = vmmkit_testkit::libtest::rerun("unsynchronised_child").expect("exe");
    root.apply(&mut cmd).env("VMMKIT_ACL_STREAMS_CHILD", "1").env("VMMKIT_STREAMS", "adversarial:3");
    // Its stderr alone, in a file; a hang ends at 60 s.
    let mut err_file = tempfile::tempfile().expect("a file for stderr");
    cmd.stdout(std::process::Stdio::null()).stderr(err_file.try_clone().expect("dup"));
    let mut child = vmmkit_testkit::process::Process::spawn("child", &mut cmd).expect("child");
    let exit = child.wait(std::time::Duration::from_secs(60)).expect("the child ends within 60 s");
    let mut err = String::new();
    std::io::Seek::rewind(&mut err_file).and_then(|()| std::io::Read::read_to_string(&mut err_file, &mut err)).unwrap();
    assert!(exit.success(), "child failed ({exit}): {err}");
    assert!(err.contains("vmmkit: unsynchronised access"), "stderr: {err}");
}

#[test]
fn an_event_orders_a_copy_on_another_stream_in_every_mode() {
    each_mode("an_event_orders_a_copy_on_another_stream_in_every_mode", |mode| {
        let acl = vmmkit_emulator::acl::api();
        let (dev, s1) = setup(&acl);
        let mut s2: aclrtStream = ptr::null_mut();
        let mut ev: aclrtEvent = ptr::null_mut();
        let src = vec![7u8; N];
        let mut back = vec![0u8; N];
        // SAFETY: buffers live until the synchronizes; out-pointers are locals.
        unsafe {
            ok("create s2", (acl.aclrtCreateStream)(&mut s2));
            ok("create event", acl.aclrtCreateEvent.expect("in the table")(&mut ev));
            ok("h2d on s1", (acl.aclrtMemcpyAsync)(dev, N, src.as_ptr().cast(), N, ACL_MEMCPY_HOST_TO_DEVICE, s1));
            ok("record on s1", acl.aclrtRecordEvent.expect("in the table")(ev, s1));
            ok("s2 waits", acl.aclrtStreamWaitEvent.expect("in the table")(s2, ev));
            let d2h = (acl.aclrtMemcpyAsync)(back.as_mut_ptr().cast(), N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST, s2);
            ok("d2h on s2", d2h);
            ok("sync s2", (acl.aclrtSynchronizeStream)(s2));
        }
        assert!(back.iter().all(|&b| b == 7), "{mode}: stream 2's copy ran before stream 1's");
        assert!(emulator().unwrap().take_hazards().is_empty(), "{mode}: the event orders the copies");
        // SAFETY: handles from above.
        unsafe {
            ok("sync s1", (acl.aclrtSynchronizeStream)(s1));
            ok("destroy event", acl.aclrtDestroyEvent.expect("in the table")(ev));
        }
    });
}

#[test]
fn query_of_a_held_event_is_not_ready_under_adversarial_until_synchronized() {
    isolated(
        "query_of_a_held_event_is_not_ready_under_adversarial_until_synchronized",
        &[("VMMKIT_STREAMS", "adversarial:1")],
        |_| {
            // 64 MiB before the record: the query lets the held work start, and
            // answers long before the copy (milliseconds) and the record are done.
            const BIG: usize = 64 << 20;
            let acl = vmmkit_emulator::acl::api();
            let (_, s) = setup(&acl);
            let (query, status) = (acl.aclrtQueryEvent.expect("table"), acl.aclrtQueryEventStatus.expect("table"));
            let (create, record) = (acl.aclrtCreateEvent.expect("table"), acl.aclrtRecordEvent.expect("table"));
            let src = vec![1u8; BIG];
            let mut dev = ptr::null_mut();
            let mut ev: aclrtEvent = ptr::null_mut();
            let (mut q, mut st): (aclrtEventStatus, aclrtEventRecordedStatus) = (-1, -1);
            // SAFETY: `src` lives until the synchronize; out-pointers are locals.
            unsafe {
                ok("malloc", (acl.aclrtMalloc)(&mut dev, BIG, ACL_MEM_MALLOC_HUGE_FIRST));
                ok("create event", create(&mut ev));
                ok("status", status(ev, &mut st));
                assert_eq!(st, ACL_EVENT_RECORDED_STATUS_NOT_READY, "never recorded");
                let h2d = (acl.aclrtMemcpyAsync)(dev, BIG, src.as_ptr().cast(), BIG, ACL_MEMCPY_HOST_TO_DEVICE, s);
                ok("h2d", h2d);
                ok("record", record(ev, s));
                ok("query", query(ev, &mut q));
                assert_eq!(q, ACL_EVENT_STATUS_NOT_READY, "under adversarial the record is held when first asked");
                ok("status", status(ev, &mut st));
                assert_eq!(st, ACL_EVENT_RECORDED_STATUS_NOT_READY);
                ok("synchronize event", acl.aclrtSynchronizeEvent.expect("table")(ev));
                ok("status after", status(ev, &mut st));
                assert_eq!(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);
                ok("query after", query(ev, &mut q));
                assert_eq!(q, ACL_EVENT_STATUS_COMPLETE);
                ok("sync", (acl.aclrtSynchronizeStream)(s));
            }
        },
    );
}

#[test]
fn timeouts_and_argument_checks() {
    isolated("timeouts_and_argument_checks", &[("VMMKIT_STREAMS", "async")], |_| {
        let acl = vmmkit_emulator::acl::api();
        let (_dev, s) = setup(&acl);
        let f = acl.aclrtSynchronizeStreamWithTimeout.expect("in the table");
        // SAFETY: plain values and live locals.
        unsafe {
            assert_eq!(AclError(f(s, -2)), AclError::RT_PARAM_INVALID);
            ok("timeout -1", f(s, -1));
            assert_eq!(AclError(f(s, 0)), AclError::RT_PARAM_INVALID, "the runtime refuses 0");
            ok("timeout 5 of an idle stream", f(s, 5));
            assert_eq!(AclError((acl.aclrtCreateStream)(ptr::null_mut())), AclError::INVALID_PARAM);
            assert_eq!(AclError((acl.aclrtDestroyStream)(ptr::null_mut())), AclError::INVALID_PARAM);
            let mut st: aclrtStreamStatus = -1;
            ok("query", acl.aclrtStreamQuery.expect("in the table")(s, &mut st));
            assert_eq!(st, ACL_STREAM_STATUS_COMPLETE);
            ok("query NULL stream", acl.aclrtStreamQuery.expect("in the table")(ptr::null_mut(), &mut st));
            let mut ev: aclrtEvent = ptr::null_mut();
            let cwf = acl.aclrtCreateEventWithFlag.expect("in the table");
            assert_eq!(AclError(cwf(&mut ev, 0)), AclError::RT_PARAM_INVALID);
            assert_eq!(AclError(cwf(&mut ev, 0x40)), AclError::RT_PARAM_INVALID);
            assert_eq!(AclError(cwf(&mut ev, 0x21)), AclError::RT_PARAM_INVALID);
            ok("sync-only event", cwf(&mut ev, ACL_EVENT_SYNC));
            let mut timed: aclrtEvent = ptr::null_mut();
            ok("timed event", acl.aclrtCreateEvent.expect("in the table")(&mut timed));
            let mut ms = 0f32;
            let el = acl.aclrtEventElapsedTime.expect("in the table");
            assert_eq!(AclError(el(&mut ms, timed, timed)), AclError::RT_INTERNAL_ERROR, "never recorded");
            ok("record", acl.aclrtRecordEvent.expect("in the table")(timed, s));
            ok("record", acl.aclrtRecordEvent.expect("in the table")(ev, s));
            ok("sync", (acl.aclrtSynchronizeStream)(s));
            ok("elapsed of timed events", el(&mut ms, timed, timed));
            assert_eq!(AclError(el(&mut ms, ev, timed)), AclError::RT_EVENT_TIMESTAMP_INVALID);
            let swt = acl.aclrtSynchronizeEventWithTimeout.expect("in the table");
            assert_eq!(AclError(swt(ptr::null_mut(), -5)), AclError::RT_PARAM_INVALID, "timeout first");
            assert_eq!(AclError(swt(ptr::null_mut(), 5)), AclError::INVALID_PARAM);
            ok("event sync", swt(ev, 100));
        }
    });
}

#[test]
fn reset_device_drops_work_not_yet_run_under_adversarial() {
    isolated("reset_device_drops_work_not_yet_run_under_adversarial", &[("VMMKIT_STREAMS", "adversarial:5")], |_| {
        let acl = vmmkit_emulator::acl::api();
        let (dev, s) = setup(&acl);
        let mut back = vec![0u8; N];
        // SAFETY: `back` outlives the reset, after which nothing writes it.
        unsafe {
            ok("fill", (acl.aclrtMemset)(dev, N, 9, N));
            let d2h = (acl.aclrtMemcpyAsync)(back.as_mut_ptr().cast(), N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST, s);
            ok("d2h", d2h);
            ok("reset with the copy held", (acl.aclrtResetDevice)(0));
        }
        assert!(back.iter().all(|&b| b == 0), "the held copy ran although the reset tears down with force");
        // SAFETY: as above.
        unsafe {
            assert_eq!(AclError((acl.aclrtSynchronizeStream)(s)), AclError::RT_PARAM_INVALID, "the stream is gone");
        }
        let (dev2, s2) = setup(&acl);
        // SAFETY: as above.
        unsafe {
            ok("fill", (acl.aclrtMemset)(dev2, N, 4, N));
            let d2h = (acl.aclrtMemcpyAsync)(back.as_mut_ptr().cast(), N, dev2, N, ACL_MEMCPY_DEVICE_TO_HOST, s2);
            ok("d2h after the reset", d2h);
            ok("sync", (acl.aclrtSynchronizeStream)(s2));
        }
        assert!(back.iter().all(|&b| b == 4));
    });
}

#[test]
fn memcpy2d_copies_rows_synchronously_and_on_a_stream() {
    each_mode("memcpy2d_copies_rows_synchronously_and_on_a_stream", |mode| {
        let acl = vmmkit_emulator::acl::api();
        let (dev, s) = setup(&acl);
        let (m2d, m2d_async) = (acl.aclrtMemcpy2d.expect("table"), acl.aclrtMemcpy2dAsync.expect("table"));
        // 4 rows of 8 bytes, host pitch 16, device pitch 32.
        let src: Vec<u8> = (0..64u8).collect();
        let mut back = vec![0u8; 64];
        // SAFETY: buffers live until the synchronize; the device matrix lies in `dev` (N bytes).
        unsafe {
            ok("memset", (acl.aclrtMemset)(dev, N, 0xff, N));
            ok("h2d 2d", m2d(dev, 32, src.as_ptr().cast(), 16, 8, 4, ACL_MEMCPY_HOST_TO_DEVICE));
            let r = m2d(back.as_mut_ptr().cast(), 16, dev, 32, 16, 4, ACL_MEMCPY_DEVICE_TO_HOST);
            assert_eq!(AclError(r), AclError::SUCCESS);
            let wide = m2d(dev, 4, src.as_ptr().cast(), 16, 8, 4, ACL_MEMCPY_HOST_TO_DEVICE);
            assert_eq!(AclError(wide), AclError::INVALID_PARAM, "width over dpitch");
        }
        for r in 0..4 {
            assert_eq!(back[r * 16..r * 16 + 8], src[r * 16..r * 16 + 8], "{mode}: row {r}");
            assert!(back[r * 16 + 8..r * 16 + 16].iter().all(|&b| b == 0xff), "{mode}: row {r}'s gap");
        }
        let mut back2 = vec![0u8; 64];
        // SAFETY: as above.
        unsafe {
            let r = m2d_async(back2.as_mut_ptr().cast(), 16, dev, 32, 16, 4, ACL_MEMCPY_DEVICE_TO_HOST, s);
            ok("d2h 2d async", r);
            ok("sync", (acl.aclrtSynchronizeStream)(s));
        }
        assert_eq!(back2, back, "{mode}");
    });
}

/// A record left pending behind a wait that never ends (a value nobody
/// writes), on a stream then aborted (aclrtStreamAbort) or force-destroyed
/// (aclrtDestroyStreamForce): the event completes, as CANN's reclaim of the
/// record task marks it (docs/streams.md), so a stream waiting on it runs
/// and its synchronize and aclrtDestroyStream return; the aborted stream's
/// running wait stops and the stream stays usable. Every wait is bounded
/// (the `WithTimeout` calls), and the child process by the harness.
#[test]
fn a_record_dropped_by_abort_or_force_destroy_releases_its_waiters() {
    isolated("a_record_dropped_by_abort_or_force_destroy_releases_its_waiters", &[("VMMKIT_STREAMS", "async")], |_| {
        let acl = vmmkit_emulator::acl::api();
        let (dev, stuck) = setup(&acl);
        let sync_s = acl.aclrtSynchronizeStreamWithTimeout.expect("in the table");
        let sync_e = acl.aclrtSynchronizeEventWithTimeout.expect("in the table");
        let value_wait = acl.aclrtValueWait.expect("in the table");
        for how in ["aclrtStreamAbort", "aclrtDestroyStreamForce"] {
            let mut stuck = stuck;
            let mut waiter: aclrtStream = ptr::null_mut();
            let mut ev: aclrtEvent = ptr::null_mut();
            // SAFETY: live locals and `dev` (N bytes, zeroed: the wait for 1 never ends).
            unsafe {
                if how == "aclrtDestroyStreamForce" {
                    ok("create stream", (acl.aclrtCreateStream)(&mut stuck));
                }
                ok("memset", (acl.aclrtMemset)(dev, N, 0, N));
                ok("create stream", (acl.aclrtCreateStream)(&mut waiter));
                ok("create event", acl.aclrtCreateEvent.expect("in the table")(&mut ev));
                ok("value wait", value_wait(dev, 1, ACL_STREAM_WAIT_VALUE_GEQ, stuck));
                ok("record", acl.aclrtRecordEvent.expect("in the table")(ev, stuck));
                ok("stream wait event", acl.aclrtStreamWaitEvent.expect("in the table")(waiter, ev));
                assert_eq!(AclError(sync_e(ev, 200)), AclError::RT_EVENT_SYNC_TIMEOUT, "{how}: pending before");
                let started = std::time::Instant::now();
                if how == "aclrtStreamAbort" {
                    ok(how, acl.aclrtStreamAbort.expect("in the table")(stuck));
                } else {
                    ok(how, (acl.aclrtDestroyStreamForce)(stuck));
                }
                ok(&format!("{how}: the event completes"), sync_e(ev, 5000));
                ok(&format!("{how}: the waiting stream runs"), sync_s(waiter, 5000));
                ok(&format!("{how}: and is destroyed"), (acl.aclrtDestroyStream)(waiter));
                assert!(started.elapsed() < std::time::Duration::from_secs(5), "{how}: {:?}", started.elapsed());
                if how == "aclrtStreamAbort" {
                    // The running wait stopped: later work on the stream runs.
                    let src = vec![9u8; N];
                    ok(
                        "copy after abort",
                        (acl.aclrtMemcpyAsync)(dev, N, src.as_ptr().cast(), N, ACL_MEMCPY_HOST_TO_DEVICE, stuck),
                    );
                    ok("the aborted stream is usable", sync_s(stuck, 5000));
                    ok("destroy", (acl.aclrtDestroyStream)(stuck));
                }
                ok("destroy event", acl.aclrtDestroyEvent.expect("in the table")(ev));
            }
        }
    });
}

/// An abort that comes while the stream's worker takes a wait off its
/// queue (after it left the queue, before the wait began) stops that wait
/// too: each round queues a wait that never ends and aborts it at once, a
/// little later each round (0 to 100 µs), then queues a copy, which must
/// run within the bound. (The worker once read the abort count only as the
/// wait began, so an abort in between was missed and the wait ran on, with
/// new work queued behind it: the suite's ACL-STM-008 failed with 507046
/// under load, and this test at round 20 and 24 of two runs.)
#[test]
fn an_abort_as_the_wait_starts_still_stops_it() {
    isolated("an_abort_as_the_wait_starts_still_stops_it", &[("VMMKIT_STREAMS", "async")], |_| {
        let acl = vmmkit_emulator::acl::api();
        let (dev, stuck) = setup(&acl);
        let sync_s = acl.aclrtSynchronizeStreamWithTimeout.expect("in the table");
        let value_wait = acl.aclrtValueWait.expect("in the table");
        let abort = acl.aclrtStreamAbort.expect("in the table");
        let zeros = vec![0u8; N];
        // SAFETY: `dev` is N live bytes; `stuck` a live stream; `zeros` outlives the copies.
        unsafe {
            ok("memset", (acl.aclrtMemset)(dev, N, 0, N));
            for round in 0..1000u64 {
                ok("value wait", value_wait(dev, 1, ACL_STREAM_WAIT_VALUE_GEQ, stuck));
                let until = std::time::Instant::now() + std::time::Duration::from_nanos(round % 400 * 250);
                while std::time::Instant::now() < until {
                    std::hint::spin_loop();
                }
                ok("abort", abort(stuck));
                // New work (zeros: the value stays below the wait's) runs only
                // once the aborted wait has stopped.
                ok(
                    "copy after abort",
                    (acl.aclrtMemcpyAsync)(dev, N, zeros.as_ptr().cast(), N, ACL_MEMCPY_HOST_TO_DEVICE, stuck),
                );
                ok(&format!("round {round}: the aborted stream runs new work"), sync_s(stuck, 2000));
            }
            ok("destroy", (acl.aclrtDestroyStream)(stuck));
        }
    });
}

/// The stream's worker thread cannot start (RLIMIT_AS leaves no room for
/// its stack; RLIMIT_NPROC where it binds this user): the copy is accepted
/// (0), and aclrtSynchronizeStream reports the failure at once (507899)
/// instead of waiting for work that cannot run; once the limit is lifted the
/// stream runs work again. The child runs under the harness's bound.
#[test]
fn a_stream_whose_worker_cannot_start_fails_its_synchronize_at_once() {
    isolated(
        "a_stream_whose_worker_cannot_start_fails_its_synchronize_at_once",
        &[("VMMKIT_STREAMS", "async")],
        |_| {
            let acl = vmmkit_emulator::acl::api();
            let src = vec![3u8; N];
            let mut back = vec![0u8; N];
            for (what, resource) in [("RLIMIT_AS", libc::RLIMIT_AS), ("RLIMIT_NPROC", libc::RLIMIT_NPROC)] {
                let (dev, s) = setup(&acl);
                let mut saved = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
                // SAFETY: plain out-pointer.
                assert_eq!(unsafe { libc::getrlimit(resource, &mut saved) }, 0);
                let low = match resource {
                    // Room for small allocations, none for a 2 MiB thread stack.
                    libc::RLIMIT_AS => vm_size() + (512 << 10),
                    _ => 1,
                };
                let limit = libc::rlimit { rlim_cur: low, rlim_max: saved.rlim_max };
                // SAFETY: a plain value; restored below.
                assert_eq!(unsafe { libc::setrlimit(resource, &limit) }, 0, "{what}");
                if std::thread::Builder::new().spawn(|| ()).map(|t| t.join()).is_ok() {
                    // SAFETY: as above.
                    unsafe { libc::setrlimit(resource, &saved) };
                    eprintln!(
                        "{what} does not keep this process from starting threads here (root ignores RLIMIT_NPROC): skipped"
                    );
                    continue;
                }
                let started = std::time::Instant::now();
                // SAFETY: `src` lives until the synchronize; `dev` holds N bytes.
                let (copy, sync) = unsafe {
                    let copy = (acl.aclrtMemcpyAsync)(dev, N, src.as_ptr().cast(), N, ACL_MEMCPY_HOST_TO_DEVICE, s);
                    (copy, (acl.aclrtSynchronizeStream)(s))
                };
                // SAFETY: as above.
                unsafe { libc::setrlimit(resource, &saved) };
                ok(&format!("{what}: the copy is accepted"), copy);
                assert_eq!(
                    AclError(sync),
                    AclError::RT_DRV_INTERNAL_ERROR,
                    "{what}: the synchronize says the work failed"
                );
                assert!(started.elapsed() < std::time::Duration::from_secs(5), "{what}: {:?}", started.elapsed());
                // SAFETY: as above; `back` holds N bytes.
                unsafe {
                    ok("the failure is said once", (acl.aclrtSynchronizeStream)(s));
                    ok(
                        "copy again",
                        (acl.aclrtMemcpyAsync)(dev, N, src.as_ptr().cast(), N, ACL_MEMCPY_HOST_TO_DEVICE, s),
                    );
                    ok("synchronize", (acl.aclrtSynchronizeStream)(s));
                    ok("read", (acl.aclrtMemcpy)(back.as_mut_ptr().cast(), N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST));
                    ok("destroy", (acl.aclrtDestroyStream)(s));
                    ok("free", (acl.aclrtFree)(dev));
                }
                assert_eq!(back, src, "{what}: the stream runs work once the limit is lifted");
            }
        },
    );
}

/// This process's address space, in bytes (`VmSize` of /proc/self/status).
fn vm_size() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("status");
    let kb = status.lines().find_map(|l| l.strip_prefix("VmSize:")).expect("VmSize");
    kb.trim().trim_end_matches("kB").trim().parse::<u64>().expect("kB") << 10
}
