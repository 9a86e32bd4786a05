//! HIP VMM through the emulator's HIP table: the rules of hip.md §4.5 with
//! their exact codes (profile 6.x), in one process. (A POSIX-fd shareable
//! handle sent with `SCM_RIGHTS` to a second process and imported with both
//! `osHandle` conventions is `ipc_sharing.rs`'s, run on HIP and CUDA.) Each
//! test runs in its own process and `VMMKIT_ROOT`.

// The `hcall!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;
mod hip_common;

use std::ffi::c_void;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::ptr::null_mut;

use common::isolated;
use hip_common::{hip, pattern, prop, read, shared_left_after_gc, write};
use vmmkit_sys::hip::*;

const ENV: &[(&str, &str)] = &[("VMMKIT_DEVICES", "2"), ("VMMKIT_DEVICE_MEMORY", "1G")];

fn granularity(api: &HipApi) -> usize {
    let mut g = 0;
    hok!(
        api,
        hipMemGetAllocationGranularity(
            &mut g,
            &prop(0, hipMemHandleTypePosixFileDescriptor),
            hipMemAllocationGranularityMinimum
        )
    );
    g
}

/// Reserves `size` bytes and maps `h` there with ReadWrite for `device`.
fn map_new(api: &HipApi, h: hipMemGenericAllocationHandle_t, size: usize, device: i32) -> *mut c_void {
    let mut va = null_mut();
    hok!(api, hipMemAddressReserve(&mut va, size, 0, null_mut(), 0));
    hok!(api, hipMemMap(va, size, 0, h, 0));
    let desc = hipMemAccessDesc {
        location: hipMemLocation { type_: hipMemLocationTypeDevice, id: device },
        flags: hipMemAccessFlagsProtReadWrite,
    };
    hok!(api, hipMemSetAccess(va, size, &desc, 1));
    va
}

fn unmap_free(api: &HipApi, va: *mut c_void, size: usize) {
    hok!(api, hipMemUnmap(va, size));
    hok!(api, hipMemAddressFree(va, size));
}

/// The single-process VMM suite of hip.md §5 with the §4.5 codes: argument
/// checks, partial and aliased maps, access read-back, retain, properties,
/// importing one's own fd.
#[test]
fn vmm_rules() {
    isolated("vmm_rules", ENV, |root| {
        let api = hip();
        let g = granularity(&api);
        assert_eq!(g, 4096, "HIP-VMM-002");
        let none = prop(0, hipMemHandleTypeNone);
        let posix = prop(0, hipMemHandleTypePosixFileDescriptor);
        let mut out = 0usize;
        // HIP-VMM-001.
        hexpect!(api, hipMemGetAllocationGranularity(null_mut(), &none, 0), HipError::INVALID_VALUE, "HIP-VMM-001");
        hexpect!(
            api,
            hipMemGetAllocationGranularity(&mut out, std::ptr::null(), 0),
            HipError::INVALID_VALUE,
            "HIP-VMM-001"
        );
        let bad_type = hipMemAllocationProp { type_: hipMemAllocationTypeInvalid, ..none };
        hexpect!(api, hipMemGetAllocationGranularity(&mut out, &bad_type, 0), HipError::INVALID_VALUE, "HIP-VMM-001");
        hexpect!(api, hipMemGetAllocationGranularity(&mut out, &prop(2, 0), 0), HipError::INVALID_VALUE, "HIP-VMM-001");
        hexpect!(
            api,
            hipMemGetAllocationGranularity(&mut out, &prop(-1, 0), 0),
            HipError::INVALID_VALUE,
            "HIP-VMM-001"
        );
        hexpect!(api, hipMemGetAllocationGranularity(&mut out, &none, 2), HipError::INVALID_VALUE, "HIP-VMM-001");

        // HIP-VMM-003 … 006.
        let mut h = null_mut();
        hexpect!(api, hipMemCreate(null_mut(), g, &none, 0), HipError::INVALID_VALUE, "HIP-VMM-003");
        hexpect!(api, hipMemCreate(&mut h, 0, &none, 0), HipError::INVALID_VALUE, "HIP-VMM-003");
        hexpect!(api, hipMemCreate(&mut h, g, &none, 1), HipError::INVALID_VALUE, "HIP-VMM-003");
        hexpect!(api, hipMemCreate(&mut h, g, std::ptr::null(), 0), HipError::INVALID_VALUE, "HIP-VMM-003");
        let host_loc = hipMemAllocationProp { location: hipMemLocation { type_: 0, id: 0 }, ..none };
        hexpect!(api, hipMemCreate(&mut h, g, &host_loc, 0), HipError::INVALID_VALUE, "HIP-VMM-003");
        hexpect!(api, hipMemCreate(&mut h, g, &prop(7, 0), 0), HipError::INVALID_VALUE, "HIP-VMM-003");
        hexpect!(
            api,
            hipMemCreate(&mut h, g, &prop(0, hipMemHandleTypeWin32), 0),
            HipError::NOT_SUPPORTED,
            "HIP-VMM-004"
        );
        hexpect!(api, hipMemCreate(&mut h, usize::MAX, &none, 0), HipError::OUT_OF_MEMORY, "HIP-VMM-005");
        hexpect!(api, hipMemCreate(&mut h, 2 << 30, &none, 0), HipError::OUT_OF_MEMORY, "HIP-VMM-005");
        hexpect!(api, hipMemCreate(&mut h, g - 1, &none, 0), HipError::INVALID_VALUE, "HIP-VMM-006");
        hok!(api, hipMemCreate(&mut h, 2048, &none, 0));
        hok!(api, hipMemRelease(h));
        // HIP-VMM-007, 009.
        hexpect!(api, hipMemRelease(null_mut()), HipError::INVALID_VALUE, "HIP-VMM-007");
        hexpect!(api, hipMemRelease(h), HipError::INVALID_VALUE, "HIP-VMM-009");
        hexpect!(api, hipMemRelease(0x1234 as *mut c_void), HipError::INVALID_VALUE, "HIP-VMM-009");

        // HIP-VMM-010, 011 (6.x: 2), 012.
        let mut va = null_mut();
        hexpect!(api, hipMemAddressReserve(null_mut(), g, 0, null_mut(), 0), HipError::INVALID_VALUE, "HIP-VMM-010");
        hexpect!(api, hipMemAddressReserve(&mut va, g, 0, null_mut(), 1), HipError::INVALID_VALUE, "HIP-VMM-010");
        hexpect!(api, hipMemAddressReserve(&mut va, 0, 0, null_mut(), 0), HipError::OUT_OF_MEMORY, "HIP-VMM-011");
        hexpect!(api, hipMemAddressReserve(&mut va, g + 1, 0, null_mut(), 0), HipError::OUT_OF_MEMORY, "HIP-VMM-011");
        hexpect!(api, hipMemAddressReserve(&mut va, g, 3 * g, null_mut(), 0), HipError::OUT_OF_MEMORY, "HIP-VMM-011");
        hexpect!(
            api,
            hipMemAddressReserve(&mut va, usize::MAX - g + 1, 0, null_mut(), 0),
            HipError::OUT_OF_MEMORY,
            "HIP-VMM-012"
        );
        let align = 1 << 30;
        hok!(api, hipMemAddressReserve(&mut va, 8 * g, align, 0x1234 as *mut c_void, 0));
        assert_eq!(va as usize % g, 0, "HIP-VMM-012: alignment checked and dropped (page aligned), addr only a hint");

        // HIP-VMM-014 … 017.
        let mut a = null_mut();
        hok!(api, hipMemCreate(&mut a, 2 * g, &posix, 0));
        hexpect!(api, hipMemMap(null_mut(), g, 0, a, 0), HipError::INVALID_VALUE, "HIP-VMM-014");
        hexpect!(api, hipMemMap(va, g, 0, null_mut(), 0), HipError::INVALID_VALUE, "HIP-VMM-014");
        hexpect!(api, hipMemMap(va, 0, 0, a, 0), HipError::INVALID_VALUE, "HIP-VMM-014");
        hexpect!(api, hipMemMap(va, g, g, a, 0), HipError::INVALID_VALUE, "HIP-VMM-014");
        hexpect!(api, hipMemMap(va, g, 0, a, 1), HipError::INVALID_VALUE, "HIP-VMM-014");
        let mut local = 0u64;
        hexpect!(api, hipMemMap((&raw mut local).cast(), g, 0, a, 0), HipError::INVALID_VALUE, "HIP-VMM-015");
        hexpect!(api, hipMemMap(va, 4 * g, 0, a, 0), HipError::INVALID_VALUE, "HIP-VMM-015");
        // HIP-VMM-016: a partial map; HIP-VMM-017: the same handle aliased at a second VA.
        hok!(api, hipMemMap(va, g, 0, a, 0));
        hexpect!(api, hipMemMap(va, g, 0, a, 0), HipError::INVALID_VALUE, "HIP-VMM-015");
        let alias = va.cast::<u8>().wrapping_add(4 * g).cast::<c_void>();
        hok!(api, hipMemMap(alias, 2 * g, 0, a, 0));
        // HIP-VMM-008: release while mapped; the memory stays usable.
        hok!(api, hipMemRelease(a));
        let data = pattern(g, 9);
        write(&api, va, &data);
        assert_eq!(read(&api, alias, g), data, "HIP-VMM-017: aliases see the same bytes");

        // HIP-VMM-021, 022: access.
        let rw =
            hipMemAccessDesc { location: hipMemLocation { type_: 1, id: 0 }, flags: hipMemAccessFlagsProtReadWrite };
        hexpect!(api, hipMemSetAccess(null_mut(), g, &rw, 1), HipError::INVALID_VALUE, "HIP-VMM-021");
        hexpect!(api, hipMemSetAccess(va, 0, &rw, 1), HipError::INVALID_VALUE, "HIP-VMM-021");
        hexpect!(api, hipMemSetAccess(va, g, std::ptr::null(), 1), HipError::INVALID_VALUE, "HIP-VMM-021");
        hexpect!(api, hipMemSetAccess(va, g, &rw, 0), HipError::INVALID_VALUE, "HIP-VMM-021");
        let far = hipMemAccessDesc { location: hipMemLocation { type_: 1, id: 9 }, ..rw };
        hexpect!(api, hipMemSetAccess(va, g, &far, 1), HipError::INVALID_VALUE, "HIP-VMM-021");
        hexpect!(api, hipMemSetAccess(va, 2 * g, &rw, 1), HipError::INVALID_VALUE, "HIP-VMM-021");
        let mut flags = 0u64;
        let dev = |id| hipMemLocation { type_: hipMemLocationTypeDevice, id };
        hok!(api, hipMemGetAccess(&mut flags, &dev(0), va));
        assert_eq!(flags, 0, "HIP-VMM-022: never granted reads ProtNone");
        // HIP-VMM-021, 6.x: flags 2 is passed on and granted write-only (7.x: 1).
        let odd = hipMemAccessDesc { flags: 2, ..rw };
        hok!(api, hipMemSetAccess(va, g, &odd, 1));
        hok!(api, hipMemGetAccess(&mut flags, &dev(0), va));
        assert_eq!(flags, 2, "HIP-VMM-021: 6.x grants write-only");
        let none_access = hipMemAccessDesc { flags: hipMemAccessFlagsProtNone, ..rw };
        hok!(api, hipMemSetAccess(va, g, &none_access, 1));
        hok!(api, hipMemSetAccess(va, g, &rw, 1));
        hok!(api, hipMemGetAccess(&mut flags, &dev(0), va));
        assert_eq!(flags, 3);
        hok!(api, hipMemGetAccess(&mut flags, &dev(1), va));
        assert_eq!(flags, 0, "another device reads 0");
        let ro = hipMemAccessDesc { flags: hipMemAccessFlagsProtRead, ..rw };
        hok!(api, hipMemSetAccess(va, g, &ro, 1));
        hok!(api, hipMemGetAccess(&mut flags, &dev(0), va));
        assert_eq!(flags, 1, "access switches between ReadWrite and Read");
        hexpect!(api, hipMemGetAccess(null_mut(), &dev(0), va), HipError::INVALID_VALUE, "HIP-VMM-022");
        hexpect!(api, hipMemGetAccess(&mut flags, std::ptr::null(), va), HipError::INVALID_VALUE, "HIP-VMM-022");
        hexpect!(api, hipMemGetAccess(&mut flags, &dev(5), va), HipError::INVALID_VALUE, "HIP-VMM-022");
        let gap = va.cast::<u8>().wrapping_add(g).cast::<c_void>();
        hexpect!(api, hipMemGetAccess(&mut flags, &dev(0), gap), HipError::INVALID_VALUE, "HIP-VMM-022");

        // HIP-VMM-033: retain gives the mapped handle; 6.x takes no reference (7.x one).
        let mut r = null_mut();
        hok!(api, hipMemRetainAllocationHandle(&mut r, va.cast::<u8>().wrapping_add(100).cast()));
        hexpect!(api, hipMemRetainAllocationHandle(&mut r, gap), HipError::INVALID_VALUE, "HIP-VMM-033");
        let mut p = hipMemAllocationProp::default();
        hok!(api, hipMemGetAllocationPropertiesFromHandle(&mut p, r));
        assert_eq!((p.type_, p.requestedHandleType, p.location), (1, 1, dev(0)), "HIP-VMM-032");
        hexpect!(api, hipMemGetAllocationPropertiesFromHandle(null_mut(), r), HipError::INVALID_VALUE, "HIP-VMM-032");
        // HIP-VMM-024, 025, 028: export and import one's own fd.
        let mut fd = -1i32;
        hexpect!(
            api,
            hipMemExportToShareableHandle((&raw mut fd).cast(), r, 1, 1),
            HipError::INVALID_VALUE,
            "HIP-VMM-024"
        );
        hexpect!(
            api,
            hipMemExportToShareableHandle((&raw mut fd).cast(), null_mut(), 1, 0),
            HipError::INVALID_VALUE,
            "HIP-VMM-024"
        );
        hexpect!(api, hipMemExportToShareableHandle(null_mut(), r, 1, 0), HipError::INVALID_VALUE, "HIP-VMM-024");
        hexpect!(
            api,
            hipMemExportToShareableHandle((&raw mut fd).cast(), r, 0, 0),
            HipError::INVALID_VALUE,
            "HIP-VMM-024"
        );
        hok!(api, hipMemExportToShareableHandle((&raw mut fd).cast(), r, 1, 0));
        let mut own = null_mut();
        hok!(api, hipMemImportFromShareableHandle(&mut own, (&raw mut fd).cast(), 1));
        let va2 = map_new(&api, own, 2 * g, 0);
        assert_eq!(read(&api, va2, g), data, "HIP-VMM-028: one's own fd imports the same memory");
        unmap_free(&api, va2, 2 * g);
        hok!(api, hipMemRelease(own));
        // SAFETY: the export made this fd for us to own.
        drop(unsafe { OwnedFd::from_raw_fd(fd) });
        // HIP-VMM-033, 6.x: the retain took no reference, so there is none to release.
        // A handle created without a POSIX-fd type is not exportable.
        let mut plain = null_mut();
        hok!(api, hipMemCreate(&mut plain, g, &none, 0));
        hexpect!(
            api,
            hipMemExportToShareableHandle((&raw mut fd).cast(), plain, 1, 0),
            HipError::INVALID_VALUE,
            "HIP-VMM-024"
        );
        hok!(api, hipMemRelease(plain));

        // HIP-VMM-027: bad osHandles.
        let mut bad = null_mut();
        hexpect!(
            api,
            hipMemImportFromShareableHandle(null_mut(), 5 as *mut c_void, 1),
            HipError::INVALID_VALUE,
            "HIP-VMM-027"
        );
        hexpect!(api, hipMemImportFromShareableHandle(&mut bad, null_mut(), 1), HipError::INVALID_VALUE, "HIP-VMM-027");
        hexpect!(
            api,
            hipMemImportFromShareableHandle(&mut bad, 999_999 as *mut c_void, 1),
            HipError::INVALID_VALUE,
            "HIP-VMM-027"
        );
        let devnull = std::fs::File::open("/dev/null").expect("/dev/null");
        hexpect!(
            api,
            hipMemImportFromShareableHandle(&mut bad, devnull.as_raw_fd() as usize as *mut c_void, 1),
            HipError::INVALID_VALUE,
            "HIP-VMM-027"
        );
        let file = tempfile::tempfile().expect("a plain file");
        file.set_len(1 << 20).expect("size it");
        hexpect!(
            api,
            hipMemImportFromShareableHandle(&mut bad, file.as_raw_fd() as usize as *mut c_void, 1),
            HipError::INVALID_VALUE,
            "HIP-VMM-027"
        );
        // An int* into an unmapped reserved range: read without faulting, refused.
        let unmapped = va.cast::<u8>().wrapping_add(6 * g).cast::<c_void>();
        hexpect!(api, hipMemImportFromShareableHandle(&mut bad, unmapped, 1), HipError::INVALID_VALUE, "HIP-VMM-027");

        // HIP-VMM-018, 019: unmap whole mappings only.
        hexpect!(api, hipMemUnmap(null_mut(), g), HipError::INVALID_VALUE, "HIP-VMM-018");
        hexpect!(api, hipMemUnmap(va, 0), HipError::INVALID_VALUE, "HIP-VMM-018");
        // HIP-VMM-019, 6.x: an interior or partial unmap returns 0 and unmaps nothing (7.x: 1).
        hok!(api, hipMemUnmap(va.cast::<u8>().wrapping_add(g / 2).cast(), g));
        hok!(api, hipMemUnmap(alias, g));
        assert_eq!(read(&api, alias, g), data, "HIP-VMM-019: the partial unmap left the mapping");
        hok!(api, hipMemUnmap(va, g));
        hexpect!(api, hipMemUnmap(va, g), HipError::INVALID_VALUE, "HIP-VMM-019");
        // HIP-VMM-013: an interior address frees the whole reservation, with the mapping
        // left (the alias); an address in no reservation is 1 (6.x crashes there).
        hexpect!(api, hipMemAddressFree(null_mut(), g), HipError::INVALID_VALUE, "HIP-VMM-013");
        hexpect!(api, hipMemAddressFree(va, 0), HipError::INVALID_VALUE, "HIP-VMM-013");
        hok!(api, hipMemAddressFree(gap, g));
        hexpect!(api, hipMemAddressFree(va, 8 * g), HipError::INVALID_VALUE, "HIP-VMM-013");
        // hipMemMapArrayAsync: 1, then 801.
        hexpect!(api, hipMemMapArrayAsync(null_mut(), 1, null_mut()), HipError::INVALID_VALUE);
        hexpect!(api, hipMemMapArrayAsync(0x1000 as *mut hipArrayMapInfo, 1, null_mut()), HipError::NOT_SUPPORTED);
        let (handles, reservations, maps) = vmmkit_emulator::core::emulator().expect("emulator").census();
        assert_eq!((handles, reservations, maps), (0, 0, 0), "everything released");
        assert_eq!(shared_left_after_gc(root), Vec::<String>::new());
    });
}
