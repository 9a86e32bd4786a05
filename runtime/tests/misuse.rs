//! Misuse of the runtime ends in vendor codes, never in a crash or a leak:
//! owners dropped in reverse order, double frees and use after free through
//! the raw table. Each case runs over the emulator's table and over the
//! drop-in `libascendcl.so`.
//!
//! The raw calls are `unsafe` because a real driver dereferences the handles
//! it is given (acl.md ACL-FP-004); the emulator and its drop-in validate
//! them against a table of live handles (acl.md §6, "FreePhysical of a stale
//! or unknown handle"), which is what these tests check.

mod common;

use common::{Which, pattern};
use rstest::rstest;
use vmmkit_runtime::Vendor;
use vmmkit_runtime::{Access, Backend, Device, Error, Location, MemInfo, Runtime, acl};
use vmmkit_sys::acl::AclError;

const G: usize = 2 << 20;

fn open(backend: Backend) -> (Runtime, Device, MemInfo) {
    let rt = Runtime::new(backend).expect("open the backend");
    let dev = rt.device(0).expect("device 0");
    let start = dev.mem_info().expect("mem info");
    (rt, dev, start)
}

/// Asserts the exact code and rule of a failure.
fn assert_fails(r: Result<(), Error>, code: AclError, rule: &str) {
    let e = r.expect_err("the call must fail");
    assert_eq!(e.code, code, "{e}");
    assert_eq!(e.rule_id(), Some(rule), "{e}");
    println!("as expected: {e}");
}

#[rstest]
#[case::emulator(Which::Emulator(Vendor::Acl))]
#[case::shim(Which::Shim(Vendor::Acl))]
fn owners_dropped_in_reverse_order(#[case] which: Which) {
    common::run(which, |backend| {
        let (rt, dev, start) = open(backend);
        // Device 0 stays open through another owner, so that no device reset
        // releases what the owners below might leave.
        let keep = rt.device(0).expect("device 0 again");
        let rsv = dev.reserve(G).expect("reserve");
        let mem = dev.alloc_physical(G).expect("alloc");
        let (base, raw) = (rsv.base(), raw_of(&mem));
        let map = rsv.map(0, &mem).expect("map");
        map.set_access(Location::Device(0), Access::ReadWrite).expect("access");
        let pat = pattern(G, 3);
        map.write(0, &pat).expect("write");

        // Memory first, then the reservation, then the device and the
        // runtime: the mapping still works, since it holds what it needs.
        drop(mem);
        drop(rsv);
        drop(dev);
        let mut back = vec![0u8; G];
        map.read(0, &mut back).expect("read after its owners went");
        assert!(back == pat);
        let rt2 = rt.clone();
        drop(rt);
        drop(map); // unmap, then free and release
        assert_eq!(rt2.take_drop_errors(), vec![]);

        // All of it is gone: the memory, the handle and the range.
        assert_eq!(keep.mem_info(), Ok(start));
        let api = rt2.acl_api().expect("ACL");
        // SAFETY: the emulator validates handles (module docs).
        assert_fails(unsafe { acl::free_physical(api, raw) }, AclError::RT_PARAM_INVALID, "ACL-FP-004");
        // SAFETY: as above, for reservations.
        assert_fails(unsafe { acl::release_mem_address(api, base) }, AclError::RT_PARAM_INVALID, "ACL-REL-002");
        common::assert_no_leaks(&rt2);
    });
}

#[rstest]
#[case::emulator(Which::Emulator(Vendor::Acl))]
#[case::shim(Which::Shim(Vendor::Acl))]
fn double_free_through_the_raw_table(#[case] which: Which) {
    common::run(which, |backend| {
        let (rt, dev, start) = open(backend);
        let api = rt.acl_api().expect("ACL");

        // The owner frees; a second free of the same value through the table.
        let mem = dev.alloc_physical(G).expect("alloc");
        let raw = raw_of(&mem);
        mem.free().expect("free");
        // SAFETY: the emulator validates handles (module docs).
        assert_fails(unsafe { acl::free_physical(api, raw) }, AclError::RT_PARAM_INVALID, "ACL-FP-004");

        // A free behind the owner's back: the owner's own free in `Drop`
        // meets the vendor code, which is kept, not panicked on.
        let mem = dev.alloc_physical(G).expect("alloc");
        // SAFETY: as above.
        unsafe { acl::free_physical(api, raw_of(&mem)) }.expect("the first free succeeds");
        drop(mem);
        let errs = rt.take_drop_errors();
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].call, "aclrtFreePhysical");
        assert_eq!(errs[0].code, AclError::RT_PARAM_INVALID);
        assert_eq!(errs[0].rule_id(), Some("ACL-FP-004"), "{}", errs[0]);

        // A mapped handle: one free is fine (ACL-FP-002), a second one is
        // refused while only the mapping holds it (ACL-FP-003).
        let rsv = dev.reserve(G).expect("reserve");
        let mem = dev.alloc_physical(G).expect("alloc");
        let map = rsv.map(0, &mem).expect("map");
        // SAFETY: as above.
        unsafe { acl::free_physical(api, raw_of(&mem)) }.expect("free while mapped");
        // SAFETY: as above.
        assert_fails(unsafe { acl::free_physical(api, raw_of(&mem)) }, AclError::RT_PARAM_INVALID, "ACL-FP-003");
        drop(map); // the last reference: the memory goes
        drop(mem); // its owner's free meets 107000
        drop(rsv);
        let errs = rt.take_drop_errors();
        assert_eq!(
            errs.iter().map(|e| (e.code, e.rule_id())).collect::<Vec<_>>(),
            [(AclError::RT_PARAM_INVALID.into(), Some("ACL-FP-004"))]
        );

        assert_eq!(dev.mem_info(), Ok(start), "device memory leaked");
        common::assert_no_leaks(&rt);
    });
}

#[rstest]
#[case::emulator(Which::Emulator(Vendor::Acl))]
#[case::shim(Which::Shim(Vendor::Acl))]
fn use_after_free_through_the_raw_table(#[case] which: Which) {
    common::run(which, |backend| {
        let (rt, dev, start) = open(backend);
        let api = rt.acl_api().expect("ACL");
        let mem = dev.alloc_physical(G).expect("alloc");
        let raw = raw_of(&mem);
        mem.free().expect("free");
        let rsv = dev.reserve(G).expect("reserve");

        // SAFETY: the emulator validates handles (module docs).
        assert_fails(unsafe { acl::map_mem(api, rsv.base(), G, 0, raw, 0) }, AclError::RT_PARAM_INVALID, "ACL-MAP-005");
        // SAFETY: as above.
        let export = unsafe { acl::mem_export_to_shareable_handle(api, raw, 0, 0) }.map(drop);
        assert_fails(export, AclError::RT_PARAM_INVALID, "ACL-EXP-006");

        // The reservation is untouched by the failed map: real memory maps there.
        let mem = dev.alloc_physical(G).expect("alloc");
        let map = rsv.map(0, &mem).expect("map after the failure");
        drop((map, mem, rsv));

        // A released range is not a reservation any more (ACL-REL-002), and
        // a map into it is outside any reservation (ACL-MAP-006).
        let rsv = dev.reserve(G).expect("reserve");
        let base = rsv.base();
        rsv.free().expect("release");
        // SAFETY: as above, for reservations.
        assert_fails(unsafe { acl::release_mem_address(api, base) }, AclError::RT_PARAM_INVALID, "ACL-REL-002");
        let mem = dev.alloc_physical(G).expect("alloc");
        // SAFETY: `mem` is live; the address is validated by the emulator.
        let r = unsafe { acl::map_mem(api, base, G, 0, raw_of(&mem), 0) };
        assert_fails(r, AclError::RT_DRV_INTERNAL_ERROR, "ACL-MAP-006");
        drop(mem);

        assert_eq!(dev.mem_info(), Ok(start), "device memory leaked");
        assert_eq!(rt.take_drop_errors(), vec![]);
        common::assert_no_leaks(&rt);
    });
}

#[rstest]
#[case::emulator(Which::Emulator(Vendor::Acl))]
#[case::shim(Which::Shim(Vendor::Acl))]
fn a_reservation_released_behind_its_mappings(#[case] which: Which) {
    common::run(which, |backend| {
        let (rt, dev, start) = open(backend);
        let api = rt.acl_api().expect("ACL");
        let rsv = dev.reserve(G).expect("reserve");
        let mem = dev.alloc_physical(G).expect("alloc");
        let map = rsv.map(0, &mem).expect("map");

        // The emulator's choice for an undetermined point (ACL-REL-004):
        // success, and the mappings inside are unmapped.
        // SAFETY: the emulator validates addresses (module docs); nothing
        // copies through the mapping after this.
        unsafe { acl::release_mem_address(api, rsv.base()) }.expect("release with a live mapping");

        // Each owner's own release now meets a vendor code, kept, not panicked on.
        drop(map);
        drop(mem);
        drop(rsv);
        let errs: Vec<_> =
            rt.take_drop_errors().iter().map(|e| (e.call, e.code, e.rule_id().map(str::to_owned))).collect();
        assert_eq!(
            errs,
            [
                ("aclrtUnmapMem", AclError::RT_DRV_INTERNAL_ERROR.into(), Some("ACL-UNMAP-002".to_owned())),
                ("aclrtReleaseMemAddress", AclError::RT_PARAM_INVALID.into(), Some("ACL-REL-002".to_owned())),
            ]
        );
        assert_eq!(dev.mem_info(), Ok(start), "device memory leaked");
        common::assert_no_leaks(&rt);
    });
}

/// The ACL handle of `mem`.
fn raw_of(mem: &vmmkit_runtime::PhysicalMemory) -> vmmkit_sys::acl::aclrtDrvMemHandle {
    mem.as_raw() as usize as vmmkit_sys::acl::aclrtDrvMemHandle
}
