//! POSIX-fd shareable handles of VMM memory: export and import (hip.md
//! [HIP-VMM-024](vmmkit_sys::hip::rules::VMM_024) … 031).
//!
//! An exported fd is a holder of the memory in the registry (see
//! `core::fd`): the exporter may release its handle and close its fd right
//! after sending ([HIP-VMM-030](vmmkit_sys::hip::rules::VMM_030)), the receiver still finds the memory, and the
//! device's capacity stays charged until every handle, mapping and fd is gone
//! (an fd closed without import is collected by `gc`).
#![allow(non_snake_case)]

use std::ffi::c_void;

use vmmkit_sys::hip::rules;
use vmmkit_sys::hip::*;

use super::call::{Fail, current_device, emu, ensure, run};
use super::codes::Op;
use super::profile::FD_VALUE_LIMIT;
use super::vmm::{from_handle, to_handle};
use crate::ffi::Out;
use crate::core::CoreError;
use crate::registry::Place;

/// `hipError_t hipMemExportToShareableHandle(void *shareableHandle, hipMemGenericAllocationHandle_t handle, hipMemAllocationHandleType handleType, unsigned long long flags)`:
/// [HIP-VMM-024](vmmkit_sys::hip::rules::VMM_024) (flags, handle, out-pointer, handle type, in that order);
/// [HIP-VMM-025](vmmkit_sys::hip::rules::VMM_025) writes a new 4-byte `int` fd, which the caller owns.
pub extern "C" fn hipMemExportToShareableHandle(
    shareableHandle: Out<'_, c_void>,
    handle: hipMemGenericAllocationHandle_t,
    handleType: hipMemAllocationHandleType,
    flags: u64,
) -> hipError_t {
    run("hipMemExportToShareableHandle", || {
        ensure!(flags == 0, rules::VMM_024, "flags must be 0, got {flags}");
        ensure!(!handle.is_null(), rules::VMM_024, "handle is NULL");
        // HIP-VMM-024: 6.x crashes on a NULL out-pointer; the emulator answers 1, as 7.x.
        ensure!(!shareableHandle.is_null(), rules::VMM_024, "shareableHandle is NULL");
        let e = emu()?;
        let id = from_handle(handle);
        let info = e.describe(id).map_err(|e| Fail::core(Op::Export, e))?;
        let requested = info.import_kind.unwrap_or(super::vmm::handle_type_of(info.props[2]));
        ensure!(
            handleType == hipMemHandleTypePosixFileDescriptor && handleType == requested,
            rules::VMM_024,
            "handleType {handleType} is not the allocation's requestedHandleType {requested} (PosixFileDescriptor, 1, is exportable)"
        );
        let fd = e.share_fd(id).map_err(|e| Fail::core(Op::Export, e))?;
        // HIP-VMM-025: only the low 4 bytes are written; the caller owns the fd.
        let raw = std::os::fd::IntoRawFd::into_raw_fd(fd);
        shareableHandle.cast::<i32>().write(raw)?;
        Ok(())
    })
}

/// `hipError_t hipMemImportFromShareableHandle(hipMemGenericAllocationHandle_t *handle, void *osHandle, hipMemAllocationHandleType shHandleType)`:
/// [HIP-VMM-027](vmmkit_sys::hip::rules::VMM_027); [HIP-VMM-026](vmmkit_sys::hip::rules::VMM_026) `osHandle` is the fd value (below 2^20) or a
/// pointer to an `int` fd; [HIP-VMM-028](vmmkit_sys::hip::rules::VMM_028) importing one's own fd is allowed;
/// [HIP-VMM-029](vmmkit_sys::hip::rules::VMM_029) the handle belongs to the current device.
pub extern "C" fn hipMemImportFromShareableHandle(
    handle: Out<'_, hipMemGenericAllocationHandle_t>,
    osHandle: *mut c_void,
    shHandleType: hipMemAllocationHandleType,
) -> hipError_t {
    run("hipMemImportFromShareableHandle", || {
        ensure!(!handle.is_null(), rules::VMM_027, "handle is NULL");
        ensure!(!osHandle.is_null(), rules::VMM_027, "osHandle is NULL");
        let e = emu()?;
        let v = osHandle as usize;
        let fd = if v < FD_VALUE_LIMIT { Some(v as i32) } else { crate::os::peek::read_i32(v, e.registry().me().pid) };
        ensure!(fd.is_some(), rules::VMM_027, "osHandle {osHandle:p} is neither an fd value nor a readable int*");
        let fd = fd.unwrap_or(-1);
        // The fd is only borrowed for the import; the caller keeps it. The
        // import's one `fstat` also finds a closed number (`CoreError::Os`).
        // The handle keeps the type asked for (HIP-VMM-029 reports it back).
        let imported = e.import_fd_value(fd, Place::Device(current_device()), Some(shHandleType));
        let closed = matches!(imported, Err(CoreError::Os(_)));
        ensure!(!closed, rules::VMM_027, "{fd} is not an open file descriptor");
        if closed {
            return Ok(());
        }
        let id = imported.map_err(|e| Fail::core(Op::Import, e))?;
        handle.write(to_handle(id))?;
        Ok(())
    })
}
