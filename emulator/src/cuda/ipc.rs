//! Legacy IPC: cuIpcGetMemHandle, cuIpcOpenMemHandle_v2, cuIpcCloseMemHandle
//! (cuda.md §3.2).
//!
//! The 64-byte handle is the emulator's self-describing layout
//! (`core::IpcToken`) under the magic `VMMKCUD1`: a CUDA handle is refused
//! by HIP and the other way round, an all-zero or garbage handle is told
//! apart from a stale one, and the same-process check reads the pid field.
#![allow(non_snake_case)]

use vmmkit_sys::cuda::rules;
use vmmkit_sys::cuda::*;

use super::call::{Fail, emu, ensure, run};
use super::codes::Op;
use super::context::current;
use super::pointer::extent;
use super::profile::{IPC_FLAGS, IPC_MAGIC, WINDOW};
use crate::ffi::Out;
use crate::core::{Extent, ExtentKind, IPC_HANDLE_SIZE, IpcToken};
use crate::registry::Place;

fn bytes(h: &CUipcMemHandle) -> [u8; IPC_HANDLE_SIZE] {
    h.reserved.map(|c| c as u8)
}

fn handle(b: [u8; IPC_HANDLE_SIZE]) -> CUipcMemHandle {
    CUipcMemHandle { reserved: b.map(|x| x as std::ffi::c_char) }
}

/// `CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)`:
/// [CUDA-IPC-001](vmmkit_sys::cuda::rules::IPC_001), only cuMemAlloc memory (not cuMemMap'ed memory, not
/// pool memory, not memory opened from another process) → 1; [CUDA-IPC-002](vmmkit_sys::cuda::rules::IPC_002) an interior
/// pointer is accepted (emulator) and names its allocation; [CUDA-IPC-003](vmmkit_sys::cuda::rules::IPC_003) a
/// freed-and-reallocated address gets a different handle (the generation).
/// A failure leaves the handle zeroed.
pub extern "C" fn cuIpcGetMemHandle(pHandle: Out<'_, CUipcMemHandle>, dptr: CUdeviceptr) -> CUresult {
    run("cuIpcGetMemHandle", || {
        let d = current()?;
        if pHandle.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "pHandle is NULL".into()));
        }
        pHandle.write(CUipcMemHandle::default())?;
        let e = emu()?;
        let p = dptr as usize;
        let x = extent(e, p);
        let plain = match x {
            Some(Extent { kind: ExtentKind::Plain(_), base, len, props, .. }) => Some((base, len, props)),
            _ => None,
        };
        let what = match x.map(|x| x.kind) {
            Some(ExtentKind::Mapped(_)) => "cuMemMap'ed (VMM) memory, which legacy IPC does not export",
            Some(ExtentKind::Opened) => "memory opened from another process",
            Some(ExtentKind::Host) => "a host buffer",
            _ => "not inside a live cuMemAlloc allocation",
        };
        ensure!(plain.is_some(), rules::IPC_001, "{p:#x} is {what}");
        ensure!(
            e.pool_of(p).is_none(),
            rules::IPC_001,
            "{p:#x} is memory of a memory pool (cuMemAllocAsync), which legacy IPC does not export: share the pool"
        );
        let Some((base, len, props)) = plain else { return Ok(()) };
        let exported = e.export_plain(p).map_err(|e| Fail::core(Op::IpcGet, e))?;
        let token = IpcToken {
            key: exported.key,
            generation: props[3],
            size: len as u64,
            offset: (p - base) as u64, // CUDA-IPC-002
            pid: std::process::id() as i32,
            device: e.token_device(Place::Device(d)),
        };
        pHandle.write(handle(token.encode(IPC_MAGIC)))?;
        Ok(())
    })
}

/// `CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)`:
/// pdptr NULL → 1; [CUDA-IPC-004](vmmkit_sys::cuda::rules::IPC_004) flags outside {0, 1} → 1; a handle that is
/// not one (size 0, no magic) → 1; [CUDA-IPC-005](vmmkit_sys::cuda::rules::IPC_005) the exporting process → 201;
/// altered, forged or stale → 400; [CUDA-IPC-006](vmmkit_sys::cuda::rules::IPC_006) a second open returns the
/// same pointer, counted; [CUDA-IPC-008](vmmkit_sys::cuda::rules::IPC_008) the address is this process's own.
/// Returns the base of the exporter's allocation (as [HIP-IPC-026](vmmkit_sys::hip::rules::IPC_026)).
pub extern "C" fn cuIpcOpenMemHandle(pdptr: Out<'_, CUdeviceptr>, handle: CUipcMemHandle, Flags: u32) -> CUresult {
    run("cuIpcOpenMemHandle", || {
        let d = current()?;
        if pdptr.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "pdptr is NULL".into()));
        }
        ensure!(
            IPC_FLAGS.contains(&Flags),
            rules::IPC_004,
            "Flags must be CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS (1), got {Flags}"
        );
        let b = bytes(&handle);
        if IpcToken::size_field(&b) == 0 || !IpcToken::has_magic(IPC_MAGIC, &b) {
            return Err(Fail::plain(
                CuResult::INVALID_VALUE,
                "not an IPC memory handle of this emulator (size 0, or no magic)".into(),
            ));
        }
        let me = std::process::id() as i32;
        ensure!(
            IpcToken::pid_field(&b) != me,
            rules::IPC_005,
            "the handle was made by this process ({me}); a process cannot open its own handle"
        );
        let token = IpcToken::decode(IPC_MAGIC, &b).ok_or_else(|| {
            Fail::plain(CuResult::INVALID_HANDLE, "the handle's check word does not match: altered or forged".into())
        })?;
        let e = emu()?;
        let (va, opened) =
            e.open_plain(token.key, token.pid, Place::Device(d), &WINDOW).map_err(|e| Fail::core(Op::IpcOpen, e))?;
        if opened.props[3] != token.generation {
            let _ = e.close_plain(va);
            return Err(Fail::plain(
                CuResult::INVALID_HANDLE,
                format!("generation {:#x} is not that of the allocation shared as {:#x}", token.generation, token.key),
            ));
        }
        // CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS: peer access between the devices, enabled as needed.
        if let Some(src) = e.token_local(token.device)
            && src != d
        {
            e.enable_peer(d, src);
        }
        pdptr.write(va as CUdeviceptr)?;
        Ok(())
    })
}

/// `CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)`: drops one open; the
/// last unmaps (the exporter and other importers are unaffected).
/// [CUDA-IPC-009](vmmkit_sys::cuda::rules::IPC_009): anything but a pointer cuIpcOpenMemHandle returned and not
/// yet closed as often as opened → 1 (emulator; an interior pointer too).
pub extern "C" fn cuIpcCloseMemHandle(dptr: CUdeviceptr) -> CUresult {
    run("cuIpcCloseMemHandle", || {
        current()?;
        let e = emu()?;
        let p = dptr as usize;
        let opened = e.opened_at(p).is_some_and(|(base, _)| base == p);
        ensure!(opened, rules::IPC_009, "{p:#x} is not a pointer returned by cuIpcOpenMemHandle");
        e.close_plain(p).map(drop).map_err(|e| Fail::core(Op::IpcClose, e))
    })
}
