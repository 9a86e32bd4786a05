//! Initialisation, devices, properties, versions, peer access (hip.md §2.1).
#![allow(non_snake_case, non_upper_case_globals)]

use vmmkit_sys::hip::rules;
use vmmkit_sys::hip::*;

use super::call::{Fail, current_device, emu, ensure, run};
use std::ffi::c_char;

use super::state::{DeviceSettings, state};
use super::{device_attributes, profile};
use crate::ffi::{CStrIn, In, Out};
use crate::core::{Ending, StreamKind, thread};
use crate::core::Emulator;
use crate::registry::Place;

/// The device `id` as an index, or 101.
pub(super) fn device(id: i32) -> Result<u32, Fail> {
    let e = emu()?;
    if !e.is_device(i64::from(id)) {
        return Err(Fail::plain(HipError::INVALID_DEVICE, format!("device {id} is not in [0, {})", e.device_count())));
    }
    Ok(id as u32)
}

/// `hipError_t hipInit(unsigned flags)`: flags must be 0.
pub extern "C" fn hipInit(flags: u32) -> hipError_t {
    run("hipInit", || {
        if flags != 0 {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("flags must be 0, got {flags}")));
        }
        emu().map(drop)
    })
}

/// `hipError_t hipGetDeviceCount(int *count)`: [HIP-INIT-001](vmmkit_sys::hip::rules::INIT_001), a runtime that
/// cannot start answers 100 with `*count = 0`.
pub extern "C" fn hipGetDeviceCount(count: Out<'_, i32>) -> hipError_t {
    run("hipGetDeviceCount", || {
        if count.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "count is NULL".into()));
        }
        match crate::core::emulator() {
            Ok(e) => {
                // clr's HIP_INIT_API answers 100 before the count is written.
                super::call::no_device_left(e)?;
                count.write(e.device_count() as i32)?;
            }
            Err(err) => {
                count.write(0)?;
                return Err(Fail::rule_code(&rules::INIT_001, HipError::NO_DEVICE, err.to_string()));
            }
        }
        Ok(())
    })
}

/// `hipError_t hipSetDevice(int deviceId)`: out of range → 101.
pub extern "C" fn hipSetDevice(deviceId: i32) -> hipError_t {
    run("hipSetDevice", || {
        let d = device(deviceId)?;
        thread::set_current_device(Some(d));
        Ok(())
    })
}

/// `hipError_t hipGetDevice(int *deviceId)`: the thread's device, 0 by default.
pub extern "C" fn hipGetDevice(deviceId: Out<'_, i32>) -> hipError_t {
    run("hipGetDevice", || {
        if deviceId.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "deviceId is NULL".into()));
        }
        emu()?;
        deviceId.write(current_device() as i32)?;
        Ok(())
    })
}

/// `hipError_t hipDeviceSynchronize(void)`: waits for the work of every
/// stream of the current device; reports the first failure of a work. Then
/// the device's pools give back their freed blocks ([HIP-POOL-021](vmmkit_sys::hip::rules::POOL_021)).
pub extern "C" fn hipDeviceSynchronize() -> hipError_t {
    run("hipDeviceSynchronize", || {
        let e = emu()?;
        // HIP-GRF-011: clr's CHECK_SUPPORTED_DURING_CAPTURE (every capture invalidated, 900).
        let broke = e.capturing_any() && e.capture_forbids_any();
        ensure!(!broke, rules::GRF_011 => HipError::STREAM_CAPTURE_UNSUPPORTED, "a stream is capturing");
        let r = e.device_synchronize(Some(current_device()), None).map_err(super::stream::work_failed);
        super::pool::release_freed(e, Some(current_device()));
        r
    })
}

/// `hipError_t hipDeviceGet(hipDevice_t *device, int ordinal)`.
pub extern "C" fn hipDeviceGet(device_: Out<'_, hipDevice_t>, ordinal: i32) -> hipError_t {
    run("hipDeviceGet", || {
        if device_.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "device is NULL".into()));
        }
        let d = device(ordinal)?;
        device_.write(d as i32)?;
        Ok(())
    })
}

/// What the attributes of device `d` depend on.
fn facts(d: u32) -> Result<device_attributes::Facts, Fail> {
    let c = emu()?.config();
    Ok(device_attributes::Facts { device: d, memory: c.device_memory, host_access: c.host_access })
}

/// `hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr, int deviceId)`:
/// every attribute of the 7.x enum (`device_attributes.rs`, the same values as
/// hipGetDeviceProperties); a placeholder or an unknown value → 1, as clr's `default:`.
pub extern "C" fn hipDeviceGetAttribute(pi: Out<'_, i32>, attr: hipDeviceAttribute_t, deviceId: i32) -> hipError_t {
    run("hipDeviceGetAttribute", || {
        if pi.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "pi is NULL".into()));
        }
        let d = device(deviceId)?;
        let Some(a) = device_attributes::find(attr) else {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("attribute {attr} is not a hipDeviceAttribute_t")));
        };
        let v = device_attributes::answer(a, &facts(d)?);
        ::tracing::debug!(target: "vmmkit", attribute = a.name, value = v);
        pi.write(v)?;
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
    put_i32(buf, at.pci_bus, machine(e, d) as i32 + 1);
    put_str(buf, at.arch_name, profile::ARCH_NAME);
    Ok(())
}

/// `hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int deviceId)`
/// (`@hip_4.2`): the old 792-byte layout, zero-filled, then the fields hip.md lists.
pub extern "C" fn hipGetDeviceProperties(prop: Out<'_, hipDeviceProp_t>, deviceId: i32) -> hipError_t {
    run("hipGetDeviceProperties", || properties_r0000(prop, deviceId))
}

/// `hipError_t hipGetDevicePropertiesR0000(hipDeviceProp_tR0000 *prop, int deviceId)` (`@hip_4.2`):
/// the old layout under its explicit name, as `hipGetDeviceProperties`.
pub extern "C" fn hipGetDevicePropertiesR0000(prop: Out<'_, hipDeviceProp_t>, deviceId: i32) -> hipError_t {
    run("hipGetDevicePropertiesR0000", || properties_r0000(prop, deviceId))
}

/// The old 792-byte layout, zero-filled, then the fields hip.md lists.
fn properties_r0000(prop: Out<'_, hipDeviceProp_t>, deviceId: i32) -> Result<(), Fail> {
    {
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
        prop.write(p)?;
        Ok(())
    }
}

/// `hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_tR0600 *prop, int deviceId)`
/// (`@hip_6.0`): the 1472-byte layout.
pub extern "C" fn hipGetDevicePropertiesR0600(prop: Out<'_, hipDeviceProp_tR0600>, deviceId: i32) -> hipError_t {
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
        device_attributes::fill_r0600(&mut p.bytes, &facts(d)?);
        fill(&mut p.bytes, &at, d)?;
        p.bytes[P::uuid..P::uuid + 16].copy_from_slice(&uuid(machine(emu()?, d)));
        prop.write(p)?;
        Ok(())
    })
}

fn version(out: Out<'_, i32>) -> Result<(), Fail> {
    if out.is_null() {
        return Err(Fail::plain(HipError::INVALID_VALUE, "version pointer is NULL".into()));
    }
    let v = profile::hip_version_value().map_err(|e| Fail::rule(&rules::INIT_001, e.to_string()))?;
    out.write(v)?;
    Ok(())
}

/// `hipError_t hipRuntimeGetVersion(int *runtimeVersion)`: the profile's
/// `HIP_VERSION` (`VMMKIT_HIP_VERSION`: 60300000 by default, 70000000 for
/// `7`); works even when the emulator cannot start, but not with a bad
/// `VMMKIT_HIP_VERSION` (101, naming it).
pub extern "C" fn hipRuntimeGetVersion(runtimeVersion: Out<'_, i32>) -> hipError_t {
    run("hipRuntimeGetVersion", || version(runtimeVersion))
}

/// `hipError_t hipDriverGetVersion(int *driverVersion)`: as hipRuntimeGetVersion.
pub extern "C" fn hipDriverGetVersion(driverVersion: Out<'_, i32>) -> hipError_t {
    run("hipDriverGetVersion", || version(driverVersion))
}

/// `hipError_t hipDeviceCanAccessPeer(int *canAccessPeer, int deviceId, int peerDeviceId)`:
/// a device and itself → 0 with 0, before the range check; any two distinct
/// emulated devices can reach each other.
pub extern "C" fn hipDeviceCanAccessPeer(
    canAccessPeer: Out<'_, i32>,
    deviceId: i32,
    peerDeviceId: i32,
) -> hipError_t {
    run("hipDeviceCanAccessPeer", || {
        if canAccessPeer.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "canAccessPeer is NULL".into()));
        }
        if deviceId == peerDeviceId {
            canAccessPeer.write(0)?;
            return Ok(());
        }
        device(deviceId)?;
        device(peerDeviceId)?;
        canAccessPeer.write(1)?;
        Ok(())
    })
}

/// `hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned flags)`:
/// flags ≠ 0 → 1; the current device itself or out of range → 101; twice → 704.
pub extern "C" fn hipDeviceEnablePeerAccess(peerDeviceId: i32, flags: u32) -> hipError_t {
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
pub extern "C" fn hipDeviceDisablePeerAccess(peerDeviceId: i32) -> hipError_t {
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

// ---- The rest of Device Management and Initialization and
// Version (clr 6.3 hip_device.cpp, hip_device_runtime.cpp, hip_peer.cpp) ----

/// clr `hip::Device`'s `flags_(hipDeviceScheduleSpin)`, rocclr's
/// `stack_size_{1024}` and `initial_heap_size_{HIP_INITIAL_DM_SIZE}` (8 MiB).
pub(super) const DEVICE_DEFAULTS: DeviceSettings =
    DeviceSettings { flags: hipDeviceScheduleSpin, stack_size: 1024, heap_size: 8 << 20, active: false };

/// rocclr `Device::UpdateStackSize`: at most 128 KiB − 16 per lane.
const STACK_MAX: usize = (128 << 10) - 16;

/// `HSA_AMD_LINK_INFO_TYPE_XGMI`: how the emulated devices are linked (one hop).
const LINK_XGMI: u32 = 4;

/// `int` to `*mut T` writes with one NULL check: `name` is NULL → 1.
pub(super) fn out<T>(p: Out<'_, T>, name: &str, v: T) -> Result<(), Fail> {
    if p.is_null() {
        return Err(Fail::plain(HipError::INVALID_VALUE, format!("{name} is NULL")));
    }
    p.write(v)?;
    Ok(())
}

/// The machine's number of device ordinal `d` ([HIP-INIT-009](vmmkit_sys::hip::rules::INIT_009)): a device's
/// uuid and PCI address are those of the physical device, whatever the
/// process's visible-device list.
fn machine(e: &Emulator, d: u32) -> u32 {
    e.visible().physical(d).unwrap_or(d)
}

/// The uuid of physical device `d`: "vmmkit", zeros, and its number in the last byte.
fn uuid(d: u32) -> [u8; 16] {
    let mut u = [0u8; 16];
    u[..6].copy_from_slice(b"vmmkit");
    u[15] = d as u8;
    u
}

/// The PCI address of device `d`, as clr prints it (`%04x:%02x:%02x.%01x`:
/// domain, bus, device, function): bus = the physical device + 1, the rest 0.
fn pci_bus_id(d: u32) -> String {
    format!("{:04x}:{:02x}:{:02x}.{:01x}", 0, d + 1, 0, 0)
}

/// Copies `s` into the C buffer `buf` of `len` bytes as snprintf would:
/// truncated to `len − 1` bytes and NUL-terminated; nothing when `len` ≤ 0.
/// `buf` holds `len` bytes (the C contract).
fn put_c_str(buf: Out<'_, c_char>, len: i32, s: &str) -> Result<(), crate::ffi::Null> {
    let Ok(len) = usize::try_from(len) else { return Ok(()) };
    if len == 0 {
        return Ok(());
    }
    let n = s.len().min(len - 1);
    let bytes: Vec<c_char> = s.as_bytes()[..n].iter().map(|&b| b as c_char).chain([0]).collect();
    buf.write_slice(&bytes)
}

/// `hipError_t hipDeviceReset(void)`: [HIP-INIT-007](vmmkit_sys::hip::rules::INIT_007), clr `Device::Reset` on the current
/// device: waits for its work, destroys the streams made on it, releases the
/// memory the process holds there (allocations, VMM handles and mappings,
/// opened IPC memory) and sets its flags back to `hipDeviceScheduleSpin`
/// (its limits stay, as rocclr keeps them).
pub extern "C" fn hipDeviceReset() -> hipError_t {
    run("hipDeviceReset", || {
        let e = emu()?;
        let d = current_device();
        e.device_synchronize(Some(d), None).map_err(super::stream::work_failed)?;
        let st = state(e);
        for id in st.streams() {
            // The legacy streams stay: they are the device's, not made here.
            if e.stream_info(id).is_ok_and(|(dev, kind)| dev == d && kind != StreamKind::Legacy) {
                st.forget_stream(id);
                e.stream_destroy(id, Ending::Detach).map_err(super::stream::work_failed)?;
            }
        }
        e.close_all_opened(Place::Device(d));
        e.reset_device(d);
        // What the memory calls keep about the allocations just released.
        st.mem.retain_live(|p| super::pointer::extent(e, p).is_some());
        st.reset_device(d, DEVICE_DEFAULTS.flags);
        Ok(())
    })
}

/// `hipError_t hipDeviceGetPCIBusId(char *pciBusId, int len, int device)`:
/// bad device → 101, NULL → 1, then the address is written (truncated) and
/// `len` ≤ 12 → 1, as clr does.
pub extern "C" fn hipDeviceGetPCIBusId(pciBusId: Out<'_, c_char>, len: i32, device_: i32) -> hipError_t {
    run("hipDeviceGetPCIBusId", || {
        let d = device(device_)?;
        if pciBusId.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "pciBusId is NULL".into()));
        }
        put_c_str(pciBusId, len, &pci_bus_id(machine(emu()?, d)))?;
        if len <= 12 {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("len {len} is too short: 13 bytes are needed")));
        }
        Ok(())
    })
}

/// `hipError_t hipDeviceGetByPCIBusId(int *device, const char *pciBusId)`:
/// NULL → 1; an address that is not `dddd:bb:dd.f` of an emulated device → 1.
pub extern "C" fn hipDeviceGetByPCIBusId(device_: Out<'_, i32>, pciBusId: CStrIn<'_>) -> hipError_t {
    run("hipDeviceGetByPCIBusId", || {
        if device_.is_null() || pciBusId.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "device or pciBusId is NULL".into()));
        }
        let text = pciBusId.get()?.to_string_lossy();
        let e = emu()?;
        let parse = |s: &str| -> Option<[u32; 4]> {
            let (domain, rest) = s.split_once(':')?;
            let (bus, rest) = rest.split_once(':')?;
            let (dev, func) = rest.split_once('.')?;
            let hex = |x: &str| u32::from_str_radix(x.trim(), 16).ok();
            Some([hex(domain)?, hex(bus)?, hex(dev)?, hex(func.get(..1)?)?])
        };
        let found = parse(&text)
            .and_then(|[domain, bus, dev, func]| {
                (domain == 0 && dev == 0 && func == 0 && bus >= 1).then_some(bus - 1)
            })
            .and_then(|d| e.visible().ordinal(d));
        let Some(d) = found else {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("{text:?} is the PCI address of no device")));
        };
        device_.write(d as i32)?;
        Ok(())
    })
}

/// `hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device)`:
/// bad device → 101; NULL or `len` ≤ 0 → 1; the name, truncated to `len − 1`.
pub extern "C" fn hipDeviceGetName(name: Out<'_, c_char>, len: i32, device_: hipDevice_t) -> hipError_t {
    run("hipDeviceGetName", || {
        device(device_)?;
        if name.is_null() || len <= 0 {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("name is NULL or len {len} is not positive")));
        }
        put_c_str(name, len, profile::DEVICE_NAME)?;
        Ok(())
    })
}

/// `hipError_t hipDeviceGetUuid(hipUUID *uuid, hipDevice_t device)`: bad
/// device → 101, NULL → 1; the `uuid` of hipGetDeviceProperties.
pub extern "C" fn hipDeviceGetUuid(uuid_: Out<'_, hipUUID>, device_: hipDevice_t) -> hipError_t {
    run("hipDeviceGetUuid", || {
        let d = device(device_)?;
        out(uuid_, "uuid", hipUUID { bytes: uuid(machine(emu()?, d)).map(|b| b as c_char) })
    })
}

/// `hipError_t hipDeviceTotalMem(size_t *bytes, hipDevice_t device)`: bad
/// device → 101, NULL → 1; `VMMKIT_DEVICE_MEMORY`.
pub extern "C" fn hipDeviceTotalMem(bytes: Out<'_, usize>, device_: hipDevice_t) -> hipError_t {
    run("hipDeviceTotalMem", || {
        device(device_)?;
        out(bytes, "bytes", emu()?.config().device_memory as usize)
    })
}

/// `hipError_t hipDeviceComputeCapability(int *major, int *minor, hipDevice_t device)`:
/// bad device → 101, either NULL → 1.
pub extern "C" fn hipDeviceComputeCapability(major: Out<'_, i32>, minor: Out<'_, i32>, device_: hipDevice_t) -> hipError_t {
    run("hipDeviceComputeCapability", || {
        device(device_)?;
        if minor.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "minor is NULL".into()));
        }
        out(major, "major", profile::ARCH.0)?;
        out(minor, "minor", profile::ARCH.1)
    })
}

/// The two devices of a link query: NULL was checked; the same device or one
/// out of range → `code` (101 for hipDeviceGetP2PAttribute, clr's checks).
fn pair(a: i32, b: i32) -> Result<(), Fail> {
    if a == b {
        return Err(Fail::plain(HipError::INVALID_DEVICE, format!("device {a} and itself are no pair")));
    }
    device(a)?;
    device(b).map(drop)
}

/// `hipError_t hipDeviceGetP2PAttribute(int *value, hipDeviceP2PAttr attr, int srcDevice, int dstDevice)`:
/// NULL → 1; the same device or one out of range → 101; PerformanceRank is
/// the link type (clr reads `kLinkLinkType` for it: XGMI, 4), access, atomics
/// and array access are 1; another attribute → 1.
pub extern "C" fn hipDeviceGetP2PAttribute(
    value: Out<'_, i32>,
    attr: hipDeviceP2PAttr,
    srcDevice: i32,
    dstDevice: i32,
) -> hipError_t {
    run("hipDeviceGetP2PAttribute", || {
        if value.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "value is NULL".into()));
        }
        pair(srcDevice, dstDevice)?;
        let v = match attr {
            hipDevP2PAttrPerformanceRank => LINK_XGMI as i32,
            hipDevP2PAttrAccessSupported | hipDevP2PAttrNativeAtomicSupported | hipDevP2PAttrHipArrayAccessSupported => 1,
            _ => return Err(Fail::plain(HipError::INVALID_VALUE, format!("attribute {attr} is not a hipDeviceP2PAttr"))),
        };
        out(value, "value", v)
    })
}

/// `hipError_t hipExtGetLinkTypeAndHopCount(int device1, int device2, uint32_t *linktype, uint32_t *hopcount)`:
/// NULL, the same device or a negative one → 1; out of range → 101; XGMI, one hop.
pub extern "C" fn hipExtGetLinkTypeAndHopCount(
    device1: i32,
    device2: i32,
    linktype: Out<'_, u32>,
    hopcount: Out<'_, u32>,
) -> hipError_t {
    run("hipExtGetLinkTypeAndHopCount", || {
        if linktype.is_null() || hopcount.is_null() || device1 == device2 || device1 < 0 || device2 < 0 {
            return Err(Fail::plain(
                HipError::INVALID_VALUE,
                format!("linktype or hopcount is NULL, or devices {device1}, {device2} are no pair"),
            ));
        }
        pair(device1, device2)?;
        out(linktype, "linktype", LINK_XGMI)?;
        out(hopcount, "hopcount", 1)
    })
}

/// `hipError_t hipSetDeviceFlags(unsigned flags)`: [HIP-INIT-006](vmmkit_sys::hip::rules::INIT_006): at most one scheduling
/// flag, nothing beyond `hipDeviceScheduleMask | hipDeviceMapHost |
/// hipDeviceLmemResizeToMax` (else 1); the current device keeps the
/// scheduling part (clr `setFlags(flags & hipDeviceScheduleMask)`).
pub extern "C" fn hipSetDeviceFlags(flags: u32) -> hipError_t {
    run("hipSetDeviceFlags", || {
        let e = emu()?;
        let schedule = flags & hipDeviceScheduleMask;
        let supported = hipDeviceScheduleMask | hipDeviceMapHost | hipDeviceLmemResizeToMax;
        let valid = schedule.count_ones() <= 1 && flags & !supported == 0;
        ensure!(valid, rules::INIT_006, "flags {flags:#x}: more than one scheduling flag, or an unknown flag");
        if !valid {
            return Ok(());
        }
        state(e).set_device(current_device(), DEVICE_DEFAULTS, |s| s.flags = schedule);
        Ok(())
    })
}

/// `hipError_t hipGetDeviceFlags(unsigned int *flags)`: NULL → 1; the
/// current device's scheduling flags (`hipDeviceScheduleSpin` until set).
pub extern "C" fn hipGetDeviceFlags(flags: Out<'_, u32>) -> hipError_t {
    run("hipGetDeviceFlags", || {
        let e = emu()?;
        out(flags, "flags", state(e).device(current_device(), DEVICE_DEFAULTS).flags)
    })
}

/// `hipError_t hipDeviceSetLimit(enum hipLimit_t limit, size_t value)`: [HIP-INIT-006](vmmkit_sys::hip::rules::INIT_006): a
/// value ≥ `hipLimitRange` → 1; the stack (≤ 128 KiB − 16, rounded up to
/// 16) and the heap (< the device's memory) of the current device, else 1;
/// any other limit → 215 (hipErrorUnsupportedLimit).
pub extern "C" fn hipDeviceSetLimit(limit: hipLimit_t, value: usize) -> hipError_t {
    run("hipDeviceSetLimit", || {
        let e = emu()?;
        let d = current_device();
        let ok = match limit {
            hipLimitStackSize => value <= STACK_MAX,
            hipLimitMallocHeapSize => (value as u64) < e.config().device_memory,
            _ => return unsupported_limit(limit),
        };
        ensure!(ok, rules::INIT_006, "{value} is out of range for limit {limit}");
        if !ok {
            return Ok(());
        }
        state(e).set_device(d, DEVICE_DEFAULTS, |s| {
            if limit == hipLimitStackSize {
                s.stack_size = value.next_multiple_of(16);
            } else {
                s.heap_size = value;
            }
        });
        Ok(())
    })
}

/// A limit that hipDeviceSetLimit / GetLimit do not handle ([HIP-INIT-006](vmmkit_sys::hip::rules::INIT_006)):
/// 1 from `hipLimitRange` on, else 215; nothing happens when the rule is
/// switched off.
fn unsupported_limit(limit: hipLimit_t) -> Result<(), Fail> {
    ensure!((0..hipLimitRange).contains(&limit), rules::INIT_006, "limit {limit} is not a hipLimit_t");
    ensure!(false, rules::INIT_006 => HipError::UNSUPPORTED_LIMIT, "limit {limit} is not supported");
    Ok(())
}

/// `hipError_t hipDeviceGetLimit(size_t *pValue, enum hipLimit_t limit)`:
/// NULL or ≥ `hipLimitRange` → 1; stack and heap of the current device; any
/// other → 215.
pub extern "C" fn hipDeviceGetLimit(pValue: Out<'_, usize>, limit: hipLimit_t) -> hipError_t {
    run("hipDeviceGetLimit", || {
        if pValue.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "pValue is NULL".into()));
        }
        let s = state(emu()?).device(current_device(), DEVICE_DEFAULTS);
        let v = match limit {
            hipLimitStackSize => s.stack_size,
            hipLimitMallocHeapSize => s.heap_size,
            _ => return unsupported_limit(limit),
        };
        out(pValue, "pValue", v)
    })
}

/// `hipError_t hipDeviceSetCacheConfig(hipFuncCache_t cacheConfig)`: any
/// value is accepted and ignored, as clr does (hip_device_runtime.cpp:574-580:
/// "No way to set cache config yet", and no check of the value).
pub extern "C" fn hipDeviceSetCacheConfig(_cacheConfig: hipFuncCache_t) -> hipError_t {
    run("hipDeviceSetCacheConfig", || emu().map(drop))
}

/// `hipError_t hipDeviceGetCacheConfig(hipFuncCache_t *cacheConfig)`: NULL → 1; `hipFuncCachePreferNone`.
pub extern "C" fn hipDeviceGetCacheConfig(cacheConfig: Out<'_, hipFuncCache_t>) -> hipError_t {
    run("hipDeviceGetCacheConfig", || emu().and_then(|_| out(cacheConfig, "cacheConfig", hipFuncCachePreferNone)))
}

/// `hipError_t hipDeviceSetSharedMemConfig(hipSharedMemConfig config)`: a
/// value that is no `hipSharedMemConfig` → 1; otherwise accepted and ignored.
pub extern "C" fn hipDeviceSetSharedMemConfig(config: hipSharedMemConfig) -> hipError_t {
    run("hipDeviceSetSharedMemConfig", || {
        emu()?;
        if !(hipSharedMemBankSizeDefault..=hipSharedMemBankSizeEightByte).contains(&config) {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("{config} is not a hipSharedMemConfig")));
        }
        Ok(())
    })
}

/// `hipError_t hipDeviceGetSharedMemConfig(hipSharedMemConfig *pConfig)`: NULL → 1; four-byte banks.
pub extern "C" fn hipDeviceGetSharedMemConfig(pConfig: Out<'_, hipSharedMemConfig>) -> hipError_t {
    run("hipDeviceGetSharedMemConfig", || emu().and_then(|_| out(pConfig, "pConfig", hipSharedMemBankSizeFourByte)))
}

/// hipChooseDevice in both layouts: either NULL → 1; every emulated device
/// is the same, so clr's best match is device 0.
fn choose(device_: Out<'_, i32>, prop_is_null: bool) -> Result<(), Fail> {
    if prop_is_null {
        return Err(Fail::plain(HipError::INVALID_VALUE, "prop is NULL".into()));
    }
    emu()?;
    out(device_, "device", 0)
}

/// `hipError_t hipChooseDevice(int *device, const hipDeviceProp_t *prop)`
/// (`@hip_4.2`, the old layout): see `choose`.
pub extern "C" fn hipChooseDevice(device_: Out<'_, i32>, prop: *const hipDeviceProp_t) -> hipError_t {
    run("hipChooseDevice", || choose(device_, prop.is_null()))
}

/// `hipError_t hipChooseDeviceR0000(int *device, const hipDeviceProp_tR0000 *prop)` (`@hip_4.2`):
/// the old layout under its explicit name, as `hipChooseDevice`.
pub extern "C" fn hipChooseDeviceR0000(device_: Out<'_, i32>, prop: *const hipDeviceProp_t) -> hipError_t {
    run("hipChooseDeviceR0000", || choose(device_, prop.is_null()))
}

/// `hipError_t hipChooseDeviceR0600(int *device, const hipDeviceProp_tR0600 *prop)` (`@hip_6.0`).
pub extern "C" fn hipChooseDeviceR0600(device_: Out<'_, i32>, prop: *const hipDeviceProp_tR0600) -> hipError_t {
    run("hipChooseDeviceR0600", || choose(device_, prop.is_null()))
}

/// `hipError_t hipDeviceGetTexture1DLinearMaxWidth(size_t *max_width, const hipChannelFormatDesc *desc, int device)`:
/// either NULL → 1; bad device → 101; an element of 0 bits → 1; else
/// MaxTexture1DLinear / the element's bytes (clr).
pub extern "C" fn hipDeviceGetTexture1DLinearMaxWidth(
    max_width: Out<'_, usize>,
    desc: In<'_, hipChannelFormatDesc>,
    device_: i32,
) -> hipError_t {
    run("hipDeviceGetTexture1DLinearMaxWidth", || {
        if max_width.is_null() || desc.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "max_width or desc is NULL".into()));
        }
        let d = device(device_)?;
        let c = desc.read()?;
        let bits: i64 = [c.x, c.y, c.z, c.w].iter().map(|&b| i64::from(b.max(0))).sum();
        let element = (bits / 8) as usize;
        if element == 0 {
            return Err(Fail::plain(HipError::INVALID_VALUE, "the channel format has no bytes".into()));
        }
        let linear = match device_attributes::find(LINEAR_1D) {
            Some(a) => device_attributes::answer(a, &facts(d)?) as usize,
            None => 0,
        };
        out(max_width, "max_width", linear / element)
    })
}

/// `hipDeviceAttributeMaxTexture1DLinear`.
const LINEAR_1D: i32 = 41;

/// `hipError_t hipSetValidDevices(int *device_arr, int len)`: [HIP-INIT-008](vmmkit_sys::hip::rules::INIT_008).
/// 6.x: 801 (clr: "Unimplemented"). 7.x: len 0 → 0; NULL, len < 0 or >
/// the count → 1; a device out of range → 101; the first device becomes
/// current unless this thread has set one (clr `tls.isSetDeviceCalled`).
pub extern "C" fn hipSetValidDevices(device_arr: In<'_, i32>, len: i32) -> hipError_t {
    run("hipSetValidDevices", || {
        let e = emu()?;
        if !profile::is_v7() {
            ensure!(false, rules::INIT_008, "clr 6.x does not implement it");
            return Ok(());
        }
        if len == 0 {
            return Ok(());
        }
        let count = e.device_count() as i32;
        let listed = !device_arr.is_null() && len > 0 && len <= count;
        ensure!(listed, rules::INIT_008, "device_arr is NULL or len {len} is not in [1, {count}]");
        if !listed {
            return Ok(());
        }
        let ids = device_arr.to_vec(len as usize)?;
        let valid = ids.iter().all(|&d| e.is_device(i64::from(d)));
        ensure!(valid, rules::INIT_008 => HipError::INVALID_DEVICE, "{ids:?} names a device out of [0, {count})");
        if valid && thread::current_device().is_none() {
            thread::set_current_device(Some(ids[0] as u32));
        }
        Ok(())
    })
}

/// `hipError_t hipProfilerStart(void)`: 801, as clr (hip_profile.cpp).
pub extern "C" fn hipProfilerStart() -> hipError_t {
    run("hipProfilerStart", || emu().and_then(|_| Err(clr_unimplemented())))
}

/// `hipError_t hipProfilerStop(void)`: 801, as clr (hip_profile.cpp).
pub extern "C" fn hipProfilerStop() -> hipError_t {
    run("hipProfilerStop", || emu().and_then(|_| Err(clr_unimplemented())))
}

/// What clr answers for the functions it leaves "Unimplemented": 801.
pub(super) fn clr_unimplemented() -> Fail {
    Fail::plain(HipError::NOT_SUPPORTED, "clr does not implement it and answers hipErrorNotSupported".into())
}
