//! HIP arrays, in linear memory. An array is hipMalloc memory of
//! its rows packed one after the other (`Width × element size` bytes each,
//! `max(Height, 1)` rows a slice, `max(Depth, 1)` slices), behind an opaque
//! handle that is looked up, never dereferenced (`ranges.rs`). No texture
//! or surface reads it (device code is not emulated); copies to and from it
//! are the 2-D copies of `pitched.rs` (clr hipamd/src/hip_memory.cpp).
#![allow(non_snake_case, non_upper_case_globals)]

use std::ffi::c_void;

use vmmkit_sys::hip::*;

use super::call::{Fail, emu, run};
use super::memory::{On, free, malloc, memcpy};
use super::pitched::{copy_2d, rows_2d};
use super::ranges::ArrayRec;
use super::state::state;
use crate::ffi::{In, Out};
use crate::core::Emulator;

/// Bytes per channel of an array format.
fn format_size(f: hipArray_Format) -> Option<usize> {
    match f {
        HIP_AD_FORMAT_UNSIGNED_INT8 | HIP_AD_FORMAT_SIGNED_INT8 => Some(1),
        HIP_AD_FORMAT_UNSIGNED_INT16 | HIP_AD_FORMAT_SIGNED_INT16 | HIP_AD_FORMAT_HALF => Some(2),
        HIP_AD_FORMAT_UNSIGNED_INT32 | HIP_AD_FORMAT_SIGNED_INT32 | HIP_AD_FORMAT_FLOAT => Some(4),
        _ => None,
    }
}

/// The format and channel count of a channel descriptor: 1, 2 or 4 channels
/// of equal width (8, 16 or 32 bits; float 16 or 32), as clr's
/// `CheckArrayFormat` asks.
pub(super) fn from_channels(d: &hipChannelFormatDesc) -> Option<(hipArray_Format, u32)> {
    let bits = [d.x, d.y, d.z, d.w];
    let n = bits.iter().take_while(|&&b| b != 0).count();
    if !matches!(n, 1 | 2 | 4) || bits[n..].iter().any(|&b| b != 0) || bits[..n].iter().any(|&b| b != d.x) {
        return None;
    }
    let format = match (d.f, d.x) {
        (hipChannelFormatKindUnsigned, 8) => HIP_AD_FORMAT_UNSIGNED_INT8,
        (hipChannelFormatKindUnsigned, 16) => HIP_AD_FORMAT_UNSIGNED_INT16,
        (hipChannelFormatKindUnsigned, 32) => HIP_AD_FORMAT_UNSIGNED_INT32,
        (hipChannelFormatKindSigned, 8) => HIP_AD_FORMAT_SIGNED_INT8,
        (hipChannelFormatKindSigned, 16) => HIP_AD_FORMAT_SIGNED_INT16,
        (hipChannelFormatKindSigned, 32) => HIP_AD_FORMAT_SIGNED_INT32,
        (hipChannelFormatKindFloat, 16) => HIP_AD_FORMAT_HALF,
        (hipChannelFormatKindFloat, 32) => HIP_AD_FORMAT_FLOAT,
        _ => return None,
    };
    Some((format, n as u32))
}

/// The channel descriptor of a format and channel count (clr `getChannelFormatDesc`).
fn to_channels(format: hipArray_Format, channels: u32) -> hipChannelFormatDesc {
    let bits = format_size(format).unwrap_or(0) as i32 * 8;
    let f = match format {
        HIP_AD_FORMAT_HALF | HIP_AD_FORMAT_FLOAT => hipChannelFormatKindFloat,
        HIP_AD_FORMAT_SIGNED_INT8 | HIP_AD_FORMAT_SIGNED_INT16 | HIP_AD_FORMAT_SIGNED_INT32 => hipChannelFormatKindSigned,
        _ => hipChannelFormatKindUnsigned,
    };
    let c = |i: u32| if i < channels { bits } else { 0 };
    hipChannelFormatDesc { x: c(0), y: c(1), z: c(2), w: c(3), f }
}

/// clr's `ihipArrayCreate` (hip_memory.cpp:1138-1204): NULL → 1; channels
/// other than 1, 2, 4 → 1; flags beyond Layered, SurfaceLoadStore,
/// TextureGather (cubemaps are not supported) → 1; TextureGather on other
/// than a 2-D array → 1. vmmkit also refuses an unknown format and a width
/// of 0 (1), and answers memory it cannot allocate with 2.
fn create(array: Out<'_, hipArray_t>, d: &HIP_ARRAY3D_DESCRIPTOR) -> Result<(), Fail> {
    let bad = |m: String| Err(Fail::plain(HipError::INVALID_VALUE, m));
    if array.is_null() {
        return bad("array is NULL".into());
    }
    if !matches!(d.NumChannels, 1 | 2 | 4) {
        return bad(format!("NumChannels {} is not 1, 2 or 4", d.NumChannels));
    }
    let Some(size) = format_size(d.Format) else { return bad(format!("{:#x} is not a hipArray_Format", d.Format)) };
    let known = hipArrayLayered | hipArraySurfaceLoadStore | hipArrayTextureGather;
    if d.Flags & !known != 0 {
        return bad(format!("flags {:#x} beyond {known:#x} (cubemaps are not supported)", d.Flags));
    }
    if d.Flags & hipArrayTextureGather != 0 && (d.Width == 0 || d.Height == 0 || d.Depth > 0) {
        return bad("hipArrayTextureGather is for 2-D arrays only".into());
    }
    if d.Width == 0 {
        return bad("an array of width 0".into());
    }
    let elem = size * d.NumChannels as usize;
    let bytes = d.Width.checked_mul(elem).and_then(|n| n.checked_mul(d.Height.max(1))).and_then(|n| n.checked_mul(d.Depth.max(1)));
    let bytes = bytes.ok_or_else(|| Fail::plain(HipError::OUT_OF_MEMORY, format!("{d:?} overflows")))?;
    let mut mem = std::ptr::null_mut();
    malloc(Out::from_mut(&mut mem), bytes)?;
    let handle = state(emu()?).mem.add_array(ArrayRec { mem: mem as usize, elem, desc: *d });
    array.write(handle as hipArray_t)?;
    Ok(())
}

/// `hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w, hipChannelFormatKind f)`:
/// the descriptor of those bits per channel and that kind, as given (clr
/// hip_texture.cpp; no check).
pub extern "C" fn hipCreateChannelDesc(x: i32, y: i32, z: i32, w: i32, f: i32) -> hipChannelFormatDesc {
    hipChannelFormatDesc { x, y, z, w, f }
}

/// `hipError_t hipArrayCreate(hipArray_t *pHandle, const HIP_ARRAY_DESCRIPTOR *pAllocateArray)`: a 1-D or 2-D array.
pub extern "C" fn hipArrayCreate(pHandle: Out<'_, hipArray_t>, pAllocateArray: In<'_, HIP_ARRAY_DESCRIPTOR>) -> hipError_t {
    run("hipArrayCreate", || {
        if pAllocateArray.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "pAllocateArray is NULL".into()));
        }
        let d = pAllocateArray.read()?;
        let d3 = HIP_ARRAY3D_DESCRIPTOR { Width: d.Width, Height: d.Height, Depth: 0, Format: d.Format, NumChannels: d.NumChannels, Flags: 0 };
        create(pHandle, &d3)
    })
}

/// `hipError_t hipArray3DCreate(hipArray_t *array, const HIP_ARRAY3D_DESCRIPTOR *pAllocateArray)`.
pub extern "C" fn hipArray3DCreate(array: Out<'_, hipArray_t>, pAllocateArray: In<'_, HIP_ARRAY3D_DESCRIPTOR>) -> hipError_t {
    run("hipArray3DCreate", || {
        if pAllocateArray.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "pAllocateArray is NULL".into()));
        }
        create(array, &pAllocateArray.read()?)
    })
}

/// The runtime forms: array or desc NULL → 1; a channel descriptor clr's
/// `CheckArrayFormat` refuses → 1 (hip_memory.cpp:1224-1245, 1256-1276).
fn create_from_channels(array: Out<'_, hipArray_t>, desc: In<'_, hipChannelFormatDesc>, x: hipExtent, flags: u32) -> Result<(), Fail> {
    if array.is_null() || desc.is_null() {
        return Err(Fail::plain(HipError::INVALID_VALUE, "array or desc is NULL".into()));
    }
    let c = desc.read()?;
    let (Format, NumChannels) = from_channels(&c)
        .ok_or_else(|| Fail::plain(HipError::INVALID_VALUE, format!("{c:?} is not an array format")))?;
    create(array, &HIP_ARRAY3D_DESCRIPTOR { Width: x.width, Height: x.height, Depth: x.depth, Format, NumChannels, Flags: flags })
}

/// `hipError_t hipMallocArray(hipArray_t *array, const hipChannelFormatDesc *desc, size_t width, size_t height, unsigned int flags)`.
pub extern "C" fn hipMallocArray(array: Out<'_, hipArray_t>, desc: In<'_, hipChannelFormatDesc>, width: usize, height: usize, flags: u32) -> hipError_t {
    run("hipMallocArray", || create_from_channels(array, desc, hipExtent { width, height, depth: 0 }, flags))
}

/// `hipError_t hipMalloc3DArray(hipArray_t *array, const hipChannelFormatDesc *desc, hipExtent extent, unsigned int flags)`.
pub extern "C" fn hipMalloc3DArray(array: Out<'_, hipArray_t>, desc: In<'_, hipChannelFormatDesc>, extent: hipExtent, flags: u32) -> hipError_t {
    run("hipMalloc3DArray", || create_from_channels(array, desc, extent, flags))
}

/// clr's `ihipArrayDestroy` (hip_memory.cpp:821-843): NULL → 1; not a live
/// array → 709; the device's streams are waited for, then it goes.
fn destroy(array: hipArray_t) -> Result<(), Fail> {
    if array.is_null() {
        return Err(Fail::plain(HipError::INVALID_VALUE, "array is NULL".into()));
    }
    let e = emu()?;
    let rec = state(e)
        .mem
        .remove_array(array as usize)
        .ok_or_else(|| Fail::plain(HipError::CONTEXT_IS_DESTROYED, format!("{array:p} is not a live array")))?;
    e.device_synchronize(None, None).map_err(super::stream::work_failed)?;
    free(e, rec.mem)
}

/// `hipError_t hipFreeArray(hipArray_t array)`.
pub extern "C" fn hipFreeArray(array: hipArray_t) -> hipError_t {
    run("hipFreeArray", || destroy(array))
}

/// `hipError_t hipArrayDestroy(hipArray_t array)`.
pub extern "C" fn hipArrayDestroy(array: hipArray_t) -> hipError_t {
    run("hipArrayDestroy", || destroy(array))
}

/// The array of a handle: NULL → `null` (the caller's code), not a live array → 1.
fn lookup(e: &Emulator, array: hipArray_t, null: HipError) -> Result<ArrayRec, Fail> {
    if array.is_null() {
        return Err(Fail::plain(null, "array is NULL".into()));
    }
    state(e).mem.array(array as usize).ok_or_else(|| Fail::plain(HipError::INVALID_VALUE, format!("{array:p} is not a live array")))
}

/// The descriptor of a live array: NULL or not live → 400 (clr
/// `ihipArray3DGetDescriptor`, hip_memory.cpp:4098-4115).
fn descriptor(array: hipArray_t) -> Result<HIP_ARRAY3D_DESCRIPTOR, Fail> {
    let e = emu()?;
    let rec = lookup(e, array, HipError::INVALID_HANDLE).map_err(|_| {
        Fail::plain(HipError::INVALID_HANDLE, format!("{array:p} is not a live array"))
    })?;
    Ok(rec.desc)
}

/// `hipError_t hipArrayGetInfo(hipChannelFormatDesc *desc, hipExtent *extent, unsigned int *flags, hipArray_t array)`:
/// NULL array → 400; all outputs NULL → 0; else as the descriptor (hip_memory.cpp:4117-4153).
pub extern "C" fn hipArrayGetInfo(desc: Out<'_, hipChannelFormatDesc>, extent: Out<'_, hipExtent>, flags: Out<'_, u32>, array: hipArray_t) -> hipError_t {
    run("hipArrayGetInfo", || {
        if array.is_null() {
            return Err(Fail::plain(HipError::INVALID_HANDLE, "array is NULL".into()));
        }
        if desc.is_null() && extent.is_null() && flags.is_null() {
            return Ok(());
        }
        let d = descriptor(array)?;
        desc.write_if_given(to_channels(d.Format, d.NumChannels));
        extent.write_if_given(hipExtent { width: d.Width, height: d.Height, depth: d.Depth });
        flags.write_if_given(d.Flags);
        Ok(())
    })
}

/// `hipError_t hipArrayGetDescriptor(HIP_ARRAY_DESCRIPTOR *pArrayDescriptor, hipArray_t array)`.
pub extern "C" fn hipArrayGetDescriptor(pArrayDescriptor: Out<'_, HIP_ARRAY_DESCRIPTOR>, array: hipArray_t) -> hipError_t {
    run("hipArrayGetDescriptor", || {
        if pArrayDescriptor.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "pArrayDescriptor is NULL".into()));
        }
        let d = descriptor(array)?;
        let out = HIP_ARRAY_DESCRIPTOR { Width: d.Width, Height: d.Height, Format: d.Format, NumChannels: d.NumChannels };
        pArrayDescriptor.write(out)?;
        Ok(())
    })
}

/// `hipError_t hipArray3DGetDescriptor(HIP_ARRAY3D_DESCRIPTOR *pArrayDescriptor, hipArray_t array)`.
pub extern "C" fn hipArray3DGetDescriptor(pArrayDescriptor: Out<'_, HIP_ARRAY3D_DESCRIPTOR>, array: hipArray_t) -> hipError_t {
    run("hipArray3DGetDescriptor", || {
        if pArrayDescriptor.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "pArrayDescriptor is NULL".into()));
        }
        let d = descriptor(array)?;
        pArrayDescriptor.write(d)?;
        Ok(())
    })
}

/// The address `offset` bytes into an array's memory (its rows packed); an
/// offset past its end is caught by the copy's bounds check (1).
fn at(rec: &ArrayRec, offset: usize) -> Result<*mut c_void, Fail> {
    rec.mem
        .checked_add(offset)
        .map(|p| p as *mut c_void)
        .ok_or_else(|| Fail::plain(HipError::INVALID_VALUE, format!("offset {offset:#x} overflows")))
}

/// The address of byte `x` of row `y` of an array, with `width` bytes from
/// there inside the row (else 1).
fn at_row(rec: &ArrayRec, x: usize, y: usize, width: usize) -> Result<*mut c_void, Fail> {
    if x.checked_add(width).is_none_or(|end| end > rec.pitch()) {
        return Err(Fail::plain(HipError::INVALID_VALUE, format!("{x} + {width} bytes run past a row of {} bytes", rec.pitch())));
    }
    let off = y.checked_mul(rec.pitch()).and_then(|o| o.checked_add(x));
    at(rec, off.ok_or_else(|| Fail::plain(HipError::INVALID_VALUE, format!("row {y} overflows")))?)
}

/// A linear copy between an array (at a byte offset) and memory, in `kind`.
fn linear(array: hipArray_t, offset: usize, other: *mut c_void, n: usize, kind: hipMemcpyKind, to_array: bool, on: On) -> Result<(), Fail> {
    let rec = lookup(emu()?, array, HipError::INVALID_VALUE)?;
    let a = at(&rec, offset)?;
    if to_array { memcpy(a, other, n, kind, on) } else { memcpy(other, a, n, kind, on) }
}

/// `hipError_t hipMemcpyHtoA(hipArray_t dstArray, size_t dstOffset, const void *srcHost, size_t count)`.
pub extern "C" fn hipMemcpyHtoA(dstArray: hipArray_t, dstOffset: usize, srcHost: *const c_void, count: usize) -> hipError_t {
    run("hipMemcpyHtoA", || linear(dstArray, dstOffset, srcHost.cast_mut(), count, hipMemcpyHostToDevice, true, On::Sync))
}

/// `hipError_t hipMemcpyHtoAAsync(hipArray_t dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount, hipStream_t stream)`.
pub extern "C" fn hipMemcpyHtoAAsync(dstArray: hipArray_t, dstOffset: usize, srcHost: *const c_void, ByteCount: usize, stream: hipStream_t) -> hipError_t {
    run("hipMemcpyHtoAAsync", || linear(dstArray, dstOffset, srcHost.cast_mut(), ByteCount, hipMemcpyHostToDevice, true, On::Stream(stream)))
}

/// `hipError_t hipMemcpyAtoH(void *dst, hipArray_t srcArray, size_t srcOffset, size_t count)`.
pub extern "C" fn hipMemcpyAtoH(dst: *mut c_void, srcArray: hipArray_t, srcOffset: usize, count: usize) -> hipError_t {
    run("hipMemcpyAtoH", || linear(srcArray, srcOffset, dst, count, hipMemcpyDeviceToHost, false, On::Sync))
}

/// `hipError_t hipMemcpyAtoHAsync(void *dstHost, hipArray_t srcArray, size_t srcOffset, size_t ByteCount, hipStream_t stream)`.
pub extern "C" fn hipMemcpyAtoHAsync(dstHost: *mut c_void, srcArray: hipArray_t, srcOffset: usize, ByteCount: usize, stream: hipStream_t) -> hipError_t {
    run("hipMemcpyAtoHAsync", || linear(srcArray, srcOffset, dstHost, ByteCount, hipMemcpyDeviceToHost, false, On::Stream(stream)))
}

/// `hipError_t hipMemcpyAtoD(hipDeviceptr_t dstDevice, hipArray_t srcArray, size_t srcOffset, size_t ByteCount)`.
pub extern "C" fn hipMemcpyAtoD(dstDevice: hipDeviceptr_t, srcArray: hipArray_t, srcOffset: usize, ByteCount: usize) -> hipError_t {
    run("hipMemcpyAtoD", || linear(srcArray, srcOffset, dstDevice, ByteCount, hipMemcpyDeviceToDevice, false, On::Sync))
}

/// `hipError_t hipMemcpyDtoA(hipArray_t dstArray, size_t dstOffset, hipDeviceptr_t srcDevice, size_t ByteCount)`.
pub extern "C" fn hipMemcpyDtoA(dstArray: hipArray_t, dstOffset: usize, srcDevice: hipDeviceptr_t, ByteCount: usize) -> hipError_t {
    run("hipMemcpyDtoA", || linear(dstArray, dstOffset, srcDevice, ByteCount, hipMemcpyDeviceToDevice, true, On::Sync))
}

/// `hipError_t hipMemcpyAtoA(hipArray_t dstArray, size_t dstOffset, hipArray_t srcArray, size_t srcOffset, size_t ByteCount)`.
pub extern "C" fn hipMemcpyAtoA(dstArray: hipArray_t, dstOffset: usize, srcArray: hipArray_t, srcOffset: usize, ByteCount: usize) -> hipError_t {
    run("hipMemcpyAtoA", || {
        let src = at(&lookup(emu()?, srcArray, HipError::INVALID_VALUE)?, srcOffset)?;
        linear(dstArray, dstOffset, src, ByteCount, hipMemcpyDeviceToDevice, true, On::Sync)
    })
}

/// `hipError_t hipMemcpyToArray(hipArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count, hipMemcpyKind kind)` (deprecated):
/// `count` bytes from byte `wOffset` of row `hOffset`.
pub extern "C" fn hipMemcpyToArray(dst: hipArray_t, wOffset: usize, hOffset: usize, src: *const c_void, count: usize, kind: hipMemcpyKind) -> hipError_t {
    run("hipMemcpyToArray", || {
        let rec = lookup(emu()?, dst, HipError::INVALID_VALUE)?;
        memcpy(at_row(&rec, wOffset, hOffset, 0)?, src, count, kind, On::Sync)
    })
}

/// `hipError_t hipMemcpyFromArray(void *dst, hipArray_const_t srcArray, size_t wOffset, size_t hOffset, size_t count, hipMemcpyKind kind)` (deprecated).
pub extern "C" fn hipMemcpyFromArray(dst: *mut c_void, srcArray: hipArray_t, wOffset: usize, hOffset: usize, count: usize, kind: hipMemcpyKind) -> hipError_t {
    run("hipMemcpyFromArray", || from_array(dst, srcArray, wOffset, hOffset, count, kind, On::Sync))
}

/// `hipMemcpyFromArray` on the calling thread's default stream.
pub extern "C" fn hipMemcpyFromArray_spt(dst: *mut c_void, srcArray: hipArray_t, wOffset: usize, hOffset: usize, count: usize, kind: hipMemcpyKind) -> hipError_t {
    run("hipMemcpyFromArray_spt", || from_array(dst, srcArray, wOffset, hOffset, count, kind, On::SyncPerThread))
}

fn from_array(dst: *mut c_void, src: hipArray_t, wOffset: usize, hOffset: usize, count: usize, kind: hipMemcpyKind, on: On) -> Result<(), Fail> {
    let rec = lookup(emu()?, src, HipError::INVALID_VALUE)?;
    memcpy(dst, at_row(&rec, wOffset, hOffset, 0)?, count, kind, on)
}

/// A 2-D copy into an array: NULL array → 400 (clr `ihipMemcpy2DToArray`,
/// hip_memory.cpp:2697-2700); the rows must fit the array's (1); then as
/// hipMemcpy2D (a pitch below the width → 12).
#[allow(clippy::too_many_arguments)] // hipMemcpy2DToArrayAsync's own
fn to_array_2d(dst: hipArray_t, wOffset: usize, hOffset: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind, on: On) -> Result<(), Fail> {
    let rec = lookup(emu()?, dst, HipError::INVALID_HANDLE)?;
    copy_2d(at_row(&rec, wOffset, hOffset, width)?, src, rows_2d(rec.pitch(), spitch, width, height), kind, on)
}

/// A 2-D copy out of an array, as [`to_array_2d`].
#[allow(clippy::too_many_arguments)] // hipMemcpy2DFromArrayAsync's own
fn from_array_2d(dst: *mut c_void, dpitch: usize, src: hipArray_t, wOffset: usize, hOffset: usize, width: usize, height: usize, kind: hipMemcpyKind, on: On) -> Result<(), Fail> {
    let rec = lookup(emu()?, src, HipError::INVALID_HANDLE)?;
    copy_2d(dst, at_row(&rec, wOffset, hOffset, width)?, rows_2d(dpitch, rec.pitch(), width, height), kind, on)
}

/// `hipError_t hipMemcpy2DToArray(hipArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch, size_t width, size_t height, hipMemcpyKind kind)`.
pub extern "C" fn hipMemcpy2DToArray(dst: hipArray_t, wOffset: usize, hOffset: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind) -> hipError_t {
    run("hipMemcpy2DToArray", || to_array_2d(dst, wOffset, hOffset, src, spitch, width, height, kind, On::Sync))
}

/// `hipMemcpy2DToArray` on a stream.
pub extern "C" fn hipMemcpy2DToArrayAsync(dst: hipArray_t, wOffset: usize, hOffset: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind, stream: hipStream_t) -> hipError_t {
    run("hipMemcpy2DToArrayAsync", || to_array_2d(dst, wOffset, hOffset, src, spitch, width, height, kind, On::Stream(stream)))
}

/// `hipMemcpy2DToArray` on the calling thread's default stream.
pub extern "C" fn hipMemcpy2DToArray_spt(dst: hipArray_t, wOffset: usize, hOffset: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind) -> hipError_t {
    run("hipMemcpy2DToArray_spt", || to_array_2d(dst, wOffset, hOffset, src, spitch, width, height, kind, On::SyncPerThread))
}

/// `hipMemcpy2DToArrayAsync` with NULL meaning the calling thread's default stream.
pub extern "C" fn hipMemcpy2DToArrayAsync_spt(dst: hipArray_t, wOffset: usize, hOffset: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind, stream: hipStream_t) -> hipError_t {
    let on = On::Stream(super::stream::spt(stream));
    run("hipMemcpy2DToArrayAsync_spt", || to_array_2d(dst, wOffset, hOffset, src, spitch, width, height, kind, on))
}

/// `hipError_t hipMemcpy2DFromArray(void *dst, size_t dpitch, hipArray_const_t src, size_t wOffset, size_t hOffset, size_t width, size_t height, hipMemcpyKind kind)`.
pub extern "C" fn hipMemcpy2DFromArray(dst: *mut c_void, dpitch: usize, src: hipArray_t, wOffset: usize, hOffset: usize, width: usize, height: usize, kind: hipMemcpyKind) -> hipError_t {
    run("hipMemcpy2DFromArray", || from_array_2d(dst, dpitch, src, wOffset, hOffset, width, height, kind, On::Sync))
}

/// `hipMemcpy2DFromArray` on a stream.
pub extern "C" fn hipMemcpy2DFromArrayAsync(dst: *mut c_void, dpitch: usize, src: hipArray_t, wOffset: usize, hOffset: usize, width: usize, height: usize, kind: hipMemcpyKind, stream: hipStream_t) -> hipError_t {
    run("hipMemcpy2DFromArrayAsync", || from_array_2d(dst, dpitch, src, wOffset, hOffset, width, height, kind, On::Stream(stream)))
}

/// `hipMemcpy2DFromArray` on the calling thread's default stream.
pub extern "C" fn hipMemcpy2DFromArray_spt(dst: *mut c_void, dpitch: usize, src: hipArray_t, wOffset: usize, hOffset: usize, width: usize, height: usize, kind: hipMemcpyKind) -> hipError_t {
    run("hipMemcpy2DFromArray_spt", || from_array_2d(dst, dpitch, src, wOffset, hOffset, width, height, kind, On::SyncPerThread))
}

/// `hipMemcpy2DFromArrayAsync` with NULL meaning the calling thread's default stream.
pub extern "C" fn hipMemcpy2DFromArrayAsync_spt(dst: *mut c_void, dpitch: usize, src: hipArray_t, wOffset: usize, hOffset: usize, width: usize, height: usize, kind: hipMemcpyKind, stream: hipStream_t) -> hipError_t {
    let on = On::Stream(super::stream::spt(stream));
    run("hipMemcpy2DFromArrayAsync_spt", || from_array_2d(dst, dpitch, src, wOffset, hOffset, width, height, kind, on))
}

/// `hipError_t hipMemcpy2DArrayToArray(hipArray_t dst, size_t wOffsetDst, size_t hOffsetDst, hipArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc, size_t width, size_t height, hipMemcpyKind kind)`.
pub extern "C" fn hipMemcpy2DArrayToArray(dst: hipArray_t, wOffsetDst: usize, hOffsetDst: usize, src: hipArray_t, wOffsetSrc: usize, hOffsetSrc: usize, width: usize, height: usize, kind: hipMemcpyKind) -> hipError_t {
    run("hipMemcpy2DArrayToArray", || {
        let e = emu()?;
        let (d, s) = (lookup(e, dst, HipError::INVALID_HANDLE)?, lookup(e, src, HipError::INVALID_HANDLE)?);
        let (dp, sp) = (at_row(&d, wOffsetDst, hOffsetDst, width)?, at_row(&s, wOffsetSrc, hOffsetSrc, width)?);
        copy_2d(dp, sp, rows_2d(d.pitch(), s.pitch(), width, height), kind, On::Sync)
    })
}
