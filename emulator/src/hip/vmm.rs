//! Virtual memory management: granularity, physical memory, reservations,
//! maps, access (hip.md §2.2, §4.5), with the codes of the process's
//! version profile (`profile.rs`; docs/hip.md "Version profiles").
#![allow(non_snake_case, non_upper_case_globals)]

use std::ffi::c_void;

use vmmkit_sys::hip::rules;
use vmmkit_sys::hip::*;

use super::call::{Fail, current_device, emu, ensure, run};
use super::codes::Op;
use super::pointer::{KIND_VMM, Kind, extent};
use super::profile::{self, CREATE_MULTIPLE, GRANULARITY, WINDOW};
use crate::ffi::{In, Out};
use crate::core::{Emulator, HandleId, HandleTag, natural_align};
use crate::registry::Place;

/// hipMemGenericAllocationHandle_t values: "hi" in the top 16 bits and the
/// core handle below: never a canonical address, never reused (hip.md §3.3).
const TAG: HandleTag = HandleTag::new(0x6869);

/// `hipMemAccessFlags` 2: write-only, which 6.x passes on to ROCr.
const WRITE_ONLY: hipMemAccessFlags = 2;

pub(super) fn to_handle(id: HandleId) -> hipMemGenericAllocationHandle_t {
    TAG.value(id) as hipMemGenericAllocationHandle_t
}

/// The core handle a value names: `HandleId(0)` for NULL and `HandleId(u64::MAX)`
/// for other values without our tag (neither is ever live; the codes table
/// tells NULL apart, e.g. [HIP-VMM-007](vmmkit_sys::hip::rules::VMM_007) from [HIP-VMM-009](vmmkit_sys::hip::rules::VMM_009)).
pub(super) fn from_handle(h: hipMemGenericAllocationHandle_t) -> HandleId {
    if h.is_null() {
        return HandleId(0);
    }
    TAG.id(h as usize).unwrap_or(HandleId(u64::MAX))
}

/// Whether `d` is a device ordinal of this machine.
fn is_device(e: &Emulator, d: i32) -> bool {
    e.is_device(i64::from(d))
}

/// An address that belongs to hipMalloc memory or an IPC-opened range: VMM
/// calls refuse it (it is not a hipMemAddressReserve range of the program).
fn not_vmm_range(e: &Emulator, p: usize) -> bool {
    matches!(
        extent(e, p).map(|x| x.kind),
        Some(Kind::Malloc(_) | Kind::Opened | Kind::Host | Kind::Registered | Kind::Managed)
    )
}

/// `hipError_t hipMemGetAllocationGranularity(size_t *granularity, const hipMemAllocationProp *prop, hipMemAllocationGranularity_flags option)`:
/// [HIP-VMM-001](vmmkit_sys::hip::rules::VMM_001), then 4096 for both options ([HIP-VMM-002](vmmkit_sys::hip::rules::VMM_002)).
pub extern "C" fn hipMemGetAllocationGranularity(
    granularity: Out<'_, usize>,
    prop: In<'_, hipMemAllocationProp>,
    option: hipMemAllocationGranularity_flags,
) -> hipError_t {
    run("hipMemGetAllocationGranularity", || {
        ensure!(!granularity.is_null(), rules::VMM_001, "granularity is NULL");
        ensure!(!prop.is_null(), rules::VMM_001, "prop is NULL");
        let p = prop.read()?;
        ensure!(p.type_ == hipMemAllocationTypePinned, rules::VMM_001, "type must be Pinned (1), got {}", p.type_);
        ensure!(
            p.location.type_ == hipMemLocationTypeDevice,
            rules::VMM_001,
            "location.type must be Device (1), got {}",
            p.location.type_
        );
        let e = emu()?;
        ensure!(is_device(e, p.location.id), rules::VMM_001, "device {} does not exist", p.location.id);
        ensure!(
            option == hipMemAllocationGranularityMinimum || option == hipMemAllocationGranularityRecommended,
            rules::VMM_001,
            "option must be 0 or 1, got {option}"
        );
        granularity.write(GRANULARITY as usize)?;
        Ok(())
    })
}

/// `hipError_t hipMemCreate(hipMemGenericAllocationHandle_t *handle, size_t size, const hipMemAllocationProp *prop, unsigned long long flags)`:
/// [HIP-VMM-003](vmmkit_sys::hip::rules::VMM_003), 004, 005, 006 in that order. The backing is rounded up to a
/// page. Profile 7.x: a bad device id is 101, and the memory is taken on the
/// current device (`location.id` is kept for the properties).
pub extern "C" fn hipMemCreate(
    handle: Out<'_, hipMemGenericAllocationHandle_t>,
    size: usize,
    prop: In<'_, hipMemAllocationProp>,
    flags: u64,
) -> hipError_t {
    run("hipMemCreate", || {
        ensure!(!handle.is_null(), rules::VMM_003, "handle is NULL");
        ensure!(size != 0, rules::VMM_003, "size is 0");
        ensure!(flags == 0, rules::VMM_003, "flags must be 0, got {flags}");
        ensure!(!prop.is_null(), rules::VMM_003, "prop is NULL");
        let p = prop.read()?;
        // HIP-VMM-003: 7.x also takes type Uncached and location Host
        // (rocm-systems hip_vm.cpp:75-80); 6.x Pinned on a Device only.
        let v7 = profile::is_v7();
        let uncached = v7 && p.type_ == hipMemAllocationTypeUncached;
        let host = v7 && p.location.type_ == hipMemLocationTypeHost;
        ensure!(
            p.type_ == hipMemAllocationTypePinned || uncached,
            rules::VMM_003,
            "type must be Pinned (1){}, got {}",
            if v7 { " or Uncached" } else { "" },
            p.type_
        );
        ensure!(
            p.location.type_ == hipMemLocationTypeDevice || host,
            rules::VMM_003,
            "location.type must be Device (1){}, got {}",
            if v7 { " or Host (2)" } else { "" },
            p.location.type_
        );
        let e = emu()?;
        // HIP-VMM-003: a bad device id is 1 in 6.x, 101 in 7.x.
        let bad_device = if profile::is_v7() { HipError::INVALID_DEVICE } else { HipError::INVALID_VALUE };
        ensure!(is_device(e, p.location.id), rules::VMM_003 => bad_device, "device {} does not exist", p.location.id);
        let ht = p.requestedHandleType;
        ensure!(
            ht == hipMemHandleTypeNone || ht == hipMemHandleTypePosixFileDescriptor,
            rules::VMM_004,
            "requestedHandleType must be None (0) or PosixFileDescriptor (1), got {ht}"
        );
        let capacity = e.config().device_memory;
        ensure!((size as u64) <= capacity, rules::VMM_005, "{size:#x} bytes exceed the device's {capacity:#x}");
        ensure!(size % CREATE_MULTIPLE == 0, rules::VMM_006, "size {size:#x} is not a multiple of {CREATE_MULTIPLE}");
        let backing = (size as u64).next_multiple_of(GRANULARITY);
        let kind = ht | if uncached { UNCACHED_BIT } else { 0 } | if host { HOST_BIT } else { 0 };
        let props = [KIND_VMM, GRANULARITY, with_location(kind, p.location.id), size as u64];
        let on = if v7 { current_device() } else { p.location.id as u32 };
        let on = if host { Place::Host(0) } else { Place::Device(on) };
        let id = e
            .create(on, backing, GRANULARITY, props)
            .map_err(|e| Fail::core(Op::Create, e))?;
        handle.write(to_handle(id))?;
        Ok(())
    })
}

/// `props[2]` of hipMemCreate memory: the requested handle type in the low
/// 32 bits, the requested `location.id` above (7.x takes the memory on the
/// current device, but the properties report the location asked for).
/// In the handle-type word of `props[2]`: created with type Uncached (7.x).
const UNCACHED_BIT: i32 = 1 << 16;
/// In the handle-type word of `props[2]`: created at location Host (7.x).
const HOST_BIT: i32 = 1 << 17;

/// The requested handle type that [`with_location`] stored in `props2`.
pub(super) fn handle_type_of(props2: u64) -> i32 {
    (props2 as u32 as i32) & 0xffff
}

fn with_location(handle_type: i32, location: i32) -> u64 {
    u64::from(handle_type as u32) | (u64::from(location as u32) << 32)
}

/// The `location.id` that [`with_location`] stored in `props2`.
pub(super) fn location_of(props2: u64) -> i32 {
    (props2 >> 32) as u32 as i32
}

/// `hipError_t hipMemRelease(hipMemGenericAllocationHandle_t handle)`:
/// [HIP-VMM-007](vmmkit_sys::hip::rules::VMM_007); [HIP-VMM-008](vmmkit_sys::hip::rules::VMM_008) a mapped handle goes at its last unmap;
/// [HIP-VMM-009](vmmkit_sys::hip::rules::VMM_009) (emulator) a handle already gone → 1.
pub extern "C" fn hipMemRelease(handle: hipMemGenericAllocationHandle_t) -> hipError_t {
    run("hipMemRelease", || {
        ensure!(!handle.is_null(), rules::VMM_007, "handle is NULL");
        let id = from_handle(handle);
        let e = emu()?;
        e.free(id).map_err(|e| Fail::core(Op::Release, e))
    })
}

/// `hipError_t hipMemAddressReserve(void **ptr, size_t size, size_t alignment, void *addr, unsigned long long flags)`:
/// [HIP-VMM-010](vmmkit_sys::hip::rules::VMM_010), 011 (6.x: 2, 7.x: 1), 012 (`alignment` checked and then
/// dropped, as clr's virtualAlloc does: the pointer is granule aligned;
/// `addr` a hint).
pub extern "C" fn hipMemAddressReserve(
    ptr: Out<'_, *mut c_void>,
    size: usize,
    alignment: usize,
    addr: *mut c_void,
    flags: u64,
) -> hipError_t {
    run("hipMemAddressReserve", || {
        ensure!(!ptr.is_null(), rules::VMM_010, "ptr is NULL");
        ensure!(flags == 0, rules::VMM_010, "flags must be 0, got {flags}");
        ensure!(size != 0, rules::VMM_011, "size is 0");
        ensure!(
            size as u64 % GRANULARITY == 0,
            rules::VMM_011,
            "size {size:#x} is not a multiple of the granularity {GRANULARITY}"
        );
        ensure!(
            alignment == 0 || alignment.is_power_of_two(),
            rules::VMM_011,
            "alignment {alignment:#x} is not a power of two"
        );
        let window = WINDOW.0.clone();
        ensure!(
            size <= window.end - window.start,
            rules::VMM_012 => HipError::OUT_OF_MEMORY,
            "{size:#x} bytes exceed the device address window"
        );
        let e = emu()?;
        // HIP-VMM-012: `alignment` is not passed on (clr rocdevice.cpp virtualAlloc).
        let align = natural_align(size, GRANULARITY as usize);
        // HIP-VMM-012: `addr` is only a hint; where it cannot be had, elsewhere will do.
        let base = e.reserve_near(size, align, addr as usize, &WINDOW).map_err(|e| Fail::core(Op::Reserve, e))?;
        ptr.write(base as *mut c_void)?;
        Ok(())
    })
}

/// `hipError_t hipMemAddressFree(void *devPtr, size_t size)`: [HIP-VMM-013](vmmkit_sys::hip::rules::VMM_013).
/// Any address inside a reservation frees the whole reservation, with its
/// mappings; `size` is not compared. An address in no reservation is 1
/// (6.x crashes there; 7.x answers 1).
pub extern "C" fn hipMemAddressFree(devPtr: *mut c_void, size: usize) -> hipError_t {
    run("hipMemAddressFree", || {
        ensure!(!devPtr.is_null(), rules::VMM_013, "devPtr is NULL");
        ensure!(size != 0, rules::VMM_013, "size is 0");
        let e = emu()?;
        let p = devPtr as usize;
        ensure!(!not_vmm_range(e, p), rules::VMM_013, "{devPtr:p} was not reserved by hipMemAddressReserve");
        let base = e.reservation(p).map_or(p, |r| r.base);
        e.release(base).map_err(|e| Fail::core(Op::AddressFree, e))
    })
}

/// `hipError_t hipMemMap(void *ptr, size_t size, size_t offset, hipMemGenericAllocationHandle_t handle, unsigned long long flags)`:
/// [HIP-VMM-014](vmmkit_sys::hip::rules::VMM_014), then 015 (emulator: 1); [HIP-VMM-016](vmmkit_sys::hip::rules::VMM_016) partial maps; [HIP-VMM-017](vmmkit_sys::hip::rules::VMM_017)
/// aliases. A reservation is not tied to a device (clr reserves one range
/// for all devices): handles of several devices map side by side.
pub extern "C" fn hipMemMap(
    ptr: *mut c_void,
    size: usize,
    offset: usize,
    handle: hipMemGenericAllocationHandle_t,
    flags: u64,
) -> hipError_t {
    run("hipMemMap", || {
        ensure!(!ptr.is_null(), rules::VMM_014, "ptr is NULL");
        ensure!(!handle.is_null(), rules::VMM_014, "handle is NULL");
        ensure!(size != 0, rules::VMM_014, "size is 0");
        ensure!(offset == 0, rules::VMM_014, "offset must be 0, got {offset:#x}");
        ensure!(flags == 0, rules::VMM_014, "flags must be 0, got {flags}");
        let e = emu()?;
        ensure!(
            !not_vmm_range(e, ptr as usize),
            rules::VMM_015,
            "{ptr:p} was not reserved by hipMemAddressReserve"
        );
        e.map_unbound(ptr as usize, size, from_handle(handle)).map_err(|e| Fail::core(Op::Map, e))
    })
}

/// `hipError_t hipMemMapArrayAsync(hipArrayMapInfo *mapInfoList, unsigned count, hipStream_t stream)`:
/// NULL or 0 → 1; otherwise 801, as on AMD.
pub extern "C" fn hipMemMapArrayAsync(
    mapInfoList: *mut hipArrayMapInfo,
    count: u32,
    _stream: hipStream_t,
) -> hipError_t {
    run("hipMemMapArrayAsync", || {
        if mapInfoList.is_null() || count == 0 {
            return Err(Fail::plain(HipError::INVALID_VALUE, "mapInfoList is NULL or count is 0".into()));
        }
        Err(Fail::plain(HipError::NOT_SUPPORTED, "arrays are not supported".into()))
    })
}

/// `hipError_t hipMemUnmap(void *ptr, size_t size)`: [HIP-VMM-018](vmmkit_sys::hip::rules::VMM_018), 019 (`ptr`
/// starts a mapping and `size` covers whole consecutive mappings: 1 in 7.x;
/// 6.x answers 0 and unmaps nothing, as ROCr refuses and clr drops its
/// status; an address in no mapping is 1, where 6.x crashes).
pub extern "C" fn hipMemUnmap(ptr: *mut c_void, size: usize) -> hipError_t {
    run("hipMemUnmap", || {
        ensure!(!ptr.is_null(), rules::VMM_018, "ptr is NULL");
        ensure!(size != 0, rules::VMM_018, "size is 0");
        let e = emu()?;
        let p = ptr as usize;
        ensure!(!not_vmm_range(e, p), rules::VMM_019, "{ptr:p} is not hipMemMap'ed memory");
        let end = p.saturating_add(size);
        let mut starts = Vec::new();
        let mut at = p;
        while at < end {
            match e.mapping(at) {
                Some((s, m)) if s == at => {
                    starts.push(s);
                    at = s + m.len;
                }
                _ => break,
            }
        }
        // HIP-VMM-019, 6.x: inside a mapping but not whole mappings → 0, nothing unmapped.
        if at != end && !profile::is_v7() && e.mapping(p).is_some() && crate::mutation::enforced(&rules::VMM_019) {
            return Ok(());
        }
        // A size of 0 covers no mapping: that is HIP-VMM-018's to refuse.
        ensure!(at == end, rules::VMM_019, "{p:#x}+{size:#x} does not start at a mapping and cover whole mappings");
        if starts.is_empty() && size != 0 {
            return e.unmap(p).map_err(|e| Fail::core(Op::Unmap, e));
        }
        for s in starts {
            e.unmap(s).map_err(|e| Fail::core(Op::Unmap, e))?;
        }
        Ok(())
    })
}

/// `hipError_t hipMemSetAccess(void *ptr, size_t size, const hipMemAccessDesc *desc, size_t count)`:
/// [HIP-VMM-021](vmmkit_sys::hip::rules::VMM_021) in its order (pointers and counts, device ids, mapped range,
/// flags: 0, 1, 3, and 2 (write-only) in 6.x, which passes it on). A later
/// grant for a device replaces an earlier one.
pub extern "C" fn hipMemSetAccess(
    ptr: *mut c_void,
    size: usize,
    desc: In<'_, hipMemAccessDesc>,
    count: usize,
) -> hipError_t {
    run("hipMemSetAccess", || {
        ensure!(!ptr.is_null(), rules::VMM_021, "ptr is NULL");
        ensure!(size != 0, rules::VMM_021, "size is 0");
        ensure!(!desc.is_null(), rules::VMM_021, "desc is NULL");
        ensure!(count != 0, rules::VMM_021, "count is 0");
        let e = emu()?;
        let descs: Vec<hipMemAccessDesc> = desc.to_vec(count)?;
        for d in &descs {
            let l = d.location;
            ensure!(
                l.type_ == hipMemLocationTypeDevice && is_device(e, l.id),
                rules::VMM_021,
                "location (type {}, id {}) is not a device",
                l.type_,
                l.id
            );
        }
        let p = ptr as usize;
        let mapped = !not_vmm_range(e, p) && e.is_device_range(p, size);
        ensure!(mapped, rules::VMM_021, "{p:#x}+{size:#x} is not wholly hipMemMap'ed");
        // 6.x passes any value to ROCr, which takes 2 as write-only.
        let write_only_ok = !profile::is_v7();
        for d in &descs {
            let f = d.flags;
            ensure!(
                matches!(f, hipMemAccessFlagsProtNone | hipMemAccessFlagsProtRead | hipMemAccessFlagsProtReadWrite)
                    || (f == WRITE_ONLY && write_only_ok),
                rules::VMM_021,
                "flags must be 0, 1 or 3 (2 too in 6.x), got {f}"
            );
        }
        for d in descs {
            let place = Place::Device(d.location.id.max(0) as u32);
            e.grant_access(p, size, place, d.flags as u32).map_err(|e| Fail::core(Op::SetAccess, e))?;
        }
        Ok(())
    })
}

/// `hipError_t hipMemGetAccess(unsigned long long *flags, const hipMemLocation *location, void *ptr)`:
/// [HIP-VMM-022](vmmkit_sys::hip::rules::VMM_022). A device never granted access reads 0.
pub extern "C" fn hipMemGetAccess(
    flags: Out<'_, u64>,
    location: In<'_, hipMemLocation>,
    ptr: *mut c_void,
) -> hipError_t {
    run("hipMemGetAccess", || {
        ensure!(!flags.is_null(), rules::VMM_022, "flags is NULL");
        ensure!(!location.is_null(), rules::VMM_022, "location is NULL");
        ensure!(!ptr.is_null(), rules::VMM_022, "ptr is NULL");
        let l = location.read()?;
        ensure!(
            l.type_ == hipMemLocationTypeDevice,
            rules::VMM_022,
            "location.type must be Device (1), got {}",
            l.type_
        );
        let e = emu()?;
        ensure!(is_device(e, l.id), rules::VMM_022, "device {} does not exist", l.id);
        let p = ptr as usize;
        ensure!(!not_vmm_range(e, p), rules::VMM_022, "{ptr:p} is not hipMemMap'ed memory");
        let f = e.get_access(p, Place::Device(l.id as u32), 0).map_err(|e| Fail::core(Op::GetAccess, e))?;
        flags.write(u64::from(f))?;
        Ok(())
    })
}

/// `hipError_t hipMemRetainAllocationHandle(hipMemGenericAllocationHandle_t *handle, void *addr)`:
/// [HIP-VMM-033](vmmkit_sys::hip::rules::VMM_033): the handle mapped at `addr` (the same value); 7.x takes one
/// more reference (release it with hipMemRelease), 6.x none.
pub extern "C" fn hipMemRetainAllocationHandle(
    handle: Out<'_, hipMemGenericAllocationHandle_t>,
    addr: *mut c_void,
) -> hipError_t {
    run("hipMemRetainAllocationHandle", || {
        ensure!(!handle.is_null(), rules::VMM_033, "handle is NULL");
        ensure!(!addr.is_null(), rules::VMM_033, "addr is NULL");
        let e = emu()?;
        let p = addr as usize;
        ensure!(!not_vmm_range(e, p), rules::VMM_033, "{addr:p} is not hipMemMap'ed memory");
        let id = if profile::is_v7() {
            e.retain(p).map_err(|e| Fail::core(Op::Retain, e))?
        } else {
            match e.mapping(p) {
                Some((_, m)) => m.handle,
                None => return Err(Fail::core(Op::Retain, crate::core::CoreError::NotMapped(p))),
            }
        };
        handle.write(to_handle(id))?;
        Ok(())
    })
}

/// `hipError_t hipMemGetAllocationPropertiesFromHandle(hipMemAllocationProp *prop, hipMemGenericAllocationHandle_t handle)`:
/// [HIP-VMM-032](vmmkit_sys::hip::rules::VMM_032) the creation properties; [HIP-VMM-029](vmmkit_sys::hip::rules::VMM_029) an imported handle
/// reports the importing device and the import's handle type.
pub extern "C" fn hipMemGetAllocationPropertiesFromHandle(
    prop: Out<'_, hipMemAllocationProp>,
    handle: hipMemGenericAllocationHandle_t,
) -> hipError_t {
    run("hipMemGetAllocationPropertiesFromHandle", || {
        ensure!(!prop.is_null(), rules::VMM_032, "prop is NULL");
        ensure!(!handle.is_null(), rules::VMM_032, "handle is NULL");
        let id = from_handle(handle);
        let e = emu()?;
        let info = e.describe(id).map_err(|e| Fail::core(Op::Query, e))?;
        let requested = info.import_kind.unwrap_or(handle_type_of(info.props[2]));
        let created = (info.import_kind.is_none() && info.props[0] == KIND_VMM).then_some(info.props[2] as u32 as i32);
        let bit = |b: i32| created.is_some_and(|w| w & b != 0);
        // Imports report the importing device; created handles the location asked for.
        let id_of = |p: Place| match (info.import_kind, p) {
            (None, _) if info.props[0] == KIND_VMM => location_of(info.props[2]),
            (_, Place::Device(d) | Place::Host(d)) => d as i32,
        };
        let p = hipMemAllocationProp {
            type_: if bit(UNCACHED_BIT) { hipMemAllocationTypeUncached } else { hipMemAllocationTypePinned },
            requestedHandleType: requested,
            location: hipMemLocation {
                type_: if bit(HOST_BIT) { hipMemLocationTypeHost } else { hipMemLocationTypeDevice },
                id: id_of(info.owner),
            },
            ..Default::default()
        };
        prop.write(p)?;
        Ok(())
    })
}
