//! The messages between a check and its peer: one [`Request`], one
//! [`Reply`], in JSON, one packet each.
//!
//! The peer keeps the handles and mappings it makes in numbered slots; a
//! request names them by slot, since a handle's value means nothing in
//! another process ([ACL-MP-017](vmmkit_sys::acl::rules::MP_017)).
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};

/// What a check asks its peer to do. Every request gets one reply whose
/// `code` is the vendor code of the call named (0 on success).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// `aclInit` (100002 counts as success), then `aclrtSetDevice(device)`
    /// when given.
    Start {
        /// The device to make current.
        device: Option<i32>,
    },
    /// `aclrtDeviceGetBareTgid`: `value` is the pid it gives, `slot` the
    /// peer's own `getpid()`.
    Pid,
    /// `aclrtMallocPhysical(size)` of `attr` on `device`: `slot` is the handle.
    Alloc {
        /// Device of the location.
        device: u32,
        /// Bytes.
        size: u64,
        /// `memAttr`.
        attr: i32,
    },
    /// `aclrtReserveMemAddress(size)` then `aclrtMapMem` of handle slot
    /// `handle`: `slot` is the mapping. `text` names the call that failed.
    Map {
        /// Handle slot.
        handle: usize,
        /// Bytes.
        size: u64,
    },
    /// Reserve and map a raw handle value from another process.
    MapForeign {
        /// The handle value, as the other process saw it.
        handle_value: u64,
        /// Bytes.
        size: u64,
    },
    /// `aclrtMemSetAccess` READWRITE for `device` over mapping slot `map`.
    SetAccess {
        /// Mapping slot.
        map: usize,
        /// Device granted.
        device: u32,
    },
    /// Writes the pattern `seed` over mapping slot `map`.
    Write {
        /// Mapping slot.
        map: usize,
        /// Pattern seed.
        seed: u8,
    },
    /// Reads mapping slot `map`: `value` is 1 when it is the pattern `seed`;
    /// otherwise `text` names the first differing byte.
    Verify {
        /// Mapping slot.
        map: usize,
        /// Pattern seed.
        seed: u8,
    },
    /// `aclrtUnmapMem` of mapping slot `map`.
    Unmap {
        /// Mapping slot.
        map: usize,
    },
    /// `aclrtReleaseMemAddress` of mapping slot `map`'s reservation.
    Release {
        /// Mapping slot.
        map: usize,
    },
    /// `aclrtFreePhysical` of handle slot `handle`.
    Free {
        /// Handle slot.
        handle: usize,
    },
    /// `aclrtMemExportToShareableHandle(handle, NONE, flags)`: `value` is the
    /// shareable handle.
    Export {
        /// Handle slot.
        handle: usize,
        /// Export flags.
        flags: u64,
    },
    /// `aclrtMemExportToShareableHandleV2`: `bytes` is the handle (8 bytes
    /// for DEFAULT, 128 for FABRIC).
    ExportV2 {
        /// Handle slot.
        handle: usize,
        /// Export flags.
        flags: u64,
        /// `aclrtMemSharedHandleType`.
        share_type: i32,
    },
    /// `aclrtMemSetPidToShareableHandle(shareable, pids)`.
    SetPid {
        /// The shareable handle.
        shareable: u64,
        /// Pids to list.
        pids: Vec<i32>,
    },
    /// `aclrtMemImportFromShareableHandle(shareable, device)`: `slot` is the
    /// handle, `value` its raw value (to compare repeated imports).
    Import {
        /// The shareable handle.
        shareable: u64,
        /// Importing device.
        device: i32,
    },
    /// `aclrtMemImportFromShareableHandleV2(bytes, share_type, flags)`.
    ImportV2 {
        /// The handle as exported (8 or 128 bytes).
        shareable: Vec<u8>,
        /// `aclrtMemSharedHandleType`.
        share_type: i32,
        /// Import flags.
        flags: u64,
    },
    /// `aclrtMemGetAllocationPropertiesFromHandle`: `bytes` holds memAttr,
    /// location type and location id as little-endian `i32`s.
    Props {
        /// Handle slot.
        handle: usize,
    },
    /// Reply, then exit 0.
    Exit,
    /// `aclrtMalloc(size)` filled with the pattern `seed`: `slot` is a
    /// mapping slot (for `Verify`), `value` the address.
    IpcAlloc {
        /// Bytes.
        size: u64,
        /// Pattern seed.
        seed: u8,
    },
    /// `aclrtIpcMemGetExportKey` of mapping slot `map` (65-byte buffer):
    /// `bytes` is the key without its NUL.
    IpcGetKey {
        /// Mapping slot of an `IpcAlloc`.
        map: usize,
        /// Export flags.
        flags: u64,
    },
    /// `aclrtIpcMemSetImportPid(key, pids)`.
    IpcSetPid {
        /// The key, without its NUL.
        key: Vec<u8>,
        /// Pids to list.
        pids: Vec<i32>,
    },
    /// `aclrtIpcMemImportByKey(key, flags)`: `slot` is a mapping slot of
    /// `size` bytes, `value` the address.
    IpcImport {
        /// The key, without its NUL.
        key: Vec<u8>,
        /// Import flags.
        flags: u64,
        /// Bytes to verify through the slot.
        size: u64,
    },
    /// `aclrtIpcMemClose(key)`.
    IpcClose {
        /// The key, without its NUL.
        key: Vec<u8>,
    },
    /// `aclrtFree` of mapping slot `map` (an `IpcAlloc`).
    IpcFree {
        /// Mapping slot.
        map: usize,
    },
    /// `aclrtMemRetainAllocationHandle` at the start of mapping slot `map`:
    /// `slot` is the retained handle's slot, `value` its raw value.
    Retain {
        /// Mapping slot.
        map: usize,
    },
    /// `aclrtNotifyImportByKey(key, flags)`: `slot` is the notify's slot.
    NotifyImport {
        /// The key, without its NUL.
        key: Vec<u8>,
        /// Import flags.
        flags: u64,
    },
    /// On a stream of the peer: `aclrtWaitAndResetNotify(notify, timeout)`,
    /// then `aclrtMemcpyAsync` of mapping slot `map` to the host and
    /// `aclrtSynchronizeStream`: `value` is 1 when the host copy is the
    /// pattern `seed`; `code` the first call that failed.
    NotifyWaitRead {
        /// Notify slot.
        notify: usize,
        /// Mapping slot.
        map: usize,
        /// Pattern seed.
        seed: u8,
        /// The wait's timeout (seconds; 0: none).
        timeout: u32,
    },
    /// On the peer's stream: `aclrtWaitAndResetNotify(notify, 0)` (no
    /// timeout), `aclrtMemcpyAsync` of mapping slot `map` into a host buffer
    /// the peer keeps, then `aclrtSynchronizeStreamWithTimeout(1 ms)`:
    /// `code` is that synchronize's (507046 while the wait holds the
    /// stream). [`Request::ReadHeld`] ends it.
    NotifyWaitHeld {
        /// Notify slot.
        notify: usize,
        /// Mapping slot.
        map: usize,
    },
    /// `aclrtSynchronizeStream` of the peer's stream, then the buffer of the
    /// last [`Request::NotifyWaitHeld`] compared with pattern `seed`:
    /// `value` is 1 when it is the pattern.
    ReadHeld {
        /// Pattern seed.
        seed: u8,
    },
    /// `aclrtIpcOpenEventHandle(handle)`: `slot` is the event's slot.
    EventOpen {
        /// The 64 bytes of the handle.
        handle: Vec<u8>,
    },
    /// On a stream of the peer: `aclrtStreamWaitEvent(event)`, then as
    /// [`Request::NotifyWaitRead`] the copy, synchronize and comparison.
    EventWaitRead {
        /// Event slot.
        event: usize,
        /// Mapping slot.
        map: usize,
        /// Pattern seed.
        seed: u8,
    },
    /// On a stream of the peer: `aclrtValueWait` on a device word nobody
    /// writes, then `aclrtRecordEvent(event)`: a record that never completes
    /// while the peer lives.
    EventRecordStuck {
        /// Event slot.
        event: usize,
    },
    /// `aclInit`, then `aclrtGetDeviceCount`: `value` is the count, `bytes`
    /// the physical id of each of its devices (`aclrtGetPhyDevIdByUserDevId`,
    /// little-endian `i32`s); the code is that of the first call that failed.
    Devices,
    /// `aclrtGetUserDevIdByLogicDevId(logic)`: `value` is the user id.
    UserOf {
        /// The logic (machine) id.
        logic: i32,
    },
}

/// The peer's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reply {
    /// The vendor code of the call (0 on success).
    pub code: i32,
    /// A number the request defines (a pid, a shareable handle, a flag).
    #[serde(default)]
    pub value: u64,
    /// The slot of what was made.
    #[serde(default)]
    pub slot: usize,
    /// Bytes the request defines.
    #[serde(default)]
    pub bytes: Vec<u8>,
    /// A message: which call failed, or what differed.
    #[serde(default)]
    pub text: String,
}
