//! Bad input through the emulator's HIP table (NULL, garbage handles, freed
//! pointers, SIZE_MAX): exact codes and no crash; the per-thread last error
//! of hip.md §2.1 (profile 6.x); devices, properties, copies and pointer
//! queries. Each test runs in its own process and `VMMKIT_ROOT`.

// The `hcall!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;
mod hip_common;

use std::ffi::{CStr, c_void};
use std::ptr::{null, null_mut};

use common::isolated;
use hip_common::{hip, pattern, read, write};
use vmmkit_sys::hip::*;

const ENV: &[(&str, &str)] = &[("VMMKIT_DEVICES", "2"), ("VMMKIT_DEVICE_MEMORY", "1G")];

fn text(p: *const std::ffi::c_char) -> String {
    // SAFETY: the HIP string functions return static NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// HIP-INIT-003, profile 6.x: every call stores its code (success too);
/// hipGetLastError resets, hipPeekAtLastError does not; the name and string
/// functions leave it alone; each thread has its own.
#[test]
fn last_error_is_per_thread_and_follows_6x() {
    isolated("last_error_is_per_thread_and_follows_6x", ENV, |_| {
        let api = hip();
        hexpect!(api, hipSetDevice(5), HipError::INVALID_DEVICE);
        assert_eq!(hcall!(api, hipPeekAtLastError()), HipError::INVALID_DEVICE);
        // SAFETY: no arguments; the name functions take any value.
        unsafe {
            text((api.hipGetErrorName)(1));
            text((api.hipGetErrorString)(1));
        }
        assert_eq!(hcall!(api, hipPeekAtLastError()), HipError::INVALID_DEVICE, "names leave it alone");
        // Another thread has its own.
        std::thread::scope(|s| {
            s.spawn(|| {
                let api = hip();
                assert_eq!(hcall!(api, hipGetLastError()), HipError::SUCCESS, "a fresh thread reads 0");
                hexpect!(api, hipMalloc(null_mut(), 8), HipError::INVALID_VALUE);
            });
        });
        assert_eq!(hcall!(api, hipGetLastError()), HipError::INVALID_DEVICE, "and reset");
        assert_eq!(hcall!(api, hipGetLastError()), HipError::SUCCESS);
        // 6.x: a failure followed by a success reads 0.
        hexpect!(api, hipSetDevice(-1), HipError::INVALID_DEVICE);
        hok!(api, hipSetDevice(1));
        assert_eq!(hcall!(api, hipGetLastError()), HipError::SUCCESS);
        let ext = api.hipExtGetLastError.expect("hipExtGetLastError is emulated");
        hexpect!(api, hipInit(1), HipError::INVALID_VALUE);
        // SAFETY: no arguments.
        assert_eq!(HipError(unsafe { ext() }), HipError::INVALID_VALUE);
        assert_eq!(hcall!(api, hipPeekAtLastError()), HipError::SUCCESS, "the Ext form resets too");
    });
}

/// hipGetErrorName / hipGetErrorString (hip.md §2.1).
#[test]
fn error_names_and_strings() {
    let api = hip();
    // SAFETY: the functions take any value and return static strings.
    let (name, string) = unsafe { (|c| text((api.hipGetErrorName)(c)), |c| text((api.hipGetErrorString)(c))) };
    assert_eq!(name(0), "hipSuccess");
    assert_eq!(name(1), "hipErrorInvalidValue");
    assert_eq!(name(201), "hipErrorInvalidContext");
    assert_eq!(name(4242), "hipErrorUnknown");
    assert_eq!(string(1), "invalid argument");
    assert_eq!(string(100), "no ROCm-capable device is detected");
    assert_eq!(string(201), "invalid device context");
    assert_eq!(string(801), "operation not supported");
    assert_eq!(string(-7), "unknown error");
}

/// Devices, attributes, properties, versions, peers (hip.md §2.1).
#[test]
fn devices_and_peers() {
    isolated("devices_and_peers", ENV, |_| {
        let api = hip();
        let mut n = -1;
        hok!(api, hipGetDeviceCount(&mut n));
        assert_eq!(n, 2);
        hexpect!(api, hipGetDeviceCount(null_mut()), HipError::INVALID_VALUE);
        hexpect!(api, hipInit(0), HipError::SUCCESS);
        hexpect!(api, hipSetDevice(2), HipError::INVALID_DEVICE);
        let mut d = -1;
        hok!(api, hipGetDevice(&mut d));
        assert_eq!(d, 0, "device 0 by default");
        hexpect!(api, hipGetDevice(null_mut()), HipError::INVALID_VALUE);
        hok!(api, hipDeviceGet(&mut d, 1));
        assert_eq!(d, 1);
        hexpect!(api, hipDeviceGet(&mut d, 2), HipError::INVALID_DEVICE);
        hexpect!(api, hipDeviceGet(null_mut(), 0), HipError::INVALID_VALUE);
        let mut v = -1;
        hok!(api, hipDeviceGetAttribute(&mut v, hipDeviceAttributeVirtualMemoryManagementSupported, 0));
        assert_eq!(v, 1, "profile 6.x: VMM supported");
        hok!(api, hipDeviceGetAttribute(&mut v, 87, 1));
        assert_eq!(v, 64, "hipDeviceAttributeWarpSize");
        hexpect!(api, hipDeviceGetAttribute(&mut v, 12345, 0), HipError::INVALID_VALUE);
        hexpect!(api, hipDeviceGetAttribute(null_mut(), 89, 0), HipError::INVALID_VALUE);
        hexpect!(api, hipDeviceGetAttribute(&mut v, 89, 9), HipError::INVALID_DEVICE);
        let mut old = hipDeviceProp_t::default();
        hok!(api, hipGetDeviceProperties(&mut old, 1));
        let at = |b: &[u8], o: usize| i32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        assert_eq!(at(&old.bytes, hipDeviceProp_t::warpSize), 64);
        assert_eq!(u64::from_le_bytes(old.bytes[256..264].try_into().unwrap()), 1 << 30);
        assert!(old.bytes.starts_with(b"vmmkit"));
        hexpect!(api, hipGetDeviceProperties(null_mut(), 0), HipError::INVALID_VALUE);
        hexpect!(api, hipGetDeviceProperties(&mut old, 3), HipError::INVALID_DEVICE);
        let r0600 = api.hipGetDevicePropertiesR0600.expect("R0600 is emulated");
        let mut new = hipDeviceProp_tR0600::default();
        // SAFETY: a valid record and device.
        assert_eq!(HipError(unsafe { r0600(&mut new, 0) }), HipError::SUCCESS);
        assert_eq!(at(&new.bytes, hipDeviceProp_tR0600::warpSize), 64);
        assert!(new.bytes[hipDeviceProp_tR0600::gcnArchName..].starts_with(b"gfx942"));
        let mut ver = 0;
        hok!(api, hipRuntimeGetVersion(&mut ver));
        assert_eq!(hip_version_parts(ver).0, 6, "profile 6.x");
        hok!(api, hipDriverGetVersion(&mut ver));
        hexpect!(api, hipRuntimeGetVersion(null_mut()), HipError::INVALID_VALUE);
        // Peers: self is 0 with 0 before the range check; out of range 101.
        let mut can = -1;
        hok!(api, hipDeviceCanAccessPeer(&mut can, 7, 7));
        assert_eq!(can, 0);
        hok!(api, hipDeviceCanAccessPeer(&mut can, 0, 1));
        assert_eq!(can, 1);
        hexpect!(api, hipDeviceCanAccessPeer(&mut can, 0, 2), HipError::INVALID_DEVICE);
        hexpect!(api, hipDeviceCanAccessPeer(null_mut(), 0, 1), HipError::INVALID_VALUE);
        hexpect!(api, hipDeviceEnablePeerAccess(1, 1), HipError::INVALID_VALUE);
        hexpect!(api, hipDeviceEnablePeerAccess(0, 0), HipError::INVALID_DEVICE);
        hexpect!(api, hipDeviceEnablePeerAccess(5, 0), HipError::INVALID_DEVICE);
        hexpect!(api, hipDeviceDisablePeerAccess(1), HipError::PEER_ACCESS_NOT_ENABLED);
        hok!(api, hipDeviceEnablePeerAccess(1, 0));
        hexpect!(api, hipDeviceEnablePeerAccess(1, 0), HipError::PEER_ACCESS_ALREADY_ENABLED);
        hok!(api, hipDeviceDisablePeerAccess(1));
        hok!(api, hipDeviceSynchronize());
    });
}

/// hipMalloc, hipFree, copies and fills with bad input: codes, no crash.
#[test]
fn memory_bad_input() {
    isolated("memory_bad_input", ENV, |_| {
        let api = hip();
        hexpect!(api, hipMalloc(null_mut(), 16), HipError::INVALID_VALUE);
        let mut p = std::ptr::dangling_mut::<c_void>();
        hok!(api, hipMalloc(&mut p, 0));
        assert!(p.is_null(), "size 0 gives NULL");
        hexpect!(api, hipMalloc(&mut p, usize::MAX), HipError::OUT_OF_MEMORY);
        hexpect!(api, hipMalloc(&mut p, 2 << 30), HipError::OUT_OF_MEMORY);
        hok!(api, hipMalloc(&mut p, 1000));
        let data = pattern(1000, 4);
        write(&api, p, &data);
        let interior = p.cast::<u8>().wrapping_add(10).cast::<c_void>();
        let mut buf = vec![0u8; 2000];
        // hipMemcpy: n = 0 first; NULL; bad kind; past the end.
        hok!(api, hipMemcpy(null_mut(), null(), 0, 77));
        hexpect!(api, hipMemcpy(null_mut(), p, 8, hipMemcpyDeviceToHost), HipError::INVALID_VALUE);
        hexpect!(api, hipMemcpy(buf.as_mut_ptr().cast(), null(), 8, hipMemcpyDeviceToHost), HipError::INVALID_VALUE);
        hexpect!(api, hipMemcpy(buf.as_mut_ptr().cast(), p, 8, 5), HipError::INVALID_MEMCPY_DIRECTION);
        hok!(api, hipMemcpy(buf.as_mut_ptr().cast(), p, 8, hipMemcpyDeviceToDeviceNoCU));
        hexpect!(
            api,
            hipMemcpy(buf.as_mut_ptr().cast(), interior, 991, hipMemcpyDeviceToHost),
            HipError::INVALID_VALUE
        );
        hexpect!(api, hipMemcpy(buf.as_mut_ptr().cast(), p, usize::MAX, hipMemcpyDefault), HipError::INVALID_VALUE);
        hexpect!(api, hipMemcpyHtoD(interior, buf.as_mut_ptr().cast(), 991), HipError::INVALID_VALUE);
        hok!(api, hipMemcpyDtoH(buf.as_mut_ptr().cast(), interior, 990));
        assert_eq!(&buf[..990], &data[10..]);
        // An unmapped device address is refused, not dereferenced.
        let unmapped = 0x17ff_0000_0000usize as *mut c_void; // high in the device window, never reserved
        hexpect!(api, hipMemcpy(buf.as_mut_ptr().cast(), unmapped, 8, hipMemcpyDeviceToHost), HipError::INVALID_VALUE);
        // hipMemset: n = 0; NULL; unknown; overrun.
        hok!(api, hipMemset(null_mut(), 0, 0));
        hexpect!(api, hipMemset(null_mut(), 0, 8), HipError::INVALID_VALUE);
        hexpect!(api, hipMemset(buf.as_mut_ptr().cast(), 0, 8), HipError::INVALID_VALUE);
        hexpect!(api, hipMemset(unmapped, 0, 8), HipError::INVALID_VALUE);
        hexpect!(api, hipMemset(interior, 0, 991), HipError::INVALID_VALUE);
        hexpect!(api, hipMemsetD8(interior, 0, usize::MAX), HipError::INVALID_VALUE);
        hok!(api, hipMemsetD8(interior, 0xab, 990));
        assert_eq!(read(&api, p, 1000)[10..], [0xab; 990]);
        // Address range: any interior pointer; unknown → 500.
        let (mut base, mut size) = (null_mut(), 0);
        hok!(api, hipMemGetAddressRange(&mut base, &mut size, interior));
        assert_eq!((base, size), (p, 1000));
        hexpect!(api, hipMemGetAddressRange(&mut base, &mut size, unmapped), HipError::NOT_FOUND);
        hexpect!(
            api,
            hipMemGetAddressRange(&mut base, &mut size, p.cast::<u8>().wrapping_add(1000).cast()),
            HipError::NOT_FOUND
        );
        // Pointer attributes (6.0+): unknown is Unregistered with device −2.
        let mut a = hipPointerAttribute_t::default();
        hexpect!(api, hipPointerGetAttributes(null_mut(), p), HipError::INVALID_VALUE);
        hexpect!(api, hipPointerGetAttributes(&mut a, null()), HipError::INVALID_VALUE);
        hok!(api, hipPointerGetAttributes(&mut a, interior));
        assert_eq!((a.type_, a.device, a.devicePointer), (hipMemoryTypeDevice, 0, interior));
        hok!(api, hipPointerGetAttributes(&mut a, buf.as_ptr().cast()));
        assert_eq!((a.type_, a.device), (hipMemoryTypeUnregistered, -2));
        // hipFree: NULL → 0; an interior pointer frees the whole; freed → 1.
        hok!(api, hipFree(null_mut()));
        hok!(api, hipFree(interior));
        hexpect!(api, hipFree(p), HipError::INVALID_VALUE);
        hexpect!(api, hipFree(0xdead_beef as *mut c_void), HipError::INVALID_VALUE);
        hexpect!(api, hipMemcpy(buf.as_mut_ptr().cast(), p, 8, hipMemcpyDeviceToHost), HipError::INVALID_VALUE);
        hexpect!(api, hipMemset(p, 0, 8), HipError::INVALID_VALUE);
        hok!(api, hipPointerGetAttributes(&mut a, p));
        assert_eq!(a.type_, hipMemoryTypeUnregistered, "freed memory is unknown");
    });
}

/// hipHostMalloc and hipHostFree (hip.md §2.1).
#[test]
fn host_buffers() {
    isolated("host_buffers", ENV, |_| {
        let api = hip();
        let mut h = null_mut();
        hexpect!(api, hipHostMalloc(null_mut(), 64, 0), HipError::INVALID_VALUE);
        hok!(api, hipHostMalloc(&mut h, 0, 0));
        assert!(h.is_null());
        hexpect!(
            api,
            hipHostMalloc(&mut h, 64, hipHostMallocCoherent | hipHostMallocNonCoherent),
            HipError::INVALID_VALUE
        );
        hexpect!(api, hipHostMalloc(&mut h, usize::MAX, 0), HipError::OUT_OF_MEMORY);
        hok!(api, hipHostMalloc(&mut h, 4096, hipHostMallocMapped | 0x100));
        let mut a = hipPointerAttribute_t::default();
        hok!(api, hipPointerGetAttributes(&mut a, h));
        assert_eq!((a.type_, a.hostPointer), (hipMemoryTypeHost, h));
        hok!(api, hipMemset(h, 7, 4096));
        let mut d = null_mut();
        hok!(api, hipMalloc(&mut d, 4096));
        hok!(api, hipMemcpy(d, h, 4096, hipMemcpyHostToDevice));
        assert_eq!(read(&api, d, 4096), vec![7u8; 4096]);
        hexpect!(api, hipHostFree(d), HipError::INVALID_VALUE);
        // hipFree frees a hipHostMalloc buffer too: clr's ihipFree frees any memory object (HIP-MEM-007).
        hok!(api, hipFree(h));
        hexpect!(api, hipHostFree(h), HipError::INVALID_VALUE);
        hexpect!(api, hipFree(h), HipError::INVALID_VALUE);
        hok!(api, hipHostFree(null_mut()));
        let ext = api.hipExtHostAlloc.expect("hipExtHostAlloc is emulated");
        // SAFETY: a valid out-pointer.
        assert_eq!(HipError(unsafe { ext(&mut h, 64, 0) }), HipError::SUCCESS);
        hok!(api, hipHostFree(h));
        hok!(api, hipFree(d));
    });
}

/// An emulator that cannot start: hipGetDeviceCount 100 with 0, the rest
/// 101, version queries still work (HIP-INIT-001).
#[test]
fn unavailable_emulator_is_no_device() {
    isolated("unavailable_emulator_is_no_device", &[("VMMKIT_DEVICES", "0")], |_| {
        let api = hip();
        let mut n = -1;
        hexpect!(api, hipGetDeviceCount(&mut n), HipError::NO_DEVICE, "HIP-INIT-001");
        assert_eq!(n, 0);
        let mut p = null_mut();
        hexpect!(api, hipMalloc(&mut p, 16), HipError::INVALID_DEVICE, "HIP-INIT-001");
        hexpect!(api, hipSetDevice(0), HipError::INVALID_DEVICE);
        let mut v = 0;
        hok!(api, hipRuntimeGetVersion(&mut v));
    });
}
