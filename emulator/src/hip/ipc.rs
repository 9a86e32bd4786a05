//! The IPC trio: hipIpcGetMemHandle, hipIpcOpenMemHandle,
//! hipIpcCloseMemHandle (hip.md §3.2, §4.2–§4.4).
//!
//! The 64-byte handle is the emulator's self-describing layout
//! (`core::IpcToken`, the shape of the real runtime's, hip.md §3.2) under
//! the magic `VMMKHIP1`: garbage and all-zero handles are recognised, a HIP
//! handle is refused by CUDA and the other way round, and the same-process
//! check reads the same bytes (the pid field) as the real one.
#![allow(non_snake_case)]

use std::ffi::c_void;

use vmmkit_sys::hip::rules;
use vmmkit_sys::hip::*;

use super::call::{Fail, current_device, emu, ensure, run};
use super::codes::Op;
use super::pointer::{Kind, extent};
use super::profile::{LAZY_FLAGS, WINDOW};
use super::state::state;
use crate::ffi::Out;
use crate::core::{CoreError, IPC_HANDLE_SIZE, IpcToken};
use crate::registry::{Place, Trust};

const MAGIC: [u8; 8] = *b"VMMKHIP1";

fn bytes(h: &hipIpcMemHandle_t) -> [u8; IPC_HANDLE_SIZE] {
    h.reserved.map(|c| c as u8)
}

fn handle(b: [u8; IPC_HANDLE_SIZE]) -> hipIpcMemHandle_t {
    hipIpcMemHandle_t { reserved: b.map(|x| x as std::ffi::c_char) }
}

/// `hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t *handle, void *devPtr)`:
/// [HIP-IPC-001](vmmkit_sys::hip::rules::IPC_001), then [HIP-IPC-008](vmmkit_sys::hip::rules::IPC_008), -007, -002 (all 1); [HIP-IPC-003](vmmkit_sys::hip::rules::IPC_003) an
/// interior pointer names its allocation; [HIP-IPC-009](vmmkit_sys::hip::rules::IPC_009) a failure leaves the
/// handle zeroed.
pub extern "C" fn hipIpcGetMemHandle(handle: Out<'_, hipIpcMemHandle_t>, devPtr: *mut c_void) -> hipError_t {
    run("hipIpcGetMemHandle", || {
        // HIP-IPC-009: zero-fill first, so a failure leaves no stale bytes.
        if !handle.is_null() {
            handle.write(hipIpcMemHandle_t::default())?;
        }
        ensure!(!handle.is_null(), rules::IPC_001, "handle is NULL");
        ensure!(!devPtr.is_null(), rules::IPC_001, "devPtr is NULL");
        let e = emu()?;
        let p = devPtr as usize;
        let x = extent(e, p);
        let kind = x.map(|x| x.kind);
        // HIP-IPC-008 (undetermined; emulator 1): host buffers and opened pointers.
        ensure!(
            !matches!(kind, Some(Kind::Host | Kind::Registered | Kind::Managed | Kind::Opened)),
            rules::IPC_008 => HipError::INVALID_VALUE,
            "{devPtr:p} is host memory (hipHostMalloc, registered or managed) or memory opened from another process; only hipMalloc memory is exported"
        );
        // HIP-IPC-007: a hipMemMap'ed address is not exportable.
        ensure!(kind != Some(Kind::Vmm), rules::IPC_007, "{devPtr:p} is hipMemMap'ed memory, not hipMalloc memory");
        // HIP-IPC-002: inside a live hipMalloc allocation, half-open.
        ensure!(
            matches!(kind, Some(Kind::Malloc(_) | Kind::Vmm)),
            rules::IPC_002,
            "{devPtr:p} is not inside a live hipMalloc allocation"
        );
        let (key, generation, base) = match kind {
            // HIP-IPC-007 switched off: what releases before develop do, a
            // handle for the memory behind the mapping (hip.md §4.2).
            Some(Kind::Vmm) => {
                let (base, m) = e.mapping(p).ok_or_else(|| Fail::core(Op::IpcGet, CoreError::NotMapped(p)))?;
                let info = e.describe(m.handle).map_err(|e| Fail::core(Op::IpcGet, e))?;
                let key = match info.key {
                    Some(k) => k,
                    None => e.export(m.handle, Trust::AnyProcess).map_err(|e| Fail::core(Op::IpcGet, e))?,
                };
                (key, info.props[3], base)
            }
            _ => {
                let exported = e.export_plain(p).map_err(|e| Fail::core(Op::IpcGet, e))?;
                (exported.key, exported.props[3], exported.base)
            }
        };
        let Some(x) = x else { return Ok(()) }; // only when HIP-IPC-002 is switched off
        let device = e.token_device(x.device);
        let token = IpcToken {
            key,
            generation,
            size: x.size as u64,
            offset: (p - base) as u64, // HIP-IPC-003
            pid: std::process::id() as i32,
            device,
        };
        handle.write(self::handle(token.encode(MAGIC)))?;
        Ok(())
    })
}

/// `hipError_t hipIpcOpenMemHandle(void **devPtr, hipIpcMemHandle_t handle, unsigned flags)`:
/// [HIP-IPC-020](vmmkit_sys::hip::rules::IPC_020), 021, 022, 023, 024, 025 in that order; [HIP-IPC-026](vmmkit_sys::hip::rules::IPC_026) returns
/// the base; [HIP-IPC-027](vmmkit_sys::hip::rules::IPC_027) a repeated open returns the same pointer, counted;
/// [HIP-IPC-031](vmmkit_sys::hip::rules::IPC_031) onto the current device.
pub extern "C" fn hipIpcOpenMemHandle(
    devPtr: Out<'_, *mut c_void>,
    handle: hipIpcMemHandle_t,
    flags: u32,
) -> hipError_t {
    run("hipIpcOpenMemHandle", || {
        ensure!(!devPtr.is_null(), rules::IPC_020, "devPtr is NULL");
        ensure!(
            LAZY_FLAGS.contains(&flags),
            rules::IPC_021,
            "flags must be hipIpcMemLazyEnablePeerAccess (1, or 0 before ROCm 6.0), got {flags}"
        );
        let handle = bytes(&handle);
        ensure!(IpcToken::size_field(&handle) != 0, rules::IPC_022, "the handle's size field is 0");
        ensure!(
            IpcToken::has_magic(MAGIC, &handle),
            rules::IPC_023,
            "not an IPC handle of this emulator"
        );
        let me = std::process::id() as i32;
        ensure!(
            IpcToken::pid_field(&handle) != me,
            rules::IPC_024,
            "the handle was made by this process ({me}); a process cannot open its own handle"
        );
        let token = IpcToken::decode(MAGIC, &handle);
        ensure!(
            token.is_some(),
            rules::IPC_025,
            "the handle's check word does not match: altered or forged"
        );
        let Some(token) = token else { return Ok(()) };
        let e = emu()?;
        let device = current_device();
        let (va, opened) =
            e.open_plain(token.key, token.pid, Place::Device(device), &WINDOW).map_err(|e| Fail::core(Op::IpcOpen, e))?;
        if opened.props[3] != token.generation && crate::mutation::enforced(&rules::IPC_025) {
            let _ = e.close_plain(va);
            return Err(Fail::rule(
                &rules::IPC_025,
                format!("generation {:#x} is not that of the allocation shared as {:#x}", token.generation, token.key),
            ));
        }
        state(e).forget_closed(va);
        // HIP-IPC-031: peer access between the devices is enabled implicitly.
        if let Some(src) = e.token_local(token.device)
            && src != device
        {
            e.enable_peer(device, src);
        }
        devPtr.write(va as *mut c_void)?;
        Ok(())
    })
}

/// `hipError_t hipIpcCloseMemHandle(void *devPtr)`: [HIP-IPC-040](vmmkit_sys::hip::rules::IPC_040), 041 (and
/// 042, one close too many); [HIP-IPC-043](vmmkit_sys::hip::rules::IPC_043) an interior pointer is accepted;
/// the last close unmaps.
pub extern "C" fn hipIpcCloseMemHandle(devPtr: *mut c_void) -> hipError_t {
    run("hipIpcCloseMemHandle", || {
        ensure!(!devPtr.is_null(), rules::IPC_040, "devPtr is NULL");
        let e = emu()?;
        let p = devPtr as usize;
        let Some((base, o)) = e.opened_at(p) else {
            if state(e).was_closed(p) {
                ensure!(false, rules::IPC_042, "{devPtr:p} was closed as often as it was opened");
                return Ok(());
            }
            // HIP-IPC-041 (or HIP-IPC-040 for NULL, when that check is switched off).
            return e.close_plain(p).map(drop).map_err(|e| Fail::core(Op::IpcClose, e));
        };
        let left = e.close_plain(p).map_err(|e| Fail::core(Op::IpcClose, e))?;
        if left == 0 {
            state(e).note_closed(base, o.len);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The handle's bytes are the core token's, under HIP's magic.
    #[test]
    fn handle_carries_the_core_token() {
        let t = IpcToken { key: 0x1_0000_0007, generation: 42, size: 257, offset: 128, pid: 1234, device: 1 };
        let h = handle(t.encode(MAGIC));
        assert_eq!(&bytes(&h)[0..8], b"VMMKHIP1");
        assert_eq!(IpcToken::decode(MAGIC, &bytes(&h)), Some(t));
        assert!(!IpcToken::has_magic(MAGIC, &bytes(&hipIpcMemHandle_t::default())));
    }
}
