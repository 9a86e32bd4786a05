//! Mipmapped arrays. An emulated device has no image support (the
//! `ImageSupport` attribute is 0), so none can be made: clr answers 801 from
//! `ihipMipmapArrayCreate` when a device lacks mipmap images. What clr checks
//! before that is emulated with its codes ([HIP-MEM-005](vmmkit_sys::hip::rules::MEM_005)): NULL arguments of
//! the runtime forms, the channel format, and the handles of the free and
//! level queries, none of which can name a mipmapped array here
//! (ROCm/clr@f9f995c hipamd/src/hip_memory.cpp:4384-4399, 4463-4500, 4543-4603).
#![allow(non_snake_case)]

use vmmkit_sys::hip::*;

use super::array::from_channels;
use super::call::{Fail, ensure, run};
use crate::ffi::In;

/// No mipmapped array can exist: the device has no mipmap image support.
fn no_mipmap_support(what: &str) -> Fail {
    Fail::rule_code(
        &rules::MEM_005,
        HipError::NOT_SUPPORTED,
        format!("{what}: the emulated devices have no image (mipmap) support"),
    )
}

/// `hipError_t hipMallocMipmappedArray(hipMipmappedArray_t *mipmappedArray, const hipChannelFormatDesc *desc,
/// hipExtent extent, unsigned int numLevels, unsigned int flags)`: NULL array or desc → 1, a format clr's
/// `CheckArrayFormat` refuses → 1 (both before the support check), then 801.
pub extern "C" fn hipMallocMipmappedArray(
    mipmappedArray: *mut hipMipmappedArray_t,
    desc: In<'_, hipChannelFormatDesc>,
    _extent: hipExtent,
    _numLevels: u32,
    _flags: u32,
) -> hipError_t {
    run("hipMallocMipmappedArray", || {
        ensure!(!mipmappedArray.is_null() && !desc.is_null(), rules::MEM_005, "mipmappedArray or desc is NULL");
        if !desc.is_null() {
            let c = desc.read()?;
            ensure!(from_channels(&c).is_some(), rules::MEM_005, "{c:?} is not an array format");
        }
        Err(no_mipmap_support("hipMallocMipmappedArray"))
    })
}

/// `hipError_t hipMipmappedArrayCreate(hipMipmappedArray_t *pHandle, HIP_ARRAY3D_DESCRIPTOR *desc,
/// unsigned int numMipmapLevels)`: 801 whatever the arguments (clr checks the support first).
pub extern "C" fn hipMipmappedArrayCreate(
    _pHandle: *mut hipMipmappedArray_t,
    _pMipmappedArrayDesc: *mut HIP_ARRAY3D_DESCRIPTOR,
    _numMipmapLevels: u32,
) -> hipError_t {
    run("hipMipmappedArrayCreate", || Err(no_mipmap_support("hipMipmappedArrayCreate")))
}

/// clr's `ihipMipmappedArrayDestroy`: NULL → 1; a handle whose memory object
/// is not valid → 1 (every handle, here).
fn destroy(handle: hipMipmappedArray_t) -> Result<(), Fail> {
    ensure!(!handle.is_null(), rules::MEM_005, "mipmappedArray is NULL");
    ensure!(handle.is_null(), rules::MEM_005, "{handle:p} is no mipmapped array (none can be made)");
    Ok(())
}

/// `hipError_t hipFreeMipmappedArray(hipMipmappedArray_t mipmappedArray)`.
pub extern "C" fn hipFreeMipmappedArray(mipmappedArray: hipMipmappedArray_t) -> hipError_t {
    run("hipFreeMipmappedArray", || destroy(mipmappedArray))
}

/// `hipError_t hipMipmappedArrayDestroy(hipMipmappedArray_t hMipmappedArray)`.
pub extern "C" fn hipMipmappedArrayDestroy(hMipmappedArray: hipMipmappedArray_t) -> hipError_t {
    run("hipMipmappedArrayDestroy", || destroy(hMipmappedArray))
}

/// clr's `ihipMipmappedArrayGetLevel`: NULL output → 1, NULL handle → 400,
/// a handle whose memory object is not valid → 1 (every other handle, here).
fn level(out: *mut hipArray_t, handle: *const std::ffi::c_void) -> Result<(), Fail> {
    ensure!(!out.is_null(), rules::MEM_005, "levelArray is NULL");
    ensure!(!handle.is_null(), rules::MEM_005 => HipError::INVALID_HANDLE, "mipmappedArray is NULL");
    ensure!(handle.is_null(), rules::MEM_005, "{handle:p} is no mipmapped array (none can be made)");
    Ok(())
}

/// `hipError_t hipGetMipmappedArrayLevel(hipArray_t *levelArray, hipMipmappedArray_const_t mipmappedArray,
/// unsigned int level)`.
pub extern "C" fn hipGetMipmappedArrayLevel(
    levelArray: *mut hipArray_t,
    mipmappedArray: hipMipmappedArray_const_t,
    _level: u32,
) -> hipError_t {
    run("hipGetMipmappedArrayLevel", || level(levelArray, mipmappedArray))
}

/// `hipError_t hipMipmappedArrayGetLevel(hipArray_t *pLevelArray, hipMipmappedArray_t hMipMappedArray,
/// unsigned int level)`.
pub extern "C" fn hipMipmappedArrayGetLevel(
    pLevelArray: *mut hipArray_t,
    hMipMappedArray: hipMipmappedArray_t,
    _level: u32,
) -> hipError_t {
    run("hipMipmappedArrayGetLevel", || level(pLevelArray, hMipMappedArray))
}
