//! `Acl`: the calls of an [`AclApi`] table, one method per C function, each
//! returning the [`AclError`] it gave.
//!
//! This is the only module of the suite that calls through the table. The
//! methods take raw pointers because the suite passes NULL and foreign
//! addresses on purpose: the rules say how the library must reject them.
//! Callers pass either NULL, a device address the library handed out (never
//! dereferenced by host code), or a pointer to a live local of the C type.
//! The methods are `pub(crate)` for that reason: the contract is the suite's,
//! not a general one.

use std::ffi::{c_char, c_void};

use vmmkit_sys::acl::*;

use crate::outcome::Failure;

/// An ACL table, with a method per entry point (`aclrtMapMem` → `map_mem`).
#[derive(Debug, Clone, Copy)]
pub struct Acl {
    api: AclApi,
}

/// Calls a required entry point.
macro_rules! call {
    ($self:ident . $f:ident ( $($a:expr),* )) => {{
        // SAFETY: the table holds the backend's implementation of this C
        // function with this signature (loaded by vmmkit-sys or filled by the
        // emulator). Every pointer argument is NULL, an address the library
        // returned, or points to a live local of the C type (module docs);
        // rejecting the first two is what the rules under test specify.
        AclError(unsafe { ($self.api.$f)($($a),*) })
    }};
}

/// Calls a required entry point that returns something other than a code.
macro_rules! call_raw {
    ($self:ident . $f:ident ( $($a:expr),* )) => {{
        // SAFETY: as in `call!`.
        unsafe { ($self.api.$f)($($a),*) }
    }};
}

/// Calls an optional entry point, or says it is missing.
macro_rules! call_opt {
    ($self:ident . $f:ident ( $($a:expr),* )) => {{
        match $self.api.$f {
            // SAFETY: as in `call!`.
            Some(f) => Ok(AclError(unsafe { f($($a),*) })),
            None => Err(Failure::NotSupported(format!("the backend lacks {}", stringify!($f)))),
        }
    }};
}

#[allow(clippy::too_many_arguments)]
impl Acl {
    /// Wraps a table.
    pub fn new(api: AclApi) -> Self {
        Self { api }
    }

    /// The optional symbols the table lacks.
    pub fn missing_optional(&self) -> Vec<&'static str> {
        self.api.missing_optional()
    }

    pub(crate) fn init(&self, config: *const c_char) -> AclError {
        call!(self.aclInit(config))
    }
    pub(crate) fn finalize(&self) -> AclError {
        call!(self.aclFinalize())
    }
    pub(crate) fn set_device(&self, device: i32) -> AclError {
        call!(self.aclrtSetDevice(device))
    }
    pub(crate) fn get_device(&self, device: *mut i32) -> AclError {
        call!(self.aclrtGetDevice(device))
    }
    pub(crate) fn get_device_count(&self, count: *mut u32) -> AclError {
        call!(self.aclrtGetDeviceCount(count))
    }
    pub(crate) fn phy_of_user(&self, user: i32, phy: *mut i32) -> Result<AclError, Failure> {
        call_opt!(self.aclrtGetPhyDevIdByUserDevId(user, phy))
    }
    pub(crate) fn user_of_logic(&self, logic: i32, user: *mut i32) -> Result<AclError, Failure> {
        call_opt!(self.aclrtGetUserDevIdByLogicDevId(logic, user))
    }
    pub(crate) fn create_stream(&self, stream: *mut aclrtStream) -> AclError {
        call!(self.aclrtCreateStream(stream))
    }
    pub(crate) fn malloc_host(&self, ptr: *mut *mut c_void, size: usize) -> AclError {
        call!(self.aclrtMallocHost(ptr, size))
    }
    pub(crate) fn free_host(&self, ptr: *mut c_void) -> AclError {
        call!(self.aclrtFreeHost(ptr))
    }
    pub(crate) fn memcpy(
        &self,
        dst: *mut c_void,
        dest_max: usize,
        src: *const c_void,
        count: usize,
        kind: aclrtMemcpyKind,
    ) -> AclError {
        call!(self.aclrtMemcpy(dst, dest_max, src, count, kind))
    }
    pub(crate) fn memset(&self, ptr: *mut c_void, max_count: usize, value: i32, count: usize) -> AclError {
        call!(self.aclrtMemset(ptr, max_count, value, count))
    }
    pub(crate) fn malloc(&self, ptr: *mut *mut c_void, size: usize, policy: aclrtMemMallocPolicy) -> AclError {
        call!(self.aclrtMalloc(ptr, size, policy))
    }
    pub(crate) fn free(&self, ptr: *mut c_void) -> AclError {
        call!(self.aclrtFree(ptr))
    }

    // ---- Memory ----
    pub(crate) fn ipc_mem_set_attr(&self, key: *const c_char, type_: i32, attr: u64) -> Result<AclError, Failure> {
        call_opt!(self.aclrtIpcMemSetAttr(key, type_, attr))
    }
    pub(crate) fn ipc_mem_import_pid_inter_server(
        &self,
        key: *const c_char,
        pids: *mut aclrtServerPid,
        num: usize,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtIpcMemImportPidInterServer(key, pids, num))
    }
    pub(crate) fn host_register_v2(&self, ptr: *mut c_void, size: u64, flag: u32) -> Result<AclError, Failure> {
        call_opt!(self.aclrtHostRegisterV2(ptr, size, flag))
    }
    pub(crate) fn host_register(
        &self,
        ptr: *mut c_void,
        size: u64,
        type_: aclrtHostRegisterType,
        dev: *mut *mut c_void,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtHostRegister(ptr, size, type_, dev))
    }
    pub(crate) fn host_unregister(&self, ptr: *mut c_void) -> Result<AclError, Failure> {
        call_opt!(self.aclrtHostUnregister(ptr))
    }
    pub(crate) fn memset_d32(
        &self,
        ptr: *mut c_void,
        mem_size: usize,
        value: u32,
        n: usize,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtMemsetD32(ptr, mem_size, value, n))
    }
    pub(crate) fn memset_d32_async(
        &self,
        ptr: *mut c_void,
        mem_size: usize,
        value: u32,
        n: usize,
        stream: aclrtStream,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtMemsetD32Async(ptr, mem_size, value, n, stream))
    }
    pub(crate) fn get_mem_info(&self, attr: aclrtMemAttr, free: *mut usize, total: *mut usize) -> AclError {
        call!(self.aclrtGetMemInfo(attr, free, total))
    }
    pub(crate) fn pointer_get_attributes(&self, ptr: *const c_void, attributes: *mut aclrtPtrAttributes) -> AclError {
        call!(self.aclrtPointerGetAttributes(ptr, attributes))
    }
    pub(crate) fn mem_get_allocation_granularity(
        &self,
        prop: *mut aclrtPhysicalMemProp,
        option: aclrtMemGranularityOptions,
        granularity: *mut usize,
    ) -> AclError {
        call!(self.aclrtMemGetAllocationGranularity(prop, option, granularity))
    }
    pub(crate) fn malloc_physical(
        &self,
        handle: *mut aclrtDrvMemHandle,
        size: usize,
        prop: *const aclrtPhysicalMemProp,
        flags: u64,
    ) -> AclError {
        call!(self.aclrtMallocPhysical(handle, size, prop, flags))
    }
    pub(crate) fn free_physical(&self, handle: aclrtDrvMemHandle) -> AclError {
        call!(self.aclrtFreePhysical(handle))
    }
    pub(crate) fn reserve_mem_address(
        &self,
        va: *mut *mut c_void,
        size: usize,
        alignment: usize,
        expect: *mut c_void,
        flags: u64,
    ) -> AclError {
        call!(self.aclrtReserveMemAddress(va, size, alignment, expect, flags))
    }
    pub(crate) fn reserve_mem_address_no_uc(
        &self,
        va: *mut *mut c_void,
        size: usize,
        alignment: usize,
        expect: *mut c_void,
        flags: u64,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtReserveMemAddressNoUCMemory(va, size, alignment, expect, flags))
    }
    /// `aclrtGetSocName`, as text; `None` where the library answers NULL.
    pub fn soc_name(&self) -> Option<String> {
        let p = call_raw!(self.aclrtGetSocName());
        // SAFETY: a non-NULL answer of aclrtGetSocName is a NUL-terminated
        // string the library keeps for the life of the process.
        (!p.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }
    pub(crate) fn release_mem_address(&self, va: *mut c_void) -> AclError {
        call!(self.aclrtReleaseMemAddress(va))
    }
    pub(crate) fn map_mem(
        &self,
        va: *mut c_void,
        size: usize,
        offset: usize,
        handle: aclrtDrvMemHandle,
        flags: u64,
    ) -> AclError {
        call!(self.aclrtMapMem(va, size, offset, handle, flags))
    }
    pub(crate) fn unmap_mem(&self, va: *mut c_void) -> AclError {
        call!(self.aclrtUnmapMem(va))
    }
    pub(crate) fn mem_set_access(
        &self,
        va: *mut c_void,
        size: usize,
        desc: *mut aclrtMemAccessDesc,
        count: usize,
    ) -> AclError {
        call!(self.aclrtMemSetAccess(va, size, desc, count))
    }
    pub(crate) fn mem_get_access(&self, va: *mut c_void, location: *mut aclrtMemLocation, flag: *mut u64) -> AclError {
        call!(self.aclrtMemGetAccess(va, location, flag))
    }
    pub(crate) fn mem_retain_allocation_handle(&self, va: *mut c_void, handle: *mut aclrtDrvMemHandle) -> AclError {
        call!(self.aclrtMemRetainAllocationHandle(va, handle))
    }
    pub(crate) fn mem_get_allocation_properties_from_handle(
        &self,
        handle: aclrtDrvMemHandle,
        prop: *mut aclrtPhysicalMemProp,
    ) -> AclError {
        call!(self.aclrtMemGetAllocationPropertiesFromHandle(handle, prop))
    }
    pub(crate) fn mem_export_to_shareable_handle(
        &self,
        handle: aclrtDrvMemHandle,
        handle_type: aclrtMemHandleType,
        flags: u64,
        shareable: *mut u64,
    ) -> AclError {
        call!(self.aclrtMemExportToShareableHandle(handle, handle_type, flags, shareable))
    }
    pub(crate) fn mem_set_pid_to_shareable_handle(&self, shareable: u64, pid: *mut i32, count: usize) -> AclError {
        call!(self.aclrtMemSetPidToShareableHandle(shareable, pid, count))
    }
    pub(crate) fn mem_import_from_shareable_handle(
        &self,
        shareable: u64,
        device: i32,
        handle: *mut aclrtDrvMemHandle,
    ) -> AclError {
        call!(self.aclrtMemImportFromShareableHandle(shareable, device, handle))
    }
    pub(crate) fn device_get_bare_tgid(&self, pid: *mut i32) -> AclError {
        call!(self.aclrtDeviceGetBareTgid(pid))
    }
    pub(crate) fn device_can_access_peer(&self, can: *mut i32, device: i32, peer: i32) -> AclError {
        call!(self.aclrtDeviceCanAccessPeer(can, device, peer))
    }
    pub(crate) fn device_enable_peer_access(&self, peer: i32, flags: u32) -> AclError {
        call!(self.aclrtDeviceEnablePeerAccess(peer, flags))
    }
    pub(crate) fn device_disable_peer_access(&self, peer: i32) -> AclError {
        call!(self.aclrtDeviceDisablePeerAccess(peer))
    }

    pub(crate) fn mem_export_to_shareable_handle_v2(
        &self,
        handle: aclrtDrvMemHandle,
        flags: u64,
        share_type: aclrtMemSharedHandleType,
        shareable: *mut c_void,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtMemExportToShareableHandleV2(handle, flags, share_type, shareable))
    }
    pub(crate) fn mem_set_pid_to_shareable_handle_v2(
        &self,
        shareable: *mut c_void,
        share_type: aclrtMemSharedHandleType,
        pid: *mut i32,
        count: usize,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtMemSetPidToShareableHandleV2(shareable, share_type, pid, count))
    }
    pub(crate) fn mem_import_from_shareable_handle_v2(
        &self,
        shareable: *mut c_void,
        share_type: aclrtMemSharedHandleType,
        flags: u64,
        handle: *mut aclrtDrvMemHandle,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtMemImportFromShareableHandleV2(shareable, share_type, flags, handle))
    }
    pub(crate) fn mem_get_address_range(
        &self,
        ptr: *mut c_void,
        base: *mut *mut c_void,
        size: *mut usize,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtMemGetAddressRange(ptr, base, size))
    }

    // ---- IPC by key (ACL-IPK) ----
    pub(crate) fn ipc_mem_get_export_key(
        &self,
        ptr: *mut c_void,
        size: usize,
        key: *mut c_char,
        len: usize,
        flags: u64,
    ) -> AclError {
        call!(self.aclrtIpcMemGetExportKey(ptr, size, key, len, flags))
    }
    pub(crate) fn ipc_mem_set_import_pid(&self, key: *const c_char, pid: *mut i32, num: usize) -> AclError {
        call!(self.aclrtIpcMemSetImportPid(key, pid, num))
    }
    pub(crate) fn ipc_mem_import_by_key(&self, ptr: *mut *mut c_void, key: *const c_char, flags: u64) -> AclError {
        call!(self.aclrtIpcMemImportByKey(ptr, key, flags))
    }
    pub(crate) fn ipc_mem_close(&self, key: *const c_char) -> AclError {
        call!(self.aclrtIpcMemClose(key))
    }
    pub(crate) fn device_peer_access_status(
        &self,
        device: i32,
        peer: i32,
        status: *mut i32,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtDevicePeerAccessStatus(device, peer, status))
    }

    // ---- Streams and events ----
    pub(crate) fn reset_device(&self, device: i32) -> AclError {
        call!(self.aclrtResetDevice(device))
    }
    pub(crate) fn destroy_stream(&self, stream: aclrtStream) -> AclError {
        call!(self.aclrtDestroyStream(stream))
    }
    pub(crate) fn destroy_stream_force(&self, stream: aclrtStream) -> AclError {
        call!(self.aclrtDestroyStreamForce(stream))
    }
    pub(crate) fn stream_abort(&self, stream: aclrtStream) -> Result<AclError, Failure> {
        call_opt!(self.aclrtStreamAbort(stream))
    }
    pub(crate) fn synchronize_stream(&self, stream: aclrtStream) -> AclError {
        call!(self.aclrtSynchronizeStream(stream))
    }
    pub(crate) fn memcpy_async(
        &self,
        dst: *mut c_void,
        dest_max: usize,
        src: *const c_void,
        count: usize,
        kind: aclrtMemcpyKind,
        stream: aclrtStream,
    ) -> AclError {
        call!(self.aclrtMemcpyAsync(dst, dest_max, src, count, kind, stream))
    }
    pub(crate) fn synchronize_stream_with_timeout(
        &self,
        stream: aclrtStream,
        timeout: i32,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtSynchronizeStreamWithTimeout(stream, timeout))
    }
    pub(crate) fn synchronize_device_with_timeout(&self, timeout: i32) -> Result<AclError, Failure> {
        call_opt!(self.aclrtSynchronizeDeviceWithTimeout(timeout))
    }
    pub(crate) fn stream_query(
        &self,
        stream: aclrtStream,
        status: *mut aclrtStreamStatus,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtStreamQuery(stream, status))
    }
    pub(crate) fn value_write(
        &self,
        addr: *mut c_void,
        value: u64,
        flag: u32,
        stream: aclrtStream,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtValueWrite(addr, value, flag, stream))
    }
    pub(crate) fn value_wait(
        &self,
        addr: *mut c_void,
        value: u64,
        flag: u32,
        stream: aclrtStream,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtValueWait(addr, value, flag, stream))
    }
    pub(crate) fn stream_wait_event(&self, stream: aclrtStream, event: aclrtEvent) -> Result<AclError, Failure> {
        call_opt!(self.aclrtStreamWaitEvent(stream, event))
    }
    pub(crate) fn create_event(&self, event: *mut aclrtEvent) -> Result<AclError, Failure> {
        call_opt!(self.aclrtCreateEvent(event))
    }
    pub(crate) fn create_event_with_flag(&self, event: *mut aclrtEvent, flag: u32) -> Result<AclError, Failure> {
        call_opt!(self.aclrtCreateEventWithFlag(event, flag))
    }
    pub(crate) fn create_event_ex_with_flag(&self, event: *mut aclrtEvent, flag: u32) -> Result<AclError, Failure> {
        call_opt!(self.aclrtCreateEventExWithFlag(event, flag))
    }
    pub(crate) fn query_event(&self, event: aclrtEvent, status: *mut aclrtEventStatus) -> Result<AclError, Failure> {
        call_opt!(self.aclrtQueryEvent(event, status))
    }
    pub(crate) fn query_event_wait_status(
        &self,
        event: aclrtEvent,
        status: *mut aclrtEventWaitStatus,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtQueryEventWaitStatus(event, status))
    }
    pub(crate) fn destroy_event(&self, event: aclrtEvent) -> Result<AclError, Failure> {
        call_opt!(self.aclrtDestroyEvent(event))
    }
    pub(crate) fn record_event(&self, event: aclrtEvent, stream: aclrtStream) -> Result<AclError, Failure> {
        call_opt!(self.aclrtRecordEvent(event, stream))
    }
    pub(crate) fn query_event_status(
        &self,
        event: aclrtEvent,
        status: *mut aclrtEventRecordedStatus,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtQueryEventStatus(event, status))
    }
    pub(crate) fn synchronize_event(&self, event: aclrtEvent) -> Result<AclError, Failure> {
        call_opt!(self.aclrtSynchronizeEvent(event))
    }
    pub(crate) fn synchronize_event_with_timeout(&self, event: aclrtEvent, timeout: i32) -> Result<AclError, Failure> {
        call_opt!(self.aclrtSynchronizeEventWithTimeout(event, timeout))
    }
    pub(crate) fn event_elapsed_time(
        &self,
        ms: *mut f32,
        start: aclrtEvent,
        end: aclrtEvent,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtEventElapsedTime(ms, start, end))
    }
}

/// Notifies and IPC events (ACL-NTF, ACL-IEV), and the stream and event
/// calls their two-process checks use.
impl Acl {
    pub(crate) fn create_notify(&self, notify: *mut aclrtNotify, flag: u64) -> Result<AclError, Failure> {
        call_opt!(self.aclrtCreateNotify(notify, flag))
    }
    pub(crate) fn destroy_notify(&self, notify: aclrtNotify) -> Result<AclError, Failure> {
        call_opt!(self.aclrtDestroyNotify(notify))
    }
    pub(crate) fn record_notify(&self, notify: aclrtNotify, stream: aclrtStream) -> Result<AclError, Failure> {
        call_opt!(self.aclrtRecordNotify(notify, stream))
    }
    pub(crate) fn wait_and_reset_notify(
        &self,
        notify: aclrtNotify,
        stream: aclrtStream,
        timeout: u32,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtWaitAndResetNotify(notify, stream, timeout))
    }
    pub(crate) fn get_notify_id(&self, notify: aclrtNotify, id: *mut u32) -> Result<AclError, Failure> {
        call_opt!(self.aclrtGetNotifyId(notify, id))
    }
    pub(crate) fn notify_get_export_key(
        &self,
        notify: aclrtNotify,
        key: *mut c_char,
        len: usize,
        flags: u64,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtNotifyGetExportKey(notify, key, len, flags))
    }
    pub(crate) fn notify_import_by_key(
        &self,
        notify: *mut aclrtNotify,
        key: *const c_char,
        flags: u64,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtNotifyImportByKey(notify, key, flags))
    }
    pub(crate) fn notify_set_import_pid(
        &self,
        notify: aclrtNotify,
        pid: *mut i32,
        num: usize,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtNotifySetImportPid(notify, pid, num))
    }
    pub(crate) fn notify_set_import_pid_inter_server(
        &self,
        notify: aclrtNotify,
        pids: *mut aclrtServerPid,
        num: usize,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtNotifySetImportPidInterServer(notify, pids, num))
    }
    pub(crate) fn ipc_get_event_handle(
        &self,
        event: aclrtEvent,
        handle: *mut aclrtIpcEventHandle,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtIpcGetEventHandle(event, handle))
    }
    pub(crate) fn ipc_open_event_handle(
        &self,
        handle: aclrtIpcEventHandle,
        event: *mut aclrtEvent,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtIpcOpenEventHandle(handle, event))
    }
    // Stream and event calls of the two-process checks.
    pub(crate) fn ipc_memcpy_async(
        &self,
        dst: *mut c_void,
        dst_max: usize,
        src: *const c_void,
        count: usize,
        kind: aclrtMemcpyKind,
        stream: aclrtStream,
    ) -> AclError {
        call!(self.aclrtMemcpyAsync(dst, dst_max, src, count, kind, stream))
    }
    pub(crate) fn ipc_synchronize_stream(&self, stream: aclrtStream) -> AclError {
        call!(self.aclrtSynchronizeStream(stream))
    }
    pub(crate) fn ipc_destroy_stream(&self, stream: aclrtStream) -> AclError {
        call!(self.aclrtDestroyStream(stream))
    }
    pub(crate) fn ipc_create_event_ex(&self, event: *mut aclrtEvent, flag: u32) -> Result<AclError, Failure> {
        call_opt!(self.aclrtCreateEventExWithFlag(event, flag))
    }
    pub(crate) fn ipc_record_event(&self, event: aclrtEvent, stream: aclrtStream) -> Result<AclError, Failure> {
        call_opt!(self.aclrtRecordEvent(event, stream))
    }
    pub(crate) fn ipc_destroy_event(&self, event: aclrtEvent) -> Result<AclError, Failure> {
        call_opt!(self.aclrtDestroyEvent(event))
    }
    pub(crate) fn ipc_stream_wait_event(&self, stream: aclrtStream, event: aclrtEvent) -> Result<AclError, Failure> {
        call_opt!(self.aclrtStreamWaitEvent(stream, event))
    }
}

// Model capture: aclmdlRI* and what its checks call besides.
mod model;
