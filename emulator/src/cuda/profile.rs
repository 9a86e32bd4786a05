//! The NVIDIA driver the emulator answers as: CUDA 12.6 (the release
//! cuda.md was checked against), a datacenter GPU.

use crate::core::{DEVICE_WINDOW, Window};

/// `cuDriverGetVersion`: 12.6 reports 12060 (cuda.md §1.3).
pub(super) const DRIVER_VERSION: i32 = 12060;

/// [CUDA-VMM-001](vmmkit_sys::cuda::rules::VMM_001): NVIDIA datacenter GPUs report 2 MiB, for both options.
pub(super) const GRANULARITY: u64 = 2 << 20;

/// cuMemAlloc memory is rounded up to whole pages (the real driver
/// sub-allocates; the size asked for is kept for bounds and queries).
pub(super) const ALLOC_GRANULE: u64 = 4096;

/// cuMemAddressReserve: "the size and address parameters must be a multiple
/// of the host page size" (CUDA driver API docs, cuMemAddressReserve).
pub(super) const HOST_PAGE: usize = 4096;

/// [CUDA-IPC-004](vmmkit_sys::cuda::rules::IPC_004): the emulator accepts 0 and `CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS` (1).
pub(super) const IPC_FLAGS: [u32; 2] = [0, vmmkit_sys::cuda::CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS];

/// Device addresses: the window every dialect shares.
pub(super) const WINDOW: Window = DEVICE_WINDOW;

/// `props[0]` of cuMemAlloc memory. `props` are `[kind, granule, size asked, generation]`.
pub(super) const KIND_ALLOC: u64 = u64::from_le_bytes(*b"cuMemAlc");
/// `props[0]` of cuMemCreate memory. `props` are `[kind, granule, requestedHandleTypes, size]`.
pub(super) const KIND_VMM: u64 = u64::from_le_bytes(*b"cuMemCrt");

/// The IPC handle's magic (`core::IpcToken`).
pub(super) const IPC_MAGIC: [u8; 8] = *b"VMMKCUD1";
