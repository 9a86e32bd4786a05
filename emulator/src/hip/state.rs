//! What HIP keeps for the whole process: one value, held by the emulator
//! (`core::dialect`). The current device and the last error are per
//! thread, as in HIP (`core::thread`, `call`).

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};

use crate::core::{Emulator, EventId, StreamId};

/// How many closed IPC ranges are remembered.
const CLOSED_KEPT: usize = 64;

/// The HIP state of one process.
#[derive(Debug, Default)]
pub(super) struct State {
    /// IPC ranges whose last open was closed, so that one close too many is
    /// told apart from a pointer that was never opened ([HIP-IPC-042](vmmkit_sys::hip::rules::IPC_042) vs -041).
    /// Only for the message and the rule id; both are 1. The last `CLOSED_KEPT`.
    closed: Mutex<VecDeque<(usize, usize)>>,
    /// The priority each stream was made with (hipStreamGetPriority).
    priorities: Mutex<HashMap<StreamId, i32>>,
    /// The device each event was made on (hipEventRecord and
    /// hipEventElapsedTime compare it, as clr does).
    event_devices: Mutex<HashMap<EventId, u32>>,
    /// What hipSetDeviceFlags, hipDeviceSetLimit and hipDeviceReset keep per device.
    devices: Mutex<HashMap<u32, DeviceSettings>>,
    /// Per stream: its CU mask (hipExtStreamCreateWithCUMask) and the
    /// attributes set on it (hipStreamSetAttribute), raw 64-byte values.
    stream_extras: Mutex<HashMap<StreamId, StreamExtras>>,
    /// Registered and managed ranges, allocation flags (memory).
    pub mem: super::ranges::MemState,
}

/// What a device keeps between calls (clr `hip::Device`'s flags, and its
/// `amd::Device` stack and heap sizes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct DeviceSettings {
    /// hipGetDeviceFlags: the scheduling flags (clr keeps `flags & hipDeviceScheduleMask`).
    pub flags: u32,
    /// hipLimitStackSize.
    pub stack_size: usize,
    /// hipLimitMallocHeapSize.
    pub heap_size: usize,
    /// hipDevicePrimaryCtxGetState's `active`: set by a retain or a context
    /// made on it, cleared by hipDeviceReset (clr `Device::SetActiveStatus`).
    pub active: bool,
}

/// A stream's CU mask and attributes.
#[derive(Debug, Clone, Default)]
pub(super) struct StreamExtras {
    /// The mask it was made with; empty: all CUs.
    pub cu_mask: Vec<u32>,
    /// Attribute id → its value as set.
    pub attributes: HashMap<i32, [u8; 64]>,
}

/// The HIP state of the process whose emulator is `e`.
pub(super) fn state(e: &Emulator) -> &State {
    e.dialect_state()
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while it was held (caught at the FFI edge) left the value as
    // it was at that point; it stays usable.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl State {
    /// Whether `p` lies in a range whose last open was closed.
    pub fn was_closed(&self, p: usize) -> bool {
        lock(&self.closed).iter().any(|&(b, n)| p >= b && p < b + n)
    }

    /// Records that the last open of `base..base+len` was closed.
    pub fn note_closed(&self, base: usize, len: usize) {
        let mut c = lock(&self.closed);
        if c.len() >= CLOSED_KEPT {
            c.pop_front();
        }
        c.push_back((base, len));
    }

    /// Forgets a closed range starting at `base` (it was opened again).
    pub fn forget_closed(&self, base: usize) {
        lock(&self.closed).retain(|&(b, _)| b != base);
    }

    /// Records the priority stream `id` was made with.
    pub fn note_stream(&self, id: StreamId, priority: i32) {
        lock(&self.priorities).insert(id, priority);
    }

    /// The priority of stream `id` (0 for streams made elsewhere).
    pub fn priority(&self, id: StreamId) -> i32 {
        lock(&self.priorities).get(&id).copied().unwrap_or(0)
    }

    /// Sets the priority of stream `id` (hipStreamSetAttribute).
    pub fn set_priority(&self, id: StreamId, priority: i32) {
        lock(&self.priorities).insert(id, priority);
    }

    /// Forgets a destroyed stream.
    pub fn forget_stream(&self, id: StreamId) {
        lock(&self.priorities).remove(&id);
        lock(&self.stream_extras).remove(&id);
    }

    /// The streams made here and not destroyed.
    pub fn streams(&self) -> Vec<StreamId> {
        lock(&self.priorities).keys().copied().collect()
    }

    /// The CU mask and attributes of stream `id` (default: none set).
    pub fn extras(&self, id: StreamId) -> StreamExtras {
        lock(&self.stream_extras).get(&id).cloned().unwrap_or_default()
    }

    /// Changes the extras of stream `id`.
    pub fn set_extras(&self, id: StreamId, f: impl FnOnce(&mut StreamExtras)) {
        f(lock(&self.stream_extras).entry(id).or_default());
    }

    /// The settings of `device` (`default` until changed).
    pub fn device(&self, device: u32, default: DeviceSettings) -> DeviceSettings {
        lock(&self.devices).get(&device).copied().unwrap_or(default)
    }

    /// Changes the settings of `device`, starting from `default`.
    pub fn set_device(&self, device: u32, default: DeviceSettings, f: impl FnOnce(&mut DeviceSettings)) {
        f(lock(&self.devices).entry(device).or_insert(default));
    }

    /// hipDeviceReset: the flags go back to `flags` (clr `Device::Reset`);
    /// the limits stay (rocclr keeps them on the `amd::Device`).
    pub fn reset_device(&self, device: u32, flags: u32) {
        if let Some(s) = lock(&self.devices).get_mut(&device) {
            s.flags = flags;
        }
    }

    /// Records the device event `id` was made on.
    pub fn note_event(&self, id: EventId, device: u32) {
        lock(&self.event_devices).insert(id, device);
    }

    /// The device event `id` was made on.
    pub fn event_device(&self, id: EventId) -> u32 {
        lock(&self.event_devices).get(&id).copied().unwrap_or(0)
    }

    /// Forgets a destroyed event.
    pub fn forget_event(&self, id: EventId) {
        lock(&self.event_devices).remove(&id);
    }
}
