//! Virtual memory management: granularity, physical memory, reservations,
//! maps, access, retain, properties (cuda.md §2.1, §3.3).
//!
//! A reservation is not tied to a device (maps use the core's
//! `map_unbound`), maps may cover part of an allocation ([CUDA-VMM-009](vmmkit_sys::cuda::rules::VMM_009)), and
//! a mapping grants no access until cuMemSetAccess ([CUDA-VMM-012](vmmkit_sys::cuda::rules::VMM_012)).
#![allow(non_snake_case, non_upper_case_globals)]

use std::ffi::c_void;

use vmmkit_sys::cuda::rules;
use vmmkit_sys::cuda::*;

use super::call::{Fail, emu, ensure, run};
use super::codes::Op;
use super::context::current;
use super::pointer::{extent, is_vmm};
use super::profile::{GRANULARITY, HOST_PAGE, KIND_VMM, WINDOW};
use crate::ffi::{In, Out};
use crate::core::{Emulator, ExtentKind, HandleId, HandleTag, natural_align};
use crate::registry::Place;

/// CUmemGenericAllocationHandle values: "cu" in the top 16 bits and the
/// core handle below: never a canonical address, never reused.
const TAG: HandleTag = HandleTag::new(0x6375);

pub(super) fn to_handle(id: HandleId) -> CUmemGenericAllocationHandle {
    TAG.value(id) as CUmemGenericAllocationHandle
}

/// The core handle a value names; `HandleId(0)` (never live) for values without our tag.
pub(super) fn from_handle(h: CUmemGenericAllocationHandle) -> HandleId {
    TAG.id(h as usize).unwrap_or(HandleId(0))
}

fn is_device(e: &Emulator, id: i32) -> bool {
    e.is_device(i64::from(id))
}

/// The device a `CUmemLocation` names, for Set/GetAccess: a device
/// location with a valid id, 101 for a bad id, 801 for a host location on
/// device memory ([CUDA-VMM-013](vmmkit_sys::cuda::rules::VMM_013)), 1 for anything else.
fn access_location(e: &Emulator, l: CUmemLocation) -> Result<u32, Fail> {
    match l.type_ {
        CU_MEM_LOCATION_TYPE_DEVICE if is_device(e, l.id) => Ok(l.id as u32),
        CU_MEM_LOCATION_TYPE_DEVICE => {
            Err(Fail::plain(CuResult::INVALID_DEVICE, format!("location id {} is not a device", l.id)))
        }
        CU_MEM_LOCATION_TYPE_HOST | CU_MEM_LOCATION_TYPE_HOST_NUMA | CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT => {
            Err(Fail::rule_code(
                &rules::VMM_013,
                CuResult::NOT_SUPPORTED,
                format!("a host location (type {}) cannot be given access to device memory", l.type_),
            ))
        }
        t => Err(Fail::plain(CuResult::INVALID_VALUE, format!("location type {t} is not a location type"))),
    }
}

/// `CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop, CUmemAllocationGranularity_flags option)`:
/// NULL pointers, an option other than MINIMUM/RECOMMENDED, a type other
/// than PINNED or a location other than a device → 1. [CUDA-VMM-001](vmmkit_sys::cuda::rules::VMM_001): 2 MiB
/// for both options.
pub extern "C" fn cuMemGetAllocationGranularity(
    granularity: Out<'_, usize>,
    prop: In<'_, CUmemAllocationProp>,
    option: CUmemAllocationGranularity_flags,
) -> CUresult {
    run("cuMemGetAllocationGranularity", || {
        current()?;
        let bad = |m: String| Err(Fail::plain(CuResult::INVALID_VALUE, m));
        if granularity.is_null() || prop.is_null() {
            return bad("granularity or prop is NULL".into());
        }
        if option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED {
            return bad(format!("option must be 0 or 1, got {option}"));
        }
        let p = prop.read()?;
        if p.type_ != CU_MEM_ALLOCATION_TYPE_PINNED {
            return bad(format!("type must be CU_MEM_ALLOCATION_TYPE_PINNED (1), got {}", p.type_));
        }
        let e = emu()?;
        if p.location.type_ != CU_MEM_LOCATION_TYPE_DEVICE || !is_device(e, p.location.id) {
            return bad(format!("location (type {}, id {}) is not a device", p.location.type_, p.location.id));
        }
        granularity.write(GRANULARITY as usize)?;
        Ok(())
    })
}

/// `CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop, unsigned long long flags)`:
/// handle, prop NULL → 1; [CUDA-VMM-003](vmmkit_sys::cuda::rules::VMM_003) flags; [CUDA-VMM-002](vmmkit_sys::cuda::rules::VMM_002) size 0 or not a
/// multiple of the granularity; type PINNED; [CUDA-VMM-004](vmmkit_sys::cuda::rules::VMM_004) location HOST or
/// HOST_NUMA_CURRENT → 1 (HOST_NUMA: not emulated, 801), a bad device id →
/// 101, FABRIC requested → 800 (no IMEX channel); Windows handle types → 1;
/// too big → 2.
pub extern "C" fn cuMemCreate(
    handle: Out<'_, CUmemGenericAllocationHandle>,
    size: usize,
    prop: In<'_, CUmemAllocationProp>,
    flags: u64,
) -> CUresult {
    run("cuMemCreate", || {
        current()?;
        if handle.is_null() || prop.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "handle or prop is NULL".into()));
        }
        ensure!(flags == 0, rules::VMM_003, "flags must be 0, got {flags}");
        ensure!(
            size != 0 && size as u64 % GRANULARITY == 0,
            rules::VMM_002,
            "size {size:#x} is not a nonzero multiple of the minimum granularity {GRANULARITY:#x}"
        );
        let p = prop.read()?;
        if p.type_ != CU_MEM_ALLOCATION_TYPE_PINNED {
            return Err(Fail::plain(
                CuResult::INVALID_VALUE,
                format!("type must be CU_MEM_ALLOCATION_TYPE_PINNED (1), got {}", p.type_),
            ));
        }
        let l = p.location;
        ensure!(
            l.type_ != CU_MEM_LOCATION_TYPE_HOST && l.type_ != CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT,
            rules::VMM_004,
            "location type {} (HOST or HOST_NUMA_CURRENT) cannot hold a cuMemCreate allocation",
            l.type_
        );
        match l.type_ {
            CU_MEM_LOCATION_TYPE_DEVICE => {}
            CU_MEM_LOCATION_TYPE_HOST_NUMA => {
                return Err(Fail::plain(
                    CuResult::NOT_SUPPORTED,
                    "host NUMA allocations (location type 3) are not emulated".into(),
                ));
            }
            t => return Err(Fail::plain(CuResult::INVALID_VALUE, format!("location type {t} is not a device"))),
        }
        let e = emu()?;
        if !is_device(e, l.id) {
            return Err(Fail::plain(CuResult::INVALID_DEVICE, format!("location id {} is not a device", l.id)));
        }
        let types = p.requestedHandleTypes;
        ensure!(
            types & CU_MEM_HANDLE_TYPE_FABRIC == 0,
            rules::VMM_004 => CuResult::NOT_PERMITTED,
            "FABRIC handles need an IMEX channel, which this machine has none of"
        );
        if types & !CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR != 0 {
            return Err(Fail::plain(
                CuResult::INVALID_VALUE,
                format!("requestedHandleTypes {types:#x}: only POSIX_FILE_DESCRIPTOR (1) exists on Linux"),
            ));
        }
        let capacity = e.config().device_memory;
        if size as u64 > capacity {
            return Err(Fail::plain(
                CuResult::OUT_OF_MEMORY,
                format!("{size:#x} bytes exceed the device's {capacity:#x}"),
            ));
        }
        let props = [KIND_VMM, GRANULARITY, u64::from(types), size as u64];
        let id = e
            .create(Place::Device(l.id as u32), size as u64, GRANULARITY, props)
            .map_err(|e| Fail::core(Op::Create, e))?;
        handle.write(to_handle(id))?;
        Ok(())
    })
}

/// `CUresult cuMemRelease(CUmemGenericAllocationHandle handle)`: [CUDA-VMM-005](vmmkit_sys::cuda::rules::VMM_005)
/// release while mapped is allowed (the memory goes with the last mapping);
/// an unknown handle is undefined in CUDA, 1 here.
pub extern "C" fn cuMemRelease(handle: CUmemGenericAllocationHandle) -> CUresult {
    run("cuMemRelease", || {
        current()?;
        emu()?.free(from_handle(handle)).map_err(|e| Fail::core(Op::Release, e))
    })
}

/// `CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags)`:
/// ptr NULL → 1; [CUDA-VMM-003](vmmkit_sys::cuda::rules::VMM_003) flags; size 0 or not a multiple of the host
/// page → 1; [CUDA-VMM-006](vmmkit_sys::cuda::rules::VMM_006) alignment 0 or a power of two, `addr` a hint
/// (page-aligned); no room → 2.
pub extern "C" fn cuMemAddressReserve(
    ptr: Out<'_, CUdeviceptr>,
    size: usize,
    alignment: usize,
    addr: CUdeviceptr,
    flags: u64,
) -> CUresult {
    run("cuMemAddressReserve", || {
        current()?;
        if ptr.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "ptr is NULL".into()));
        }
        ensure!(flags == 0, rules::VMM_003, "flags must be 0, got {flags}");
        if size == 0 || size % HOST_PAGE != 0 || addr as usize % HOST_PAGE != 0 {
            return Err(Fail::plain(
                CuResult::INVALID_VALUE,
                format!(
                    "size {size:#x} and addr {addr:#x} must be multiples of the host page ({HOST_PAGE:#x}), size nonzero"
                ),
            ));
        }
        ensure!(
            alignment == 0 || alignment.is_power_of_two(),
            rules::VMM_006,
            "alignment {alignment:#x} is neither 0 nor a power of two"
        );
        if size > WINDOW.0.len() {
            return Err(Fail::plain(
                CuResult::OUT_OF_MEMORY,
                format!("{size:#x} bytes exceed the device address window"),
            ));
        }
        let e = emu()?;
        let align = natural_align(size, GRANULARITY as usize).max(alignment);
        // CUDA-VMM-006: `addr` is only a hint; where it cannot be had, elsewhere will do.
        let base = e.reserve_near(size, align, addr as usize, &WINDOW).map_err(|e| Fail::core(Op::Reserve, e))?;
        ptr.write(base as CUdeviceptr)?;
        Ok(())
    })
}

/// `CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)`: [CUDA-VMM-007](vmmkit_sys::cuda::rules::VMM_007)
/// `ptr` and `size` must be exactly a reservation's; emulator (probe P5): a
/// reservation that still holds mappings → 1.
pub extern "C" fn cuMemAddressFree(ptr: CUdeviceptr, size: usize) -> CUresult {
    run("cuMemAddressFree", || {
        current()?;
        let e = emu()?;
        let p = ptr as usize;
        let own = e.opened_at(p).is_none() && !e.is_plain(p);
        let exact = own && e.reservation(p).is_some_and(|r| r.base == p && r.len == size);
        ensure!(exact, rules::VMM_007, "{p:#x}+{size:#x} is not exactly a range cuMemAddressReserve returned");
        if e.has_mappings_in(p, size) {
            return Err(Fail::plain(
                CuResult::INVALID_VALUE,
                format!("{p:#x}+{size:#x} still holds mappings; cuMemUnmap them first"),
            ));
        }
        e.release(p).map_err(|e| Fail::core(Op::AddressFree, e))
    })
}

/// `CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle, unsigned long long flags)`:
/// [CUDA-VMM-003](vmmkit_sys::cuda::rules::VMM_003) flags; [CUDA-VMM-008](vmmkit_sys::cuda::rules::VMM_008) offset 0, size nonzero, inside a
/// reservation of the program, `ptr` and `size` multiples of the
/// granularity, size within the allocation; [CUDA-VMM-010](vmmkit_sys::cuda::rules::VMM_010) over a mapping →
/// 1; [CUDA-VMM-009](vmmkit_sys::cuda::rules::VMM_009) a partial map maps the first `size` bytes.
pub extern "C" fn cuMemMap(
    ptr: CUdeviceptr,
    size: usize,
    offset: usize,
    handle: CUmemGenericAllocationHandle,
    flags: u64,
) -> CUresult {
    run("cuMemMap", || {
        current()?;
        ensure!(flags == 0, rules::VMM_003, "flags must be 0, got {flags}");
        ensure!(offset == 0, rules::VMM_008, "offset must be 0, got {offset:#x}");
        ensure!(size != 0, rules::VMM_008, "size is 0");
        let e = emu()?;
        let p = ptr as usize;
        let foreign = matches!(extent(e, p).map(|x| x.kind), Some(ExtentKind::Plain(_) | ExtentKind::Opened));
        ensure!(
            !foreign,
            rules::VMM_008,
            "{p:#x} is cuMemAlloc'ed or IPC-opened memory, not a cuMemAddressReserve range"
        );
        e.map_unbound(p, size, from_handle(handle)).map_err(|e| Fail::core(Op::Map, e))
    })
}

/// `CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)`: [CUDA-VMM-011](vmmkit_sys::cuda::rules::VMM_011) the
/// range must be whole mappings exactly (no sub-range); it reverts to a
/// reservation, and a later map starts with no access.
pub extern "C" fn cuMemUnmap(ptr: CUdeviceptr, size: usize) -> CUresult {
    run("cuMemUnmap", || {
        current()?;
        let e = emu()?;
        let p = ptr as usize;
        let starts = if is_vmm(e, p) { e.exact_mappings(p, size) } else { None };
        ensure!(starts.is_some(), rules::VMM_011, "{p:#x}+{size:#x} is not exactly whole cuMemMap'ed ranges");
        match starts {
            Some(starts) => {
                for s in starts {
                    e.unmap(s).map_err(|e| Fail::core(Op::Unmap, e))?;
                }
                Ok(())
            }
            None => e.unmap(p).map_err(|e| Fail::core(Op::Unmap, e)),
        }
    })
}

/// `CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)`:
/// [CUDA-VMM-013](vmmkit_sys::cuda::rules::VMM_013) in this order: ptr, size, desc, count; each location (a
/// device; host → 801; bad id → 101) and its flags (0, 1 or 3); the range
/// wholly cuMemMap'ed. A later grant for a device replaces an earlier one.
pub extern "C" fn cuMemSetAccess(
    ptr: CUdeviceptr,
    size: usize,
    desc: In<'_, CUmemAccessDesc>,
    count: usize,
) -> CUresult {
    run("cuMemSetAccess", || {
        current()?;
        ensure!(
            ptr != 0 && size != 0 && !desc.is_null() && count != 0,
            rules::VMM_013,
            "ptr, size, desc and count must all be nonzero"
        );
        let e = emu()?;
        let descs: Vec<CUmemAccessDesc> = desc.to_vec(count)?;
        let mut grants = Vec::with_capacity(descs.len());
        for d in &descs {
            let device = access_location(e, d.location)?;
            if !matches!(
                d.flags,
                CU_MEM_ACCESS_FLAGS_PROT_NONE | CU_MEM_ACCESS_FLAGS_PROT_READ | CU_MEM_ACCESS_FLAGS_PROT_READWRITE
            ) {
                return Err(Fail::plain(CuResult::INVALID_VALUE, format!("flags must be 0, 1 or 3, got {}", d.flags)));
            }
            grants.push((device, d.flags));
        }
        let p = ptr as usize;
        let mapped = is_vmm(e, p) && e.exact_mappings(p, size).is_some();
        ensure!(mapped, rules::VMM_013, "{p:#x}+{size:#x} is not a range of whole cuMemMap'ed mappings");
        for (device, flags) in grants {
            e.grant_access(p, size, Place::Device(device), flags).map_err(|e| Fail::core(Op::SetAccess, e))?;
        }
        Ok(())
    })
}

/// `CUresult cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location, CUdeviceptr ptr)`:
/// NULL → 1; the location as for cuMemSetAccess; `ptr` inside a cuMemMap'ed
/// mapping. A device never granted access reads 0, the owner included.
pub extern "C" fn cuMemGetAccess(flags: Out<'_, u64>, location: In<'_, CUmemLocation>, ptr: CUdeviceptr) -> CUresult {
    run("cuMemGetAccess", || {
        current()?;
        if flags.is_null() || location.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "flags or location is NULL".into()));
        }
        let e = emu()?;
        let device = access_location(e, location.read()?)?;
        let p = ptr as usize;
        if !is_vmm(e, p) {
            return Err(Fail::plain(CuResult::INVALID_VALUE, format!("{p:#x} is not cuMemMap'ed memory")));
        }
        let f = e.get_access(p, Place::Device(device), 0).map_err(|e| Fail::core(Op::GetAccess, e))?;
        flags.write(u64::from(f))?;
        Ok(())
    })
}

/// `CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)`:
/// [CUDA-VMM-019](vmmkit_sys::cuda::rules::VMM_019) any address inside a cuMemMap'ed mapping gives the handle
/// that was mapped, with one more reference (one more cuMemRelease).
pub extern "C" fn cuMemRetainAllocationHandle(
    handle: Out<'_, CUmemGenericAllocationHandle>,
    addr: *mut c_void,
) -> CUresult {
    run("cuMemRetainAllocationHandle", || {
        current()?;
        if handle.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "handle is NULL".into()));
        }
        let e = emu()?;
        let p = addr as usize;
        ensure!(is_vmm(e, p), rules::VMM_019 => CuResult::INVALID_VALUE, "{addr:p} is not inside a cuMemMap'ed mapping");
        let id = e.retain(p).map_err(|e| Fail::core(Op::Retain, e))?;
        handle.write(to_handle(id))?;
        Ok(())
    })
}

/// `CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop, CUmemGenericAllocationHandle handle)`:
/// the creation properties (an imported handle: the exporter's, on the
/// device where the memory lives).
pub extern "C" fn cuMemGetAllocationPropertiesFromHandle(
    prop: Out<'_, CUmemAllocationProp>,
    handle: CUmemGenericAllocationHandle,
) -> CUresult {
    run("cuMemGetAllocationPropertiesFromHandle", || {
        current()?;
        if prop.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "prop is NULL".into()));
        }
        let info = emu()?.describe(from_handle(handle)).map_err(|e| Fail::core(Op::Query, e))?;
        let id = match info.place {
            Place::Device(d) | Place::Host(d) => d as i32,
        };
        let types = if info.props[0] == KIND_VMM { info.props[2] as u32 } else { CU_MEM_HANDLE_TYPE_NONE };
        let p = CUmemAllocationProp {
            type_: CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: types,
            location: CUmemLocation { type_: CU_MEM_LOCATION_TYPE_DEVICE, id },
            ..Default::default()
        };
        prop.write(p)?;
        Ok(())
    })
}
