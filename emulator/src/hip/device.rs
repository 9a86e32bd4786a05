//! Initialisation, devices, properties, versions, peer access (hip.md §2.1).
#![allow(non_snake_case, non_upper_case_globals)]

use vmmkit_sys::hip::rules;
use vmmkit_sys::hip::*;

use super::call::{Fail, current_device, emu, put, run};
use super::profile;
use crate::core::thread;

/// The device `id` as an index, or 101.
fn device(id: i32) -> Result<u32, Fail> {
    let e = emu()?;
    if !e.is_device(i64::from(id)) {
        return Err(Fail::plain(HipError::INVALID_DEVICE, format!("device {id} is not in [0, {})", e.device_count())));
    }
    Ok(id as u32)
}

/// `hipError_t hipInit(unsigned flags)`: flags must be 0.
pub unsafe extern "C" fn hipInit(flags: u32) -> hipError_t {
    run("hipInit", || {
        if flags != 0 {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("flags must be 0, got {flags}")));
        }
        emu().map(drop)
    })
}

/// `hipError_t hipGetDeviceCount(int *count)`: HIP-INIT-001, a runtime that
/// cannot start answers 100 with `*count = 0`.
pub unsafe extern "C" fn hipGetDeviceCount(count: *mut i32) -> hipError_t {
    run("hipGetDeviceCount", || {
        if count.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "count is NULL".into()));
        }
        match crate::core::emulator() {
            // SAFETY: checked non-null.
            Ok(e) => unsafe { put(count, e.device_count() as i32) },
            Err(err) => {
                // SAFETY: checked non-null.
                unsafe { put(count, 0) };
                return Err(Fail::rule_code(&rules::INIT_001, HipError::NO_DEVICE, err.to_string()));
            }
        }
        Ok(())
    })
}

/// `hipError_t hipSetDevice(int deviceId)`: out of range → 101.
pub unsafe extern "C" fn hipSetDevice(deviceId: i32) -> hipError_t {
    run("hipSetDevice", || {
        let d = device(deviceId)?;
        thread::set_current_device(Some(d));
        Ok(())
    })
}

/// `hipError_t hipGetDevice(int *deviceId)`: the thread's device, 0 by default.
pub unsafe extern "C" fn hipGetDevice(deviceId: *mut i32) -> hipError_t {
    run("hipGetDevice", || {
        if deviceId.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "deviceId is NULL".into()));
        }
        emu()?;
        // SAFETY: checked non-null.
        unsafe { put(deviceId, current_device() as i32) };
        Ok(())
    })
}

/// `hipError_t hipDeviceSynchronize(void)`: waits for the work of every
/// stream of the current device; reports the first failure of a work.
pub unsafe extern "C" fn hipDeviceSynchronize() -> hipError_t {
    run("hipDeviceSynchronize", || {
        emu()?.device_synchronize(Some(current_device()), None).map_err(super::stream::work_failed)
    })
}

/// `hipError_t hipDeviceGet(hipDevice_t *device, int ordinal)`.
pub unsafe extern "C" fn hipDeviceGet(device_: *mut hipDevice_t, ordinal: i32) -> hipError_t {
    run("hipDeviceGet", || {
        if device_.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "device is NULL".into()));
        }
        let d = device(ordinal)?;
        // SAFETY: checked non-null.
        unsafe { put(device_, d as i32) };
        Ok(())
    })
}

/// Attribute values that hip.md does not list, read off the HIP headers with
/// g++: the 5.2.3 and the 7.2.4 headers give the same numbers (docs/hip.md).
mod attr {
    pub const CAN_MAP_HOST_MEMORY: i32 = 3;
    pub const DIRECT_MANAGED_MEM_ACCESS_FROM_HOST: i32 = 13;
    pub const INTEGRATED: i32 = 16;
    pub const COMPUTE_CAPABILITY_MAJOR: i32 = 23;
    pub const COMPUTE_CAPABILITY_MINOR: i32 = 61;
    pub const MULTIPROCESSOR_COUNT: i32 = 63;
    pub const PCI_BUS_ID: i32 = 67;
    pub const UNIFIED_ADDRESSING: i32 = 85;
    pub const WARP_SIZE: i32 = 87;
}

/// `hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr, int deviceId)`:
/// the two attributes of hip.md §2.1 (88: no memory pools; 89: VMM supported)
/// and a few descriptive ones (see `attr`); any other → 1.
pub unsafe extern "C" fn hipDeviceGetAttribute(pi: *mut i32, attr: hipDeviceAttribute_t, deviceId: i32) -> hipError_t {
    run("hipDeviceGetAttribute", || {
        if pi.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "pi is NULL".into()));
        }
        let d = device(deviceId)?;
        let (major, minor, _) = profile::ARCH;
        let v = match attr {
            hipDeviceAttributeVirtualMemoryManagementSupported => profile::VMM_SUPPORTED,
            // HIP-POOL-019: clr's HIP_MEM_POOL_SUPPORT, and a POSIX-fd pool handle type.
            hipDeviceAttributeMemoryPoolsSupported => 1,
            hipDeviceAttributeMemoryPoolSupportedHandleTypes => hipMemHandleTypePosixFileDescriptor,
            attr::CAN_MAP_HOST_MEMORY | attr::UNIFIED_ADDRESSING => 1,
            attr::INTEGRATED => 0,
            attr::COMPUTE_CAPABILITY_MAJOR => major,
            attr::COMPUTE_CAPABILITY_MINOR => minor,
            attr::MULTIPROCESSOR_COUNT => profile::COMPUTE_UNITS,
            attr::PCI_BUS_ID => d as i32 + 1,
            attr::WARP_SIZE => profile::WARP_SIZE,
            // The host can read and write device memory in place when the
            // emulator lets host code dereference device addresses.
            attr::DIRECT_MANAGED_MEM_ACCESS_FROM_HOST => i32::from(emu()?.config().host_access),
            _ => {
                return Err(Fail::plain(HipError::INVALID_VALUE, format!("attribute {attr} is not emulated")));
            }
        };
        // SAFETY: checked non-null.
        unsafe { put(pi, v) };
        Ok(())
    })
}

/// Writes `s` (truncated, NUL-terminated) into `buf[at..at + 256]`.
fn put_str(buf: &mut [u8], at: usize, s: &str) {
    let n = s.len().min(HIP_DEVICE_PROP_NAME_LEN - 1);
    buf[at..at + n].copy_from_slice(&s.as_bytes()[..n]);
}

fn put_i32(buf: &mut [u8], at: usize, v: i32) {
    buf[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// The fields both layouts share, at the offsets of one of them.
struct Offsets {
    name: usize,
    total: usize,
    warp: usize,
    major: usize,
    minor: usize,
    cus: usize,
    pci_bus: usize,
    arch_name: usize,
}

fn fill(buf: &mut [u8], at: &Offsets, d: u32) -> Result<(), Fail> {
    let e = emu()?;
    let (major, minor, _) = profile::ARCH;
    put_str(buf, at.name, profile::DEVICE_NAME);
    buf[at.total..at.total + 8].copy_from_slice(&e.config().device_memory.to_le_bytes());
    put_i32(buf, at.warp, profile::WARP_SIZE);
    put_i32(buf, at.major, major);
    put_i32(buf, at.minor, minor);
    put_i32(buf, at.cus, profile::COMPUTE_UNITS);
    put_i32(buf, at.pci_bus, d as i32 + 1);
    put_str(buf, at.arch_name, profile::ARCH_NAME);
    Ok(())
}

/// `hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int deviceId)`
/// (`@hip_4.2`): the old 792-byte layout, zero-filled, then the fields hip.md lists.
pub unsafe extern "C" fn hipGetDeviceProperties(prop: *mut hipDeviceProp_t, deviceId: i32) -> hipError_t {
    run("hipGetDeviceProperties", || {
        if prop.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "prop is NULL".into()));
        }
        let d = device(deviceId)?;
        type P = hipDeviceProp_t;
        let mut p = P::default();
        let at = Offsets {
            name: P::name,
            total: P::totalGlobalMem,
            warp: P::warpSize,
            major: P::major,
            minor: P::minor,
            cus: P::multiProcessorCount,
            pci_bus: P::pciBusID,
            arch_name: P::gcnArchName,
        };
        fill(&mut p.bytes, &at, d)?;
        put_i32(&mut p.bytes, P::gcnArch, profile::ARCH.2);
        // SAFETY: checked non-null; the caller passes a 792-byte record.
        unsafe { put(prop, p) };
        Ok(())
    })
}

/// `hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_tR0600 *prop, int deviceId)`
/// (`@hip_6.0`): the 1472-byte layout.
pub unsafe extern "C" fn hipGetDevicePropertiesR0600(prop: *mut hipDeviceProp_tR0600, deviceId: i32) -> hipError_t {
    run("hipGetDevicePropertiesR0600", || {
        if prop.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "prop is NULL".into()));
        }
        let d = device(deviceId)?;
        type P = hipDeviceProp_tR0600;
        let mut p = P::default();
        let at = Offsets {
            name: P::name,
            total: P::totalGlobalMem,
            warp: P::warpSize,
            major: P::major,
            minor: P::minor,
            cus: P::multiProcessorCount,
            pci_bus: P::pciBusID,
            arch_name: P::gcnArchName,
        };
        fill(&mut p.bytes, &at, d)?;
        // A uuid of our own: "vmmkit" and the device ordinal.
        p.bytes[P::uuid..P::uuid + 6].copy_from_slice(b"vmmkit");
        p.bytes[P::uuid + 15] = d as u8;
        put_i32(&mut p.bytes, P::canMapHostMemory, 1);
        put_i32(&mut p.bytes, P::unifiedAddressing, 1);
        // SAFETY: checked non-null; the caller passes a 1472-byte record.
        unsafe { put(prop, p) };
        Ok(())
    })
}

fn version(out: *mut i32) -> Result<(), Fail> {
    if out.is_null() {
        return Err(Fail::plain(HipError::INVALID_VALUE, "version pointer is NULL".into()));
    }
    let v = profile::hip_version_value().map_err(|e| Fail::rule(&rules::INIT_001, e.to_string()))?;
    // SAFETY: checked non-null.
    unsafe { put(out, v) };
    Ok(())
}

/// `hipError_t hipRuntimeGetVersion(int *runtimeVersion)`: the profile's
/// `HIP_VERSION` (`VMMKIT_HIP_VERSION`: 60300000 by default, 70000000 for
/// `7`); works even when the emulator cannot start, but not with a bad
/// `VMMKIT_HIP_VERSION` (101, naming it).
pub unsafe extern "C" fn hipRuntimeGetVersion(runtimeVersion: *mut i32) -> hipError_t {
    run("hipRuntimeGetVersion", || version(runtimeVersion))
}

/// `hipError_t hipDriverGetVersion(int *driverVersion)`: as hipRuntimeGetVersion.
pub unsafe extern "C" fn hipDriverGetVersion(driverVersion: *mut i32) -> hipError_t {
    run("hipDriverGetVersion", || version(driverVersion))
}

/// `hipError_t hipDeviceCanAccessPeer(int *canAccessPeer, int deviceId, int peerDeviceId)`:
/// a device and itself → 0 with 0, before the range check; any two distinct
/// emulated devices can reach each other.
pub unsafe extern "C" fn hipDeviceCanAccessPeer(
    canAccessPeer: *mut i32,
    deviceId: i32,
    peerDeviceId: i32,
) -> hipError_t {
    run("hipDeviceCanAccessPeer", || {
        if canAccessPeer.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "canAccessPeer is NULL".into()));
        }
        if deviceId == peerDeviceId {
            // SAFETY: checked non-null.
            unsafe { put(canAccessPeer, 0) };
            return Ok(());
        }
        device(deviceId)?;
        device(peerDeviceId)?;
        // SAFETY: checked non-null.
        unsafe { put(canAccessPeer, 1) };
        Ok(())
    })
}

/// `hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned flags)`:
/// flags ≠ 0 → 1; the current device itself or out of range → 101; twice → 704.
pub unsafe extern "C" fn hipDeviceEnablePeerAccess(peerDeviceId: i32, flags: u32) -> hipError_t {
    run("hipDeviceEnablePeerAccess", || {
        if flags != 0 {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("flags must be 0, got {flags}")));
        }
        let cur = current_device();
        if i64::from(peerDeviceId) == i64::from(cur) {
            return Err(Fail::plain(HipError::INVALID_DEVICE, format!("device {cur} is the current device")));
        }
        let peer = device(peerDeviceId)?;
        if !emu()?.enable_peer(cur, peer) {
            return Err(Fail::plain(
                HipError::PEER_ACCESS_ALREADY_ENABLED,
                format!("access from {cur} to {peer} is enabled already"),
            ));
        }
        Ok(())
    })
}

/// `hipError_t hipDeviceDisablePeerAccess(int peerDeviceId)`: out of range → 101; never enabled → 705.
pub unsafe extern "C" fn hipDeviceDisablePeerAccess(peerDeviceId: i32) -> hipError_t {
    run("hipDeviceDisablePeerAccess", || {
        let cur = current_device();
        let peer = device(peerDeviceId)?;
        if !emu()?.disable_peer(cur, peer) {
            return Err(Fail::plain(
                HipError::PEER_ACCESS_NOT_ENABLED,
                format!("access from {cur} to {peer} was never enabled"),
            ));
        }
        Ok(())
    })
}
