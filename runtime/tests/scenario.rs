//! One scenario, written once against the safe API, run over every emulated
//! dialect (ACL, HIP, CUDA) and over the drop-in `libascendcl.so` and
//! `libamdhip64.so` loaded through vmmkit-sys: reserve, allocate, map side
//! by side, grant access, copy a pattern, export (ACL: a key; HIP, CUDA: a
//! POSIX fd), import on another device, write back, unmap, free, release,
//! and see the device's memory come back. What one vendor alone promises is
//! checked for that vendor, by name.

mod common;

use common::{assert_fails, names_rules, pattern};
use vmmkit_runtime::{Access, Granularity, Location, MemInfo, Runtime, Shareable, Vendor};
use vmmkit_sys::acl::AclError;

per_backend!(reserve_map_copy_share_release => |which: Which| common::run(which, scenario));
per_backend!(owners_move_between_threads => |which: Which| common::run(which, threads));
per_backend!(linear_buffers_and_their_ipc_handles => |which: Which| common::run(which, buffers));
per_backend!(imports_whatever_context_the_thread_has => |which: Which| common::run(which, import_contexts));

fn scenario(backend: vmmkit_runtime::Backend) {
    let rt = Runtime::new(backend).expect("open the backend");
    let vendor = rt.vendor();
    println!("backend {}, vendor {vendor}, library {:?}, soc {:?}", rt.backend(), rt.library(), rt.soc_name());
    assert_eq!(rt.device_count(), Ok(2));
    let d0 = rt.device(0).expect("device 0");
    let d1 = rt.device(1).expect("device 1");
    // Device memory is counted on ACL (the HIP and CUDA tables have no memory-info call).
    let start =
        (vendor == Vendor::Acl).then(|| (d0.mem_info().expect("mem info 0"), d1.mem_info().expect("mem info 1")));
    if let Some(start) = start {
        assert_eq!(start.0, MemInfo { free: 1 << 30, total: 1 << 30 });
    } else {
        let e = d0.mem_info().expect_err("no memory-info call");
        assert!(e.is_unsupported(), "{e}");
        assert_eq!(e.code, vendor.not_supported());
    }

    // The granularity: ACL's is 2 MiB (ACL-GRAN-009); HIP and CUDA say theirs.
    let g = d0.granularity(Granularity::Minimum).expect("granularity");
    assert!(g.is_power_of_two() && g >= 4096, "{g:#x}");
    if vendor == Vendor::Acl {
        assert_eq!(g, 2 << 20);
        assert_eq!(d0.granularity(Granularity::Recommended), Ok(g));
    }
    let rec = d0.granularity(Granularity::Recommended).expect("recommended granularity");
    assert_eq!(rec % g, 0, "the recommended granularity is a multiple of the minimum");

    let rsv = d0.reserve(2 * g).expect("reserve");
    let base = rsv.base() as usize;
    if vendor == Vendor::Acl {
        assert!((0x1000_0000_0000..0x1800_0000_0000).contains(&base), "ACL-RSV-008: {base:#x}");
    }
    assert_eq!(base % g, 0);
    let a = d0.alloc_physical(g).expect("alloc a");
    let b = d0.alloc_physical(g).expect("alloc b");
    if let Some(start) = start {
        assert_eq!(d0.mem_info().expect("mem info").free, start.0.free - 2 * g);
    }

    // Two handles side by side in one reservation.
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

    // Export the vendor's way; the exporter imports onto another device.
    let sharing = vendor.vmm_sharing()[0];
    let exp = a.export(sharing).expect("export");
    match (vendor, exp.shareable()) {
        (Vendor::Acl, Shareable::Key(key)) => {
            assert_eq!(exp.key(), Some(key));
            assert!(exp.fd().is_none());
            assert_eq!((key >> 32) & 0xff, 0, "acl.md §2.5: the exporting device is in bits 32-39");
            assert_eq!(key >> 40, 0);
            let again = a.export(sharing).expect_err("a second export");
            assert_fails(&rt, Err::<(), _>(again), AclError::RT_DRV_INTERNAL_ERROR, "ACL-EXP-008");
            assert_fails(&rt, d0.import(key, g), AclError::RT_DRV_INTERNAL_ERROR, "ACL-IMP-009");
        }
        (Vendor::Hip | Vendor::Cuda, Shareable::Fd(_)) => {
            assert_eq!(exp.key(), None);
            let pids = exp.set_pids(&[1]).expect_err("an fd has no trustlist");
            assert!(pids.is_unsupported(), "{pids}");
            assert_eq!(pids.code, vendor.not_supported());
            // A key means nothing to HIP or CUDA: refused before any call.
            let key = d1.import(7u64, g).expect_err("a key on an fd vendor");
            assert!(key.is_unsupported(), "{key}");
        }
        (v, s) => panic!("{v} exported {s:?}"),
    }

    let imp = d1.import(exp.shareable(), exp.size()).expect("import on device 1");
    let rsv1 = d1.reserve(g).expect("reserve on device 1");
    let m1 = rsv1.map(0, &imp).expect("map the import");
    m1.set_access(Location::Device(1), Access::ReadWrite).expect("set access on device 1");
    back.fill(0);
    m1.read(0, &mut back).expect("read through device 1");
    assert!(back == pat, "device 1 sees other bytes");
    let note = b"written through device 1";
    m1.write(g / 2, note).expect("write through device 1");
    let mut seen = [0u8; 24];
    ma.read(g / 2, &mut seen).expect("read on device 0");
    assert_eq!(&seen, note);

    if vendor == Vendor::Acl {
        // Another device's memory cannot go into a reservation bound to device 0 (ACL-MAP-010).
        let rsv_extra = d0.reserve(4 * g).expect("reserve");
        let bound = rsv_extra.map(0, &b).expect("bind to device 0");
        assert_fails(&rt, rsv_extra.map(2 * g, &imp), AclError::RT_DRV_INTERNAL_ERROR, "ACL-MAP-010");
        drop((bound, rsv_extra));
    }
    // Mapping over a mapped range fails on every vendor.
    let over = rsv.map(0, &b).expect_err("that range is mapped already");
    match vendor {
        Vendor::Acl => assert_fails(&rt, Err::<(), _>(over.clone()), AclError::RT_DRV_INTERNAL_ERROR, "ACL-MAP-009"),
        Vendor::Hip | Vendor::Cuda => assert!(!over.is_unsupported(), "{over}"),
    }
    if names_rules(&rt) {
        assert!(over.rule_id().is_some(), "the emulator names the rule: {over}");
    }

    // Tear down with the codes, importer first, as the vendors' samples do.
    m1.unmap().expect("unmap on device 1");
    imp.free().expect("free the import");
    rsv1.free().expect("release on device 1");
    mb.unmap().expect("unmap b");
    b.free().expect("free b");
    let key = exp.key();
    drop(exp);
    ma.unmap().expect("unmap a");
    a.free().expect("free a");
    rsv.free().expect("release");

    if let Some(start) = start {
        assert_eq!((d0.mem_info().expect("mem info 0"), d1.mem_info().expect("mem info 1")), start);
    }
    if let Some(key) = key {
        // Every holder released: the key is gone (ACL-LIFE-003).
        assert_fails(&rt, d1.import(key, g), AclError::RT_INVALID_HANDLE, "ACL-IMP-007");
    }
    assert_eq!(rt.take_drop_errors(), vec![]);
    // While the devices are open: a reset would release what is left.
    common::assert_no_leaks(&rt);
    println!("scenario passed over {}", rt.backend());
}

fn threads(backend: vmmkit_runtime::Backend) {
    let rt = Runtime::new(backend).expect("open the backend");
    let dev = rt.device(0).expect("device 0");
    let g = dev.granularity(Granularity::Minimum).expect("granularity");
    let rsv = dev.reserve(g).expect("reserve");
    let mem = dev.alloc_physical(g).expect("alloc");
    let map = rsv.map(0, &mem).expect("map");
    map.set_access(Location::Device(0), Access::ReadWrite).expect("access");
    let pat = pattern(g, 11);

    // A new thread has no current device; copies make the memory's device current.
    std::thread::scope(|s| {
        s.spawn(|| {
            if let Some(api) = rt.acl_api() {
                let none = vmmkit_runtime::acl::get_device(api).expect_err("a new thread has no device");
                assert_eq!(none.code, AclError::RT_CONTEXT_NULL, "ACL-GEN-004: {none}");
            }
            map.write(0, &pat).expect("write from another thread");
        });
    });
    let mut back = vec![0u8; g];
    map.read(0, &mut back).expect("read on this thread");
    assert!(back == pat);

    // Owners dropped on another thread than the one that made them. A
    // clone of the device stays here, so no device reset cleans up after them.
    let here = dev.clone();
    let start = (rt.vendor() == Vendor::Acl).then(|| here.mem_info().expect("mem info"));
    std::thread::spawn(move || drop((map, mem, rsv, dev))).join().expect("the dropping thread");
    if let Some(start) = start {
        assert_eq!(here.mem_info().expect("mem info").free, start.free + g);
    }
    assert_eq!(rt.take_drop_errors(), vec![]);
    common::assert_no_leaks(&rt);
}

/// IPC-only: linear memory and its legacy handle (HIP and CUDA; ACL's
/// not-supported answer is in misuse.rs). The handle opens in another
/// process (examples.rs, `legacy_ipc`), not in its own.
fn buffers(backend: vmmkit_runtime::Backend) {
    let rt = Runtime::new(backend).expect("open the backend");
    let vendor = rt.vendor();
    let dev = rt.device(0).expect("device 0");
    let size = 1 << 20;
    let buf = match dev.malloc(size) {
        Err(e) if vendor == Vendor::Acl && e.is_unsupported() => return,
        r => r.expect("malloc"),
    };
    assert_eq!(buf.size(), size);
    let pat = pattern(size, 5);
    buf.write(0, &pat).expect("write");
    let mut back = vec![0u8; size];
    buf.read(0, &mut back).expect("read");
    assert!(back == pat);
    let handle = buf.ipc_handle().expect("IPC handle");
    assert_ne!(handle.0, [0; 64]);
    assert_eq!(buf.ipc_handle(), Ok(handle), "the same buffer gives the same handle");

    // A process cannot open its own handle: HIP-IPC-024, CUDA-IPC-005.
    let (own, rule) = match vendor {
        Vendor::Hip => (vmmkit_runtime::Code::Hip(vmmkit_sys::hip::HipError::INVALID_CONTEXT), "HIP-IPC-024"),
        _ => (vmmkit_runtime::Code::Cuda(vmmkit_sys::cuda::CuResult::INVALID_CONTEXT), "CUDA-IPC-005"),
    };
    assert_fails(&rt, dev.open_ipc(&handle, size), own, rule);
    let zero = dev.open_ipc(&vmmkit_runtime::IpcHandle([0; 64]), size).expect_err("an all-zero handle");
    assert!(!zero.is_unsupported(), "{zero}");

    buf.free().expect("free");
    assert_eq!(rt.take_drop_errors(), vec![]);
    common::assert_no_leaks(&rt);
}

/// Repeated imports on a thread whose context the program changes behind
/// the runtime's back: every import still lands on its device. (On ACL the
/// runtime binds only when it has not bound that device's context on the
/// thread itself, and binds and retries when the import finds none,
/// ACL-IMP-008; HIP and CUDA import onto the current device, and bind each
/// time; CUDA's release takes any context, and binds only when the
/// thread has none.)
fn import_contexts(backend: vmmkit_runtime::Backend) {
    let rt = Runtime::new(backend).expect("open the backend");
    let (d0, d1) = (rt.device(0).expect("device 0"), rt.device(1).expect("device 1"));
    let g = d0.granularity(Granularity::Minimum).expect("granularity");
    let mem = d0.alloc_physical(g).expect("alloc");
    let rsv0 = d0.reserve(g).expect("reserve on device 0");
    let m0 = rsv0.map(0, &mem).expect("map on device 0");
    m0.set_access(Location::Device(0), Access::ReadWrite).expect("access");
    let pat = pattern(g, 3);
    m0.write(0, &pat).expect("write");
    let exp = mem.export(rt.vendor().vmm_sharing()[0]).expect("export");
    let rsv1 = d1.reserve(g).expect("reserve on device 1");
    // Imported onto device 1: it maps in device 1's reservation (ACL: only
    // there, ACL-MAP-010) and shows the pattern.
    let on_d1 = |why: &str| {
        let imp = d1.import(exp.shareable(), g).unwrap_or_else(|e| panic!("import ({why}): {e}"));
        let m = rsv1.map(0, &imp).unwrap_or_else(|e| panic!("map the import ({why}): {e}"));
        m.set_access(Location::Device(1), Access::ReadWrite).expect("access on device 1");
        let mut back = vec![0u8; g];
        m.read(0, &mut back).expect("read through device 1");
        assert!(back == pat, "{why}: other bytes");
        drop(m);
        imp.free().expect("free the import");
    };
    let first = d1.import(exp.shareable(), g).expect("the first import");
    std::thread::scope(|s| {
        s.spawn(|| {
            on_d1("a new thread, no context");
            on_d1("again");
            // Another device's context current: the import still goes to device 1.
            d0.bind().expect("bind device 0");
            on_d1("device 0 current");
            if let Some(api) = rt.acl_api() {
                // No context at all: a context made and destroyed leaves none.
                let mut c = std::ptr::null_mut();
                // SAFETY: `c` is a writable context slot; the context is destroyed once, here.
                unsafe {
                    assert_eq!(AclError((api.aclrtCreateContext)(&mut c, 1)), AclError::SUCCESS);
                    let destroy = api.aclrtDestroyContext.expect("aclrtDestroyContext");
                    assert_eq!(AclError(destroy(c)), AclError::SUCCESS);
                }
                let none = vmmkit_runtime::acl::get_current_context(api).expect_err("no context");
                assert_eq!(none.code, AclError::RT_CONTEXT_NULL);
                on_d1("no context after the runtime's bind");
                assert_eq!(vmmkit_runtime::acl::get_device(api), Ok(1), "the runtime bound device 1");
            }
            if let Some(api) = rt.cuda_api() {
                // A release needs some current context (CUDA-GEN-002): with
                // none left, the runtime binds one and releases.
                let imp = d1.import(exp.shareable(), g).expect("import");
                // SAFETY: NULL unbinds the thread's context.
                unsafe { vmmkit_runtime::cuda::ctx_set_current(api, std::ptr::null_mut()) }.expect("unbind");
                imp.free().expect("a release on a thread without a context");
            }
        });
    });
    first.free().expect("free the first import");
    drop((exp, m0, rsv0, rsv1, mem));
    assert_eq!(rt.take_drop_errors(), vec![]);
    common::assert_no_leaks(&rt);
}
