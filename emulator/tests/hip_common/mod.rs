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

/// Calls a HIP function and returns its code. The arguments are the test's
/// deliberate (and deliberately bad) values, hence the unsafe block around them.
#[allow(clippy::macro_metavars_in_unsafe)]
#[macro_export]
macro_rules! hcall {
    ($api:expr, $f:ident ( $($a:expr),* $(,)? )) => {
        // SAFETY: tests pass valid pointers or deliberately bad values that the
        // emulator must reject without dereferencing.
        vmmkit_sys::hip::HipError(unsafe { ($api.$f)($($a),*) })
    };
}

/// Asserts success of a HIP call, showing the emulator's message if not.
#[macro_export]
macro_rules! hok {
    ($api:expr, $f:ident ( $($a:expr),* $(,)? )) => {{
        let rc = $crate::hcall!($api, $f($($a),*));
        assert_eq!(rc, vmmkit_sys::hip::HipError::SUCCESS, "{} failed: {}", stringify!($f), $crate::hip_common::message());
    }};
}

/// Asserts an exact code, and (when given) that the message names the rule.
#[macro_export]
macro_rules! hexpect {
    ($api:expr, $f:ident ( $($a:expr),* $(,)? ), $want:expr $(, $rule:literal)?) => {{
        let rc = $crate::hcall!($api, $f($($a),*));
        assert_eq!(rc, $want, "{}: expected {}, got {} ({})", stringify!($f), $want, rc, $crate::hip_common::message());
        $( assert!($crate::hip_common::message().starts_with($rule), "{}: message should name {}: {}", stringify!($f), $rule, $crate::hip_common::message()); )?
    }};
}

/// The calling thread's last emulator message.
pub fn message() -> String {
    vmmkit_emulator::core::thread::message()
}

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

/// The 64 bytes of an IPC handle as hex, for a command line.
pub fn handle_hex(h: &hipIpcMemHandle_t) -> String {
    h.reserved.iter().map(|&c| format!("{:02x}", c as u8)).collect()
}

/// An IPC handle from [`handle_hex`] text.
pub fn handle_from_hex(s: &str) -> hipIpcMemHandle_t {
    assert_eq!(s.len(), 128, "a handle is 64 bytes of hex: {s}");
    let mut h = hipIpcMemHandle_t::default();
    for (i, c) in h.reserved.iter_mut().enumerate() {
        *c = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex") as std::ffi::c_char;
    }
    h
}

/// Copies `data` to device address `va`.
pub fn write(api: &HipApi, va: *mut std::ffi::c_void, data: &[u8]) {
    crate::hok!(api, hipMemcpy(va, data.as_ptr().cast(), data.len(), hipMemcpyHostToDevice));
}

/// Reads `n` bytes at device address `va`.
pub fn read(api: &HipApi, va: *mut std::ffi::c_void, n: usize) -> Vec<u8> {
    let mut out = vec![0u8; n];
    crate::hok!(api, hipMemcpy(out.as_mut_ptr().cast(), va, n, hipMemcpyDeviceToHost));
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
