//! Operating features seen from outside a process: fault injection
//! (`VMMKIT_FAULTS` and `vmmkit_emulator::faults::set`), the leak report
//! (`VMMKIT_LEAK_REPORT=1`) and logs (`VMMKIT_LOG`).
// The `call!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;

use std::process::{Command, Output};
use std::ptr::{null, null_mut};

use common::{acl, expect, isolated, prop};
use vmmkit_sys::acl::*;

const G: usize = 2 << 20;

/// Runs this binary's test `name` in a child with `env` and a fresh root; returns its output.
fn run_child(name: &str, env: &[(&str, &str)]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("VMMKIT_OPS_CHILD", name)
        .env("VMMKIT_ROOT", dir.path().join("root"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn is_child(name: &str) -> bool {
    std::env::var("VMMKIT_OPS_CHILD").as_deref() == Ok(name)
}

#[test]
fn nth_call_fails_with_the_chosen_code() {
    isolated("nth_call_fails_with_the_chosen_code", &[("VMMKIT_FAULTS", "aclrtMallocPhysical#3=207001")], |_| {
        let api = acl();
        ok!(api, aclrtSetDevice(0));
        let mut h = [null_mut(); 4];
        let codes: Vec<AclError> = h.iter_mut().map(|h| call!(api, aclrtMallocPhysical(h, G, &prop(0), 0))).collect();
        assert_eq!(codes, [AclError::SUCCESS, AclError::SUCCESS, AclError::RT_MEMORY_ALLOCATION, AclError::SUCCESS]);
        assert!(common::last_message(&api).contains("VMMKIT_FAULTS"), "{}", common::last_message(&api));
        assert!(h[2].is_null(), "no handle for the failed call");
    });
}

#[test]
fn faults_set_at_run_time_target_one_shareable_handle() {
    isolated("faults_set_at_run_time_target_one_shareable_handle", &[], |_| {
        let api = acl();
        ok!(api, aclrtSetDevice(0));
        let (mut a, mut b) = (null_mut(), null_mut());
        ok!(api, aclrtMallocPhysical(&mut a, G, &prop(0), 0));
        ok!(api, aclrtMallocPhysical(&mut b, G, &prop(0), 0));
        let (mut ka, mut kb) = (0, 0);
        ok!(api, aclrtMemExportToShareableHandle(a, 0, 1, &mut ka));
        ok!(api, aclrtMemExportToShareableHandle(b, 0, 1, &mut kb));
        vmmkit_emulator::faults::set(&format!(
            "aclrtMemImportFromShareableHandle@{ka:x}=ACL_ERROR_RT_DRV_INTERNAL_ERROR"
        ))
        .unwrap();
        let mut h = null_mut();
        for _ in 0..3 {
            expect(
                call!(api, aclrtMemImportFromShareableHandle(ka, 1, &mut h)),
                AclError::RT_DRV_INTERNAL_ERROR,
                "faulted key",
            );
        }
        ok!(api, aclrtMemImportFromShareableHandle(kb, 1, &mut h));
        assert!(vmmkit_emulator::faults::set("aclrtMapMem#0=1").is_err(), "malformed: refused");
        vmmkit_emulator::faults::clear();
        ok!(api, aclrtMemImportFromShareableHandle(ka, 1, &mut h));
    });
}

#[test]
fn malformed_fault_spec_is_a_clear_error() {
    if is_child("malformed_fault_spec_is_a_clear_error") {
        let api = acl();
        let mut n = 0;
        let rc = call!(api, aclrtGetDeviceCount(&mut n));
        println!("@@ {} {}", rc.0, common::last_message(&api));
        return;
    }
    let out = run_child("malformed_fault_spec_is_a_clear_error", &[("VMMKIT_FAULTS", "aclrtMapMem#two=1")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("@@ 207004 "), "{text}");
    assert!(text.contains("VMMKIT_FAULTS") && text.contains("aclrtMapMem#two=1") && text.contains("CALLS"), "{text}");
}

#[test]
fn kill_action_kills_at_the_chosen_call() {
    if is_child("kill_action_kills_at_the_chosen_call") {
        let api = acl();
        ok!(api, aclrtSetDevice(0));
        let mut h = null_mut();
        ok!(api, aclrtMallocPhysical(&mut h, G, &prop(0), 0));
        println!("@@ before");
        let _ = call!(api, aclrtMallocPhysical(&mut h, G, &prop(0), 0));
        println!("@@ survived");
        return;
    }
    let out = run_child("kill_action_kills_at_the_chosen_call", &[("VMMKIT_FAULTS", "aclrtMallocPhysical#2=kill")]);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(9), "{:?}", out.status);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("@@ before") && !text.contains("@@ survived"), "{text}");
}

#[test]
fn leak_report_lists_what_was_never_released() {
    if is_child("leak_report_lists_what_was_never_released") {
        let api = acl();
        ok!(api, aclrtSetDevice(0));
        let (mut h, mut va, mut key, mut dev) = (null_mut(), null_mut(), 0, null_mut());
        ok!(api, aclrtMallocPhysical(&mut h, G, &prop(0), 0));
        ok!(api, aclrtReserveMemAddress(&mut va, 2 * G, 0, null_mut(), 0));
        ok!(api, aclrtMapMem(va, G, 0, h, 0));
        ok!(api, aclrtMemExportToShareableHandle(h, 0, 1, &mut key));
        ok!(api, aclrtMalloc(&mut dev, 100, 0));
        // Freed things are not reported.
        let mut gone = null_mut();
        ok!(api, aclrtMallocPhysical(&mut gone, G, &prop(0), 0));
        ok!(api, aclrtFreePhysical(gone));
        std::process::exit(3); // the status must come through unchanged
    }
    let out = run_child("leak_report_lists_what_was_never_released", &[("VMMKIT_LEAK_REPORT", "1")]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("leak report: 4 object(s) never released"), "{err}");
    for line in [
        "Export handle",
        "from aclrtMallocPhysical",
        "Reservation 0x",
        "from aclrtReserveMemAddress",
        "Mapping 0x",
        "from aclrtMapMem",
        "Allocation 0x",
        "from aclrtMalloc",
    ] {
        assert!(err.contains(line), "missing {line:?} in:\n{err}");
    }
    // Without the variable: no report.
    let out = run_child("leak_report_lists_what_was_never_released", &[]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("leak report"));
}

#[test]
fn logs_show_each_call_with_arguments_and_code() {
    if is_child("logs_show_each_call_with_arguments_and_code") {
        let api = acl();
        let _ = call!(api, aclrtMapMem(0x1000_0000_0000_usize as _, G, 0, null_mut(), 2));
        let _ = call!(api, aclInit(null()));
        return;
    }
    let out = run_child("logs_show_each_call_with_arguments_and_code", &[("VMMKIT_LOG", "debug"), ("NO_COLOR", "1")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("aclrtMapMem") && err.contains("virPtr=0x100000000000") && err.contains("flags=2"), "{err}");
    assert!(err.contains("returned=100000"), "{err}");
    assert!(err.contains("aclInit") && err.contains("returned=0"), "{err}");
    let out = run_child("logs_show_each_call_with_arguments_and_code", &[]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("aclrtMapMem"), "off by default");
}
