//! The allocation variants (Align32, Cached, WithCfg,
//! ForTaskScheduler, HostWithCfg), the frees that synchronize the device
//! first, host registration, managed memory, and the usage, type, UCE and
//! link queries. Behaviour and codes follow hicann/runtime@681ef76
//! `src/acl/aclrt_impl/memory.cpp` (the ACL layer's NULL and size checks,
//! 100000) and `src/runtime/api/impl/api_error.cc` / `api_impl.cc` (the
//! runtime's, 107000 and up); docs/emulator.md "ACL memory surface (issue
//! 18)" lists each fact with its line.
#![allow(non_snake_case)]

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::{c_char, c_void};
use std::sync::Mutex;

use vmmkit_sys::acl::rules;
use vmmkit_sys::acl::*;

use super::call::{Fail, current_device, emu, ensure, non_null, run};
use crate::ffi::{CStrIn, In, Out};
use super::codes::Op;
use super::state::{lock, state};
use crate::core::{Emulator, Side};

/// What ACL keeps for the functions, per process (in [`super::state::State`]).
#[derive(Debug, Default)]
pub(super) struct MemState {
    /// Registered host ranges by start: (length, mapped to the device, pinned).
    pub registered: Mutex<BTreeMap<usize, Registered>>,
    /// Managed allocations by start.
    pub managed: Mutex<BTreeMap<usize, Managed>>,
    /// Allocator descriptions alive (aclrtAllocatorCreateDesc), by address.
    pub allocator_descs: Mutex<HashSet<usize>>,
    /// Registered allocators by stream value: the user's description and a copy of it.
    pub allocators: Mutex<HashMap<usize, (usize, super::allocator::Desc)>>,
    /// Mbufs alive, by handle value.
    pub mbufs: Mutex<HashMap<usize, super::mbuf::Mbuf>>,
}

/// One registered host range.
#[derive(Debug, Clone, Copy)]
pub(super) struct Registered {
    pub len: usize,
    pub mapped: bool,
}

/// One managed allocation and its advice.
#[derive(Debug, Clone, Default)]
pub(super) struct Managed {
    pub len: usize,
    pub read_mostly: bool,
    pub preferred: Option<aclrtMemManagedLocation>,
    pub accessed_by: Vec<aclrtMemManagedLocation>,
    pub last_prefetch: Option<aclrtMemManagedLocation>,
}

/// The issue-18 state of the running emulator.
pub(super) fn mem(e: &Emulator) -> &MemState {
    &state(e).memory
}

/// A failure with `code` and no rule of its own (argument checks of the vendor's layers).
pub(super) fn bad(code: AclError, msg: impl Into<String>) -> Fail {
    Fail::plain(code, msg.into())
}

/// The ACL layer's size check (ACL_REQUIRES_POSITIVE): 100000.
pub(super) fn positive(n: u64, what: &str) -> Result<(), Fail> {
    if n == 0 { Err(bad(AclError::INVALID_PARAM, format!("{what} is 0"))) } else { Ok(()) }
}

/// A device id the runtime accepts, or 107001.
pub(super) fn valid_device(e: &Emulator, d: i64) -> Result<u32, Fail> {
    if e.is_device(d) {
        Ok(d as u32)
    } else {
        Err(bad(AclError::RT_INVALID_DEVICEID, format!("device {d} does not exist")))
    }
}

/// The attributes of an `aclrtMallocConfig` (memory.cpp:353-363: attrs NULL
/// with numAttrs > 0 is 100000); the device an ACL_RT_MEM_ATTR_DEVICE_ID
/// names, if any. Unknown attribute kinds are 107000 (the runtime's check).
fn config_device(cfg: In<'_, aclrtMallocConfig>) -> Result<Option<i64>, Fail> {
    let Some(c) = cfg.read_if_given() else {
        return Ok(None);
    };
    if c.numAttrs == 0 {
        return Ok(None);
    }
    non_null(c.attrs, "cfg->attrs (with cfg->numAttrs > 0)")?;
    // The config holds numAttrs attributes.
    let attrs = cfg.held_at(0, |c| c.attrs.cast_const())?;
    let mut device = None;
    for i in 0..c.numAttrs {
        let a = attrs.read_at(i)?;
        match a.attr {
            ACL_RT_MEM_ATTR_DEVICE_ID => device = Some(i64::from(a.value.rsv[0])),
            ACL_RT_MEM_ATTR_RSV | ACL_RT_MEM_ATTR_MODULE_ID | ACL_RT_MEM_ATTR_VA_FLAG => {}
            other => return Err(bad(AclError::RT_PARAM_INVALID, format!("cfg->attrs[{i}].attr {other} is unknown"))),
        }
    }
    Ok(device)
}

/// The check order of aclrtMallocInnerWithCfg (memory.cpp:345-373): devPtr,
/// the config's attrs, size; then the allocation on the configured device
/// (or the current one).
fn malloc_with_cfg(
    devPtr: Out<'_, *mut c_void>,
    size: usize,
    policy: aclrtMemMallocPolicy,
    cfg: In<'_, aclrtMallocConfig>,
) -> Result<(), Fail> {
    non_null(devPtr, "devPtr")?;
    if let Some(c) = cfg.read_if_given() {
        if c.numAttrs != 0 && c.attrs.is_null() {
            return Err(bad(AclError::INVALID_PARAM, "cfg->attrs must not be NULL when cfg->numAttrs is not 0"));
        }
    }
    positive(size as u64, "size")?;
    let device = match config_device(cfg)? {
        Some(d) => valid_device(emu()?, d)?,
        None => current_device()?,
    };
    super::memory::device_malloc(devPtr, size, policy, device)
}

/// `aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)`:
/// aclrtMalloc without the padding (memory.cpp:383-387); the emulator's
/// allocations are granule-rounded either way.
pub extern "C" fn aclrtMallocAlign32(
    devPtr: Out<'_, *mut c_void>,
    size: usize,
    policy: aclrtMemMallocPolicy,
) -> aclError {
    run("aclrtMallocAlign32", || super::memory::malloc(devPtr, size, policy))
}

/// `aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy)`:
/// device memory the device caches (memory.cpp:389-416); host memory is
/// coherent, so it is aclrtMalloc's.
pub extern "C" fn aclrtMallocCached(
    devPtr: Out<'_, *mut c_void>,
    size: usize,
    policy: aclrtMemMallocPolicy,
) -> aclError {
    run("aclrtMallocCached", || super::memory::malloc(devPtr, size, policy))
}

/// `aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy, aclrtMallocConfig *cfg)`.
pub extern "C" fn aclrtMallocWithCfg(
    devPtr: Out<'_, *mut c_void>,
    size: usize,
    policy: aclrtMemMallocPolicy,
    cfg: In<'_, aclrtMallocConfig>,
) -> aclError {
    run("aclrtMallocWithCfg", || malloc_with_cfg(devPtr, size, policy, cfg))
}

/// `aclError aclrtMallocForTaskScheduler(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
/// aclrtMallocConfig *cfg)`: aclrtMallocWithCfg with the task-scheduler advice (memory.cpp:426-432).
pub extern "C" fn aclrtMallocForTaskScheduler(
    devPtr: Out<'_, *mut c_void>,
    size: usize,
    policy: aclrtMemMallocPolicy,
    cfg: In<'_, aclrtMallocConfig>,
) -> aclError {
    run("aclrtMallocForTaskScheduler", || malloc_with_cfg(devPtr, size, policy, cfg))
}

/// `aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg)`:
/// ptr NULL and size 0 are 100000 (memory.cpp:434-444); the buffer is aclrtMallocHost's.
pub extern "C" fn aclrtMallocHostWithCfg(ptr: Out<'_, *mut c_void>, size: u64, cfg: In<'_, aclrtMallocConfig>) -> aclError {
    run("aclrtMallocHostWithCfg", || {
        non_null(ptr, "ptr")?;
        positive(size, "size")?;
        config_device(cfg)?;
        let size = usize::try_from(size).map_err(|_| bad(AclError::RT_MEMORY_ALLOCATION, "size too large"))?;
        let p = emu()?.alloc_host(size).map_err(|e| bad(AclError::RT_MEMORY_ALLOCATION, e.to_string()))?;
        ptr.write(p as *mut c_void)?;
        Ok(())
    })
}

/// Waits for all work of the current device (the "with device sync" of the frees).
fn sync_current_device() -> Result<(), Fail> {
    let d = current_device()?;
    emu()?.device_synchronize(Some(d), None).map_err(|e| Fail::core(Op::Copy, e))
}

/// `aclError aclrtFreeWithDevSync(void *devPtr)`: the device's work is
/// waited for, then aclrtFree (memory.cpp:627-637).
pub extern "C" fn aclrtFreeWithDevSync(devPtr: *mut c_void) -> aclError {
    run("aclrtFreeWithDevSync", || {
        non_null(devPtr, "devPtr")?;
        sync_current_device()?;
        super::memory::free(devPtr)
    })
}

/// `aclError aclrtFreeHostWithDevSync(void *hostPtr)`: as aclrtFreeHost after a device synchronize.
pub extern "C" fn aclrtFreeHostWithDevSync(hostPtr: *mut c_void) -> aclError {
    run("aclrtFreeHostWithDevSync", || {
        non_null(hostPtr, "hostPtr")?;
        sync_current_device()?;
        super::memory::free_host(hostPtr)
    })
}

/// Records `ptr..ptr+size` as registered, refusing an overlap with 507910
/// ([ACL-REG-001](vmmkit_sys::acl::rules::REG_001): register_memory.cc:61-77; the driver's DRV_ERROR_BUSY is
/// the same code, npu_driver_mem.cc:242).
fn register(ptr: *mut c_void, size: u64, mapped: bool) -> Result<(), Fail> {
    current_device()?;
    let len = usize::try_from(size).map_err(|_| bad(AclError::RT_PARAM_INVALID, "size too large"))?;
    let start = ptr as usize;
    let end = start
        .checked_add(len)
        .ok_or_else(|| bad(AclError::RT_PARAM_INVALID, format!("{ptr:p}+{size:#x} overflows the address space")))?;
    let e = emu()?;
    if e.side(start) != Side::Host || !e.is_host_mapped(start, len) {
        return Err(bad(AclError::RT_PARAM_INVALID, format!("{ptr:p}+{size:#x} is not mapped host memory")));
    }
    let mut reg = lock(&mem(e).registered);
    let overlap = reg.range(..end).next_back().is_some_and(|(&s, r)| s + r.len > start);
    ensure!(!overlap, rules::REG_001 => AclError::HOST_MEMORY_ALREADY_REGISTERED,
        "{ptr:p}+{size:#x} overlaps a registered range");
    reg.insert(start, Registered { len, mapped });
    Ok(())
}

/// `aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr)`:
/// ptr, devPtr NULL and size 0 are 100000 (memory.cpp:488-498); a type
/// other than an OR of IOMEMORY and READONLY is 207000 (api_error.cc:1997-2003);
/// the device address of the range is its host address (host memory is
/// what the emulator's devices reach).
pub extern "C" fn aclrtHostRegister(
    ptr: *mut c_void,
    size: u64,
    type_: aclrtHostRegisterType,
    devPtr: Out<'_, *mut c_void>,
) -> aclError {
    run("aclrtHostRegister", || {
        non_null(ptr, "ptr")?;
        non_null(devPtr, "devPtr")?;
        positive(size, "size")?;
        let valid = (ACL_HOST_REGISTER_IOMEMORY | ACL_HOST_REGISTER_READONLY) as u32;
        if type_ as u32 & !valid != 0 {
            return Err(bad(AclError::RT_FEATURE_NOT_SUPPORT, format!("type {type_:#x} is not an OR of 0x4 and 0x8")));
        }
        register(ptr, size, true)?;
        devPtr.write(ptr)?;
        Ok(())
    })
}

/// `aclError aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag)`:
/// ptr NULL and size 0 are 100000; flag must be a nonzero OR of
/// ACL_HOST_REG_MAPPED, _IOMEMORY, _READONLY, _PINNED, else 107000
/// (api_error.cc:2012-2023); an overlap is 507910.
pub extern "C" fn aclrtHostRegisterV2(ptr: *mut c_void, size: u64, flag: u32) -> aclError {
    run("aclrtHostRegisterV2", || {
        non_null(ptr, "ptr")?;
        positive(size, "size")?;
        let map_bits = ACL_HOST_REG_MAPPED | ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY;
        let valid = map_bits | ACL_HOST_REG_PINNED;
        if flag == 0 || flag & !valid != 0 {
            return Err(bad(AclError::RT_PARAM_INVALID, format!("flag {flag:#x} is not a nonzero OR of 0x2, 0x4, 0x8 and 0x10000000")));
        }
        register(ptr, size, flag & map_bits != 0)
    })
}

/// `aclError aclrtHostGetDevicePointer(void *pHost, void **pDevice, uint32_t flag)`:
/// NULLs and a nonzero flag are 100000 (memory.cpp:510-519); an address in
/// a range registered as mapped, or in an aclrtMallocHost buffer, is its
/// own device address; any other is 107000.
pub extern "C" fn aclrtHostGetDevicePointer(pHost: *mut c_void, pDevice: Out<'_, *mut c_void>, flag: u32) -> aclError {
    run("aclrtHostGetDevicePointer", || {
        non_null(pHost, "pHost")?;
        non_null(pDevice, "pDevice")?;
        if flag != 0 {
            return Err(bad(AclError::INVALID_PARAM, format!("flag must be 0, got {flag}")));
        }
        current_device()?;
        let e = emu()?;
        let p = pHost as usize;
        if !is_registered(e, p, true) && e.host_at(p).is_none() {
            return Err(bad(AclError::RT_PARAM_INVALID, format!("{pHost:p} is not registered (mapped) host memory")));
        }
        pDevice.write(pHost)?;
        Ok(())
    })
}

/// `aclError aclrtHostUnregister(void *ptr)`: NULL is 100000; an address
/// that starts no registration is 507911 ([ACL-REG-002](vmmkit_sys::acl::rules::REG_002), api_impl.cc:2614-2641).
pub extern "C" fn aclrtHostUnregister(ptr: *mut c_void) -> aclError {
    run("aclrtHostUnregister", || {
        non_null(ptr, "ptr")?;
        current_device()?;
        let removed = lock(&mem(emu()?).registered).remove(&(ptr as usize)).is_some();
        ensure!(removed, rules::REG_002 => AclError::HOST_MEMORY_NOT_REGISTERED, "{ptr:p} starts no registered range");
        Ok(())
    })
}

/// `aclError aclrtHostMemMapCapabilities(uint32_t deviceId, aclrtHacType hacType,
/// aclrtHostMemMapCapability *capabilities)`: every engine of every device
/// reaches host memory in the emulator (SUPPORTED); NULL is 100000.
pub extern "C" fn aclrtHostMemMapCapabilities(
    deviceId: u32,
    hacType: aclrtHacType,
    capabilities: Out<'_, aclrtHostMemMapCapability>,
) -> aclError {
    run("aclrtHostMemMapCapabilities", || {
        non_null(capabilities, "capabilities")?;
        valid_device(emu()?, i64::from(deviceId))?;
        if !(ACL_RT_HAC_TYPE_STARS..=ACL_RT_HAC_TYPE_CCU).contains(&hacType) {
            return Err(bad(AclError::RT_PARAM_INVALID, format!("hacType {hacType} is not 0-9")));
        }
        capabilities.write(ACL_RT_HOST_MEM_MAP_SUPPORTED)?;
        Ok(())
    })
}

/// The checks of aclrtMemFlush and aclrtMemInvalidate (memory.cpp:543-563):
/// NULL and size 0 are 100000; the range must be memory a copy reaches.
/// Host memory is coherent: there is nothing to write back or drop.
fn cache_op(devPtr: *mut c_void, size: usize) -> Result<(), Fail> {
    non_null(devPtr, "devPtr")?;
    positive(size as u64, "size")?;
    current_device()?;
    emu()?.check_copy_range(devPtr as usize, size).map_err(|e| Fail::core(Op::Copy, e))
}

/// `aclError aclrtMemFlush(void *devPtr, size_t size)`.
pub extern "C" fn aclrtMemFlush(devPtr: *mut c_void, size: usize) -> aclError {
    run("aclrtMemFlush", || cache_op(devPtr, size))
}

/// `aclError aclrtMemInvalidate(void *devPtr, size_t size)`.
pub extern "C" fn aclrtMemInvalidate(devPtr: *mut c_void, size: usize) -> aclError {
    run("aclrtMemInvalidate", || cache_op(devPtr, size))
}

/// `aclError aclrtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag)`:
/// ptr NULL and a flag other than ACL_RT_MEM_ATTACH_GLOBAL are 100000
/// (memory.cpp:590-598); size 0 is the runtime's 107000. The memory is host
/// memory every device reaches; aclrtFree frees it.
pub extern "C" fn aclrtMemAllocManaged(ptr: Out<'_, *mut c_void>, size: u64, flag: u32) -> aclError {
    run("aclrtMemAllocManaged", || {
        non_null(ptr, "ptr")?;
        if flag != ACL_RT_MEM_ATTACH_GLOBAL {
            return Err(bad(AclError::INVALID_PARAM, format!("flag must be ACL_RT_MEM_ATTACH_GLOBAL (1), got {flag}")));
        }
        if size == 0 {
            return Err(bad(AclError::RT_PARAM_INVALID, "size is 0"));
        }
        current_device()?;
        let len = usize::try_from(size).map_err(|_| bad(AclError::RT_MEMORY_ALLOCATION, "size too large"))?;
        let e = emu()?;
        let p = e.alloc_host(len).map_err(|err| bad(AclError::RT_MEMORY_ALLOCATION, err.to_string()))?;
        lock(&mem(e).managed).insert(p, Managed { len, ..Managed::default() });
        ptr.write(p as *mut c_void)?;
        Ok(())
    })
}

/// Whether `p` starts a managed allocation; if so it is freed (aclrtFree's path for managed memory).
pub(super) fn free_managed(e: &Emulator, p: usize) -> Result<bool, Fail> {
    if lock(&mem(e).managed).remove(&p).is_none() {
        return Ok(false);
    }
    e.free_host(p).map_err(|err| Fail::core(Op::Free, err))?;
    Ok(true)
}

/// Whether `p` is inside a registered host range (mapped only, when `mapped`).
pub(super) fn is_registered(e: &Emulator, p: usize, mapped: bool) -> bool {
    lock(&mem(e).registered).range(..=p).next_back().is_some_and(|(&s, r)| p < s + r.len && (r.mapped || !mapped))
}

/// Whether `p` is inside a managed allocation.
pub(super) fn is_managed(e: &Emulator, p: usize) -> bool {
    lock(&mem(e).managed).range(..=p).next_back().is_some_and(|(&s, m)| p < s + m.len)
}

/// Runs `f` on the managed allocation that holds `ptr..ptr+size`, or fails
/// with 107000 (the driver refuses ranges outside managed memory).
fn with_managed<R>(ptr: *const c_void, size: u64, f: impl FnOnce(&mut Managed) -> R) -> Result<R, Fail> {
    let e = emu()?;
    let p = ptr as usize;
    let mut m = lock(&mem(e).managed);
    let hit = m.range_mut(..=p).next_back().filter(|(s, r)| (p - **s) as u64 + size <= r.len as u64);
    match hit {
        Some((_, r)) => Ok(f(r)),
        None => Err(bad(AclError::RT_PARAM_INVALID, format!("{ptr:p}+{size:#x} is not inside managed memory"))),
    }
}

/// A location the runtime accepts: a device that exists, or a host kind.
fn check_location(loc: aclrtMemManagedLocation) -> Result<(), Fail> {
    match loc.type_ {
        ACL_MEM_LOCATIONTYPE_DEVICE => valid_device(emu()?, i64::from(loc.id)).map(drop),
        ACL_MEM_LOCATIONTYPE_HOST..=ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT => Ok(()),
        t => Err(bad(AclError::RT_PARAM_INVALID, format!("location type {t} is not a device or host location"))),
    }
}

/// `aclError aclrtMemManagedAdvise(const void *ptr, uint64_t size, aclrtMemManagedAdviseType advise,
/// aclrtMemManagedLocation location)`: NULL and size 0 are 100000
/// (memory.cpp:600-614); the advice is kept and read back by aclrtMemManagedGetAttr.
pub extern "C" fn aclrtMemManagedAdvise(
    ptr: *const c_void,
    size: u64,
    advise: aclrtMemManagedAdviseType,
    location: aclrtMemManagedLocation,
) -> aclError {
    run("aclrtMemManagedAdvise", || {
        non_null(ptr, "ptr")?;
        positive(size, "size")?;
        if !(ACL_MEM_ADVISE_SET_READ_MOSTLY..=ACL_MEM_ADVISE_UNSET_ACCESSED_BY).contains(&advise) {
            return Err(bad(AclError::RT_PARAM_INVALID, format!("advise {advise} is not 0-5")));
        }
        if advise >= 2 {
            check_location(location)?;
        }
        with_managed(ptr, size, |m| match advise {
            0 => m.read_mostly = true,
            1 => m.read_mostly = false,
            2 => m.preferred = Some(location),
            3 => m.preferred = None,
            4 => {
                if !m.accessed_by.contains(&location) {
                    m.accessed_by.push(location);
                }
            }
            _ => m.accessed_by.retain(|l| *l != location),
        })
    })
}

/// One attribute of `m` into `data` (`dataSize` bytes): 4-byte values, and
/// ACCESSED_BY as an array of device ids (-1 past the end), as CUDA's
/// cuMemRangeGetAttribute whose shape the runtime's follows.
fn managed_attr(m: &Managed, attribute: aclrtMemManagedRangeAttribute, data: Out<'_, c_void>, dataSize: usize) -> Result<(), Fail> {
    let loc_word = |l: Option<aclrtMemManagedLocation>, part: u8| -> i32 {
        match (l, part) {
            (None, 0) => -2, // no location: an invalid device, as CUDA reports it
            (None, 1) => ACL_MEM_LOCATIONTYPE_INVALID,
            (None, _) => 0,
            (Some(l), 0) => if l.type_ == ACL_MEM_LOCATIONTYPE_DEVICE { l.id } else { -1 },
            (Some(l), 1) => l.type_,
            (Some(l), _) => l.id,
        }
    };
    let words: Vec<i32> = match attribute {
        ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY => vec![i32::from(m.read_mostly)],
        ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION => vec![loc_word(m.preferred, 0)],
        ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE => vec![loc_word(m.preferred, 1)],
        ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID => vec![loc_word(m.preferred, 2)],
        ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION => vec![loc_word(m.last_prefetch, 0)],
        ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE => vec![loc_word(m.last_prefetch, 1)],
        ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID => vec![loc_word(m.last_prefetch, 2)],
        ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY => {
            if dataSize % 4 != 0 || dataSize == 0 {
                return Err(bad(AclError::RT_PARAM_INVALID, format!("dataSize {dataSize} is not a positive multiple of 4")));
            }
            let mut v: Vec<i32> =
                m.accessed_by.iter().map(|l| if l.type_ == ACL_MEM_LOCATIONTYPE_DEVICE { l.id } else { -1 }).collect();
            v.resize(dataSize / 4, -2);
            v
        }
        a => return Err(bad(AclError::RT_PARAM_INVALID, format!("attribute {a} is not 1-8"))),
    };
    if attribute != ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY && dataSize != 4 {
        return Err(bad(AclError::RT_PARAM_INVALID, format!("dataSize must be 4 for attribute {attribute}, got {dataSize}")));
    }
    // `data` holds `dataSize` bytes (the caller's contract), checked above to fit `words`.
    data.cast::<i32>().write_slice(&words)?;
    Ok(())
}

/// `aclError aclrtMemManagedGetAttr(aclrtMemManagedRangeAttribute attribute, const void *ptr, size_t size,
/// void *data, size_t dataSize)`: ptr, data NULL and size 0 are 100000 (memory.cpp:456-468).
pub extern "C" fn aclrtMemManagedGetAttr(
    attribute: aclrtMemManagedRangeAttribute,
    ptr: *const c_void,
    size: usize,
    data: Out<'_, c_void>,
    dataSize: usize,
) -> aclError {
    run("aclrtMemManagedGetAttr", || {
        non_null(ptr, "ptr")?;
        non_null(data, "data")?;
        positive(size as u64, "size")?;
        let m = with_managed(ptr, size as u64, |m| m.clone())?;
        managed_attr(&m, attribute, data, dataSize)
    })
}

/// `aclError aclrtMemManagedGetAttrs(aclrtMemManagedRangeAttribute *attributes, size_t numAttributes,
/// const void *ptr, size_t size, void **data, size_t *dataSizes)`: each attribute as aclrtMemManagedGetAttr.
pub extern "C" fn aclrtMemManagedGetAttrs(
    attributes: In<'_, aclrtMemManagedRangeAttribute>,
    numAttributes: usize,
    ptr: *const c_void,
    size: usize,
    data: In<'_, *mut c_void>,
    dataSizes: In<'_, usize>,
) -> aclError {
    run("aclrtMemManagedGetAttrs", || {
        non_null(ptr, "ptr")?;
        non_null(attributes, "attributes")?;
        non_null(data, "data")?;
        non_null(dataSizes, "dataSizes")?;
        positive(size as u64, "size")?;
        let m = with_managed(ptr, size as u64, |m| m.clone())?;
        for i in 0..numAttributes {
            // The caller passes numAttributes of each array.
            let (a, d, n) = (attributes.read_at(i)?, data.out_at::<c_void>(i)?, dataSizes.read_at(i)?);
            non_null(d, &format!("data[{i}]"))?;
            managed_attr(&m, a, d, n)?;
        }
        Ok(())
    })
}

/// Records a prefetch of `ptr..ptr+size` to `location` on `stream` (the
/// data already lives where every device reaches it).
fn prefetch(ptr: *const c_void, size: usize, location: aclrtMemManagedLocation) -> Result<(), Fail> {
    non_null(ptr, "ptr")?;
    positive(size as u64, "size")?;
    check_location(location)?;
    with_managed(ptr, size as u64, |m| m.last_prefetch = Some(location))
}

/// `aclError aclrtMemManagedPrefetchAsync(const void *ptr, size_t size, aclrtMemManagedLocation location,
/// uint32_t flags, aclrtStream stream)`: flags must be 0 (107000).
pub extern "C" fn aclrtMemManagedPrefetchAsync(
    ptr: *const c_void,
    size: usize,
    location: aclrtMemManagedLocation,
    flags: u32,
    stream: aclrtStream,
) -> aclError {
    run("aclrtMemManagedPrefetchAsync", || {
        if flags != 0 {
            return Err(bad(AclError::RT_PARAM_INVALID, format!("flags must be 0, got {flags}")));
        }
        super::device::stream_id(stream)?;
        prefetch(ptr, size, location)
    })
}

/// `aclError aclrtMemManagedPrefetchBatchAsync(const void **ptrs, size_t *sizes, size_t count,
/// aclrtMemManagedLocation *prefetchLocs, size_t *prefetchLocIdxs, size_t numPrefetchLocs,
/// uint64_t flags, aclrtStream stream)`: location `j` applies from range
/// `prefetchLocIdxs[j]` on (the first index must be 0, the indexes rise).
pub extern "C" fn aclrtMemManagedPrefetchBatchAsync(
    ptrs: In<'_, *const c_void>,
    sizes: In<'_, usize>,
    count: usize,
    prefetchLocs: In<'_, aclrtMemManagedLocation>,
    prefetchLocIdxs: In<'_, usize>,
    numPrefetchLocs: usize,
    flags: u64,
    stream: aclrtStream,
) -> aclError {
    run("aclrtMemManagedPrefetchBatchAsync", || {
        non_null(ptrs, "ptrs")?;
        non_null(sizes, "sizes")?;
        non_null(prefetchLocs, "prefetchLocs")?;
        non_null(prefetchLocIdxs, "prefetchLocIdxs")?;
        positive(count as u64, "count")?;
        let param = |m: String| bad(AclError::RT_PARAM_INVALID, m);
        if flags != 0 {
            return Err(param(format!("flags must be 0, got {flags}")));
        }
        if numPrefetchLocs == 0 || numPrefetchLocs > count {
            return Err(param(format!("numPrefetchLocs {numPrefetchLocs} is not 1-{count}")));
        }
        // The caller passes numPrefetchLocs indexes and locations, count ptrs and sizes.
        let idx = prefetchLocIdxs.to_vec(numPrefetchLocs)?;
        if idx[0] != 0 || idx.windows(2).any(|w| w[0] >= w[1]) || idx[numPrefetchLocs - 1] >= count {
            return Err(param(format!("prefetchLocIdxs {idx:?} must start at 0 and rise below {count}")));
        }
        super::device::stream_id(stream)?;
        for i in 0..count {
            let j = idx.partition_point(|&s| s <= i) - 1;
            let (p, n, loc) = (ptrs.read_at(i)?, sizes.read_at(i)?, prefetchLocs.read_at(j)?);
            prefetch(p, n, loc)?;
        }
        Ok(())
    })
}

/// `aclError aclrtGetMemUsageInfo(int32_t deviceId, aclrtMemUsageInfo *memUsageInfo, size_t inputNum,
/// size_t *outputNum)`: NULLs are 100000 (memory.cpp:979-993). One entry,
/// "app": the device's memory in use (its capacity less what is free).
pub extern "C" fn aclrtGetMemUsageInfo(
    deviceId: i32,
    memUsageInfo: Out<'_, aclrtMemUsageInfo>,
    inputNum: usize,
    outputNum: Out<'_, usize>,
) -> aclError {
    run("aclrtGetMemUsageInfo", || {
        non_null(memUsageInfo, "memUsageInfo")?;
        non_null(outputNum, "outputNum")?;
        let e = emu()?;
        let d = valid_device(e, i64::from(deviceId))?;
        let (free, total) = e.mem_info(d);
        let used = total.saturating_sub(free);
        let n = inputNum.min(1);
        if n == 1 {
            let mut info = aclrtMemUsageInfo { curMemSize: used, memPeakSize: used, ..Default::default() };
            for (i, b) in b"app".iter().enumerate() {
                info.name[i] = *b as c_char;
            }
            // The caller passes inputNum (>= 1) entries.
            memUsageInfo.write(info)?;
        }
        outputNum.write(n)?;
        Ok(())
    })
}

/// `aclError aclrtCheckMemType(void **addrList, uint32_t size, uint32_t memType, uint32_t *checkResult,
/// uint32_t reserve)`: NULLs are 100000 (memory.cpp:1898-1908); a nonzero
/// reserve or a memType outside DEV|DVPP|RSVD is 107000. The result is 1
/// when every address is device memory of this process (the emulator's
/// device memory is all of one kind), else 0.
pub extern "C" fn aclrtCheckMemType(
    addrList: In<'_, *mut c_void>,
    size: u32,
    memType: u32,
    checkResult: Out<'_, u32>,
    reserve: u32,
) -> aclError {
    run("aclrtCheckMemType", || {
        non_null(addrList, "addrList")?;
        non_null(checkResult, "checkResult")?;
        let valid = ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_DVPP | ACL_RT_MEM_TYPE_RSVD;
        if reserve != 0 || memType == 0 || memType & !valid != 0 || size == 0 {
            return Err(bad(AclError::RT_PARAM_INVALID, format!("size {size}, memType {memType:#x}, reserve {reserve}")));
        }
        let e = emu()?;
        // The caller passes `size` addresses.
        let all = addrList.to_vec(size as usize)?.iter().all(|&a| e.side(a as usize) == Side::Device);
        checkResult.write(u32::from(all && memType & ACL_RT_MEM_TYPE_DEV != 0))?;
        Ok(())
    })
}

/// `aclError aclrtGetMemUceInfo(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, size_t arraySize,
/// size_t *retSize)`: host memory has no uncorrectable errors: 0 entries.
pub extern "C" fn aclrtGetMemUceInfo(
    deviceId: i32,
    memUceInfoArray: Out<'_, aclrtMemUceInfo>,
    _arraySize: usize,
    retSize: Out<'_, usize>,
) -> aclError {
    run("aclrtGetMemUceInfo", || {
        non_null(memUceInfoArray, "memUceInfoArray")?;
        non_null(retSize, "retSize")?;
        valid_device(emu()?, i64::from(deviceId))?;
        retSize.write(0)?;
        Ok(())
    })
}

/// `aclError aclrtMemUceRepair(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, size_t arraySize)`:
/// at most MAX_MEM_UCE_INFO_ARRAY_SIZE (128) entries, each device memory of
/// this process; nothing is broken, so nothing is repaired.
pub extern "C" fn aclrtMemUceRepair(deviceId: i32, memUceInfoArray: In<'_, aclrtMemUceInfo>, arraySize: usize) -> aclError {
    run("aclrtMemUceRepair", || {
        non_null(memUceInfoArray, "memUceInfoArray")?;
        let e = emu()?;
        valid_device(e, i64::from(deviceId))?;
        if arraySize == 0 || arraySize > 128 {
            return Err(bad(AclError::RT_PARAM_INVALID, format!("arraySize {arraySize} is not 1-128")));
        }
        for i in 0..arraySize {
            // The caller passes arraySize entries.
            let u = memUceInfoArray.read_at(i)?;
            if !e.is_device_range(u.addr as usize, u.len.max(1)) {
                return Err(bad(AclError::RT_PARAM_INVALID, format!("entry {i}: {:p}+{:#x} is not device memory", u.addr, u.len)));
            }
        }
        Ok(())
    })
}

/// `aclError aclrtMemP2PMap(void *devPtr, size_t size, int32_t dstDevId, uint64_t flags)`:
/// every device of the emulator reaches every other's memory; the range
/// must be device memory, the device must exist, flags must be 0.
pub extern "C" fn aclrtMemP2PMap(devPtr: *mut c_void, size: usize, dstDevId: i32, flags: u64) -> aclError {
    run("aclrtMemP2PMap", || {
        non_null(devPtr, "devPtr")?;
        positive(size as u64, "size")?;
        if flags != 0 {
            return Err(bad(AclError::RT_PARAM_INVALID, format!("flags must be 0, got {flags}")));
        }
        let e = emu()?;
        valid_device(e, i64::from(dstDevId))?;
        device_range(e, devPtr, size)
    })
}

/// `addr..addr+n` is wholly mapped device memory, or 107000.
fn device_range(e: &Emulator, addr: *mut c_void, n: usize) -> Result<(), Fail> {
    if e.is_device_range(addr as usize, n) {
        Ok(())
    } else {
        Err(bad(AclError::RT_PARAM_INVALID, format!("{addr:p}+{n:#x} is not mapped device memory")))
    }
}

/// `aclError aclrtMemMapSelectedLink(void *virPtrDst, size_t size, void *virPtrSrc, uint32_t linkIdx)`:
/// NULLs, size 0 and a link index over 1 are 100000 (memory.cpp:2452-2472);
/// both ranges must be device memory (107000).
pub extern "C" fn aclrtMemMapSelectedLink(virPtrDst: *mut c_void, size: usize, virPtrSrc: *mut c_void, linkIdx: u32) -> aclError {
    run("aclrtMemMapSelectedLink", || {
        non_null(virPtrDst, "virPtrDst")?;
        non_null(virPtrSrc, "virPtrSrc")?;
        positive(size as u64, "size")?;
        if linkIdx > 1 {
            return Err(bad(AclError::INVALID_PARAM, format!("linkIdx {linkIdx} must be 0 or 1")));
        }
        let e = emu()?;
        device_range(e, virPtrDst, size)?;
        device_range(e, virPtrSrc, size)
    })
}

/// A link type of `aclrtMemLinkType` (0-3), else 107000 (api_error.cc:7705-7708, 3775-3777).
fn link_type(t: u64) -> Result<(), Fail> {
    if t <= ACL_RT_MEM_ACCESS_UB_MULTI_PORT_PATH as u64 {
        Ok(())
    } else {
        Err(bad(AclError::RT_PARAM_INVALID, format!("link type {t} is not 0-3")))
    }
}

/// `aclError aclrtMemMapSetLink(aclrtDrvMemHandle handle, aclrtMemLinkType adviceLink)`:
/// NULL is 100000 (memory.cpp:2480-2482); a link type over 3 is 107000; the
/// handle must be a physical allocation of this process (107000).
pub extern "C" fn aclrtMemMapSetLink(handle: aclrtDrvMemHandle, adviceLink: aclrtMemLinkType) -> aclError {
    run("aclrtMemMapSetLink", || {
        non_null(handle, "handle")?;
        link_type(u64::from(adviceLink as u32))?;
        let known = super::vmm::from_handle(handle).is_some_and(|id| emu().is_ok_and(|e| e.handle_exists(id)));
        if !known {
            return Err(bad(AclError::RT_PARAM_INVALID, format!("{handle:p} is no physical allocation of this process")));
        }
        Ok(())
    })
}

/// `aclError aclrtIpcMemSetAttr(const char *key, aclrtIpcMemAttrType type, uint64_t attr)`:
/// the runtime's checks in its order (api_error.cc:3768-3779): key NULL,
/// a type other than ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, a link over 3 are
/// 107000; then the key must name an export of this process ([ACL-IPK-006](vmmkit_sys::acl::rules::IPK_006), 507899).
pub extern "C" fn aclrtIpcMemSetAttr(key: CStrIn<'_>, type_: aclrtIpcMemAttrType, attr: u64) -> aclError {
    run("aclrtIpcMemSetAttr", || {
        if key.is_null() {
            return Err(bad(AclError::RT_PARAM_INVALID, "key is NULL"));
        }
        ensure!(type_ == ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, rules::IPK_017 => AclError::RT_PARAM_INVALID,
            "type {type_} is not ACL_RT_IPC_MEM_ATTR_ACCESS_LINK (0)");
        ensure!(attr <= ACL_RT_MEM_ACCESS_UB_MULTI_PORT_PATH as u64, rules::IPK_017 => AclError::RT_PARAM_INVALID,
            "link {attr} is not 0-3");
        super::ipc::check_own_export(key)
    })
}

/// `aclError aclrtIpcMemImportPidInterServer(const char *key, aclrtServerPid *serverPids, size_t num)`:
/// key and serverPids NULL, num 0 and an entry's NULL pid are 107000
/// (api_c_standard_soc.cc:1009-1027, the ACL layer checks nothing); then each
/// entry's pids join the key's trustlist as aclrtIpcMemSetImportPid's
/// (rtSetIpcMemorySuperPodPid per entry). The emulator's servers share one
/// pid space (a server is a network namespace, docs/emulator.md), so an
/// entry's sdid names no separate list.
pub extern "C" fn aclrtIpcMemImportPidInterServer(key: CStrIn<'_>, serverPids: In<'_, aclrtServerPid>, num: usize) -> aclError {
    run("aclrtIpcMemImportPidInterServer", || {
        let param = |m: String| bad(AclError::RT_PARAM_INVALID, m);
        if key.is_null() || serverPids.is_null() || num == 0 {
            return Err(param(format!("key or serverPids is NULL, or num is 0 ({num})")));
        }
        let mut pids = Vec::new();
        for i in 0..num {
            // The caller passes num entries, each with its `num` pids.
            let s = serverPids.read_at(i)?;
            if s.pid.is_null() {
                return Err(param(format!("serverPids[{i}].pid is NULL")));
            }
            pids.extend(serverPids.held_at(i, |s| s.pid.cast_const())?.to_vec(s.num)?);
        }
        super::ipc::set_import_pids(key, &pids)
    })
}
