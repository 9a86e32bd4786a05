//! Shared by the CUDA integration tests: the emulator's CUDA table, calls
//! with exact codes, a primary context made current, property records,
//! copies and IPC handle text. Vendor-neutral helpers (patterns, checksums,
//! the registry audit) are `hip_common`'s.
#![allow(dead_code)]

use vmmkit_sys::cuda::*;

/// The emulator's minimum granularity (CUDA-VMM-001: queried by the tests that check it).
pub const G: usize = 2 << 20;

/// The emulator's CUDA table.
pub fn cu() -> CudaApi {
    vmmkit_emulator::cuda::api()
}

/// Calls a CUDA function and returns its code. The arguments are the test's
/// deliberate (and deliberately bad) values, hence the unsafe block around them.
#[allow(clippy::macro_metavars_in_unsafe)]
#[macro_export]
macro_rules! cucall {
    ($api:expr, $f:ident ( $($a:expr),* $(,)? )) => {
        // SAFETY: tests pass valid pointers or deliberately bad values that the
        // emulator must reject without dereferencing.
        vmmkit_sys::cuda::CuResult(unsafe { ($api.$f)($($a),*) })
    };
}

/// Asserts success of a CUDA call, showing the emulator's message if not.
#[macro_export]
macro_rules! cuok {
    ($api:expr, $f:ident ( $($a:expr),* $(,)? )) => {{
        let rc = $crate::cucall!($api, $f($($a),*));
        assert_eq!(rc, vmmkit_sys::cuda::CuResult::SUCCESS, "{} failed: {}", stringify!($f), $crate::cuda_common::message());
    }};
}

/// Asserts an exact code, and (when given) that the message names the rule.
#[macro_export]
macro_rules! cuexpect {
    ($api:expr, $f:ident ( $($a:expr),* $(,)? ), $want:expr $(, $rule:literal)?) => {{
        let rc = $crate::cucall!($api, $f($($a),*));
        assert_eq!(rc, $want, "{}: expected {}, got {} ({})", stringify!($f), $want, rc, $crate::cuda_common::message());
        $( assert!($crate::cuda_common::message().starts_with($rule), "{}: message should name {}: {}", stringify!($f), $rule, $crate::cuda_common::message()); )?
    }};
}

/// The calling thread's last emulator message.
pub fn message() -> String {
    vmmkit_emulator::core::thread::message()
}

/// cuInit, then device `d`'s primary context retained and made current on
/// the calling thread (cuda.md §1.3).
pub fn setup(api: &CudaApi, d: i32) -> CUcontext {
    cuok!(api, cuInit(0));
    let mut ctx = std::ptr::null_mut();
    cuok!(api, cuDevicePrimaryCtxRetain(&mut ctx, d));
    cuok!(api, cuCtxSetCurrent(ctx));
    ctx
}

/// A device allocation property record, zeroed first as the docs ask.
pub fn prop(device: i32, types: CUmemAllocationHandleType) -> CUmemAllocationProp {
    CUmemAllocationProp {
        type_: CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: types,
        location: CUmemLocation { type_: CU_MEM_LOCATION_TYPE_DEVICE, id: device },
        ..Default::default()
    }
}

/// An access descriptor for device `d`.
pub fn access(d: i32, flags: CUmemAccess_flags) -> CUmemAccessDesc {
    CUmemAccessDesc { location: CUmemLocation { type_: CU_MEM_LOCATION_TYPE_DEVICE, id: d }, flags }
}

/// Creates `size` bytes on device `d` with the handle types `types`.
pub fn create(api: &CudaApi, d: i32, size: usize, types: CUmemAllocationHandleType) -> CUmemGenericAllocationHandle {
    let mut h = 0;
    cuok!(api, cuMemCreate(&mut h, size, &prop(d, types), 0));
    h
}

/// Reserves `size` bytes, maps `h` there and grants device `d` read-write access.
pub fn map_rw(api: &CudaApi, h: CUmemGenericAllocationHandle, size: usize, d: i32) -> CUdeviceptr {
    let mut va = 0;
    cuok!(api, cuMemAddressReserve(&mut va, size, 0, 0, 0));
    cuok!(api, cuMemMap(va, size, 0, h, 0));
    cuok!(api, cuMemSetAccess(va, size, &access(d, CU_MEM_ACCESS_FLAGS_PROT_READWRITE), 1));
    va
}

/// Copies `data` to device address `va`.
pub fn write(api: &CudaApi, va: CUdeviceptr, data: &[u8]) {
    cuok!(api, cuMemcpyHtoD(va, data.as_ptr().cast(), data.len()));
}

/// Reads `n` bytes at device address `va`.
pub fn read(api: &CudaApi, va: CUdeviceptr, n: usize) -> Vec<u8> {
    let mut out = vec![0u8; n];
    cuok!(api, cuMemcpyDtoH(out.as_mut_ptr().cast(), va, n));
    out
}

/// The 64 bytes of an IPC handle as hex, for a command line.
pub fn handle_hex(h: &CUipcMemHandle) -> String {
    h.reserved.iter().map(|&c| format!("{:02x}", c as u8)).collect()
}

/// An IPC handle from [`handle_hex`] text.
pub fn handle_from_hex(s: &str) -> CUipcMemHandle {
    assert_eq!(s.len(), 128, "a handle is 64 bytes of hex: {s}");
    let mut h = CUipcMemHandle::default();
    for (i, c) in h.reserved.iter_mut().enumerate() {
        *c = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex") as std::ffi::c_char;
    }
    h
}
