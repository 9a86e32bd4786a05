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
    vmmkit_testkit::process::output(&mut cmd, std::time::Duration::from_secs(120)).unwrap()
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

/// A first import's codes keep their order (ACL-IMP-007, then ACL-IMP-008,
/// then a fault injected on the key), whether the key's existence is checked
/// apart (no context, or a fault on the key) or found by the lookup itself
/// (a context and no fault: no `stat` of the entry).
#[test]
fn first_import_codes_keep_their_order() {
    isolated("first_import_codes_keep_their_order", &[], |_| {
        let api = acl();
        ok!(api, aclrtSetDevice(0));
        let mut a = null_mut();
        ok!(api, aclrtMallocPhysical(&mut a, G, &prop(0), 0));
        let mut key = 0;
        ok!(api, aclrtMemExportToShareableHandle(a, 0, 1, &mut key));
        let missing = key ^ 0xffff;
        let unknown = format!("no exported memory has shareable handle {missing:#x}");
        // Each case: (what, the key, the code with a context, the code with none).
        let codes = |faulted: bool| {
            let live_with = if faulted { AclError::RT_DRV_INTERNAL_ERROR } else { AclError::SUCCESS };
            [
                ("a missing key", missing, AclError::RT_INVALID_HANDLE, AclError::RT_INVALID_HANDLE),
                ("a live key", key, live_with, AclError::RT_CONTEXT_NULL),
            ]
        };
        let check = |faulted: bool| {
            for (what, k, with, without) in codes(faulted) {
                let mut h = null_mut();
                let got = call!(api, aclrtMemImportFromShareableHandle(k, 1, &mut h));
                expect(got, with, &format!("{what} with a context (fault: {faulted})"));
                let message = common::last_message(&api);
                if k == missing {
                    assert!(message.contains(&unknown), "{message}");
                    let mut k2 = k;
                    let v2 = api.aclrtMemImportFromShareableHandleV2.expect("V2");
                    // SAFETY: k2 is a u64 key (DEFAULT); h is a handle out-pointer.
                    let got =
                        AclError(unsafe { v2((&raw mut k2).cast(), ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &mut h) });
                    expect(got, with, &format!("V2 of {what} (fault: {faulted})"));
                    let v1 = "aclrtMemImportFromShareableHandle:";
                    let v2_message = common::last_message(&api).replace("aclrtMemImportFromShareableHandleV2:", v1);
                    assert_eq!(v2_message, message, "V2: the same message");
                } else if with == AclError::SUCCESS {
                    ok!(api, aclrtFreePhysical(h));
                }
                let alone = std::thread::scope(|s| {
                    s.spawn(|| {
                        let api = acl();
                        let mut h = null_mut();
                        let got = call!(api, aclrtMemImportFromShareableHandle(k, 1, &mut h));
                        expect(got, without, &format!("{what} with no context (fault: {faulted})"));
                        common::last_message(&api)
                    })
                    .join()
                    .expect("the thread")
                });
                if k == missing {
                    assert_eq!(alone, message, "the same message whether the key was looked at apart or not");
                }
            }
        };
        check(false);
        vmmkit_emulator::faults::set(&format!(
            "aclrtMemImportFromShareableHandle@{missing:x}=ACL_ERROR_RT_DRV_INTERNAL_ERROR;\
             aclrtMemImportFromShareableHandle@{key:x}=ACL_ERROR_RT_DRV_INTERNAL_ERROR;\
             aclrtMemImportFromShareableHandleV2@{missing:x}=ACL_ERROR_RT_DRV_INTERNAL_ERROR"
        ))
        .unwrap();
        check(true);
        vmmkit_emulator::faults::clear();
        ok!(api, aclrtFreePhysical(a));
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

/// Rules that could never do what they say are refused
/// from the environment as a malformed list is: 207004 at the first call,
/// the message naming VMMKIT_FAULTS, the rule and what is wrong.
#[test]
fn fault_rules_that_never_fire_are_refused() {
    // The child is the malformed-list test's: one call, its code and message.
    for (spec, why) in [
        ("aclrtMallocPhysical=0", "code 0"),
        ("aclrtMallocPhysical=4294967297", "does not fit aclError"),
        ("aclrtMallocPhysicl=207001", "did you mean aclrtMallocPhysical?"),
        ("aclrtMallocPhysical@0x1=207001", "takes no shareable handle"),
    ] {
        let out = run_child("malformed_fault_spec_is_a_clear_error", &[("VMMKIT_FAULTS", spec)]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("@@ 207004 "), "{spec}: {text}");
        assert!(text.contains("VMMKIT_FAULTS") && text.contains(spec) && text.contains(why), "{spec}: {text}");
    }
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

/// The journal of `vmmkit run` (`VMMKIT_JOURNAL`): a start record, each call
/// with its code and (on failure) its rule, the export, and at exit what was
/// left; a child forked after the start writes its own journal, marked
/// forked, whose exit lists nothing of the parent's.
#[test]
fn journal_records_calls_shares_and_exit() {
    use vmmkit_emulator::journal::{Record, ShareOp};
    if is_child("journal_records_calls_shares_and_exit") {
        let api = acl();
        ok!(api, aclrtSetDevice(0));
        let (mut h, mut key) = (null_mut(), 0);
        ok!(api, aclrtMallocPhysical(&mut h, G, &prop(0), 0));
        ok!(api, aclrtMemExportToShareableHandle(h, 0, 1, &mut key));
        let _ = call!(api, aclrtMapMem(0x1000_0000_0000_usize as _, G, 0, h, 2));
        // SAFETY: the child only makes one call and exits; no lock is held across the fork.
        let child = unsafe { libc::fork() };
        if child == 0 {
            let mut d = -1;
            let _ = call!(api, aclrtGetDevice(&mut d));
            std::process::exit(0);
        }
        let mut status = 0;
        // SAFETY: waiting for the child just forked.
        assert_eq!(unsafe { libc::waitpid(child, &mut status, 0) }, child);
        println!("\n@@ {key:#x} {child}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().to_str().unwrap();
    let out = run_child(
        "journal_records_calls_shares_and_exit",
        &[("VMMKIT_JOURNAL", journal), ("VMMKIT_JOURNAL_CALLS", "1")],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let line =
        text.lines().find_map(|l| l.strip_prefix("@@ ")).unwrap_or_else(|| panic!("no key and fork in:\n{text}"));
    let (key, forked) = line.split_once(' ').unwrap();
    let key = u64::from_str_radix(key.trim_start_matches("0x"), 16).unwrap();
    let read = |pid: &str| -> Vec<Record> {
        let text = std::fs::read_to_string(dir.path().join(format!("{pid}.jsonl"))).expect("a journal per process");
        text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
    };
    let mut files: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    files.sort();
    assert_eq!(files.len(), 2, "{files:?}");
    let parent = files.iter().find(|f| **f != format!("{forked}.jsonl")).unwrap().trim_end_matches(".jsonl");

    let p = read(parent);
    assert!(matches!(&p[0], Record::Start { forked: false, .. }), "{:?}", p[0]);
    let call = |name: &str| {
        p.iter().find_map(|r| match r {
            Record::Call { name: n, ret, rule, .. } if n == name => Some((ret.clone(), rule.clone())),
            _ => None,
        })
    };
    assert_eq!(call("aclrtMallocPhysical"), Some(("0".into(), None)));
    let (ret, rule) = call("aclrtMapMem").expect("the failing map is recorded");
    assert_ne!(ret, "0");
    assert!(rule.is_some_and(|r| r.starts_with("ACL-MAP-")), "the failure names its rule");
    assert!(p.iter().any(|r| matches!(r, Record::Share { op: ShareOp::Export, key: k, bytes, call, .. }
        if *k == key && *bytes == G as u64 && call == "aclrtMemExportToShareableHandle")));
    let Some(Record::Exit { leaks, .. }) = p.last() else { panic!("no exit record: {p:?}") };
    assert_eq!(leaks.iter().map(|l| l.kind.as_str()).collect::<Vec<_>>(), ["Export"]);
    assert_eq!((leaks[0].key, leaks[0].bytes), (Some(key), G as u64));

    let c = read(forked);
    let parent_pid: u32 = parent.parse().unwrap();
    assert!(matches!(&c[0], Record::Start { forked: true, ppid, .. } if *ppid == parent_pid), "{:?}", c[0]);
    assert!(matches!(&c[1], Record::Call { name, .. } if name == "aclrtGetDevice"), "{:?}", c[1]);
    assert!(matches!(c.last(), Some(Record::Exit { leaks, .. }) if leaks.is_empty()), "{c:?}");
}
