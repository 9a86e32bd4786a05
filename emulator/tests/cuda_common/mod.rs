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

// cucall!, cuok!, cuexpect!: CUDA calls with exact codes, showing the emulator's
// message on failure.
vmmkit_testkit::vendor_macros!($ vmmkit_sys::cuda::CuResult, vmmkit_emulator::core::thread::message: cucall, cuok, cuexpect);

/// The calling thread's last emulator message.
#[allow(unused_imports)] // not every test binary uses it
pub use vmmkit_emulator::core::thread::message;

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

/// A CUDA IPC handle as hex ([`crate::hip_common::bytes_hex`]), and back.
pub fn handle_hex(h: &CUipcMemHandle) -> String {
    crate::hip_common::bytes_hex(&h.reserved)
}

/// A CUDA IPC handle from [`handle_hex`] text.
pub fn handle_from_hex(s: &str) -> CUipcMemHandle {
    let mut h = CUipcMemHandle::default();
    crate::hip_common::bytes_from_hex(s, &mut h.reserved);
    h
}
