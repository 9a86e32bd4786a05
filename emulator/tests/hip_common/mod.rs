//! Shared by the HIP integration tests: the emulator's HIP table, calls with
//! exact codes, patterns and handle text. (Fds travel with a peer's
//! commands: `common::Peer::send_fds`.)
#![allow(dead_code)]

use std::ffi::CStr;

use vmmkit_sys::hip::*;

/// The emulator's HIP table.
pub fn hip() -> HipApi {
    vmmkit_emulator::hip::api()
}

// hcall!, hok!, hexpect!: HIP calls with exact codes, showing the emulator's
// message on failure.
vmmkit_testkit::vendor_macros!($ vmmkit_sys::hip::HipError, vmmkit_emulator::core::thread::message: hcall, hok, hexpect);

/// The calling thread's last emulator message.
#[allow(unused_imports)] // not every test binary uses it
pub use vmmkit_emulator::core::thread::message;

/// A hipGetErrorName for messages.
pub fn name(api: &HipApi, e: HipError) -> String {
    // SAFETY: hipGetErrorName returns a static NUL-terminated string.
    unsafe { CStr::from_ptr((api.hipGetErrorName)(e.0)) }.to_string_lossy().into_owned()
}

/// A device allocation property record, 5.3+ layout.
pub fn prop(device: i32, handle_type: hipMemAllocationHandleType) -> hipMemAllocationProp {
    hipMemAllocationProp {
        type_: hipMemAllocationTypePinned,
        requestedHandleType: handle_type,
        location: hipMemLocation { type_: hipMemLocationTypeDevice, id: device },
        ..Default::default()
    }
}

/// A byte pattern that differs per `seed`.
pub fn pattern(size: usize, seed: u8) -> Vec<u8> {
    (0..size).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
}

/// FNV-1a of `d`.
pub fn checksum(d: &[u8]) -> u64 {
    d.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// IPC handle bytes as hex, and back (for command lines).
#[allow(unused_imports)] // not every test binary uses them
pub use crate::common::sharing::{bytes_from_hex, bytes_hex};

/// The 64 bytes of an IPC handle as hex, for a command line.
pub fn handle_hex(h: &hipIpcMemHandle_t) -> String {
    bytes_hex(&h.reserved)
}

/// An IPC handle from [`handle_hex`] text.
pub fn handle_from_hex(s: &str) -> hipIpcMemHandle_t {
    let mut h = hipIpcMemHandle_t::default();
    bytes_from_hex(s, &mut h.reserved);
    h
}

/// Copies `data` to device address `va`.
pub fn write(api: &HipApi, va: *mut std::ffi::c_void, data: &[u8]) {
    hok!(api, hipMemcpy(va, data.as_ptr().cast(), data.len(), hipMemcpyHostToDevice));
}

/// Reads `n` bytes at device address `va`.
pub fn read(api: &HipApi, va: *mut std::ffi::c_void, n: usize) -> Vec<u8> {
    let mut out = vec![0u8; n];
    hok!(api, hipMemcpy(out.as_mut_ptr().cast(), va, n, hipMemcpyDeviceToHost));
    out
}

/// The entries left in the root's `shared/` after a collection of what
/// nobody holds (fds closed without an import are collected there).
pub fn shared_left_after_gc(root: &std::path::Path) -> Vec<String> {
    let e = vmmkit_emulator::core::emulator().expect("emulator");
    e.registry().gc().expect("gc");
    std::fs::read_dir(root.join("shared"))
        .map(|rd| rd.flatten().map(|d| d.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default()
}
