//! Virtual memory management: granularity, physical memory, reservations,
//! maps, access rights (acl.md §4.2–§4.6, orders of §5).
#![allow(non_snake_case)]

use std::ffi::c_void;

use vmmkit_sys::acl::rules;
use vmmkit_sys::acl::*;
use vmmkit_sys::rule::Rule;

use super::call::{Fail, emu, ensure, run};
use super::codes::Op;
use crate::ffi::{In, Out};
use crate::core::{HandleId, HandleTag, MapSize, Window, natural_align};
use crate::registry::Place;

/// Granularity of every non-1G attribute: 2 MiB (acl.md §2.6).
pub(super) const GRANULE: u64 = 2 << 20;
/// Granularity of the 1G attributes (10, 14, 17).
pub(super) const GRANULE_1G: u64 = 1 << 30;
/// Device addresses: [16 TiB, 24 TiB) (acl.md §2.6, [ACL-RSV-008](vmmkit_sys::acl::rules::RSV_008)).
pub(super) const WINDOW: Window = crate::core::DEVICE_WINDOW;

/// ACL handles: the core's handle tag with ACL's prefix (0xacd0).
const TAG: HandleTag = HandleTag::new(0xacd0);

pub(super) fn to_handle(id: HandleId) -> aclrtDrvMemHandle {
    TAG.value(id) as aclrtDrvMemHandle
}

/// The core handle an ACL handle value names, if it carries ACL's tag.
pub(super) fn from_handle(h: aclrtDrvMemHandle) -> Option<HandleId> {
    TAG.id(h as usize)
}

fn is_1g(attr: aclrtMemAttr) -> bool {
    matches!(attr, ACL_HBM_MEM_HUGE1G | ACL_MEM_HUGE1G | ACL_MEM_P2P_HUGE1G)
}

fn is_ddr(attr: aclrtMemAttr) -> bool {
    matches!(attr, ACL_DDR_MEM_HUGE | ACL_DDR_MEM_NORMAL | ACL_DDR_MEM_P2P_HUGE | ACL_DDR_MEM_P2P_NORMAL)
}

/// [ACL-GRAN-003](vmmkit_sys::acl::rules::GRAN_003): the attributes accepted by MallocPhysical and the granularity query.
fn attr_known(attr: aclrtMemAttr) -> bool {
    matches!(attr, 2..=7 | 10 | 12..=17)
}

/// The (type, id) of a location, for the C structs.
pub(super) fn location_of(p: Place) -> (aclrtMemLocationType, u32) {
    match p {
        Place::Device(d) => (ACL_MEM_LOCATION_TYPE_DEVICE, d),
        Place::Host(n) => (ACL_MEM_LOCATION_TYPE_HOST, n),
    }
}

/// The ACL front-end checks of a property record (both MallocPhysical and the
/// granularity query), then the device id, then the driver's property checks.
/// Returns where the memory lives and its granularity.
/// `option` is the granularity query's: the driver checks it before its
/// property checks (devmm_svm.c:6959, before devmm_mem_prop_check).
fn check_prop(
    p: &aclrtPhysicalMemProp,
    gran: bool,
    option: Option<aclrtMemGranularityOptions>,
) -> Result<(Place, u64), Fail> {
    let loc = p.location.type_;
    let device = loc == ACL_MEM_LOCATION_TYPE_DEVICE;
    if gran {
        ensure!(!(device && is_ddr(p.memAttr)), rules::GRAN_002, "DDR attr {} on a DEVICE location", p.memAttr);
        ensure!(attr_known(p.memAttr), rules::GRAN_003, "memAttr {} is not accepted", p.memAttr);
    } else {
        ensure!(
            p.handleType == ACL_MEM_HANDLE_TYPE_NONE,
            rules::MP_004,
            "handleType must be NONE (0), got {}",
            p.handleType
        );
        ensure!(
            p.allocationType == ACL_MEM_ALLOCATION_TYPE_PINNED,
            rules::MP_005,
            "allocationType must be PINNED (0), got {}",
            p.allocationType
        );
        ensure!(
            loc != ACL_MEM_LOCATION_TYPE_UNREGISTERED && loc != ACL_MEM_LOCATION_TYPE_MANAGED,
            rules::MP_006,
            "location type {loc} is not accepted"
        );
        ensure!(!(device && is_ddr(p.memAttr)), rules::MP_007, "DDR attr {} on a DEVICE location", p.memAttr);
        ensure!(attr_known(p.memAttr), rules::MP_007, "memAttr {} is not accepted", p.memAttr);
    }
    let e = emu()?;
    if device {
        let rule = if gran { &rules::GRAN_004 } else { &rules::MP_008 };
        if !e.is_device(i64::from(p.location.id)) && crate::mutation::enforced(rule) {
            return Err(Fail::rule_code(
                rule,
                AclError::RT_INVALID_DEVICEID,
                format!("device {} does not exist", p.location.id),
            ));
        }
    }
    if loc == ACL_MEM_LOCATION_TYPE_HOST_NUMA && !gran {
        ensure!(crate::core::thread::current_device().is_some(), rules::MP_009, "HOST_NUMA needs a current context");
    }
    if let Some(option) = option {
        ensure!(
            option == ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM || option == ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
            rules::GRAN_005,
            "option must be MINIMUM (0) or RECOMMENDED (1), got {option}"
        );
    }
    // Driver (HAL) property checks, in devmm_mem_prop_check's order: side,
    // device id, giant pages, reserve; then halMemCreate's HOST id.
    let bad_type = loc == ACL_MEM_LOCATION_TYPE_MANAGED && gran || !(0..5).contains(&loc);
    let (rule_type, rule_rsv) =
        if gran { (&rules::GRAN_006, &rules::GRAN_007) } else { (&rules::MP_012, &rules::MP_012) };
    if bad_type && crate::mutation::enforced(rule_type) {
        return Err(Fail::rule_code(
            rule_type,
            AclError::RT_PARAM_INVALID,
            format!("location type {loc} is not accepted"),
        ));
    }
    if loc == ACL_MEM_LOCATION_TYPE_HOST && !gran {
        // ACL-MP-011: a HOST id past the device ids is an invalid value (107000)
        // before the giant-page checks; ids 1-63 are "not supported" after them.
        let ok = p.location.id < 64;
        ensure!(ok, rules::MP_011 => AclError::RT_PARAM_INVALID, "HOST location id {} is >= 64", p.location.id);
    }
    let host = !device;
    if host && is_1g(p.memAttr) {
        let rule = if gran { &rules::GRAN_008 } else { &rules::MP_010 };
        if p.memAttr != ACL_MEM_P2P_HUGE1G && crate::mutation::enforced(rule) {
            return Err(Fail::rule_code(
                rule,
                AclError::RT_FEATURE_NOT_SUPPORT,
                format!("1G attr {} is not supported on the host", p.memAttr),
            ));
        }
    }
    if p.reserve != 0 && crate::mutation::enforced(rule_rsv) {
        return Err(Fail::rule_code(
            rule_rsv,
            AclError::RT_PARAM_INVALID,
            format!("prop.reserve must be 0, got {}", p.reserve),
        ));
    }
    if loc == ACL_MEM_LOCATION_TYPE_HOST && !gran {
        ensure!(p.location.id == 0, rules::MP_011, "a HOST location must have id 0, got {}", p.location.id);
    }
    let place = if device {
        Place::Device(p.location.id)
    } else {
        Place::Host(if loc == ACL_MEM_LOCATION_TYPE_HOST_NUMA { p.location.id } else { 0 })
    };
    Ok((place, if is_1g(p.memAttr) { GRANULE_1G } else { GRANULE }))
}

/// `aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop, aclrtMemGranularityOptions option, size_t *granularity)`:
/// [ACL-GRAN-001](vmmkit_sys::acl::rules::GRAN_001), 002, 003, 004, 005, 006, 008, 007, 009, 010.
pub extern "C" fn aclrtMemGetAllocationGranularity(
    prop: In<'_, aclrtPhysicalMemProp>,
    option: aclrtMemGranularityOptions,
    granularity: Out<'_, usize>,
) -> aclError {
    run("aclrtMemGetAllocationGranularity", || {
        ensure!(!prop.is_null(), rules::GRAN_001, "prop is NULL");
        ensure!(!granularity.is_null(), rules::GRAN_001, "granularity is NULL");
        let p = prop.read()?;
        let (_, g) = check_prop(&p, true, Some(option))?;
        granularity.write(g as usize)?;
        Ok(())
    })
}

/// `aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size, const aclrtPhysicalMemProp *prop, uint64_t flags)`:
/// [ACL-MP-001](vmmkit_sys::acl::rules::MP_001) … [ACL-MP-015](vmmkit_sys::acl::rules::MP_015) in the order of acl.md §5.
pub extern "C" fn aclrtMallocPhysical(
    handle: Out<'_, aclrtDrvMemHandle>,
    size: usize,
    prop: In<'_, aclrtPhysicalMemProp>,
    flags: u64,
) -> aclError {
    run("aclrtMallocPhysical", || {
        ensure!(!handle.is_null(), rules::MP_001, "handle is NULL");
        ensure!(!prop.is_null(), rules::MP_001, "prop is NULL");
        ensure!(size != 0, rules::MP_002, "size is 0");
        ensure!(flags == 0, rules::MP_003, "flags must be 0, got {flags}");
        let p = prop.read()?;
        let (place, granule) = check_prop(&p, false, None)?;
        // ACL-MP-014: 1G attributes round any size up to whole GiB.
        let size = if granule == GRANULE_1G {
            (size as u64)
                .checked_next_multiple_of(GRANULE_1G)
                .ok_or_else(|| Fail::rule(&rules::MP_015, format!("{size} bytes do not fit")))?
        } else {
            size as u64
        };
        let props = [p.memAttr as u64, granule, p.location.type_ as u64, u64::from(p.location.id)];
        let id = emu()?.create(place, size, granule, props).map_err(|e| Fail::core(Op::MallocPhysical, e))?;
        handle.write(to_handle(id))?;
        Ok(())
    })
}

/// `aclError aclrtFreePhysical(aclrtDrvMemHandle handle)`: [ACL-FP-001](vmmkit_sys::acl::rules::FP_001), [ACL-FP-004](vmmkit_sys::acl::rules::FP_004), [ACL-FP-003](vmmkit_sys::acl::rules::FP_003).
pub extern "C" fn aclrtFreePhysical(handle: aclrtDrvMemHandle) -> aclError {
    run("aclrtFreePhysical", || {
        ensure!(!handle.is_null(), rules::FP_001, "handle is NULL");
        let id = from_handle(handle).unwrap_or(HandleId(0));
        emu()?.free(id).map_err(|e| Fail::core(Op::FreePhysical, e))
    })
}

fn reserve(
    virPtr: Out<'_, *mut c_void>,
    size: usize,
    alignment: usize,
    expectPtr: *mut c_void,
    flags: u64,
) -> Result<(), Fail> {
    ensure!(!virPtr.is_null(), rules::RSV_001, "virPtr is NULL");
    ensure!(size != 0, rules::RSV_002, "size is 0");
    ensure!(flags <= 1, rules::RSV_003, "flags must be 0 or 1, got {flags}");
    ensure!(alignment == 0, rules::RSV_004, "alignment must be 0, got {alignment:#x}");
    let window = &WINDOW.0;
    let want = (size as u64).checked_next_multiple_of(GRANULE).filter(|&n| n <= (window.end - window.start) as u64);
    let Some(len) = want.map(|n| n as usize) else {
        if !crate::mutation::enforced(&rules::RSV_009) {
            return Ok(()); // mutated: report success without a reservation
        }
        return Err(Fail::rule(&rules::RSV_009, format!("{size:#x} bytes exceed the address window")));
    };
    let hint = (!expectPtr.is_null()).then_some(expectPtr as usize);
    if let Some(addr) = hint {
        // ACL-RSV-005 (source thresholds, D4): > 512 MiB needs 1 GiB; otherwise 2 MiB,
        // and above 2 MiB also the smallest power of two >= size.
        let need = if size > 512 << 20 {
            1 << 30
        } else if size > 2 << 20 {
            size.next_power_of_two().max(2 << 20)
        } else {
            2 << 20
        };
        ensure!(addr % need == 0, rules::RSV_005, "expectPtr {addr:#x} is not aligned to {need:#x}");
        let inside = addr >= window.start && addr.checked_add(len).is_some_and(|e| e <= window.end);
        // ACL-RSV-006: the allocator finds no free heap at a fixed address and
        // reports BUSY (devmm_virt_interface.c:1491), which the runtime maps to 507899.
        ensure!(inside, rules::RSV_006, "expectPtr {addr:#x} lies outside the device address window");
    }
    let base = emu()?
        .reserve(len, natural_align(len, GRANULE as usize), hint, &WINDOW)
        .map_err(|e| Fail::core(Op::Reserve, e))?;
    virPtr.write(base as *mut c_void)?;
    Ok(())
}

/// `aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr, uint64_t flags)`:
/// [ACL-RSV-001](vmmkit_sys::acl::rules::RSV_001) … [ACL-RSV-009](vmmkit_sys::acl::rules::RSV_009).
pub extern "C" fn aclrtReserveMemAddress(
    virPtr: Out<'_, *mut c_void>,
    size: usize,
    alignment: usize,
    expectPtr: *mut c_void,
    flags: u64,
) -> aclError {
    run("aclrtReserveMemAddress", || reserve(virPtr, size, alignment, expectPtr, flags))
}

/// `aclrtReserveMemAddressNoUCMemory`: on a chip with the dynamic window
/// (A3, `VMMKIT_SOC`), a reservation at the chosen address there
/// ([ACL-RSV-011](vmmkit_sys::acl::rules::RSV_011), 012, 013); on 910B, as aclrtReserveMemAddress ([ACL-RSV-011](vmmkit_sys::acl::rules::RSV_011)).
pub extern "C" fn aclrtReserveMemAddressNoUCMemory(
    virPtr: Out<'_, *mut c_void>,
    size: usize,
    alignment: usize,
    expectPtr: *mut c_void,
    flags: u64,
) -> aclError {
    run("aclrtReserveMemAddressNoUCMemory", || match super::profile::no_uc_window() {
        Some(window) => reserve_no_uc(virPtr, size, alignment, expectPtr, flags, &window),
        // 910B: unsupported (its page); a fixed address outside the window
        // is refused as ACL-RSV-006, which ACL-RSV-011 states for this chip.
        None => reserve(virPtr, size, alignment, expectPtr, flags).map_err(|f| match f.rule {
            Some(r) if r.id == rules::RSV_006.id => Fail::rule_code(
                &rules::RSV_011,
                f.code,
                format!("{} ({} has no dynamic window)", f.msg, soc_name()),
            ),
            _ => f,
        }),
    })
}

/// The A3 path of aclrtReserveMemAddressNoUCMemory, in the vendor's order:
/// ACL's checks (memory.cpp:2043-2049), the driver's parameter checks
/// (devmm_svm.c:5503-5536: alignment, the address alignment of [ACL-RSV-005](vmmkit_sys::acl::rules::RSV_005),
/// a fixed address required), then the dynamic allocator's
/// (devmm_dynamic_addr.c:336 whole GiB, :198 GiB-aligned address) and its
/// fixed mapping (:194-217), which fails where the range is in use.
fn reserve_no_uc(
    virPtr: Out<'_, *mut c_void>,
    size: usize,
    alignment: usize,
    expectPtr: *mut c_void,
    flags: u64,
    window: &Window,
) -> Result<(), Fail> {
    ensure!(!virPtr.is_null(), rules::RSV_001, "virPtr is NULL");
    ensure!(size != 0, rules::RSV_002, "size is 0");
    ensure!(flags <= 1, rules::RSV_003, "flags must be 0 or 1, got {flags}");
    ensure!(alignment == 0, rules::RSV_004, "alignment must be 0, got {alignment:#x}");
    let addr = expectPtr as usize;
    if addr != 0 {
        let need = if size > 512 << 20 { GRANULE_1G as usize } else { (size.next_power_of_two()).max(2 << 20) };
        ensure!(addr % need == 0, rules::RSV_005, "expectPtr {addr:#x} is not aligned to {need:#x}");
    }
    ensure!(addr != 0, rules::RSV_012, "the dynamic window of {} takes fixed addresses only", soc_name());
    ensure!(size as u64 % GRANULE_1G == 0, rules::RSV_013, "size {size:#x} is not a whole number of GiB");
    ensure!(addr as u64 % GRANULE_1G == 0, rules::RSV_013, "expectPtr {addr:#x} is not 1 GiB aligned");
    let inside = addr >= window.0.start && addr.checked_add(size).is_some_and(|e| e <= window.0.end);
    // Outside the dynamic window the fixed mapping finds the range in use
    // (the driver's devmm_svm_map_with_flag, devmm_dynamic_addr.c:185-186):
    // out of memory, 207001, as ACL-RSV-009.
    ensure!(
        inside,
        rules::RSV_009,
        "expectPtr {addr:#x} + {size:#x} lies outside the dynamic window [{:#x}, {:#x}) of {}",
        window.0.start,
        window.0.end,
        soc_name()
    );
    let base = emu()?.reserve(size, GRANULE_1G as usize, Some(addr), window).map_err(|e| Fail::core(Op::Reserve, e))?;
    virPtr.write(base as *mut c_void)?;
    Ok(())
}

fn soc_name() -> std::borrow::Cow<'static, str> {
    super::profile::soc().name.to_string_lossy()
}

/// `aclError aclrtReleaseMemAddress(void *virPtr)`: [ACL-REL-001](vmmkit_sys::acl::rules::REL_001), [ACL-REL-002](vmmkit_sys::acl::rules::REL_002); live
/// mappings are unmapped ([ACL-REL-004](vmmkit_sys::acl::rules::REL_004), emulator choice).
pub extern "C" fn aclrtReleaseMemAddress(virPtr: *mut c_void) -> aclError {
    run("aclrtReleaseMemAddress", || {
        ensure!(!virPtr.is_null(), rules::REL_001, "virPtr is NULL");
        emu()?.release(virPtr as usize).map_err(|e| Fail::core(Op::Release, e))
    })
}

fn map(virPtr: *mut c_void, size: usize, offset: usize, handle: aclrtDrvMemHandle, flags: u64) -> Result<(), Fail> {
    ensure!(!virPtr.is_null(), rules::MAP_001, "virPtr is NULL");
    ensure!(!handle.is_null(), rules::MAP_001, "handle is NULL");
    ensure!(size != 0, rules::MAP_002, "size is 0");
    ensure!(flags == 0, rules::MAP_003, "flags must be 0, got {flags}");
    // ACL-MAP-004: ACL does not check offset; the driver does, so this is 107000, not 100000.
    ensure!(offset == 0, rules::MAP_004, "offset must be 0, got {offset:#x}");
    let id = from_handle(handle).unwrap_or(HandleId(0));
    // ACL-MAP-012 (undetermined, emulator choice): the map size must equal the physical size.
    emu()?.map(virPtr as usize, size, id, MapSize::Exact).map_err(|e| Fail::core(Op::MapMem, e))
}

/// `aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags)`:
/// [ACL-MAP-001](vmmkit_sys::acl::rules::MAP_001), 002, 003, 004, 005, then 006, 007, 008, 009, 012, 010.
pub extern "C" fn aclrtMapMem(
    virPtr: *mut c_void,
    size: usize,
    offset: usize,
    handle: aclrtDrvMemHandle,
    flags: u64,
) -> aclError {
    run("aclrtMapMem", || map(virPtr, size, offset, handle, flags))
}

/// `aclrtMemMapNoAccess`: as aclrtMapMem (the emulator keeps no separate access state for it).
pub extern "C" fn aclrtMemMapNoAccess(
    virPtr: *mut c_void,
    size: usize,
    offset: usize,
    handle: aclrtDrvMemHandle,
    flags: u64,
) -> aclError {
    run("aclrtMemMapNoAccess", || map(virPtr, size, offset, handle, flags))
}

/// `aclError aclrtUnmapMem(void *virPtr)`: [ACL-UNMAP-001](vmmkit_sys::acl::rules::UNMAP_001), [ACL-UNMAP-002](vmmkit_sys::acl::rules::UNMAP_002).
pub extern "C" fn aclrtUnmapMem(virPtr: *mut c_void) -> aclError {
    run("aclrtUnmapMem", || {
        ensure!(!virPtr.is_null(), rules::UNMAP_001, "virPtr is NULL");
        emu()?.unmap(virPtr as usize).map_err(|e| Fail::core(Op::UnmapMem, e))
    })
}

/// `aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc, size_t count)`:
/// [ACL-ACC-001](vmmkit_sys::acl::rules::ACC_001), 002, 003, 004, then 005, 007. Descriptors are read at their
/// true 24-byte stride ([ACL-ACC-008](vmmkit_sys::acl::rules::ACC_008): the real runtime misreads entries after the first).
pub extern "C" fn aclrtMemSetAccess(
    virPtr: *mut c_void,
    size: usize,
    desc: In<'_, aclrtMemAccessDesc>,
    count: usize,
) -> aclError {
    run("aclrtMemSetAccess", || {
        ensure!(!virPtr.is_null(), rules::ACC_001, "virPtr is NULL");
        ensure!(!desc.is_null(), rules::ACC_001, "desc is NULL");
        ensure!(count >= 1, rules::ACC_002, "count must be at least 1");
        let mut grants = Vec::with_capacity(count.min(64));
        for i in 0..count.min(64) {
            let d = desc.read_at(i)?;
            let f = d.flags;
            ensure!(
                f == ACL_RT_MEM_ACCESS_FLAGS_READWRITE
                    || f == ACL_RT_MEM_ACCESS_FLAGS_NONE
                    || f == ACL_RT_MEM_ACCESS_FLAGS_READ,
                rules::ACC_003 => AclError::RT_PARAM_INVALID,
                "access flags {f} are not valid"
            );
            ensure!(f == ACL_RT_MEM_ACCESS_FLAGS_READWRITE, rules::ACC_003, "only READWRITE (3) is supported, got {f}");
            let l = d.location;
            let place = match l.type_ {
                ACL_MEM_LOCATION_TYPE_HOST if l.id == 0 => Some(Place::Host(0)),
                ACL_MEM_LOCATION_TYPE_DEVICE if l.id < 64 => Some(Place::Device(l.id)),
                _ => None,
            };
            ensure!(
                place.is_some(),
                rules::ACC_004,
                "location (type {}, id {}) is not HOST 0 or DEVICE < 64",
                l.type_,
                l.id
            );
            grants.push((place.unwrap_or(Place::Host(0)), f as u32));
        }
        let e = emu()?;
        for (place, f) in grants {
            e.set_access(virPtr as usize, size, place, f).map_err(|e| Fail::core(Op::SetAccess, e))?;
        }
        Ok(())
    })
}

/// `aclError aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location, uint64_t *flag)`:
/// [ACL-ACC-009](vmmkit_sys::acl::rules::ACC_009), [ACL-ACC-010](vmmkit_sys::acl::rules::ACC_010). The owner device has READWRITE.
pub extern "C" fn aclrtMemGetAccess(
    virPtr: *mut c_void,
    location: In<'_, aclrtMemLocation>,
    flag: Out<'_, u64>,
) -> aclError {
    run("aclrtMemGetAccess", || {
        ensure!(!virPtr.is_null() && !location.is_null() && !flag.is_null(), rules::ACC_009, "a pointer is NULL");
        let l = location.read()?;
        let place = if l.type_ == ACL_MEM_LOCATION_TYPE_DEVICE { Place::Device(l.id) } else { Place::Host(l.id) };
        let f = emu()?
            .get_access(virPtr as usize, place, ACL_RT_MEM_ACCESS_FLAGS_READWRITE as u32)
            .map_err(|e| Fail::core(Op::GetAccess, e))?;
        flag.write(u64::from(f))?;
        Ok(())
    })
}

/// Reservations over this size are heaps of their own in the driver
/// (DEVMM_LARGE_MEM_THRESHOLD_SIZE, devmm_svm.h:46).
const LARGE_RESERVATION: usize = 512 << 20;

/// [ACL-RET-001](vmmkit_sys::acl::rules::RET_001): the driver finds a mapping by the exact VA it was mapped at
/// (the map record's key, devmm_svm.c:5986), after the address attribute
/// (devmm_svm.c:2601). A never-mapped reservation over 512 MiB has no side in
/// its heap yet: INVALID_HANDLE (107017, devmm_svm.c:2564); every other miss
/// (interior address, unmapped VA, aclrtMalloc or host memory) is the record
/// lookup's NOT_EXIST, 507899.
/// `Ok(false)`: a mutated rule lets the call report success without a handle.
fn retain_start(e: &crate::core::Emulator, va: usize) -> Result<bool, Fail> {
    // ACL-RET-006: aclrtMalloc memory has no VMM map record.
    ensure!(e.plain_at(va).is_none(), rules::RET_006, "{va:#x} is aclrtMalloc memory, not a VMM mapping");
    let mapping = e.mapping(va);
    if mapping.as_ref().is_some_and(|(start, _)| *start == va) {
        return Ok(true);
    }
    let rsv = e.reservation(va);
    unmapped_large(rsv.as_ref(), &rules::RET_001)?;
    // ACL-RET-005: a VA whose reservation was mapped once (the binding stays) but holds no mapping now.
    let was_mapped = mapping.is_none() && rsv.is_some_and(|r| r.bound.is_some());
    if was_mapped {
        ensure!(false, rules::RET_005, "{va:#x} was unmapped: its map record is gone");
        return Ok(false);
    }
    ensure!(false, rules::RET_001, "{va:#x} is not the start of a live VMM mapping");
    Ok(false)
}

/// [ACL-RET-001](vmmkit_sys::acl::rules::RET_001), [ACL-QRY-003](vmmkit_sys::acl::rules::QRY_003): a never-mapped reservation over 512 MiB is a heap
/// with no side yet; the address attribute query fails with INVALID_HANDLE
/// (devmm_svm.c:2564).
pub(super) fn unmapped_large(rsv: Option<&crate::core::ReservationInfo>, rule: &'static Rule) -> Result<(), Fail> {
    let fresh_large = rsv.is_some_and(|r| r.bound.is_none() && r.len > LARGE_RESERVATION);
    if fresh_large && crate::mutation::enforced(rule) {
        return Err(Fail::rule_code(
            rule,
            AclError::RT_INVALID_HANDLE,
            "the address lies in a reservation over 512 MiB that was never mapped".into(),
        ));
    }
    Ok(())
}

/// `aclError aclrtMemRetainAllocationHandle(void *virPtr, aclrtDrvMemHandle *handle)`: [ACL-RET-001](vmmkit_sys::acl::rules::RET_001).
pub extern "C" fn aclrtMemRetainAllocationHandle(
    virPtr: *mut c_void,
    handle: Out<'_, aclrtDrvMemHandle>,
) -> aclError {
    run("aclrtMemRetainAllocationHandle", || {
        if virPtr.is_null() || handle.is_null() {
            return Err(Fail::plain(AclError::INVALID_PARAM, "virPtr or handle is NULL".into()));
        }
        let e = emu()?;
        if !retain_start(e, virPtr as usize)? {
            return Ok(());
        }
        let id = e.retain(virPtr as usize).map_err(|e| Fail::core(Op::Retain, e))?;
        handle.write(to_handle(id))?;
        Ok(())
    })
}

/// `aclError aclrtMemGetAllocationPropertiesFromHandle(aclrtDrvMemHandle handle, aclrtPhysicalMemProp *prop)`:
/// an imported handle reports the exporter's attribute and the importing device ([ACL-IMP-017](vmmkit_sys::acl::rules::IMP_017)).
pub extern "C" fn aclrtMemGetAllocationPropertiesFromHandle(
    handle: aclrtDrvMemHandle,
    prop: Out<'_, aclrtPhysicalMemProp>,
) -> aclError {
    run("aclrtMemGetAllocationPropertiesFromHandle", || {
        if handle.is_null() || prop.is_null() {
            return Err(Fail::plain(AclError::INVALID_PARAM, "handle or prop is NULL".into()));
        }
        let id = from_handle(handle).unwrap_or(HandleId(0));
        let info = emu()?.describe(id).map_err(|e| Fail::core(Op::Query, e))?;
        let (type_, loc_id) = match info.owner {
            Place::Host(n) if info.props[2] == ACL_MEM_LOCATION_TYPE_HOST_NUMA as u64 => {
                (ACL_MEM_LOCATION_TYPE_HOST_NUMA, n)
            }
            p => location_of(p),
        };
        let p = aclrtPhysicalMemProp {
            handleType: ACL_MEM_HANDLE_TYPE_NONE,
            allocationType: ACL_MEM_ALLOCATION_TYPE_PINNED,
            memAttr: info.props[0] as aclrtMemAttr,
            location: aclrtMemLocation { id: loc_id, type_ },
            reserve: 0,
        };
        prop.write(p)?;
        Ok(())
    })
}

/// `aclError aclrtMemGetAddressRange(void *ptr, void **pbase, size_t *psize)`: [ACL-RET-002](vmmkit_sys::acl::rules::RET_002), [ACL-QRY-001](vmmkit_sys::acl::rules::QRY_001).
pub extern "C" fn aclrtMemGetAddressRange(
    ptr: *mut c_void,
    pbase: Out<'_, *mut c_void>,
    psize: Out<'_, usize>,
) -> aclError {
    run("aclrtMemGetAddressRange", || {
        if ptr.is_null() || (pbase.is_null() && psize.is_null()) {
            return Err(Fail::plain(AclError::INVALID_PARAM, "ptr is NULL, or both outputs are".into()));
        }
        let (base, len) = emu()?.address_range(ptr as usize).map_err(|e| Fail::core(Op::Query, e))?;
        pbase.write_if_given(base as *mut c_void);
        psize.write_if_given(len);
        Ok(())
    })
}
