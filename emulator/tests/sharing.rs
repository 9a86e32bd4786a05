//! Sharing physical memory between real processes through the ACL table:
//! the vendor sample flows, trustlist refusal, refcounted free, crashes.
//! Each test runs in its own process with its own `VMMKIT_ROOT`.

// The `call!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use common::{Peer, acl, expect, isolated, next_command, prop, reply};
use vmmkit_sys::acl::*;

const G: usize = 2 << 20;

fn setup(api: &AclApi) {
    let rc = call!(api, aclInit(null()));
    assert!(rc == AclError::SUCCESS || rc == AclError::REPEAT_INITIALIZE, "aclInit: {rc}");
    ok!(api, aclrtSetDevice(0));
}

/// Reserves `size` bytes and maps `h` there with READWRITE for device 0.
fn map_new(api: &AclApi, h: aclrtDrvMemHandle, size: usize) -> *mut c_void {
    let mut va = null_mut();
    ok!(api, aclrtReserveMemAddress(&mut va, size, 0, null_mut(), 0));
    ok!(api, aclrtMapMem(va, size, 0, h, 0));
    let mut desc = aclrtMemAccessDesc {
        flags: ACL_RT_MEM_ACCESS_FLAGS_READWRITE,
        location: aclrtMemLocation { id: 0, type_: ACL_MEM_LOCATION_TYPE_DEVICE },
        rsv: [0; 12],
    };
    ok!(api, aclrtMemSetAccess(va, size, &mut desc, 1));
    va
}

fn alloc(api: &AclApi, size: usize) -> aclrtDrvMemHandle {
    let mut h = null_mut();
    ok!(api, aclrtMallocPhysical(&mut h, size, &prop(0), 0));
    h
}

fn pattern(size: usize, seed: u8) -> Vec<u8> {
    (0..size).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
}

fn write(api: &AclApi, va: *mut c_void, data: &[u8]) {
    ok!(api, aclrtMemcpy(va, data.len(), data.as_ptr().cast(), data.len(), ACL_MEMCPY_HOST_TO_DEVICE));
}

fn read(api: &AclApi, va: *mut c_void, n: usize) -> Vec<u8> {
    let mut out = vec![0u8; n];
    ok!(api, aclrtMemcpy(out.as_mut_ptr().cast(), n, va, n, ACL_MEMCPY_DEVICE_TO_HOST));
    out
}

fn checksum(d: &[u8]) -> u64 {
    d.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

fn free_mb(api: &AclApi) -> usize {
    let (mut free, mut total) = (0, 0);
    ok!(api, aclrtGetMemInfo(ACL_HBM_MEM, &mut free, &mut total));
    (total - free) >> 20
}

/// The peers: this binary, run in a role by `Peer::start`.
#[test]
fn peer() {
    let Some(role) = common::peer_role() else { return };
    let api = acl();
    setup(&api);
    assert_eq!(role, "importer");
    // An importer that follows the sample: pid, import, map, read, write back, release.
    let mut mapped: Option<(aclrtDrvMemHandle, *mut c_void, usize)> = None;
    while let Some(cmd) = next_command() {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match words.as_slice() {
            ["pid"] => {
                let mut pid = 0;
                ok!(api, aclrtDeviceGetBareTgid(&mut pid));
                reply(pid);
            }
            ["import", key, size] => {
                let key = u64::from_str_radix(key, 16).expect("hex key");
                let size: usize = size.parse().expect("size");
                let mut h = null_mut();
                let rc = call!(api, aclrtMemImportFromShareableHandle(key, 0, &mut h));
                if rc != AclError::SUCCESS {
                    reply(format!("err {}", rc.0));
                    continue;
                }
                mapped = Some((h, map_new(&api, h, size), size));
                reply(format!("ok {:x}", h as usize));
            }
            ["sum"] => {
                let (_, va, size) = mapped.expect("mapped");
                reply(checksum(&read(&api, va, size)));
            }
            ["fill", byte] => {
                let (_, va, size) = mapped.expect("mapped");
                ok!(api, aclrtMemset(va, size, byte.parse::<i32>().expect("byte"), size));
                reply("ok");
            }
            ["release"] => {
                let (h, va, _) = mapped.take().expect("mapped");
                ok!(api, aclrtUnmapMem(va));
                ok!(api, aclrtReleaseMemAddress(va));
                ok!(api, aclrtFreePhysical(h));
                reply("ok");
            }
            ["free-foreign", h] => {
                // A handle value from another process means nothing here (ACL-MP-017).
                let v = usize::from_str_radix(h, 16).expect("hex");
                reply(call!(api, aclrtFreePhysical(v as aclrtDrvMemHandle)).0);
            }
            ["exit"] => break,
            other => panic!("unknown command {other:?}"),
        }
    }
}

/// acl.md §7.1 and §7.2 with k = 2 granules: A exports a pattern, B imports,
/// maps, reads it exactly, writes back; A sees B's write.
fn sample_flow(with_pid: bool) {
    let api = acl();
    setup(&api);
    let size = 2 * G;
    let h = alloc(&api, size);
    let va = map_new(&api, h, size);
    let data = pattern(size, 7);
    write(&api, va, &data);
    let mut key = 0u64;
    let flags = if with_pid { ACL_RT_VMM_EXPORT_FLAG_DEFAULT } else { ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION };
    ok!(api, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, flags, &mut key));
    let mut b = Peer::start("importer");
    if with_pid {
        b.send("pid");
        let mut pid: i32 = b.recv().parse().expect("pid");
        assert_eq!(pid as u32, b.pid(), "aclrtDeviceGetBareTgid is the host pid (ACL-TGID-002)");
        ok!(api, aclrtMemSetPidToShareableHandle(key, &mut pid, 1));
    }
    b.send(&format!("import {key:x} {size}"));
    assert!(b.recv().starts_with("ok"), "import in B");
    b.send("sum");
    assert_eq!(b.recv(), checksum(&data).to_string(), "B reads A's exact pattern");
    b.send("fill 90");
    assert_eq!(b.recv(), "ok");
    assert!(read(&api, va, size).iter().all(|&x| x == 90), "A sees B's write: the same physical pages");
    b.send("release");
    assert_eq!(b.recv(), "ok");
    b.send("exit");
    b.finish();
    ok!(api, aclrtUnmapMem(va));
    ok!(api, aclrtReleaseMemAddress(va));
    ok!(api, aclrtFreePhysical(h));
    assert_eq!(free_mb(&api), 0, "all device memory back");
    ok!(api, aclrtResetDeviceForce(0));
    ok!(api, aclFinalize());
}

#[test]
fn sample_flow_with_pid() {
    isolated("sample_flow_with_pid", &[], |_| sample_flow(true));
}

#[test]
fn sample_flow_without_pid() {
    isolated("sample_flow_without_pid", &[], |_| sample_flow(false));
}

/// ACL-IMP-011: with the trustlist on, a process not listed is refused while
/// a listed one imports (three processes).
#[test]
fn trustlist_refuses_unlisted_process() {
    isolated("trustlist_refuses_unlisted_process", &[], |_| {
        let api = acl();
        setup(&api);
        let h = alloc(&api, G);
        let mut key = 0;
        ok!(api, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &mut key));
        let mut allowed = Peer::start("importer");
        let mut other = Peer::start("importer");
        allowed.send("pid");
        let mut pid: i32 = allowed.recv().parse().expect("pid");
        ok!(api, aclrtMemSetPidToShareableHandle(key, &mut pid, 1));
        other.send(&format!("import {key:x} {G}"));
        assert_eq!(other.recv(), format!("err {}", AclError::RT_DRV_INTERNAL_ERROR.0), "unlisted: 507899");
        allowed.send(&format!("import {key:x} {G}"));
        assert!(allowed.recv().starts_with("ok"));
        for p in [allowed, other] {
            p.kill();
        }
    });
}

/// ACL-LIFE-001/002, ACL-IMP-019: the exporter's free does not take memory
/// from the importer; capacity comes back only when the last holder releases.
#[test]
fn refcounted_free() {
    isolated("refcounted_free", &[], |_| {
        let api = acl();
        setup(&api);
        let h = alloc(&api, G);
        let va = map_new(&api, h, G);
        let data = pattern(G, 3);
        write(&api, va, &data);
        let mut key = 0;
        ok!(api, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 1, &mut key));
        let mut b = Peer::start("importer");
        b.send(&format!("import {key:x} {G}"));
        assert!(b.recv().starts_with("ok"));
        ok!(api, aclrtUnmapMem(va));
        ok!(api, aclrtReleaseMemAddress(va));
        ok!(api, aclrtFreePhysical(h));
        assert_eq!(free_mb(&api), 2, "the importer still holds the 2 MiB");
        b.send("sum");
        assert_eq!(b.recv(), checksum(&data).to_string(), "B still reads the data after A freed");
        b.send("release");
        assert_eq!(b.recv(), "ok");
        assert_eq!(free_mb(&api), 0, "capacity back after the last holder released");
        // ACL-LIFE-003: the handle is gone.
        let mut h2 = null_mut();
        expect(
            call!(api, aclrtMemImportFromShareableHandle(key, 1, &mut h2)),
            AclError::RT_INVALID_HANDLE,
            "import after release",
        );
        b.send("exit");
        b.finish();
    });
}

fn shared_dir_is_empty(root: &std::path::Path) -> bool {
    std::fs::read_dir(root.join("shared")).map(|mut d| d.next().is_none()).unwrap_or(true)
}

/// ACL-LIFE-004: a process killed with SIGKILL gives its memory back; `gc`
/// leaves no entry or tmpfs file and device usage returns to zero.
#[test]
fn crash_of_importer_and_exporter() {
    isolated("crash_of_importer_and_exporter", &[], |root| {
        let api = acl();
        setup(&api);
        let emu = vmmkit_emulator::core::emulator().expect("emulator");
        // Importer killed after import, exporter already gone from the picture.
        let h = alloc(&api, G);
        let mut key = 0;
        ok!(api, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 1, &mut key));
        let mut b = Peer::start("importer");
        b.send(&format!("import {key:x} {G}"));
        assert!(b.recv().starts_with("ok"));
        let entries = emu.registry().entries();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].key, key);
        let mut both = vec![std::process::id(), b.pid()];
        both.sort_unstable();
        assert_eq!(entries[0].holders, both, "exporter and importer hold it (/proc/<pid>/fdinfo)");
        assert!(entries[0].exporter_alive && entries[0].trustlist_disabled);
        ok!(api, aclrtFreePhysical(h));
        assert_eq!(free_mb(&api), 2, "held by the importer");
        assert_eq!(emu.registry().entries()[0].holders, vec![b.pid()]);
        b.kill();
        let report = emu.registry().gc().expect("gc");
        assert_eq!((report.entries, report.bytes), (1, G as u64), "{report:?}");
        assert_eq!(free_mb(&api), 0);
        assert!(shared_dir_is_empty(root), "no entry left");
        // Exporter killed after export: a peer allocates in its own slot. Here
        // the peer is the importer role, so do it the other way round: this
        // process imports from a killed exporter's entry while it lives.
        let h = alloc(&api, G);
        let mut key = 0;
        ok!(api, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 1, &mut key));
        let mut b = Peer::start("importer");
        b.send(&format!("import {key:x} {G}"));
        assert!(b.recv().starts_with("ok"));
        b.send("release");
        assert_eq!(b.recv(), "ok");
        b.kill();
        assert_eq!(emu.registry().gc().expect("gc").entries, 0, "the exporter still holds it");
        ok!(api, aclrtFreePhysical(h));
        assert_eq!(free_mb(&api), 0);
        assert!(shared_dir_is_empty(root));
    });
}

/// A child that allocates, exports and is then killed, in its own process.
#[test]
fn crash_of_exporter() {
    if std::env::var("VMMKIT_TEST_EXPORT_AND_HANG").is_ok() {
        let api = acl();
        setup(&api);
        let h = alloc(&api, G);
        let va = map_new(&api, h, G);
        write(&api, va, &pattern(G, 1));
        let mut key = 0;
        ok!(api, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 1, &mut key));
        let h2 = alloc(&api, G); // private memory too
        let _ = h2;
        println!("@@ {key:x}");
        std::thread::sleep(common::TIMEOUT * 2); // killed long before
        return;
    }
    isolated("crash_of_exporter", &[], |root| {
        let api = acl();
        setup(&api);
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["crash_of_exporter", "--exact", "--nocapture"])
            .env("VMMKIT_TEST_EXPORT_AND_HANG", "1")
            .env_remove("VMMKIT_TEST_CHILD")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let out = std::io::BufReader::new(child.stdout.take().unwrap());
        let key = std::io::BufRead::lines(out)
            .map_while(Result::ok)
            .find_map(|l| l.find("@@ ").map(|at| l[at + 3..].trim_end().to_string()))
            .expect("the exporter printed its key");
        assert_eq!(free_mb(&api), 4, "exported 2 MiB + private 2 MiB");
        child.kill().unwrap();
        child.wait().unwrap();
        let emu = vmmkit_emulator::core::emulator().expect("emulator");
        let report = emu.registry().gc().expect("gc");
        assert_eq!((report.processes, report.entries, report.bytes), (1, 1, 4 * G as u64 / 2), "{report:?}");
        assert_eq!(free_mb(&api), 0, "device usage back to zero");
        assert!(shared_dir_is_empty(root));
        let key = u64::from_str_radix(&key, 16).unwrap();
        let mut h = null_mut();
        expect(
            call!(api, aclrtMemImportFromShareableHandle(key, 0, &mut h)),
            AclError::RT_INVALID_HANDLE,
            "import after gc",
        );
    });
}
