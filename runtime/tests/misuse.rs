//! Misuse of the runtime ends in vendor codes, never in a crash or a leak:
//! owners dropped in reverse order, double frees and use after free through
//! the raw table, a reservation released behind its mappings, and calls a
//! vendor does not have. One body per case, run over every emulated dialect
//! and over the drop-in `libascendcl.so` and `libamdhip64.so`; the codes and
//! rules each vendor answers are in one table ([`Expect`]).
//!
//! The raw calls are `unsafe` because a real driver dereferences the handles
//! it is given (acl.md ACL-FP-004); the emulator and its drop-ins validate
//! them against a table of live handles, which is what these tests check.

mod common;

use common::{assert_fails, pattern};
use vmmkit_runtime::{Access, Backend, Code, Device, Error, IpcHandle, Location, Runtime, Sharing, Vendor};
use vmmkit_runtime::{acl, cuda, hip};
use vmmkit_sys::acl::AclError;
use vmmkit_sys::cuda::CuResult;
use vmmkit_sys::hip::HipError;

/// A code and the rule the emulator names for it (`None`: it names none).
type Fails = (Code, Option<&'static str>);

/// What each vendor answers to each misuse.
struct Expect {
    /// A free (release) of a handle that is gone.
    free_unknown: Fails,
    /// A second free of a mapped handle, while only the mapping holds it.
    free_mapped_again: Fails,
    /// A map of a handle that is gone.
    map_unknown: Fails,
    /// A release of a reservation that is gone.
    release_unknown: Fails,
    /// A map into a range that is not reserved.
    map_outside: Fails,
    /// A release of a reservation with a live mapping: `None` when it
    /// succeeds and unmaps (ACL's and HIP's choice), else its failure.
    release_mapped: Option<Fails>,
    /// An unmap of a mapping that a release took away.
    unmap_gone: Fails,
}

fn expect(vendor: Vendor) -> Expect {
    match vendor {
        Vendor::Acl => {
            let param = |r| (Code::Acl(AclError::RT_PARAM_INVALID), Some(r));
            let internal = |r| (Code::Acl(AclError::RT_DRV_INTERNAL_ERROR), Some(r));
            Expect {
                free_unknown: param("ACL-FP-004"),
                free_mapped_again: param("ACL-FP-003"),
                map_unknown: param("ACL-MAP-005"),
                release_unknown: param("ACL-REL-002"),
                map_outside: internal("ACL-MAP-006"),
                // ACL-REL-004 is undetermined: the emulator's choice.
                release_mapped: None,
                unmap_gone: internal("ACL-UNMAP-002"),
            }
        }
        Vendor::Hip => {
            let value = |r| (Code::Hip(HipError::INVALID_VALUE), Some(r));
            Expect {
                free_unknown: value("HIP-VMM-009"),
                free_mapped_again: value("HIP-VMM-009"),
                map_unknown: value("HIP-VMM-015"),
                release_unknown: value("HIP-VMM-013"),
                map_outside: value("HIP-VMM-015"),
                release_mapped: None,
                unmap_gone: value("HIP-VMM-019"),
            }
        }
        Vendor::Cuda => {
            let value = |r| (Code::Cuda(CuResult::INVALID_VALUE), r);
            Expect {
                free_unknown: value(Some("CUDA-VMM-005")),
                free_mapped_again: value(Some("CUDA-VMM-005")),
                map_unknown: value(Some("CUDA-VMM-008")),
                release_unknown: value(Some("CUDA-VMM-007")),
                map_outside: value(Some("CUDA-VMM-008")),
                // The emulator refuses it with a message that names no rule.
                release_mapped: Some(value(None)),
                unmap_gone: value(None),
            }
        }
    }
}

/// The raw calls the tests make behind the owners' backs, through the
/// vendor's `result` layer.
mod raw {
    use super::*;

    /// `aclrtFreePhysical`, `hipMemRelease`, `cuMemRelease`.
    pub fn free(rt: &Runtime, h: u64) -> Result<(), Error> {
        // SAFETY: the emulator validates handles (module docs).
        unsafe {
            match rt.vendor() {
                Vendor::Acl => acl::free_physical(rt.acl_api().expect("ACL"), h as usize as _),
                Vendor::Hip => hip::mem_release(rt.hip_api().expect("HIP"), h as usize as _),
                Vendor::Cuda => cuda::mem_release(rt.cuda_api().expect("CUDA"), h),
            }
        }
    }

    /// `aclrtReleaseMemAddress`, `hipMemAddressFree`, `cuMemAddressFree`.
    pub fn release(rt: &Runtime, va: u64, size: usize) -> Result<(), Error> {
        // SAFETY: the emulator validates addresses (module docs).
        unsafe {
            match rt.vendor() {
                Vendor::Acl => acl::release_mem_address(rt.acl_api().expect("ACL"), va as usize as _),
                Vendor::Hip => hip::mem_address_free(rt.hip_api().expect("HIP"), va as usize as _, size),
                Vendor::Cuda => cuda::mem_address_free(rt.cuda_api().expect("CUDA"), va, size),
            }
        }
    }

    /// `aclrtMapMem`, `hipMemMap`, `cuMemMap`.
    pub fn map(rt: &Runtime, va: u64, size: usize, h: u64) -> Result<(), Error> {
        // SAFETY: the emulator validates handles and addresses (module docs).
        unsafe {
            match rt.vendor() {
                Vendor::Acl => acl::map_mem(rt.acl_api().expect("ACL"), va as usize as _, size, 0, h as usize as _, 0),
                Vendor::Hip => hip::mem_map(rt.hip_api().expect("HIP"), va as usize as _, size, 0, h as usize as _, 0),
                Vendor::Cuda => cuda::mem_map(rt.cuda_api().expect("CUDA"), va, size, 0, h, 0),
            }
        }
    }
}

/// Asserts a failure against an [`Expect`] entry.
#[track_caller]
fn fails<T: std::fmt::Debug>(rt: &Runtime, r: Result<T, Error>, (code, rule): Fails) {
    match rule {
        Some(rule) => assert_fails(rt, r, code, rule),
        None => {
            let e = r.expect_err("the call must fail");
            assert_eq!(e.code, code, "{e}");
        }
    }
}

/// The runtime, device 0 (bound: raw calls need it current on CUDA) and
/// its granularity.
fn open(backend: Backend) -> (Runtime, Device, usize) {
    let rt = Runtime::new(backend).expect("open the backend");
    let dev = rt.device(0).expect("device 0");
    let g = dev.granularity(vmmkit_runtime::Granularity::Minimum).expect("granularity");
    dev.bind().expect("bind");
    (rt, dev, g)
}

/// Device memory as ACL counts it (the HIP and CUDA tables have no such call).
fn free_bytes(dev: &Device) -> Option<usize> {
    dev.mem_info().ok().map(|m| m.free)
}

per_backend!(owners_dropped_in_reverse_order => |which: Which| common::run(which, |backend| {
    let (rt, dev, g) = open(backend);
    let x = expect(rt.vendor());
    // Device 0 stays open through another owner, so that no device reset
    // releases what the owners below might leave.
    let keep = rt.device(0).expect("device 0 again");
    let start = free_bytes(&dev);
    let rsv = dev.reserve(g).expect("reserve");
    let mem = dev.alloc_physical(g).expect("alloc");
    let (base, raw) = (rsv.base() as u64, mem.as_raw());
    let map = rsv.map(0, &mem).expect("map");
    map.set_access(Location::Device(0), Access::ReadWrite).expect("access");
    let pat = pattern(g, 3);
    map.write(0, &pat).expect("write");

    // Memory first, then the reservation, then the device and the
    // runtime: the mapping still works, since it holds what it needs.
    drop(mem);
    drop(rsv);
    drop(dev);
    let mut back = vec![0u8; g];
    map.read(0, &mut back).expect("read after its owners went");
    assert!(back == pat);
    let rt2 = rt.clone();
    drop(rt);
    drop(map); // unmap, then free and release
    assert_eq!(rt2.take_drop_errors(), vec![]);

    // All of it is gone: the memory, the handle and the range.
    assert_eq!(free_bytes(&keep), start);
    keep.bind().expect("bind");
    fails(&rt2, raw::free(&rt2, raw), x.free_unknown);
    fails(&rt2, raw::release(&rt2, base, g), x.release_unknown);
    common::assert_no_leaks(&rt2);
}));

per_backend!(double_free_through_the_raw_table => |which: Which| common::run(which, |backend| {
    let (rt, dev, g) = open(backend);
    let x = expect(rt.vendor());
    let start = free_bytes(&dev);

    // The owner frees; a second free of the same value through the table.
    let mem = dev.alloc_physical(g).expect("alloc");
    let raw = mem.as_raw();
    mem.free().expect("free");
    fails(&rt, raw::free(&rt, raw), x.free_unknown);

    // A free behind the owner's back: the owner's own free in `Drop`
    // meets the vendor code, which is kept, not panicked on.
    let mem = dev.alloc_physical(g).expect("alloc");
    raw::free(&rt, mem.as_raw()).expect("the first free succeeds");
    drop(mem);
    let errs = rt.take_drop_errors();
    assert_eq!(errs.len(), 1, "{errs:?}");
    fails(&rt, Err::<(), _>(errs[0].clone()), x.free_unknown);

    // A mapped handle: one free is fine, a second one is refused while only
    // the mapping holds it.
    let rsv = dev.reserve(g).expect("reserve");
    let mem = dev.alloc_physical(g).expect("alloc");
    let map = rsv.map(0, &mem).expect("map");
    raw::free(&rt, mem.as_raw()).expect("free while mapped");
    fails(&rt, raw::free(&rt, mem.as_raw()), x.free_mapped_again);
    drop(map); // the last reference: the memory goes
    drop(mem); // its owner's free meets the vendor's code
    drop(rsv);
    let errs = rt.take_drop_errors();
    assert_eq!(errs.len(), 1, "{errs:?}");
    fails(&rt, Err::<(), _>(errs[0].clone()), x.free_unknown);

    assert_eq!(free_bytes(&dev), start, "device memory leaked");
    common::assert_no_leaks(&rt);
}));

per_backend!(use_after_free_through_the_raw_table => |which: Which| common::run(which, |backend| {
    let (rt, dev, g) = open(backend);
    let x = expect(rt.vendor());
    let start = free_bytes(&dev);
    let mem = dev.alloc_physical(g).expect("alloc");
    let raw = mem.as_raw();
    mem.free().expect("free");
    let rsv = dev.reserve(g).expect("reserve");
    fails(&rt, raw::map(&rt, rsv.base() as u64, g, raw), x.map_unknown);

    // The reservation is untouched by the failed map: real memory maps there.
    let mem = dev.alloc_physical(g).expect("alloc");
    let map = rsv.map(0, &mem).expect("map after the failure");
    drop((map, mem, rsv));

    // A released range is not a reservation any more, and a map into it is
    // outside any reservation.
    let rsv = dev.reserve(g).expect("reserve");
    let base = rsv.base() as u64;
    rsv.free().expect("release");
    fails(&rt, raw::release(&rt, base, g), x.release_unknown);
    let mem = dev.alloc_physical(g).expect("alloc");
    fails(&rt, raw::map(&rt, base, g, mem.as_raw()), x.map_outside);
    drop(mem);

    assert_eq!(free_bytes(&dev), start, "device memory leaked");
    assert_eq!(rt.take_drop_errors(), vec![]);
    common::assert_no_leaks(&rt);
}));

per_backend!(a_reservation_released_behind_its_mappings => |which: Which| common::run(which, |backend| {
    let (rt, dev, g) = open(backend);
    let x = expect(rt.vendor());
    let start = free_bytes(&dev);
    let rsv = dev.reserve(g).expect("reserve");
    let mem = dev.alloc_physical(g).expect("alloc");
    let map = rsv.map(0, &mem).expect("map");

    match x.release_mapped {
        Some(refused) => {
            // Refused: nothing changed, and the owners release in order.
            fails(&rt, raw::release(&rt, rsv.base() as u64, g), refused);
            drop((map, mem, rsv));
            assert_eq!(rt.take_drop_errors(), vec![]);
        }
        None => {
            // Success, and the mappings inside are unmapped: each owner's
            // own release now meets a vendor code, kept, not panicked on.
            raw::release(&rt, rsv.base() as u64, g).expect("release with a live mapping");
            drop(map);
            drop(mem);
            drop(rsv);
            let errs = rt.take_drop_errors();
            assert_eq!(errs.len(), 2, "{errs:?}");
            fails(&rt, Err::<(), _>(errs[0].clone()), x.unmap_gone);
            fails(&rt, Err::<(), _>(errs[1].clone()), x.release_unknown);
        }
    }
    assert_eq!(free_bytes(&dev), start, "device memory leaked");
    common::assert_no_leaks(&rt);
}));

per_backend!(what_a_vendor_lacks_is_a_typed_error => |which: Which| common::run(which, |backend| {
    let (rt, dev, g) = open(backend);
    let vendor = rt.vendor();
    let unsupported = |e: Error| {
        assert!(e.is_unsupported(), "{e}");
        assert_eq!(e.code, vendor.not_supported(), "{e}");
        assert_eq!(e.rule, None);
        println!("as expected: {e}");
    };
    let mem = dev.alloc_physical(g).expect("alloc");
    // The other vendors' sharing.
    for s in [Sharing::Trustlist, Sharing::AnyProcess, Sharing::PosixFd] {
        if !vendor.vmm_sharing().contains(&s) {
            unsupported(mem.export(s).expect_err("not this vendor's sharing"));
        }
    }
    let file = std::fs::File::open("/dev/null").expect("/dev/null");
    match vendor {
        Vendor::Acl => {
            unsupported(dev.import(std::os::fd::AsFd::as_fd(&file), g).expect_err("an fd on ACL"));
            unsupported(dev.malloc(g).expect_err("no legacy IPC buffers on ACL"));
            unsupported(dev.open_ipc(&IpcHandle([1; 64]), g).expect_err("no legacy IPC on ACL"));
            assert!(rt.acl_api().is_some() && rt.hip_api().is_none() && rt.cuda_api().is_none());
        }
        Vendor::Hip | Vendor::Cuda => {
            unsupported(dev.import(0x1_0000_0001u64, g).expect_err("a key on HIP or CUDA"));
            unsupported(dev.mem_info().expect_err("no memory-info call in the table"));
            let exp = mem.export(Sharing::PosixFd).expect("export");
            assert_eq!(exp.key(), None);
            unsupported(exp.set_pids(&[std::process::id() as i32]).expect_err("an fd has no trustlist"));
            assert_eq!(rt.soc_name(), None);
            assert!(rt.acl_api().is_none());
        }
    }
    drop(mem);
    assert_eq!(rt.take_drop_errors(), vec![]);
    common::assert_no_leaks(&rt);
}));
