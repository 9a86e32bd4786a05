//! What ACL keeps for the whole process, as CANN does: one value, held by
//! the emulator (`core::dialect`). The current device is per thread
//! (`core::thread`), as in CANN.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, MutexGuard};

use crate::core::Emulator;

/// The ACL state of one process.
#[derive(Debug, Default)]
pub(super) struct State {
    /// Whether aclInit has run (and aclFinalize not since). Process-wide, as in CANN.
    pub initialised: AtomicBool,
    /// aclInit's reference count (every aclInit counts, [ACL-GEN-001](vmmkit_sys::acl::rules::GEN_001)), for aclFinalizeReference.
    pub init_refs: std::sync::atomic::AtomicU64,
    /// Per device, how many aclrtSetDevice calls of this process are not yet
    /// matched by aclrtResetDevice (the runtime's reference-counted reset).
    pub device_refs: Mutex<HashMap<u32, u32>>,
    /// Streams of this process: the opaque values aclrtCreateStream handed
    /// out (`STREAM_BASE` + the core's stream number).
    pub streams: Mutex<HashSet<usize>>,
    /// Per device, the default stream (what a NULL `aclrtStream` names), made at first use.
    pub default_streams: Mutex<HashMap<u32, crate::core::StreamId>>,
    /// Events of this process: the opaque values handed out (`EVENT_BASE` +
    /// the core's event number), each with whether it is of the "new mode"
    /// (made by aclrtCreateEventExWithFlag, or opened from another process).
    pub events: Mutex<HashMap<usize, bool>>,
    /// Registered host ranges, managed memory, allocators, mbufs.
    pub memory: super::mem_alloc::MemState,
    /// Per stream handle (created ones and default streams handed out by
    /// aclrtCtxGetCurrentDefaultStream), what it was made with and set to.
    pub stream_conf: Mutex<HashMap<usize, StreamConf>>,
    /// Per (device, `aclrtDeviceLimit`), what aclrtDeviceSetLimit set.
    pub limits: Mutex<HashMap<(u32, i32), usize>>,
    /// Per (device, `aclrtDevResLimitType`), what aclrtSetDeviceResLimit set.
    pub res_limits: Mutex<HashMap<(u32, i32), u32>>,
    /// Per (context's device, or `None` for the process, `aclSysParamOpt`),
    /// what aclrtSetSysParamOpt (or aclrtCtxSetSysParamOpt) set.
    pub sys_params: Mutex<HashMap<(Option<u32>, i32), i64>>,
    /// aclrtSetDeviceSatMode's mode (`aclrtFloatOverflowMode`), process-wide.
    pub sat_mode: std::sync::atomic::AtomicI32,
    /// Report threads subscribed to streams, and the callbacks queued for them.
    pub reports: super::callback::Reports,
    /// Per device (a context is its device's), the float-overflow status
    /// aclrtCtxGetFloatOverflowAddr hands out: a device allocation, freed
    /// with the device's other resources by its last reset.
    pub overflow_addrs: Mutex<HashMap<u32, usize>>,
    /// IPC memory keys created, opened and closed here (`ipc.rs`).
    pub ipc_keys: Mutex<super::ipc::Keys>,
    /// How many IPC memory keys this process has made: the next key's
    /// serial is one more.
    pub ipc_serial: std::sync::atomic::AtomicU64,
    /// How many mbuf handles this process has made (a handle is a tag and
    /// one more than this, never 0, never an address).
    pub mbufs_made: std::sync::atomic::AtomicUsize,
    /// The notifies of this process (made or imported here), by handle.
    pub notifies: Mutex<HashSet<usize>>,
    /// Notifies exported by this process (a second export is [ACL-NTF-004](vmmkit_sys::acl::rules::NTF_004)'s).
    pub exported_notifies: Mutex<HashSet<crate::core::EventId>>,
}

/// What one stream was created with (aclrtCreateStreamWithConfig) and set to.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct StreamConf {
    /// Its priority, 0 (greatest) to 7 (least).
    pub priority: u32,
    /// Its `ACL_STREAM_*` flags.
    pub flags: u32,
    /// aclrtSetStreamFailureMode's mode.
    pub failure_mode: u64,
    /// aclrtSetStreamOverflowSwitch's switch.
    pub overflow: u32,
    /// aclrtSetStreamResLimit's limits, per `aclrtDevResLimitType`.
    pub res: [Option<u32>; 2],
    /// `ACL_STREAM_ATTR_USER_CUSTOM_TAG`.
    pub tag: u32,
    /// `ACL_STREAM_ATTR_CACHE_OP_INFO`.
    pub cache_op: u32,
}

/// The ACL state of the process whose emulator is `e`.
pub(super) fn state(e: &Emulator) -> &State {
    e.dialect_state()
}

/// `m` locked. A panic while it was held (caught at the FFI edge) left the
/// value as it was at that point; it stays usable.
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
