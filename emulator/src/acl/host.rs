//! Data buffers (`aclCreateDataBuffer`
//! …), data type sizes, half-precision conversions, and the thread's last
//! runtime error (`aclrtGetLastError`, `aclrtPeekAtLastError`).
//!
//! None of these needs a device, aclInit or an emulator root. Behaviour as
//! CANN's (hicann/runtime@681ef76 src/acl/aclrt_impl/data_buffer.cpp:22-112),
//! except that an `aclDataBuffer` vmmkit did not make is refused (100000, or
//! NULL/0 from the getters, with the thread's message) instead of being
//! dereferenced.
#![allow(non_snake_case)]

use std::ffi::c_void;

use vmmkit_sys::acl::*;

use super::boxes::Boxes;
use super::call::{Fail, run, take_last_error};
use crate::core::thread;

/// What an `aclDataBuffer *` points to (opaque to programs).
#[derive(Debug)]
pub struct DataBuffer {
    data: *mut c_void,
    size: usize,
}

/// The data buffers made and not yet destroyed. Process-global, not in the
/// ACL state of the emulator: these calls need no aclInit, device or root
/// (see above), so a buffer exists before and without the emulator.
static BUFFERS: Boxes<DataBuffer> = Boxes::new();

/// The buffer `b` points to, if it is live; otherwise the thread's message says why.
fn buffer<'a>(b: *const aclDataBuffer, api: &str) -> Option<&'a mut DataBuffer> {
    // SAFETY: the program uses a buffer from one call at a time (CANN's contract).
    let found = unsafe { BUFFERS.get(b.cast()) };
    if found.is_none() {
        thread::set_message(&format!("{api}: {b:p} is not a data buffer of this process (NULL, destroyed or foreign)"));
    }
    found
}

/// `aclDataBuffer *aclCreateDataBuffer(void *data, size_t size)`: a buffer
/// describing `size` bytes at `data` (either may be 0: an empty buffer).
pub extern "C" fn aclCreateDataBuffer(data: *mut c_void, size: usize) -> *mut aclDataBuffer {
    BUFFERS.create(DataBuffer { data, size }).cast()
}

/// `aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer)`: frees the
/// description (not the data); NULL or an unknown buffer is 100000.
pub extern "C" fn aclDestroyDataBuffer(dataBuffer: *const aclDataBuffer) -> aclError {
    run("aclDestroyDataBuffer", || {
        if !BUFFERS.destroy(dataBuffer.cast()) {
            return Err(Fail::plain(AclError::INVALID_PARAM, format!("{dataBuffer:p} is not a data buffer")));
        }
        Ok(())
    })
}

/// `aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size)`.
pub extern "C" fn aclUpdateDataBuffer(dataBuffer: *mut aclDataBuffer, data: *mut c_void, size: usize) -> aclError {
    run("aclUpdateDataBuffer", || {
        let Some(b) = buffer(dataBuffer, "aclUpdateDataBuffer") else {
            return Err(Fail::plain(AclError::INVALID_PARAM, format!("{dataBuffer:p} is not a data buffer")));
        };
        (b.data, b.size) = (data, size);
        Ok(())
    })
}

/// `void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer)`: NULL for NULL.
pub extern "C" fn aclGetDataBufferAddr(dataBuffer: *const aclDataBuffer) -> *mut c_void {
    buffer(dataBuffer, "aclGetDataBufferAddr").map_or(std::ptr::null_mut(), |b| b.data)
}

/// `uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer)`: the size
/// truncated to 32 bits (data_buffer.cpp:95-102); 0 for NULL.
pub extern "C" fn aclGetDataBufferSize(dataBuffer: *const aclDataBuffer) -> u32 {
    buffer(dataBuffer, "aclGetDataBufferSize").map_or(0, |b| b.size as u32)
}

/// `size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer)`: 0 for NULL.
pub extern "C" fn aclGetDataBufferSizeV2(dataBuffer: *const aclDataBuffer) -> usize {
    buffer(dataBuffer, "aclGetDataBufferSizeV2").map_or(0, |b| b.size)
}

/// `size_t aclDataTypeSize(aclDataType dataType)`: bytes per element
/// (data_buffer.cpp:22-57): 0 for STRING and UNDEFINED, 1 for the
/// sub-byte INT4 and UINT1, 8 for what the table does not name.
pub extern "C" fn aclDataTypeSize(dataType: aclDataType) -> usize {
    match dataType {
        ACL_STRING | ACL_DT_UNDEFINED => 0,
        ACL_UINT1 | ACL_INT4 | ACL_BOOL | ACL_INT8 | ACL_UINT8 | ACL_HIFLOAT8 | ACL_FLOAT8_E5M2
        | ACL_FLOAT8_E4M3FN | ACL_FLOAT8_E8M0 => 1,
        ACL_FLOAT16 | ACL_INT16 | ACL_UINT16 | ACL_BF16 => 2,
        ACL_FLOAT | ACL_INT32 | ACL_UINT32 | ACL_COMPLEX32 => 4,
        ACL_COMPLEX128 => 16,
        _ => 8,
    }
}

/// `float aclFloat16ToFloat(aclFloat16 value)`: IEEE 754 binary16 to binary32, exactly.
pub extern "C" fn aclFloat16ToFloat(value: aclFloat16) -> f32 {
    let sign = u32::from(value >> 15) << 31;
    let exp = u32::from((value >> 10) & 0x1f);
    let man = u32::from(value & 0x3ff);
    let bits = match (exp, man) {
        (0, 0) => sign,
        // Subnormal: value = man * 2^-24, exact in binary32.
        (0, m) => {
            let v = m as f32 * f32::powi(2.0, -24);
            return if sign != 0 { -v } else { v };
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, m) => sign | 0x7fc0_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// `aclFloat16 aclFloatToFloat16(float value)`: binary32 to binary16,
/// rounded to nearest, ties to even; overflow gives infinity, NaN stays NaN.
pub extern "C" fn aclFloatToFloat16(value: f32) -> aclFloat16 {
    let x = value.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 | (man >> 13) as u16 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    // The significand with its implicit bit, and how far right it goes.
    let (full, shift) = if e <= 0 { (man | 0x80_0000, 14 - e) } else { (man, 13) };
    if shift > 24 {
        return sign;
    }
    let kept = full >> shift;
    let rest = full & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    let round = u32::from(rest > half || (rest == half && kept & 1 == 1));
    let base = if e <= 0 { kept } else { ((e as u32) << 10) | kept };
    // A carry out of the significand moves into the exponent, as it should.
    sign | (base + round) as u16
}

/// `aclError aclrtGetLastError(aclrtLastErrLevel level)`: the last error this
/// thread got from an ACL call, then cleared; 0 if none. A level other than
/// `ACL_RT_THREAD_LEVEL` is 100000 (context.cpp:172-186).
pub extern "C" fn aclrtGetLastError(level: aclrtLastErrLevel) -> aclError {
    if level != ACL_RT_THREAD_LEVEL {
        return run("aclrtGetLastError", || Err(bad_level(level)));
    }
    take_last_error(true)
}

/// `aclError aclrtPeekAtLastError(aclrtLastErrLevel level)`: as aclrtGetLastError, without clearing.
pub extern "C" fn aclrtPeekAtLastError(level: aclrtLastErrLevel) -> aclError {
    if level != ACL_RT_THREAD_LEVEL {
        return run("aclrtPeekAtLastError", || Err(bad_level(level)));
    }
    take_last_error(false)
}

fn bad_level(level: aclrtLastErrLevel) -> Fail {
    Fail::plain(AclError::INVALID_PARAM, format!("level {level} is not ACL_RT_THREAD_LEVEL (0)"))
}
