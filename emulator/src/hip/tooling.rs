//! What debuggers, tracers and half-precision code find in the library
//! besides the API: the build identification the debugger agent reads
//! (`amd_dbgapi_get_*`, clr hip_global.cpp:31-41), the tracer callback
//! (`hipRegisterTracerCallback`, clr hip_intercept.cpp:52-55: kept, never
//! called, as no device activity happens), and the half-float conversions
//! compilers call (`__gnu_h2f_ieee`, `__gnu_f2h_ieee`, clr
//! hip_platform.cpp:703-720).
#![allow(non_snake_case)]

use std::ffi::{CStr, c_char, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The build name the debugger agent reads.
const BUILD_NAME: &CStr = c"vmmkit";
/// The git hash the debugger agent reads: vmmkit is not built from clr's tree.
const GIT_HASH: &CStr = c"0";

/// `const char *amd_dbgapi_get_build_name(void)`.
pub extern "C" fn amd_dbgapi_get_build_name() -> *const c_char {
    BUILD_NAME.as_ptr()
}

/// `const char *amd_dbgapi_get_git_hash(void)`.
pub extern "C" fn amd_dbgapi_get_git_hash() -> *const c_char {
    GIT_HASH.as_ptr()
}

/// `size_t amd_dbgapi_get_build_id(void)`: 0 (no clr build).
pub extern "C" fn amd_dbgapi_get_build_id() -> usize {
    0
}

/// The tracer callback last registered (its address; 0 for none).
/// Process-global, not in the HIP state of the emulator: registering
/// returns nothing, so it cannot fail for want of a root, and a tool
/// registers before the program's first HIP call.
static TRACER: AtomicUsize = AtomicUsize::new(0);

/// `void hipRegisterTracerCallback(int (*function)(activity_domain_t, uint32_t, void *))`:
/// kept, never called (no device activity is reported).
pub extern "C" fn hipRegisterTracerCallback(function: *const c_void) {
    TRACER.store(function as usize, Ordering::Relaxed);
}

/// `float __gnu_h2f_ieee(unsigned short h)`: an IEEE binary16 value as a float, exactly.
pub extern "C" fn __gnu_h2f_ieee(h: u16) -> f32 {
    half_to_float(h)
}

/// `unsigned short __gnu_f2h_ieee(float f)`: a float as IEEE binary16, rounded to nearest even.
pub extern "C" fn __gnu_f2h_ieee(f: f32) -> u16 {
    float_to_half(f)
}

fn half_to_float(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    let bits = match (exp, man) {
        (0, 0) => sign,
        // Subnormal: man × 2^-24, exact in a float.
        (0, m) => {
            let v = m as f32 * f32::from_bits(0x3380_0000);
            return if sign != 0 { -v } else { v };
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, m) => sign | 0x7fc0_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

fn float_to_half(f: f32) -> u16 {
    let x = f.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x007f_ffff;
    if exp == 0xff {
        // Infinity, or a quiet NaN keeping the top of its payload.
        return sign | 0x7c00 | if man != 0 { 0x200 | (man >> 13) as u16 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00; // overflow: infinity
    }
    if e <= 0 {
        // Subnormal half (or zero): shift the implicit 1 in, round to nearest even.
        if e < -10 {
            return sign;
        }
        let m = man | 0x0080_0000;
        let shift = (14 - e) as u32;
        let half = m >> shift;
        let rest = m & ((1 << shift) - 1);
        let mid = 1 << (shift - 1);
        let up = rest > mid || (rest == mid && half & 1 == 1);
        return sign | (half + u32::from(up)) as u16;
    }
    let half = ((e as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    let up = rest > 0x1000 || (rest == 0x1000 && half & 1 == 1);
    // A carry out of the mantissa moves into the exponent, up to infinity: right.
    sign | (half + u32::from(up)) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_half_round_trips_and_floats_round_to_nearest_even() {
        for h in 0..=u16::MAX {
            let f = half_to_float(h);
            if f.is_nan() {
                assert!(half_to_float(float_to_half(f)).is_nan(), "{h:#06x}");
            } else {
                assert_eq!(float_to_half(f), h, "{h:#06x} → {f}");
            }
        }
        assert_eq!(float_to_half(1.0), 0x3c00);
        assert_eq!(float_to_half(65504.0), 0x7bff);
        assert_eq!(float_to_half(65520.0), 0x7c00, "halfway to the next: rounds to even, infinity");
        assert_eq!(float_to_half(1.0 + f32::EPSILON), 0x3c00);
        assert_eq!(float_to_half(f32::from_bits(0x3380_0000)), 0x0001, "2^-24, the least subnormal");
        assert_eq!(float_to_half(f32::from_bits(0x3300_0000)), 0x0000, "2^-25 is halfway: to even, 0");
        assert_eq!(half_to_float(0x0001), f32::from_bits(0x3380_0000));
        assert_eq!(half_to_float(0xc000), -2.0);
    }
}
