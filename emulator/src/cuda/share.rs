//! POSIX-fd shareable handles of VMM memory: export and import (cuda.md
//! §2.1 "Export/import asymmetry", [CUDA-VMM-015](vmmkit_sys::cuda::rules::VMM_015) … 018).
//!
//! An exported fd is a holder of the memory in the registry (see
//! `core::fd`): the exporter may release its handle and close its fd right
//! after sending, the receiver still finds the memory, and the device's
//! capacity stays charged until every handle, mapping and fd is gone
//! ([CUDA-VMM-016](vmmkit_sys::cuda::rules::VMM_016), [CUDA-VMM-020](vmmkit_sys::cuda::rules::VMM_020)).
#![allow(non_snake_case)]

use std::ffi::c_void;
use std::os::fd::IntoRawFd;

use vmmkit_sys::cuda::rules;
use vmmkit_sys::cuda::*;

use super::call::{Fail, emu, ensure, run};
use super::codes::Op;
use super::context::current;
use super::profile::KIND_VMM;
use super::vmm::{from_handle, to_handle};
use crate::ffi::Out;
use crate::registry::Place;

/// `CUresult cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle, CUmemAllocationHandleType handleType, unsigned long long flags)`:
/// shareableHandle NULL → 1; [CUDA-VMM-003](vmmkit_sys::cuda::rules::VMM_003) flags; an unknown handle → 1;
/// [CUDA-VMM-015](vmmkit_sys::cuda::rules::VMM_015) the type must be POSIX_FILE_DESCRIPTOR and requested at
/// cuMemCreate (emulator: 1); [CUDA-VMM-016](vmmkit_sys::cuda::rules::VMM_016) writes a new `int` fd, owned by
/// the caller, at every call.
pub extern "C" fn cuMemExportToShareableHandle(
    shareableHandle: Out<'_, c_void>,
    handle: CUmemGenericAllocationHandle,
    handleType: CUmemAllocationHandleType,
    flags: u64,
) -> CUresult {
    run("cuMemExportToShareableHandle", || {
        current()?;
        if shareableHandle.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "shareableHandle is NULL".into()));
        }
        ensure!(flags == 0, rules::VMM_003, "flags must be 0, got {flags}");
        let e = emu()?;
        let id = from_handle(handle);
        let info = e.describe(id).map_err(|e| Fail::core(Op::Export, e))?;
        let requested = if info.props[0] == KIND_VMM { info.props[2] as u32 } else { CU_MEM_HANDLE_TYPE_NONE };
        ensure!(
            handleType == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR && requested & handleType != 0,
            rules::VMM_015,
            "handleType {handleType} was not requested at cuMemCreate (requestedHandleTypes {requested:#x}; POSIX_FILE_DESCRIPTOR, 1, is exportable)"
        );
        let fd = e.share_fd(id).map_err(|e| Fail::core(Op::Export, e))?;
        // CUDA-VMM-016: an `int`, which the caller owns from here on.
        let raw = fd.into_raw_fd();
        shareableHandle.cast::<i32>().write(raw)?;
        Ok(())
    })
}

/// `CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle, CUmemAllocationHandleType shHandleType)`:
/// handle NULL → 1; FABRIC → 800 (no IMEX channel), other types but
/// POSIX_FILE_DESCRIPTOR → 1; [CUDA-VMM-017](vmmkit_sys::cuda::rules::VMM_017) `osHandle` is the fd **value**
/// cast to a pointer, borrowed (the caller keeps and closes it), and every
/// import is a new handle with its own cuMemRelease; a number that is no
/// open fd of an exported allocation → 1; [CUDA-VMM-018](vmmkit_sys::cuda::rules::VMM_018) importing in the
/// exporting process is allowed (emulator).
pub extern "C" fn cuMemImportFromShareableHandle(
    handle: Out<'_, CUmemGenericAllocationHandle>,
    osHandle: *mut c_void,
    shHandleType: CUmemAllocationHandleType,
) -> CUresult {
    run("cuMemImportFromShareableHandle", || {
        let d = current()?;
        if handle.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "handle is NULL".into()));
        }
        if shHandleType == CU_MEM_HANDLE_TYPE_FABRIC {
            return Err(Fail::plain(
                CuResult::NOT_PERMITTED,
                "FABRIC handles need an IMEX channel, which this machine has none of".into(),
            ));
        }
        if shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR {
            return Err(Fail::plain(
                CuResult::INVALID_VALUE,
                format!("shHandleType {shHandleType}: only POSIX_FILE_DESCRIPTOR (1) is importable"),
            ));
        }
        let fd = i32::try_from(osHandle as usize).map_err(|_| {
            Fail::plain(CuResult::INVALID_VALUE, format!("osHandle {osHandle:p} is not an fd value cast to a pointer (CUDA takes the value, not a pointer to it)"))
        })?;
        let e = emu()?;
        let id = e.import_fd_value(fd, Place::Device(d), None).map_err(|e| Fail::core(Op::Import, e))?;
        handle.write(to_handle(id))?;
        Ok(())
    })
}
