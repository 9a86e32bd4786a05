//! Managed memory (clr hipamd/src/hip_hmm.cpp).
//!
//! vmmkit has no page migration: hipMallocManaged memory is host memory
//! (zeroed, page-aligned), which the program and every copy reach at one
//! address, as on an AMD system with XNACK where managed memory is system
//! memory. It counts against no device's capacity. Advice and prefetches
//! are kept per allocation and answered by the range queries; they move
//! nothing. Both are kept per 4 KiB page run, as ROCr aligns the range
//! of an advice and of a query to pages and KFD splits its SVM ranges there;
//! a query over pages that differ answers as KFD combines them ([HIP-MEM-009](vmmkit_sys::hip::rules::MEM_009)).
#![allow(non_snake_case, non_upper_case_globals)]

use std::ffi::c_void;

use vmmkit_sys::hip::rules;
use vmmkit_sys::hip::*;

use super::call::{Fail, current_device, emu, run};
use super::codes::Op;
use super::memory::stream_of;
use super::pointer::{Kind, extent};
use super::ranges::{Advice, HostRange, PagedAdvice};
use super::state::state;
use crate::ffi::{In, Out};
use crate::core::Emulator;

/// `hipError_t hipMallocManaged(void **dev_ptr, size_t size, unsigned int flags)`:
/// NULL, size 0, or flags other than AttachGlobal / AttachHost → 1 (clr
/// hip_hmm.cpp:69-72). Freed by hipFree.
pub extern "C" fn hipMallocManaged(dev_ptr: Out<'_, *mut c_void>, size: usize, flags: u32) -> hipError_t {
    run("hipMallocManaged", || {
        if dev_ptr.is_null() || size == 0 || (flags != hipMemAttachGlobal && flags != hipMemAttachHost) {
            return Err(Fail::plain(
                HipError::INVALID_VALUE,
                format!("dev_ptr {dev_ptr:p}, size {size}, flags {flags:#x}: NULL, 0, or not AttachGlobal/AttachHost"),
            ));
        }
        let e = emu()?;
        let p = e.alloc_host(size).map_err(|e| Fail::core(Op::Malloc, e))?;
        let range = HostRange { len: size, flags, device: current_device(), managed: Some(PagedAdvice::default()) };
        state(e).mem.insert(p, range);
        dev_ptr.write(p as *mut c_void)?;
        Ok(())
    })
}

/// A device argument of advice and prefetch: a device or hipCpuDeviceId, else 101.
fn device_or_cpu(e: &Emulator, device: i32) -> Result<(), Fail> {
    if device == hipCpuDeviceId || e.is_device(i64::from(device)) {
        Ok(())
    } else {
        Err(Fail::plain(HipError::INVALID_DEVICE, format!("device {device} is neither a device nor hipCpuDeviceId")))
    }
}

/// The managed allocation that holds all of `p..p+count`: its start and the
/// offset of `p` in it. NULL or
/// 0 → 1; a range past the end of HIP memory → 1; memory that is not
/// managed → 1 (no HMM in vmmkit).
fn managed_range(e: &Emulator, p: *const c_void, count: usize) -> Result<(usize, usize), Fail> {
    if p.is_null() || count == 0 {
        return Err(Fail::plain(HipError::INVALID_VALUE, "dev_ptr is NULL or count is 0".into()));
    }
    let p = p as usize;
    match extent(e, p) {
        Some(x) if !x.holds(p, count) => Err(Fail::plain(
            HipError::INVALID_VALUE,
            format!("{p:#x}+{count:#x} runs past the end of its allocation ({:#x}+{:#x})", x.base, x.size),
        )),
        Some(x) if x.kind == Kind::Managed => Ok((x.base, p - x.base)),
        _ => Err(Fail::plain(
            HipError::INVALID_VALUE,
            format!("{p:#x} is not hipMallocManaged memory (vmmkit has no HMM for other memory)"),
        )),
    }
}

/// `hipError_t hipMemAdvise(const void *dev_ptr, size_t count, hipMemoryAdvise advice, int device)`:
/// a device that is neither a device nor hipCpuDeviceId → 101 (but for the
/// read-mostly advice, which ignores it), first; NULL or 0 → 1; past the
/// allocation → 1 (clr hip_hmm.cpp:138-158); an unknown advice → 1. Applies
/// to the pages the range touches (ROCr aligns it to 4 KiB, [HIP-MEM-009](vmmkit_sys::hip::rules::MEM_009)).
pub extern "C" fn hipMemAdvise(dev_ptr: *const c_void, count: usize, advice: hipMemoryAdvise, device: i32) -> hipError_t {
    run("hipMemAdvise", || advise(dev_ptr, count, advice, device))
}

/// `hipError_t hipMemAdvise_v2(const void *dev_ptr, size_t count, hipMemoryAdvise advice, hipMemLocation location)`
/// (`@hip_7.1`): as hipMemAdvise with the location's device (see [`location_device`]).
pub extern "C" fn hipMemAdvise_v2(dev_ptr: *const c_void, count: usize, advice: hipMemoryAdvise, location: hipMemLocation) -> hipError_t {
    run("hipMemAdvise_v2", || advise(dev_ptr, count, advice, location_device(location)?))
}

/// The device argument that a `hipMemLocation` of the `_v2` advice and
/// prefetch stands for: a device location → its id; the host → hipCpuDeviceId;
/// any other type (invalid, NUMA nodes) → 1.
fn location_device(location: hipMemLocation) -> Result<i32, Fail> {
    match location.type_ {
        hipMemLocationTypeDevice => Ok(location.id),
        hipMemLocationTypeHost => Ok(hipCpuDeviceId),
        t => Err(Fail::plain(HipError::INVALID_VALUE, format!("location type {t} is neither a device nor the host"))),
    }
}

/// hipMemAdvise's body, shared with hipMemAdvise_v2.
fn advise(dev_ptr: *const c_void, count: usize, advice: hipMemoryAdvise, device: i32) -> Result<(), Fail> {
    {
        let e = emu()?;
        let read_mostly = matches!(advice, hipMemAdviseSetReadMostly | hipMemAdviseUnsetReadMostly);
        if !read_mostly {
            device_or_cpu(e, device)?;
        }
        let (base, off) = managed_range(e, dev_ptr, count)?;
        let change: Box<dyn Fn(&mut Advice)> = match advice {
            hipMemAdviseSetReadMostly => Box::new(|a| a.read_mostly = true),
            hipMemAdviseUnsetReadMostly => Box::new(|a| a.read_mostly = false),
            hipMemAdviseSetPreferredLocation => Box::new(move |a| a.preferred = device),
            hipMemAdviseUnsetPreferredLocation => Box::new(|a| a.preferred = hipInvalidDeviceId),
            hipMemAdviseSetAccessedBy => Box::new(move |a| {
                if !a.accessed_by.contains(&device) {
                    a.accessed_by.push(device);
                }
            }),
            hipMemAdviseUnsetAccessedBy => Box::new(move |a| a.accessed_by.retain(|&d| d != device)),
            hipMemAdviseSetCoarseGrain => Box::new(|a| a.coherency = hipMemRangeCoherencyModeCoarseGrain),
            hipMemAdviseUnsetCoarseGrain => Box::new(|a| a.coherency = hipMemRangeCoherencyModeFineGrain),
            _ => return Err(Fail::plain(HipError::INVALID_VALUE, format!("{advice} is not a hipMemoryAdvise"))),
        };
        state(e).mem.advise(base, off, count, change);
        Ok(())
    }
}

/// `hipError_t hipMemPrefetchAsync(const void *dev_ptr, size_t count, int device, hipStream_t stream)`:
/// NULL or 0 → 1; a dead stream → 709; past the allocation → 1; a device
/// that is neither a device nor hipCpuDeviceId → 101 (clr hip_hmm.cpp:78-98);
/// memory HIP does not know → 801 (clr: no HMM access to system memory,
/// hip_hmm.cpp:104-106). Managed memory records the location; nothing moves.
pub extern "C" fn hipMemPrefetchAsync(dev_ptr: *const c_void, count: usize, device: i32, stream: hipStream_t) -> hipError_t {
    run("hipMemPrefetchAsync", || prefetch(dev_ptr, count, device, stream))
}

/// `hipError_t hipMemPrefetchAsync_v2(const void *dev_ptr, size_t count, hipMemLocation location, unsigned int flags, hipStream_t stream)`
/// (`@hip_7.1`): flags other than 0 → 1 (hip_runtime_api.h 7.2.4: "must be
/// zero now"), a location that is neither a device nor the host → 1; then as
/// hipMemPrefetchAsync with the location's device.
pub extern "C" fn hipMemPrefetchAsync_v2(
    dev_ptr: *const c_void,
    count: usize,
    location: hipMemLocation,
    flags: u32,
    stream: hipStream_t,
) -> hipError_t {
    run("hipMemPrefetchAsync_v2", || {
        if flags != 0 {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("flags {flags:#x} are not 0")));
        }
        prefetch(dev_ptr, count, location_device(location)?, stream)
    })
}

/// hipMemPrefetchAsync's body, shared with hipMemPrefetchAsync_v2.
fn prefetch(dev_ptr: *const c_void, count: usize, device: i32, stream: hipStream_t) -> Result<(), Fail> {
    {
        if dev_ptr.is_null() || count == 0 {
            return Err(Fail::plain(HipError::INVALID_VALUE, "dev_ptr is NULL or count is 0".into()));
        }
        let e = emu()?;
        if stream_of(e, stream)?.is_none() {
            return Ok(());
        }
        let p = dev_ptr as usize;
        let x = extent(e, p);
        if let Some(x) = x.filter(|x| !x.holds(p, count)) {
            return Err(Fail::plain(
                HipError::INVALID_VALUE,
                format!("{p:#x}+{count:#x} runs past the end of its allocation ({:#x}+{:#x})", x.base, x.size),
            ));
        }
        device_or_cpu(e, device)?;
        match x {
            None => Err(Fail::plain(
                HipError::NOT_SUPPORTED,
                format!("{p:#x} is not memory HIP knows, and devices cannot reach system memory (no HMM)"),
            )),
            Some(x) => {
                state(e).mem.advise(x.base, p - x.base, count, |a| a.last_prefetch = device);
                Ok(())
            }
        }
    }
}

/// Writes the value of `attribute` for the pages of `off..off+count` of the
/// managed allocation at `base` into `data` of `size` bytes: 4 bytes (an
/// `int`) for all but AccessedBy, which takes a multiple of 4 and fills the
/// rest with hipInvalidDeviceId. Pages that differ combine as KFD's
/// svm_range_get_attr combines ranges, read by ROCr ([HIP-MEM-009](vmmkit_sys::hip::rules::MEM_009)): read-mostly
/// only if every page is; a location only if every page has it, else
/// hipInvalidDeviceId; the devices every page is accessed by; a coherency
/// mode only if every page has it, else indeterminate.
fn range_attribute(
    e: &Emulator,
    data: Out<'_, c_void>,
    size: usize,
    attribute: hipMemRangeAttribute,
    (base, off, count): (usize, usize, usize),
) -> Result<(), Fail> {
    let paged = state(e)
        .mem
        .range_at(base)
        .and_then(|(_, r)| r.managed)
        .ok_or_else(|| Fail::plain(HipError::INVALID_VALUE, format!("{base:#x} is not managed memory")))?;
    let runs = paged.runs(off, count);
    let same = |f: fn(&Advice) -> i32, differ: i32| {
        let first = runs.first().map_or(differ, |a| f(a));
        if runs.iter().all(|a| f(a) == first) { first } else { differ }
    };
    let values: Vec<i32> = match attribute {
        hipMemRangeAttributeReadMostly => vec![i32::from(runs.iter().all(|a| a.read_mostly))],
        hipMemRangeAttributePreferredLocation => vec![same(|a| a.preferred, hipInvalidDeviceId)],
        hipMemRangeAttributeLastPrefetchLocation => vec![same(|a| a.last_prefetch, hipInvalidDeviceId)],
        hipMemRangeAttributeCoherencyMode => vec![same(|a| a.coherency, hipMemRangeCoherencyModeIndeterminate)],
        hipMemRangeAttributeAccessedBy => {
            let first = runs.first().map(|a| a.accessed_by.clone()).unwrap_or_default();
            first.into_iter().filter(|d| runs.iter().all(|a| a.accessed_by.contains(d))).collect()
        }
        _ => return Err(Fail::plain(HipError::INVALID_VALUE, format!("{attribute} is not a hipMemRangeAttribute"))),
    };
    let fits = if attribute == hipMemRangeAttributeAccessedBy { size % 4 == 0 } else { size == 4 };
    if !fits {
        return Err(Fail::plain(HipError::INVALID_VALUE, format!("data_size {size} does not fit attribute {attribute}")));
    }
    // AccessedBy: the devices, then hipInvalidDeviceId to the end of `data`.
    let all = values.into_iter().chain(std::iter::repeat(hipInvalidDeviceId));
    let all: Vec<i32> = all.take(size / 4).collect();
    data.cast::<i32>().write_slice(&all)?;
    Ok(())
}

/// The coherency mode of hipMalloc memory that holds `p..p+count`, for a
/// CoherencyMode query ([HIP-MEM-011](vmmkit_sys::hip::rules::MEM_011)): clr answers it from ROCr's pointer
/// info, the global flags of the allocation's pool, before any SVM query
/// (rocdevice.cpp:2714-2731): coarse-grained, or fine-grained for
/// hipExtMallocWithFlags(Finegrained). `None` for any other query or memory.
fn malloc_coherency(e: &Emulator, attribute: hipMemRangeAttribute, p: *const c_void, count: usize) -> Option<i32> {
    if attribute != hipMemRangeAttributeCoherencyMode || !crate::mutation::enforced(&rules::MEM_011) {
        return None;
    }
    let x = extent(e, p as usize).filter(|x| matches!(x.kind, Kind::Malloc(_)) && x.holds(p as usize, count))?;
    let fine = state(e).mem.flags(x.base) & hipDeviceMallocFinegrained != 0;
    Some(if fine { hipMemRangeCoherencyModeFineGrain } else { hipMemRangeCoherencyModeCoarseGrain })
}

/// `hipError_t hipMemRangeGetAttribute(void *data, size_t data_size, hipMemRangeAttribute attribute, const void *dev_ptr, size_t count)`:
/// NULL or 0 → 1 (clr hip_hmm.cpp:176-178); a range that is not managed
/// memory, a size that does not fit the attribute, an unknown attribute → 1.
pub extern "C" fn hipMemRangeGetAttribute(
    data: Out<'_, c_void>,
    data_size: usize,
    attribute: hipMemRangeAttribute,
    dev_ptr: *const c_void,
    count: usize,
) -> hipError_t {
    run("hipMemRangeGetAttribute", || {
        if data.is_null() || data_size == 0 {
            return Err(Fail::plain(HipError::INVALID_VALUE, "data is NULL or data_size is 0".into()));
        }
        let e = emu()?;
        if let Some(mode) = malloc_coherency(e, attribute, dev_ptr, count) {
            if data_size != 4 {
                return Err(Fail::plain(HipError::INVALID_VALUE, format!("data_size {data_size} is not 4")));
            }
            return Ok(data.cast::<i32>().write(mode)?);
        }
        let (base, off) = managed_range(e, dev_ptr, count)?;
        range_attribute(e, data, data_size, attribute, (base, off, count))
    })
}

/// `hipError_t hipMemRangeGetAttributes(void **data, size_t *data_sizes, hipMemRangeAttribute *attributes, size_t num_attributes, const void *dev_ptr, size_t count)`:
/// any array NULL, or 0 attributes, or a NULL `data[i]` → 1 (clr
/// hip_hmm.cpp:199-208); then each as hipMemRangeGetAttribute.
pub extern "C" fn hipMemRangeGetAttributes(
    data: In<'_, *mut c_void>,
    data_sizes: In<'_, usize>,
    attributes: In<'_, hipMemRangeAttribute>,
    num_attributes: usize,
    dev_ptr: *const c_void,
    count: usize,
) -> hipError_t {
    run("hipMemRangeGetAttributes", || {
        if data.is_null() || data_sizes.is_null() || attributes.is_null() || num_attributes == 0 {
            return Err(Fail::plain(HipError::INVALID_VALUE, "an array is NULL or num_attributes is 0".into()));
        }
        let items: Vec<(Out<'_, c_void>, usize, i32)> = (0..num_attributes)
            .map(|i| Ok((data.out_at(i)?, data_sizes.read_at(i)?, attributes.read_at(i)?)))
            .collect::<Result<_, crate::ffi::Null>>()?;
        if items.iter().any(|(d, n, _)| d.is_null() || *n == 0) {
            return Err(Fail::plain(HipError::INVALID_VALUE, "a data[i] is NULL or its size is 0".into()));
        }
        let e = emu()?;
        let (base, off) = managed_range(e, dev_ptr, count)?;
        items.into_iter().try_for_each(|(d, n, a)| range_attribute(e, d, n, a, (base, off, count)))
    })
}

/// `hipError_t hipStreamAttachMemAsync(hipStream_t stream, void *dev_ptr, size_t length, unsigned int flags)`:
/// NULL → 1; a dead stream → 709; flags other than AttachGlobal / Host /
/// Single, or Single on the NULL stream → 1; memory HIP does not know → 1
/// (no HMM); for managed memory a length other than 0 or its size → 1 (clr
/// hip_hmm.cpp:234-275). Attaching changes nothing in vmmkit.
pub extern "C" fn hipStreamAttachMemAsync(stream: hipStream_t, dev_ptr: *mut c_void, length: usize, flags: u32) -> hipError_t {
    run("hipStreamAttachMemAsync", || {
        if dev_ptr.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "dev_ptr is NULL".into()));
        }
        let e = emu()?;
        if stream_of(e, stream)?.is_none() {
            return Ok(());
        }
        if ![hipMemAttachGlobal, hipMemAttachHost, hipMemAttachSingle].contains(&flags)
            || (flags == hipMemAttachSingle && stream.is_null())
        {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("flags {flags:#x} on stream {stream:p}")));
        }
        let p = dev_ptr as usize;
        match extent(e, p) {
            None => Err(Fail::plain(HipError::INVALID_VALUE, format!("{p:#x} is not memory HIP knows (no HMM)"))),
            Some(x) if x.kind == Kind::Managed && length != 0 && length != x.size => Err(Fail::plain(
                HipError::INVALID_VALUE,
                format!("length {length} is neither 0 nor the allocation's size {}", x.size),
            )),
            Some(_) => Ok(()),
        }
    })
}
