//! Visible-device lists across real processes: the exporter sees only
//! physical device 3 (as its device 0), the importer sees "2,3"; the shared
//! buffer is on the importer's device 1, its capacity is charged to
//! physical device 3 whoever looks, and a device's PCI address is the
//! physical one (HIP-INIT-009, ACL-GEN-011, ACL-GEN-012). Each test runs in
//! its own process and `VMMKIT_ROOT`.

// The `hcall!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;
mod hip_common;

use std::ffi::c_void;
use std::ptr::null_mut;

use common::{Peer, audit, isolated, next_command, reply};
use hip_common::{checksum, handle_from_hex, handle_hex, hip, pattern, read, write};
use vmmkit_sys::acl::*;
use vmmkit_sys::hip::*;

const SIZE: usize = 64 << 20;

/// A machine of four devices; this process sees physical device 3 only.
const HIP_ENV: &[(&str, &str)] =
    &[("VMMKIT_DEVICES", "4"), ("VMMKIT_DEVICE_MEMORY", "1G"), ("HIP_VISIBLE_DEVICES", "3")];
const ACL_ENV: &[(&str, &str)] =
    &[("VMMKIT_DEVICES", "4"), ("VMMKIT_DEVICE_MEMORY", "1G"), ("ASCEND_RT_VISIBLE_DEVICES", "3")];

/// The PCI address of device `d` of this process.
fn pci(api: &HipApi, d: i32) -> String {
    let mut bus = [0 as std::ffi::c_char; 32];
    hok!(api, hipDeviceGetPCIBusId(bus.as_mut_ptr(), 32, d));
    let bytes: Vec<u8> = bus.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    String::from_utf8(bytes).expect("ascii")
}

/// Bytes in use on device `d` of this process (`hipMemGetInfo`).
fn used(api: &HipApi, d: i32) -> usize {
    hok!(api, hipSetDevice(d));
    let (mut free, mut total) = (0usize, 0usize);
    hok!(api, hipMemGetInfo(&mut free, &mut total));
    total - free
}

fn acl_ok(what: &str, rc: aclError) {
    assert_eq!(AclError(rc), AclError::SUCCESS, "{what}: {}", vmmkit_emulator::core::thread::message());
}

/// A physical allocation's properties on device `d`.
fn acl_prop(d: u32) -> aclrtPhysicalMemProp {
    aclrtPhysicalMemProp {
        handleType: ACL_MEM_HANDLE_TYPE_NONE,
        allocationType: ACL_MEM_ALLOCATION_TYPE_PINNED,
        memAttr: ACL_HBM_MEM_HUGE,
        location: aclrtMemLocation { id: d, type_: ACL_MEM_LOCATION_TYPE_DEVICE },
        reserve: 0,
    }
}

/// The peers: this binary, run in a role by `Peer::start_with_env`.
#[test]
fn peer() {
    let Some(role) = common::peer_role() else { return };
    match role.as_str() {
        "hip_importer" => hip_importer(),
        "acl_importer" => acl_importer(),
        other => panic!("unknown role {other}"),
    }
}

fn hip_importer() {
    let api = hip();
    let mut opened: Option<*mut c_void> = None;
    while let Some(cmd) = next_command() {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match words.as_slice() {
            ["devices"] => {
                let mut n = 0;
                hok!(api, hipGetDeviceCount(&mut n));
                let buses: Vec<String> = (0..n).map(|d| pci(&api, d)).collect();
                reply(format!("{n} {}", buses.join(",")));
            }
            ["used", d] => reply(used(&api, d.parse().expect("device")).to_string()),
            ["open", hex, d] => {
                hok!(api, hipSetDevice(d.parse().expect("device")));
                let mut q = null_mut();
                hok!(api, hipIpcOpenMemHandle(&mut q, handle_from_hex(hex), hipIpcMemLazyEnablePeerAccess));
                let mut attr = hipPointerAttribute_t::default();
                hok!(api, hipPointerGetAttributes(&mut attr, q));
                opened = Some(q);
                reply(format!("{} {}", attr.device, checksum(&read(&api, q, SIZE))));
            }
            ["close"] => {
                hok!(api, hipIpcCloseMemHandle(opened.take().expect("opened")));
                reply("closed");
            }
            other => panic!("unknown command {other:?}"),
        }
    }
}

fn acl_importer() {
    let acl = vmmkit_emulator::acl::api();
    let mut held: Option<(*mut c_void, aclrtDrvMemHandle)> = None;
    while let Some(cmd) = next_command() {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match words.as_slice() {
            ["devices"] => {
                let mut n = 0u32;
                // SAFETY: a live local.
                acl_ok("aclrtGetDeviceCount", unsafe { (acl.aclrtGetDeviceCount)(&mut n) });
                reply(n.to_string());
            }
            ["user_of", logic] => {
                let mut user = -1;
                let f = acl.aclrtGetUserDevIdByLogicDevId.expect("the emulator has it");
                // SAFETY: a live local.
                let rc = unsafe { f(logic.parse().expect("id"), &mut user) };
                reply(if rc == 0 { user.to_string() } else { format!("err {rc}") });
            }
            ["import", key, d] => {
                let d: i32 = d.parse().expect("device");
                let key: u64 = key.parse().expect("key");
                // SAFETY: every pointer is a live local or what the runtime returned.
                unsafe {
                    acl_ok("aclrtSetDevice", (acl.aclrtSetDevice)(d));
                    let mut h: aclrtDrvMemHandle = null_mut();
                    acl_ok("import", (acl.aclrtMemImportFromShareableHandle)(key, d, &mut h));
                    let mut va: *mut c_void = null_mut();
                    acl_ok("reserve", (acl.aclrtReserveMemAddress)(&mut va, SIZE, 0, null_mut(), 0));
                    acl_ok("map", (acl.aclrtMapMem)(va, SIZE, 0, h, 0));
                    let mut data = vec![0u8; SIZE];
                    acl_ok(
                        "read",
                        (acl.aclrtMemcpy)(data.as_mut_ptr().cast(), SIZE, va, SIZE, ACL_MEMCPY_DEVICE_TO_HOST),
                    );
                    let mut p = aclrtPhysicalMemProp::default();
                    acl_ok("props", (acl.aclrtMemGetAllocationPropertiesFromHandle)(h, &mut p));
                    held = Some((va, h));
                    reply(format!("{} {}", p.location.id, checksum(&data)));
                }
            }
            ["release"] => {
                let (va, h) = held.take().expect("imported");
                // SAFETY: what the runtime returned.
                unsafe {
                    acl_ok("unmap", (acl.aclrtUnmapMem)(va));
                    acl_ok("release", (acl.aclrtReleaseMemAddress)(va));
                    acl_ok("free", (acl.aclrtFreePhysical)(h));
                }
                reply("released");
            }
            other => panic!("unknown command {other:?}"),
        }
    }
}

/// HIP-INIT-009: exported from the only device of a process that sees "3",
/// the buffer is on device 1 of a process that sees "2,3": opened there it
/// is device 1's, device 1's memory use holds it and device 0's does not,
/// and the root charges physical device 3.
#[test]
fn hip_buffer_lands_on_its_physical_device_under_other_lists() {
    isolated("hip_buffer_lands_on_its_physical_device_under_other_lists", HIP_ENV, |root| {
        let api = hip();
        let mut n = 0;
        hok!(api, hipGetDeviceCount(&mut n));
        assert_eq!(n, 1, "HIP_VISIBLE_DEVICES=3 leaves one device");
        let mine = pci(&api, 0);
        assert_eq!(mine, "0000:04:00.0", "device 0 here is physical device 3");
        hok!(api, hipSetDevice(0));
        let data = pattern(SIZE, 23);
        let mut p = null_mut();
        hok!(api, hipMalloc(&mut p, SIZE));
        write(&api, p, &data);
        let mut h = hipIpcMemHandle_t::default();
        hok!(api, hipIpcGetMemHandle(&mut h, p));
        assert!(audit::used(root)[3] >= SIZE as u64, "the root charges physical device 3: {:?}", audit::used(root));
        assert_eq!(audit::used(root)[..3], [0, 0, 0], "and no other");

        let mut other = Peer::start_with_env("hip_importer", &[("HIP_VISIBLE_DEVICES", "2,3")]);
        other.send("devices");
        assert_eq!(other.recv(), format!("2 0000:03:00.0,{mine}"), "the importer sees physical 2 and 3");
        other.send("used 1");
        assert!(other.recv().parse::<usize>().expect("bytes") >= SIZE, "its device 1 holds the buffer");
        other.send("used 0");
        assert_eq!(other.recv(), "0", "its device 0 does not");
        other.send(&format!("open {} 1", handle_hex(&h)));
        assert_eq!(other.recv(), format!("1 {}", checksum(&data)), "opened on its device 1, with the exporter's data");
        other.send("close");
        assert_eq!(other.recv(), "closed");
        other.finish();
        hok!(api, hipFree(p));
        assert_eq!(audit::used(root), [0, 0, 0, 0], "all given back");
    });
}

/// ACL-GEN-011 and 012: memory of the only device of a process that sees
/// "3" carries physical device 3 in its shareable handle; a process that
/// sees "2,3" finds that device as its user id 1, imports the memory there
/// and reads it, and the root charges physical device 3.
#[test]
fn acl_buffer_lands_on_its_physical_device_under_other_lists() {
    isolated("acl_buffer_lands_on_its_physical_device_under_other_lists", ACL_ENV, |root| {
        let acl = vmmkit_emulator::acl::api();
        let data = pattern(SIZE, 29);
        let mut n = 0u32;
        let (mut va, mut h, mut key) = (null_mut(), null_mut(), 0u64);
        // SAFETY: every pointer is a live local or what the runtime returned.
        unsafe {
            acl_ok("aclInit", (acl.aclInit)(std::ptr::null()));
            acl_ok("aclrtGetDeviceCount", (acl.aclrtGetDeviceCount)(&mut n));
            assert_eq!(n, 1);
            acl_ok("aclrtSetDevice", (acl.aclrtSetDevice)(0));
            acl_ok("malloc", (acl.aclrtMallocPhysical)(&mut h, SIZE, &acl_prop(0), 0));
            acl_ok("reserve", (acl.aclrtReserveMemAddress)(&mut va, SIZE, 0, null_mut(), 0));
            acl_ok("map", (acl.aclrtMapMem)(va, SIZE, 0, h, 0));
            acl_ok("write", (acl.aclrtMemcpy)(va, SIZE, data.as_ptr().cast(), SIZE, ACL_MEMCPY_HOST_TO_DEVICE));
            acl_ok("export", (acl.aclrtMemExportToShareableHandle)(h, ACL_MEM_HANDLE_TYPE_NONE, 1, &mut key));
        }
        assert_eq!((key >> 32) & 0xff, 3, "the handle names physical device 3");
        assert_eq!(audit::used(root), [0, 0, 0, SIZE as u64], "the root charges physical device 3");

        let mut other = Peer::start_with_env("acl_importer", &[("ASCEND_RT_VISIBLE_DEVICES", "2,3")]);
        other.send("devices");
        assert_eq!(other.recv(), "2");
        other.send("user_of 3");
        assert_eq!(other.recv(), "1", "physical device 3 is the importer's device 1");
        other.send("user_of 1");
        assert_eq!(other.recv(), format!("err {}", AclError::RT_INVALID_DEVICEID.0), "physical 1 is not in its list");
        other.send(&format!("import {key} 1"));
        assert_eq!(other.recv(), format!("1 {}", checksum(&data)), "imported onto its device 1, with the data");
        other.send("release");
        assert_eq!(other.recv(), "released");
        other.finish();
        // SAFETY: what the runtime returned.
        unsafe {
            acl_ok("unmap", (acl.aclrtUnmapMem)(va));
            acl_ok("release", (acl.aclrtReleaseMemAddress)(va));
            acl_ok("free", (acl.aclrtFreePhysical)(h));
        }
        assert_eq!(audit::used(root), [0, 0, 0, 0], "all given back");
    });
}
