//! ACL typedefs, constants and structures (reference acl.md §2), x86-64 layout.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

use std::ffi::c_void;

/// `aclError`: a C `int`, 0 on success. See [`crate::acl::AclError`].
pub type aclError = i32;
/// `aclrtStream`: an opaque pointer.
pub type aclrtStream = *mut c_void;
/// `aclrtContext`: an opaque pointer.
pub type aclrtContext = *mut c_void;
/// `aclrtEvent`: an opaque pointer.
pub type aclrtEvent = *mut c_void;
/// `aclrtDrvMemHandle`: an opaque per-process pointer; its value means nothing in another process.
pub type aclrtDrvMemHandle = *mut c_void;

/// `aclrtMemHandleType` (C enum, 4 bytes).
pub type aclrtMemHandleType = i32;
pub const ACL_MEM_HANDLE_TYPE_NONE: aclrtMemHandleType = 0;
pub const ACL_MEM_HANDLE_TYPE_POSIX: aclrtMemHandleType = 2;

/// `aclrtMemAllocationType`.
pub type aclrtMemAllocationType = i32;
pub const ACL_MEM_ALLOCATION_TYPE_PINNED: aclrtMemAllocationType = 0;

/// `aclrtMemSharedHandleType` (there is no 0).
pub type aclrtMemSharedHandleType = i32;
pub const ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT: aclrtMemSharedHandleType = 1;
pub const ACL_MEM_SHARE_HANDLE_TYPE_FABRIC: aclrtMemSharedHandleType = 2;

/// `aclrtMemLocationType`.
pub type aclrtMemLocationType = i32;
pub const ACL_MEM_LOCATION_TYPE_HOST: aclrtMemLocationType = 0;
pub const ACL_MEM_LOCATION_TYPE_DEVICE: aclrtMemLocationType = 1;
pub const ACL_MEM_LOCATION_TYPE_UNREGISTERED: aclrtMemLocationType = 2;
pub const ACL_MEM_LOCATION_TYPE_MANAGED: aclrtMemLocationType = 3;
pub const ACL_MEM_LOCATION_TYPE_HOST_NUMA: aclrtMemLocationType = 4;

/// `aclrtMemGranularityOptions`.
pub type aclrtMemGranularityOptions = i32;
pub const ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM: aclrtMemGranularityOptions = 0;
pub const ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED: aclrtMemGranularityOptions = 1;
pub const ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF: aclrtMemGranularityOptions = 0xFFFF;

/// `aclrtMemAccessFlags`.
pub type aclrtMemAccessFlags = i32;
pub const ACL_RT_MEM_ACCESS_FLAGS_NONE: aclrtMemAccessFlags = 0;
pub const ACL_RT_MEM_ACCESS_FLAGS_READ: aclrtMemAccessFlags = 1;
pub const ACL_RT_MEM_ACCESS_FLAGS_READWRITE: aclrtMemAccessFlags = 3;

/// `aclrtMemcpyKind`.
pub type aclrtMemcpyKind = i32;
pub const ACL_MEMCPY_HOST_TO_HOST: aclrtMemcpyKind = 0;
pub const ACL_MEMCPY_HOST_TO_DEVICE: aclrtMemcpyKind = 1;
pub const ACL_MEMCPY_DEVICE_TO_HOST: aclrtMemcpyKind = 2;
pub const ACL_MEMCPY_DEVICE_TO_DEVICE: aclrtMemcpyKind = 3;
pub const ACL_MEMCPY_DEFAULT: aclrtMemcpyKind = 4;
pub const ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: aclrtMemcpyKind = 5;
pub const ACL_MEMCPY_INNER_DEVICE_TO_DEVICE: aclrtMemcpyKind = 6;
pub const ACL_MEMCPY_INTER_DEVICE_TO_DEVICE: aclrtMemcpyKind = 7;

/// `aclrtMemMallocPolicy` (a value in the low byte, plus bit flags).
pub type aclrtMemMallocPolicy = i32;
pub const ACL_MEM_MALLOC_HUGE_FIRST: aclrtMemMallocPolicy = 0;
pub const ACL_MEM_MALLOC_HUGE_ONLY: aclrtMemMallocPolicy = 1;
pub const ACL_MEM_MALLOC_NORMAL_ONLY: aclrtMemMallocPolicy = 2;
pub const ACL_MEM_MALLOC_HUGE_FIRST_P2P: aclrtMemMallocPolicy = 3;
pub const ACL_MEM_MALLOC_HUGE_ONLY_P2P: aclrtMemMallocPolicy = 4;
pub const ACL_MEM_MALLOC_NORMAL_ONLY_P2P: aclrtMemMallocPolicy = 5;
pub const ACL_MEM_MALLOC_HUGE1G_ONLY: aclrtMemMallocPolicy = 6;
pub const ACL_MEM_MALLOC_HUGE1G_ONLY_P2P: aclrtMemMallocPolicy = 7;
pub const ACL_MEM_TYPE_LOW_BAND_WIDTH: aclrtMemMallocPolicy = 0x100;
pub const ACL_MEM_TYPE_HIGH_BAND_WIDTH: aclrtMemMallocPolicy = 0x1000;
pub const ACL_MEM_ACCESS_USER_SPACE_READONLY: aclrtMemMallocPolicy = 0x0010_0000;

/// `aclrtMemAttr`, used for `prop.memAttr` and by `aclrtGetMemInfo`.
pub type aclrtMemAttr = i32;
pub const ACL_DDR_MEM: aclrtMemAttr = 0;
pub const ACL_HBM_MEM: aclrtMemAttr = 1;
pub const ACL_DDR_MEM_HUGE: aclrtMemAttr = 2;
pub const ACL_DDR_MEM_NORMAL: aclrtMemAttr = 3;
pub const ACL_HBM_MEM_HUGE: aclrtMemAttr = 4;
pub const ACL_HBM_MEM_NORMAL: aclrtMemAttr = 5;
pub const ACL_DDR_MEM_P2P_HUGE: aclrtMemAttr = 6;
pub const ACL_DDR_MEM_P2P_NORMAL: aclrtMemAttr = 7;
pub const ACL_HBM_MEM_P2P_HUGE: aclrtMemAttr = 8;
pub const ACL_HBM_MEM_P2P_NORMAL: aclrtMemAttr = 9;
pub const ACL_HBM_MEM_HUGE1G: aclrtMemAttr = 10;
pub const ACL_HBM_MEM_P2P_HUGE1G: aclrtMemAttr = 11;
pub const ACL_MEM_NORMAL: aclrtMemAttr = 12;
pub const ACL_MEM_HUGE: aclrtMemAttr = 13;
pub const ACL_MEM_HUGE1G: aclrtMemAttr = 14;
pub const ACL_MEM_P2P_NORMAL: aclrtMemAttr = 15;
pub const ACL_MEM_P2P_HUGE: aclrtMemAttr = 16;
pub const ACL_MEM_P2P_HUGE1G: aclrtMemAttr = 17;

/// `ACL_RT_VMM_EXPORT_FLAG_DEFAULT`: trustlist verification on.
pub const ACL_RT_VMM_EXPORT_FLAG_DEFAULT: u64 = 0x0;
/// `ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION`: any process may import.
pub const ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION: u64 = 0x1;
pub const ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT: u64 = 0x0;
pub const ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION: u64 = 0x1;
pub const ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT: u64 = 0x0;
pub const ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS: u64 = 0x1;

pub const ACL_MAJOR_VERSION: i32 = 1;
pub const ACL_MINOR_VERSION: i32 = 17;
pub const ACL_PATCH_VERSION: i32 = 0;

/// Minimum length of an IPC key buffer (`aclrtIpcMemGetExportKey`).
pub const ACL_IPC_KEY_MIN_LEN: usize = 65;
/// Most pids one `aclrtIpcMemSetImportPid` call accepts.
pub const ACL_IPC_MAX_PIDS_PER_CALL: usize = 31;
/// Most pids one trustlist holds, and one SetPid call passes.
pub const ACL_TRUSTLIST_MAX_PIDS: usize = 65_535;

/// `aclrtMemLocation`: 8 bytes, align 4.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct aclrtMemLocation {
    pub id: u32,
    pub type_: aclrtMemLocationType,
}

/// `aclrtPhysicalMemProp`: 32 bytes, align 8.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct aclrtPhysicalMemProp {
    pub handleType: aclrtMemHandleType,
    pub allocationType: aclrtMemAllocationType,
    pub memAttr: aclrtMemAttr,
    pub location: aclrtMemLocation,
    pub reserve: u64,
}

/// `aclrtMemAccessDesc`: 24 bytes, align 4.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct aclrtMemAccessDesc {
    pub flags: aclrtMemAccessFlags,
    pub location: aclrtMemLocation,
    pub rsv: [u8; 12],
}

/// `aclrtMemFabricHandle`: 128 bytes, align 1.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct aclrtMemFabricHandle {
    pub data: [u8; 128],
}

impl Default for aclrtMemFabricHandle {
    fn default() -> Self {
        Self { data: [0; 128] }
    }
}

/// The driver's type word at offset 0 of a fabric handle: `drv_mem_handle_type`
/// (hicann/driver pkg_inc/hal_pkg/common_pkg.h:147-152): NONE 0, FABRIC 1, POSIX 2.
pub const MEM_HANDLE_TYPE_NONE: u32 = 0;
/// See [`MEM_HANDLE_TYPE_NONE`].
pub const MEM_HANDLE_TYPE_FABRIC: u32 = 1;
/// See [`MEM_HANDLE_TYPE_NONE`].
pub const MEM_HANDLE_TYPE_POSIX: u32 = 2;

/// What the driver writes at the start of an [`aclrtMemFabricHandle`]
/// (`struct devmm_share_handle`, hicann/driver src/ascend_hal/svm/v2/devmm/devmm_svm.c:6350-6356,
/// filled at 6393-6397): 20 bytes, the other 108 bytes are zero.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct aclrtMemFabricHandleHead {
    /// `drv_mem_handle_type`: [`MEM_HANDLE_TYPE_FABRIC`] for a fabric handle.
    pub handle_type: u32,
    /// The exporter's super-pod device id, which names its server.
    pub sdid: u32,
    /// The exporter's logical device (bits 32-39 of the u64 form).
    pub devid: u32,
    /// The exporter's physical device (cross-server use).
    pub phy_devid: u32,
    /// The share id (bits 0-31 of the u64 form).
    pub share_id: i32,
}

impl aclrtMemFabricHandleHead {
    /// The u64 shareable handle of the same export: share id, device in bits 32-39
    /// (halMemTransShareableHandle, devmm_svm.c:6457-6486).
    pub fn shareable(&self) -> u64 {
        (u64::from(self.devid & 0xff) << 32) | u64::from(self.share_id as u32)
    }
}

impl aclrtMemFabricHandle {
    /// The head the driver wrote (little-endian words).
    pub fn head(&self) -> aclrtMemFabricHandleHead {
        let w = |i: usize| u32::from_le_bytes([self.data[i], self.data[i + 1], self.data[i + 2], self.data[i + 3]]);
        aclrtMemFabricHandleHead {
            handle_type: w(0),
            sdid: w(4),
            devid: w(8),
            phy_devid: w(12),
            share_id: w(16) as i32,
        }
    }

    /// A handle holding `head` and zeros.
    pub fn from_head(head: &aclrtMemFabricHandleHead) -> Self {
        let mut h = Self::default();
        let words = [head.handle_type, head.sdid, head.devid, head.phy_devid, head.share_id as u32];
        for (i, w) in words.into_iter().enumerate() {
            h.data[i * 4..i * 4 + 4].copy_from_slice(&w.to_le_bytes());
        }
        h
    }
}

/// `aclrtPtrAttributes`: 28 bytes, align 4.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct aclrtPtrAttributes {
    pub location: aclrtMemLocation,
    pub pageSize: u32,
    pub rsv: [u32; 4],
}

/// `aclrtServerPid`: 24 bytes, align 8 (computed).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclrtServerPid {
    pub sdid: u32,
    pub pid: *mut i32,
    pub num: usize,
}

// Layouts of reference acl.md §2.4, checked at compile time.
const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    assert!(size_of::<aclrtMemLocation>() == 8 && align_of::<aclrtMemLocation>() == 4);
    assert!(offset_of!(aclrtMemLocation, id) == 0 && offset_of!(aclrtMemLocation, type_) == 4);
    assert!(size_of::<aclrtPhysicalMemProp>() == 32 && align_of::<aclrtPhysicalMemProp>() == 8);
    assert!(offset_of!(aclrtPhysicalMemProp, handleType) == 0);
    assert!(offset_of!(aclrtPhysicalMemProp, allocationType) == 4);
    assert!(offset_of!(aclrtPhysicalMemProp, memAttr) == 8);
    assert!(offset_of!(aclrtPhysicalMemProp, location) == 12);
    assert!(offset_of!(aclrtPhysicalMemProp, reserve) == 24);
    assert!(size_of::<aclrtMemAccessDesc>() == 24 && align_of::<aclrtMemAccessDesc>() == 4);
    assert!(offset_of!(aclrtMemAccessDesc, flags) == 0);
    assert!(offset_of!(aclrtMemAccessDesc, location) == 4);
    assert!(offset_of!(aclrtMemAccessDesc, rsv) == 12);
    assert!(size_of::<aclrtMemFabricHandle>() == 128 && align_of::<aclrtMemFabricHandle>() == 1);
    assert!(size_of::<aclrtMemFabricHandleHead>() == 20 && align_of::<aclrtMemFabricHandleHead>() == 4);
    assert!(offset_of!(aclrtMemFabricHandleHead, handle_type) == 0);
    assert!(offset_of!(aclrtMemFabricHandleHead, sdid) == 4);
    assert!(offset_of!(aclrtMemFabricHandleHead, devid) == 8);
    assert!(offset_of!(aclrtMemFabricHandleHead, phy_devid) == 12);
    assert!(offset_of!(aclrtMemFabricHandleHead, share_id) == 16);
    assert!(size_of::<aclrtPtrAttributes>() == 28 && align_of::<aclrtPtrAttributes>() == 4);
    assert!(offset_of!(aclrtPtrAttributes, pageSize) == 8 && offset_of!(aclrtPtrAttributes, rsv) == 12);
    assert!(size_of::<aclrtServerPid>() == 24 && align_of::<aclrtServerPid>() == 8);
    assert!(offset_of!(aclrtServerPid, pid) == 8 && offset_of!(aclrtServerPid, num) == 16);
};

// ---- Streams and events (include/external/acl/acl_rt.h) -----------

/// `aclrtCreateEventWithFlag` flag: host waits block (acl_rt.h:28).
pub const ACL_EVENT_SYNC: u32 = 0x0000_0001;
/// Flag: the event captures the stream's progress (acl_rt.h:29).
pub const ACL_EVENT_CAPTURE_STREAM_PROGRESS: u32 = 0x0000_0002;
/// Flag: the event keeps the time of its records (acl_rt.h:30).
pub const ACL_EVENT_TIME_LINE: u32 = 0x0000_0008;
/// Flag: used on the device only (acl_rt.h:31).
pub const ACL_EVENT_DEVICE_USE_ONLY: u32 = 0x0000_0010;
/// Flag: an external event (acl_rt.h:32).
pub const ACL_EVENT_EXTERNAL: u32 = 0x0000_0020;
/// Flag: an event other processes can open (acl_rt.h:33).
pub const ACL_EVENT_IPC: u32 = 0x0000_0040;

/// `aclrtEventStatus` (acl_rt.h:116-120).
pub type aclrtEventStatus = i32;
pub const ACL_EVENT_STATUS_COMPLETE: aclrtEventStatus = 0;
pub const ACL_EVENT_STATUS_NOT_READY: aclrtEventStatus = 1;
pub const ACL_EVENT_STATUS_RESERVED: aclrtEventStatus = 2;

/// `aclrtEventRecordedStatus` (acl_rt.h:122-125).
pub type aclrtEventRecordedStatus = i32;
pub const ACL_EVENT_RECORDED_STATUS_NOT_READY: aclrtEventRecordedStatus = 0;
pub const ACL_EVENT_RECORDED_STATUS_COMPLETE: aclrtEventRecordedStatus = 1;

/// `aclrtEventWaitStatus` (acl_rt.h:127-131).
pub type aclrtEventWaitStatus = i32;
pub const ACL_EVENT_WAIT_STATUS_COMPLETE: aclrtEventWaitStatus = 0;
pub const ACL_EVENT_WAIT_STATUS_NOT_READY: aclrtEventWaitStatus = 1;
pub const ACL_EVENT_WAIT_STATUS_RESERVED: aclrtEventWaitStatus = 0xFFFF;

/// `aclmdlRI`: a model run instance, here a captured model (acl_rt.h:405 of hicann/runtime@0b4af8a).
pub type aclmdlRI = *mut c_void;
/// `aclmdlRICaptureMode` (acl_rt.h:407-411 of hicann/runtime@0b4af8a).
pub type aclmdlRICaptureMode = i32;
pub const ACL_MODEL_RI_CAPTURE_MODE_GLOBAL: aclmdlRICaptureMode = 0;
pub const ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL: aclmdlRICaptureMode = 1;
pub const ACL_MODEL_RI_CAPTURE_MODE_RELAXED: aclmdlRICaptureMode = 2;
/// `aclmdlRICaptureStatus` (acl_rt.h:413-417 of hicann/runtime@0b4af8a).
pub type aclmdlRICaptureStatus = i32;
pub const ACL_MODEL_RI_CAPTURE_STATUS_NONE: aclmdlRICaptureStatus = 0;
pub const ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE: aclmdlRICaptureStatus = 1;
pub const ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED: aclmdlRICaptureStatus = 2;

/// `aclrtStreamStatus` (acl_rt.h:133-137).
pub type aclrtStreamStatus = i32;
pub const ACL_STREAM_STATUS_COMPLETE: aclrtStreamStatus = 0;
pub const ACL_STREAM_STATUS_NOT_READY: aclrtStreamStatus = 1;
pub const ACL_STREAM_STATUS_RESERVED: aclrtStreamStatus = 0xFFFF;

#[cfg(test)]
mod fabric_tests {
    use std::mem::{offset_of, size_of};

    use super::*;

    /// [ACL-SHV-001](crate::acl::rules::SHV_001): the head's words sit at 0, 4, 8, 12, 16 and its u64 form
    /// is share id | device << 32, as the driver packs it.
    #[test]
    fn fabric_head_round_trip_and_layout() {
        let head = aclrtMemFabricHandleHead {
            handle_type: MEM_HANDLE_TYPE_FABRIC,
            sdid: 0x1122_3344,
            devid: 3,
            phy_devid: 5,
            share_id: 0x0607_0809,
        };
        let h = aclrtMemFabricHandle::from_head(&head);
        assert_eq!(h.data[0..4], [1, 0, 0, 0]);
        assert_eq!(h.data[4..8], [0x44, 0x33, 0x22, 0x11]);
        assert_eq!(h.data[8], 3);
        assert_eq!(h.data[12], 5);
        assert_eq!(h.data[16..20], [9, 8, 7, 6]);
        assert!(h.data[20..].iter().all(|&b| b == 0));
        assert_eq!(h.head(), head);
        assert_eq!(head.shareable(), 0x3_0607_0809);
        assert_eq!(size_of::<aclrtMemFabricHandleHead>(), 20);
        assert_eq!(offset_of!(aclrtMemFabricHandleHead, share_id), 16);
    }
}

// ---- Shared events and notifies (include/external/acl/acl_rt.h) ----

/// `aclrtNotify`: an opaque pointer.
pub type aclrtNotify = *mut c_void;
/// `aclrtCreateNotify` flag: the default (acl_rt.h:52).
pub const ACL_NOTIFY_DEFAULT: u64 = 0;
/// `aclrtCreateNotify` flag: used on the device only (acl_rt.h:53; RT_NOTIFY_FLAG_DOWNLOAD_TO_DEV).
pub const ACL_NOTIFY_DEVICE_USE_ONLY: u64 = 0x1;
/// `aclrtNotifyGetExportKey` flag: the default (acl_rt.h:59).
pub const ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT: u64 = 0;
/// `aclrtNotifyGetExportKey` flag: no pid trustlist (acl_rt.h:60).
pub const ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION: u64 = 0x2;
/// `aclrtNotifyImportByKey` flag: the default (acl_rt.h:62).
pub const ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT: u64 = 0;
/// `aclrtNotifyImportByKey` flag: peer access to the notify (acl_rt.h:63).
pub const ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS: u64 = 0x2;
/// Bytes of an `aclrtIpcEventHandle` (acl_rt.h:86).
pub const ACL_IPC_EVENT_HANDLE_SIZE: usize = 64;

/// `aclrtIpcEventHandle`: 64 bytes, passed by value (acl_rt.h:1011-1013).
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct aclrtIpcEventHandle {
    pub reserved: [std::ffi::c_char; ACL_IPC_EVENT_HANDLE_SIZE],
}

impl Default for aclrtIpcEventHandle {
    fn default() -> Self {
        Self { reserved: [0; ACL_IPC_EVENT_HANDLE_SIZE] }
    }
}

const _: () = assert!(std::mem::size_of::<aclrtIpcEventHandle>() == 64);

// ---- Devices, contexts, streams, events (acl_rt.h, acl_base_rt.h of hicann/runtime@681ef76) ----

/// `aclrtRunMode` (acl_rt.h:105-108): where the program runs.
pub type aclrtRunMode = i32;
pub const ACL_DEVICE: aclrtRunMode = 0;
pub const ACL_HOST: aclrtRunMode = 1;

/// `aclrtDevAttr` (acl_rt.h:657-688), the attributes of `aclrtGetDeviceInfo`.
pub type aclrtDevAttr = i32;
pub const ACL_DEV_ATTR_AICPU_CORE_NUM: aclrtDevAttr = 1;
pub const ACL_DEV_ATTR_AICORE_CORE_NUM: aclrtDevAttr = 101;
pub const ACL_DEV_ATTR_CUBE_CORE_NUM: aclrtDevAttr = 102;
pub const ACL_DEV_ATTR_VECTOR_CORE_NUM: aclrtDevAttr = 201;
pub const ACL_DEV_ATTR_WARP_SIZE: aclrtDevAttr = 202;
pub const ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE: aclrtDevAttr = 203;
pub const ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE: aclrtDevAttr = 204;
pub const ACL_DEV_ATTR_MAX_GRID_DIM_X: aclrtDevAttr = 205;
pub const ACL_DEV_ATTR_MAX_GRID_DIM_Y: aclrtDevAttr = 206;
pub const ACL_DEV_ATTR_MAX_GRID_DIM_Z: aclrtDevAttr = 207;
pub const ACL_DEV_ATTR_MAX_BLOCK_PER_GRID: aclrtDevAttr = 208;
pub const ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK: aclrtDevAttr = 209;
pub const ACL_DEV_ATTR_MAX_BLOCK_DIM_X: aclrtDevAttr = 210;
pub const ACL_DEV_ATTR_MAX_BLOCK_DIM_Y: aclrtDevAttr = 211;
pub const ACL_DEV_ATTR_MAX_BLOCK_DIM_Z: aclrtDevAttr = 212;
pub const ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE: aclrtDevAttr = 301;
pub const ACL_DEV_ATTR_L2_CACHE_SIZE: aclrtDevAttr = 302;
pub const ACL_DEV_ATTR_SMP_ID: aclrtDevAttr = 401;
pub const ACL_DEV_ATTR_PHY_CHIP_ID: aclrtDevAttr = 402;
pub const ACL_DEV_ATTR_SUPER_POD_DEVICE_ID: aclrtDevAttr = 403;
pub const ACL_DEV_ATTR_SUPER_POD_SERVER_ID: aclrtDevAttr = 404;
pub const ACL_DEV_ATTR_SUPER_POD_ID: aclrtDevAttr = 405;
pub const ACL_DEV_ATTR_CUST_OP_PRIVILEGE: aclrtDevAttr = 406;

/// `aclrtDeviceLimit` (acl_rt.h:3991-3997).
pub type aclrtDeviceLimit = i32;
pub const ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE: aclrtDeviceLimit = 0;
pub const ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE: aclrtDeviceLimit = 1;
pub const ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE: aclrtDeviceLimit = 2;
pub const ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE: aclrtDeviceLimit = 3;
pub const ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE: aclrtDeviceLimit = 4;

/// `aclrtDevResLimitType` (acl_rt.h:715-718).
pub type aclrtDevResLimitType = i32;
pub const ACL_RT_DEV_RES_CUBE_CORE: aclrtDevResLimitType = 0;
pub const ACL_RT_DEV_RES_VECTOR_CORE: aclrtDevResLimitType = 1;

/// `aclrtDeviceStatus` (acl_rt.h:393-397).
pub type aclrtDeviceStatus = i32;
pub const ACL_RT_DEVICE_STATUS_NORMAL: aclrtDeviceStatus = 0;
pub const ACL_RT_DEVICE_STATUS_ABNORMAL: aclrtDeviceStatus = 1;
pub const ACL_RT_DEVICE_STATUS_END: aclrtDeviceStatus = 0xFFFF;

/// `aclrtFloatOverflowMode` (acl_rt.h:280-284).
pub type aclrtFloatOverflowMode = i32;
pub const ACL_RT_OVERFLOW_MODE_SATURATION: aclrtFloatOverflowMode = 0;
pub const ACL_RT_OVERFLOW_MODE_INFNAN: aclrtFloatOverflowMode = 1;
pub const ACL_RT_OVERFLOW_MODE_UNDEF: aclrtFloatOverflowMode = 2;

/// `aclSysParamOpt` (acl_base_rt.h:203-209).
pub type aclSysParamOpt = i32;
pub const ACL_OPT_DETERMINISTIC: aclSysParamOpt = 0;
pub const ACL_OPT_ENABLE_DEBUG_KERNEL: aclSysParamOpt = 1;
pub const ACL_OPT_STRONG_CONSISTENCY: aclSysParamOpt = 2;
pub const ACL_OPT_ENABLE_KERNEL_EARLY_START: aclSysParamOpt = 3;

/// `aclrtLastErrLevel` (acl_rt.h:470-472).
pub type aclrtLastErrLevel = i32;
pub const ACL_RT_THREAD_LEVEL: aclrtLastErrLevel = 0;

/// Flags of `aclrtCreateStreamWithConfig` (acl_rt.h:36-41).
pub const ACL_STREAM_FAST_LAUNCH: u32 = 0x01;
pub const ACL_STREAM_FAST_SYNC: u32 = 0x02;
pub const ACL_STREAM_PERSISTENT: u32 = 0x04;
pub const ACL_STREAM_HUGE: u32 = 0x08;
pub const ACL_STREAM_CPU_SCHEDULE: u32 = 0x10;
pub const ACL_STREAM_DEVICE_USE_ONLY: u32 = 0x20;

/// Flags of `aclrtRecordEventWithFlag` and `aclrtStreamWaitEventWithFlag` (acl_rt.h:100-103).
pub const ACL_EVENT_RECORD_DEFAULT: u32 = 0x0;
pub const ACL_EVENT_RECORD_EXTERNAL: u32 = 0x1;
pub const ACL_EVENT_WAIT_DEFAULT: u32 = 0x0;
pub const ACL_EVENT_WAIT_EXTERNAL: u32 = 0x1;

/// Comparisons of `aclrtValueWait` (acl_rt.h:43-46).
pub const ACL_STREAM_WAIT_VALUE_GEQ: u32 = 0x0;
pub const ACL_STREAM_WAIT_VALUE_EQ: u32 = 0x1;
pub const ACL_STREAM_WAIT_VALUE_AND: u32 = 0x2;
pub const ACL_STREAM_WAIT_VALUE_NOR: u32 = 0x3;

/// `aclrtCallback` (acl_rt.h:385): `void (*)(void *userData)`.
pub type aclrtCallback = Option<unsafe extern "C" fn(userData: *mut c_void)>;
/// `aclrtHostFunc` (acl_rt.h:387): `void (*)(void *args)`.
pub type aclrtHostFunc = Option<unsafe extern "C" fn(args: *mut c_void)>;
/// `aclrtCallbackBlockType` (acl_rt.h:139-142).
pub type aclrtCallbackBlockType = i32;
pub const ACL_CALLBACK_NO_BLOCK: aclrtCallbackBlockType = 0;
pub const ACL_CALLBACK_BLOCK: aclrtCallbackBlockType = 1;

/// `aclDataBuffer` (acl_base_rt.h): opaque, used through pointers only.
#[repr(C)]
#[derive(Debug)]
pub struct aclDataBuffer {
    _opaque: [u8; 0],
}
/// `aclFloat16` (acl_base_rt.h:56): IEEE 754 binary16 bits.
pub type aclFloat16 = u16;
/// `aclDataType` (acl_base_rt.h:140-169).
pub type aclDataType = i32;
pub const ACL_DT_UNDEFINED: aclDataType = -1;
pub const ACL_FLOAT: aclDataType = 0;
pub const ACL_FLOAT16: aclDataType = 1;
pub const ACL_INT8: aclDataType = 2;
pub const ACL_INT32: aclDataType = 3;
pub const ACL_UINT8: aclDataType = 4;
pub const ACL_INT16: aclDataType = 6;
pub const ACL_UINT16: aclDataType = 7;
pub const ACL_UINT32: aclDataType = 8;
pub const ACL_INT64: aclDataType = 9;
pub const ACL_UINT64: aclDataType = 10;
pub const ACL_DOUBLE: aclDataType = 11;
pub const ACL_BOOL: aclDataType = 12;
pub const ACL_STRING: aclDataType = 13;
pub const ACL_COMPLEX64: aclDataType = 16;
pub const ACL_COMPLEX128: aclDataType = 17;
pub const ACL_BF16: aclDataType = 27;
pub const ACL_INT4: aclDataType = 29;
pub const ACL_UINT1: aclDataType = 30;
pub const ACL_COMPLEX32: aclDataType = 33;
pub const ACL_HIFLOAT8: aclDataType = 34;
pub const ACL_FLOAT8_E5M2: aclDataType = 35;
pub const ACL_FLOAT8_E4M3FN: aclDataType = 36;
pub const ACL_FLOAT8_E8M0: aclDataType = 37;
pub const ACL_FLOAT6_E3M2: aclDataType = 38;
pub const ACL_FLOAT6_E2M3: aclDataType = 39;
pub const ACL_FLOAT4_E2M1: aclDataType = 40;
pub const ACL_FLOAT4_E1M2: aclDataType = 41;

/// `aclDeviceInfo` (acl_base_rt.h:218-223), kinds of `aclGetDeviceCapability`.
pub type aclDeviceInfo = i32;
pub const ACL_DEVICE_INFO_UNDEFINED: aclDeviceInfo = -1;
pub const ACL_DEVICE_INFO_AI_CORE_NUM: aclDeviceInfo = 0;
pub const ACL_DEVICE_INFO_VECTOR_CORE_NUM: aclDeviceInfo = 1;
pub const ACL_DEVICE_INFO_L2_SIZE: aclDeviceInfo = 2;
/// `aclrtDevFeatureType` (acl_rt.h:703-706).
pub type aclrtDevFeatureType = i32;
pub const ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV: aclrtDevFeatureType = 1;
pub const ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV: aclrtDevFeatureType = 21;
/// Answers of `aclrtGetDeviceCapability` (acl_rt.h:56-57).
pub const ACL_DEV_FEATURE_SUPPORT: i32 = 1;
pub const ACL_DEV_FEATURE_NOT_SUPPORT: i32 = 0;
/// `aclrtUuid` (acl_rt.h:885-887).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct aclrtUuid {
    /// 16 bytes.
    pub bytes: [std::ffi::c_char; 16],
}
/// `aclrtTsId` (acl_rt.h:110-114).
pub type aclrtTsId = i32;
pub const ACL_TS_ID_AICORE: aclrtTsId = 0;
pub const ACL_TS_ID_AIVECTOR: aclrtTsId = 1;
pub const ACL_TS_ID_RESERVED: aclrtTsId = 2;
/// `aclrtGroupInfo`: opaque, used through pointers only.
#[repr(C)]
#[derive(Debug)]
pub struct aclrtGroupInfo {
    _opaque: [u8; 0],
}
/// `aclrtGroupAttr` (acl_rt.h:271-278).
pub type aclrtGroupAttr = i32;
pub const ACL_GROUP_AICORE_INT: aclrtGroupAttr = 0;
pub const ACL_GROUP_AIV_INT: aclrtGroupAttr = 1;
pub const ACL_GROUP_AIC_INT: aclrtGroupAttr = 2;
pub const ACL_GROUP_SDMANUM_INT: aclrtGroupAttr = 3;
pub const ACL_GROUP_ASQNUM_INT: aclrtGroupAttr = 4;
pub const ACL_GROUP_GROUPID_INT: aclrtGroupAttr = 5;
/// `aclrtExceptionInfo`: opaque, used through pointers only.
#[repr(C)]
#[derive(Debug)]
pub struct aclrtExceptionInfo {
    _opaque: [u8; 0],
}
/// `aclrtExceptionInfoCallback` (acl_rt.h:389).
pub type aclrtExceptionInfoCallback = Option<unsafe extern "C" fn(exceptionInfo: *mut aclrtExceptionInfo)>;

/// `aclrtStreamConfigHandle` (acl_rt.h:293-298): what aclrtCreateStreamV2 makes a stream with.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclrtStreamConfigHandle {
    /// A model's work memory.
    pub workptr: *mut c_void,
    /// Its size.
    pub workSize: usize,
    /// `ACL_STREAM_*` flags.
    pub flag: usize,
    /// 0 (greatest) to 7 (least).
    pub priority: u32,
}
/// `aclrtStreamConfigAttr` (acl_rt.h:286-291).
pub type aclrtStreamConfigAttr = i32;
pub const ACL_RT_STREAM_WORK_ADDR_PTR: aclrtStreamConfigAttr = 0;
pub const ACL_RT_STREAM_WORK_SIZE: aclrtStreamConfigAttr = 1;
pub const ACL_RT_STREAM_FLAG: aclrtStreamConfigAttr = 2;
pub const ACL_RT_STREAM_PRIORITY: aclrtStreamConfigAttr = 3;
/// `aclrtStreamAttr` (acl_rt.h:572-578).
pub type aclrtStreamAttr = i32;
pub const ACL_STREAM_ATTR_FAILURE_MODE: aclrtStreamAttr = 1;
pub const ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK: aclrtStreamAttr = 2;
pub const ACL_STREAM_ATTR_USER_CUSTOM_TAG: aclrtStreamAttr = 3;
pub const ACL_STREAM_ATTR_CACHE_OP_INFO: aclrtStreamAttr = 4;
pub const ACL_STREAM_ATTR_PRIORITY: aclrtStreamAttr = 5;
/// `aclrtStreamAttrValue` (acl_rt.h:580-587): 16 bytes.
#[repr(C)]
#[derive(Clone, Copy)]
pub union aclrtStreamAttrValue {
    pub failureMode: u64,
    pub overflowSwitch: u32,
    pub userCustomTag: u32,
    pub cacheOpInfoSwitch: u32,
    pub streamPriority: u32,
    pub reserve: [u32; 4],
}
#[allow(unsafe_code)] // a union read: every field is plain bits
impl std::fmt::Debug for aclrtStreamAttrValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // SAFETY: every field is plain bits; `reserve` covers the whole union.
        f.debug_struct("aclrtStreamAttrValue").field("reserve", unsafe { &self.reserve }).finish()
    }
}

/// `aclrtUtilizationInfo` (acl_rt.h:300-308), in percent; -1 is not supported.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclrtUtilizationInfo {
    pub cubeUtilization: i32,
    pub vectorUtilization: i32,
    pub aicpuUtilization: i32,
    pub memoryUtilization: i32,
    /// Reserved: must be NULL.
    pub utilizationExtend: *mut c_void,
}

/// `aclRegisterCallbackType` (acl_rt.h:5028-5038).
pub type aclRegisterCallbackType = i32;
pub const ACL_REG_TYPE_ACL_MODEL: aclRegisterCallbackType = 0;
pub const ACL_REG_TYPE_ACL_OP_EXECUTOR: aclRegisterCallbackType = 1;
pub const ACL_REG_TYPE_ACL_OP_CBLAS: aclRegisterCallbackType = 2;
pub const ACL_REG_TYPE_ACL_OP_COMPILER: aclRegisterCallbackType = 3;
pub const ACL_REG_TYPE_ACL_TDT_CHANNEL: aclRegisterCallbackType = 4;
pub const ACL_REG_TYPE_ACL_TDT_QUEUE: aclRegisterCallbackType = 5;
pub const ACL_REG_TYPE_ACL_DVPP: aclRegisterCallbackType = 6;
pub const ACL_REG_TYPE_ACL_RETR: aclRegisterCallbackType = 7;
pub const ACL_REG_TYPE_OTHER: aclRegisterCallbackType = 0xFFFF;
/// `aclInitCallbackFunc` (acl_rt.h:5039).
pub type aclInitCallbackFunc =
    Option<unsafe extern "C" fn(configStr: *const std::ffi::c_char, len: usize, userData: *mut c_void) -> aclError>;
/// `aclFinalizeCallbackFunc` (acl_rt.h:5040).
pub type aclFinalizeCallbackFunc = Option<unsafe extern "C" fn(userData: *mut c_void) -> aclError>;

/// `aclrtAtomicOperation` (acl_rt.h:1034-1059); the values are in the C header.
pub type aclrtAtomicOperation = i32;

/// `aclrtCondition` (acl_rt.h), compared by aclrtSwitchStream; values in the C header.
pub type aclrtCondition = i32;
/// `aclrtCompareDataType` (acl_rt.h): `ACL_RT_SWITCH_INT32` 0, `ACL_RT_SWITCH_INT64` 1.
pub type aclrtCompareDataType = i32;

// ---- Memory (hicann/runtime@681ef76 include/external/acl/) ----

/// `aclrtHostRegister` flags of aclrtHostRegisterV2 (acl_rt.h:75-78).
pub const ACL_HOST_REG_MAPPED: u32 = 0x2;
/// See [`ACL_HOST_REG_MAPPED`].
pub const ACL_HOST_REG_IOMEMORY: u32 = 0x4;
/// See [`ACL_HOST_REG_MAPPED`].
pub const ACL_HOST_REG_READONLY: u32 = 0x8;
/// See [`ACL_HOST_REG_MAPPED`].
pub const ACL_HOST_REG_PINNED: u32 = 0x1000_0000;
/// The only flag of aclrtMemAllocManaged (acl_rt.h:89).
pub const ACL_RT_MEM_ATTACH_GLOBAL: u32 = 0x1;
/// aclrtCheckMemType's memType bits (acl_rt.h:913-915).
pub const ACL_RT_MEM_TYPE_DEV: u32 = 0x2;
/// See [`ACL_RT_MEM_TYPE_DEV`].
pub const ACL_RT_MEM_TYPE_DVPP: u32 = 0x8;
/// See [`ACL_RT_MEM_TYPE_DEV`].
pub const ACL_RT_MEM_TYPE_RSVD: u32 = 0x10;

/// `aclrtHostRegisterType` (acl_rt.h:191-195).
pub type aclrtHostRegisterType = i32;
pub const ACL_HOST_REGISTER_MAPPED: aclrtHostRegisterType = 0;
pub const ACL_HOST_REGISTER_IOMEMORY: aclrtHostRegisterType = 0x4;
pub const ACL_HOST_REGISTER_READONLY: aclrtHostRegisterType = 0x8;

/// `aclrtMallocAttrType` (acl_rt.h:197-202).
pub type aclrtMallocAttrType = i32;
pub const ACL_RT_MEM_ATTR_RSV: aclrtMallocAttrType = 0;
pub const ACL_RT_MEM_ATTR_MODULE_ID: aclrtMallocAttrType = 1;
pub const ACL_RT_MEM_ATTR_DEVICE_ID: aclrtMallocAttrType = 2;
pub const ACL_RT_MEM_ATTR_VA_FLAG: aclrtMallocAttrType = 3;

/// `aclrtMallocAttrValue` (acl_rt.h:204-209): a union of 8 bytes, align 4;
/// the emulator reads its first word (`deviceId`, `vaFlag`; `moduleId` is its low half).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct aclrtMallocAttrValue {
    pub rsv: [u32; 2],
}

/// `aclrtMallocAttribute` (acl_rt.h:211-214): 12 bytes, align 4.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct aclrtMallocAttribute {
    pub attr: aclrtMallocAttrType,
    pub value: aclrtMallocAttrValue,
}

/// `aclrtMallocConfig` (acl_rt.h:216-219): 16 bytes, align 8.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclrtMallocConfig {
    pub attrs: *mut aclrtMallocAttribute,
    pub numAttrs: usize,
}

/// `aclrtMemUsageInfo` (acl_rt.h:333-338): 112 bytes, align 8.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct aclrtMemUsageInfo {
    pub name: [std::ffi::c_char; 32],
    pub curMemSize: u64,
    pub memPeakSize: u64,
    pub reserved: [usize; 8],
}

/// `aclrtMemManagedAdviseType` (acl_rt.h:155-162).
pub type aclrtMemManagedAdviseType = i32;
pub const ACL_MEM_ADVISE_SET_READ_MOSTLY: aclrtMemManagedAdviseType = 0;
pub const ACL_MEM_ADVISE_UNSET_ACCESSED_BY: aclrtMemManagedAdviseType = 5;

/// `aclrtMemManagedLocationType` (acl_rt.h:164-170).
pub type aclrtMemManagedLocationType = i32;
pub const ACL_MEM_LOCATIONTYPE_INVALID: aclrtMemManagedLocationType = 0;
pub const ACL_MEM_LOCATIONTYPE_DEVICE: aclrtMemManagedLocationType = 1;
pub const ACL_MEM_LOCATIONTYPE_HOST: aclrtMemManagedLocationType = 2;
pub const ACL_MEM_LOCATIONTYPE_HOST_NUMA: aclrtMemManagedLocationType = 3;
pub const ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT: aclrtMemManagedLocationType = 4;

/// `aclrtMemManagedLocation` (acl_rt.h:172-175): 8 bytes, align 4, passed by value.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct aclrtMemManagedLocation {
    pub type_: aclrtMemManagedLocationType,
    pub id: i32,
}

/// `aclrtMemManagedRangeAttribute` (acl_rt.h:340-349; starts at 1).
pub type aclrtMemManagedRangeAttribute = i32;
pub const ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY: aclrtMemManagedRangeAttribute = 1;
pub const ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION: aclrtMemManagedRangeAttribute = 2;
pub const ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY: aclrtMemManagedRangeAttribute = 3;
pub const ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE: aclrtMemManagedRangeAttribute = 4;
pub const ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID: aclrtMemManagedRangeAttribute = 5;
pub const ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION: aclrtMemManagedRangeAttribute = 6;
pub const ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE: aclrtMemManagedRangeAttribute = 7;
pub const ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID: aclrtMemManagedRangeAttribute = 8;

/// `aclrtMemcpyBatchAttr` (acl_rt.h:754-758): 32 bytes, align 4.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct aclrtMemcpyBatchAttr {
    pub dstLoc: aclrtMemLocation,
    pub srcLoc: aclrtMemLocation,
    pub rsv: [u8; 16],
}

/// `aclrtCmoType` (acl_rt.h:463-468).
pub type aclrtCmoType = i32;
pub const ACL_RT_CMO_TYPE_PREFETCH: aclrtCmoType = 0;
pub const ACL_RT_CMO_TYPE_FLUSH: aclrtCmoType = 3;

/// `aclrtBarrierCmoInfo` (acl_rt.h:734-737): 8 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct aclrtBarrierCmoInfo {
    pub cmoType: aclrtCmoType,
    pub barrierId: u32,
}

/// `ACL_RT_CMO_MAX_BARRIER_NUM` (acl_rt.h:739).
pub const ACL_RT_CMO_MAX_BARRIER_NUM: usize = 6;

/// `aclrtBarrierTaskInfo` (acl_rt.h:741-744): 56 bytes, align 8.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct aclrtBarrierTaskInfo {
    pub barrierNum: usize,
    pub cmoInfo: [aclrtBarrierCmoInfo; ACL_RT_CMO_MAX_BARRIER_NUM],
}

/// `UCE_INFO_RESERVED_SIZE` (acl_rt.h:420).
pub const UCE_INFO_RESERVED_SIZE: usize = 14;

/// `aclrtMemUceInfo` (acl_rt.h:422-426): 128 bytes, align 8.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclrtMemUceInfo {
    pub addr: *mut c_void,
    pub len: usize,
    pub reserved: [usize; UCE_INFO_RESERVED_SIZE],
}

/// `aclrtHacType` (acl_rt.h:988-1000).
pub type aclrtHacType = i32;
pub const ACL_RT_HAC_TYPE_STARS: aclrtHacType = 0;
pub const ACL_RT_HAC_TYPE_CCU: aclrtHacType = 9;

/// `aclrtHostMemMapCapability` (acl_rt.h:1002).
pub type aclrtHostMemMapCapability = i32;
pub const ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED: aclrtHostMemMapCapability = 0;
pub const ACL_RT_HOST_MEM_MAP_SUPPORTED: aclrtHostMemMapCapability = 1;

/// `aclrtMemLinkType` (acl_rt.h:1004-1009).
pub type aclrtMemLinkType = i32;
pub const ACL_RT_MEM_ACCESS_LINK_SIO: aclrtMemLinkType = 0;
pub const ACL_RT_MEM_ACCESS_UB_MULTI_PORT_PATH: aclrtMemLinkType = 3;

/// `aclrtIpcMemAttrType` (acl_rt.h:267-269).
pub type aclrtIpcMemAttrType = i32;
pub const ACL_RT_IPC_MEM_ATTR_ACCESS_LINK: aclrtIpcMemAttrType = 0;

/// `aclrtMbuf`: an opaque pointer (acl_base_rt.h:54).
pub type aclrtMbuf = *mut c_void;
/// `aclrtAllocatorDesc`: an opaque pointer (acl_base_rt.h:58).
pub type aclrtAllocatorDesc = *mut c_void;
/// `aclrtAllocator`: the user's allocator object (acl_base_rt.h:59).
pub type aclrtAllocator = *mut c_void;
/// `aclrtAllocatorBlock`: a block of the user's allocator (acl_base_rt.h:60).
pub type aclrtAllocatorBlock = *mut c_void;
/// `aclrtAllocatorAddr`: an address hint (acl_base_rt.h:61).
pub type aclrtAllocatorAddr = *mut c_void;
/// `void *(*)(aclrtAllocator, size_t)` (acl_rt_allocator.h:28).
pub type aclrtAllocatorAllocFunc = Option<unsafe extern "C" fn(aclrtAllocator, usize) -> *mut c_void>;
/// `void (*)(aclrtAllocator, aclrtAllocatorBlock)` (acl_rt_allocator.h:29).
pub type aclrtAllocatorFreeFunc = Option<unsafe extern "C" fn(aclrtAllocator, aclrtAllocatorBlock)>;
/// `void *(*)(aclrtAllocator, size_t, aclrtAllocatorAddr)` (acl_rt_allocator.h:30).
pub type aclrtAllocatorAllocAdviseFunc =
    Option<unsafe extern "C" fn(aclrtAllocator, usize, aclrtAllocatorAddr) -> *mut c_void>;
/// `void *(*)(aclrtAllocatorBlock)` (acl_rt_allocator.h:31).
pub type aclrtAllocatorGetAddrFromBlockFunc = Option<unsafe extern "C" fn(aclrtAllocatorBlock) -> *mut c_void>;

// Layouts, checked at compile time (and in tests/c/layout.c).
const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    assert!(size_of::<aclrtMallocAttrValue>() == 8 && align_of::<aclrtMallocAttrValue>() == 4);
    assert!(size_of::<aclrtMallocAttribute>() == 12 && offset_of!(aclrtMallocAttribute, value) == 4);
    assert!(size_of::<aclrtMallocConfig>() == 16 && offset_of!(aclrtMallocConfig, numAttrs) == 8);
    assert!(size_of::<aclrtMemUsageInfo>() == 112 && align_of::<aclrtMemUsageInfo>() == 8);
    assert!(offset_of!(aclrtMemUsageInfo, curMemSize) == 32 && offset_of!(aclrtMemUsageInfo, memPeakSize) == 40);
    assert!(offset_of!(aclrtMemUsageInfo, reserved) == 48);
    assert!(size_of::<aclrtMemManagedLocation>() == 8 && offset_of!(aclrtMemManagedLocation, id) == 4);
    assert!(size_of::<aclrtMemcpyBatchAttr>() == 32 && align_of::<aclrtMemcpyBatchAttr>() == 4);
    assert!(offset_of!(aclrtMemcpyBatchAttr, srcLoc) == 8 && offset_of!(aclrtMemcpyBatchAttr, rsv) == 16);
    assert!(size_of::<aclrtBarrierTaskInfo>() == 56 && offset_of!(aclrtBarrierTaskInfo, cmoInfo) == 8);
    assert!(size_of::<aclrtMemUceInfo>() == 128 && offset_of!(aclrtMemUceInfo, reserved) == 16);
};

crate::opaque::opaque_debug!(aclrtMemFabricHandle.data, aclrtIpcEventHandle.reserved);
