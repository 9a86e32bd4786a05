//! One scenario, written once against the safe API, over the emulator's
//! in-process table and over the drop-in `libascendcl.so` loaded through
//! vmmkit-sys: reserve, allocate, map side by side, grant access, copy a
//! pattern, export, import on another device, write back, unmap, free,
//! release, and see the device's memory and the shareable handle come back.

mod common;

use common::{Which, pattern};
use rstest::rstest;
use vmmkit_runtime::{Access, Backend, Granularity, Location, MemInfo, Runtime, Sharing};
use vmmkit_sys::acl::AclError;

#[rstest]
#[case::emulator(Which::Emulator)]
#[case::shim(Which::Shim)]
fn reserve_map_copy_share_release(#[case] which: Which) {
    common::run(which, scenario);
}

fn scenario(backend: Backend) {
    let rt = Runtime::new(backend).expect("open the backend");
    println!("backend {}, library {:?}, soc {:?}", rt.backend(), rt.library(), rt.soc_name());
    assert_eq!(rt.device_count(), Ok(2));
    let d0 = rt.device(0).expect("device 0");
    let d1 = rt.device(1).expect("device 1");
    let start = (d0.mem_info().expect("mem info 0"), d1.mem_info().expect("mem info 1"));
    assert_eq!(start.0, MemInfo { free: 1 << 30, total: 1 << 30 });

    // ACL-GRAN-009: 2 MiB, MINIMUM and RECOMMENDED alike.
    let g = d0.granularity(Granularity::Minimum).expect("granularity");
    assert_eq!(g, 2 << 20);
    assert_eq!(d0.granularity(Granularity::Recommended), Ok(g));

    let rsv = d0.reserve(2 * g).expect("reserve");
    let base = rsv.base() as usize;
    assert!((0x1000_0000_0000..0x1800_0000_0000).contains(&base), "ACL-RSV-008: {base:#x}");
    assert_eq!(base % g, 0);
    let a = d0.alloc_physical(g).expect("alloc a");
    let b = d0.alloc_physical(g).expect("alloc b");
    assert_eq!(d0.mem_info().expect("mem info").free, start.0.free - 2 * g);

    // Two handles side by side in one reservation (ACL-MAP-011).
    let ma = rsv.map(0, &a).expect("map a");
    let mb = rsv.map(g, &b).expect("map b");
    assert_eq!(mb.addr() as usize, base + g);
    for m in [&ma, &mb] {
        m.set_access(Location::Device(0), Access::ReadWrite).expect("set access");
        assert_eq!(m.access(Location::Device(0)), Ok(Some(Access::ReadWrite)));
    }

    // Host → device → host, then device → device.
    let pat = pattern(g, 7);
    ma.write(0, &pat).expect("write the pattern");
    let mut back = vec![0u8; g];
    ma.read(0, &mut back).expect("read it back");
    assert!(back == pat, "the pattern came back different");
    ma.copy_to(0, &mb, 0, g).expect("device to device");
    back.fill(0);
    mb.read(0, &mut back).expect("read the copy");
    assert!(back == pat, "the device-to-device copy differs");

    // Export; the exporter imports onto another device (ACL-IMP-010).
    let exp = a.export(Sharing::Trustlist).expect("export");
    let key = exp.shareable();
    assert_eq!((key >> 32) & 0xff, 0, "acl.md §2.5: the exporting device is in bits 32-39");
    assert_eq!(key >> 40, 0);
    let again = a.export(Sharing::Trustlist).expect_err("a second export");
    assert_eq!(again.code, AclError::RT_DRV_INTERNAL_ERROR);
    assert_eq!(again.rule_id(), Some("ACL-EXP-008"), "{again}");
    let own = d0.import(key, g).expect_err("import onto the exporter's own device");
    assert_eq!(own.code, AclError::RT_DRV_INTERNAL_ERROR);
    assert_eq!(own.rule_id(), Some("ACL-IMP-009"), "{own}");

    let imp = d1.import(key, exp.size()).expect("import on device 1");
    let rsv1 = d1.reserve(g).expect("reserve on device 1");
    let m1 = rsv1.map(0, &imp).expect("map the import");
    m1.set_access(Location::Device(1), Access::ReadWrite).expect("set access on device 1");
    back.fill(0);
    m1.read(0, &mut back).expect("read through device 1");
    assert!(back == pat, "device 1 sees other bytes");
    let note = b"written through device 1";
    m1.write(4096, note).expect("write through device 1");
    let mut seen = [0u8; 24];
    ma.read(4096, &mut seen).expect("read on device 0");
    assert_eq!(&seen, note);

    // Another device's memory cannot go into a reservation bound to device 0 (ACL-MAP-010).
    let rsv_extra = d0.reserve(4 * g).expect("reserve");
    let _bound = rsv_extra.map(0, &b).expect("bind to device 0");
    let wrong = rsv_extra.map(2 * g, &imp).expect_err("device 1's memory");
    assert_eq!(wrong.code, AclError::RT_DRV_INTERNAL_ERROR);
    assert_eq!(wrong.rule_id(), Some("ACL-MAP-010"), "{wrong}");
    drop((_bound, rsv_extra));

    // Tear down with the codes, importer first, as sample 7's process B.
    m1.unmap().expect("unmap on device 1");
    imp.free().expect("free the import");
    rsv1.free().expect("release on device 1");
    mb.unmap().expect("unmap b");
    b.free().expect("free b");
    drop(exp);
    ma.unmap().expect("unmap a");
    a.free().expect("free a");
    rsv.free().expect("release");

    assert_eq!((d0.mem_info().expect("mem info 0"), d1.mem_info().expect("mem info 1")), start);
    // Every holder released: the shareable handle is gone (ACL-LIFE-003).
    let gone = d1.import(key, g).expect_err("import after the last release");
    assert_eq!(gone.code, AclError::RT_INVALID_HANDLE);
    assert_eq!(gone.rule_id(), Some("ACL-IMP-007"), "{gone}");
    assert_eq!(rt.take_drop_errors(), vec![]);
    // While the devices are open: their reset would release what is left.
    common::assert_no_leaks(&rt);
    println!("scenario passed over {}", rt.backend());
}

#[rstest]
#[case::emulator(Which::Emulator)]
#[case::shim(Which::Shim)]
fn owners_move_between_threads(#[case] which: Which) {
    common::run(which, |backend| {
        let rt = Runtime::new(backend).expect("open the backend");
        let dev = rt.device(0).expect("device 0");
        let g = dev.granularity(Granularity::Minimum).expect("granularity");
        let rsv = dev.reserve(g).expect("reserve");
        let mem = dev.alloc_physical(g).expect("alloc");
        let map = rsv.map(0, &mem).expect("map");
        let pat = pattern(g, 11);

        // A new thread has no current device; copies make the memory's device current.
        std::thread::scope(|s| {
            s.spawn(|| {
                let api = rt.api();
                let none = vmmkit_runtime::acl::get_device(api).expect_err("a new thread has no device");
                assert_eq!(none.code, AclError::RT_CONTEXT_NULL, "ACL-GEN-004: {none}");
                map.write(0, &pat).expect("write from another thread");
            });
        });
        let mut back = vec![0u8; g];
        map.read(0, &mut back).expect("read on this thread");
        assert!(back == pat);

        // Owners dropped on another thread than the one that made them. A
        // clone of the device stays here, so no device reset cleans up after them.
        let here = dev.clone();
        let start = here.mem_info().expect("mem info");
        std::thread::spawn(move || drop((map, mem, rsv, dev))).join().expect("the dropping thread");
        let after = here.mem_info().expect("mem info");
        assert_eq!(after.free, start.free + g);
        assert_eq!(rt.take_drop_errors(), vec![]);
        common::assert_no_leaks(&rt);
    });
}
