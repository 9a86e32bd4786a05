//! Over `vmmkit_emulator::acl::api()`: the device, context, stream
//! and event functions beyond the core set (run mode, device attributes and
//! id conversions, limits, system parameters, streams with a configuration,
//! the default stream's handle, abort, ids and counts), each with its
//! results and its error codes. Each case runs in its own process and root.

mod common;

use std::ffi::c_void;
use std::ptr;

use common::isolated;
use vmmkit_sys::acl::*;

const N: usize = 4096;

fn ok(what: &str, rc: aclError) {
    assert_eq!(AclError(rc), AclError::SUCCESS, "{what}");
}

fn code(rc: aclError) -> AclError {
    AclError(rc)
}

/// The optional function `$f` of the table.
macro_rules! f {
    ($acl:expr, $f:ident) => {
        $acl.$f.expect(concat!(stringify!($f), " is in the emulator's table"))
    };
}

#[test]
fn devices_answer_their_mode_attributes_ids_and_status() {
    isolated("devices_answer_their_mode_attributes_ids_and_status", &[("VMMKIT_DEVICES", "2")], |_| {
        let acl = vmmkit_emulator::acl::api();
        let (mut mode, mut v, mut id, mut st) = (-1, -1i64, -1, -1);
        // SAFETY: out-pointers are live locals, or NULL where the test says so.
        unsafe {
            ok("run mode", f!(acl, aclrtGetRunMode)(&mut mode));
            assert_eq!(mode, ACL_HOST);
            assert_eq!(code(f!(acl, aclrtGetRunMode)(ptr::null_mut())), AclError::INVALID_PARAM);

            let info = f!(acl, aclrtGetDeviceInfo);
            ok("cube cores", info(1, ACL_DEV_ATTR_CUBE_CORE_NUM, &mut v));
            assert_eq!(v, 24);
            ok("memory", info(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &mut v));
            let (mut free, mut total) = (0usize, 0usize);
            ok("set device", (acl.aclrtSetDevice)(0));
            ok("mem info", (acl.aclrtGetMemInfo)(ACL_HBM_MEM, &mut free, &mut total));
            assert_eq!(v as usize, total, "the attribute is the device's capacity");
            ok("chip id", info(1, ACL_DEV_ATTR_PHY_CHIP_ID, &mut v));
            assert_eq!(v, 1);
            assert_eq!(code(info(0, 999, &mut v)), AclError::RT_PARAM_INVALID, "unknown attribute");
            assert_eq!(
                code(info(2, ACL_DEV_ATTR_WARP_SIZE, &mut v)),
                AclError::RT_INVALID_DEVICEID,
                "no device 2: ACL-GEN-003"
            );
            assert_eq!(code(info(0, ACL_DEV_ATTR_WARP_SIZE, ptr::null_mut())), AclError::INVALID_PARAM);

            for conv in [
                f!(acl, aclrtGetLogicDevIdByPhyDevId),
                f!(acl, aclrtGetPhyDevIdByUserDevId),
                f!(acl, aclrtGetUserDevIdByLogicDevId),
                f!(acl, aclrtGetUserDevIdByPhyDevId),
            ] {
                ok("conversion", conv(1, &mut id));
                assert_eq!(id, 1, "one numbering for all");
                assert_eq!(code(conv(5, &mut id)), AclError::RT_INVALID_DEVICEID);
                assert_eq!(code(conv(0, ptr::null_mut())), AclError::INVALID_PARAM);
            }

            ok("status", f!(acl, aclrtQueryDeviceStatus)(1, &mut st));
            assert_eq!(st, ACL_RT_DEVICE_STATUS_NORMAL);
            assert_eq!(code(f!(acl, aclrtQueryDeviceStatus)(-1, &mut st)), AclError::RT_INVALID_DEVICEID);

            let (mut least, mut greatest) = (-1, -1);
            ok("priority range", f!(acl, aclrtDeviceGetStreamPriorityRange)(&mut least, &mut greatest));
            assert_eq!((least, greatest), (7, 0));
            ok("either may be NULL", f!(acl, aclrtDeviceGetStreamPriorityRange)(ptr::null_mut(), ptr::null_mut()));
        }
    });
}

#[test]
fn limits_and_saturation_mode_are_kept() {
    isolated("limits_and_saturation_mode_are_kept", &[], |_| {
        let acl = vmmkit_emulator::acl::api();
        let (mut size, mut n, mut mode) = (1usize, 0u32, -1);
        // SAFETY: out-pointers are live locals.
        unsafe {
            let (get, set) = (f!(acl, aclrtDeviceGetLimit), f!(acl, aclrtDeviceSetLimit));
            assert_eq!(
                code(get(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &mut size)),
                AclError::RT_CONTEXT_NULL,
                "no device: ACL-GEN-005"
            );
            ok("set device", (acl.aclrtSetDevice)(0));
            ok("get", get(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &mut size));
            assert_eq!(size, 0, "unset");
            ok("set", set(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 1 << 20));
            ok("get", get(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &mut size));
            assert_eq!(size, 1 << 20);
            assert_eq!(code(set(9, 1)), AclError::INVALID_PARAM, "not an aclrtDeviceLimit");

            let (rget, rset, rreset) =
                (f!(acl, aclrtGetDeviceResLimit), f!(acl, aclrtSetDeviceResLimit), f!(acl, aclrtResetDeviceResLimit));
            ok("res get", rget(0, ACL_RT_DEV_RES_VECTOR_CORE, &mut n));
            assert_eq!(n, 48, "all vector cores before a limit");
            ok("res set", rset(0, ACL_RT_DEV_RES_VECTOR_CORE, 8));
            ok("res get", rget(0, ACL_RT_DEV_RES_VECTOR_CORE, &mut n));
            assert_eq!(n, 8);
            assert_eq!(code(rset(0, ACL_RT_DEV_RES_CUBE_CORE, 25)), AclError::RT_PARAM_INVALID, "above 24");
            assert_eq!(code(rset(0, 7, 1)), AclError::INVALID_PARAM, "not a type");
            ok("res reset", rreset(0));
            ok("res get", rget(0, ACL_RT_DEV_RES_VECTOR_CORE, &mut n));
            assert_eq!(n, 48);

            ok("sat mode", f!(acl, aclrtGetDeviceSatMode)(&mut mode));
            assert_eq!(mode, ACL_RT_OVERFLOW_MODE_SATURATION);
            ok("set inf/nan", f!(acl, aclrtSetDeviceSatMode)(ACL_RT_OVERFLOW_MODE_INFNAN));
            ok("sat mode", f!(acl, aclrtGetDeviceSatMode)(&mut mode));
            assert_eq!(mode, ACL_RT_OVERFLOW_MODE_INFNAN);
            assert_eq!(code(f!(acl, aclrtSetDeviceSatMode)(ACL_RT_OVERFLOW_MODE_UNDEF)), AclError::INVALID_PARAM);
        }
    });
}

#[test]
fn contexts_are_destroyed_and_report_their_state_and_parameters() {
    isolated("contexts_are_destroyed_and_report_their_state_and_parameters", &[("VMMKIT_DEVICES", "2")], |_| {
        let acl = vmmkit_emulator::acl::api();
        let mut ctx: aclrtContext = ptr::null_mut();
        let (mut active, mut flags, mut v) = (-1, 0u32, 0i64);
        // SAFETY: out-pointers are live locals, or NULL where the test says so.
        unsafe {
            let state = f!(acl, aclrtGetPrimaryCtxState);
            ok("state", state(1, ptr::null_mut(), &mut active));
            assert_eq!(active, 0, "device 1 never set");
            assert_eq!(code(state(1, &mut flags, &mut active)), AclError::INVALID_PARAM, "flags must be NULL");
            ok("set device", (acl.aclrtSetDevice)(1));
            ok("state", state(1, ptr::null_mut(), &mut active));
            assert_eq!(active, 1);

            let (cget, cset) = (f!(acl, aclrtCtxGetSysParamOpt), f!(acl, aclrtCtxSetSysParamOpt));
            assert_eq!(code(cget(ACL_OPT_DETERMINISTIC, &mut v)), AclError::RT_SYSPARAMOPT_NOT_SET);
            ok("ctx set", cset(ACL_OPT_DETERMINISTIC, 1));
            ok("ctx get", cget(ACL_OPT_DETERMINISTIC, &mut v));
            assert_eq!(v, 1);
            assert_eq!(code(cset(ACL_OPT_ENABLE_KERNEL_EARLY_START, 1)), AclError::INVALID_PARAM, "process only");
            let (pget, pset) = (f!(acl, aclrtGetSysParamOpt), f!(acl, aclrtSetSysParamOpt));
            assert_eq!(code(pget(ACL_OPT_DETERMINISTIC, &mut v)), AclError::RT_SYSPARAMOPT_NOT_SET, "apart");
            ok("process set", pset(ACL_OPT_ENABLE_KERNEL_EARLY_START, 1));
            ok("process get", pget(ACL_OPT_ENABLE_KERNEL_EARLY_START, &mut v));
            assert_eq!(v, 1);
            assert_eq!(code(pget(4, &mut v)), AclError::INVALID_PARAM);

            let destroy = f!(acl, aclrtDestroyContext);
            ok("create context", (acl.aclrtCreateContext)(&mut ctx, 0));
            assert_eq!(code(destroy(ptr::null_mut())), AclError::INVALID_PARAM);
            assert_eq!(code(destroy(0x1234 as aclrtContext)), AclError::RT_PARAM_INVALID);
            ok("destroy", destroy(ctx));
            let mut cur: aclrtContext = ptr::null_mut();
            assert_eq!(code((acl.aclrtGetCurrentContext)(&mut cur)), AclError::RT_CONTEXT_NULL, "none current");
        }
    });
}

#[test]
fn streams_keep_their_configuration_and_ids() {
    isolated("streams_keep_their_configuration_and_ids", &[], |_| {
        let acl = vmmkit_emulator::acl::api();
        let (mut s, mut t, mut d): (aclrtStream, aclrtStream, aclrtStream) =
            (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
        let (mut p, mut fl, mut id, mut id2, mut n, mut n2) = (9u32, 9u32, -1, -1, 0u32, 0u32);
        // SAFETY: out-pointers are live locals, or NULL where the test says so.
        unsafe {
            let create = f!(acl, aclrtCreateStreamWithConfig);
            assert_eq!(code(create(&mut s, 0, 0)), AclError::RT_CONTEXT_NULL, "no current device: ACL-GEN-005");
            ok("set device", (acl.aclrtSetDevice)(0));
            ok("available", f!(acl, aclrtGetStreamAvailableNum)(&mut n));
            assert_eq!(code(create(ptr::null_mut(), 0, 0)), AclError::INVALID_PARAM, "ACL-STM-001");
            ok("create", create(&mut s, 3, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_HUGE | 0x8000));
            ok("create above 7", create(&mut t, 100, 0));
            ok("available", f!(acl, aclrtGetStreamAvailableNum)(&mut n2));
            assert_eq!(n - n2, 2, "two streams fewer");
            ok("priority", f!(acl, aclrtStreamGetPriority)(s, &mut p));
            assert_eq!(p, 3);
            ok("priority", f!(acl, aclrtStreamGetPriority)(t, &mut p));
            assert_eq!(p, 7, "clamped to the least priority");
            ok("flags", f!(acl, aclrtStreamGetFlags)(s, &mut fl));
            assert_eq!(fl, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_HUGE, "unknown flags dropped");
            ok("plain stream's priority", f!(acl, aclrtStreamGetPriority)(ptr::null_mut(), &mut p));
            assert_eq!(p, 0);
            assert_eq!(code(f!(acl, aclrtStreamGetPriority)(s, ptr::null_mut())), AclError::INVALID_PARAM);
            assert_eq!(code(f!(acl, aclrtStreamGetFlags)(0x99 as aclrtStream, &mut fl)), AclError::RT_PARAM_INVALID);

            ok("id", f!(acl, aclrtStreamGetId)(s, &mut id));
            ok("id", f!(acl, aclrtStreamGetId)(t, &mut id2));
            assert_ne!(id, id2);

            ok("default stream", f!(acl, aclrtCtxGetCurrentDefaultStream)(&mut d));
            assert!(!d.is_null());
            ok("default id", f!(acl, aclrtStreamGetId)(d, &mut id));
            ok("NULL id", f!(acl, aclrtStreamGetId)(ptr::null_mut(), &mut id2));
            assert_eq!(id, id2, "the handle names the stream NULL names");
            ok("sync the default handle", (acl.aclrtSynchronizeStream)(d));

            let (oget, oset) = (f!(acl, aclrtGetStreamOverflowSwitch), f!(acl, aclrtSetStreamOverflowSwitch));
            ok("overflow on", oset(s, 1));
            ok("overflow", oget(s, &mut fl));
            assert_eq!(fl, 1);
            assert_eq!(code(oset(s, 2)), AclError::INVALID_PARAM);
            ok("failure mode", f!(acl, aclrtSetStreamFailureMode)(s, 1));

            let (rget, rset, rreset) =
                (f!(acl, aclrtGetStreamResLimit), f!(acl, aclrtSetStreamResLimit), f!(acl, aclrtResetStreamResLimit));
            ok("dev res", f!(acl, aclrtSetDeviceResLimit)(0, ACL_RT_DEV_RES_CUBE_CORE, 12));
            ok("stream res", rget(s, ACL_RT_DEV_RES_CUBE_CORE, &mut n));
            assert_eq!(n, 12, "the device's limit");
            ok("stream res set", rset(s, ACL_RT_DEV_RES_CUBE_CORE, 4));
            ok("stream res", rget(s, ACL_RT_DEV_RES_CUBE_CORE, &mut n));
            assert_eq!(n, 4);
            ok("stream res reset", rreset(s));
            ok("stream res", rget(s, ACL_RT_DEV_RES_CUBE_CORE, &mut n));
            assert_eq!(n, 12);

            ok("destroy", (acl.aclrtDestroyStream)(s));
            ok("destroy", (acl.aclrtDestroyStream)(t));
            assert_eq!(code(f!(acl, aclrtStreamGetPriority)(s, &mut p)), AclError::RT_PARAM_INVALID, "gone");
        }
    });
}

#[test]
fn stream_abort_drops_held_work_and_the_stream_stays_usable() {
    isolated(
        "stream_abort_drops_held_work_and_the_stream_stays_usable",
        &[("VMMKIT_STREAMS", "adversarial:3")],
        |_| {
            let acl = vmmkit_emulator::acl::api();
            let mut dev: *mut c_void = ptr::null_mut();
            let mut s: aclrtStream = ptr::null_mut();
            let mut back = vec![0u8; N];
            // SAFETY: `back` outlives every copy into it (the stream is synchronized before it is read).
            unsafe {
                ok("set device", (acl.aclrtSetDevice)(0));
                ok("malloc", (acl.aclrtMalloc)(&mut dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
                ok("stream", f!(acl, aclrtCreateStreamWithConfig)(&mut s, 0, 0));
                ok("fill", (acl.aclrtMemset)(dev, N, 7, N));
                let d2h = (acl.aclrtMemcpyAsync)(back.as_mut_ptr().cast(), N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST, s);
                ok("held copy", d2h);
                ok("abort", f!(acl, aclrtStreamAbort)(s));
                ok("sync", (acl.aclrtSynchronizeStream)(s));
            }
            assert!(back.iter().all(|&b| b == 0), "the held copy ran although the stream was aborted");
            // SAFETY: as above.
            unsafe {
                let d2h = (acl.aclrtMemcpyAsync)(back.as_mut_ptr().cast(), N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST, s);
                ok("copy after the abort", d2h);
                ok("sync", (acl.aclrtSynchronizeStream)(s));
                assert_eq!(code(f!(acl, aclrtStreamAbort)(0x77 as aclrtStream)), AclError::RT_PARAM_INVALID);
                ok("abort of the default stream", f!(acl, aclrtStreamAbort)(ptr::null_mut()));
            }
            assert!(back.iter().all(|&b| b == 7), "the stream runs work after an abort");
        },
    );
}

#[test]
fn events_have_ids_and_counts() {
    isolated("events_have_ids_and_counts", &[], |_| {
        let acl = vmmkit_emulator::acl::api();
        let (mut a, mut b): (aclrtEvent, aclrtEvent) = (ptr::null_mut(), ptr::null_mut());
        let (mut ia, mut ib, mut n, mut n2) = (0u32, 0u32, 0u32, 0u32);
        // SAFETY: out-pointers are live locals, or NULL where the test says so.
        unsafe {
            ok("set device", (acl.aclrtSetDevice)(0));
            ok("available", f!(acl, aclrtGetEventAvailNum)(&mut n));
            ok("event", f!(acl, aclrtCreateEvent)(&mut a));
            ok("event", f!(acl, aclrtCreateEvent)(&mut b));
            ok("available", f!(acl, aclrtGetEventAvailNum)(&mut n2));
            assert_eq!(n - n2, 2);
            ok("id", f!(acl, aclrtGetEventId)(a, &mut ia));
            ok("id", f!(acl, aclrtGetEventId)(b, &mut ib));
            assert_ne!(ia, ib);
            assert_eq!(code(f!(acl, aclrtGetEventId)(a, ptr::null_mut())), AclError::INVALID_PARAM);
            assert_eq!(code(f!(acl, aclrtGetEventId)(0x5 as aclrtEvent, &mut ia)), AclError::RT_PARAM_INVALID);
            ok("destroy", f!(acl, aclrtDestroyEvent)(a));
            ok("destroy", f!(acl, aclrtDestroyEvent)(b));
        }
    });
}

#[test]
fn value_write_releases_a_value_wait_in_stream_order() {
    isolated("value_write_releases_a_value_wait_in_stream_order", &[("VMMKIT_STREAMS", "async")], |_| {
        let acl = vmmkit_emulator::acl::api();
        let mut dev: *mut c_void = ptr::null_mut();
        let (mut waiter, mut writer): (aclrtStream, aclrtStream) = (ptr::null_mut(), ptr::null_mut());
        let mut back = [0u8; 8];
        let mut host = 0u64;
        // SAFETY: `back` and `host` outlive the work on them (the streams are synchronized first).
        unsafe {
            ok("set device", (acl.aclrtSetDevice)(0));
            ok("malloc", (acl.aclrtMalloc)(&mut dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
            ok("zero", (acl.aclrtMemset)(dev, N, 0, N));
            ok("stream", (acl.aclrtCreateStream)(&mut waiter));
            ok("stream", (acl.aclrtCreateStream)(&mut writer));
            let (write, wait) = (f!(acl, aclrtValueWrite), f!(acl, aclrtValueWait));
            ok("wait for >= 5", wait(dev, 5, ACL_STREAM_WAIT_VALUE_GEQ, waiter));
            let flag = dev.cast::<u8>().add(8).cast::<c_void>();
            ok("then mark", write(flag, 1, 0, waiter));
            let mut st: aclrtStreamStatus = -1;
            ok("query", f!(acl, aclrtStreamQuery)(waiter, &mut st));
            assert_eq!(st, ACL_STREAM_STATUS_NOT_READY, "the waiter is held by the value");
            ok("write 5", write(dev, 5, 0, writer));
            ok("sync waiter", (acl.aclrtSynchronizeStream)(waiter));
            ok("read mark", (acl.aclrtMemcpy)(back.as_mut_ptr().cast(), 8, flag, 8, ACL_MEMCPY_DEVICE_TO_HOST));
            assert_eq!(u64::from_le_bytes(back), 1, "the write after the wait ran");

            // ACL-VAL-001, ACL-VAL-002: bad flags and host addresses, nothing enqueued.
            assert_eq!(code(write(dev, 1, 1, writer)), AclError::RT_PARAM_INVALID);
            assert_eq!(code(wait(dev, 1, 4, writer)), AclError::RT_PARAM_INVALID);
            let h = (&mut host as *mut u64).cast::<c_void>();
            assert_eq!(code(write(h, 1, 0, writer)), AclError::RT_PARAM_INVALID);
            assert_eq!(code(wait(h, 1, 0, writer)), AclError::RT_PARAM_INVALID);
            assert_eq!(code(write(ptr::null_mut(), 1, 0, writer)), AclError::INVALID_PARAM);
            ok("sync writer", (acl.aclrtSynchronizeStream)(writer));
            assert_eq!(host, 0);
        }
    });
}

#[test]
fn events_record_and_wait_with_flags_and_timestamps() {
    isolated("events_record_and_wait_with_flags_and_timestamps", &[], |_| {
        let acl = vmmkit_emulator::acl::api();
        let (mut ev, mut s): (aclrtEvent, aclrtStream) = (ptr::null_mut(), ptr::null_mut());
        let (mut t1, mut t2) = (0u64, 0u64);
        // SAFETY: out-pointers are live locals, or NULL where the test says so.
        unsafe {
            ok("set device", (acl.aclrtSetDevice)(0));
            ok("stream", (acl.aclrtCreateStream)(&mut s));
            ok("event", f!(acl, aclrtCreateEvent)(&mut ev));
            let ts = f!(acl, aclrtEventGetTimestamp);
            assert_eq!(code(ts(ev, &mut t1)), AclError::RT_INTERNAL_ERROR, "never recorded: ACL-EVT-005");
            assert_eq!(code(ts(ev, ptr::null_mut())), AclError::INVALID_PARAM);
            let rec = f!(acl, aclrtRecordEventWithFlag);
            ok("record default", rec(ev, s, ACL_EVENT_RECORD_DEFAULT));
            ok("sync", (acl.aclrtSynchronizeStream)(s));
            ok("timestamp", ts(ev, &mut t1));
            ok("record external", rec(ev, s, ACL_EVENT_RECORD_EXTERNAL));
            ok("sync", (acl.aclrtSynchronizeStream)(s));
            ok("timestamp", ts(ev, &mut t2));
            assert!(t1 > 0 && t2 >= t1, "timestamps {t1} then {t2}");
            assert_eq!(code(rec(ev, s, 2)), AclError::INVALID_PARAM);

            let wf = f!(acl, aclrtStreamWaitEventWithFlag);
            ok("wait default", wf(s, ev, 100, ACL_EVENT_WAIT_DEFAULT));
            ok("wait external", wf(s, ev, 0, ACL_EVENT_WAIT_EXTERNAL));
            assert_eq!(code(wf(s, ev, 5, ACL_EVENT_WAIT_EXTERNAL)), AclError::INVALID_PARAM, "timeout must be 0");
            assert_eq!(code(wf(s, ev, 0, 3)), AclError::INVALID_PARAM);
            assert_eq!(code(wf(s, ptr::null_mut(), 0, 0)), AclError::INVALID_PARAM, "ACL-EVT-001");
            let wt = f!(acl, aclrtStreamWaitEventWithTimeout);
            ok("wait with timeout", wt(s, ev, 10));
            assert_eq!(code(wt(s, ev, -1)), AclError::RT_PARAM_INVALID);
            ok("sync", (acl.aclrtSynchronizeStream)(s));
        }
    });
}

#[test]
fn pci_bus_ids_topology_overflow_and_thread_resources() {
    isolated("pci_bus_ids_topology_overflow_and_thread_resources", &[("VMMKIT_DEVICES", "2")], |_| {
        let acl = vmmkit_emulator::acl::api();
        let mut bus = [0 as std::ffi::c_char; 32];
        let (mut d, mut topo, mut n) = (-1, 0u64, 0u32);
        let mut dev: *mut c_void = ptr::null_mut();
        let mut s: aclrtStream = ptr::null_mut();
        // SAFETY: buffers and out-pointers are live locals of the sizes passed.
        unsafe {
            let get = f!(acl, aclrtDeviceGetPCIBusId);
            ok("bus id", get(1, bus.as_mut_ptr(), bus.len() as i32));
            let id = std::ffi::CStr::from_ptr(bus.as_ptr()).to_str().unwrap().to_owned();
            assert_eq!(id, "0000:02:00.0");
            assert_eq!(code(get(1, bus.as_mut_ptr(), 5)), AclError::RT_PARAM_INVALID, "too short");
            assert_eq!(code(get(1, ptr::null_mut(), 32)), AclError::INVALID_PARAM);
            ok("by bus id", f!(acl, aclrtDeviceGetByPCIBusId)(bus.as_ptr(), &mut d));
            assert_eq!(d, 1);
            assert_eq!(
                code(f!(acl, aclrtDeviceGetByPCIBusId)(c"0000:09:00.0".as_ptr(), &mut d)),
                AclError::RT_PARAM_INVALID
            );
            ok("topology", f!(acl, aclrtGetDevicesTopo)(0, 1, &mut topo));
            assert_eq!(topo, 0x01, "HCCS");
            assert_eq!(code(f!(acl, aclrtGetDevicesTopo)(0, 2, &mut topo)), AclError::RT_INVALID_DEVICEID);

            ok("set device", (acl.aclrtSetDevice)(0));
            ok("malloc", (acl.aclrtMalloc)(&mut dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
            ok("fill", (acl.aclrtMemset)(dev, N, 0xff, N));
            ok("stream", (acl.aclrtCreateStream)(&mut s));
            ok("status", f!(acl, aclrtNpuGetFloatOverFlowStatus)(dev, 64, 0, s));
            ok("sync", (acl.aclrtSynchronizeStream)(s));
            let mut back = [0xffu8; 64];
            ok("read", (acl.aclrtMemcpy)(back.as_mut_ptr().cast(), 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST));
            assert!(back.iter().all(|&b| b == 0), "no overflow: a zero status");
            let mut host = [0u8; 8];
            let hp = host.as_mut_ptr().cast::<c_void>();
            assert_eq!(code(f!(acl, aclrtGetFloatOverflowStatus)(hp, 8, s)), AclError::RT_PARAM_INVALID, "host memory");
            ok("clear", f!(acl, aclrtNpuClearFloatOverFlowStatus)(0, s));
            ok("reset", f!(acl, aclrtResetOverflowStatus)(s));

            let res = f!(acl, aclrtGetResInCurrentThread);
            ok("stream limit", f!(acl, aclrtSetStreamResLimit)(s, ACL_RT_DEV_RES_VECTOR_CORE, 6));
            ok("thread res", res(ACL_RT_DEV_RES_VECTOR_CORE, &mut n));
            assert_eq!(n, 48, "the device's");
            ok("use", f!(acl, aclrtUseStreamResInCurrentThread)(s));
            ok("thread res", res(ACL_RT_DEV_RES_VECTOR_CORE, &mut n));
            assert_eq!(n, 6, "the stream's");
            ok("unuse", f!(acl, aclrtUnuseStreamResInCurrentThread)(s));
            ok("thread res", res(ACL_RT_DEV_RES_VECTOR_CORE, &mut n));
            assert_eq!(n, 48);

            ok("task abort", f!(acl, aclrtDeviceTaskAbort)(0, 0));
            assert_eq!(code(f!(acl, aclrtDeviceTaskAbort)(3, 0)), AclError::RT_INVALID_DEVICEID);
        }
    });
}

unsafe extern "C" fn bump(data: *mut c_void) {
    // SAFETY: the tests pass an AtomicU32 that outlives the callback.
    let n = unsafe { &*data.cast::<std::sync::atomic::AtomicU32>() };
    n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

#[test]
fn callbacks_run_on_the_subscribed_report_thread_in_stream_order() {
    isolated("callbacks_run_on_the_subscribed_report_thread_in_stream_order", &[("VMMKIT_STREAMS", "async")], |_| {
        use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
        let acl = vmmkit_emulator::acl::api();
        let count: &'static AtomicU32 = Box::leak(Box::new(AtomicU32::new(0)));
        let stop: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
        let mut s: aclrtStream = ptr::null_mut();
        // SAFETY: out-pointers are live locals; `count` is leaked, so it outlives every callback.
        unsafe {
            ok("set device", (acl.aclrtSetDevice)(0));
            ok("stream", (acl.aclrtCreateStream)(&mut s));
            let launch = f!(acl, aclrtLaunchCallback);
            let data = (count as *const AtomicU32).cast_mut().cast::<c_void>();
            assert_eq!(code(launch(Some(bump), data, ACL_CALLBACK_BLOCK, s)), AclError::RT_STREAM_NO_CB_REG, "unbound");
            assert_eq!(code(f!(acl, aclrtProcessReport)(10)), AclError::RT_THREAD_SUBSCRIBE, "nothing subscribed");
            assert_eq!(code(f!(acl, aclrtProcessReport)(0)), AclError::INVALID_PARAM);
        }
        let (tx, rx) = std::sync::mpsc::channel::<u64>();
        let report = std::thread::spawn(move || {
            let acl = vmmkit_emulator::acl::api();
            // SAFETY: pthread_self has no preconditions.
            tx.send(unsafe { libc::pthread_self() } as u64).unwrap();
            let mut timeouts = 0;
            while !stop.load(Ordering::SeqCst) {
                // SAFETY: a plain value.
                match code(unsafe { f!(acl, aclrtProcessReport)(20) }) {
                    AclError::SUCCESS => {}
                    AclError::RT_REPORT_TIMEOUT => timeouts += 1,
                    AclError::RT_THREAD_SUBSCRIBE => std::thread::yield_now(),
                    other => panic!("aclrtProcessReport: {other}"),
                }
            }
            timeouts
        });
        let tid = rx.recv().unwrap();
        // SAFETY: as above.
        unsafe {
            let s2 = s as usize;
            ok("subscribe", f!(acl, aclrtSubscribeReport)(tid, s2 as aclrtStream));
            assert_eq!(code(f!(acl, aclrtSubscribeReport)(tid, s)), AclError::RT_STREAM_SUBSCRIBE, "twice");
            let launch = f!(acl, aclrtLaunchCallback);
            let data = (count as *const AtomicU32).cast_mut().cast::<c_void>();
            assert_eq!(code(launch(Some(bump), data, 2, s)), AclError::INVALID_PARAM);
            assert_eq!(code(launch(None, data, ACL_CALLBACK_BLOCK, s)), AclError::RT_PARAM_INVALID);
            ok("block", launch(Some(bump), data, ACL_CALLBACK_BLOCK, s));
            ok("no block", launch(Some(bump), data, ACL_CALLBACK_NO_BLOCK, s));
            ok("block", launch(Some(bump), data, ACL_CALLBACK_BLOCK, s));
            ok("host func", f!(acl, aclrtLaunchHostFunc)(s, Some(bump), data));
            ok("sync", (acl.aclrtSynchronizeStream)(s));
            // The BLOCK callbacks held the stream until they ran (the NO_BLOCK
            // one, queued before the second, ran before it); the host function
            // ran on the stream itself.
            assert_eq!(count.load(Ordering::SeqCst), 4, "all ran before the synchronize returned");
            ok("unsubscribe", f!(acl, aclrtUnSubscribeReport)(tid, s));
            assert_eq!(code(f!(acl, aclrtUnSubscribeReport)(tid, s)), AclError::RT_STREAM_SUBSCRIBE, "not subscribed");
        }
        stop.store(true, Ordering::SeqCst);
        report.join().unwrap();
        assert_eq!(count.load(Ordering::SeqCst), 4, "every callback and the host function ran once");
    });
}

#[test]
fn data_buffers_type_sizes_halves_and_the_last_error() {
    isolated("data_buffers_type_sizes_halves_and_the_last_error", &[], |_| {
        let acl = vmmkit_emulator::acl::api();
        let mut bytes = [0u8; 16];
        // SAFETY: buffers describe a live local; pointers given back are this library's.
        unsafe {
            let b = f!(acl, aclCreateDataBuffer)(bytes.as_mut_ptr().cast(), 16);
            assert!(!b.is_null());
            assert_eq!(f!(acl, aclGetDataBufferAddr)(b), bytes.as_mut_ptr().cast());
            assert_eq!(f!(acl, aclGetDataBufferSize)(b), 16);
            ok("update", f!(acl, aclUpdateDataBuffer)(b, ptr::null_mut(), 1 << 33));
            assert_eq!(f!(acl, aclGetDataBufferSizeV2)(b), 1 << 33);
            assert_eq!(f!(acl, aclGetDataBufferSize)(b), 0, "truncated to 32 bits");
            assert!(f!(acl, aclGetDataBufferAddr)(ptr::null()).is_null());
            assert_eq!(f!(acl, aclGetDataBufferSizeV2)(ptr::null()), 0);
            ok("destroy", f!(acl, aclDestroyDataBuffer)(b));
            assert_eq!(code(f!(acl, aclDestroyDataBuffer)(b)), AclError::INVALID_PARAM, "twice");
            assert_eq!(code(f!(acl, aclDestroyDataBuffer)(ptr::null())), AclError::INVALID_PARAM);
            assert_eq!(f!(acl, aclGetDataBufferSize)(b), 0, "a destroyed buffer is not read");

            let size = f!(acl, aclDataTypeSize);
            for (t, n) in [(ACL_FLOAT, 4), (ACL_FLOAT16, 2), (ACL_BF16, 2), (ACL_INT8, 1), (ACL_INT64, 8)] {
                assert_eq!(size(t), n, "type {t}");
            }
            assert_eq!((size(ACL_STRING), size(ACL_DT_UNDEFINED), size(ACL_COMPLEX128), size(ACL_INT4)), (0, 0, 16, 1));

            let (to, from) = (f!(acl, aclFloatToFloat16), f!(acl, aclFloat16ToFloat));
            for (f, h) in [(1.0f32, 0x3c00u16), (-2.0, 0xc000), (65504.0, 0x7bff), (1e6, 0x7c00), (0.0, 0)] {
                assert_eq!(to(f), h, "{f} to half");
            }
            assert_eq!(to(5.960_464_5e-8), 0x0001, "the smallest subnormal");
            assert_eq!(to(1.000_488_3), 0x3c00, "a tie rounds to even");
            for h in [0x3c00u16, 0xc000, 0x7bff, 0x0001, 0x03ff, 0x3555, 0x8000] {
                assert_eq!(to(from(h)), h, "{h:#06x} round-trips");
            }
            assert!(from(0x7e00).is_nan());
            assert_eq!(from(0x0001), 5.960_464_5e-8);

            let (get, peek) = (f!(acl, aclrtGetLastError), f!(acl, aclrtPeekAtLastError));
            assert_eq!(code(get(ACL_RT_THREAD_LEVEL)), AclError::INVALID_PARAM, "the refused destroy's");
            assert_eq!(code(get(ACL_RT_THREAD_LEVEL)), AclError::SUCCESS, "none since");
            assert_eq!(code((acl.aclrtSetDevice)(99)), AclError::RT_INVALID_DEVICEID);
            ok("a later success", (acl.aclrtSetDevice)(0));
            assert_eq!(code(peek(ACL_RT_THREAD_LEVEL)), AclError::RT_INVALID_DEVICEID, "kept across successes");
            assert_eq!(code(get(ACL_RT_THREAD_LEVEL)), AclError::RT_INVALID_DEVICEID);
            assert_eq!(code(get(ACL_RT_THREAD_LEVEL)), AclError::SUCCESS, "cleared by the get");
            assert_eq!(code(get(1)), AclError::INVALID_PARAM, "only the thread level");
        }
    });
}

unsafe extern "C" fn on_exception(_: *mut aclrtExceptionInfo) {}

#[test]
fn capabilities_uuid_groups_and_exception_information() {
    isolated("capabilities_uuid_groups_and_exception_information", &[("VMMKIT_DEVICES", "2")], |_| {
        let acl = vmmkit_emulator::acl::api();
        let (mut v, mut c, mut n) = (0i64, -1i32, 9u32);
        let (mut u0, mut u1) = (aclrtUuid { bytes: [0; 16] }, aclrtUuid { bytes: [0; 16] });
        // SAFETY: out-pointers are live locals, or NULL where the test says so.
        unsafe {
            ok("set device", (acl.aclrtSetDevice)(0));
            ok("AI cores", f!(acl, aclGetDeviceCapability)(0, ACL_DEVICE_INFO_AI_CORE_NUM, &mut v));
            assert_eq!(v, 24);
            assert_eq!(code(f!(acl, aclGetDeviceCapability)(0, 7, &mut v)), AclError::INVALID_PARAM);
            let bad_device = f!(acl, aclGetDeviceCapability)(2, ACL_DEVICE_INFO_L2_SIZE, &mut v);
            assert_eq!(code(bad_device), AclError::INVALID_PARAM, "its own range check");
            let cap = f!(acl, aclrtGetDeviceCapability);
            ok("feature", cap(1, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &mut c));
            assert_eq!(c, ACL_DEV_FEATURE_NOT_SUPPORT);
            assert_eq!(code(cap(0, 5, &mut c)), AclError::RT_PARAM_INVALID);
            ok("uuid", f!(acl, aclrtDeviceGetUuid)(0, &mut u0));
            ok("uuid", f!(acl, aclrtDeviceGetUuid)(1, &mut u1));
            assert_ne!(u0, u1, "one per device");
            assert_eq!(code(f!(acl, aclrtDeviceGetUuid)(0, ptr::null_mut())), AclError::INVALID_PARAM);
            let mut util = aclrtUtilizationInfo {
                cubeUtilization: 9,
                vectorUtilization: 9,
                aicpuUtilization: 9,
                memoryUtilization: 9,
                utilizationExtend: ptr::null_mut(),
            };
            ok("utilization", f!(acl, aclrtGetDeviceUtilizationRate)(1, &mut util));
            assert_eq!([util.cubeUtilization, util.vectorUtilization, util.memoryUtilization], [0, 0, -1]);
            util.utilizationExtend = (&mut v as *mut i64).cast();
            assert_eq!(code(f!(acl, aclrtGetDeviceUtilizationRate)(1, &mut util)), AclError::INVALID_PARAM, "reserved");
            let (ops, mut caps) = ([0i32, 9], [7u32; 2]);
            ok("host atomics", f!(acl, aclrtDeviceGetHostAtomicCapabilities)(caps.as_mut_ptr(), ops.as_ptr(), 2, 0));
            assert_eq!(caps, [0, 0], "no device code, no device atomics");
            let p2p = f!(acl, aclrtDeviceGetP2PAtomicCapabilities);
            assert_eq!(code(p2p(caps.as_mut_ptr(), ops.as_ptr(), 2, 0, 5)), AclError::RT_INVALID_DEVICEID);
            assert_eq!(code(p2p(ptr::null_mut(), ops.as_ptr(), 2, 0, 1)), AclError::RT_PARAM_INVALID);
            ok("ts", f!(acl, aclrtSetTsDevice)(ACL_TS_ID_AIVECTOR));
            assert_eq!(code(f!(acl, aclrtSetTsDevice)(ACL_TS_ID_RESERVED)), AclError::INVALID_PARAM);

            ok("groups", f!(acl, aclrtGetGroupCount)(&mut n));
            assert_eq!(n, 0, "no compute group");
            assert!(f!(acl, aclrtCreateGroupInfo)().is_null());
            assert_eq!(code(f!(acl, aclrtGetAllGroupInfo)(ptr::null_mut())), AclError::INVALID_PARAM);
            assert_eq!(code(f!(acl, aclrtSetGroup)(0)), AclError::RT_GROUP_NOT_CREATE);

            ok("set", f!(acl, aclrtSetExceptionInfoCallback)(Some(on_exception)));
            ok("register", f!(acl, aclrtExceptionInfoCallbackRegister)(Some(on_exception)));
            ok("unregister", f!(acl, aclrtExceptionInfoCallbackUnregister)(Some(on_exception)));
            assert_eq!(code(f!(acl, aclrtExceptionInfoCallbackRegister)(None)), AclError::RT_PARAM_INVALID);
            assert_eq!(f!(acl, aclrtGetTaskIdFromExceptionInfo)(ptr::null()), u32::MAX);
            assert_eq!(f!(acl, aclrtGetDeviceIdFromExceptionInfo)(ptr::null()), u32::MAX);
            let (mut args, mut len) = (ptr::null_mut(), 0u32);
            assert_eq!(f!(acl, aclrtGetArgsFromExceptionInfo)(ptr::null(), &mut args, &mut len), -1);
        }
    });
}

#[test]
fn stream_configurations_and_attributes() {
    isolated("stream_configurations_and_attributes", &[], |_| {
        use std::mem::{offset_of, size_of};
        assert_eq!(size_of::<aclrtStreamConfigHandle>(), 32);
        assert_eq!(offset_of!(aclrtStreamConfigHandle, priority), 24);
        assert_eq!(size_of::<aclrtStreamAttrValue>(), 16);
        assert_eq!(size_of::<aclrtUuid>(), 16);
        let acl = vmmkit_emulator::acl::api();
        let mut s: aclrtStream = ptr::null_mut();
        let (mut p, mut f) = (9u32, 0u32);
        // SAFETY: out-pointers and values are live locals of the sizes passed.
        unsafe {
            ok("set device", (acl.aclrtSetDevice)(0));
            let h = f!(acl, aclrtCreateStreamConfigHandle)();
            assert!(!h.is_null());
            let set = f!(acl, aclrtSetStreamConfigOpt);
            let (prio, flag) = (4u32, ACL_STREAM_HUGE as usize);
            ok("priority", set(h, ACL_RT_STREAM_PRIORITY, (&prio as *const u32).cast(), 4));
            ok("flag", set(h, ACL_RT_STREAM_FLAG, (&flag as *const usize).cast(), 8));
            let bad = 8u32;
            assert_eq!(code(set(h, ACL_RT_STREAM_PRIORITY, (&bad as *const u32).cast(), 4)), AclError::INVALID_PARAM);
            assert_eq!(code(set(h, ACL_RT_STREAM_FLAG, (&flag as *const usize).cast(), 4)), AclError::INVALID_PARAM);
            assert_eq!(code(set(h, 9, (&flag as *const usize).cast(), 8)), AclError::INVALID_PARAM);
            ok("create v2", f!(acl, aclrtCreateStreamV2)(&mut s, h));
            ok("priority", f!(acl, aclrtStreamGetPriority)(s, &mut p));
            ok("flags", f!(acl, aclrtStreamGetFlags)(s, &mut f));
            assert_eq!((p, f), (4, ACL_STREAM_HUGE));
            ok("destroy handle", f!(acl, aclrtDestroyStreamConfigHandle)(h));
            assert_eq!(code(f!(acl, aclrtDestroyStreamConfigHandle)(h)), AclError::INVALID_PARAM, "twice");

            let (sa, ga) = (f!(acl, aclrtSetStreamAttribute), f!(acl, aclrtGetStreamAttribute));
            let mut v = aclrtStreamAttrValue { reserve: [0; 4] };
            v.userCustomTag = 77;
            ok("tag", sa(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &mut v));
            v.streamPriority = 6;
            ok("priority", sa(s, ACL_STREAM_ATTR_PRIORITY, &mut v));
            v.streamPriority = 8;
            assert_eq!(code(sa(s, ACL_STREAM_ATTR_PRIORITY, &mut v)), AclError::RT_PARAM_INVALID);
            let mut out = aclrtStreamAttrValue { reserve: [1; 4] };
            ok("get tag", ga(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &mut out));
            assert_eq!(out.reserve, [77, 0, 0, 0]);
            ok("get priority", ga(s, ACL_STREAM_ATTR_PRIORITY, &mut out));
            assert_eq!(out.streamPriority, 6);
            assert_eq!(code(ga(s, 9, &mut out)), AclError::RT_PARAM_INVALID);
            assert_eq!(code(ga(s, ACL_STREAM_ATTR_PRIORITY, ptr::null_mut())), AclError::INVALID_PARAM);
            ok("destroy", (acl.aclrtDestroyStream)(s));
        }
    });
}

static INIT_SEEN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

unsafe extern "C" fn on_init(config: *const std::ffi::c_char, len: usize, _: *mut c_void) -> aclError {
    // SAFETY: the library passes `len` bytes of text at `config`.
    let text = unsafe { std::slice::from_raw_parts(config.cast::<u8>(), len) };
    INIT_SEEN.lock().unwrap().push(String::from_utf8_lossy(text).into_owned());
    0
}

unsafe extern "C" fn on_finalize(data: *mut c_void) -> aclError {
    // SAFETY: the test passes an AtomicU32 that outlives the callback.
    unsafe { &*data.cast::<std::sync::atomic::AtomicU32>() }.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    0
}

#[test]
fn init_and_finalize_callbacks_and_references() {
    isolated("init_and_finalize_callbacks_and_references", &[], |_| {
        use std::sync::atomic::{AtomicU32, Ordering};
        let acl = vmmkit_emulator::acl::api();
        let finals: &'static AtomicU32 = Box::leak(Box::new(AtomicU32::new(0)));
        let fin_data = (finals as *const AtomicU32).cast_mut().cast::<c_void>();
        let dir = tempfile::tempdir().unwrap();
        let cfg = dir.path().join("acl.json");
        std::fs::write(&cfg, "{\"dump\": {}}").unwrap();
        let cfg_c = std::ffi::CString::new(cfg.to_str().unwrap()).unwrap();
        let mut refs = 9u64;
        // SAFETY: plain values, live locals and callbacks that outlive the calls.
        unsafe {
            let reg = f!(acl, aclInitCallbackRegister);
            ok("register init", reg(ACL_REG_TYPE_ACL_MODEL, Some(on_init), ptr::null_mut()));
            assert_eq!(code(reg(ACL_REG_TYPE_ACL_MODEL, Some(on_init), ptr::null_mut())), AclError::INTERNAL_ERROR);
            assert_eq!(code(reg(ACL_REG_TYPE_OTHER, None, ptr::null_mut())), AclError::INVALID_PARAM);
            let freg = f!(acl, aclFinalizeCallbackRegister);
            ok("register finalize", freg(ACL_REG_TYPE_OTHER, Some(on_finalize), fin_data));
            ok("init", (acl.aclInit)(cfg_c.as_ptr()));
            assert_eq!(*INIT_SEEN.lock().unwrap(), ["{\"dump\": {}}"], "run by aclInit with the file's text");
            ok("a later init callback runs at once", reg(ACL_REG_TYPE_OTHER, Some(on_init), ptr::null_mut()));
            assert_eq!(INIT_SEEN.lock().unwrap().len(), 2);
            assert_eq!(code((acl.aclInit)(ptr::null())), AclError::REPEAT_INITIALIZE, "ACL-GEN-001, still counted");
            let fr = f!(acl, aclFinalizeReference);
            ok("drop one reference", fr(&mut refs));
            assert_eq!((refs, finals.load(Ordering::SeqCst)), (1, 0), "not finalized yet");
            ok("the last one finalizes", fr(&mut refs));
            assert_eq!((refs, finals.load(Ordering::SeqCst)), (0, 1));
            assert_eq!(code(fr(&mut refs)), AclError::REPEAT_FINALIZE);
            assert_eq!(code((acl.aclFinalize)()), AclError::REPEAT_FINALIZE, "already finalized");
            ok("unregister", f!(acl, aclFinalizeCallbackUnRegister)(ACL_REG_TYPE_OTHER, Some(on_finalize)));
            let unreg = f!(acl, aclFinalizeCallbackUnRegister);
            assert_eq!(code(unreg(ACL_REG_TYPE_OTHER, Some(on_finalize))), AclError::INTERNAL_ERROR, "gone");
            ok("unregister init", f!(acl, aclInitCallbackUnRegister)(ACL_REG_TYPE_ACL_MODEL, Some(on_init)));
        }
    });
}

#[test]
fn model_stream_functions_refuse_streams_without_a_model() {
    isolated("model_stream_functions_refuse_streams_without_a_model", &[], |_| {
        let acl = vmmkit_emulator::acl::api();
        let (mut a, mut b): (aclrtStream, aclrtStream) = (ptr::null_mut(), ptr::null_mut());
        let mut word = 0u64;
        let w = (&mut word as *mut u64).cast::<c_void>();
        // SAFETY: streams of this process and a live local word.
        unsafe {
            ok("set device", (acl.aclrtSetDevice)(0));
            ok("stream", (acl.aclrtCreateStream)(&mut a));
            ok("stream", (acl.aclrtCreateStream)(&mut b));
            let active = f!(acl, aclrtActiveStream);
            assert_eq!(code(active(a, b)), AclError::RT_STREAM_MODEL, "no model stream");
            assert_eq!(code(active(ptr::null_mut(), b)), AclError::INVALID_PARAM);
            assert_eq!(code(active(0x42 as aclrtStream, b)), AclError::RT_PARAM_INVALID);
            let switch = f!(acl, aclrtSwitchStream);
            assert_eq!(code(switch(w, 0, w, 0, a, ptr::null_mut(), b)), AclError::RT_STREAM_MODEL);
            assert_eq!(code(switch(w, 0, w, 0, a, a, b)), AclError::INVALID_PARAM, "falseStream is reserved");
            assert_eq!(code(switch(ptr::null_mut(), 0, w, 0, a, ptr::null_mut(), b)), AclError::INVALID_PARAM);
            let stop = f!(acl, aclrtStreamStop);
            assert_eq!(code(stop(a)), AclError::RT_FEATURE_NOT_SUPPORT, "no MC2-enhanced scheduler");
            assert_eq!(code(stop(ptr::null_mut())), AclError::RT_PARAM_INVALID);
            ok("the streams still work", (acl.aclrtSynchronizeStream)(a));
            let (mut t1, mut t2) = (0u32, 0u32);
            let mut dev: *mut c_void = ptr::null_mut();
            ok("malloc", (acl.aclrtMalloc)(&mut dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
            ok("fill", (acl.aclrtMemsetAsync.expect("table"))(dev, N, 1, N, a));
            ok("fill", (acl.aclrtMemsetAsync.expect("table"))(dev, N, 2, N, a));
            ok("last task", f!(acl, aclrtGetThreadLastTaskId)(&mut t1));
            assert!(t1 >= 2, "two fills enqueued: {t1}");
            let mut ev: aclrtEvent = ptr::null_mut();
            ok("event", f!(acl, aclrtCreateEvent)(&mut ev));
            ok("record", f!(acl, aclrtRecordEvent)(ev, a));
            ok("last task", f!(acl, aclrtGetThreadLastTaskId)(&mut t2));
            assert_eq!(t2, t1 + 1, "the record follows the fill on the stream");
            assert_eq!(code(f!(acl, aclrtGetThreadLastTaskId)(ptr::null_mut())), AclError::INVALID_PARAM);
            ok("sync", (acl.aclrtSynchronizeStream)(a));
        }
    });
}

#[test]
fn notify_batch_reset_clears_set_notifies_in_default_stream_order() {
    isolated("notify_batch_reset_clears_set_notifies_in_default_stream_order", &[("VMMKIT_STREAMS", "async")], |_| {
        let acl = vmmkit_emulator::acl::api();
        let (create, record) = (f!(acl, aclrtCreateNotify), f!(acl, aclrtRecordNotify));
        let (wait_reset, reset) = (f!(acl, aclrtWaitAndResetNotify), f!(acl, aclrtNotifyBatchReset));
        let mut n: [aclrtNotify; 2] = [ptr::null_mut(); 2];
        let mut waiter: aclrtStream = ptr::null_mut();
        // SAFETY: `n` and `bad` hold the number of notifies passed.
        unsafe {
            ok("set device", (acl.aclrtSetDevice)(0));
            ok("stream", (acl.aclrtCreateStream)(&mut waiter));
            for h in &mut n {
                ok("notify", create(h, 0));
                ok("record", record(*h, ptr::null_mut()));
            }
            ok("sync", (acl.aclrtSynchronizeDevice)());
            ok("batch reset", reset(n.as_mut_ptr(), 2));
            ok("sync", (acl.aclrtSynchronizeDevice)());
            // Reset: a wait now needs a new record.
            ok("wait", wait_reset(n[1], waiter, 0));
            let sync_for = f!(acl, aclrtSynchronizeStreamWithTimeout);
            assert_eq!(
                code(sync_for(waiter, 100)),
                AclError::RT_STREAM_SYNC_TIMEOUT,
                "the reset notify holds the waiter"
            );
            ok("record again", record(n[1], ptr::null_mut()));
            ok("sync waiter", (acl.aclrtSynchronizeStream)(waiter));

            assert_eq!(code(reset(ptr::null_mut(), 1)), AclError::INVALID_PARAM);
            assert_eq!(code(reset(n.as_mut_ptr(), 0)), AclError::RT_PARAM_INVALID);
            let mut bad = [n[0], 0x1234 as aclrtNotify];
            assert_eq!(code(reset(bad.as_mut_ptr(), 2)), AclError::RT_PARAM_INVALID);
            for h in n {
                ok("destroy", f!(acl, aclrtDestroyNotify)(h));
            }
            ok("destroy stream", (acl.aclrtDestroyStream)(waiter));
        }
    });
}

#[test]
fn float_overflow_address_is_a_zeroed_device_allocation_per_context() {
    isolated("float_overflow_address_is_a_zeroed_device_allocation_per_context", &[("VMMKIT_DEVICES", "2")], |_| {
        let acl = vmmkit_emulator::acl::api();
        let get = f!(acl, aclrtCtxGetFloatOverflowAddr);
        let (mut a, mut again, mut b): (*mut c_void, *mut c_void, *mut c_void) =
            (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
        let mut back = [0xffu8; 512];
        // SAFETY: out-pointers are live locals; `back` holds the 512 bytes read.
        unsafe {
            assert_ne!(code(get(&mut a)), AclError::SUCCESS, "no current context");
            ok("set device", (acl.aclrtSetDevice)(0));
            assert_eq!(code(get(ptr::null_mut())), AclError::RT_PARAM_INVALID);
            ok("get", get(&mut a));
            ok("again", get(&mut again));
            assert!(!a.is_null());
            assert_eq!(a, again, "one per context");
            ok("read", (acl.aclrtMemcpy)(back.as_mut_ptr().cast(), 512, a, 512, ACL_MEMCPY_DEVICE_TO_HOST));
            assert!(back.iter().all(|&x| x == 0), "no overflow flagged");
            ok("device 1", (acl.aclrtSetDevice)(1));
            ok("get on 1", get(&mut b));
            assert_ne!(a, b, "each device's context has its own");
            // The last reset frees it with the device's memory; a later context gets a new one.
            ok("reset 0", (acl.aclrtResetDevice)(0));
            ok("set 0", (acl.aclrtSetDevice)(0));
            ok("get after reset", get(&mut again));
            ok(
                "read after reset",
                (acl.aclrtMemcpy)(back.as_mut_ptr().cast(), 512, again, 512, ACL_MEMCPY_DEVICE_TO_HOST),
            );
            ok("reset 0", (acl.aclrtResetDevice)(0));
            ok("reset 1", (acl.aclrtResetDevice)(1));
        }
    });
}

/// A BLOCK callback whose report thread unsubscribes instead of processing
/// it: the stream is not held for good (the callback is taken back unrun and
/// aclrtSynchronizeStream returns); and a thread in aclrtProcessReport(-1)
/// whose streams all unsubscribe gets 107012 instead of waiting for
/// callbacks that cannot come. Both within 5 s; the child is bounded by the
/// harness.
#[test]
fn a_block_callback_whose_report_thread_left_does_not_hold_its_stream() {
    isolated(
        "a_block_callback_whose_report_thread_left_does_not_hold_its_stream",
        &[("VMMKIT_STREAMS", "async")],
        |_| {
            use std::sync::atomic::{AtomicU32, Ordering};
            let acl = vmmkit_emulator::acl::api();
            let count: &'static AtomicU32 = Box::leak(Box::new(AtomicU32::new(0)));
            let (mut s, mut s2): (aclrtStream, aclrtStream) = (ptr::null_mut(), ptr::null_mut());
            let (tx, rx) = std::sync::mpsc::channel::<u64>();
            let waiter = std::thread::spawn(move || {
                let acl = vmmkit_emulator::acl::api();
                // SAFETY: pthread_self has no preconditions.
                tx.send(unsafe { libc::pthread_self() } as u64).unwrap();
                let mut r = AclError::RT_THREAD_SUBSCRIBE;
                // Until the main thread subscribed a stream to this one.
                for _ in 0..500 {
                    // SAFETY: a plain value.
                    r = code(unsafe { f!(acl, aclrtProcessReport)(-1) });
                    if r != AclError::RT_THREAD_SUBSCRIBE {
                        break;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                // SAFETY: as above: now it waits without a limit.
                (r, code(unsafe { f!(acl, aclrtProcessReport)(-1) }))
            });
            let other = rx.recv().unwrap();
            // SAFETY: pthread_self has no preconditions.
            let me = unsafe { libc::pthread_self() } as u64;
            // SAFETY: out-pointers are live locals; `count` is leaked.
            unsafe {
                ok("set device", (acl.aclrtSetDevice)(0));
                ok("stream", (acl.aclrtCreateStream)(&mut s));
                ok("stream", (acl.aclrtCreateStream)(&mut s2));
                // This thread is the report thread of s, and never processes.
                ok("subscribe", f!(acl, aclrtSubscribeReport)(me, s));
                ok("subscribe the other", f!(acl, aclrtSubscribeReport)(other, s2));
                let data = (count as *const AtomicU32).cast_mut().cast::<c_void>();
                ok("block", f!(acl, aclrtLaunchCallback)(Some(bump), data, ACL_CALLBACK_BLOCK, s));
                let sync = f!(acl, aclrtSynchronizeStreamWithTimeout);
                assert_eq!(code(sync(s, 300)), AclError::RT_STREAM_SYNC_TIMEOUT, "held by its callback");
                // A NO_BLOCK callback for the other thread: its first report returns.
                ok("no block", f!(acl, aclrtLaunchCallback)(Some(bump), data, ACL_CALLBACK_NO_BLOCK, s2));
                ok("the other thread ran it", sync(s2, 5000));
                std::thread::sleep(std::time::Duration::from_millis(200));
                let started = std::time::Instant::now();
                ok("unsubscribe", f!(acl, aclrtUnSubscribeReport)(me, s));
                ok("the stream is not held by a callback no thread will run", sync(s, 5000));
                assert_eq!(count.load(Ordering::SeqCst), 1, "the BLOCK callback was taken back unrun");
                ok("unsubscribe the other", f!(acl, aclrtUnSubscribeReport)(other, s2));
                let (first, last) = waiter.join().unwrap();
                assert_eq!(first, AclError::SUCCESS, "the other thread's first report ran its callback");
                assert_eq!(last, AclError::RT_THREAD_SUBSCRIBE, "aclrtProcessReport(-1) ends without a subscription");
                assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
                ok("destroy", (acl.aclrtDestroyStream)(s));
                ok("destroy", (acl.aclrtDestroyStream)(s2));
            }
        },
    );
}
