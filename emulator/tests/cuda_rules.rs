//! The rules of cuda.md §3 through the emulator's CUDA table, each with its
//! exact code and rule id, plus bad input that must come back as a code.
//! Each test runs in its own process with its own `VMMKIT_ROOT`.

// The `cucall!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;
mod cuda_common;
mod hip_common;

use std::ffi::{CStr, c_char, c_void};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::ptr::{null, null_mut};

use common::isolated;
use cuda_common::{G, access, create, cu, map_rw, message, prop, read, setup, write};
use hip_common::pattern;
use vmmkit_sys::cuda::*;

const ENV: &[(&str, &str)] = &[("VMMKIT_DEVICES", "2"), ("VMMKIT_DEVICE_MEMORY", "1G")];
const INVALID: CuResult = CuResult::INVALID_VALUE;

/// cuInit, the current context and the primary context's life (CUDA-GEN-001,
/// CUDA-GEN-002).
#[test]
fn init_and_contexts() {
    isolated("init_and_contexts", ENV, |_| {
        let api = cu();
        let mut p = 0;
        let mut n = 0;
        // Before cuInit: 3 for everything but the version and the error strings.
        cuexpect!(api, cuMemAlloc(&mut p, 4096), CuResult::NOT_INITIALIZED);
        cuexpect!(api, cuDeviceGetCount(&mut n), CuResult::NOT_INITIALIZED);
        cuok!(api, cuDriverGetVersion(&mut n));
        assert_eq!(n, 12060);
        cuexpect!(api, cuDriverGetVersion(null_mut()), INVALID);
        cuexpect!(api, cuInit(1), INVALID, "CUDA-GEN-001");
        cuexpect!(api, cuDeviceGetCount(&mut n), CuResult::NOT_INITIALIZED);
        cuok!(api, cuInit(0));
        cuok!(api, cuInit(0)); // again: fine
        cuok!(api, cuDeviceGetCount(&mut n));
        assert_eq!(n, 2);

        // CUDA-GEN-002: memory, VMM and IPC calls need a current context.
        let mut ctx: CUcontext = 0x1 as CUcontext;
        cuok!(api, cuCtxGetCurrent(&mut ctx));
        assert!(ctx.is_null(), "no context yet");
        cuexpect!(api, cuMemAlloc(&mut p, 4096), CuResult::INVALID_CONTEXT, "CUDA-GEN-002");
        let mut g = 0;
        cuexpect!(
            api,
            cuMemGetAllocationGranularity(&mut g, &prop(0, 0), CU_MEM_ALLOC_GRANULARITY_MINIMUM),
            CuResult::INVALID_CONTEXT,
            "CUDA-GEN-002"
        );
        let mut h = CUipcMemHandle::default();
        cuexpect!(api, cuIpcGetMemHandle(&mut h, 0), CuResult::INVALID_CONTEXT, "CUDA-GEN-002");
        // The context is checked before the arguments.
        cuexpect!(api, cuMemAlloc(null_mut(), 0), CuResult::INVALID_CONTEXT);

        // Retain does not make it current (cuda.md §1.3).
        cuok!(api, cuDevicePrimaryCtxRetain(&mut ctx, 1));
        cuexpect!(api, cuMemAlloc(&mut p, 4096), CuResult::INVALID_CONTEXT);
        cuok!(api, cuCtxSetCurrent(ctx));
        let mut got = null_mut();
        cuok!(api, cuCtxGetCurrent(&mut got));
        assert_eq!(got, ctx);
        cuok!(api, cuMemAlloc(&mut p, 4096));
        cuok!(api, cuMemsetD8(p, 1, 4096));

        // Per thread: another thread has no current context until it sets one.
        let api2 = api;
        let ctx_value = ctx as usize; // a context is a plain value across threads
        let (other, then) = std::thread::spawn(move || {
            let mut q = 0;
            let other = cucall!(api2, cuMemAlloc(&mut q, 4096));
            cuok!(api2, cuCtxSetCurrent(ctx_value as CUcontext));
            let then = cucall!(api2, cuMemsetD8(p, 2, 4096));
            cuok!(api2, cuCtxSetCurrent(null_mut()));
            (other, then)
        })
        .join()
        .expect("thread");
        assert_eq!((other, then), (CuResult::INVALID_CONTEXT, CuResult::SUCCESS));

        // Bad values.
        cuexpect!(api, cuCtxSetCurrent(0x1234 as CUcontext), CuResult::INVALID_CONTEXT);
        cuexpect!(api, cuCtxGetCurrent(null_mut()), INVALID);
        cuexpect!(api, cuDevicePrimaryCtxRetain(null_mut(), 0), INVALID);
        cuexpect!(api, cuDevicePrimaryCtxRetain(&mut got, 2), CuResult::INVALID_DEVICE);
        cuexpect!(api, cuDevicePrimaryCtxRelease(7), CuResult::INVALID_DEVICE);
        // "Releasing a primary context that has not been previously retained" → 201.
        cuexpect!(api, cuDevicePrimaryCtxRelease(0), CuResult::INVALID_CONTEXT);

        // The last release resets the context: its memory is gone, and it is no context until retained.
        cuok!(api, cuDevicePrimaryCtxRelease(1));
        cuexpect!(api, cuMemsetD8(p, 1, 4096), CuResult::INVALID_CONTEXT, "CUDA-GEN-002");
        cuok!(api, cuDevicePrimaryCtxRetain(&mut got, 1));
        assert_eq!(got, ctx, "the primary context keeps its value");
        cuexpect!(api, cuMemsetD8(p, 1, 4096), INVALID);
        let e = vmmkit_emulator::core::emulator().expect("emulator");
        assert_eq!(e.census(), (0, 0, 0), "the reset freed everything");
    });
}

/// Devices and their attributes (cuda.md §1.3 step 4).
#[test]
fn devices_and_attributes() {
    isolated("devices_and_attributes", ENV, |_| {
        let api = cu();
        cuok!(api, cuInit(0));
        let (mut d, mut v) = (-1, -1);
        cuok!(api, cuDeviceGet(&mut d, 1));
        assert_eq!(d, 1);
        cuexpect!(api, cuDeviceGet(&mut d, 2), CuResult::INVALID_DEVICE);
        cuexpect!(api, cuDeviceGet(&mut d, -1), CuResult::INVALID_DEVICE);
        cuexpect!(api, cuDeviceGet(null_mut(), 0), INVALID);
        for (attr, want) in [
            (CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 1),
            (CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 1),
            (CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, 0),
            (CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 1),
            (CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, 1),
            (CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, 0),
        ] {
            cuok!(api, cuDeviceGetAttribute(&mut v, attr, 0));
            assert_eq!(v, want, "attribute {attr}");
        }
        cuexpect!(api, cuDeviceGetAttribute(&mut v, 9999, 0), INVALID);
        cuexpect!(api, cuDeviceGetAttribute(&mut v, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, 5), CuResult::INVALID_DEVICE);
        cuexpect!(api, cuDeviceGetAttribute(null_mut(), CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, 0), INVALID);
    });
}

fn string_of(api: &CudaApi, code: u32, name: bool) -> (CuResult, Option<String>) {
    let mut s: *const c_char = std::ptr::dangling(); // must be overwritten
    let rc =
        if name { cucall!(api, cuGetErrorName(code, &mut s)) } else { cucall!(api, cuGetErrorString(code, &mut s)) };
    // SAFETY: a non-null result is a static NUL-terminated string.
    (rc, (!s.is_null()).then(|| unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()))
}

/// cuGetErrorName / cuGetErrorString (CUDA-GEN-003); they need no cuInit.
#[test]
fn error_names() {
    isolated("error_names", ENV, |_| {
        let api = cu();
        assert_eq!(string_of(&api, 1, true), (CuResult::SUCCESS, Some("CUDA_ERROR_INVALID_VALUE".into())));
        assert_eq!(string_of(&api, 201, true), (CuResult::SUCCESS, Some("CUDA_ERROR_INVALID_CONTEXT".into())));
        assert_eq!(string_of(&api, 0, true), (CuResult::SUCCESS, Some("CUDA_SUCCESS".into())));
        assert_eq!(string_of(&api, 2, false), (CuResult::SUCCESS, Some("out of memory".into())));
        assert_eq!(string_of(&api, 4242, true), (INVALID, None), "CUDA-GEN-003: unknown → 1 and NULL");
        assert!(message().starts_with("CUDA-GEN-003"), "{}", message());
        assert_eq!(string_of(&api, 4242, false), (INVALID, None));
        cuexpect!(api, cuGetErrorName(1, null_mut()), INVALID);
    });
}

/// cuMemAlloc memory, copies, fills, address ranges, free.
#[test]
fn alloc_copy_free() {
    isolated("alloc_copy_free", ENV, |_| {
        let api = cu();
        setup(&api, 0);
        let mut p = 0;
        cuexpect!(api, cuMemAlloc(&mut p, 0), INVALID);
        cuexpect!(api, cuMemAlloc(null_mut(), 64), INVALID);
        cuexpect!(api, cuMemAlloc(&mut p, 2 << 30), CuResult::OUT_OF_MEMORY);
        let size = 10_000;
        cuok!(api, cuMemAlloc(&mut p, size));
        let data = pattern(size, 1);
        write(&api, p, &data);
        assert_eq!(read(&api, p, size), data);
        let mut q = 0;
        cuok!(api, cuMemAlloc(&mut q, size));
        cuok!(api, cuMemcpyDtoD(q, p, size));
        assert_eq!(read(&api, q, size), data);
        cuok!(api, cuMemsetD8(q + 100, 0xab, 10));
        assert_eq!(read(&api, q + 100, 10), vec![0xab; 10]);
        // Past the size asked for (within the page-rounded backing): 1.
        cuexpect!(api, cuMemsetD8(p, 0, size + 1), INVALID);
        let mut out = vec![0u8; 16];
        cuexpect!(api, cuMemcpyDtoH(out.as_mut_ptr().cast(), p + size as u64 - 8, 16), INVALID);
        cuexpect!(api, cuMemcpyHtoD(p, null(), 16), INVALID);
        cuexpect!(api, cuMemcpyHtoD(0x10, out.as_ptr().cast(), 16), INVALID);
        cuok!(api, cuMemcpyHtoD(0x10, out.as_ptr().cast(), 0)); // 0 bytes: nothing to check
        // Address ranges: the size asked for, out-parameters optional, 500 elsewhere.
        let (mut base, mut len) = (0, 0);
        cuok!(api, cuMemGetAddressRange(&mut base, &mut len, p + 5000));
        assert_eq!((base, len), (p, size));
        cuok!(api, cuMemGetAddressRange(null_mut(), &mut len, p));
        cuok!(api, cuMemGetAddressRange(&mut base, null_mut(), p));
        cuexpect!(api, cuMemGetAddressRange(&mut base, &mut len, out.as_ptr() as u64), CuResult::NOT_FOUND);
        cuexpect!(api, cuMemGetAddressRange(&mut base, &mut len, p + size as u64), CuResult::NOT_FOUND);
        // Free takes the pointer cuMemAlloc returned.
        cuexpect!(api, cuMemFree(p + 8), INVALID);
        cuexpect!(api, cuMemFree(0), INVALID);
        cuok!(api, cuMemFree(p));
        cuexpect!(api, cuMemFree(p), INVALID);
        cuexpect!(api, cuMemsetD8(p, 0, 1), INVALID);
        cuok!(api, cuMemFree(q));
    });
}

/// CUDA-VMM-001 … 004: granularity and creation.
#[test]
fn granularity_and_create() {
    isolated("granularity_and_create", ENV, |_| {
        let api = cu();
        setup(&api, 0);
        let mut g = 0;
        for option in [CU_MEM_ALLOC_GRANULARITY_MINIMUM, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED] {
            cuok!(api, cuMemGetAllocationGranularity(&mut g, &prop(1, 1), option));
            assert_eq!(g, G, "CUDA-VMM-001: 2 MiB");
        }
        cuexpect!(api, cuMemGetAllocationGranularity(&mut g, &prop(0, 0), 2), INVALID);
        cuexpect!(api, cuMemGetAllocationGranularity(&mut g, null(), 0), INVALID);
        cuexpect!(api, cuMemGetAllocationGranularity(null_mut(), &prop(0, 0), 0), INVALID);
        let mut bad = prop(0, 0);
        bad.type_ = 0;
        cuexpect!(api, cuMemGetAllocationGranularity(&mut g, &bad, 0), INVALID);

        let mut h = 0;
        cuexpect!(api, cuMemCreate(&mut h, G, &prop(0, 0), 1), INVALID, "CUDA-VMM-003");
        cuexpect!(api, cuMemCreate(&mut h, G + 4096, &prop(0, 0), 0), INVALID, "CUDA-VMM-002");
        cuexpect!(api, cuMemCreate(&mut h, 0, &prop(0, 0), 0), INVALID, "CUDA-VMM-002");
        for host in [CU_MEM_LOCATION_TYPE_HOST, CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT] {
            let mut p = prop(0, 0);
            p.location.type_ = host;
            cuexpect!(api, cuMemCreate(&mut h, G, &p, 0), INVALID, "CUDA-VMM-004");
        }
        cuexpect!(
            api,
            cuMemCreate(&mut h, G, &prop(0, CU_MEM_HANDLE_TYPE_FABRIC), 0),
            CuResult::NOT_PERMITTED,
            "CUDA-VMM-004"
        );
        cuexpect!(api, cuMemCreate(&mut h, G, &prop(0, CU_MEM_HANDLE_TYPE_WIN32), 0), INVALID);
        cuexpect!(api, cuMemCreate(&mut h, G, &prop(2, 0), 0), CuResult::INVALID_DEVICE);
        cuexpect!(api, cuMemCreate(&mut h, G, &bad, 0), INVALID);
        cuexpect!(api, cuMemCreate(null_mut(), G, &prop(0, 0), 0), INVALID);
        cuexpect!(api, cuMemCreate(&mut h, 2 << 30, &prop(0, 0), 0), CuResult::OUT_OF_MEMORY);
        h = create(&api, 1, 2 * G, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
        let mut p = CUmemAllocationProp::default();
        cuok!(api, cuMemGetAllocationPropertiesFromHandle(&mut p, h));
        assert_eq!(p, prop(1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), "the creation properties");
        cuok!(api, cuMemRelease(h));
        // CUDA-VMM-005 (emulator): an unknown or released handle → 1.
        cuexpect!(api, cuMemRelease(h), INVALID, "CUDA-VMM-005");
        cuexpect!(api, cuMemRelease(0), INVALID);
        cuexpect!(api, cuMemGetAllocationPropertiesFromHandle(&mut p, h), INVALID);
    });
}

/// CUDA-VMM-006 … 011: reservations, maps, unmaps.
#[test]
fn reserve_map_unmap() {
    isolated("reserve_map_unmap", ENV, |_| {
        let api = cu();
        setup(&api, 0);
        let mut va = 0;
        cuexpect!(api, cuMemAddressReserve(&mut va, 4 * G, 0, 0, 1), INVALID, "CUDA-VMM-003");
        cuexpect!(api, cuMemAddressReserve(&mut va, 4 * G, 3 * G, 0, 0), INVALID, "CUDA-VMM-006");
        cuexpect!(api, cuMemAddressReserve(&mut va, 0, 0, 0, 0), INVALID);
        cuexpect!(api, cuMemAddressReserve(&mut va, 100, 0, 0, 0), INVALID);
        cuexpect!(api, cuMemAddressReserve(null_mut(), G, 0, 0, 0), INVALID);
        cuok!(api, cuMemAddressReserve(&mut va, 4 * G, 4 * G, 0, 0));
        assert_eq!(va % (4 * G) as u64, 0, "the alignment is honoured");
        // `addr` is a hint.
        let mut hinted = 0;
        let want = va + 64 * G as u64;
        cuok!(api, cuMemAddressReserve(&mut hinted, G, 0, want, 0));
        assert_eq!(hinted, want);
        cuexpect!(api, cuMemAddressFree(hinted, 2 * G), INVALID, "CUDA-VMM-007");
        cuexpect!(api, cuMemAddressFree(hinted + G as u64, G), INVALID, "CUDA-VMM-007");
        cuok!(api, cuMemAddressFree(hinted, G));

        let h = create(&api, 0, 2 * G, 0);
        cuexpect!(api, cuMemMap(va, 2 * G, G, h, 0), INVALID, "CUDA-VMM-008");
        cuexpect!(api, cuMemMap(va, 2 * G, 0, h, 1), INVALID, "CUDA-VMM-003");
        cuexpect!(api, cuMemMap(va, 0, 0, h, 0), INVALID, "CUDA-VMM-008");
        cuexpect!(api, cuMemMap(va + 4096, G, 0, h, 0), INVALID, "CUDA-VMM-008");
        cuexpect!(api, cuMemMap(va, G + 4096, 0, h, 0), INVALID, "CUDA-VMM-008");
        cuexpect!(api, cuMemMap(va, 4 * G, 0, h, 0), INVALID, "CUDA-VMM-008"); // more than the allocation
        cuexpect!(api, cuMemMap(va + 3 * G as u64, 2 * G, 0, h, 0), INVALID, "CUDA-VMM-008"); // past the reservation
        cuexpect!(api, cuMemMap(0x1000_0000, G, 0, h, 0), INVALID, "CUDA-VMM-008");
        cuexpect!(api, cuMemMap(va, G, 0, 0x6375_0000_0000_0999, 0), INVALID, "CUDA-VMM-008");
        // CUDA-VMM-009: a partial map.
        cuok!(api, cuMemMap(va, G, 0, h, 0));
        // CUDA-VMM-010: over a mapping.
        cuexpect!(api, cuMemMap(va, G, 0, h, 0), INVALID, "CUDA-VMM-010");
        // The same handle again, beside it (aliases), and another device's memory in the same reservation.
        cuok!(api, cuMemMap(va + G as u64, 2 * G, 0, h, 0));
        let other = create(&api, 1, G, 0);
        cuok!(api, cuMemMap(va + 3 * G as u64, G, 0, other, 0));
        cuok!(api, cuMemSetAccess(va, 4 * G, &access(0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE), 1));
        write(&api, va, b"alias");
        assert_eq!(read(&api, va + G as u64, 5), b"alias", "two maps of one handle alias");
        // CUDA-VMM-011: no sub-range, no partial mapping, whole mappings only.
        cuexpect!(api, cuMemUnmap(va, G / 2), INVALID, "CUDA-VMM-011");
        cuexpect!(api, cuMemUnmap(va + G as u64, G), INVALID, "CUDA-VMM-011");
        cuexpect!(api, cuMemUnmap(va + 4096, G), INVALID, "CUDA-VMM-011");
        // AddressFree while mapped (emulator, probe P5): refused.
        cuexpect!(api, cuMemAddressFree(va, 4 * G), INVALID);
        cuok!(api, cuMemUnmap(va + G as u64, 3 * G)); // two whole mappings at once
        cuok!(api, cuMemUnmap(va, G));
        cuexpect!(api, cuMemUnmap(va, G), INVALID, "CUDA-VMM-011");
        // CUDA-VMM-011: a re-map starts with no access.
        cuok!(api, cuMemMap(va, 2 * G, 0, h, 0));
        let mut out = [0u8; 5];
        cuexpect!(api, cuMemcpyDtoH(out.as_mut_ptr().cast(), va, 5), INVALID, "CUDA-VMM-012");
        cuok!(api, cuMemUnmap(va, 2 * G));
        cuok!(api, cuMemRelease(h));
        cuok!(api, cuMemRelease(other));
        cuok!(api, cuMemAddressFree(va, 4 * G));
        let e = vmmkit_emulator::core::emulator().expect("emulator");
        assert_eq!(e.census(), (0, 0, 0), "everything released");
    });
}

/// CUDA-VMM-012, 013: access through cuMemSetAccess, checked on copies.
#[test]
fn access_rules() {
    isolated("access_rules", ENV, |_| {
        let api = cu();
        setup(&api, 0);
        let h = create(&api, 0, 2 * G, 0);
        let mut va = 0;
        cuok!(api, cuMemAddressReserve(&mut va, 2 * G, 0, 0, 0));
        cuok!(api, cuMemMap(va, 2 * G, 0, h, 0));
        // CUDA-VMM-012: mapping grants no access, to the owner either.
        let mut flags = 9;
        let loc0 = CUmemLocation { type_: CU_MEM_LOCATION_TYPE_DEVICE, id: 0 };
        cuok!(api, cuMemGetAccess(&mut flags, &loc0, va));
        assert_eq!(flags, 0);
        let data = pattern(64, 2);
        cuexpect!(api, cuMemcpyHtoD(va, data.as_ptr().cast(), 64), INVALID, "CUDA-VMM-012");
        cuexpect!(api, cuMemsetD8(va, 1, 64), INVALID, "CUDA-VMM-012");
        // CUDA-VMM-013, in order: arguments, locations, flags, the range.
        let rw = access(0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
        cuexpect!(api, cuMemSetAccess(va, 2 * G, &rw, 0), INVALID, "CUDA-VMM-013");
        cuexpect!(api, cuMemSetAccess(va, 2 * G, null(), 1), INVALID, "CUDA-VMM-013");
        cuexpect!(api, cuMemSetAccess(va, 0, &rw, 1), INVALID, "CUDA-VMM-013");
        let host = CUmemAccessDesc {
            location: CUmemLocation { type_: CU_MEM_LOCATION_TYPE_HOST_NUMA, id: 0 },
            flags: CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        cuexpect!(api, cuMemSetAccess(va, 2 * G, &host, 1), CuResult::NOT_SUPPORTED, "CUDA-VMM-013");
        cuexpect!(api, cuMemSetAccess(va, 2 * G, &access(5, 3), 1), CuResult::INVALID_DEVICE);
        cuexpect!(api, cuMemSetAccess(va, 2 * G, &access(0, 2), 1), INVALID);
        cuexpect!(api, cuMemSetAccess(va, G, &rw, 1), INVALID, "CUDA-VMM-013"); // part of a mapping
        cuexpect!(api, cuMemSetAccess(va, 3 * G, &rw, 1), INVALID, "CUDA-VMM-013"); // past it
        // Read-only: reads work, writes do not.
        cuok!(api, cuMemSetAccess(va, 2 * G, &access(0, CU_MEM_ACCESS_FLAGS_PROT_READ), 1));
        cuexpect!(api, cuMemcpyHtoD(va, data.as_ptr().cast(), 64), INVALID, "CUDA-VMM-012");
        assert_eq!(read(&api, va, 4), vec![0; 4]);
        // A later grant replaces the earlier; device 1 keeps none, and the copy runs as the current device.
        let both = [rw, access(1, CU_MEM_ACCESS_FLAGS_PROT_NONE)];
        cuok!(api, cuMemSetAccess(va, 2 * G, both.as_ptr(), 2));
        cuok!(api, cuMemGetAccess(&mut flags, &loc0, va + 100));
        assert_eq!(flags, u64::from(CU_MEM_ACCESS_FLAGS_PROT_READWRITE));
        let loc1 = CUmemLocation { type_: CU_MEM_LOCATION_TYPE_DEVICE, id: 1 };
        cuok!(api, cuMemGetAccess(&mut flags, &loc1, va));
        assert_eq!(flags, 0);
        write(&api, va, &data);
        assert_eq!(read(&api, va, 64), data);
        cuexpect!(api, cuMemGetAccess(&mut flags, &loc1, va + 2 * G as u64), INVALID);
        cuexpect!(api, cuMemGetAccess(null_mut(), &loc1, va), INVALID);
        cuexpect!(api, cuMemGetAccess(&mut flags, &CUmemLocation { type_: 1, id: 9 }, va), CuResult::INVALID_DEVICE);
        // CUDA-VMM-019: retain anywhere inside; the same value; one more release.
        let mut r = 0;
        cuok!(api, cuMemRetainAllocationHandle(&mut r, (va + 12345) as *mut c_void));
        assert_eq!(r, h);
        cuexpect!(
            api,
            cuMemRetainAllocationHandle(&mut r, (va + 2 * G as u64) as *mut c_void),
            INVALID,
            "CUDA-VMM-019"
        );
        let mut plain = 0;
        cuok!(api, cuMemAlloc(&mut plain, 4096));
        cuexpect!(api, cuMemRetainAllocationHandle(&mut r, plain as *mut c_void), INVALID, "CUDA-VMM-019");
        cuexpect!(api, cuMemSetAccess(plain, 4096, &rw, 1), INVALID, "CUDA-VMM-013");
        cuexpect!(api, cuMemUnmap(plain, 4096), INVALID, "CUDA-VMM-011");
        cuexpect!(api, cuMemMap(plain, G, 0, h, 0), INVALID, "CUDA-VMM-008");
        cuexpect!(api, cuMemAddressFree(plain, 4096), INVALID, "CUDA-VMM-007");
        cuok!(api, cuMemFree(plain));
        // CUDA-VMM-005: release while mapped; two references (create, retain) then the mapping.
        cuok!(api, cuMemRelease(h));
        cuok!(api, cuMemRelease(h));
        assert_eq!(read(&api, va, 64), data, "the mapping keeps the memory");
        cuexpect!(api, cuMemRelease(h), INVALID, "CUDA-VMM-005");
        cuok!(api, cuMemUnmap(va, 2 * G));
        cuok!(api, cuMemAddressFree(va, 2 * G));
    });
}

/// CUDA-VMM-015 … 018 within one process: export and import of POSIX fds.
#[test]
fn export_import_one_process() {
    isolated("export_import_one_process", ENV, |root| {
        let api = cu();
        setup(&api, 0);
        let none = create(&api, 0, G, 0);
        let h = create(&api, 0, G, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
        let fdty = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        let mut fd = -1i32;
        let out: *mut c_void = (&raw mut fd).cast();
        cuexpect!(api, cuMemExportToShareableHandle(out, h, fdty, 1), INVALID, "CUDA-VMM-003");
        cuexpect!(api, cuMemExportToShareableHandle(out, none, fdty, 0), INVALID, "CUDA-VMM-015");
        cuexpect!(api, cuMemExportToShareableHandle(out, h, CU_MEM_HANDLE_TYPE_FABRIC, 0), INVALID, "CUDA-VMM-015");
        cuexpect!(api, cuMemExportToShareableHandle(null_mut(), h, fdty, 0), INVALID);
        cuexpect!(api, cuMemExportToShareableHandle(out, 0x6375_0000_0000_0999, fdty, 0), INVALID);
        cuok!(api, cuMemExportToShareableHandle(out, h, fdty, 0));
        // SAFETY: the export made this fd for us to own.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let va = map_rw(&api, h, G, 0);
        write(&api, va, b"shared");

        // CUDA-VMM-017/018: import by value, in the exporting process too; each import its own handle.
        let value = fd.as_raw_fd() as usize as *mut c_void;
        let (mut a, mut b) = (0, 0);
        cuok!(api, cuMemImportFromShareableHandle(&mut a, value, fdty));
        cuok!(api, cuMemImportFromShareableHandle(&mut b, value, fdty));
        assert_ne!(a, b, "each import is a handle of its own");
        drop(fd); // the caller keeps and closes the fd; the imports hold the memory
        let vb = map_rw(&api, b, G, 0);
        assert_eq!(read(&api, vb, 6), b"shared");
        cuok!(api, cuMemRelease(a));
        cuok!(api, cuMemRelease(b));
        cuok!(api, cuMemRelease(h));
        cuok!(api, cuMemRelease(none));
        assert_eq!(read(&api, vb, 6), b"shared", "the mappings hold the memory");

        // Bad fds: closed, not memory, negative, a pointer to an fd, wrong types.
        let mut x = 0;
        let (r, w) = rustix::pipe::pipe().expect("pipe");
        let closed = 1000usize as *mut c_void;
        cuexpect!(api, cuMemImportFromShareableHandle(&mut x, closed, fdty), INVALID);
        let pipe = r.as_raw_fd() as usize as *mut c_void;
        cuexpect!(api, cuMemImportFromShareableHandle(&mut x, pipe, fdty), INVALID);
        cuexpect!(api, cuMemImportFromShareableHandle(&mut x, usize::MAX as *mut c_void, fdty), INVALID);
        let mut raw = w.as_raw_fd();
        cuexpect!(api, cuMemImportFromShareableHandle(&mut x, (&raw mut raw).cast(), fdty), INVALID);
        cuexpect!(
            api,
            cuMemImportFromShareableHandle(&mut x, pipe, CU_MEM_HANDLE_TYPE_FABRIC),
            CuResult::NOT_PERMITTED
        );
        cuexpect!(api, cuMemImportFromShareableHandle(&mut x, pipe, CU_MEM_HANDLE_TYPE_WIN32), INVALID);
        cuexpect!(api, cuMemImportFromShareableHandle(null_mut(), pipe, fdty), INVALID);

        for v in [va, vb] {
            cuok!(api, cuMemUnmap(v, G));
            cuok!(api, cuMemAddressFree(v, G));
        }
        assert_eq!(hip_common::shared_left_after_gc(root), Vec::<String>::new(), "nothing left");
    });
}

/// CUDA-IPC-001 … 005, 009 within one process, and the handle's checks.
#[test]
fn ipc_one_process() {
    isolated("ipc_one_process", ENV, |_| {
        let api = cu();
        setup(&api, 0);
        let mut h = CUipcMemHandle::default();
        let mut p = 0;
        cuok!(api, cuMemAlloc(&mut p, 8192));
        cuexpect!(api, cuIpcGetMemHandle(null_mut(), p), INVALID);
        // CUDA-IPC-001: only cuMemAlloc memory.
        let v = create(&api, 0, G, 0);
        let va = map_rw(&api, v, G, 0);
        cuexpect!(api, cuIpcGetMemHandle(&mut h, va), INVALID, "CUDA-IPC-001");
        assert_eq!(h, CUipcMemHandle::default(), "a failure leaves the handle zeroed");
        cuexpect!(api, cuIpcGetMemHandle(&mut h, 0), INVALID, "CUDA-IPC-001");
        cuexpect!(api, cuIpcGetMemHandle(&mut h, p + 8192), INVALID, "CUDA-IPC-001");
        // CUDA-IPC-002 (emulator) an interior pointer; CUDA-IPC-003 repeatable.
        cuok!(api, cuIpcGetMemHandle(&mut h, p + 100));
        let mut again = CUipcMemHandle::default();
        cuok!(api, cuIpcGetMemHandle(&mut again, p + 100));
        assert_eq!(h, again);
        // CUDA-IPC-005, after the flags check (CUDA-IPC-004).
        let mut o = 0;
        cuexpect!(api, cuIpcOpenMemHandle(&mut o, h, 7), INVALID, "CUDA-IPC-004");
        cuexpect!(api, cuIpcOpenMemHandle(&mut o, h, 1), CuResult::INVALID_CONTEXT, "CUDA-IPC-005");
        cuexpect!(api, cuIpcOpenMemHandle(&mut o, h, 0), CuResult::INVALID_CONTEXT, "CUDA-IPC-005");
        cuexpect!(api, cuIpcOpenMemHandle(null_mut(), h, 1), INVALID);
        cuexpect!(api, cuIpcOpenMemHandle(&mut o, CUipcMemHandle::default(), 1), INVALID);
        let mut garbage = CUipcMemHandle::default();
        garbage.reserved.iter_mut().enumerate().for_each(|(i, c)| *c = i as c_char);
        cuexpect!(api, cuIpcOpenMemHandle(&mut o, garbage, 1), INVALID);
        // A handle of ours from another pid, altered: 400.
        let mut forged = h;
        forged.reserved[48] ^= 1; // the pid
        cuexpect!(api, cuIpcOpenMemHandle(&mut o, forged, 1), CuResult::INVALID_HANDLE);
        // A HIP handle is not a CUDA one.
        let mut hip_like = forged;
        hip_like.reserved[..8].copy_from_slice(&b"VMMKHIP1".map(|b| b as c_char));
        cuexpect!(api, cuIpcOpenMemHandle(&mut o, hip_like, 1), INVALID);
        // CUDA-IPC-009: closing what was never opened.
        cuexpect!(api, cuIpcCloseMemHandle(p), INVALID, "CUDA-IPC-009");
        cuexpect!(api, cuIpcCloseMemHandle(0), INVALID, "CUDA-IPC-009");
        // CUDA-IPC-003: freed, then allocated again at the same address: a different handle.
        cuok!(api, cuMemFree(p));
        let mut q = 0;
        cuok!(api, cuMemAlloc(&mut q, 8192));
        assert_eq!(q, p, "the same address comes back first-fit");
        cuok!(api, cuIpcGetMemHandle(&mut again, q + 100));
        assert_ne!(h, again, "CUDA-IPC-003");
        cuok!(api, cuMemFree(q));
        cuok!(api, cuMemUnmap(va, G));
        cuok!(api, cuMemAddressFree(va, G));
        cuok!(api, cuMemRelease(v));
    });
}

/// cuGetProcAddress_v2 hands out the table's entry points by base name.
#[test]
fn proc_address() {
    isolated("proc_address", ENV, |_| {
        let api = cu();
        let get = api.cuGetProcAddress.expect("the emulator has cuGetProcAddress");
        let mut pfn = null_mut();
        let mut status = -1;
        // SAFETY: valid pointers; the name is NUL-terminated.
        let rc = unsafe { get(c"cuInit".as_ptr(), &mut pfn, 12060, 0, &mut status) };
        assert_eq!((CuResult(rc), status), (CuResult::SUCCESS, 0));
        // SAFETY: the entry point cuInit, resolved by name, has cuInit's signature.
        let init: unsafe extern "C" fn(u32) -> CUresult = unsafe { std::mem::transmute(pfn) };
        // SAFETY: a value argument.
        assert_eq!(CuResult(unsafe { init(0) }), CuResult::SUCCESS);
        // SAFETY: as above.
        let rc = unsafe { get(c"cuNoSuchThing".as_ptr(), &mut pfn, 12060, 0, &mut status) };
        assert_eq!((CuResult(rc), status, pfn.is_null()), (CuResult::NOT_FOUND, 1, true));
        // SAFETY: a NULL symbol is refused before any read.
        let rc = unsafe { get(null(), &mut pfn, 12060, 0, null_mut()) };
        assert_eq!(CuResult(rc), INVALID);
    });
}

/// Fault injection reaches CUDA entry points by their table names, and
/// VMMKIT_FAULTS takes CUDA code names.
#[test]
fn faults_by_name() {
    isolated("faults_by_name", &[("VMMKIT_FAULTS", "cuMemAlloc#2=CUDA_ERROR_OUT_OF_MEMORY")], |_| {
        let api = cu();
        setup(&api, 0);
        let (mut a, mut b, mut c) = (0, 0, 0);
        cuok!(api, cuMemAlloc(&mut a, 4096));
        cuexpect!(api, cuMemAlloc(&mut b, 4096), CuResult::OUT_OF_MEMORY);
        cuok!(api, cuMemAlloc(&mut c, 4096));
        cuok!(api, cuMemFree(a));
        cuok!(api, cuMemFree(c));
    });
}

/// Bad input everywhere comes back as a code: wild addresses in and out of
/// the device window, foreign handle values, NULLs; the process survives and
/// later calls work.
#[test]
fn bad_input_is_a_code() {
    isolated("bad_input_is_a_code", ENV, |_| {
        let api = cu();
        setup(&api, 0);
        let wild: [u64; 5] = [0x1, 0x1000_0000_0000, 0x17ff_ffff_f000, 0xdead_beef_0000, u64::MAX - 7];
        let mut buf = [0u8; 8];
        for &w in &wild {
            cuexpect!(api, cuMemcpyDtoH(buf.as_mut_ptr().cast(), w, 8), INVALID);
            cuexpect!(api, cuMemcpyHtoD(w, buf.as_ptr().cast(), 8), INVALID);
            cuexpect!(api, cuMemcpyDtoD(w, w, 8), INVALID);
            cuexpect!(api, cuMemsetD8(w, 0, 8), INVALID);
            cuexpect!(api, cuMemFree(w), INVALID);
            cuexpect!(api, cuMemUnmap(w, G), INVALID);
            cuexpect!(api, cuMemAddressFree(w, G), INVALID);
            cuexpect!(api, cuIpcCloseMemHandle(w), INVALID);
            let mut r = 0;
            cuexpect!(api, cuMemRetainAllocationHandle(&mut r, w as *mut c_void), INVALID);
            cuexpect!(api, cuMemSetAccess(w, G, &access(0, 3), 1), INVALID);
        }
        for h in [0, 1, u64::MAX, 0x4849_0000_0000_0001, 0x6375_ffff_ffff_ffff] {
            cuexpect!(api, cuMemRelease(h), INVALID);
            let mut fd = 0i32;
            cuexpect!(api, cuMemExportToShareableHandle((&raw mut fd).cast(), h, 1, 0), INVALID);
            let mut p = CUmemAllocationProp::default();
            cuexpect!(api, cuMemGetAllocationPropertiesFromHandle(&mut p, h), INVALID);
        }
        cuexpect!(api, cuMemGetAllocationPropertiesFromHandle(null_mut(), 1), INVALID);
        cuexpect!(api, cuMemRetainAllocationHandle(null_mut(), null_mut()), INVALID);
        // Still working.
        let h = create(&api, 0, G, 0);
        let va = map_rw(&api, h, G, 0);
        write(&api, va, b"ok");
        assert_eq!(read(&api, va, 2), b"ok");
    });
}
