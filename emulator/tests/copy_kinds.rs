//! Copies check their kind. The exact calls of the report (and
//! their HIP and CUDA counterparts) return the vendor's code with the rule
//! in the thread's message, and do not crash: each runs in a child process,
//! so a fault fails the test instead of passing it by accident.

// The call macros wrap deliberate bad arguments in their unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;
mod cuda_common;
mod hip_common;

use std::ffi::c_void;
use std::ptr::null;

use common::{acl, expect, isolated, last_message};
use vmmkit_sys::acl::*;
use vmmkit_sys::cuda::CuResult;
use vmmkit_sys::hip::*;

/// Just past the device window: an address the emulator takes for host memory.
const PAST_WINDOW: usize = 0x1800_0000_0000;

fn assert_names(msg: &str, rule: &str) {
    assert!(msg.contains(rule), "the message names {rule}: {msg:?}");
}

#[test]
fn acl_issue_calls_return_codes() {
    isolated("acl_issue_calls_return_codes", &[], |_| {
        let api = acl();
        ok!(api, aclInit(null()));
        ok!(api, aclrtSetDevice(0));
        let src = [9u8; 64];
        let mut host = [0u8; 64];
        let s: *const c_void = src.as_ptr().cast();
        // aclrtMemcpy(dst 0x180000000000, …, HOST_TO_DEVICE): the issue's first call.
        let r = call!(api, aclrtMemcpy(PAST_WINDOW as *mut c_void, 64, s, 64, ACL_MEMCPY_HOST_TO_DEVICE));
        expect(r, AclError::RT_PARAM_INVALID, "HOST_TO_DEVICE to 0x180000000000");
        assert_names(&last_message(&api), "ACL-CPY-007");
        // The same through aclrtMemcpyAsync, and a device source that is not device memory.
        let mut stream = std::ptr::null_mut();
        ok!(api, aclrtCreateStream(&mut stream));
        let r = call!(api, aclrtMemcpyAsync(PAST_WINDOW as *mut c_void, 64, s, 64, ACL_MEMCPY_HOST_TO_DEVICE, stream));
        expect(r, AclError::RT_PARAM_INVALID, "async HOST_TO_DEVICE to 0x180000000000");
        let d: *mut c_void = host.as_mut_ptr().cast();
        let r = call!(api, aclrtMemcpy(d, 64, PAST_WINDOW as *const c_void, 64, ACL_MEMCPY_DEVICE_TO_HOST));
        expect(r, AclError::RT_PARAM_INVALID, "DEVICE_TO_HOST from 0x180000000000");
        assert_names(&last_message(&api), "ACL-CPY-007");
        // aclrtMemset(0x1000, …): the issue's second call.
        let r = call!(api, aclrtMemset(0x1000 as *mut c_void, 64, 0, 64));
        expect(r, AclError::RT_PARAM_INVALID, "aclrtMemset(0x1000)");
        assert_names(&last_message(&api), "ACL-CPY-007");
        // A host range that runs into the device window is not walked into it.
        let r = call!(api, aclrtMemset((0x1000_0000_0000usize - 16) as *mut c_void, 64, 0, 64));
        expect(r, AclError::RT_PARAM_INVALID, "aclrtMemset into the window");
        // Null stays the vendor's 100000; the buffers are untouched.
        let r = call!(api, aclrtMemcpy(std::ptr::null_mut(), 64, s, 64, ACL_MEMCPY_HOST_TO_DEVICE));
        expect(r, AclError::INVALID_PARAM, "NULL dst");
        assert_eq!(host, [0u8; 64]);
        ok!(api, aclrtDestroyStream(stream));
    });
}

#[test]
fn hip_and_cuda_counterparts_return_codes() {
    isolated("hip_and_cuda_counterparts_return_codes", &[], |_| {
        let hip = hip_common::hip();
        hok!(hip, hipSetDevice(0));
        let src = [9u8; 64];
        let s: *const c_void = src.as_ptr().cast();
        let past = PAST_WINDOW as *mut c_void;
        hexpect!(hip, hipMemcpy(past, s, 64, hipMemcpyHostToDevice), HipError::INVALID_VALUE);
        assert_names(&hip_common::message(), "HIP-CPY-001");
        hexpect!(hip, hipMemcpyHtoD(past, s.cast_mut(), 64), HipError::INVALID_VALUE);
        hexpect!(hip, hipMemcpy(past, s, 64, hipMemcpyDeviceToDevice), HipError::INVALID_VALUE);
        hexpect!(hip, hipMemcpy(0x1000 as *mut c_void, s, 64, hipMemcpyDefault), HipError::INVALID_VALUE);
        assert_names(&hip_common::message(), "HIP-CPY-002");
        hexpect!(hip, hipMemset(0x1000 as *mut c_void, 0, 64), HipError::INVALID_VALUE);
        hexpect!(hip, hipMemset(past, 0, 64), HipError::INVALID_VALUE);

        let cu = cuda_common::cu();
        cuda_common::setup(&cu, 0);
        let mut dev = 0;
        cuok!(cu, cuMemAlloc(&mut dev, 64));
        cuexpect!(cu, cuMemcpyHtoD(PAST_WINDOW as u64, s, 64), CuResult::INVALID_VALUE);
        cuexpect!(cu, cuMemcpyHtoD(dev, 0x1000 as *const c_void, 64), CuResult::INVALID_VALUE);
        assert_names(&cuda_common::message(), "CUDA-CPY-001");
        cuexpect!(cu, cuMemcpyDtoH(0x1000 as *mut c_void, dev, 64), CuResult::INVALID_VALUE);
        cuexpect!(cu, cuMemsetD8(0x1000, 0, 64), CuResult::INVALID_VALUE);
        cuok!(cu, cuMemFree(dev));
    });
}

#[test]
fn right_kinds_still_copy() {
    isolated("right_kinds_still_copy", &[], |_| {
        let api = acl();
        ok!(api, aclInit(null()));
        ok!(api, aclrtSetDevice(0));
        let mut dev = std::ptr::null_mut();
        ok!(api, aclrtMalloc(&mut dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
        let src = [3u8; 64];
        let mut back = [0u8; 64];
        ok!(api, aclrtMemcpy(dev, 64, src.as_ptr().cast(), 64, ACL_MEMCPY_HOST_TO_DEVICE));
        ok!(api, aclrtMemcpy(back.as_mut_ptr().cast(), 64, dev, 64, ACL_MEMCPY_DEFAULT));
        assert_eq!(back, src);
        // A device pointer on the host side of the kind is copied through its view.
        back = [0; 64];
        ok!(api, aclrtMemcpy(back.as_mut_ptr().cast(), 64, dev, 64, ACL_MEMCPY_HOST_TO_HOST));
        assert_eq!(back, src);
        ok!(api, aclrtMemset(back.as_mut_ptr().cast(), 64, 0, 64));
        assert_eq!(back, [0; 64]);
        ok!(api, aclrtFree(dev));
    });
}
